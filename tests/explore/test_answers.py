"""Ranked, budgeted answers (issue #40): own source first, small by default, complete on request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from code_intel.core.file_roles import file_role
from code_intel.explore.answers import budget_chars, closeness, file_order
from code_intel.explore.impact import analyze_impact
from code_intel.explore.service import Explorer
from tests.explore.conftest import explorer_over

TUTORIALS = 240  # more tutorial files than an answer's budget can list


def _project() -> dict[str, str]:
    files = {
        "pkg/__init__.py": "from .app import Widget\n",
        "pkg/app.py": "class Widget:\n    pass\n\n\ndef build():\n    return Widget()\n",
        "pkg/sub/use.py": "from pkg.app import Widget\n\nW = Widget\n",
        "tests/test_widget.py": "from pkg.app import Widget\n\ndef test_it():\n    assert Widget()\n",
    }
    for i in range(TUTORIALS):
        files[f"docs_src/tutorial{i:03}.py"] = "from pkg import Widget\n\napp = Widget()\nother = Widget()\n"
    return files


@pytest.fixture(scope="module")
def explorer(tmp_path_factory: pytest.TempPathFactory) -> Explorer:
    return explorer_over(tmp_path_factory.mktemp("ranked"), _project())


def _size(result: object) -> int:
    return len(json.dumps(result.model_dump(mode="json", exclude_none=True), separators=(",", ":")))  # type: ignore[attr-defined]


def test_tutorial_folders_are_docs_not_source() -> None:
    assert file_role("docs_src/tutorial001.py") == "doc"
    assert file_role("docs-src/a.py") == "doc"
    assert file_role("examples_app/main.py") == "doc"
    assert file_role("pkg/docstring.py") == "implementation"


def test_a_file_named_like_a_document_is_code_in_a_language_suffix() -> None:
    for path in ("README", "LICENSE.txt", "HISTORY.rst", "CHANGES", "NEWS.md", "AUTHORS", "changelog.d"):
        assert file_role(path) == "doc", path
    for path in ("idlelib/history.py", "lib/active_storage/attached/changes.rb", "middleware/History.scala",
                 "lua/telescope/actions/history.lua", "openapi/license.py", "src/license.ts"):
        assert file_role(path) == "implementation", path


def test_c_family_and_csharp_test_conventions_are_tests() -> None:
    # GoogleTest files beside the code (abseil), C# test projects beside the library and a capitalised Tests/ folder
    for path in ("absl/strings/str_cat_test.cc", "src/net/socket_unittest.cpp", "tests/test_tcp.c",
                 "src/MessagePack.Tests/ResolverTest.cs", "src/MessagePack.UnitTests/Helpers.cs", "Tests/Unit/A.cs"):
        assert file_role(path) == "test", path
    assert file_role("absl/strings/str_split_benchmark.cc") == "test"  # test-like code, though not a test
    for path in ("absl/strings/str_cat.cc", "src/latest/state.c", "src/contest/rules.cs", "src/MessagePack/Reader.cs"):
        assert file_role(path) == "implementation", path
    # singular only as a project's suffix; a bare `unittest/` is Python's test framework, the code of the library
    for path in ("src/MessagePack.Test/A.cs", "src/Foo.UnitTest/A.cs", "llvm/unittests/ADT/BitTests.cpp",
                 "IntegrationTests/A.cs"):
        assert file_role(path) == "test", path
    assert file_role("Lib/unittest/case.py") == "implementation"


def test_gradle_test_source_sets_and_test_helper_folders_are_tests() -> None:
    # helpers beside the *Test.kt files of a test source set, Gradle's test fixtures, a project's test utilities
    for path in ("okio/src/jvmTest/kotlin/okio/TestUtil.kt", "rsocket-core/src/commonTest/kotlin/io/Util.kt",
                 "mockk/src/androidTest/java/TestKeep.java", "src/zlibTest/kotlin/okio/Zlib.kt",
                 "core/core/src/testFixtures/kotlin/org/http4k/server/ServerContract.kt",
                 "packages/bunshine/testFixtures/fileRoutes/users.ts", "test-utils/jvm/src/ExecutorRule.kt",
                 "util/testutil/session.go", "x/testutils/choosePort.go", "test_helpers/createReq.ts",
                 "client-testkit/jvm/src/main/scala/org/http4s/client/testkit/scaffold/ServerScaffold.scala"):
        assert file_role(path) == "test", path
    # the source set's name directly under src/, in lower camel case: not a module or a class folder named so
    for path in ("okio/src/jvmMain/kotlin/okio/Buffer.kt", "integration-testing/smokeTest/src/commonMain/Sample.kt",
                 "lib/jvmTest/Helper.kt", "src/main/kotlin/com/example/latestTest/Fetch.kt"):
        assert file_role(path) != "test", path


def test_a_ruby_namespace_folder_named_test_is_the_library_when_its_file_is_indexed_beside_it() -> None:
    # rack-test: lib/rack/test.rb requires lib/rack/test/cookie_jar.rb (Rack::Test::CookieJar), shipped in the gem
    indexed = {"rack/test.rb", "rack/test/cookie_jar.rb", "test/cookie_jar_test.rb", "test/test_helper.rb"}
    assert file_role("rack/test/cookie_jar.rb") == "test"  # from the path alone a test folder, as before
    assert file_role("rack/test/cookie_jar.rb", indexed) == "implementation"
    for path in ("test/cookie_jar_test.rb", "test/test_helper.rb"):  # the repository's own tests stay tests
        assert file_role(path, indexed) == "test", path
    assert file_role("rack/test/cookie_jar.py", {"rack/test.py"}) == "test"  # Ruby's convention only


def test_a_ruby_namespace_folder_named_like_documentation_is_the_library_when_its_file_is_indexed_beside_it() -> None:
    # a gem named demo (or example, site, sample): lib/demo.rb requires lib/demo/greeter.rb (Demo::Greeter)
    indexed = {"lib/demo.rb", "lib/demo/greeter.rb", "lib/site/page.rb", "examples/hello.rb", "docs/guide.rb"}
    assert file_role("lib/demo/greeter.rb") == "doc"  # from the path alone a demo folder, as before
    assert file_role("lib/demo/greeter.rb", indexed) == "implementation"
    assert file_role("lib/site/page.rb", indexed) == "doc"  # no lib/site.rb beside it: still a site folder
    for path in ("examples/hello.rb", "docs/guide.rb"):  # the repository's own examples and docs stay docs
        assert file_role(path, indexed) == "doc", path
    assert file_role("lib/demo/greeter.py", {"lib/demo.py"}) == "doc"  # Ruby's convention only


def test_order_is_role_then_closeness_then_path() -> None:
    files = ["docs_src/a.py", "tests/t.py", "pkg/zeta.py", "lib/x.py", "pkg/sub/y.py"]
    assert file_order(files, ["pkg/app.py"]) == ["pkg/zeta.py", "pkg/sub/y.py", "lib/x.py", "tests/t.py",
                                                 "docs_src/a.py"]
    assert closeness("pkg/app.py", ["pkg/app.py"]) == 0
    assert closeness("pkg/b.py", ["pkg/app.py"]) < closeness("other/b.py", ["pkg/app.py"])


def test_own_source_comes_before_tutorials_even_when_the_list_is_cut(explorer: Explorer) -> None:
    # the whole-list call sorted by path used to fill its 200 places with docs_src/ and miss pkg/ entirely
    found = explorer.find_references("Widget", max_results=20)
    assert found.truncated
    assert [r.file for r in found.references[:4]] == ["pkg/app.py", "pkg/app.py", "pkg/__init__.py", "pkg/sub/use.py"]


def test_default_answer_lists_own_source_and_counts_the_rest(explorer: Explorer) -> None:
    answer = explorer.references_answer("Widget")
    listed = [f.file for f in answer.files or []]
    assert listed[:3] == ["pkg/app.py", "pkg/__init__.py", "pkg/sub/use.py"]  # the definition's file first
    assert all(f.lines for f in answer.files or [])
    assert answer.by_role is not None
    assert answer.by_role["doc"].hits == 2 * TUTORIALS + TUTORIALS  # import line and two uses per tutorial
    assert answer.by_role["doc"].listed == 0 and answer.by_role["implementation"].listed == 5
    assert {c.role for c in answer.counted or []} <= {"test", "doc"}
    assert answer.more is not None and "role=" in answer.more
    assert _size(answer) <= budget_chars()


def test_a_role_is_listed_on_request_and_pages_by_offset(explorer: Explorer) -> None:
    first = explorer.references_answer("Widget", role="doc")
    assert first.next_offset is not None and _size(first) <= budget_chars()
    lines = {(f.file, n) for f in first.files or [] for n in f.lines or []}
    second = explorer.references_answer("Widget", role="doc", offset=first.next_offset)
    more = {(f.file, n) for f in second.files or [] for n in f.lines or []}
    assert lines and more and not lines & more
    assert min(f.file for f in second.files or []) > max(f.file for f in first.files or [])


def test_levels_counts_locations_code(explorer: Explorer) -> None:
    counts = explorer.references_answer("Widget", level="counts")
    assert counts.files == [] and counts.counted and all(c.lines is None for c in counts.counted)
    code = explorer.references_answer("Widget", level="code")
    assert code.references and all(r.text for r in code.references)
    assert code.references[0].file == "pkg/app.py"


def test_same_tree_and_arguments_give_the_same_answer(explorer: Explorer) -> None:
    one = explorer.references_answer("Widget", role="doc").model_dump()
    two = explorer.references_answer("Widget", role="doc").model_dump()
    assert one == two


def test_impact_summary_names_importers_first_within_budget(explorer: Explorer) -> None:
    report = analyze_impact(explorer, ["pkg/app.py"], None)
    from code_intel.explore.impact import shape_impact

    summary = shape_impact(report.model_copy(deep=True))
    importers = [i.file for i in summary.importers]
    assert importers[:3] == ["pkg/__init__.py", "pkg/sub/use.py", "tests/test_widget.py"]
    assert summary.dependents == [] and summary.top_files
    assert _size(summary) <= budget_chars()
    page = shape_impact(report.model_copy(deep=True), level="locations", group="dependents")
    assert page.dependents and all(i.text is None for i in page.dependents)


def test_a_long_outline_is_cut_to_the_budget_and_pages_on(tmp_path_factory: pytest.TempPathFactory) -> None:
    source = "".join(f"class C{i}:\n" + "".join(f"    def m{j}(self):\n        return {j}\n" for j in range(30)) + "\n"
                     for i in range(40))
    explorer = explorer_over(tmp_path_factory.mktemp("outline"), {"big.py": source})
    first = explorer.symbols_answer("big.py")
    assert _size(first) <= budget_chars() and first.left_out and first.next_offset == len(first.symbols)
    second = explorer.symbols_answer("big.py", offset=first.next_offset)
    assert second.symbols[0].name == f"C{first.next_offset}"
    everything = explorer.get_symbols("big.py")
    assert len(everything.symbols) == 40 and everything.left_out is None  # the engine keeps the whole outline


def test_impact_summary_caps_the_names_it_followed(tmp_path_factory: pytest.TempPathFactory) -> None:
    from code_intel.explore.impact import shape_impact

    source = "".join(f"def function_number_{i}():\n    return {i}\n\n" for i in range(300))
    explorer = explorer_over(tmp_path_factory.mktemp("names"), {"many.py": source, "use.py": "import many\n"})
    summary = shape_impact(analyze_impact(explorer, ["many.py"], None))
    assert summary.left_out and summary.left_out["symbols"] > 0 and _size(summary) <= budget_chars()
    assert [i.file for i in summary.importers] == ["use.py"]


def test_an_answer_that_fits_lists_every_role(tmp_path: Path) -> None:
    """Tests that call a function are what an agent changing it needs: while the whole answer fits the budget,
    no role is only counted (the demo's EXPLORATION listed the test file find_references had only counted)."""
    explorer = explorer_over(tmp_path, {
        "calc/ops.py": "def multiply(a, b):\n    return a * b\n",
        "calc/cli.py": "from calc.ops import multiply\nprint(multiply(2, 3))\n",
        "tests/test_ops.py": "from calc.ops import multiply\n\ndef test_multiply():\n    assert multiply(2, 3) == 6\n"})
    answer = explorer.references_answer("multiply")
    assert [f.file for f in answer.files or []] == ["calc/ops.py", "calc/cli.py", "tests/test_ops.py"]
    assert not answer.counted and not answer.truncated
