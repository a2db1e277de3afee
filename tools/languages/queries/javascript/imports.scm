; Imports (code_intel.explore.imports): @import the statement or call, @module the specifier, @name each name bound.
(import_statement source: (string (string_fragment) @module)) @import
(import_statement (import_clause (identifier) @name) source: (string (string_fragment) @module)) @import
(import_statement (import_clause (namespace_import (identifier) @name)) source: (string (string_fragment) @module)) @import
(import_statement
  (import_clause (named_imports (import_specifier [name: (_) @name alias: (_) @name])))
  source: (string (string_fragment) @module)) @import
(export_statement source: (string (string_fragment) @module)) @import
; CommonJS `require('x')` and a dynamic `import('x')` with a literal specifier
(call_expression
  function: (identifier) @_require (#eq? @_require "require")
  arguments: (arguments . (string (string_fragment) @module) .)) @import
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @module))) @import
