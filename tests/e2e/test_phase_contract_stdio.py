"""The v1.13 phase-contract memo through a real stdio client (docs/spec-audit-v1.13.md): the compaction_count
protocol rides on every instruction, and the checkpoint on disk has the memo's layout, also across a kill."""

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
from code_intel.workflow.responses import COMPACTION_PROTOCOL

pytestmark = pytest.mark.slow  # spawns the server over stdio

QUERY = "Add power() to the calculator"


def _checkpoint(repo: Path) -> dict[str, Any]:
    files = [p for p in (repo / ".code-intel" / "sessions").glob("*.json")]
    assert len(files) == 1, files
    return json.loads(files[0].read_text(encoding="utf-8"))


def _lock_pid(repo: Path) -> int:
    return int(json.loads((repo / ".code-intel" / "sessions" / "session.lock").read_text(encoding="utf-8"))["pid"])


class Recorder(DemoAgent):
    """The demo's agent, keeping every answer and the checkpoint each accepted submit left on disk."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.refusal_shown = True
        self.answers: list[dict[str, Any]] = []
        self.checkpoints: list[tuple[dict[str, Any], dict[str, Any]]] = []

    async def submit(self, payload: dict[str, Any]) -> dict[str, Any]:
        resp = await super().submit(payload)
        self.answers.append(resp)
        if resp.get("success") and resp.get("phase") != "SESSION_COMPLETE":
            self.checkpoints.append((resp, _checkpoint(self.repo)))
        return resp


def test_every_instruction_carries_the_compaction_protocol_and_each_checkpoint_the_memo_layout(sample: Path) -> None:
    async def scenario() -> tuple[dict[str, Any], dict[str, Any], Recorder]:
        async with connect(sample) as call:
            agent = Recorder(call, sample, Quiet(), query=QUERY)
            start = await call("start_session", {"intent": "IMPLEMENT", "query": QUERY, "flags": ["--fast"]})
            refused = await agent.submit({"documents_reviewed": []})  # no summary: refused
            await follow(agent, start)
            return start, refused, agent

    start, refused, agent = anyio.run(scenario)
    answers = [start, *agent.answers]
    assert answers[-1]["phase"] == "SESSION_COMPLETE", answers[-1]
    assert refused["error"] == "payload_mismatch" and COMPACTION_PROTOCOL in refused["instruction"]
    for resp in answers[:-1]:
        assert COMPACTION_PROTOCOL in resp["instruction"], resp
        assert "compaction_count" in resp["expected_payload"]
    assert COMPACTION_PROTOCOL not in answers[-1]["instruction"]  # nothing more to submit
    phases = {resp.get("phase") or resp["current_phase"] for resp in answers}
    assert {"DOCUMENT_RESEARCH", "QUERY_FRAME", "READY", "POST_IMPL_VERIFY", "PRE_COMMIT", "MERGE"} <= phases

    for resp, doc in agent.checkpoints:
        state = doc["orchestrator_state"]
        assert state["phase_state"]["current_phase"] == resp["phase"] and state["phase_state"]["step"] == resp["step"]
        assert set(state["counters"]) == {"verification_failure_count", "intervention_count", "quality_revert_count"}
        assert state["compaction_count"] == resp["compaction_count"] and state["branch_policy"] is None
        assert {"no_verify", "no_quality", "fast", "quick", "no_doc", "no_intervention"} <= set(state["flags"])
        assert all(set(entry) == {"summary"} for entry in doc["phase_payloads"].values())
    planned = [doc for resp, doc in agent.checkpoints if resp["phase"] == "READY" and resp["step"] == 13][0]
    tasks = planned["orchestrator_state"]["tasks"]
    assert [t["id"] for t in tasks] == ["task_1", "task_2"] and tasks[0]["status"] == "pending"
    assert all(t["failure_count"] == 0 for t in tasks)  # added by the server, not sent by the agent
    assert "step_12_READY_PLANNING" in planned["phase_payloads"]


def test_a_killed_server_resumes_from_the_memo_layout_and_a_stale_count_brings_the_summaries(sample: Path) -> None:
    async def first_life() -> dict[str, Any]:
        async with connect(sample) as call:
            agent = Recorder(call, sample, Quiet(), query=QUERY)
            resp = await call("start_session", {"intent": "IMPLEMENT", "query": QUERY,
                                                "flags": ["--fast", "--no-doc-research"]})
            resp = await follow(agent, resp, stop_at="READY")  # planning
            agent.compaction_count = 1  # a compaction before planning: the server adopts 1
            resp = await agent.submit(await DemoAgent.HANDLERS["READY"](agent, resp))
            assert resp["success"] and resp["step"] == 13 and resp["compaction_count"] == 1, resp
            assert set(resp["phase_summaries"]) == {"step_04_QUERY_FRAME"}
            os.kill(_lock_pid(sample), signal.SIGKILL)  # no goodbye: only the checkpoint is left
            time.sleep(0.2)
            return resp

    async def second_life() -> tuple[dict[str, Any], dict[str, Any]]:
        async with connect(sample) as call:
            status = await call("get_session_status", {})
            agent = Recorder(call, sample, Quiet(), query=QUERY)  # the -r skill's fresh agent starts at 0
            resp = await agent.submit(await DemoAgent.HANDLERS["READY"](agent, status))
            return status, resp

    before = anyio.run(first_life)
    doc = _checkpoint(sample)
    state = doc["orchestrator_state"]
    assert state["phase_state"] == {"current_phase": "READY", "step": 13, "ready_substep": "implementation"}
    assert state["compaction_count"] == 1 and [t["id"] for t in state["tasks"]] == ["task_1", "task_2"]
    assert set(doc["phase_payloads"]) == {"step_04_QUERY_FRAME", "step_12_READY_PLANNING"}

    status, resp = anyio.run(second_life)
    assert status["phase"] == "READY" and status["step"] == 13 and status["compaction_count"] == 1
    assert status["task_progress"] == {"total": 2, "completed": 0, "pending": 2, "current": "task_1"}
    assert resp["success"] and resp["compaction_count"] == 0, resp  # the client's value is adopted
    assert resp["phase_summaries"] == {"step_04_QUERY_FRAME": before["phase_summaries"]["step_04_QUERY_FRAME"],
                                       "step_12_READY_PLANNING": "Two tasks: implement power(), test it."}
