"""Exercise: which failing tests call code the session changed, read from the tests' own source with the real rg
and tree-sitter, on small projects in several languages."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_intel.core.project import ProjectRoot
from code_intel.explore.ripgrep import RgFilters
from code_intel.verify.exercised import Exercise
from code_intel.verify.models import FileChange

GO_CODE = """\
package semver

type Version struct {
	minor uint64
	patch uint64
}

func (v Version) IncPatch() Version {
	v.patch++
	return v
}

func (v Version) IncMinor() Version {
	v.minor++
	v.patch = 0
	return v
}
"""
GO_TESTS = """\
package semver

import "testing"

func TestInc(t *testing.T) {
	v := Version{}.IncMinor()
	if v.minor != 1 {
		t.Errorf("minor %d", v.minor)
	}
}

func TestPatch(t *testing.T) {
	// IncMinor is not what this one checks
	if (Version{}).IncPatch().patch != 1 {
		t.Error("IncMinor")
	}
}
"""


def project(tmp_path: Path, files: dict[str, str]) -> ProjectRoot:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return ProjectRoot.from_args(tmp_path)


def exercised(root: ProjectRoot, tests: list[str], *changes: FileChange) -> dict[str, str]:
    return Exercise(root, RgFilters(), changes).tests(tests)


def line_of(root: ProjectRoot, path: str, text: str) -> int:
    return next(i for i, line in enumerate((root.path / path).read_text().splitlines(), 1) if text in line)


@pytest.fixture
def go(tmp_path: Path) -> ProjectRoot:
    return project(tmp_path, {"version.go": GO_CODE, "version_test.go": GO_TESTS})


def test_a_test_calling_a_changed_method_is_found_and_one_naming_it_only_in_comments_and_strings_is_not(go):
    patch = line_of(go, "version.go", "v.patch = 0")
    assert Exercise(go, RgFilters(), [FileChange("version.go", ((patch, patch),))]).changed_functions() == {"IncMinor"}
    assert exercised(go, ["TestInc", "TestPatch"], FileChange("version.go", ((patch, patch),))) == {
        "TestInc": "it calls IncMinor, which the session changed"}


def test_a_removal_counts_for_the_function_around_it_and_a_change_outside_functions_for_none(go):
    minor = line_of(go, "version.go", "v.minor++")
    inside = FileChange("version.go", (), (minor,))  # a line removed after `v.minor++`, within IncMinor
    assert set(exercised(go, ["TestInc", "TestPatch"], inside)) == {"TestInc"}
    between = FileChange("version.go", (), (line_of(go, "version.go", "func (v Version) IncMinor") - 1,))
    assert exercised(go, ["TestInc", "TestPatch"], between) == {}  # a removal between two functions
    field = line_of(go, "version.go", "minor uint64")
    assert exercised(go, ["TestInc", "TestPatch"], FileChange("version.go", ((field, field),))) == {}  # a type


def test_a_test_whose_own_lines_changed_is_the_sessions(go):
    check = line_of(go, "version_test.go", "(Version{}).IncPatch()")
    assert exercised(go, ["TestInc", "TestPatch"], FileChange("version_test.go", ((check, check),))) == {
        "TestPatch": "the session changed its lines"}
    assert exercised(go, ["TestInc"]) == {}  # nothing changed


GO_MULTI = {
    "go.mod": "module example.com/multi\n\ngo 1.19\n",
    "add.go": "package multi\n\nfunc Add(a, b int) int { return a + b }\n",
    "add_test.go": "package multi\n\nimport \"testing\"\n\nfunc TestNew(t *testing.T) {\n\tif Add(1, 2) != 4 {\n"
                   "\t\tt.Error(\"add\")\n\t}\n}\n",
    "sub/mul.go": "package sub\n\nfunc Mul(a, b int) int { return a * b }\n",
    "sub/mul_test.go": "package sub\n\nimport \"testing\"\n\nfunc TestNew(t *testing.T) {\n\tif Mul(1, 2) != 5 {\n"
                       "\t\tt.Error(\"mul\")\n\t}\n}\n",
}


def test_a_go_test_is_read_in_its_own_package(tmp_path: Path):
    """Two packages' TestNew are two tests: a change to Mul holds sub's, not the root package's (which calls Add)."""
    root = project(tmp_path, GO_MULTI)
    mul = FileChange("sub/mul.go", ((3, 3),))
    tests = ["example.com/multi::TestNew", "example.com/multi/sub::TestNew"]
    assert exercised(root, tests, mul) == {"example.com/multi/sub::TestNew": "it calls Mul, which the session changed"}
    assert exercised(root, tests, FileChange("add.go", ((3, 3),))) == {
        "example.com/multi::TestNew": "it calls Add, which the session changed"}
    # a bare name (output cut before the package line) is looked for in every package
    assert exercised(root, ["TestNew"], mul) == {"TestNew": "it calls Mul, which the session changed"}
    # a nested module has its own go.mod: its folders count from there
    project(tmp_path, {"tools/go.mod": "module example.com/tools\n", "tools/gen/mul_test.go": GO_MULTI["sub/mul_test.go"]})
    assert exercised(root, ["example.com/tools/gen::TestNew"], mul) == {
        "example.com/tools/gen::TestNew": "it calls Mul, which the session changed"}
    assert exercised(root, ["example.com/multi/tools/gen::TestNew"], mul) == {}


