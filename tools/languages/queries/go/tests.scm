; Test definitions (code_intel.verify.test_edits): @test where one starts, @name its name. A top-level
; `func TestX`, `ExampleX` or `FuzzX`.
((function_declaration name: (identifier) @name) @test (#match? @name "^(Test|Example|Fuzz)"))
