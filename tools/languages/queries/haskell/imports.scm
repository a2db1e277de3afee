; Imports (code_intel.explore.imports): @import the statement, @module the module, @name each name of its list.
(import module: (module) @module) @import
(import module: (module) @module names: (import_list (import_name) @name)) @import
