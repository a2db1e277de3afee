"""READY task orchestration, verification loop, safety valves, commit gate and merge."""

from __future__ import annotations

TASKS = [
    {"id": "task_1", "description": "Add subtract", "status": "pending",
     "checklist": [{"item": "subtract() in src/app.py", "status": "pending"}]},
    {"id": "task_2", "description": "Test subtract", "status": "pending",
     "checklist": [{"item": "test for subtract", "status": "pending"}]},
]


def _ready(driver, flags=None):
    return driver.run(driver.start(flags=flags or []), until="READY")


def _plan(driver, tasks=TASKS):
    return driver.submit({"tasks": tasks, "tools_used": [], "summary": "two tasks"})


# ---------------------------------------------------------- task orchestration
def test_register_tasks(driver, fake_git):
    _ready(driver)
    resp = _plan(driver)
    assert resp["phase"] == "READY" and resp["step"] == 13
    assert resp["next_task"]["id"] == "task_1" and resp["progress"]["total"] == 2
    assert resp["task_branch"].startswith("llm_task_")
    again = _plan(driver)  # idempotent: the same list again changes nothing, no second branch
    assert again["step"] == 13 and again["progress"] == resp["progress"]
    assert len(fake_git.called("create_task_branch")) == 1


def test_empty_task_list_is_refused(driver):
    _ready(driver)
    bad = driver.submit({"tasks": [], "tools_used": [], "summary": "none"})
    assert bad["error"] == "task_validation_failed" and bad["step"] == 12


def test_complete_task_in_order(driver):
    _ready(driver)
    _plan(driver)
    first = driver.submit(driver.implementation("task_1"))
    assert first["step"] == 13 and first["next_task"]["id"] == "task_2"
    assert first["progress"]["completed"] == 1
    second = driver.submit(driver.implementation("task_2"))
    assert second["step"] == 14 and second["all_complete"] is True


def test_reject_wrong_order(driver):
    _ready(driver)
    _plan(driver)
    bad = driver.submit(driver.implementation("task_2"))
    assert bad["error"] == "task_validation_failed" and "out of order" in bad["message"]
    assert bad["current_phase"] == "READY" and bad["step"] == 13


def test_implementation_before_planning_is_refused(driver):
    _ready(driver)
    bad = driver.submit({"task_id": "task_1", "checklist": [], "tools_used": [], "summary": "x"})
    assert bad["error"] == "task_validation_failed" and bad["step"] == 12


def test_block_incomplete_implementation(driver):
    _ready(driver)
    _plan(driver)
    bad = driver.submit({"summary": "all done, trust me"})
    assert bad["error"] == "task_validation_failed" and "task_1" in bad["message"]
    assert driver.status()["step"] == 13


def test_allow_complete_implementation(driver):
    _ready(driver)
    _plan(driver)
    driver.submit(driver.implementation("task_1"))
    driver.submit(driver.implementation("task_2"))
    assert driver.submit({"summary": "done"})["phase"] == "POST_IMPL_VERIFY"


def test_implementation_requires_check_write_target_in_this_task(driver):
    _ready(driver)
    _plan(driver)
    driver.submit(driver.implementation("task_1"))
    # a check_write_target made for task_1 does not count for task_2
    payload = {"task_id": "task_2", "tools_used": ["check_write_target"], "summary": "x",
               "checklist": [{"item": "test for subtract", "status": "done", "evidence": "src/app.py:1-3"}]}
    bad = driver.submit(payload)
    assert bad["error"] == "payload_mismatch" and "check_write_target" in bad["message"]
    missing = driver.submit(payload | {"tools_used": ["Edit"]})
    assert missing["error"] == "payload_mismatch" and "requires" in missing["message"]


