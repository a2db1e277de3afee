; Test definitions (code_intel.verify.test_edits): @test the JUnit annotation, @name the method it marks; a JUnit 3
; `public void testX()`.
(method_declaration
  (modifiers [(marker_annotation name: (identifier) @_a) (annotation name: (identifier) @_a)] @test
    (#any-of? @_a "Test" "ParameterizedTest" "RepeatedTest" "TestFactory" "TestTemplate"))
  name: (identifier) @name)
((method_declaration (modifiers "public") type: (void_type) name: (identifier) @name
   parameters: (formal_parameters) @_p) @test
 (#match? @name "^test") (#eq? @_p "()"))

; What a skip can sit on (@group): void methods and classes.
(method_declaration type: (void_type) name: (identifier) @group)
(class_declaration name: (identifier) @group)

; Skips: @skipped a JUnit `@Disabled` or `@Ignore`, on the test that follows (told without its arguments: @how).
([(marker_annotation name: (identifier) @how) (annotation name: (identifier) @how)] @skipped
 (#any-of? @how "Disabled" "Ignore"))

; Tables of cases (@table, its whole definition @table_definition): a static method without parameters giving
; the cases of a @MethodSource("name"): a Stream, a Collection, a List, an array.
((method_declaration (modifiers "static") type: (_) @_type name: (identifier) @table parameters: (formal_parameters) @_p)
   @table_definition
 (#eq? @_p "()") (#match? @_type "^(([a-z]\\w*\\.)*(Stream|Collection|List|Iterable|Iterator|Set)\\b|[\\s\\S]*\\[\\]$)"))
