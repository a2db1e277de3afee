"""A whole session through the stdio client where the agent claims success on a broken change: the
server runs the sample's tests itself, refuses the claim naming the failing test, and sends the
session back to READY with that test in the revert instruction. Also: run_checks sends progress."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from code_intel.cli.demo import DemoAgent, Printer, connect, follow

pytestmark = pytest.mark.slow

REQUEST = "Add a power(base, exponent) function to calc/operations.py, next to add and multiply, with a unit test."
FAILING = "tests.test_operations.OperationsTest.test_power"


class OverconfidentAgent(DemoAgent):
    """Writes power() wrong, then says verification passed without looking."""

    async def implement(self, task_id: str) -> dict[str, Any]:
        payload = await super().implement(task_id)
        ops = self.repo / "calc" / "operations.py"
        ops.write_text(ops.read_text(encoding="utf-8").replace("return base**exponent", "return base * exponent"),
                       encoding="utf-8")
        return payload

    async def post_impl_verify(self, resp: dict[str, Any]) -> dict[str, Any]:
        return {"verifier_used": ".code-intel/verifiers/backend.md", "passed": True, "details": "all good",
                "tools_used": ["Bash"], "summary": "Tests pass (not actually run)."}


def test_claimed_success_on_a_broken_change_goes_back_to_ready(sample: Path) -> None:
    async def scenario() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        async with connect(sample) as call:
            agent = OverconfidentAgent(call, sample, Printer())
            agent.refusal_shown = True
            resp = await call("start_session", {"intent": "IMPLEMENT", "query": REQUEST, "flags": ["--no-doc-research"]})
            resp = await follow(agent, resp, stop_at="POST_IMPL_VERIFY")
            assert resp["phase"] == "POST_IMPL_VERIFY", resp
            claimed = await agent.submit(await agent.post_impl_verify(resp))
            admitted = await agent.submit({"verifier_used": "server checks", "passed": False,
                                           "details": "the server's run failed", "tools_used": [], "summary": "failed"})
            status = await call("get_session_status", {})
            return claimed, admitted, status

    claimed, admitted, status = anyio.run(scenario)
    assert claimed["success"] is False and claimed["error"] == "payload_mismatch", claimed
    assert "unittest failed" in claimed["message"] and FAILING in claimed["hint"]
    assert claimed["current_phase"] == "POST_IMPL_VERIFY"
    assert admitted["success"] and admitted["phase"] == "READY" and admitted["step"] == 12, admitted
    assert FAILING in admitted["instruction"]
    assert admitted["failure_counts"] == {"task_1": 1} or admitted["failure_counts"].get("task_1") == 1
    assert status["counters"]["verification_failure_count"] == 1


def test_run_checks_reports_progress_for_a_long_command(sample: Path) -> None:
    config_file = sample / ".code-intel" / "config.json"
    config = json.loads(config_file.read_text(encoding="utf-8"))
    config["verify"] = {"commands": [{"name": "slow", "run": [sys.executable, "-c", "import time; time.sleep(6.5)"],
                                      "when": [], "timeout_s": 60}]}
    config_file.write_text(json.dumps(config), encoding="utf-8")

    async def scenario() -> tuple[dict[str, Any], list[str]]:
        from mcp import Client

        from code_intel.cli.demo import server_params

        messages: list[str] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            messages.append(message or "")

        async with Client(server_params(sample), read_timeout_seconds=120) as client:
            await client.call_tool("start_session", {"intent": "IMPLEMENT", "query": REQUEST, "flags": ["--only-verify"]})
            result = await client.call_tool("run_checks", {}, progress_callback=on_progress)
            return dict(result.structured_content or {}), messages

    report, messages = anyio.run(scenario)
    assert report["success"] and report["passed"] is True, report
    assert any("slow: running for" in m for m in messages), messages