def test_a_task_whose_items_are_all_skipped_needs_no_check_write_target(driver):
    _ready(driver)
    _plan(driver)
    driver.submit(driver.implementation("task_1"))
    skipped = {"task_id": "task_2", "tools_used": [], "summary": "already covered",
               "checklist": [{"item": "test for subtract", "status": "skipped",
                              "reason": "tests/test_app.py already tests subtract"}]}
    assert driver.submit(skipped)["step"] == 14  # nothing was written, so nothing had to be checked
    assert driver.submit({"summary": "done"})["phase"] == "POST_IMPL_VERIFY"


def test_evidence_problem_is_task_validation_failed(driver):
    _ready(driver)
    _plan(driver)
    payload = driver.implementation("task_1")
    payload["checklist"][0]["evidence"] = "src/missing.py:1"
    bad = driver.submit(payload)
    assert bad["error"] == "task_validation_failed"


def test_status_reports_task_progress(driver):
    _ready(driver)
    assert driver.status()["task_progress"] == {"total": 0, "completed": 0, "pending": 0, "current": None}
    _plan(driver)
    assert driver.status()["task_progress"] == {"total": 2, "completed": 0, "pending": 2, "current": "task_1"}


# ---------------------------------------------------------- POST_IMPL_VERIFY
def _verify(driver, flags=None):
    return driver.run(driver.start(flags=flags or []), until="POST_IMPL_VERIFY")


def _fail(driver, failed_tasks=None):
    payload = {"verifier_used": "backend.md", "passed": False, "details": "test_x failed", "tools_used": [],
               "summary": "failed"}
    if failed_tasks is not None:
        payload["failed_tasks"] = failed_tasks
    return driver.submit(payload)


def test_passed_to_pre_commit(driver):
    resp = _verify(driver)
    assert driver.submit(driver.payload(resp))["phase"] == "PRE_COMMIT"


def test_passed_quick_to_complete(driver):
    resp = _verify(driver, ["--quick"])
    assert driver.submit(driver.payload(resp))["phase"] == "SESSION_COMPLETE"


def test_failed_to_ready(driver, engine):
    _verify(driver)
    resp = _fail(driver, ["task_1"])
    assert resp["phase"] == "READY" and resp["step"] == 12 and resp["failure_counts"] == {"task_1": 1}
    assert engine.live.state.counters.verification_failure_count == 1


def test_unknown_failed_task_is_refused(driver):
    _verify(driver)
    bad = _fail(driver, ["task_99"])
    assert bad["error"] == "task_validation_failed" and bad["current_phase"] == "POST_IMPL_VERIFY"


def test_failure_without_failed_tasks_counts_the_latest_round(driver):
    _verify(driver)
    resp = _fail(driver)
    assert resp["failure_counts"] == {"task_1": 1}


def _fail_three_times(driver, flags=None):
    resp = _verify(driver, flags)
    for attempt in range(3):
        resp = _fail(driver, None)
        if attempt < 2:
            assert resp["phase"] == "READY"
            resp = driver.run(resp, until="POST_IMPL_VERIFY")
    return resp


def test_intervention_after_3(driver):
    resp = _fail_three_times(driver)
    assert resp["phase"] == "VERIFY_INTERVENTION" and resp["step"] == 16


# --------------------------------------------------------- VERIFY_INTERVENTION
def test_task_failure_count_triggers_intervention(driver, engine):
    _fail_three_times(driver)
    assert engine.live.state.board.max_failure_count() >= 3


def test_intervention_resets_failure_count(driver, engine):
    resp = _fail_three_times(driver)
    nxt = driver.submit(driver.payload(resp))
    assert nxt["phase"] == "READY" and nxt["step"] == 12
    assert engine.live.state.board.max_failure_count() == 0
    assert engine.live.state.counters.intervention_count == 1


def test_no_intervention_flag_skips(driver):
    resp = _fail_three_times(driver, ["-ni"])
    assert resp["phase"] == "READY" and resp["step"] == 12


def test_quick_skips_intervention(driver):
    resp = _fail_three_times(driver, ["--quick"])
    assert resp["phase"] == "READY"


