"""DecisionLog: JSONL lines OutcomeLog can read."""

from __future__ import annotations

from code_intel.learning.decisions import DecisionLog
from code_intel.learning.outcomes import OutcomeLog


def test_append_and_read(project):
    log = DecisionLog(project)
    log.append(session_id="s", phase="Q1", step=6, accepted=True, payload={"summary": "x", "reason": "r"},
               next_phase="Q2", next_step=8)
    log.append(session_id="s", phase="Q2", step=8, accepted=False, payload="text", error="payload_mismatch",
               message="m")
    first, second = log.read()
    assert first["payload_fields"] == ["reason", "summary"] and first["next_phase"] == "Q2"
    assert second["payload_fields"] == "str" and second["error"] == "payload_mismatch"
    assert "summary" not in second


def test_outcome_stats_count_refusals(project):
    log = DecisionLog(project)
    log.append(session_id="s", phase="EXPLORATION", step=5, accepted=False, payload={}, error="payload_mismatch", message="m")
    stats = OutcomeLog(project).stats()
    assert stats["refusals"]["by_phase"] == {"EXPLORATION": {"payload_mismatch": 1}}
