"""Refusals in one shape and bounded state, through a spawned server (every answer is also checked
against the tool's output schema, as the SDK client checks it).

Before the fix: with no session, submit_phase answered only success/error/message/hint;
start_session and add_explored_files refused without an instruction; `data` sent as a JSON string
was parsed by the SDK and accepted; a 900,000-character request made every checkpoint 2.7 MB and
large summaries made get_session_status answer 21.6 MB.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from code_intel.core.limits import MAX_RESPONSE_BYTES
from code_intel.workflow.checkpoint import MAX_CHECKPOINT_BYTES

pytestmark = pytest.mark.slow

CONTRACT_FIELDS = ("success", "error", "message", "current_phase", "step", "instruction", "expected_payload", "call")


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=project, check=True)
    for args in (["add", "-A"], ["commit", "-qm", "init"]):
        subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@e", *args], cwd=project, check=True)
    return project


def _assert_contract_refusal(answer: dict[str, Any], code: str | None = None) -> None:
    for field in CONTRACT_FIELDS:
        assert field in answer, (field, answer)
    assert answer["success"] is False and answer["message"] and answer["instruction"]
    if code:
        assert answer["error"] == code, answer


def test_every_refusal_carries_the_contract_fields(tmp_path: Path, spawn: Callable[..., Any]) -> None:
    server = spawn(_project(tmp_path))
    no_session = [
        server.call("get_session_status"),
        server.call("submit_phase", {"data": {"summary": "x"}}),
        server.call("add_explored_files", {"files": ["src/app.py"]}),
        server.call("start_session", {"intent": "REFACTOR", "query": "x"}),  # outside the input schema
        server.call("start_session", {"intent": "IMPLEMENT", "query": "   "}),
        server.call("start_session", {"intent": "IMPLEMENT", "query": "x", "flags": ["--nope"]}),
        server.call("search_text", {"pattern": ""}),
    ]
    for answer in no_session:
        _assert_contract_refusal(answer)
        assert answer["call"] == "start_session" and answer["current_phase"] is None and answer["step"] == 0
        assert "start_session" in answer["instruction"] and set(answer["expected_payload"]) >= {"intent", "query"}
    assert {a["error"] for a in no_session} >= {"no_active_session", "invalid_argument", "invalid_flag"}

    started = server.call("start_session", {"intent": "IMPLEMENT", "query": "Add subtract to src/app.py",
                                            "flags": ["--no-doc-research"]})
    assert started["success"] and started["phase"] == "QUERY_FRAME"
    in_session = [
        server.call("add_explored_files", {"files": "src/app.py"}),  # a string, not a list
        server.call("add_explored_files", {"files": ["../../etc/passwd"]}),
        server.call("search_text", {"pattern": "("}),
        server.call("submit_phase", {"data": {"summary": "x"}}),
    ]
    for answer in in_session:
        _assert_contract_refusal(answer)
        assert answer["current_phase"] == "QUERY_FRAME" and answer["call"] == "submit_phase"
        assert "target_symbols" in answer["expected_payload"]


def test_data_sent_as_a_json_string_is_refused_as_not_an_object(tmp_path: Path, spawn: Callable[..., Any]) -> None:
    server = spawn(_project(tmp_path))
    server.call("start_session", {"intent": "QUESTION", "query": "where is add defined?",
                                  "flags": ["--no-doc-research"]})
    payload = {"action_type": "question", "target_symbols": ["add"], "scope": "src", "constraints": "none",
               "tools_used": [], "summary": "find add"}
    refused = server.call("submit_phase", {"data": json.dumps(payload)})
    _assert_contract_refusal(refused, "payload_mismatch")
    assert "string" in refused["message"] and "object" in refused["message"]
    assert server.call("get_session_status")["phase"] == "QUERY_FRAME"
    accepted = server.call("submit_phase", {"data": payload})
    assert accepted["success"] and accepted["phase"] == "EXPLORATION"


def test_a_huge_request_and_huge_summaries_stay_bounded(tmp_path: Path, spawn: Callable[..., Any]) -> None:
    project = _project(tmp_path)
    server = spawn(project)
    started = server.call("start_session", {"intent": "QUESTION", "query": "where is add? " * 70_000,
                                            "flags": ["--no-doc-research"]})
    assert started["success"] and any("query" in note for note in started["cut"])
    payload = {"action_type": "question", "target_symbols": ["add"] * 2000, "scope": "s" * 100_000,
               "constraints": "none", "tools_used": [], "summary": "z" * 900_000}
    accepted = server.call("submit_phase", {"data": payload})
    assert accepted["success"], accepted
    assert any(note.startswith("data.summary") for note in accepted["cut"])
    assert any(note.startswith("data.target_symbols") for note in accepted["cut"])
    checkpoint = next((project / ".code-intel" / "sessions").glob("*.json"))
    assert checkpoint.stat().st_size <= MAX_CHECKPOINT_BYTES
    status = server.call("get_session_status")
    assert len(json.dumps(status)) < MAX_RESPONSE_BYTES
    assert "[cut:" in status["query"] and "[cut:" in next(iter(status["phase_summaries"].values()))


def test_any_answer_is_cut_to_its_limit_and_says_so(tmp_path: Path, spawn: Callable[..., Any]) -> None:
    project = _project(tmp_path)
    (project / "wide.txt").write_text(("x" + "y" * 4000 + "\n") * 240, encoding="utf-8")  # under max_file_bytes
    server = spawn(project)
    found = server.call("search_text", {"pattern": "x", "context_lines": 20, "max_results": 5000})
    assert found["success"] and found["total_matches"] == 240
    assert len(json.dumps(found)) <= MAX_RESPONSE_BYTES
    assert found["cut"] and "shortened" in found["cut"][0]
    assert all(m["file"] == "wide.txt" and m["line"] >= 1 for m in found["matches"])
