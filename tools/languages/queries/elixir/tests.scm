; Test definitions (code_intel.verify.test_edits): @test where an ExUnit `test "title" do` starts, @name its title.
((call target: (identifier) @_t (arguments . (string) @name)) @test
 (#eq? @_t "test"))

; What a skip can sit on (@group): a test or a `describe` block, by its title.
((call target: (identifier) @_t (arguments . (string) @group))
 (#any-of? @_t "test" "describe"))

; Skips: @skipped an ExUnit `@tag :skip` (or `@describetag :skip`, `@moduletag :skip`) on what follows it.
((unary_operator operand: (call target: (identifier) @_a (arguments . (atom) @_v))) @skipped
 (#any-of? @_a "tag" "describetag" "moduletag") (#eq? @_v ":skip"))
