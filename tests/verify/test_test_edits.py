"""Which tests a change removed, skipped or focused, read from each changed file before and after it."""

from __future__ import annotations

import pytest

from code_intel.verify.test_edits import TestEdit, find_test_edits, may_hold_tests, names_edited_test

PY_BEFORE = '''\
import pytest


def test_add():
    assert 1


def test_power():
    assert 2


class TestGroup:
    def test_member(self):
        pass
'''


def _texts(*files: tuple[str, str | None, str | None]) -> list[str]:
    return [edit.text() for edit in find_test_edits(files)]


def test_an_unchanged_file_has_no_edits():
    assert _texts(("tests/test_calc.py", PY_BEFORE, PY_BEFORE)) == []


def test_python_skip_decorators_calls_and_a_removed_method():
    after = PY_BEFORE.replace("def test_power", "@pytest.mark.skip(reason='later')\ndef test_power")
    after = after.replace("    def test_member(self):\n        pass\n", "    pass\n")
    after = after.replace("    assert 1\n", "    pytest.skip('not now')\n    assert 1\n")
    assert _texts(("tests/test_calc.py", PY_BEFORE, after)) == [
        "tests/test_calc.py test_member: removed (its definition is gone)",
        "tests/test_calc.py:9 test_power: skipped (@pytest.mark.skip)",
        "tests/test_calc.py:5 test_add: skipped (pytest.skip)",
    ]


def test_a_skip_already_there_is_not_the_change_s_even_when_it_moved():
    before = PY_BEFORE.replace("def test_power", "@pytest.mark.skip\ndef test_power")
    after = "# a comment on top\n\n" + before
    assert _texts(("tests/test_calc.py", before, after)) == []


def test_a_module_wide_skip_names_no_test():
    after = "import pytest\n\npytestmark = pytest.mark.skip(reason='later')\n" + PY_BEFORE.replace("import pytest\n", "")
    assert _texts(("tests/test_calc.py", PY_BEFORE, after)) == [
        "tests/test_calc.py:3: skipped (pytestmark = pytest.mark.skip)"]


def test_a_large_test_file_is_read_in_one_pass():
    body = "".join(f"def test_{i}():\n    assert {i}\n\n" for i in range(20_000))
    after = body.replace("def test_5():", "@pytest.mark.skip\ndef test_5():")
    assert _texts(("tests/test_big.py", body, after)) == ["tests/test_big.py:16 test_5: skipped (@pytest.mark.skip)"]


def test_unittest_skips_on_a_class_name_the_class():
    before = "import unittest\n\nclass CalcTest(unittest.TestCase):\n    def test_a(self):\n        pass\n"
    after = before.replace("class CalcTest", "@unittest.skip('broken')\nclass CalcTest")
    assert _texts(("tests/test_calc.py", before, after)) == ["tests/test_calc.py:3 CalcTest: skipped (@unittest.skip)"]


def test_a_deleted_test_file_removes_its_tests_and_a_moved_test_is_not_removed():
    moved = "def test_moved():\n    pass\n"
    assert _texts(("tests/test_gone.py", "def test_gone():\n    pass\n", None),
                  ("tests/test_old.py", moved, ""),
                  ("tests/test_new.py", None, moved)) == ["tests/test_gone.py test_gone: removed (deleted with its file)"]


def test_a_source_file_s_test_named_functions_are_not_tests():
    assert not may_hold_tests("calc/ops.py") and may_hold_tests("tests/helpers.py")
    assert _texts(("calc/ops.py", "def test_helper():\n    pass\n", "")) == []


JS_BEFORE = """describe('calc', () => {
  it('adds numbers', () => {});
  it("doesn't throw", () => {});
  test.each([[1, 2]])('sums %i', () => {});
});
"""


def test_jest_and_mocha_skips_and_focus():
    after = (JS_BEFORE.replace("it('adds", "it.only('adds").replace('it("doesn', 'xit("doesn')
             + "expect(/a/.test('abc')).toBe(true);\n")
    assert _texts(("src/calc.test.ts", JS_BEFORE, after)) == [
        """src/calc.test.ts:3 "doesn't throw": skipped (xit)""",
        "src/calc.test.ts:2 'adds numbers': focused (it.only: the file's other tests stop running)",
    ]
    gone = JS_BEFORE.replace("  test.each([[1, 2]])('sums %i', () => {});\n", "")
    assert _texts(("src/calc.test.ts", JS_BEFORE, gone)) == ["src/calc.test.ts 'sums %i': removed (its definition is gone)"]


