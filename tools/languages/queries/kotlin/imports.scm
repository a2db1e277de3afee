; Imports (code_intel.explore.imports): @import the header, @module the dotted name, @wildcard a `.*`.
(import_header (identifier) @module) @import
(import_header (identifier) @module (wildcard_import) @wildcard) @import
