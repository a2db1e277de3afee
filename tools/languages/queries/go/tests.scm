; Test definitions (code_intel.verify.test_edits): @test where one starts, @name its name. A top-level
; `func TestX`, `ExampleX` or `FuzzX`.
((function_declaration name: (identifier) @name) @test (#match? @name "^(Test|Example|Fuzz)"))

; What a skip can sit in (@group): every function and method.
(function_declaration name: (identifier) @group)
(method_declaration name: (field_identifier) @group)

; Skips: @skipped.inside the test it is called in (`t.Skip`, `t.Skipf`, `b.SkipNow`).
(call_expression function: (selector_expression field: (field_identifier) @_f) @skipped.inside
  (#match? @_f "^Skip(f|Now)?$"))

; Tables of cases (@table, its whole definition @table_definition): a top-level `var x = ...`.
(source_file (var_declaration (var_spec name: (identifier) @table value: (_))) @table_definition)
