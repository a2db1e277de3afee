"""A `.code-intel/` that cannot be written: the server starts, serves the read-only tools and refuses
state-changing calls naming the folder and the fix. Before the fix, a fresh read-only folder crashed
the server at start-up (PermissionError) and a used one made start_session answer internal_error.
Also: temp files a killed server left in sessions/ are removed when the next one starts."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.conftest import read_only_prefix

pytestmark = pytest.mark.slow

CODE = "def helper(value):\n    return value\n\n\nprint(helper(1))\n"
READ_ONLY_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_text", {"pattern": "helper"}), ("search_files", {"pattern": "*.py"}),
    ("find_definitions", {"symbol": "helper"}), ("find_references", {"symbol": "helper"}),
    ("get_symbols", {"path": "app.py"}), ("analyze_impact", {"files": ["app.py"]}),
    ("check_write_target", {"file_path": "app.py"}), ("get_outcome_stats", {}),
]
STATE_CHANGING_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("start_session", {"intent": "QUESTION", "query": "where is helper defined?"}),
    ("record_outcome", {"outcome": "failure", "phase_at_outcome": "READY"}),
    ("sync_index", {}),
]


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text(CODE, encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@e", "add", "-A"], cwd=project, check=True)
    subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "init"], cwd=project, check=True)
    return project


def _init(project: Path) -> None:
    from code_intel.context.installer import install

    install(project)


def _check_read_only_server(server: Any, project: Path) -> None:
    for tool, arguments in READ_ONLY_CALLS:
        result = server.call(tool, arguments)
        assert result["success"] is True, (tool, result)
    status = server.call("get_session_status")
    assert status["error"] == "no_active_session"
    for tool, arguments in STATE_CHANGING_CALLS:
        refused = server.call(tool, arguments, timeout=120)
        assert refused["success"] is False and refused["error"] == "tool_unavailable", (tool, refused)
        assert ".code-intel/" in refused["message"] and "cannot be written" in refused["message"], refused
        assert "writable" in refused["hint"] or "disk" in refused["hint"]
    assert server.process.poll() is None, "the server is still running"


def test_fresh_read_only_state_folder(tmp_path: Path, spawn: Callable[..., Any]) -> None:
    project = _project(tmp_path)
    _init(project)
    server = spawn(project, prefix=read_only_prefix(project / ".code-intel"))
    _check_read_only_server(server, project)


def test_read_only_state_folder_after_a_first_run(tmp_path: Path, spawn: Callable[..., Any]) -> None:
    project = _project(tmp_path)
    _init(project)
    first = spawn(project)
    started = first.call("start_session", {"intent": "QUESTION", "query": "where is helper defined?"})
    assert started["success"] is True
    assert first.call("cleanup_stale_branches")["success"] is True
    first.close()
    server = spawn(project, prefix=read_only_prefix(project / ".code-intel"))
    _check_read_only_server(server, project)


def test_temp_files_left_by_a_killed_server_are_removed_at_start(tmp_path: Path, spawn: Callable[..., Any]) -> None:
    project = _project(tmp_path)
    sessions = project / ".code-intel" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / ".20260101_000000_abcd.json.k2j3h4.tmp").write_text('{"version": 1, "orchest', encoding="utf-8")
    (sessions / ".lock.q8w7e6").write_text("{}", encoding="utf-8")
    server = spawn(project)
    assert server.call("get_session_status")["error"] == "no_active_session"
    assert not list(sessions.glob(".*.tmp")) and not list(sessions.glob(".lock.*"))