def test_a_skipped_describe_names_the_group():
    after = JS_BEFORE.replace("describe('calc'", "describe.skip('calc'")
    assert _texts(("test/calc.spec.js", JS_BEFORE, after)) == ["test/calc.spec.js:1 calc: skipped (describe.skip)"]


def test_go_skip_inside_a_test_and_a_removed_test():
    before = "package x\n\nfunc TestA(t *testing.T) {\n\tx := 1\n}\n\nfunc TestB(t *testing.T) {}\n"
    after = "package x\n\nfunc TestA(t *testing.T) {\n\tt.Skip(\"flaky\")\n\tx := 1\n}\n"
    assert _texts(("calc_test.go", before, after)) == ["calc_test.go TestB: removed (its definition is gone)",
                                                       "calc_test.go:4 TestA: skipped (t.Skip)"]
    assert _texts(("calc.go", before, after)) == []  # not a test file


def test_rust_tests_beside_the_code():
    before = ("pub fn f() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn parses() {}\n"
              "    #[tokio::test]\n    async fn fetches() {}\n}\n")
    after = "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    #[ignore = \"slow\"]\n    fn parses() {}\n}\n"
    assert _texts(("src/lib.rs", before, after)) == ["src/lib.rs fetches: removed (its definition is gone)",
                                                     'src/lib.rs:5 parses: skipped (#[ignore = "slow"])']


def test_junit_disabled_and_removed_methods():
    before = ("class CalcTest {\n    @Test\n    void adds() {}\n    @Test\n    @DisplayName(\"x\")\n"
              "    public void subs() {}\n    @Test fun `kotlin name`() {}\n}\n")
    after = "class CalcTest {\n    @Disabled\n    @Test\n    void adds() {}\n    @Test fun `kotlin name`() {}\n}\n"
    assert _texts(("src/test/java/CalcTest.java", before, after)) == [
        "src/test/java/CalcTest.java subs: removed (its definition is gone)",
        "src/test/java/CalcTest.java:2 adds: skipped (@Disabled)",
    ]


def test_googletest_disabled_prefix_and_skip_and_unity_runner_list():
    before = "TEST(Math, Adds) {\n}\nTEST_F(Fix, Subs) {\n}\n"
    after = "TEST(Math, DISABLED_Adds) {\n}\nTEST_F(Fix, Subs) {\n  GTEST_SKIP();\n}\n"
    assert _texts(("test/calc_test.cc", before, after)) == ["test/calc_test.cc Math.Adds: skipped (DISABLED_ prefix)",
                                                            "test/calc_test.cc:4 Fix.Subs: skipped (GTEST_SKIP)"]
    unity = "int main(void) {\n    RUN_TEST(test_parse);\n    RUN_TEST(test_print);\n}\n"
    assert _texts(("tests/parse_test.c", unity, unity.replace("    RUN_TEST(test_print);\n", ""))) == [
        "tests/parse_test.c test_print: removed (its definition is gone)"]


@pytest.mark.parametrize(("failing", "edit", "named"), [
    ("tests/test_calc.py::test_power", TestEdit("tests/test_calc.py", "test_power", "skipped", "x", 3), True),
    ("tests/test_calc.py::test_power[2-3]", TestEdit("tests/test_calc.py", "test_power", "skipped", "x", 3), True),
    ("tests/test_other.py::test_power", TestEdit("tests/test_calc.py", "test_power", "skipped", "x", 3), False),
    ("tests/test_calc.py::test_powers", TestEdit("tests/test_calc.py", "test_power", "skipped", "x", 3), False),
    ("tests/test_calc.py::TestGroup::test_m", TestEdit("tests/test_calc.py", "TestGroup", "skipped", "x", 3), True),
    ("src/calc.test.ts › calc › adds numbers", TestEdit("src/calc.test.ts", "adds numbers", "skipped", "x", 3), True),
    ("example.com/x::TestA/case_1", TestEdit("calc_test.go", "TestA", "skipped", "t.Skip", 3), True),
    ("example.com/x::TestAB", TestEdit("calc_test.go", "TestA", "skipped", "t.Skip", 3), False),
    ("Math.Adds", TestEdit("test/calc_test.cc", "Math.Adds", "skipped", "DISABLED_ prefix"), True),
    ("org.x.CalcTest.adds()", TestEdit("src/test/java/CalcTest.java", "adds", "skipped", "@Disabled", 2), True),
    ("tests::parses", TestEdit("src/lib.rs", "parses", "skipped", "#[ignore]", 2), True),
    ("tests::parses", TestEdit("src/lib.rs", "", "skipped", "#[ignore]", 2), False),
    ("tests/test_calc.py::test_power", TestEdit("tests/test_calc.py", "", "skipped", "pytestmark", 3), True),
    ("tests/test_other.py::test_power", TestEdit("tests/test_calc.py", "", "skipped", "pytestmark", 3), False),
])
def test_a_failing_test_is_matched_to_the_edit_by_its_name_and_file(failing, edit, named):
    assert names_edited_test(failing, edit) is named


