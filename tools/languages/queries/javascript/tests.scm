; Test definitions (code_intel.verify.test_edits): @test where one starts, @name its title. A jest, mocha or vitest
; `it`/`test` call with its modifiers (`it.skip`, `xit`, `fit`, `test.each(table)`, `test.skipIf(cond)`) and a
; literal title first.
((call_expression
   function: (_) @_callee
   arguments: (arguments . [(string) (template_string)] @name)) @test
 (#match? @_callee "^([xf]?it|x?test)(\\.(skip|only|todo|concurrent|failing|sequential)|\\.(skipIf|runIf|each)\\s*(\\([\\s\\S]*\\)|`[^`]*`))*$"))

; What a skip or focus marker can sit on (@group): a test or a group (`describe`, `context`, `suite`) by its title.
((call_expression
   function: (_) @_callee
   arguments: (arguments . [(string) (template_string)] @group))
 (#match? @_callee "^([xf]?it|x?test|[xf]?describe|context|suite)(\\.(skip|only|todo|concurrent|failing|sequential)|\\.(skipIf|runIf|each)\\s*(\\([\\s\\S]*\\)|`[^`]*`))*$"))

; Skips and focus: @skipped / @focused mark the test or group they are written on, @skipped.inside the test it is in.
((member_expression object: (identifier) @_o property: (property_identifier) @_p) @skipped
 (#any-of? @_o "it" "test" "describe" "context" "suite") (#any-of? @_p "skip" "todo"))
((member_expression object: (identifier) @_o property: (property_identifier) @_p) @skipped
 (#any-of? @_o "it" "test" "describe") (#eq? @_p "skipIf"))
(call_expression function: (identifier) @skipped (#any-of? @skipped "xit" "xtest" "xdescribe" "xcontext"))
((member_expression object: (identifier) @_o property: (property_identifier) @_p) @focused
 (#any-of? @_o "it" "test" "describe" "context" "suite") (#eq? @_p "only"))
(call_expression function: (identifier) @focused (#any-of? @focused "fit" "fdescribe"))
((call_expression
   function: (member_expression object: [(this) (identifier)] @_o property: (property_identifier) @_p)
   arguments: (arguments) @_args) @skipped.inside
 (#any-of? @_o "this" "ctx" "context") (#eq? @_p "skip") (#eq? @_args "()"))

; Tables of cases (@table, its whole definition @table_definition): a top-level `const`, `let` or `var`.
(program (lexical_declaration (variable_declarator name: (identifier) @table value: (_))) @table_definition)
(program (variable_declaration (variable_declarator name: (identifier) @table value: (_))) @table_definition)
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @table value: (_))))
  @table_definition)
