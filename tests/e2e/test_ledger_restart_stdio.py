"""A server killed between the exploration calls and their submit: the respawned server still knows the calls.

Claude Code restarts MCP servers on /mcp reconnect, and a server may crash or be SIGKILLed; the tool calls
made since the last accepted submit are journaled beside the checkpoint (tools/workflow/ledger.py), so the
EXPLORATION submit the agent was about to send is accepted by the next process as it would have been."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from code_intel.cli.demo import DemoAgent, Quiet, connect, follow

pytestmark = pytest.mark.slow  # spawns the server over stdio twice

QUERY = "Add power() to the calculator"


def _sessions(repo: Path) -> Path:
    return repo / ".code-intel" / "sessions"


def _lock_pid(repo: Path) -> int:
    return int(json.loads((_sessions(repo) / "session.lock").read_text(encoding="utf-8"))["pid"])


def test_exploration_calls_made_before_a_sigkill_and_after_the_respawn_count_in_the_submit(sample: Path) -> None:
    async def first_life() -> tuple[dict[str, Any], dict[str, Any], int]:
        async with connect(sample) as call:
            agent = DemoAgent(call, sample, Quiet(), query=QUERY)
            agent.refusal_shown = True  # no demonstration of a bad submit: only the real calls
            resp = await call("start_session", {"intent": "IMPLEMENT", "query": QUERY, "flags": []})
            resp = await follow(agent, resp, stop_at="EXPLORATION")
            assert resp["phase"] == "EXPLORATION", resp
            payload = await DemoAgent.HANDLERS["EXPLORATION"](agent, resp)  # find_definitions, get_symbols, ...
            pid = _lock_pid(sample)
            os.kill(pid, signal.SIGKILL)  # before the submit: nothing is saved on the way out
            return resp, payload, pid

    async def second_life() -> tuple[dict[str, Any], int]:
        async with connect(sample) as call:
            # after a /mcp reconnect the agent goes on exploring: this call comes before anything restores the session
            found = await call("search_text", {"pattern": "def multiply"})
            assert found.get("success", True) is not False, found
            data = {**payload, "tools_used": [*payload["tools_used"], "search_text"], "compaction_count": 0}
            resp = await call("submit_phase", {"data": data})
            return resp, _lock_pid(sample)

    at, payload, pid = anyio.run(first_life)
    for _ in range(50):  # the kill is asynchronous
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    journal = _sessions(sample) / f"{at['session_id']}.calls.jsonl"
    left = journal.read_text(encoding="utf-8").splitlines() if journal.exists() else []

    resp, new_pid = anyio.run(second_life)
    assert resp["success"], resp  # before the journal: payload_mismatch, "no successful call to them"
    assert resp["phase"] == "Q1" and resp["session_id"] == at["session_id"] and new_pid != pid
    called = [json.loads(line) for line in left]
    assert {"find_definitions", "get_symbols", "find_references"} <= {e["t"] for e in called if e["p"] == "EXPLORATION"}
    assert not journal.exists()  # spent: the checkpoint of the accepted submit holds the new window
    state = json.loads((_sessions(sample) / f"{at['session_id']}.json").read_text(encoding="utf-8"))
    assert state["orchestrator_state"]["tool_counts"]["EXPLORATION"]["find_definitions"] == 1
