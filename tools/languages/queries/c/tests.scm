; Test definitions (code_intel.verify.test_edits): @test where one starts, @suite and @name a GoogleTest
; `TEST(Suite, Name)` (TEST_F, TEST_P, TYPED_TEST...); a Unity `RUN_TEST(name)` names a test function (@name).
((function_definition
   declarator: (function_declarator
     declarator: (identifier) @_macro
     parameters: (parameter_list . (parameter_declaration) @suite . (parameter_declaration) @name .))) @test
 (#any-of? @_macro "TEST" "TEST_F" "TEST_P" "TYPED_TEST" "TYPED_TEST_P"))
((call_expression function: (identifier) @_run arguments: (argument_list . (identifier) @name)) @test
 (#eq? @_run "RUN_TEST"))

; What a skip can sit in (@group, with @group_suite for GoogleTest): a TEST(Suite, Name) and every function
; (@group_definition: where a Unity test's function starts).
((function_definition
   declarator: (function_declarator
     declarator: (identifier) @_macro
     parameters: (parameter_list . (parameter_declaration) @group_suite . (parameter_declaration) @group .)))
 (#any-of? @_macro "TEST" "TEST_F" "TEST_P" "TYPED_TEST" "TYPED_TEST_P"))
((function_definition declarator: (function_declarator declarator: (identifier) @group)) @group_definition
 (#not-match? @group "^(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)$"))

; Skips: @skipped.inside the test it is called in (GoogleTest's GTEST_SKIP, Unity's TEST_IGNORE).
(call_expression function: (identifier) @skipped.inside
  (#any-of? @skipped.inside "GTEST_SKIP" "TEST_IGNORE" "TEST_IGNORE_MESSAGE"))
