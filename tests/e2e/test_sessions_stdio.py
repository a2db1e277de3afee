"""Whole sessions through a real stdio MCP client against a spawned server (the demo's agent plays the model)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from code_intel.cli.demo import DemoAgent, Printer, connect, follow

pytestmark = pytest.mark.slow


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


class NotePrinter(Printer):
    """The demo's printer, keeping what it notes."""

    def __init__(self) -> None:
        super().__init__()
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        self.notes.append(text)
        super().note(text)


def test_full_implement_session_commits_and_merges(sample: Path) -> None:
    from code_intel.cli.demo import drive

    printer = NotePrinter()
    final = anyio.run(drive, sample, printer)
    assert final["success"] and final["phase"] == "SESSION_COMPLETE", final
    # entering READY, the server ran the checks once before anything changed (the READY response's brief)
    assert "(server ran verify.commands before any change: unittest passed)" in printer.notes
    # the demo skips one checklist item: the final answer, through the wire's output schema, still says so
    assert [s["item"] for s in final["skipped_items"]] == ["CLI registration of power"]
    assert "Tell the user which were skipped and why" in final["instruction"]
    assert "Add power() with a unit test" in git(sample, "log", "--oneline")
    assert git(sample, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert "llm_task_" not in git(sample, "branch", "--list")
    assert "def power" in git(sample, "show", "HEAD:calc/operations.py")
    assert not list((sample / ".code-intel" / "sessions").glob("*.json")), "checkpoint must be deleted at the end"
    decisions = (sample / ".code-intel" / "logs" / "decisions.jsonl").read_text().splitlines()
    assert any(not json.loads(line)["accepted"] for line in decisions), "the demo's refused submit is logged"
    assert git(sample, "status", "--porcelain").strip() == ""


def test_investigate_session_ends_after_exploration(sample: Path) -> None:
    async def scenario() -> list[str]:
        async with connect(sample) as call:
            agent = DemoAgent(call, sample, Printer(), query="How does the CLI dispatch operations?")
            agent.refusal_shown = True
            seen: list[str] = []
            resp = await call("start_session", {"intent": "INVESTIGATE", "query": "How does the CLI dispatch operations?",
                                                "flags": ["--no-doc-research"]})
            while resp.get("success") and resp["phase"] != "SESSION_COMPLETE":
                seen.append(resp["phase"])
                if resp["phase"] == "Q1":
                    payload: dict[str, Any] = {"needs_more_information": False, "reason": "read enough",
                                               "tools_used": [], "summary": "no semantic search needed"}
                elif resp["phase"] == "Q3":
                    payload = {"needs_impact_analysis": False, "reason": "nothing changes",
                               "tools_used": [], "summary": "investigation only"}
                else:
                    payload = await DemoAgent.HANDLERS[resp["phase"]](agent, resp)
                resp = await agent.submit(payload)
            assert resp.get("success"), resp
            return seen

    seen = anyio.run(scenario)
    assert seen[:2] == ["QUERY_FRAME", "EXPLORATION"]
    assert "READY" not in seen and "DOCUMENT_RESEARCH" not in seen
    assert "llm_task_" not in git(sample, "branch", "--list")


def _lock_pid(repo: Path) -> int:
    lock = repo / ".code-intel" / "sessions" / "session.lock"
    text = lock.read_text(encoding="utf-8")
    try:
        return int(json.loads(text)["pid"])
    except (ValueError, KeyError, TypeError):
        return int(text.split()[0])


def test_kill_and_restart_resumes_from_checkpoint(sample: Path) -> None:
    async def first_life() -> dict[str, Any]:
        async with connect(sample) as call:
            agent = DemoAgent(call, sample, Printer(), query="Add power() to the calculator")
            agent.refusal_shown = True
            resp = await call("start_session", {"intent": "IMPLEMENT", "query": "Add power() to the calculator",
                                                "flags": ["--no-doc-research"]})
            resp = await follow(agent, resp, stop_at="EXPLORATION")
            assert resp["phase"] == "EXPLORATION"
            resp = await agent.submit(await DemoAgent.HANDLERS["EXPLORATION"](agent, resp))
            assert resp["success"] and resp["phase"] == "Q1", resp
            os.kill(_lock_pid(sample), signal.SIGKILL)  # the server dies without a goodbye
            time.sleep(0.2)
            return resp

    async def second_life() -> dict[str, Any]:
        async with connect(sample) as call:
            again = await call("start_session", {"intent": "IMPLEMENT", "query": "something else", "flags": []})
            assert again.get("recovery_available") or again.get("error") == "session_active", again
            assert again.get("expected_payload") == {} and again.get("call") == "get_session_status", again
            status = await call("get_session_status", {})
            assert status["success"] and status["phase"] == "Q1", status
            assert 5 in status["completed_steps"] and status["compaction_count"] == 0
            agent = DemoAgent(call, sample, Printer(), query="Add power() to the calculator")
            agent.refusal_shown = True
            # a client that lost its context sends a bumped count and gets every summary back once
            agent.compaction_count = 1
            resp = await agent.submit({"needs_more_information": False, "reason": "enough", "tools_used": [],
                                       "summary": "skip semantic"})
            assert resp["success"] and resp["phase"] == "Q2", resp
            assert any("EXPLORATION" in key for key in resp.get("phase_summaries", {})), resp
            return await follow(agent, resp)

    anyio.run(first_life)
    final = anyio.run(second_life)
    assert final["success"] and final["phase"] == "SESSION_COMPLETE", final
    assert "def power" in git(sample, "show", "HEAD:calc/operations.py")
