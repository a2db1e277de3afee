; Imports (code_intel.explore.imports): @import the declaration, @module the dotted name, @wildcard a `.*`.
(import_declaration [(scoped_identifier) (identifier)] @module) @import
(import_declaration [(scoped_identifier) (identifier)] @module (asterisk) @wildcard) @import
