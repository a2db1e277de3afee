"""concerned_tests: which failing tests a session is about, so that failing before the change does not excuse them."""

from __future__ import annotations

import pytest

from code_intel.verify.concerned import concerned_tests, go_test, leaf_name


@pytest.mark.parametrize(("name", "leaf"), [
    ("test_app.py::test_add[1-2]", "test_add"),
    ("tests/test_app.py::TestCalc::test_power", "test_power"),
    ("org.jsoup.nodes.ElementTest.parsesClass()", "parsesClass"),
    ("test_version::test_leading_v", "test_leading_v"),
    ("misc_tests::cjson_get_string_value_should_get_a_string", "cjson_get_string_value_should_get_a_string"),
    ("Parser › parses a leading v", "parses a leading v"),
    ("src/parse.test.ts > parse > rejects junk", "rejects junk"),
    ("TestParse/leading_v", "leading_v"),
    ("Nums/ParamT.Positive/0", "Positive"),  # GoogleTest's parameterised case: its index is no name
    ("TypedT/1.Zero", "Zero"),
    ("TestParse/12", "TestParse"),
    ("example.com/calc::TestSub/negative", "negative"),  # go test's, after its package
    ("example.com/calc/v2::TestSub", "TestSub"),
])
def test_the_leaf_is_the_last_part_of_the_name(name: str, leaf: str) -> None:
    assert leaf_name(name) == leaf


@pytest.mark.parametrize(("request_text", "files", "name", "expected"), [
    # the request names the test (its last part, as a whole word or phrase, any case)
    ("Make test_leading_v pass", [], "test_version::test_leading_v", True),
    ("the Parser should accept it: fix 'parses a leading v'", [], "Parser › parses a leading v", True),
    ("Make test_leading_v pass", [], "test_version::test_leading_v_upper", False),
    ("Version::parse should accept a leading v", [], "test_version::test_parse", False),
    # the request describes it: most of the words of its title (split out of identifiers, lightly stemmed)
    ("off() with a handler that was never registered removes another handler: fix it", [],
     "src/emitter.test.js › createEmitter › off removes only a registered handler", True),
    ("off() must keep the other handlers when it is given an unregistered one", [],
     "tests/test_emitter.py::test_off_unregistered_handler_keeps_others", True),
    ("fix the date format in the report header", [], "src/format.test.js › formats a date the upstream way", False),
    ("hasClass should ignore case", [], "org.jsoup.nodes.ElementTest.parsesClassNames", False),
    ("fix the handler", [], "emitter › calls the handler", False),  # too few words to tell
    # its file, by name, changed in the session or before it
    ("Add a subtract function", ["tests/test_app.py"], "test_app.py::test_already_broken", True),
    ("Add a subtract function", ["src/app.py"], "test_app.py::test_already_broken", False),
    ("x", ["src/test/java/org/jsoup/nodes/ElementTest.java"], "org.jsoup.nodes.ElementTest.parsesClass", True),
    ("x", ["src/main/java/org/jsoup/nodes/Element.java"], "org.jsoup.nodes.ElementTest.parsesClass", False),
    ("x", ["src/parse.rs"], "semver::parse::tests::leading_v", True),
    ("x", ["tests/misc_tests.c"], "misc_tests::cjson_get_string_value_should_get_a_string", True),
    ("x", ["cJSON.c"], "misc_tests::cjson_get_string_value_should_get_a_string", False),
    # a path in the name (jest's and vitest's file, pytest's, a doc test's): the changed file itself, or its end
    ("x", ["src/emitter.test.ts"], "src/emitter.test.ts › on › calls the handler", True),
    ("x", ["web/src/emitter.test.ts"], "src/emitter.test.ts › on › calls the handler", True),
    ("x", ["src/other.test.ts"], "src/emitter.test.ts › on › calls the handler", False),
    ("x", ["src/emitter.ts"], "src/emitter.test.ts › on › calls the handler", False),  # as test_app.py for app.py
    ("x", ["src/emitter.test.ts"], "src/emitter.test.ts", True),  # the whole file failed to run
    ("x", ["src/lib.rs"], "src/lib.rs - Version::new (line 376)", True),
    ("x", ["docs/src/lib.rs.md"], "src/lib.rs - Version::new (line 376)", False),
    # a go test's package is where it is: gin's gin.go changing does not make every test of package gin its own
    ("x", ["gin.go"], "github.com/gin-gonic/gin::TestContextReset", False),
    ("x", ["render/render.go"], "github.com/gin-gonic/gin/render::TestRenderJSON", False),
    ("Make TestContextReset pass", [], "github.com/gin-gonic/gin::TestContextReset", True),
    ("x", ["render/json.go"], "github.com/gin-gonic/gin/render::TestRenderJSON/json", True),  # its words still count
    # too short to look for
    ("go on", [], "suite::go", False),
    ("x", ["a.py"], "a::test_x", False),
])
def test_concerned(request_text: str, files: list[str], name: str, expected: bool) -> None:
    assert bool(concerned_tests(request_text, files)(name)) is expected


@pytest.mark.parametrize(("request_text", "files", "name", "why"), [
    ("Make test_leading_v pass", [], "test_version::test_leading_v", "the request names it"),
    ("off() with a handler that was never registered removes another handler: fix it", [],
     "emitter › off removes only a registered handler", "the request describes it"),
    ("x", ["tests/test_app.py"], "tests/test_app.py::test_x", "its file changed"),
    ("x", ["ElementTest.java"], "org.jsoup.nodes.ElementTest.parsesClass", "its file changed"),
])
def test_it_says_why(request_text: str, files: list[str], name: str, why: str) -> None:
    assert concerned_tests(request_text, files)(name) == why


@pytest.mark.parametrize(("name", "parts"), [
    ("example.com/calc::TestSub/negative", ("example.com/calc", "TestSub/negative")),
    ("calc::BenchmarkAdd", ("calc", "BenchmarkAdd")),
    ("test_version::test_leading_v", None),  # cargo's
    ("semver::parse::tests::Testing", None),
    ("x::Testimony", None),  # no go test: Test is followed by a lower-case letter
    ("TestSub", None),  # go output cut before its package line
])
def test_a_go_tests_package_is_told_from_its_name(name: str, parts: tuple[str, str] | None) -> None:
    assert go_test(name) == parts
