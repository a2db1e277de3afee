"""The user's decisions come from the user: keeping files changed before READY needs a grant the agent cannot
make (workflow/grants.py), given through MCP elicitation or `code-intel allow` in the user's terminal."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from mcp import Client
from mcp_types import ElicitRequestParams, ElicitResult

from code_intel.cli.allow import run_allow
from code_intel.core.project import ProjectRoot
from code_intel.server.app import CodeIntelApp
from code_intel.workflow import grants
from code_intel.workflow.phases import Phase
from code_intel_server import build_server
from tests.enforcement.conftest import SESSION_ID, make_project, start_session


@pytest.fixture
def project(tmp_path: Path) -> ProjectRoot:
    root = make_project(tmp_path / "project")
    start_session(root, Phase.PRE_COMMIT)
    return root


def sessions(root: ProjectRoot) -> Path:
    return root.state_dir / "sessions"


def test_a_grant_covers_the_content_it_was_given_for(project: ProjectRoot) -> None:
    grants.record(project.path, sessions(project), SESSION_ID, ["src/app.py"], by="terminal")
    assert grants.ungranted(project.path, sessions(project), SESSION_ID, ["src/app.py", "lib/other.py"]) == ["lib/other.py"]
    (project.path / "src" / "app.py").write_text("changed after the grant\n", encoding="utf-8")
    assert grants.ungranted(project.path, sessions(project), SESSION_ID, ["src/app.py"]) == ["src/app.py"]


def test_a_forged_or_edited_grant_is_void(project: ProjectRoot) -> None:
    file = grants.grants_file(sessions(project), SESSION_ID)
    digest = grants.content_hash(project.path / "src" / "app.py")
    forged = {"time": "2026-11-27T22:00:00Z", "session_id": SESSION_ID, "by": "terminal", "files": {"src/app.py": digest}}
    file.write_text(json.dumps(forged) + "\n" + json.dumps({**forged, "mac": "0" * 64}) + "\n", encoding="utf-8")
    assert grants.ungranted(project.path, sessions(project), SESSION_ID, ["src/app.py"]) == ["src/app.py"]
    grants.record(project.path, sessions(project), SESSION_ID, ["lib/other.py"], by="terminal")
    line = json.loads(file.read_text(encoding="utf-8").splitlines()[-1])
    line["files"]["src/app.py"] = digest  # widening a real grant breaks its seal
    file.write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert grants.ungranted(project.path, sessions(project), SESSION_ID, ["src/app.py", "lib/other.py"]) == [
        "src/app.py", "lib/other.py"]


def test_code_intel_allow_asks_in_the_terminal_and_records_the_grant(project: ProjectRoot,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    args = SimpleNamespace(files=["src/app.py"], project=str(project.path))
    assert run_allow(args, confirm=lambda question: False) == 1
    assert grants.ungranted(project.path, sessions(project), SESSION_ID, ["src/app.py"]) == ["src/app.py"]
    assert run_allow(args, confirm=lambda question: "[y/N]" in question) == 0
    assert grants.ungranted(project.path, sessions(project), SESSION_ID, ["src/app.py"]) == []
    assert "src/app.py (as it is now)" in capsys.readouterr().out
    assert run_allow(SimpleNamespace(files=["/etc/hosts"], project=str(project.path)), confirm=lambda q: True) == 1


def test_code_intel_allow_refuses_without_a_terminal(project: ProjectRoot, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_allow(SimpleNamespace(files=["src/app.py"], project=str(project.path))) == 2  # pytest's stdin is no tty
    assert "your own terminal" in capsys.readouterr().err


async def _submit_asking(project: ProjectRoot, monkeypatch: pytest.MonkeyPatch, answer: Callable[[int], ElicitResult],
                         mode: str = "auto") -> tuple[list[str], list[list[str]]]:
    """submit_phase keeping src/app.py (flagged at READY) through a client whose user answers `answer(n)` to the n-th
    question; the questions asked, and the grants recorded."""
    app = CodeIntelApp.for_path(project.path)
    asked: list[str] = []
    recorded: list[list[str]] = []
    monkeypatch.setattr(type(app.workflow), "early_changes_to_confirm", lambda self, files: ["src/app.py"])
    monkeypatch.setattr(type(app.workflow), "grant_early_changes",
                        lambda self, files, by: recorded.append([*files, by]) or files)

    async def user(context: Any, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params.message)
        return answer(len(asked))

    try:
        async with Client(build_server(app), elicitation_callback=user, mode=mode) as client:
            await client.call_tool("submit_phase", {"data": {"reallowed_files": ["src/app.py"]}})
    finally:
        app.close()
    return asked, recorded


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # a request mid-call up to 2025-11-25; from 2026-07-28 the call
@pytest.mark.parametrize(("action", "keep", "granted"), [("accept", True, True), ("accept", False, False),  # asks back
                                                           ("decline", None, False)])
async def test_submit_phase_asks_the_user_through_elicitation(project: ProjectRoot, monkeypatch: pytest.MonkeyPatch,
                                                              action: str, keep: bool | None, granted: bool,
                                                              mode: str) -> None:
    reply = ElicitResult(action=action, content=None if keep is None else {"keep": keep})  # type: ignore[arg-type]
    asked, recorded = await _submit_asking(project, monkeypatch, lambda _: reply, mode)
    assert len(asked) == 1 and "src/app.py" in asked[0] and "before the session reached READY" in asked[0]
    assert recorded == ([["src/app.py", "elicitation"]] if granted else [])


async def test_no_elicitation_no_question_and_no_grant(project: ProjectRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    app = CodeIntelApp.for_path(project.path)
    recorded: list[Any] = []
    monkeypatch.setattr(type(app.workflow), "grant_early_changes", lambda self, files, by: recorded.append(files))
    try:
        async with Client(build_server(app)) as client:  # declares no elicitation capability
            await client.call_tool("submit_phase", {"data": {"reallowed_files": ["src/app.py"]}})
    finally:
        app.close()
    assert recorded == []


async def test_an_answer_given_for_other_content_is_asked_again(project: ProjectRoot,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """From protocol 2026-07-28 the question goes back to the client and the call comes again: a file changed in
    between makes it another question (the file's content is named), so the first answer is not taken for it."""

    def answer(n: int) -> ElicitResult:
        if n == 1:  # the agent rewrites the file while the user reads the question
            (project.path / "src" / "app.py").write_text("changed while asking\n", encoding="utf-8")
        return ElicitResult(action="accept", content={"keep": True})

    asked, recorded = await _submit_asking(project, monkeypatch, answer)
    assert len(asked) == 2 and asked[0] != asked[1], asked
    assert recorded == [["src/app.py", "elicitation"]]  # granted once, for the content the user saw last
