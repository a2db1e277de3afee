"""Raw protocol cases through a spawned server: every request line with an id gets an answer, and a
slow call never holds up the others. Before tools/server/stdio.py, every case in RAW_CASES went unanswered."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from code_intel.server.stdio import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    MAX_DEPTH,
    PARSE_ERROR,
    Rejection,
    check_line,
    top_level_id,
)

pytestmark = pytest.mark.slow


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"a": value}
    return value


def _call(request_id: Any, arguments: Any, name: str = "search_text") -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments}})


RAW_CASES: list[tuple[str, bytes | str, Any, int]] = [
    ("200-deep nesting", _call(1, {"pattern": "x", "glob": _nested(200)}), 1, INVALID_PARAMS),
    ("lone surrogate", _call(2, {"pattern": "x"}).replace('"x"', '"\\ud800"'), 2, INVALID_PARAMS),
    ("5,000-digit number", _call(3, {"pattern": "x", "max_results": 7}).replace("7", "9" * 5000), 3, INVALID_PARAMS),
    ("3,000-deep nesting outside params",
     '{"jsonrpc":"2.0","id":4,"method":"ping","extra":' + "[" * 3000 + "]" * 3000 + "}", 4, INVALID_REQUEST),
    ("broken JSON", '{"jsonrpc":"2.0","id":5,"method":"tools/call",', 5, PARSE_ERROR),
    ("not UTF-8", b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"search_text","arguments":{"pattern":"\xff"}}}',
     6, PARSE_ERROR),
    ("NaN", '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"n":NaN}}}', 7, PARSE_ERROR),
    ("no method", '{"jsonrpc":"2.0","id":8}', 8, INVALID_REQUEST),
    ("no version", '{"id":9,"method":"tools/list"}', 9, INVALID_REQUEST),
    ("params not an object", '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":"x"}', 10, INVALID_PARAMS),
    ("arguments not an object", _call(12, ["pattern", "x"]), 12, INVALID_PARAMS),
    ("tool name not a string", '{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":5,"arguments":{}}}', 13,
     INVALID_PARAMS),
    ("batch", '[{"jsonrpc":"2.0","id":11,"method":"ping"}]', None, INVALID_REQUEST),
    ("id of the wrong type", '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', None, INVALID_REQUEST),
]


@pytest.fixture
def server(tmp_path: Path, spawn: Callable[..., Any]) -> Any:
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    return spawn(project)


def test_every_request_line_gets_an_answer(server: Any) -> None:
    for name, line, request_id, code in RAW_CASES:
        server.send_line(line)
        answer = server.answer(request_id, timeout=15)
        assert answer["error"]["code"] == code, (name, answer)
        assert answer["error"]["message"], name
    # notifications are never answered, even bad ones, and the server is still serving afterwards
    server.send_line('{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\\ud800"}}')
    status = server.call("get_session_status")
    assert status["error"] == "no_active_session"
    assert not server.has_answer(None)


@pytest.mark.serial
def test_a_slow_call_does_not_hold_up_the_others(tmp_path: Path, spawn: Callable[..., Any]) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ("a" * 200 + ".py")).write_text("x = 1\n", encoding="utf-8")
    server = spawn(project, env={"CODE_INTEL_FAULTS": "explore.search_text=sleep:6"})
    slow = server.request("tools/call", {"name": "search_text", "arguments": {"pattern": "x"}})
    time.sleep(0.3)
    started = time.monotonic()
    glob = server.request("tools/call", {"name": "search_files", "arguments": {"pattern": "*a*a*a*a*a*a*a*a*a*a*a*a*b"}})
    status = server.request("tools/call", {"name": "get_session_status", "arguments": {}})
    assert "result" in server.answer(status, timeout=5)
    found = server.answer(glob, timeout=5)["result"]["structuredContent"]
    assert found["success"] is True and found["files"] == []
    assert time.monotonic() - started < 5
    assert not server.has_answer(slow), "the paused search must still be running"
    assert server.answer(slow, timeout=30)["result"]["structuredContent"]["success"] is True


# ---------------------------------------------------------------- the checks themselves, in process
def test_check_line_passes_valid_messages_unchanged() -> None:
    line = _call(1, {"pattern": "é", "max_results": 10})
    assert check_line(line.encode("utf-8") + b"\n") == line
    assert check_line(b"   \n") is None


def test_depth_limit_is_exact() -> None:
    # message(1) -> params(2) -> arguments(3) -> glob(4): nesting below that adds one level each
    ok = check_line(_call(1, {"glob": _nested(MAX_DEPTH - 4)}).encode())
    refused = check_line(_call(1, {"glob": _nested(MAX_DEPTH)}).encode())
    assert isinstance(ok, str)
    assert isinstance(refused, Rejection) and refused.code == INVALID_PARAMS and refused.id == 1


def test_responses_and_notifications_are_never_answered() -> None:
    response = check_line(b'{"jsonrpc":"2.0","id":3,"result":{"x":"\\ud800"}}')
    notification = check_line(b'{"jsonrpc":"2.0","method":"n","params":{"x":"\\ud800"}}')
    assert isinstance(response, Rejection) and response.answer is False
    assert isinstance(notification, Rejection) and notification.answer is False


def test_the_id_of_a_broken_line_is_read_when_it_can_be() -> None:
    assert top_level_id('{"jsonrpc":"2.0","id":42,"method":"x","params":{') == 42
    assert top_level_id('{"params":{"id":1},"id":"abc","method":') == "abc"
    assert top_level_id('{"params":{"id":1}') is None


@pytest.mark.serial
def test_a_budget_that_runs_out_is_said_in_the_answer(tmp_path: Path, spawn: Callable[..., Any]) -> None:
    project = tmp_path / "project"
    (project / ".code-intel").mkdir(parents=True)
    (project / ".code-intel" / "config.json").write_text(json.dumps({"search_timeout_seconds": 0.5}), encoding="utf-8")
    (project / "app.py").write_text("def helper_function():\n    return 1\n", encoding="utf-8")
    server = spawn(project, env={"CODE_INTEL_FAULTS": "explore.get_symbols=sleep:1"})
    for tool, arguments in [("analyze_impact", {"files": ["app.py"]}), ("query", {"question": "helper_function"})]:
        started = time.monotonic()
        answer = server.call(tool, arguments)  # checked against the output schema too
        assert time.monotonic() - started < 5
        if tool == "analyze_impact":
            assert answer["success"] and answer["partial"] is True and "ran out" in answer["partial_reason"], answer
        else:
            assert answer["success"], answer


@pytest.mark.skipif(os.uname().sysname == "Darwin", reason="macOS file systems refuse names that are not UTF-8")
def test_a_file_name_that_is_not_utf8_goes_over_the_wire_and_comes_back(tmp_path: Path, spawn: Callable[..., Any]) -> None:
    project = tmp_path / "project"
    project.mkdir()
    with open(os.fsencode(project) + b"/caf\xe9.py", "wb") as handle:
        handle.write(b"def latin_helper():\n    return 1\n")
    server = spawn(project)
    listed = server.call("search_files", {"pattern": "*.py"})
    assert [f["file"] for f in listed["files"]] == ["caf\\xe9.py"]
    found = server.call("search_text", {"pattern": "latin_helper"})
    assert found["matches"][0]["file"] == "caf\\xe9.py"
    symbols = server.call("get_symbols", {"path": "caf\\xe9.py"})
    assert symbols["success"] and symbols["file"] == "caf\\xe9.py" and symbols["symbols"][0]["name"] == "latin_helper"


@pytest.mark.parametrize(("line", "words"), [
    (_call(1, ["pattern", "x"]), "`arguments` must be an object"),
    (_call(1, "pattern=x"), "`arguments` must be an object"),
    ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}', "needs `name`"),
    ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":["search_text"]}}', "needs `name`"),
])
def test_a_malformed_tool_call_is_refused_in_words(line: str, words: str) -> None:
    """The SDK would answer these with a bare "Invalid request parameters"."""
    refused = check_line(line.encode())
    assert isinstance(refused, Rejection) and refused.code == INVALID_PARAMS and refused.id == 1
    assert words in refused.message


def test_a_tool_call_without_arguments_passes() -> None:
    line = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_session_status"}}'
    assert check_line(line.encode()) == line
