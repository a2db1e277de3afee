; Empty-body roles (code_intel.workflow.empty_body): @callable, @type (a declaration), @body, @block,
; @decorator and @ignored (not judged). Elixir defines with calls: the word the call is made with says what.
; A def without a body or with an empty `do end` is a declaration, as Ruby's empty `def` is.
((call target: (identifier) @_word (do_block (_)) @body) @callable
  (#any-of? @_word "def" "defp" "defmacro" "defmacrop"))
((call target: (identifier) @_word (do_block) @body) @type
  (#any-of? @_word "defmodule" "defprotocol" "defimpl"))
((unary_operator operand: (call target: (identifier) @_attribute)) @decorator
  (#any-of? @_attribute "doc" "moduledoc" "spec" "impl" "typedoc"))
