"""SessionStart: what the model is told after a compaction or a resume."""

from __future__ import annotations

import json

from code_intel.core.project import ProjectRoot
from code_intel.hooks.session_start import session_context
from tests.workflow.conftest import Driver


def test_nothing_without_a_session(app_project: ProjectRoot) -> None:
    assert session_context({"source": "compact"}, app_project) is None


def test_compaction_gives_phase_instruction_payload_and_the_next_count(driver: Driver, app_project: ProjectRoot) -> None:
    resp = driver.run(driver.start(), until="EXPLORATION")
    text = session_context({"hook_event_name": "SessionStart", "source": "compact"}, app_project)
    assert text is not None
    assert f"session {resp['session_id']} is active, in EXPLORATION (step 5)" in text
    assert resp["instruction"].strip()[:200] in text
    assert json.dumps(resp["expected_payload"], ensure_ascii=False) in text
    assert "send compaction_count 1 with your next submit_phase" in text
    assert "get_session_status" in text and "select:mcp__code-intel__get_session_status" in text


def test_resume_echoes_the_current_count(driver: Driver, app_project: ProjectRoot) -> None:
    resp = driver.run(driver.start(), until="QUERY_FRAME")
    driver.compaction_count = 2
    driver.submit(driver.payload(resp))  # the server adopts the client's count
    text = session_context({"source": "resume"}, app_project)
    assert text is not None and "Echo compaction_count 2" in text and "EXPLORATION (step 5)" in text


def test_ready_tells_the_next_task(driver: Driver, app_project: ProjectRoot) -> None:
    resp = driver.run(driver.start(), until="READY")
    resp = driver.submit(driver.payload(resp))
    text = session_context({"source": "compact"}, app_project)
    assert text is not None and "READY (step 13)" in text and "Next task: task_1" in text


def test_unreadable_checkpoint_is_reported_not_hidden(driver: Driver, app_project: ProjectRoot) -> None:
    resp = driver.start()
    (app_project.state_dir / "sessions" / f"{resp['session_id']}.json").write_text("[]", encoding="utf-8")
    text = session_context({"source": "compact"}, app_project)
    assert text is not None and "cannot be read" in text and "cleanup_stale_branches" in text
