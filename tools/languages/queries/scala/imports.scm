; Imports (code_intel.explore.imports): @import the declaration; @module the dotted path, whose names the grammar
; writes as nodes of their own (the reader takes the text from the first to the last); @name each selector of
; `a.b.{C, D => E, given}`; @wildcard the `_` or `*` of `a.b._`, `a.b.*` and `a.b.{C, *}`. A path starts the
; declaration or follows a comma (`import a.B, c.d.{E, F}` imports two).
(import_declaration . (identifier) @module . ("." . (identifier) @module)*) @import
(import_declaration "," . (identifier) @module . ("." . (identifier) @module)*) @import
(import_declaration . (identifier) @module . ("." . (identifier) @module)* . "." . [
  (namespace_wildcard ["*" "_"]) @wildcard
  (namespace_selectors [(identifier) (arrow_renamed_identifier) (as_renamed_identifier) (namespace_wildcard "given")] @name)
  (namespace_selectors (namespace_wildcard ["*" "_"]) @wildcard)]) @import
(import_declaration "," . (identifier) @module . ("." . (identifier) @module)* . "." . [
  (namespace_wildcard ["*" "_"]) @wildcard
  (namespace_selectors [(identifier) (arrow_renamed_identifier) (as_renamed_identifier) (namespace_wildcard "given")] @name)
  (namespace_selectors (namespace_wildcard ["*" "_"]) @wildcard)]) @import
; the file's own package (kind "package": where it is, not what it imports)
(package_clause (package_identifier) @module.package) @import