def test_user_escalation_after_2_interventions(driver, engine):
    resp = _fail_three_times(driver)
    for round_ in range(2):
        assert resp["phase"] == "VERIFY_INTERVENTION"
        assert "user_escalation" not in resp["instruction"], round_
        resp = driver.submit(driver.payload(resp))
        driver.verify_results = [False, False, False]
        resp = driver.run(resp, until="VERIFY_INTERVENTION")
    assert engine.live.state.counters.intervention_count == 2
    assert ".code-intel/user_escalation.md" in resp["instruction"]
    assert "user_escalation" in resp["expected_payload"]["prompt_used"]
    nxt = driver.submit(driver.payload(resp))
    assert nxt["phase"] == "READY" and "user escalation" in nxt["instruction"]


# ------------------------------------------------------------- safety valves
def test_intervention_count_increments(driver, engine):
    resp = _fail_three_times(driver)
    driver.submit(driver.payload(resp))
    assert engine.live.state.counters.intervention_count == 1


def test_quality_revert_count_increments(driver, engine):
    driver.quality_issues = [["naming"], ["naming again"]]
    resp = driver.run(driver.start(), until="QUALITY_REVIEW")
    resp = driver.submit(driver.payload(resp))
    assert resp["phase"] == "READY" and engine.live.state.counters.quality_revert_count == 1
    resp = driver.run(resp, until="QUALITY_REVIEW")
    resp = driver.submit(driver.payload(resp))
    assert engine.live.state.counters.quality_revert_count == 2


def test_quality_revert_forced_completion(driver, engine):
    driver.quality_issues = [["a"], ["b"], ["c"]]
    resp = driver.run(driver.start(), until="QUALITY_REVIEW")
    for _ in range(2):
        resp = driver.submit(driver.payload(resp))
        assert resp["phase"] == "READY"
        resp = driver.run(resp, until="QUALITY_REVIEW")
    resp = driver.submit(driver.payload(resp))
    assert resp["phase"] == "MERGE" and resp["forced_completion"] is True
    assert resp["warning"].startswith("Completing with unresolved quality issues")
    assert driver.submit(driver.payload(resp))["phase"] == "SESSION_COMPLETE"


def test_forced_completion_is_still_told_after_a_restart_and_at_the_end(driver, fake_git, new_engine, new_driver):
    """v1.11's forced_completion warning came once, on the QUALITY_REVIEW answer: an agent that lost it to a
    compaction (or a restart) merged without telling the user which issues were left open."""
    driver.quality_issues = [["a"], ["b"], ["naming of power()"]]
    resp = driver.run(driver.start(), until="QUALITY_REVIEW")
    for _ in range(2):
        resp = driver.run(driver.submit(driver.payload(resp)), until="QUALITY_REVIEW")
    assert driver.submit(driver.payload(resp))["phase"] == "MERGE"
    driver.engine.close()  # the server restarts; the agent recovers with get_session_status
    again = new_driver(new_engine(fake_git), fake_git)
    status = again.status()
    assert status["phase"] == "MERGE" and status["forced_completion"] is True
    assert status["warning"] == "Completing with unresolved quality issues: naming of power()"
    assert "naming of power()" in status["instruction"] and "tell the user" in status["instruction"]
    done = again.submit(again.payload(status))
    assert done["phase"] == "SESSION_COMPLETE" and done["forced_completion"] is True
    assert "naming of power()" in done["warning"] and "naming of power()" in done["instruction"]


def test_a_quality_review_without_issues_carries_no_warning(driver):
    resp = driver.run(driver.start(), until="MERGE")
    assert "warning" not in resp and "forced_completion" not in driver.status()
    assert "forced_completion" not in driver.submit(driver.payload(resp))


def test_clean_resets_session_state(driver, engine, fake_git, app_project):
    _fail_three_times(driver)
    report = engine.cleanup_stale_branches()
    assert report["session_reset"] and report["checkpoints_deleted"]
    assert fake_git.called("cleanup") == [None]
    assert engine.live is None
    assert not (app_project.state_dir / "sessions" / "session.lock").exists()
    resp = driver.start()
    assert resp["phase"] == "DOCUMENT_RESEARCH" and engine.live.state.counters.model_dump() == {
        "verification_failure_count": 0, "intervention_count": 0, "quality_revert_count": 0}


