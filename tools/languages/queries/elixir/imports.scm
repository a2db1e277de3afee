; Imports (code_intel.explore.imports): @import the call, @module the module as written, @name each module of a
; multi-alias (`alias Phoenix.{Channel, Router}`). Elixir's `alias`, `import`, `require` and `use` all name a module.
(call
  target: (identifier) @_word (#any-of? @_word "alias" "import" "require" "use")
  (arguments . (alias) @module)) @import
(call
  target: (identifier) @_word (#any-of? @_word "alias" "import" "require" "use")
  (arguments . (dot left: (alias) @module right: (tuple (alias) @name)))) @import