def test_a_test_that_was_there_and_now_checks_something_else_is_rewritten():
    after = PY_BEFORE.replace("def test_power():\n    assert 2\n", "def test_power():\n    assert 3\n")
    assert _texts(("tests/test_calc.py", PY_BEFORE, after)) == [
        "tests/test_calc.py test_power: rewritten (lines it had are changed or gone)"]


def test_what_does_not_rewrite_a_test():
    unittest_file = ("import unittest\n\nclass OpsTest(unittest.TestCase):\n    def test_add(self):\n"
                     "        self.assertEqual(1 + 1, 2)\n\n\nif __name__ == '__main__':\n    unittest.main()\n")
    added = unittest_file.replace("\n\n\nif __name__", "\n\n    def test_power(self):\n        self.assertEqual(2 ** 3, 8)\n"
                                  "\n\nif __name__")
    reindented = PY_BEFORE.replace("    assert 1\n", "      assert 1\n")
    assert _texts(("tests/test_ops.py", unittest_file, added)) == []  # a test added after it
    assert _texts(("tests/test_calc.py", PY_BEFORE, reindented)) == []  # indentation only
    assert _texts(("tests/test_new.py", None, PY_BEFORE)) == []  # a new file's tests are new


def test_a_signature_split_over_lines_is_part_of_the_body_not_its_end():
    py = "def test_x(\n    tmp_path,\n):\n    assert f(tmp_path) == 1\n"
    assert _texts(("tests/test_a.py", py, py.replace("== 1", "== 2"))) == [
        "tests/test_a.py test_x: rewritten (lines it had are changed or gone)"]
    go = "func TestX(\n\tt *testing.T,\n) {\n\tif f() != 1 {\n\t\tt.Fatal()\n\t}\n}\n"
    assert _texts(("x_test.go", go, go.replace("f() != 1", "f() != 2"))) == [
        "x_test.go TestX: rewritten (lines it had are changed or gone)"]


def test_lines_only_added_to_a_test_strengthen_it():
    go = 'func TestCheck(t *testing.T) {\n\ttests := []struct{ in string }{\n\t\t{"a"},\n\t}\n\t_ = tests\n}\n'
    assert _texts(("x_test.go", go, go.replace('\t\t{"a"},\n', '\t\t{"a"},\n\t\t{"b"},\n'))) == []  # a case added
    assert _texts(("x_test.go", go, go.replace('{"a"}', '{"c"}'))) == [
        "x_test.go TestCheck: rewritten (lines it had are changed or gone)"]


def test_brace_languages_end_a_body_at_its_own_closing_bracket():
    go = "package x\n\nfunc TestA(t *testing.T) {\n\tif f() != 1 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n\nfunc helper() {}\n"
    assert _texts(("x_test.go", go, go.replace("func helper() {}", "func helper() { return }"))) == []
    assert _texts(("x_test.go", go, go.replace("f() != 1", "f() != 2"))) == [
        "x_test.go TestA: rewritten (lines it had are changed or gone)"]
    js = "describe('calc', () => {\n  it('adds', () => {\n    expect(add(1, 2)).toBe(3);\n  });\n});\n"
    assert _texts(("a.test.js", js, js.replace("toBe(3)", "toBeDefined()"))) == [
        "a.test.js adds: rewritten (lines it had are changed or gone)"]
    assert _texts(("a.test.js", js, js + "it('subtracts', () => {});\n")) == []