def test_a_go_test_without_a_go_mod_is_looked_for_in_every_go_file(tmp_path: Path):
    files = {path: text for path, text in GO_MULTI.items() if path != "go.mod"}
    root = project(tmp_path, files)
    assert exercised(root, ["example.com/multi::TestNew"], FileChange("sub/mul.go", ((3, 3),))) == {
        "example.com/multi::TestNew": "it calls Mul, which the session changed"}


def test_a_changed_constructor_is_called_by_its_class(tmp_path: Path):
    root = project(tmp_path, {
        "parser.py": "class Parser:\n    def __init__(self, text):\n        self.text = text.strip()\n",
        "test_parser.py": "from parser import Parser\n\n\ndef test_strips():\n    assert Parser(' a').text == ' a'\n",
    })
    assert exercised(root, ["test_parser.py::test_strips"], FileChange("parser.py", ((3, 3),))) == {
        "test_parser.py::test_strips": "it calls Parser, which the session changed"}


def test_a_function_that_calls_its_changed_inner_function_is_changed_too(tmp_path: Path):
    """more-itertools' chunked(strict=True) checks its chunks in an inner ret() that it calls: a change there is a
    change to chunked, which the tests call. A factory that only hands its inner functions out (the jest test
    above) is not."""
    root = project(tmp_path, {
        "more.py": "def chunked(items, n, strict=False):\n    def ret():\n        for chunk in items:\n"
                   "            if len(chunk) > n:\n                raise ValueError('short')\n            yield chunk\n"
                   "    return ret() if strict else iter(items)\n",
        "test_more.py": "from more import chunked\n\n\ndef test_strict():\n    assert list(chunked([[1]], 2, True))\n",
    })
    change = FileChange("more.py", ((4, 4),))
    assert Exercise(root, RgFilters(), [change]).changed_functions() == {"ret", "chunked"}
    assert exercised(root, ["test_more.py::test_strict"], change) == {
        "test_more.py::test_strict": "it calls chunked, which the session changed"}


def test_a_name_only_used_is_no_test_and_a_helper_in_the_file_is_followed(tmp_path: Path):
    root = project(tmp_path, {
        "app.py": "def parse(text):\n    return text.split()\n",
        "test_app.py": "from app import parse\n\n\ndef check_words():\n    assert parse('a b') == ['a']\n\n\n"
                       "def test_all():\n    check_words()\n",
    })
    change = FileChange("app.py", ((2, 2),))
    assert exercised(root, ["test_app.py::check_words"], change) == {"test_app.py::check_words": (
        "it calls parse, which the session changed")}
    assert exercised(root, ["test_app.py::test_gone"], change) == {}
    # test_all reaches parse through check_words, a function of its own file: one level is followed
    assert exercised(root, ["test_app.py::test_all"], change) == {"test_app.py::test_all": (
        "it calls check_words, which calls parse, which the session changed")}


def test_a_path_in_the_name_picks_the_file(tmp_path: Path):
    root = project(tmp_path, {
        "src/app.py": "def parse(text):\n    return text.split()\n\n\ndef join(words):\n    return ' '.join(words)\n",
        "tests/unit/test_app.py": "from app import parse\n\n\ndef test_words():\n    assert parse('a b') == ['a']\n",
        "tests/e2e/test_app.py": "from app import join\n\n\ndef test_words():\n    assert join(['a']) == 'b'\n",
    })
    found = exercised(root, ["tests/unit/test_app.py::test_words", "tests/e2e/test_app.py::test_words[1]"],
                      FileChange("src/app.py", ((2, 2),)))
    assert found == {"tests/unit/test_app.py::test_words": "it calls parse, which the session changed"}


