; Imports (code_intel.explore.imports): @import the header, @module the dotted name, @wildcard a `.*`.
(import_header (identifier) @module) @import
(import_header (identifier) @module (wildcard_import) @wildcard) @import
; the file's own package (kind "package": where it is, not what it imports)
(package_header (identifier) @module.package) @import