# ------------------------------------------------------------ commit gate
def _pre_commit(driver):
    return driver.run(driver.start(), until="PRE_COMMIT")


def test_pre_commit_requires_review_changes_called(driver):
    resp = _pre_commit(driver)
    payload = {"review_prompt_used": "g.md", "reviewed_files": ["src/app.py"], "commit_message": "m",
               "tools_used": ["review_changes"], "summary": "s"}
    bad = driver.submit(payload)
    assert bad["error"] == "payload_mismatch" and "review_changes" in bad["message"]
    assert resp["phase"] == "PRE_COMMIT"


def test_pre_commit_refuses_files_outside_write_rules(driver, fake_git, engine):
    _pre_commit(driver)
    fake_git.changed.append("README.md.bak")
    review = engine.review_changes()
    assert review["outside_write_rules"] == ["README.md.bak"]
    driver.tool("review_changes")
    payload = {"review_prompt_used": "g.md", "reviewed_files": ["src/app.py", "README.md.bak"], "commit_message": "m",
               "tools_used": ["review_changes"], "summary": "s"}
    bad = driver.submit(payload)
    assert bad["error"] == "payload_mismatch" and "README.md.bak" in bad["message"]
    ok = driver.submit(payload | {"reviewed_files": ["src/app.py"], "discarded_files": ["README.md.bak"]})
    assert ok["phase"] == "QUALITY_REVIEW"
    assert fake_git.called("commit")[-1] == (["src/app.py"], ["README.md.bak"], "m")


def test_pre_commit_refuses_unaccounted_changes(driver, fake_git):
    _pre_commit(driver)
    driver.engine.review_changes()
    driver.tool("review_changes")
    bad = driver.submit({"review_prompt_used": "g.md", "reviewed_files": [], "commit_message": "m",
                         "tools_used": ["review_changes"], "summary": "s"})
    assert bad["error"] == "payload_mismatch" and "src/app.py" in bad["message"]


def test_pre_commit_refuses_paths_outside_project(driver):
    _pre_commit(driver)
    driver.tool("review_changes")
    bad = driver.submit({"review_prompt_used": "g.md", "reviewed_files": ["../../etc/passwd"], "commit_message": "m",
                         "tools_used": ["review_changes"], "summary": "s"})
    assert bad["error"] == "path_outside_project" and bad["current_phase"] == "PRE_COMMIT"


def test_merge_git_error_stays_at_merge(driver, fake_git):
    resp = driver.run(driver.start(), until="MERGE")
    fake_git.fail["merge"] = "merge conflict in src/app.py"
    bad = driver.submit(driver.payload(resp))
    assert bad["error"] == "git_error" and bad["current_phase"] == "MERGE" and bad["instruction"]
    del fake_git.fail["merge"]
    assert driver.submit(driver.payload(resp))["phase"] == "SESSION_COMPLETE"


def test_submit_after_completion_is_refused(driver, engine):
    driver.run(driver.start(flags=["--quick"]))
    bad = driver.submit({"summary": "again"})
    assert bad["error"] == "no_active_session" and "complete" in bad["hint"]
    assert engine.outcome_context()["phase"] == "SESSION_COMPLETE"


# --------------------------------------------------------- write control
def test_check_write_target_only_in_ready(driver, engine):
    assert engine.check_write_target("src/app.py")["allowed"] is False  # no session
    resp = driver.start()
    decision = engine.check_write_target("src/app.py")
    assert decision["allowed"] is False and decision["phase"] == "DOCUMENT_RESEARCH"
    driver.run(resp, until="READY")
    assert engine.check_write_target("src/app.py")["allowed"] is True
    assert engine.check_write_target("src/other.py")["allowed"] is True  # new file beside an explored one
    assert engine.check_write_target("README.md")["allowed"] is True  # markup
    assert engine.check_write_target("setup.cfg")["allowed"] is False