def test_namesakes_in_several_classes_are_compared_as_a_whole():
    before = ("class TestA:\n    def test_basic(self):\n        assert 1\n\n"
              "class TestB:\n    def test_basic(self):\n        assert 2\n")
    added = before + "\nclass TestC:\n    def test_basic(self):\n        assert 3\n"
    assert _texts(("tests/test_x.py", before, added)) == []  # a third namesake rewrites neither
    changed = added.replace("assert 2", "assert 4")
    assert _texts(("tests/test_x.py", before, changed)) == [
        "tests/test_x.py test_basic: rewritten (lines it had are changed or gone)"]
    assert _texts(("tests/test_x.py", before, before.split("\nclass TestB")[0])) == [
        "tests/test_x.py test_basic: removed (its definition is gone)"]  # removed, not also rewritten


def test_unity_ignore_names_the_test_function_it_is_in():
    unity = "void test_parse(void)\n{\n    TEST_IGNORE();\n}\nint main(void) {\n    RUN_TEST(test_parse);\n}\n"
    assert _texts(("tests/t.c", unity.replace("    TEST_IGNORE();\n", ""), unity)) == [
        "tests/t.c:3 test_parse: skipped (TEST_IGNORE)"]


def test_a_body_laid_out_anew_is_the_same_test():
    before = ("def test_join():\n    assert join(['a', 'b'], sep=',') == 'a,b'\n"
              "    assert split('a,b') == ['a', 'b'];\n")
    formatted = ('def test_join():\n    assert join(\n        ["a", "b"],\n        sep=",",\n    ) == "a,b"\n'
                 '    assert split("a,b") == ["a", "b"]\n')
    assert _texts(("tests/test_j.py", before, formatted)) == []  # quotes, wrapping, a trailing comma, a semicolon
    assert _texts(("tests/test_j.py", before, formatted.replace('"a,b"\n', '"a, b"\n'))) == [
        "tests/test_j.py test_join: rewritten (lines it had are changed or gone)"]  # inside a string: not layout
    wrapped = "def test_w():\n    value = (\n        compute(1)\n    )\n    assert (\n        value == 2\n    )\n"
    assert _texts(("tests/test_w.py", "def test_w():\n    value = compute(1)\n    assert value == 2\n", wrapped)) == []
    rust = '#[test]\nfn t() {\n    assert!(\n        ok(1)\n    );\n}\n'  # a macro's parentheses are not layout
    assert _texts(("src/lib.rs", rust, rust.replace("assert!(\n        ok(1)\n    )", "assert!ok(1)"))) == [
        "src/lib.rs t: rewritten (lines it had are changed or gone)"]
    go = "func TestA(t *testing.T) {\n\tif got := f(1,2); got != 3 { t.Fatal(got) }\n}\n"
    gofmt = "func TestA(t *testing.T) {\n\tif got := f(1, 2); got != 3 {\n\t\tt.Fatal(got)\n\t}\n}\n"
    assert _texts(("a_test.go", go, gofmt)) == []


def test_a_parametrize_table_above_a_test_is_part_of_it():
    before = ("import pytest\n\n\n@pytest.mark.parametrize(\n    'a, expected',\n    [\n        (1, 2),\n        (2, 4),\n"
              "    ],\n)\ndef test_double(a, expected):\n    assert double(a) == expected\n")
    assert _texts(("tests/test_d.py", before, before.replace("(2, 4)", "(2, 5)"))) == [
        "tests/test_d.py test_double: rewritten (lines it had are changed or gone)"]
    assert _texts(("tests/test_d.py", before, before.replace("(2, 4),\n", "(2, 4),\n        (3, 6),\n"))) == []
    each = "test.each([\n  [1, 2],\n  [2, 4],\n])('doubles %i', (a, expected) => {\n  expect(double(a)).toBe(expected);\n});\n"
    assert _texts(("d.test.js", each, each.replace("[2, 4]", "[2, 5]"))) == [
        "d.test.js 'doubles %i': rewritten (lines it had are changed or gone)"]
    rust = '#[test]\n#[should_panic(expected = "empty")]\nfn parses_nothing() {\n    parse("");\n}\n'
    assert _texts(("src/lib.rs", rust, rust.replace('"empty"', '"bad"'))) == [
        "src/lib.rs parses_nothing: rewritten (lines it had are changed or gone)"]


