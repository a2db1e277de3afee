; Imports (code_intel.explore.imports): @import the declaration, @module the dotted name, @wildcard a `.*`.
(import_declaration [(scoped_identifier) (identifier)] @module) @import
(import_declaration [(scoped_identifier) (identifier)] @module (asterisk) @wildcard) @import
; the file's own package (kind "package": where it is, not what it imports)
(package_declaration [(scoped_identifier) (identifier)] @module.package) @import
