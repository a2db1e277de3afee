"""Bad input through a real stdio client, checked against CONTRACT.md: every refusal is a tool result
carrying one of the contract's error codes (never `internal_error`), and the server stays up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from code_intel.cli.demo import server_params

pytestmark = pytest.mark.slow  # spawns the server over stdio

CONTRACT_CODES = {"payload_mismatch", "task_validation_failed", "no_active_session", "session_active", "invalid_flag",
                  "checkpoint_corrupt", "git_error", "path_outside_project", "invalid_argument", "tool_unavailable"}
LONG_NAME = "a" * 300  # longer than any file name the system allows (NAME_MAX is 255)
ESCAPED_NUL = "calc/op\\x00.py"  # the \\xNN form results give names that are not UTF-8; a NUL names no file

# (label, tool, arguments, the contract code expected)
MISSING_FILES: list[tuple[str, str, dict[str, Any], str]] = [
    ("get_symbols missing file", "get_symbols", {"path": "calc/nope.py"}, "invalid_argument"),
    ("analyze_structure missing file", "analyze_structure", {"path": "calc/nope.py"}, "invalid_argument"),
    ("get_function_at_line missing file", "get_function_at_line", {"path": "calc/nope.py", "line": 1}, "invalid_argument"),
    ("find_references missing folder", "find_references", {"symbol": "add", "path": "nope/"}, "invalid_argument"),
    ("search_text missing folder", "search_text", {"pattern": "def", "path": "nope/"}, "invalid_argument"),
    ("analyze_impact missing file", "analyze_impact", {"files": ["calc/nope.py"]}, "invalid_argument"),
]
BAD_PATHS: list[tuple[str, str, dict[str, Any], str]] = [
    *[(f"{tool} path too long", tool, {**args, "path": LONG_NAME}, "invalid_argument") for tool, args in [
        ("search_text", {"pattern": "def"}), ("search_files", {"pattern": "*.py"}), ("find_definitions", {"symbol": "add"}),
        ("find_references", {"symbol": "add"}), ("get_symbols", {}), ("analyze_structure", {}),
        ("get_function_at_line", {"line": 1})]],
    *[(f"{tool} escaped NUL in path", tool, {**args, "path": ESCAPED_NUL}, "invalid_argument") for tool, args in [
        ("search_text", {"pattern": "def"}), ("search_files", {"pattern": "*.py"}), ("get_symbols", {}),
        ("get_function_at_line", {"line": 1})]],
    ("analyze_impact file too long", "analyze_impact", {"files": [LONG_NAME]}, "invalid_argument"),
    ("analyze_impact escaped NUL", "analyze_impact", {"files": [ESCAPED_NUL]}, "invalid_argument"),
    ("check_write_target too long", "check_write_target", {"file_path": LONG_NAME}, "invalid_argument"),
    ("start_session repo_path escaped NUL", "start_session",
     {"intent": "INVESTIGATE", "query": "q", "repo_path": ESCAPED_NUL}, "invalid_argument"),
]
HUGE = "a" * 300_000  # over Linux's 128 KB limit for one program argument
BAD_SEARCH_TEXT: list[tuple[str, str, dict[str, Any], str]] = [
    ("search_text NUL in pattern", "search_text", {"pattern": "a\x00b"}, "invalid_argument"),
    ("search_text NUL in a pattern list", "search_text", {"pattern": ["def", "a\x00b"]}, "invalid_argument"),
    ("search_text huge pattern", "search_text", {"pattern": HUGE}, "invalid_argument"),
    ("search_text huge pattern fixed", "search_text", {"pattern": HUGE, "fixed_strings": True}, "invalid_argument"),
    ("search_text NUL in glob", "search_text", {"pattern": "def", "glob": "*.py\x00"}, "invalid_argument"),
    ("search_text huge glob", "search_text", {"pattern": "def", "glob": [HUGE]}, "invalid_argument"),
    ("find_references huge symbol", "find_references", {"symbol": HUGE}, "invalid_argument"),
]
UNKNOWN_ARGUMENTS: list[tuple[str, str, dict[str, Any], str]] = [
    ("search_text misspelt path", "search_text", {"pattern": "def", "paths": "tests/"}, "invalid_argument"),
    ("review_changes with an argument", "review_changes", {"files": ["calc/operations.py"]}, "invalid_argument"),
]
CASES = MISSING_FILES + BAD_PATHS + BAD_SEARCH_TEXT + UNKNOWN_ARGUMENTS


async def _drive(project: Path) -> dict[str, Any]:
    from mcp import Client

    seen: dict[str, Any] = {}
    async with Client(server_params(project), read_timeout_seconds=120) as client:
        for label, tool, args, _ in CASES:
            seen[label] = await client.call_tool(tool, args)
        seen["impact of a huge symbol"] = await client.call_tool(
            "analyze_impact", {"files": ["calc/operations.py"], "symbols": ["multiply", HUGE]})
        seen["unknown tool"] = await client.call_tool("search_everything", {"pattern": "def"})
        seen["prefixed tool name"] = await client.call_tool("mcp__code-intel__search_text", {"pattern": "def"})
        seen["retired complete_task"] = await client.call_tool("complete_task", {"task_id": "task_1"})
        seen["retired get_intervention_status"] = await client.call_tool("get_intervention_status", {})
        seen["still up"] = await client.call_tool("search_text", {"pattern": "def add"})
        seen["started"] = await client.call_tool("start_session", {"intent": "INVESTIGATE", "query": "how does add work?"})
        seen["status"] = await client.call_tool("get_session_status", {})
    return seen


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from code_intel.cli.demo import create_sample

    project = tmp_path_factory.mktemp("contract") / "calc"
    create_sample(project)
    return anyio.run(_drive, project)


@pytest.mark.parametrize(("label", "tool", "args", "code"), CASES, ids=[case[0] for case in CASES])
def test_bad_input_is_refused_with_a_contract_code(answers: dict[str, Any], label: str, tool: str,
                                                   args: dict[str, Any], code: str) -> None:
    result = answers[label]
    refusal = result.structured_content
    assert result.is_error is True and refusal is not None, result
    assert refusal["success"] is False and refusal["error"] == code, refusal
    assert refusal["error"] in CONTRACT_CODES
    assert refusal["message"] and refusal.get("hint"), refusal
    assert refusal["call"] == "start_session" and refusal["current_phase"] is None  # no session: how to start one


def test_the_server_answers_after_the_bad_input(answers: dict[str, Any]) -> None:
    found = answers["still up"].structured_content
    assert found["success"] is True and found["matches"][0]["file"] == "calc/operations.py"


@pytest.mark.parametrize("label", [case[0] for case in MISSING_FILES])
def test_a_missing_file_says_so_and_where_to_look(answers: dict[str, Any], label: str) -> None:
    refusal = answers[label].structured_content
    assert "does not exist" in refusal["message"] and "search_files" in refusal["hint"]


@pytest.mark.parametrize(("label", "kind", "why"), [
    ("search_text NUL in pattern", "pattern", "NUL byte"), ("search_text huge pattern", "pattern", "too long"),
    ("search_text NUL in glob", "glob", "NUL byte"), ("search_text huge glob", "glob", "too long"),
])
def test_a_search_argument_ripgrep_cannot_take_is_named(answers: dict[str, Any], label: str, kind: str, why: str) -> None:
    message = answers[label].structured_content["message"]
    assert f"the {kind}" in message and why in message, message


def test_an_argument_the_tool_does_not_have_is_refused_not_dropped(answers: dict[str, Any]) -> None:
    """A misspelt optional argument used to be dropped: the search ran over the whole project, unscoped."""
    misspelt = answers["search_text misspelt path"].structured_content
    assert "'paths'" in misspelt["message"] and "did you mean 'path'" in misspelt["message"], misspelt
    assert "pattern, path, glob" in misspelt["hint"]
    assert "takes no arguments" in answers["review_changes with an argument"].structured_content["hint"]


async def _listed_input_schemas(project: Path) -> dict[str, Any]:
    from mcp import Client

    async with Client(server_params(project), read_timeout_seconds=120) as client:
        return {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}


def test_every_input_schema_says_no_other_argument_is_taken(tmp_path: Path) -> None:
    schemas = anyio.run(_listed_input_schemas, tmp_path)
    assert schemas and all(schema.get("additionalProperties") is False for schema in schemas.values()), schemas


def test_impact_analysis_notes_a_symbol_ripgrep_cannot_take_and_goes_on(answers: dict[str, Any]) -> None:
    report = answers["impact of a huge symbol"].structured_content
    assert report["success"] is True
    assert any("too long" in note for note in report["notes"]), report["notes"]


@pytest.mark.parametrize(("label", "name"), [("unknown tool", "search_everything"),
                                             ("prefixed tool name", "mcp__code-intel__search_text")])
def test_an_unknown_tool_gets_the_refusal_envelope_naming_the_tools(answers: dict[str, Any], label: str,
                                                                     name: str) -> None:
    result = answers[label]
    refusal = result.structured_content
    assert result.is_error is True and refusal is not None, result
    assert refusal["success"] is False and refusal["error"] == "invalid_argument"
    assert repr(name) in refusal["message"] and "search_text" in refusal["hint"] and "start_session" in refusal["hint"]
    assert refusal["call"] == "start_session" and refusal["current_phase"] is None


def test_a_tool_v1_11_folded_into_submit_phase_names_its_replacement(answers: dict[str, Any]) -> None:
    """An agent (or an old /code skill) calling a pre-v1.11 tool is told which submit_phase payload replaced it."""
    refusal = answers["retired complete_task"].structured_content
    assert refusal["error"] == "invalid_argument" and "submit_phase" in refusal["message"], refusal
    assert "READY implementation payload" in refusal["hint"] and "get_session_status" in refusal["hint"], refusal
    counters = answers["retired get_intervention_status"].structured_content
    assert "counts verification failures itself" in counters["hint"], counters


async def _broken_settings(project: Path) -> dict[str, Any]:
    from mcp import Client

    async with Client(server_params(project), read_timeout_seconds=120) as client:
        return {name: await client.call_tool(name, args) for name, args in [
            ("start_session", {"intent": "INVESTIGATE", "query": "how does add work?"}),
            ("sync_index", {}), ("update_context", {}), ("search_text", {"pattern": "def add"})]}


def test_a_broken_settings_file_is_refused_with_a_contract_code_naming_the_file(tmp_path: Path) -> None:
    from code_intel.cli.demo import create_sample

    project = tmp_path / "calc"
    create_sample(project)
    (project / ".code-intel" / "config.json").write_text("{broken", encoding="utf-8")
    (project / ".code-intel" / "context.yml").write_text("project_rules: [unclosed\n", encoding="utf-8")
    answers = anyio.run(_broken_settings, project)
    for name, file in [("start_session", "context.yml"), ("sync_index", "config.json"), ("update_context", "context.yml"),
                       ("search_text", "config.json")]:
        refusal = answers[name].structured_content
        assert answers[name].is_error is True and refusal["error"] == "tool_unavailable", (name, refusal)
        assert file in refusal["message"] and file in refusal["hint"], (name, refusal)


def test_get_session_status_adds_completed_steps_and_task_progress_before_any_planning(answers: dict[str, Any]) -> None:
    assert answers["started"].structured_content["phase"] == "DOCUMENT_RESEARCH"
    status = answers["status"].structured_content
    assert status["success"] is True and status["completed_steps"] == [1]
    assert status["task_progress"] == {"total": 0, "completed": 0, "pending": 0}


async def _two_servers(project: Path) -> dict[str, Any]:
    from mcp import Client

    seen: dict[str, Any] = {}
    async with Client(server_params(project), read_timeout_seconds=120) as first:
        seen["first"] = await first.call_tool("start_session", {"intent": "INVESTIGATE", "query": "how does add work?"})
        async with Client(server_params(project), read_timeout_seconds=120) as second:
            seen["second start"] = await second.call_tool("start_session", {"intent": "INVESTIGATE", "query": "x"})
            seen["second status"] = await second.call_tool("get_session_status", {})
    for checkpoint in (project / ".code-intel" / "sessions").glob("*.json"):
        checkpoint.write_text("{not json", encoding="utf-8")
    async with Client(server_params(project), read_timeout_seconds=120) as third:
        seen["corrupt start"] = await third.call_tool("start_session", {"intent": "INVESTIGATE", "query": "x"})
    return seen


def test_refusals_for_a_session_held_elsewhere_or_unreadable_do_not_send_the_agent_back_to_start_session(
        tmp_path: Path) -> None:
    from code_intel.cli.demo import create_sample

    project = tmp_path / "calc"
    create_sample(project)
    seen = anyio.run(_two_servers, project)
    assert seen["first"].structured_content["success"] is True
    for label in ("second start", "second status"):
        refusal = seen[label].structured_content
        assert refusal["error"] == "session_active", refusal
        assert refusal["call"] == "get_session_status" and "Another code-intel process" in refusal["instruction"]
        assert "No session is active" not in refusal["instruction"]
    corrupt = seen["corrupt start"].structured_content
    assert corrupt["error"] == "checkpoint_corrupt", corrupt
    assert corrupt["call"] == "cleanup_stale_branches" and "Ask the user first" in corrupt["instruction"]


ITEM_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_text", {"pattern": "def"}), ("find_definitions", {"symbol": "add"}), ("find_references", {"symbol": "add"}),
    ("get_symbols", {"path": "calc/operations.py"}), ("analyze_structure", {"path": "calc/operations.py"}),
    ("get_function_at_line", {"path": "calc/operations.py", "line": 5}),
    ("analyze_impact", {"files": ["calc/operations.py"]}), ("query", {"question": "where is add defined?"}),
]


def _items_without_file(value: Any, where: str, found: list[str]) -> None:
    """Every dict carrying a `line` (an item pointing into code) must carry `file` too."""
    if isinstance(value, dict):
        if "line" in value and "file" not in value:
            found.append(where)
        for key, inner in value.items():
            _items_without_file(inner, f"{where}.{key}", found)
    elif isinstance(value, list):
        for inner in value:
            _items_without_file(inner, f"{where}[]", found)


async def _item_answers(project: Path) -> dict[str, Any]:
    from mcp import Client

    async with Client(server_params(project), read_timeout_seconds=120) as client:
        return {tool: (await client.call_tool(tool, args)).structured_content for tool, args in ITEM_CALLS}


def test_every_item_that_points_into_code_carries_file_and_line(tmp_path: Path) -> None:
    """CONTRACT.md: every result item that points into code carries `file` and `line`. get_symbols' symbols (and
    their children) and analyze_structure's imports, classes, functions and calls used to carry only `line`."""
    from code_intel.cli.demo import create_sample

    project = tmp_path / "calc"
    create_sample(project)
    answers = anyio.run(_item_answers, project)
    for tool, answer in answers.items():
        assert answer["success"] is True, (tool, answer)
        missing: list[str] = []
        _items_without_file(answer, tool, missing)
        assert not missing, sorted(set(missing))
    symbols = answers["get_symbols"]["symbols"]
    assert symbols and all(symbol["file"] == "calc/operations.py" for symbol in symbols)
    structure = answers["analyze_structure"]
    assert structure["functions"] and structure["functions"][0]["file"] == "calc/operations.py"