def test_taking_a_skip_out_again_rewrites_nothing():
    py = ("import sys\n\nimport pytest\n\n\n@pytest.mark.skipif(\n    sys.platform == 'win32',\n    reason='posix',\n)\n"
          "@pytest.mark.parametrize('a', [1])\ndef test_x(a):\n    pytest.skip('later')\n    assert a\n")
    unskipped = py.replace("    pytest.skip('later')\n", "").replace(
        "@pytest.mark.skipif(\n    sys.platform == 'win32',\n    reason='posix',\n)\n", "")
    assert _texts(("tests/test_x.py", py, unskipped)) == []
    js = "it.skip('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\nxit('subtracts', () => {\n  expect(1).toBe(1);\n});\n"
    assert _texts(("a.test.js", js, js.replace("it.skip(", "it(").replace("xit(", "it("))) == []
    vitest = "test.skipIf(process.env.CI)('reads', () => {\n  expect(read()).toBe(1);\n});\n"
    assert _texts(("a.test.ts", vitest, vitest.replace(".skipIf(process.env.CI)", ""))) == []
    assert _texts(("a.test.ts", vitest, vitest.replace("toBe(1)", "toBe(2)"))) == [  # a test, though skipped by a condition
        "a.test.ts reads: rewritten (lines it had are changed or gone)"]
    grouped = "describe('io', () => {\n  test('reads', () => {\n    expect(read()).toBe(1);\n  });\n});\n"
    assert _texts(("a.test.ts", grouped, grouped.replace("test('reads'", "test.skipIf(process.env.CI)('reads'"))) == [
        "a.test.ts:2 reads: skipped (test.skipIf)"]  # the test it sits on, not its group
    rust = "#[test]\n#[ignore]\nfn slow() {\n    assert!(run());\n}\n"
    assert _texts(("tests/t.rs", rust, rust.replace("#[ignore]\n", ""))) == []
    go = 'func TestA(t *testing.T) {\n\tt.Skip("flaky")\n\tcheck(t)\n}\n'
    assert _texts(("a_test.go", go, go.replace('\tt.Skip("flaky")\n', ""))) == []
    java = "class T {\n    @Test\n    @Disabled(\"later\")\n    void parses() {\n        assertTrue(p());\n    }\n}\n"
    assert _texts(("src/test/java/T.java", java, java.replace('    @Disabled("later")\n', ""))) == []
    gtest = "TEST(Calc, DISABLED_Adds) {\n    GTEST_SKIP() << \"later\";\n    EXPECT_EQ(add(1, 2), 3);\n}\n"
    assert _texts(("tests/calc_test.cc", gtest, gtest.replace("DISABLED_", "").replace('    GTEST_SKIP() << "later";\n', ""))) == []
    mocha = "describe('calc', function () {\n  it('adds', function () {\n    this.skip();\n    expect(1).to.equal(1);\n  });\n});\n"
    assert _texts(("test/calc.spec.js", mocha, mocha.replace("    this.skip();\n", ""))) == []


def test_a_brace_on_its_own_line_opens_the_body():
    gtest = "TEST(Calc, Adds)\n{\n    EXPECT_EQ(add(1, 2), 3);\n}\n"
    assert _texts(("tests/calc_test.cc", gtest, gtest.replace(", 3)", ", 4)"))) == [
        "tests/calc_test.cc Calc.Adds: rewritten (lines it had are changed or gone)"]


def test_a_unity_test_s_body_is_the_function_it_runs():
    unity = ("static void test_parse(void)\n{\n    TEST_ASSERT_EQUAL(3, parse(\"3\"));\n}\n\n"
             "int main(void)\n{\n    UNITY_BEGIN();\n    RUN_TEST(test_parse);\n    return UNITY_END();\n}\n")
    assert _texts(("tests/parse_test.c", unity, unity.replace("EQUAL(3,", "EQUAL(4,"))) == [
        "tests/parse_test.c test_parse: rewritten (lines it had are changed or gone)"]
    assert _texts(("tests/parse_test.c", unity, unity.replace("    return UNITY_END", "    puts(\"\");\n    return UNITY_END"))) == []


def test_a_tuple_laid_out_over_lines_stays_a_tuple():
    exploded = "def test_t():\n    assert f() == (\n        1,\n    )\n"
    assert _texts(("tests/test_t.py", exploded, "def test_t():\n    assert f() == (1,)\n")) == []
    assert _texts(("tests/test_t.py", exploded, "def test_t():\n    assert f() == 1\n")) == [
        "tests/test_t.py test_t: rewritten (lines it had are changed or gone)"]


