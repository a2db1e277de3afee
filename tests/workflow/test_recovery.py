"""Recovery after a restart, and start_session over an existing session."""

from __future__ import annotations


def test_get_session_status_restores_after_restart(driver, fake_git, new_engine, new_driver):
    driver.answers["Q1"] = True
    resp = driver.run(driver.start(), until="READY")
    resp = driver.submit(driver.payload(resp))
    assert resp["step"] == 13
    driver.engine.close()  # the server process ends

    again = new_driver(new_engine(fake_git), fake_git)
    status = again.status()
    assert status["success"] and status["session_id"] == resp["session_id"]
    assert status["phase"] == "READY" and status["step"] == 13
    assert status["completed_steps"] == [1, 3, 4, 5, 6, 7, 8, 10, 12]
    assert status["task_progress"] == {"total": 1, "completed": 0, "pending": 1, "current": "task_1"}
    assert status["expected_payload"] and status["instruction"].startswith("Next task: task_1")
    assert "step_05_EXPLORATION" in status["phase_summaries"]
    assert again.run(status)["phase"] == "SESSION_COMPLETE"


def test_submit_after_restart_restores_too(driver, fake_git, new_engine, new_driver):
    resp = driver.start()
    driver.engine.close()
    again = new_driver(new_engine(fake_git), fake_git)
    assert again.submit(again.payload(resp))["phase"] == "QUERY_FRAME"


def test_counters_are_not_reset_by_recovery(driver, fake_git, new_engine, new_driver):
    driver.verify_results = [False]
    resp = driver.run(driver.start(), until="POST_IMPL_VERIFY")
    driver.submit(driver.payload(resp))
    driver.engine.close()
    again = new_engine(fake_git)
    new_driver(again, fake_git).status()
    assert again.live.state.counters.verification_failure_count == 1
    assert again.live.state.board.tasks[0].failure_count == 1


def test_start_over_existing_session_in_memory_offers_recovery(driver):
    first = driver.run(driver.start(), until="EXPLORATION")
    resp = driver.start()
    assert resp["success"] is True and resp["recovery_available"] is True
    assert resp["session_id"] == first["session_id"] and resp["phase"] == "EXPLORATION" and resp["step"] == 5
    assert set(resp["choices"]) == {"resume", "discard"}
    assert "ask the user" in resp["instruction"].lower()
    # self-contained like every answer: what to call next and what to send it (get_session_status takes nothing)
    assert resp["call"] == "get_session_status" and resp["expected_payload"] == {}
    assert driver.status()["phase"] == "EXPLORATION"  # nothing changed


def test_start_after_restart_offers_recovery_then_discard(driver, fake_git, new_engine, new_driver):
    first = driver.run(driver.start(), until="Q1")
    driver.engine.close()
    engine = new_engine(fake_git)
    again = new_driver(engine, fake_git)
    resp = again.start()
    assert resp["recovery_available"] is True and resp["session_id"] == first["session_id"] and resp["step"] == 6
    engine.cleanup_stale_branches()  # the user chose discard
    fresh = again.start()
    assert fresh["success"] and "recovery_available" not in fresh and fresh["session_id"] != first["session_id"]


def test_outcome_context_of_active_and_completed_sessions(driver, engine):
    assert engine.outcome_context() == {}
    resp = driver.start(intent="QUESTION")
    assert engine.outcome_context()["session_id"] == resp["session_id"]
    driver.run(resp)
    ctx = engine.outcome_context()
    assert ctx["phase"] == "SESSION_COMPLETE" and ctx["explored_files"] == ["src/app.py"]
    assert ctx["query"].startswith("Add a subtract") and ctx["target_symbols"] == ["add"]


def test_check_write_target_after_restart_restores_too(driver, fake_git, new_engine, new_driver):
    """The server restarted in READY: the write check answers for the checkpoint's session (it is not 'no active
    session'), and the file it allows is kept for the commit."""
    driver.answers["Q1"] = True
    resp = driver.submit(driver.payload(driver.run(driver.start(), until="READY")))
    assert resp["step"] == 13
    driver.engine.close()
    again = new_engine(fake_git)
    decision = again.check_write_target("src/app.py")
    assert decision["allowed"] is True and decision["phase"] == "READY"
    assert "src/app.py" in again.live.state.allowed_writes
