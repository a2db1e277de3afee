; Test definitions (code_intel.verify.test_edits): @test the `#[test]` attribute (`#[tokio::test]` too), @name the
; function it marks, past any other attributes and comments.
((attribute_item (attribute [(identifier) @_a (scoped_identifier name: (identifier) @_a)]) (#eq? @_a "test")) @test
 .
 [(attribute_item) (line_comment) (block_comment)]*
 .
 (function_item name: (identifier) @name))

; What a skip can sit on (@group): every function and inline module.
(function_item name: (identifier) @group)
(mod_item name: (identifier) @group body: (_))

; Skips: @skipped the `#[ignore]` attribute, on the test that follows.
((attribute_item (attribute (identifier) @_a)) @skipped (#eq? @_a "ignore"))

; Tables of cases (@table, its whole definition @table_definition): a `const` or `static`.
([(const_item name: (identifier) @table) (static_item name: (identifier) @table)] @table_definition)