def test_java_methods_are_looked_for_in_the_class_the_name_gives(tmp_path: Path):
    test = "package org.x;\n\nclass {cls} {{\n    @Test\n    void parses() {{\n        assertTrue(new Element().{call}());\n    }}\n}}\n"
    root = project(tmp_path, {
        "src/main/java/org/x/Element.java": "package org.x;\n\nclass Element {\n    boolean hasClass() {\n"
                                            "        return true;\n    }\n\n    boolean isBlock() {\n        return false;\n    }\n}\n",
        "src/test/java/org/x/ElementTest.java": test.format(cls="ElementTest", call="hasClass"),
        "src/test/java/org/x/BlockTest.java": test.format(cls="BlockTest", call="isBlock"),
    })
    found = exercised(root, ["org.x.ElementTest.parses()", "org.x.BlockTest.parses()"],
                      FileChange("src/main/java/org/x/Element.java", ((5, 5),)))
    assert found == {"org.x.ElementTest.parses()": "it calls hasClass, which the session changed"}


def test_a_jest_title_leads_to_its_call(tmp_path: Path):
    root = project(tmp_path, {
        "src/emitter.js": "export function createEmitter() {\n  const all = new Map();\n  function off(type, h) {\n"
                          "    all.delete(type);\n  }\n  function on(type, h) {\n    all.set(type, h);\n  }\n"
                          "  return { on, off };\n}\n",
        "src/emitter.test.js": "describe('createEmitter', () => {\n  it('off removes only a registered handler', () => {\n"
                               "    const e = createEmitter();\n    e.off('a', () => {});\n  });\n"
                               "  it('on adds a handler', () => {\n    createEmitter().on('a', () => {});\n  });\n});\n",
    })
    names = ["src/emitter.test.js › createEmitter › off removes only a registered handler",
             "src/emitter.test.js › createEmitter › on adds a handler"]
    found = exercised(root, names, FileChange("src/emitter.js", ((4, 4),)))
    assert found == {names[0]: "it calls off, which the session changed"}


def test_a_title_with_an_escaped_quote_is_found(tmp_path: Path):
    """The runner prints `doesn't` and `"other"`; the source may write them escaped."""
    root = project(tmp_path, {
        "src/emitter.js": "export function detach(all, type) {\n  all.delete(type);\n}\n"
                          "export function attach(all, type, h) {\n  all.set(type, h);\n}\n",
        "src/emitter.test.js": r"""it('off doesn\'t remove "other" handlers', () => {
  detach(new Map(), 'a');
});
it("on doesn't drop the \"first\" one", () => {
  attach(new Map(), 'a', f);
});
""",
    })
    names = ["src/emitter.test.js › off doesn't remove \"other\" handlers",
             "src/emitter.test.js › on doesn't drop the \"first\" one"]
    assert exercised(root, names, FileChange("src/emitter.js", ((2, 2),))) == {
        names[0]: "it calls detach, which the session changed"}
    assert exercised(root, names, FileChange("src/emitter.js", ((5, 5),))) == {
        names[1]: "it calls attach, which the session changed"}


def test_a_mocha_name_is_found_by_its_own_title_at_its_end(tmp_path: Path):
    """mocha names a test by its suites' titles and its own, joined by spaces: the title is found as a whole string
    (`is not present` alone, a part of another title, is no test)."""
    root = project(tmp_path, {
        "lib/search.js": "function indexOf(list, x) {\n  return list.indexOf(x);\n}\nfunction has(list, x) {\n"
                         "  return list.includes(x);\n}\nmodule.exports = { indexOf, has };\n",
        "test/search.test.js": "describe('Array', function () {\n  describe('#indexOf()', function () {\n"
                               "    it('should return -1 when the value is not present', function () {\n"
                               "      assert.equal(indexOf([1, 2], 4), -1);\n    });\n"
                               "    it('is not present', function () {\n      assert.ok(!has([1], 4));\n    });\n"
                               "  });\n});\n",
    })
    names = ["Array #indexOf() should return -1 when the value is not present", "Array #indexOf() is not present"]
    assert exercised(root, names, FileChange("lib/search.js", ((2, 2),))) == {
        names[0]: "it calls indexOf, which the session changed"}
    assert exercised(root, names, FileChange("lib/search.js", ((5, 5),))) == {
        names[1]: "it calls has, which the session changed"}


