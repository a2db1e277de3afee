; Test definitions (code_intel.verify.test_edits): @test where one starts, @suite and @name a GoogleTest
; `TEST(Suite, Name)` (TEST_F, TEST_P, TYPED_TEST...); a Unity `RUN_TEST(name)` names a test function (@name).
((function_definition
   declarator: (function_declarator
     declarator: (identifier) @_macro
     parameters: (parameter_list . (parameter_declaration) @suite . (parameter_declaration) @name .))) @test
 (#any-of? @_macro "TEST" "TEST_F" "TEST_P" "TYPED_TEST" "TYPED_TEST_P"))
((call_expression function: (identifier) @_run arguments: (argument_list . (identifier) @name)) @test
 (#eq? @_run "RUN_TEST"))
