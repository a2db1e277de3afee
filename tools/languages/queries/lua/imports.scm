; Imports (code_intel.explore.imports): @import the call, @module the module as written. Lua's `require("a.b")` and
; `require "a.b"` (anywhere: a function often requires what it uses when it runs); a computed name is no import.
(function_call
  name: (identifier) @_fn (#eq? @_fn "require")
  arguments: (arguments . (string content: (string_content) @module) .)) @import
