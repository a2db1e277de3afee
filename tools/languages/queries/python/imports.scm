; Imports (code_intel.explore.imports): @import the statement, @module the module as written (a relative one keeps
; its dots), @name each name it imports as written (`x as y`), @wildcard a `*`.
(import_statement name: (dotted_name) @module @name) @import
(import_statement name: (aliased_import name: (dotted_name) @module) @name) @import
(import_from_statement module_name: (_) @module name: (_) @name) @import
(import_from_statement module_name: (_) @module (wildcard_import) @wildcard) @import
(future_import_statement "__future__" @module name: (_) @name) @import
