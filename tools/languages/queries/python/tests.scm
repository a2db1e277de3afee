; Test definitions (code_intel.verify.test_edits): @test where one starts, @name its name (the body starts on the
; line the name is on). A `test*` function or method, `async def` too.
((function_definition name: (identifier) @name) @test (#match? @name "^test"))

; What a skip marker can sit on (@group): every function and class.
(function_definition name: (identifier) @group)
(class_definition name: (identifier) @group)

; Skips: @skipped marks the definition that follows (a decorator), @skipped.inside the test it is in (a call); told
; as written from the marker's start to the end of @how, when there is one.
(decorator [(identifier) @how (attribute) @how (call function: [(identifier) (attribute)] @how)]
  (#match? @how "^(pytest\\.mark\\.(skip|skipif|xfail)|(unittest\\.)?(skip|skipIf|skipUnless|expectedFailure))$")) @skipped
(call function: (attribute) @skipped.inside (#match? @skipped.inside "^(pytest\\.(skip|xfail)|self\\.skipTest)$"))
(assignment left: (identifier) @_l (#eq? @_l "pytestmark")
  right: [(attribute) @how (call function: (attribute) @how)] (#match? @how "^pytest\\.mark\\.(skip|skipif|xfail)$")) @skipped.inside
(assignment left: (identifier) @_l (#eq? @_l "__test__") right: (false)) @skipped.inside

; Tables of cases (@table, its whole definition @table_definition): a module-level assignment; a test naming one
; reads it, so a case changed in it changes the test.
(module (assignment left: (identifier) @table) @table_definition)
