"""The real server, on a real repository, killed with SIGKILL inside every git window, then restarted:
every session still finishes, with the work merged and nothing of the user's lost.

A fault point (tools/core/faults.py) named in CODE_INTEL_FAULTS kills the server when execution reaches
it, so each window is hit exactly, not by timing. Each round is one session killed at each of its
points in turn (the restarted server is armed with the next point), then driven to
SESSION_COMPLETE by the demo's agent. Before the fix, a kill right after the task branch was made
or right after MERGE deleted it left the session stuck for good.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from code_intel.cli.demo import REQUEST, DemoAgent, Quiet, create_sample, follow
from tests.reliability.conftest import RawServer, ServerGone

pytestmark = [pytest.mark.slow, pytest.mark.serial]  # a 420 s budget over kills timed into git windows

FLAGS = ["--fast", "--no-doc-research"]  # READY, POST_IMPL_VERIFY, PRE_COMMIT and MERGE: every git window
TEST_BUDGET_SECONDS = 420  # the whole test stops with a clear failure rather than hang

ROUNDS: dict[str, list[str]] = {
    "snapshot-branch-commit-merge": ["git.snapshot.after_ref", "git.branch.after_create", "git.commit.after_discard",
                                     "git.commit.after_ref", "git.merge.after_move", "git.merge.after_delete"],
    # starts with a stale llm_task_* branch, so BRANCH_INTERVENTION deletes one first
    "branch-delete-checkpoint-index-land": ["git.branches.after_delete", "write_atomic.before_replace.20*",
                                            "git.commit.after_index", "git.merge.after_land"],
    "clean": ["clean:git.clean.after_leave", "clean:git.branches.after_delete", "clean:git.clean.after_snapshots"],
}


class Session:
    """Drives one session across server restarts; `kills` counts the deaths it survived."""

    def __init__(self, repo: Path, deadline: float) -> None:
        self.repo, self.deadline = repo, deadline
        self.server: RawServer | None = None
        self.kills: list[str] = []
        self.compaction_count = 0

    def restart(self, fault: str | None) -> RawServer:
        if self.server is not None:
            self.server.close()
        env = {"CODE_INTEL_FAULTS": f"{fault}=kill"} if fault else {}
        self.server = RawServer(self.repo, env)
        self.server.initialize()
        return self.server

    def left(self) -> float:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            pytest.fail(f"the kill-window test ran over its {TEST_BUDGET_SECONDS} s budget")
        return remaining

    async def _call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        assert self.server is not None
        return self.server.call(name, arguments, timeout=min(120.0, self.left()))

    def follow(self, resp: dict[str, Any], stop_at: str | None = None) -> dict[str, Any]:
        agent = DemoAgent(self._call, self.repo, Quiet(), query=REQUEST)
        agent.refusal_shown = True
        agent.compaction_count = resp.get("compaction_count", 0)
        return anyio.run(lambda: follow(agent, resp, stop_at=stop_at))

    def begin(self) -> dict[str, Any]:
        """start_session, or, when a checkpoint survived, the session it offers to resume."""
        assert self.server is not None
        resp = self.server.call("start_session", {"intent": "IMPLEMENT", "query": REQUEST, "flags": FLAGS})
        if resp.get("recovery_available"):
            resp = self.server.call("get_session_status")
        assert resp.get("success"), resp
        return resp

    def run_until_killed(self, fault: str) -> None:
        """Restart armed with `fault`, continue the session, and expect the server to die at it."""
        clean = fault.startswith("clean:")
        point = fault.removeprefix("clean:")
        server = self.restart(None if clean else point)
        try:
            resp = self.begin()
            if clean:
                resp = self.follow(resp, stop_at="MERGE")  # work committed, branch still there
                server = self.restart(point)
                server.call("cleanup_stale_branches")
            else:
                self.follow(resp)
        except ServerGone:
            assert server.wait_exit(timeout=30) == -9, "killed by the fault point"
            self.kills.append(point)
            return
        pytest.fail(f"the server was not killed at {point}")

    def finish(self) -> dict[str, Any]:
        self.restart(None)
        final = self.follow(self.begin())
        assert self.server is not None
        self.server.close()
        return final


def _git(repo: Path, *args: str) -> str:
    import subprocess

    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.mark.parametrize("round_name", list(ROUNDS))
def test_killed_in_every_git_window_the_session_still_finishes(tmp_path: Path, round_name: str) -> None:
    repo = tmp_path / "calc"
    create_sample(repo)
    (repo / "notes.txt").write_text("the user's own uncommitted notes\n", encoding="utf-8")
    if round_name.startswith("branch-delete"):
        _git(repo, "branch", "llm_task_20200101_000000_dead_from_main")
    session = Session(repo, time.monotonic() + TEST_BUDGET_SECONDS)
    for fault in ROUNDS[round_name]:
        session.run_until_killed(fault)
    final = session.finish()

    assert final["success"] and final["phase"] == "SESSION_COMPLETE", final
    assert len(session.kills) == len(ROUNDS[round_name])
    assert "def power" in _git(repo, "show", "main:calc/operations.py")
    assert "test_power" in _git(repo, "show", "main:tests/test_operations.py")
    assert _git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert "llm_task_" not in _git(repo, "branch", "--list")
    assert _git(repo, "for-each-ref", "refs/code-intel/") == ""
    assert _git(repo, "status", "--porcelain") == "?? notes.txt\n", "only the user's own file is left uncommitted"
    assert (repo / "notes.txt").read_text(encoding="utf-8") == "the user's own uncommitted notes\n"
    sessions = repo / ".code-intel" / "sessions"
    assert not list(sessions.glob("*.json")) and not list(sessions.glob(".*.tmp"))
    log = (repo / ".code-intel" / "logs" / "decisions.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(log[-1])["next_phase"] == "SESSION_COMPLETE"


