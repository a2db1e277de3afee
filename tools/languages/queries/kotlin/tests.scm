; Test definitions (code_intel.verify.test_edits): @test the JUnit annotation, @name the function it marks (a
; backquoted name keeps its backquotes here).
(function_declaration
  (modifiers (annotation [(user_type (type_identifier) @_a) (constructor_invocation (user_type (type_identifier) @_a))]) @test
    (#any-of? @_a "Test" "ParameterizedTest" "RepeatedTest" "TestFactory" "TestTemplate"))
  (simple_identifier) @name)

; What a skip can sit on (@group): functions and classes.
(function_declaration (simple_identifier) @group)
(class_declaration (type_identifier) @group)

; Skips: @skipped a JUnit `@Disabled` or `@Ignore`, on the test that follows (told without its arguments: @how).
((annotation [(user_type (type_identifier) @how) (constructor_invocation (user_type (type_identifier) @how))]) @skipped
 (#any-of? @how "Disabled" "Ignore"))
