; Test definitions (code_intel.verify.test_edits): @test where one starts, @name its title. A jest, mocha or vitest
; `it`/`test` call with its modifiers (`it.skip`, `xit`, `fit`, `test.each(table)`, `test.skipIf(cond)`) and a
; literal title first.
((call_expression
   function: (_) @_callee
   arguments: (arguments . [(string) (template_string)] @name)) @test
 (#match? @_callee "^([xf]?it|x?test)(\\.(skip|only|todo|concurrent|failing|sequential)|\\.(skipIf|runIf|each)\\s*(\\([\\s\\S]*\\)|`[^`]*`))*$"))
