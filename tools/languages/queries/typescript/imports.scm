; inherits: javascript
; Imports (code_intel.explore.imports), beside JavaScript's: `import x = require('x')`.
(import_statement (import_require_clause (identifier) @name source: (string (string_fragment) @module))) @import