def test_a_table_at_the_top_of_the_file_is_part_of_each_test_naming_it():
    py = ("import pytest\n\nCASES = [\n    ('1.0', (1, 0)),\n    ('2.1', (2, 1)),\n]\n\n\n"
          "@pytest.mark.parametrize('text, expected', CASES)\ndef test_parse(text, expected):\n"
          "    assert parse(text) == expected\n\n\ndef test_other():\n    assert True\n")
    assert _texts(("tests/test_p.py", py, py.replace("(2, 1)", "(2, 0)"))) == [
        "tests/test_p.py test_parse: rewritten (lines it had are changed or gone)"]  # not test_other, which names none
    assert _texts(("tests/test_p.py", py, py.replace("    ('2.1', (2, 1)),\n", "    ('2.1', (2, 1)),\n    ('3', (3, 0)),\n"))) == []
    moved = py.replace("CASES = [", "from tests.cases import CASES\n_OLD = [")
    assert _texts(("tests/test_p.py", py, moved)) == []  # a table no longer defined here: no case of it changed here
    go = ('package x\n\nvar cases = []struct{ in, want string }{\n\t{"a", "A"},\n}\n\n'
          'func TestUpper(t *testing.T) {\n\tfor _, c := range cases {\n\t\tcheck(t, c.in, c.want)\n\t}\n}\n')
    assert _texts(("x_test.go", go, go.replace('"A"', '"a"'))) == ["x_test.go TestUpper: rewritten (lines it had are changed or gone)"]
    js = "const cases = [\n  [1, 2],\n];\n\ntest.each(cases)('doubles %i', (a, b) => {\n  expect(double(a)).toBe(b);\n});\n"
    assert _texts(("d.test.js", js, js.replace("[1, 2]", "[1, 3]"))) == [
        "d.test.js 'doubles %i': rewritten (lines it had are changed or gone)"]
    rust = ("#[cfg(test)]\nmod tests {\n    const CASES: &[(&str, u64)] = &[\n        (\"1\", 1),\n    ];\n\n"
            "    #[test]\n    fn parses() {\n        for (s, n) in CASES {\n            assert_eq!(parse(s), *n);\n        }\n    }\n}\n")
    assert _texts(("src/lib.rs", rust, rust.replace('("1", 1)', '("1", 2)'))) == [
        "src/lib.rs parses: rewritten (lines it had are changed or gone)"]


def test_a_junit_method_source_is_part_of_the_tests_naming_it():
    java = ("class TextTest {\n    static Stream<Arguments> cases() {\n        return Stream.of(\n"
            "            Arguments.of(\"<p>a</p>\", \"a\")\n        );\n    }\n\n"
            "    @ParameterizedTest\n    @MethodSource(\"cases\")\n    void text(String html, String want) {\n"
            "        assertEquals(want, parse(html).text());\n    }\n\n    @Test\n    void other() {\n        assertTrue(true);\n    }\n}\n")
    assert _texts(("src/test/java/TextTest.java", java, java.replace('"a")', '"b")'))) == [
        "src/test/java/TextTest.java text: rewritten (lines it had are changed or gone)"]
    unnamed = ("class T {\n    static Stream<Arguments> parses() {\n        return Stream.of(Arguments.of(\"1\", 1));\n"
               "    }\n\n    @ParameterizedTest\n    @MethodSource\n    void parses(String s, int n) {\n"
               "        assertEquals(n, p(s));\n    }\n}\n")  # a @MethodSource without a name: the test's own
    assert _texts(("src/test/java/T.java", unnamed, unnamed.replace('"1", 1', '"1", 2'))) == [
        "src/test/java/T.java parses: rewritten (lines it had are changed or gone)"]
    commented = ('class C {\n    @ParameterizedTest @MethodSource("urls") // http and https\n'
                 '    public void fetches(String url) {\n        assertOk(url);\n    }\n}\n')
    assert _texts(("src/test/java/C.java", commented, commented.replace("    public void fetches(String url) {\n        assertOk(url);\n    }\n", ""))) == [
        "src/test/java/C.java fetches: removed (its definition is gone)"]  # its name, not the 'e' of MethodSource
