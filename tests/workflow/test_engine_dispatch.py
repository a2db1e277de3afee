"""submit_phase dispatch, Q gates, branch intervention and start_session (v1.11 test plan)."""

from __future__ import annotations

import pytest

from code_intel.core.errors import InvalidFlag
from code_intel.workflow.flags import parse_flags


def _advance_to(driver, phase):
    return driver.run(driver.start(), until=phase)


# ------------------------------------------------------------- dispatch
def test_document_research_payload(driver):
    resp = driver.start()
    assert resp["phase"] == "DOCUMENT_RESEARCH" and resp["step"] == 3
    nxt = driver.submit(driver.payload(resp))
    assert nxt["phase"] == "QUERY_FRAME" and nxt["step"] == 4


def test_query_frame_payload(driver, engine):
    resp = _advance_to(driver, "QUERY_FRAME")
    nxt = driver.submit(driver.payload(resp))
    assert nxt["phase"] == "EXPLORATION"
    assert engine.outcome_context()["target_symbols"] == ["add"]


def test_exploration_payload(driver, engine):
    resp = _advance_to(driver, "EXPLORATION")
    nxt = driver.submit(driver.payload(resp))
    assert nxt["phase"] == "Q1" and nxt["step"] == 6
    assert engine.outcome_context()["explored_files"] == ["src/app.py"]


def test_payload_mismatch_returns_error(driver):
    resp = _advance_to(driver, "EXPLORATION")
    bad = driver.submit({"needs_more_information": True, "reason": "x", "summary": "s"})
    assert bad["success"] is False and bad["error"] == "payload_mismatch"
    assert bad["current_phase"] == "EXPLORATION" and bad["step"] == 5
    assert bad["instruction"] == resp["instruction"] and bad["expected_payload"] == resp["expected_payload"]
    assert bad["call"] == "submit_phase"
    assert "unknown field 'needs_more_information'" in bad["message"] and "missing field 'explored_files'" in bad["message"]
    assert driver.status()["phase"] == "EXPLORATION"  # the phase never moves on a refusal


def test_response_contains_expected_payload(driver):
    driver.answers = {"Q1": True, "Q2": True, "Q3": True}
    resp = driver.start()
    seen = []
    while resp["phase"] != "SESSION_COMPLETE":
        for key in ("session_id", "phase", "step", "instruction", "expected_payload", "call", "compaction_count"):
            assert key in resp, (resp["phase"], key)
        assert resp["call"] == "submit_phase" and resp["expected_payload"]
        assert "compaction_count" in resp["expected_payload"]
        seen.append(resp["phase"])
        resp = driver.submit(driver.payload(resp))
    assert "expected_payload" in resp and resp["compaction_count"] == 0
    assert len(seen) == 16


def test_resources_list_existing_contract_files(driver, app_project):
    (app_project.state_dir / "doc_research").mkdir(parents=True)
    (app_project.state_dir / "doc_research" / "default.md").write_text("research\n")
    (app_project.state_dir / "context.yml").write_text("project_rules:\n  source: CLAUDE.md\n")
    resp = driver.start()
    assert resp["resources"] == [".code-intel/context.yml", ".code-intel/doc_research/default.md"]


# ---------------------------------------------------------------- Q gates
@pytest.mark.parametrize(
    ("gate", "answer", "expected"),
    [
        ("Q1", True, "SEMANTIC"), ("Q1", False, "Q2"),
        ("Q2", True, "VERIFICATION"), ("Q2", False, "Q3"),
        ("Q3", True, "IMPACT_ANALYSIS"), ("Q3", False, "READY"),
    ],
)
def test_q_gates(driver, gate, answer, expected):
    driver.answers[gate] = answer
    resp = _advance_to(driver, gate)
    nxt = driver.submit(driver.payload(resp))
    assert nxt["phase"] == expected


def test_q3_false_investigation_completes(driver):
    resp = driver.run(driver.start(intent="INVESTIGATE"), until="Q3")
    assert driver.submit(driver.payload(resp))["phase"] == "SESSION_COMPLETE"


def test_gate_level_full_forces_all(driver):
    driver.run(driver.start(flags=["-g=f"]), until="READY")
    assert "Q1" not in driver.phases and {"SEMANTIC", "VERIFICATION", "IMPACT_ANALYSIS"} <= set(driver.phases)


def test_q_answer_must_be_a_real_boolean(driver):
    resp = _advance_to(driver, "Q1")
    bad = driver.submit(driver.payload(resp) | {"needs_more_information": "yes"})
    assert bad["error"] == "payload_mismatch" and "needs_more_information" in bad["message"]


# ------------------------------------------------------- branch intervention
def test_stale_branch_detected(driver, fake_git):
    fake_git.stale = ["llm_task_old_from_main"]
    resp = driver.start(intent="QUESTION")
    assert resp["phase"] == "BRANCH_INTERVENTION" and resp["step"] == 2
    assert resp["stale_branches"] == ["llm_task_old_from_main"]
    assert "llm_task_old_from_main" in resp["instruction"]


def test_no_stale_branch_skips(driver):
    assert driver.start()["phase"] == "DOCUMENT_RESEARCH"


@pytest.mark.parametrize("choice", ["delete", "merge", "continue"])
def test_branch_choice(driver, fake_git, engine, choice):
    fake_git.stale = ["llm_task_old_from_main"]
    resp = driver.start()
    nxt = driver.submit(driver.payload(resp) | {"choice": choice})
    assert nxt["phase"] == "DOCUMENT_RESEARCH"
    assert fake_git.called("resolve_stale_branches") == [choice]
    assert nxt["branch"]["choice"] == choice
    resp = driver.run(nxt, until="READY")
    resp = driver.submit(driver.payload(resp))
    assert resp["step"] == 13
    # continue stays on the current task branch: no new branch is created
    assert len(fake_git.called("create_task_branch")) == (0 if choice == "continue" else 1)