def test_googletest_and_rust_tests_are_found_by_their_headers(tmp_path: Path):
    root = project(tmp_path, {
        "math.cc": "int add(int a, int b) {\n  return a + b;\n}\n\nint mul(int a, int b) {\n  return a * b;\n}\n",
        "math_test.cc": "#include <gtest/gtest.h>\n\nTEST(MathTest, AddsNumbers) {\n  EXPECT_EQ(add(1, 2), 3);\n}\n\n"
                        "TEST(MathTest, MultipliesNumbers) {\n  EXPECT_EQ(mul(2, 2), 4);\n}\n\n"
                        "TEST_P(ParamT, Positive) {\n  EXPECT_GT(add(GetParam(), 1), 1);\n}\n",
        "src/parse.rs": "pub fn parse(text: &str) -> usize {\n    text.len()\n}\n\n#[cfg(test)]\nmod tests {\n"
                        "    use super::*;\n\n    #[test]\n    fn parses_prerelease() {\n        assert_eq!(parse(\"1.0.0-a\"), 1);\n"
                        "    }\n}\n",
    })
    found = exercised(root, ["MathTest.AddsNumbers", "MathTest.MultipliesNumbers", "Nums/ParamT.Positive/0",
                             "semver::parse::tests::parses_prerelease"],
                      FileChange("math.cc", ((2, 2),)), FileChange("src/parse.rs", ((2, 2),)))
    assert found == {"MathTest.AddsNumbers": "it calls add, which the session changed",
                     "Nums/ParamT.Positive/0": "it calls add, which the session changed",
                     "semver::parse::tests::parses_prerelease": "it calls parse, which the session changed"}


def test_test_files_are_read_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Only so many files with a hit are parsed; a source file that merely mentions a test's name (`a_docs.py`
    sorts before `tests/`) does not crowd out the test itself."""
    monkeypatch.setattr("code_intel.verify.exercised.MAX_FILES", 1)
    root = project(tmp_path, {
        "app.py": "def parse(text):\n    return text.split()\n",
        "a_docs.py": "# run test_words to check parse\nEXAMPLE = 'test_words'\n",
        "tests/test_app.py": "from app import parse\n\n\ndef test_words():\n    assert parse('a b') == ['a']\n",
    })
    assert exercised(root, ["test_words"], FileChange("app.py", ((2, 2),))) == {
        "test_words": "it calls parse, which the session changed"}


def test_a_name_many_classes_define_says_nothing_but_a_few_namesakes_all_count(tmp_path: Path):
    """`render` is defined by four classes: a test calling x.render() may call any of them, so changing one holds no
    test. `text` is defined by two: a change to either holds a test calling it."""
    files = {f"{kind}.py": f"class {kind.title()}:\n    def render(self):\n        return '{kind}'\n"
             for kind in ("link", "image", "table", "para")}
    files["para.py"] += "\n    def text(self):\n        return 'p'\n"
    files["link.py"] += "\n    def text(self):\n        return 'a'\n"
    files["test_page.py"] = ("def test_render():\n    assert page().render() == 'x'\n\n\n"
                             "def test_text():\n    assert page().text() == 'x'\n")
    root = project(tmp_path, files)
    change = FileChange("para.py", ((3, 3), (6, 6)))
    assert Exercise(root, RgFilters(), [change]).common({"render", "text"}) == {"render"}
    assert exercised(root, ["test_page.py::test_render", "test_page.py::test_text"], change) == {
        "test_page.py::test_text": "it calls text, which the session changed"}


def test_a_helper_in_another_test_file_is_followed_once_defined_once(tmp_path: Path):
    root = project(tmp_path, {
        "app.py": "def create_app(debug):\n    return {'debug': debug}\n",
        "tests/conftest.py": "import pytest\nfrom app import create_app\n\n\n@pytest.fixture\ndef client():\n"
                             "    return create_app(False)\n",
        "tests/test_app.py": "def test_debug_off(client):\n    assert client['debug'] is True\n",
        "tests/test_other.py": "def test_words():\n    assert 'a b'.split() == ['a']\n",
    })
    change = FileChange("app.py", ((2, 2),))
    # pytest hands the fixture in by its name: the test reaches create_app through conftest.py's client
    assert exercised(root, ["tests/test_app.py::test_debug_off", "tests/test_other.py::test_words"], change) == {
        "tests/test_app.py::test_debug_off": "it calls client (tests/conftest.py), which calls create_app, which the "
                                             "session changed"}
    # a helper defined in two test files says nothing about which one runs
    (tmp_path / "tests" / "test_more.py").write_text("def client():\n    return None\n", encoding="utf-8")
    assert exercised(root, ["tests/test_app.py::test_debug_off"], change) == {}
