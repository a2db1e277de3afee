"""One role for a file in every tool: a project in rack-test's shape, whose library `lib/rack/test.rb` requires
`lib/rack/test/*.rb` (Rack::Test::CookieJar and the rest), is read as library code by find_definitions,
find_references, query, analyze_impact and the exercised-tests check, as search already reads it; its own specs
stay tests. The tools are called as an agent calls them (the MCP client), the check through its class."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from code_intel.core.project import ProjectRoot
from code_intel.explore.ripgrep import RgFilters
from code_intel.server.app import CodeIntelApp
from code_intel.verify.exercised import Exercise
from code_intel.verify.models import FileChange
from code_intel_server import build_server
from tests.conftest import write_files

RACK_TEST = {
    "lib/rack/test.rb": (
        "require_relative 'test/cookie_jar'\n"
        "require_relative 'test/mock_session'\n"
        "\n"
        "module Rack\n"
        "  module Test\n"
        "    class Session\n"
        "      def initialize(app)\n"
        "        @jar = CookieJar.new\n"
        "        @mock = MockSession.new(app, @jar)\n"
        "      end\n"
        "    end\n"
        "  end\n"
        "end\n"),
    "lib/rack/test/cookie_jar.rb": (
        "module Rack\n"
        "  module Test\n"
        "    # The cookies a session keeps between requests, parsed from Set-Cookie headers.\n"
        "    class CookieJar\n"
        "      def merge_cookies(raw)\n"
        "        raw.split(\"\\n\").each { |line| store_cookie(parse_cookie(line)) }\n"
        "      end\n"
        "\n"
        "      def parse_cookie(line)\n"
        "        line.split(';').first.split('=')\n"
        "      end\n"
        "\n"
        "      def store_cookie(pair)\n"
        "        (@cookies ||= {})[pair[0]] = pair[1]\n"
        "      end\n"
        "    end\n"
        "  end\n"
        "end\n"),
    "lib/rack/test/mock_session.rb": (
        "module Rack\n"
        "  module Test\n"
        "    class MockSession\n"
        "      def initialize(app, jar = CookieJar.new)\n"
        "        @app, @jar = app, jar\n"
        "      end\n"
        "    end\n"
        "  end\n"
        "end\n"),
    "spec/rack/test/cookie_jar_spec.rb": (
        "describe Rack::Test::CookieJar do\n"
        "  it 'keeps a merged cookie' do\n"
        "    jar = Rack::Test::CookieJar.new\n"
        "    jar.merge_cookies('a=b')\n"
        "  end\n"
        "end\n"),
    "bench/cookie_jar_bench.rb": (  # a benchmark's stand-in of the same name: test-like code
        "class CookieJar\n"
        "end\n"),
    "test/cookie_jar_test.rb": (
        "class CookieJarTest < Minitest::Test\n"
        "  def test_merge\n"
        "    Rack::Test::CookieJar.new.merge_cookies('a=b')\n"
        "  end\n"
        "end\n"),
}
LIBRARY = {"lib/rack/test.rb", "lib/rack/test/cookie_jar.rb", "lib/rack/test/mock_session.rb"}
SPECS = {"spec/rack/test/cookie_jar_spec.rb", "test/cookie_jar_test.rb", "bench/cookie_jar_bench.rb"}


@pytest.fixture
def rack_test(tmp_path: Path, run_git: Callable[..., str]) -> Path:
    root = (tmp_path / "rack-test").resolve()
    write_files(root, RACK_TEST)
    (root / ".code-intel").mkdir()
    (root / ".code-intel" / "config.json").write_text('{"sync_on_start": false}')
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "init"]):
        run_git(root, *args)
    return root


async def _calls(root: Path, *calls: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    app = CodeIntelApp.for_path(root)
    try:
        async with Client(build_server(app)) as client:
            answers = []
            for name, args in calls:
                result = await client.call_tool(name, args)
                assert not result.is_error, (name, result.content)
                answers.append(json.loads(result.content[0].text))  # type: ignore[union-attr]
            return answers
    finally:
        app.close()


async def test_find_references_lists_the_library_under_its_test_folder_as_implementation(rack_test: Path) -> None:
    (found,) = await _calls(rack_test, ("find_references", {"symbol": "CookieJar", "role": "all"}))
    roles = {f["file"]: f["role"] for f in found["files"]}
    assert {f: roles[f] for f in LIBRARY} == dict.fromkeys(LIBRARY, "implementation")
    assert {f: roles[f] for f in SPECS} == dict.fromkeys(SPECS, "test")
    assert found["by_role"]["implementation"]["files"] == 3 and found["by_role"]["test"]["files"] == 3
    assert {f["file"] for f in found["files"][:3]} == LIBRARY  # the library first, its specs after


async def test_find_definitions_puts_the_library_under_its_test_folder_before_test_code(rack_test: Path) -> None:
    (found,) = await _calls(rack_test, ("find_definitions", {"symbol": "CookieJar"}))
    assert [d["file"] for d in found["definitions"]] == ["lib/rack/test/cookie_jar.rb", "bench/cookie_jar_bench.rb"]


async def test_query_gives_the_library_under_its_test_folder_its_role(rack_test: Path) -> None:
    (answer,) = await _calls(rack_test, ("query", {"question": "where are cookies merged into the CookieJar"}))
    roles = {(hit["file"], hit["line"]): hit["role"] for hit in answer["results"]}
    assert roles[("lib/rack/test/cookie_jar.rb", 4)] == "implementation"  # class CookieJar
    assert all(role == "implementation" for (file, _), role in roles.items() if file in LIBRARY)
    assert all(role == "test" for (file, _), role in roles.items() if file in SPECS)


async def test_analyze_impact_counts_the_library_users_as_dependents_not_tests(rack_test: Path) -> None:
    (report,) = await _calls(rack_test, ("analyze_impact", {"files": ["lib/rack/test/cookie_jar.rb"],
                                                            "symbols": ["CookieJar"], "level": "locations"}))
    dependents = {item["file"] for item in report.get("dependents", [])}
    tests = {item["file"] for item in report.get("tests", [])}
    assert {"lib/rack/test.rb", "lib/rack/test/mock_session.rb"} <= dependents
    assert tests == SPECS - {"bench/cookie_jar_bench.rb"}  # which defines a CookieJar of its own


def test_exercised_does_not_follow_library_code_as_a_test_helper(rack_test: Path) -> None:
    # a test file's helpers are followed one level; the library's methods are not test helpers, though their
    # folder is named test
    root = ProjectRoot.from_args(rack_test)
    change = FileChange("lib/rack/test/cookie_jar.rb", ((10, 10),))  # parse_cookie's body
    found = Exercise(root, RgFilters(), [change]).tests(["test/cookie_jar_test.rb::test_merge"])
    assert found == {}
