"""`code-intel status` / `code-intel clean` on a real session (real engine, git and checkpoint files)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from code_intel.cli.status import run_clean, run_status
from code_intel.server.app import CodeIntelApp
from code_intel.workflow import seal


def _args(project: Path) -> argparse.Namespace:
    return argparse.Namespace(project=str(project))


def _start(project: Path) -> str:
    app = CodeIntelApp.for_path(project)
    response = app.workflow.start_session("IMPLEMENT", "add a greeting", ["--fast"], None)
    assert response["success"] is not False
    return str(response["session_id"])


def test_status_without_session_exits_1(git_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_status(_args(git_project)) == 1
    assert "no active session" in capsys.readouterr().out
    assert not (git_project / ".code-intel").exists()  # status writes nothing


def test_status_prints_the_active_session(git_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session_id = _start(git_project)
    assert run_status(_args(git_project)) == 0
    out = capsys.readouterr().out
    assert f"session     {session_id}" in out
    assert "IMPLEMENT" in out and "--fast" in out
    assert "phase" in out and "step" in out
    assert "tasks       not planned yet" in out
    assert "(running)" in out  # this test process holds the lock


def test_status_shows_the_last_check_and_the_tests_switched_off(git_project: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    session_id = _start(git_project)
    checkpoint = git_project / ".code-intel" / "sessions" / f"{session_id}.json"
    data = json.loads(checkpoint.read_text(encoding="utf-8"))
    data["orchestrator_state"].update(last_check="pytest passed",
                                      test_edits=["tests/test_a.py test_b: removed (its definition is gone)"])
    checkpoint.write_text(json.dumps(seal.seal(data, git_project)), encoding="utf-8")
    assert run_status(_args(git_project)) == 0
    out = capsys.readouterr().out
    assert "checks      pytest passed" in out
    assert "test edits  tests/test_a.py test_b: removed (its definition is gone)" in out


def test_status_reports_a_corrupt_checkpoint(git_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session_id = _start(git_project)
    (git_project / ".code-intel" / "sessions" / f"{session_id}.json").write_text("{not json", encoding="utf-8")
    assert run_status(_args(git_project)) == 1
    assert "cannot be read" in capsys.readouterr().err


def test_clean_deletes_task_branches_and_checkpoints(
    git_project: Path, run_git: Callable[..., str], capsys: pytest.CaptureFixture[str]
) -> None:
    run_git(git_project, "branch", "llm_task_old_from_main")
    _start(git_project)
    capsys.readouterr()
    assert run_clean(_args(git_project)) == 0
    out = capsys.readouterr().out
    assert "deleted branch llm_task_old_from_main" in out
    assert "deleted checkpoint .code-intel/sessions/" in out
    assert "llm_task_" not in run_git(git_project, "branch", "--list")
    assert run_status(_args(git_project)) == 1
