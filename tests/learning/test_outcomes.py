from __future__ import annotations

import json

import pytest

from code_intel.core.errors import InvalidArgument
from code_intel.core.project import ProjectRoot
from code_intel.learning.outcomes import OutcomeLog

SESSION = {"session_id": "s1", "intent": "IMPLEMENT", "query": "add a login form", "explored_files": ["a.py"]}


def _decision(phase: str, accepted: bool, error: str | None) -> str:
    return json.dumps({"ts": "2026-01-01T00:00:00+00:00", "session_id": "s1", "phase": phase, "step": 5,
                       "accepted": accepted, "error": error, "message": "m"})


def test_record_appends_one_line_with_session_fields(project: ProjectRoot) -> None:
    outcomes = OutcomeLog(project)
    entry = outcomes.record("failure", "ready", {"root_cause": "missed a caller"}, SESSION)

    assert entry["success"] is True
    assert entry["phase_at_outcome"] == "READY"
    lines = (project.state_dir / "logs" / "outcomes.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1
    stored = json.loads(lines[0])
    assert stored["session_id"] == "s1" and stored["intent"] == "IMPLEMENT" and stored["query"] == "add a login form"
    assert stored["outcome"] == "failure" and stored["analysis"] == {"root_cause": "missed a caller"}
    assert stored["ts"].endswith("+00:00")
    assert "success" not in stored

    assert outcomes.record("success", None, {}, {})["phase_at_outcome"] is None  # no session, no phase given
    assert len((project.state_dir / "logs" / "outcomes.jsonl").read_text(encoding="utf-8").splitlines()) == 2


@pytest.mark.parametrize(("given", "recorded"), [(None, "VERIFICATION"), ("", "VERIFICATION"), ("ready", "READY")])
def test_without_a_phase_the_sessions_own_is_recorded(project: ProjectRoot, given: str | None, recorded: str) -> None:
    """record_outcome without phase_at_outcome used to leave it empty, so the stats put it under '(none)'."""
    entry = OutcomeLog(project).record("failure", given, {}, {**SESSION, "phase": "VERIFICATION"})
    assert entry["phase_at_outcome"] == recorded
    assert OutcomeLog(project).stats()["outcomes"]["by_phase"] == {recorded: {"failure": 1}}


@pytest.mark.parametrize(
    ("outcome", "phase", "analysis", "needle"),
    [
        ("maybe", None, {}, "outcome 'maybe'"),
        ("success", "LUNCH", {}, "phase_at_outcome 'LUNCH'"),
        ("success", None, ["not", "a", "dict"], "analysis must be an object"),
    ],
)
def test_record_refuses_bad_input(project: ProjectRoot, outcome: str, phase: str | None, analysis: object,
                                  needle: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        OutcomeLog(project).record(outcome, phase, analysis, SESSION)  # type: ignore[arg-type]
    assert needle in caught.value.message
    assert caught.value.hint
    assert not (project.state_dir / "logs" / "outcomes.jsonl").exists()


def test_stats_on_empty_project(project: ProjectRoot) -> None:
    stats = OutcomeLog(project).stats()
    assert stats["outcomes"] == {"total": 0, "by_outcome": {}, "by_phase": {}, "success_rate": None}
    assert stats["decisions"] == {"total": 0, "accepted": 0, "refused": 0}
    assert stats["refusals"] == {"by_phase": {}, "by_error": {}}


def test_stats_counts_outcomes_and_refusals(project: ProjectRoot) -> None:
    outcomes = OutcomeLog(project)
    outcomes.record("success", "MERGE", {}, SESSION)
    outcomes.record("success", "SESSION_COMPLETE", {}, SESSION)
    outcomes.record("failure", "READY", {}, SESSION)
    outcomes.record("failure", None, {}, SESSION)
    decisions = [
        _decision("EXPLORATION", True, None),
        _decision("EXPLORATION", False, "payload_mismatch"),
        _decision("EXPLORATION", False, "payload_mismatch"),
        _decision("READY", False, "task_validation_failed"),
        _decision("READY", True, None),
    ]
    (project.state_dir / "logs" / "decisions.jsonl").write_text("\n".join(decisions) + "\n", encoding="utf-8")

    stats = outcomes.stats()

    assert stats["outcomes"]["total"] == 4
    assert stats["outcomes"]["by_outcome"] == {"success": 2, "failure": 2}
    assert stats["outcomes"]["by_phase"] == {
        "(none)": {"failure": 1}, "MERGE": {"success": 1}, "READY": {"failure": 1}, "SESSION_COMPLETE": {"success": 1},
    }
    assert stats["outcomes"]["success_rate"] == 0.5
    assert stats["decisions"] == {"total": 5, "accepted": 2, "refused": 3}
    assert stats["refusals"]["by_phase"] == {
        "EXPLORATION": {"payload_mismatch": 2}, "READY": {"task_validation_failed": 1},
    }
    assert stats["refusals"]["by_error"] == {"payload_mismatch": 2, "task_validation_failed": 1}


def test_stats_tolerates_a_truncated_last_line(project: ProjectRoot) -> None:
    outcomes = OutcomeLog(project)
    outcomes.record("success", "MERGE", {}, SESSION)
    with outcomes.outcomes_file.open("a", encoding="utf-8") as handle:
        handle.write('{"ts": "2026-01-01", "outcome": "fail')  # a crash mid-append
    outcomes.decisions_file.write_text(_decision("Q1", False, "payload_mismatch") + "\n" + '{"phase": "Q', encoding="utf-8")

    stats = outcomes.stats()

    assert stats["outcomes"]["total"] == 1
    assert stats["decisions"]["refused"] == 1
    assert stats["skipped_lines"] == {"outcomes.jsonl": 1, "decisions.jsonl": 1}
    # the next record starts on its own line instead of joining the damaged one
    outcomes.record("failure", "READY", {}, SESSION)
    after = OutcomeLog(project).stats()
    assert after["outcomes"]["by_outcome"] == {"success": 1, "failure": 1}
    assert after["skipped_lines"]["outcomes.jsonl"] == 1
