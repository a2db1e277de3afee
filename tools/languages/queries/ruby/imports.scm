; Imports (code_intel.explore.imports): @import the call, @module the path, @module.relative a require_relative's
; (relative to the requiring file).
(call
  method: (identifier) @_method (#any-of? @_method "require" "load")
  arguments: (argument_list . (string (string_content) @module))) @import
(call
  method: (identifier) @_method (#eq? @_method "require_relative")
  arguments: (argument_list . (string (string_content) @module.relative))) @import