def test_add_explored_files(driver, engine):
    import pytest

    from code_intel.core.errors import InvalidArgument, PathOutsideProject

    driver.start()
    with pytest.raises(InvalidArgument) as refused:  # nothing in the session read or showed it
        engine.add_explored_files(["src/app.py", "src/new_module.py"])
    assert "never read or was shown: src/app.py" in refused.value.message
    assert "nothing was added" in refused.value.message and "Read tool" in refused.value.hint
    assert engine.live is not None and engine.live.state.explored_files == []

    driver.read("src/app.py")
    result = engine.add_explored_files(["src/app.py", "./src/app.py", "src/new_module.py", "src"])
    assert result["added"] == ["src/app.py", "src/new_module.py", "src"]  # a file to create and a folder need no reading
    with pytest.raises(PathOutsideProject):
        engine.add_explored_files(["../outside.py"])


def test_a_file_shown_by_a_server_tool_counts_as_read(driver, engine):
    driver.start()
    driver.tool("get_symbols", path="src/app.py", shown=["src/app.py"])
    assert engine.add_explored_files(["src/app.py"])["added"] == ["src/app.py"]


# ---------------------------------------------------------- skipped checklist items
SKIP = {"status": "skipped", "reason": "the request asks for the function only"}


def test_a_skipped_item_is_put_before_the_reviewer_and_the_final_report(driver):
    _ready(driver)
    _plan(driver)
    driver.submit(driver.implementation("task_1"))
    driver.tool("check_write_target", file_path="tests/test_app.py")
    driver.submit({"task_id": "task_2", "checklist": [{"item": "test for subtract", **SKIP}],
                   "tools_used": ["check_write_target"], "summary": "no test"})
    review = driver.run(driver.submit({"summary": "done"}), until="QUALITY_REVIEW")
    assert review["skipped_items"] == [{"task_id": "task_2", "item": "test for subtract",
                                        "reason": "the request asks for the function only"}]
    assert review["instruction"].startswith(
        "Checklist items reported skipped: task_2: 'test for subtract' (the request asks for the function only). "
        "Judge each skip")
    assert driver.status()["skipped_items"] == review["skipped_items"]  # after a compaction too
    merge = driver.submit(driver.payload(review))
    assert merge["phase"] == "MERGE" and "skipped_items" not in merge
    done = driver.submit(driver.payload(merge))
    assert done["phase"] == "SESSION_COMPLETE" and done["skipped_items"] == review["skipped_items"]
    assert "Tell the user which were skipped and why" in done["instruction"]


def test_a_session_that_skipped_everything_says_nothing_was_implemented(driver):
    _ready(driver, flags=["--quick"])
    _plan(driver, TASKS[:1])
    driver.tool("check_write_target", file_path="src/app.py")
    driver.submit({"task_id": "task_1", "checklist": [{"item": "subtract() in src/app.py", **SKIP}],
                   "tools_used": ["check_write_target"], "summary": "nothing to do"})
    done = driver.run(driver.submit({"summary": "done"}))
    assert done["phase"] == "SESSION_COMPLETE"
    assert done["instruction"].startswith("Nothing was implemented: every checklist item was reported skipped")
    assert "do not report the request as done" in done["instruction"]


def test_without_skips_nothing_is_added(driver):
    done = driver.run(driver.start())
    assert done["phase"] == "SESSION_COMPLETE" and "skipped_items" not in done and "verification_note" not in done
    assert not done["instruction"].startswith("Checklist items")


def test_long_lists_in_an_instruction_name_ten_and_count_the_rest():
    from code_intel.core.limits import first_of

    assert first_of([f"t{i}" for i in range(12)]) == "t0, t1, t2, t3, t4, t5, t6, t7, t8, t9 and 2 more"
    assert first_of(["a", "b"], "; ", "; and {} more in skipped_items") == "a; b"