def test_invalid_choice_is_refused(driver, fake_git):
    fake_git.stale = ["llm_task_old_from_main"]
    resp = driver.start()
    bad = driver.submit(driver.payload(resp) | {"choice": "rebase"})
    assert bad["error"] == "payload_mismatch" and bad["current_phase"] == "BRANCH_INTERVENTION"


def test_git_error_at_branch_intervention_keeps_phase(driver, fake_git):
    fake_git.stale = ["llm_task_old_from_main"]
    fake_git.fail["resolve_stale_branches"] = "merge conflict in src/app.py"
    resp = driver.start()
    bad = driver.submit(driver.payload(resp) | {"choice": "merge"})
    assert bad["error"] == "git_error" and bad["current_phase"] == "BRANCH_INTERVENTION"
    assert bad["instruction"] == resp["instruction"]


# ----------------------------------------------------------- start_session
@pytest.mark.parametrize(
    ("typed", "field", "value"),
    [
        (["--gate=full"], "gate", "full"), (["-g=f"], "gate", "full"), (["-g=a"], "gate", "auto"),
        (["--no-verify"], "no_verify", True), (["--no-quality"], "no_quality", True),
        (["--only-verify"], "only_verify", True), (["-v"], "only_verify", True),
        (["--only-explore"], "only_explore", True), (["-e"], "only_explore", True),
        (["--fast"], "fast", True), (["-f"], "fast", True), (["--quick"], "quick", True), (["-q"], "quick", True),
        (["--no-doc-research"], "no_doc", True), (["--no-intervention"], "no_intervention", True),
        (["-ni"], "no_intervention", True), (["-q -ni"], "no_intervention", True),
    ],
)
def test_flags_long_and_short(typed, field, value):
    assert getattr(parse_flags(typed), field) == value


@pytest.mark.parametrize("typed", [["--turbo"], ["-x"], ["--gate=half"], ["--gate"], ["--resume"], ["-c"],
                                   ["--rebuild"], ["--fast", "--quick"], ["-v", "-e"], ["--gate=full", "-q"]])
def test_invalid_flags(typed):
    with pytest.raises(InvalidFlag):
        parse_flags(typed)


def test_unknown_flag_refused_by_start_session(driver, app_project):
    resp = driver.start(flags=["--yolo"])
    assert resp["success"] is False and resp["error"] == "invalid_flag" and "--yolo" in resp["message"]
    assert not (app_project.state_dir / "sessions" / "session.lock").exists()


def test_start_session_returns_rules_and_flags(driver, app_project):
    (app_project.path / "CLAUDE.md").write_text("# Rules\n\nDO:\n- keep functions pure\n")
    resp = driver.start(flags=["-ni", "--no-quality"])
    assert resp["success"] and resp["compaction_count"] == 0
    assert resp["flags"] == ["--no-quality", "--no-intervention"]
    assert resp["project_rules"].get("source") == "CLAUDE.md"


def test_start_session_refuses_other_repo_path(engine, tmp_path):
    from code_intel.core.errors import InvalidArgument, PathOutsideProject

    with pytest.raises(PathOutsideProject):
        engine.start_session("IMPLEMENT", "x", [], str(tmp_path))
    with pytest.raises(InvalidArgument):
        engine.start_session("IMPLEMENT", "x", [], "src")
    assert engine.start_session("IMPLEMENT", "x", [], str(engine.root.path))["success"]


def test_investigation_intent_rejects_implementation_flags(driver):
    assert driver.start(intent="INVESTIGATE", flags=["--quick"])["error"] == "invalid_flag"


def test_doc_research_disabled_in_context_skips_step_3(app_project, fake_git, new_engine, new_driver):
    from code_intel.core.config import ContextSettings

    settings = ContextSettings.model_validate({"doc_research": {"enabled": False}})
    drv = new_driver(new_engine(fake_git, settings), fake_git)
    assert drv.start()["phase"] == "QUERY_FRAME"


def test_submit_without_session(engine):
    from code_intel.core.errors import NoActiveSession

    with pytest.raises(NoActiveSession):
        engine.submit_phase({"summary": "x"})
    with pytest.raises(NoActiveSession):
        engine.get_session_status()


@pytest.mark.parametrize("data", [None, "EXPLORATION done", ["a"], 42])
def test_non_object_data_is_refused_cleanly(driver, data):
    driver.start()
    bad = driver.submit(data, echo=False)
    assert bad["error"] == "payload_mismatch" and bad["current_phase"] == "DOCUMENT_RESEARCH"
    assert "expected_payload" in bad


def test_git_error_at_start_leaves_no_session(driver, fake_git, app_project):
    fake_git.fail["begin_session"] = "repository is locked"
    resp = driver.start()
    assert resp["error"] == "git_error"
    assert not (app_project.state_dir / "sessions" / "session.lock").exists()
    assert list((app_project.state_dir / "sessions").glob("*.json")) == []
    del fake_git.fail["begin_session"]
    assert driver.start()["success"] is True


def test_checkpoint_write_failure_does_not_fail_the_submit(driver, engine, monkeypatch):
    resp = driver.start()

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(engine.checkpoints, "save", disk_full)  # a full disk cannot be produced here
    nxt = driver.submit(driver.payload(resp))
    assert nxt["success"] and nxt["phase"] == "QUERY_FRAME"
    assert "checkpoint not written" in nxt["warning"]
