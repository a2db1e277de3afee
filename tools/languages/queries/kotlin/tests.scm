; Test definitions (code_intel.verify.test_edits): @test the JUnit annotation, @name the function it marks (a
; backquoted name keeps its backquotes here).
(function_declaration
  (modifiers (annotation [(user_type (type_identifier) @_a) (constructor_invocation (user_type (type_identifier) @_a))]) @test
    (#any-of? @_a "Test" "ParameterizedTest" "RepeatedTest" "TestFactory" "TestTemplate"))
  (simple_identifier) @name)
