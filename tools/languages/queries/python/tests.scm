; Test definitions (code_intel.verify.test_edits): @test where one starts, @name its name (the body starts on the
; line the name is on). A `test*` function or method, `async def` too.
((function_definition name: (identifier) @name) @test (#match? @name "^test"))
