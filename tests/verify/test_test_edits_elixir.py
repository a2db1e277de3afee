"""ExUnit tests a change removed, skipped or rewrote (queries/elixir/tests.scm)."""

from __future__ import annotations

from code_intel.verify.test_edits import find_test_edits, may_hold_tests

BEFORE = '''defmodule CartTest do
  use ExUnit.Case, async: true

  describe "total/1" do
    test "sums prices" do
      assert Cart.total([1, 2]) == 3
    end

    test "empty cart" do
      assert Cart.total([]) == 0
    end
  end

  test "adds an item" do
    assert Cart.add([], 1) == [1]
  end
end
'''


def test_exunit_tests_removed_skipped_and_rewritten() -> None:
    after = BEFORE.replace('    test "empty cart" do', '    @tag :skip\n    test "empty cart" do')
    after = after.replace('  test "adds an item" do\n    assert Cart.add([], 1) == [1]\n  end\n', "")
    after = after.replace("== 3", "== 4")
    assert [e.text() for e in find_test_edits([("test/cart_test.exs", BEFORE, after)])] == [
        "test/cart_test.exs 'adds an item': removed (its definition is gone)",
        "test/cart_test.exs:9 'empty cart': skipped (@tag :skip)",
        "test/cart_test.exs 'sums prices': rewritten (lines it had are changed or gone)",
    ]


def test_a_skip_taken_out_again_and_an_unchanged_file_are_no_edits() -> None:
    skipped = BEFORE.replace('    test "empty cart" do', '    @tag :skip\n    test "empty cart" do')
    assert find_test_edits([("test/cart_test.exs", skipped, BEFORE)]) == []
    assert find_test_edits([("test/cart_test.exs", BEFORE, BEFORE)]) == []


def test_only_exunit_test_files_are_read() -> None:
    assert may_hold_tests("test/cart_test.exs")
    assert not may_hold_tests("lib/cart.ex") and not may_hold_tests("mix.exs")
