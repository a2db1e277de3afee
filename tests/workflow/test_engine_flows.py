"""End-to-end flows through the engine (the v1.11 TestEndToEnd plan), with FakeGit."""

from __future__ import annotations

import json

import pytest

from code_intel.core.config import Config, ContextSettings
from code_intel.core.project import ProjectRoot
from code_intel.git.service import GitService
from code_intel.workflow.engine import WorkflowEngine
from code_intel.workflow.responses import RECORD_OUTCOME_PAYLOAD


def test_default_full_flow(driver, fake_git, app_project):
    driver.answers = {"Q1": True, "Q2": True, "Q3": True}
    final = driver.run(driver.start())
    assert final["phase"] == "SESSION_COMPLETE" and final["step"] == 20
    assert driver.steps == [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19, 20]
    assert final["call"] == "record_outcome" and final["expected_payload"] == RECORD_OUTCOME_PAYLOAD
    assert set(final["expected_payload"]) == {"outcome", "phase_at_outcome", "analysis"}  # record_outcome's arguments
    assert final["merge"]["merged"] is True and final["merge"]["base_branch"] == "main"  # the MergeReport shape
    assert len(fake_git.called("create_task_branch")) == 1
    assert fake_git.called("commit") == [(["src/app.py"], [], "Add subtract")]
    assert list((app_project.state_dir / "sessions").glob("*.json")) == []  # checkpoint deleted at the end
    assert not (app_project.state_dir / "sessions" / "session.lock").exists()


def test_quick_flow(driver, fake_git):
    final = driver.run(driver.start(flags=["--quick"]))
    assert driver.steps == [3, 4, 12, 13, 14, 15, 20]
    assert final["phase"] == "SESSION_COMPLETE"
    assert fake_git.called("create_task_branch") == [] and fake_git.called("commit") == []


def test_quick_no_verify_flow(driver):
    driver.run(driver.start(flags=["-q", "--no-verify"]))
    assert driver.steps == [3, 4, 12, 13, 14, 20]


def test_fast_flow(driver, fake_git):
    driver.run(driver.start(flags=["-f"]))
    # --fast: no exploration, no quality review, but a branch, commit and merge
    assert driver.steps == [3, 4, 12, 13, 14, 15, 17, 19, 20]
    assert len(fake_git.called("create_task_branch")) == 1 and len(fake_git.called("merge")) == 1


def test_no_verify_flow(driver):
    driver.run(driver.start(flags=["--no-verify"]))
    assert driver.steps == [3, 4, 5, 6, 8, 10, 12, 13, 14, 17, 18, 19, 20]


def test_no_quality_and_no_doc_flow(driver):
    driver.run(driver.start(flags=["--no-quality", "--no-doc-research"]))
    assert driver.steps == [4, 5, 6, 8, 10, 12, 13, 14, 15, 17, 19, 20]


def test_investigation_flow(driver, fake_git):
    driver.answers["Q3"] = True
    final = driver.run(driver.start(intent="INVESTIGATE"))
    assert driver.steps == [3, 4, 5, 6, 8, 10, 11, 20]
    assert final["phase"] == "SESSION_COMPLETE"
    assert fake_git.called("create_task_branch") == []


def test_question_and_only_explore_end_after_exploration(driver, new_engine, new_driver, fake_git):
    driver.run(driver.start(intent="QUESTION"))
    assert driver.steps == [3, 4, 5, 6, 8, 10, 20]
    other = new_driver(new_engine(fake_git), fake_git)
    other.run(other.start(intent="IMPLEMENT", flags=["-e"]))
    assert other.steps == [3, 4, 5, 6, 8, 10, 20]


def test_exploration_all_skip_to_ready(driver):
    resp = driver.run(driver.start(), until="READY")
    assert driver.steps == [3, 4, 5, 6, 8, 10, 12]
    assert resp["step"] == 12


def test_gate_full_runs_every_exploration_phase_without_questions(driver):
    driver.run(driver.start(flags=["--gate=full"]), until="READY")
    assert driver.steps == [3, 4, 5, 7, 9, 11, 12]


def test_only_verify_flow(driver, fake_git):
    resp = driver.start(flags=["--only-verify"])
    assert resp["phase"] == "POST_IMPL_VERIFY" and resp["step"] == 15
    final = driver.submit(driver.payload(resp) | {"passed": False, "details": "2 tests fail"})
    assert final["phase"] == "SESSION_COMPLETE"
    assert final["verification"] == {"passed": False, "details": "2 tests fail"}


def test_verification_failure_revert_and_retry(driver):
    driver.verify_results = [False]
    resp = driver.run(driver.start(flags=["--no-quality"]), until="POST_IMPL_VERIFY")
    resp = driver.submit(driver.payload(resp))
    assert resp["phase"] == "READY" and resp["step"] == 12 and resp["reverted"] is True
    assert "verification failed: test_x failed" in resp["instruction"]
    assert "task_1 [completed, failure_count=1]" in resp["instruction"]
    final = driver.run(resp)
    assert final["phase"] == "SESSION_COMPLETE"
    assert driver.steps.count(15) == 2 and driver.steps.count(12) == 2


def test_after_a_revert_only_a_new_plan_is_accepted(driver):
    """Back at step 12, a completion summary or a report of a completed task must not skip planning the fix."""
    driver.verify_results = [False]
    resp = driver.run(driver.start(flags=["--no-quality"]), until="POST_IMPL_VERIFY")
    resp = driver.submit(driver.payload(resp))
    assert resp["phase"] == "READY" and resp["step"] == 12
    for payload in ({"summary": "fixed it"},
                    {"task_id": "task_1", "checklist": [], "tools_used": [], "summary": "fixed it"}):
        refused = driver.submit(payload)
        assert refused["success"] is False and refused["error"] == "task_validation_failed", refused
        assert "back at planning (step 12) (verification failed: test_x failed)" in refused["message"]
        assert refused["current_phase"] == "READY" and refused["step"] == 12
    final = driver.run(resp)
    assert final["phase"] == "SESSION_COMPLETE" and driver.steps.count(12) == 2


def test_quality_review_revert_flow(driver, fake_git):
    driver.quality_issues = [["magic number in subtract"]]
    resp = driver.run(driver.start(), until="QUALITY_REVIEW")
    resp = driver.submit(driver.payload(resp))
    assert resp["phase"] == "READY" and resp["step"] == 12
    assert "quality review found issues: magic number in subtract" in resp["instruction"]
    final = driver.run(resp)
    assert final["phase"] == "SESSION_COMPLETE"
    assert driver.steps.count(18) == 2 and len(fake_git.called("commit")) == 2


def test_a_later_pre_commit_names_what_an_earlier_one_committed(driver, fake_git):
    """After QUALITY_REVIEW sends the work back, PRE_COMMIT still judges everything changed since the session
    started. A file the first round committed and the second left alone is still listed: the refusal says so,
    and what discarding it would do."""
    driver.quality_issues = [["a blank line too many"]]
    resp = driver.run(driver.start(), until="QUALITY_REVIEW")
    assert fake_git.changed == ["src/app.py"] and len(fake_git.called("commit")) == 1
    resp = driver.run(driver.submit(driver.payload(resp)), until="PRE_COMMIT")
    payload = driver.payload(resp)
    payload["reviewed_files"].remove("src/app.py")
    refused = driver.submit(payload)
    assert refused["error"] == "payload_mismatch", refused
    assert "['src/app.py']" in refused["message"] and "earlier PRE_COMMIT" in refused["message"]
    assert "discarded_files would restore them" in refused["message"]


def test_verify_intervention_flow(driver):
    driver.verify_results = [False, False, False]
    resp = driver.run(driver.start(), until="VERIFY_INTERVENTION")
    assert resp["step"] == 16
    assert driver.steps.count(15) == 3
    assert ".code-intel/interventions" in resp["instruction"]
    resp = driver.submit(driver.payload(resp))
    assert resp["phase"] == "READY" and resp["step"] == 12
    final = driver.run(resp)
    assert final["phase"] == "SESSION_COMPLETE"


def test_not_a_git_repository_runs_without_branches(app_project, new_engine, new_driver):
    git = GitService(app_project)
    engine = new_engine(git)
    drv = new_driver(engine, git)
    resp = drv.start()
    assert resp["success"] and "git_note" in resp
    final = drv.run(resp)
    assert final["phase"] == "SESSION_COMPLETE"
    assert final["merge"]["merged"] is False


def test_decision_log_records_every_submit(driver, app_project):
    resp = driver.start()
    driver.submit({"nonsense": True})
    driver.submit(driver.payload(resp))
    lines = (app_project.state_dir / "logs" / "decisions.jsonl").read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    assert [e["accepted"] for e in entries] == [False, True]
    assert entries[0]["error"] == "payload_mismatch" and entries[0]["phase"] == "DOCUMENT_RESEARCH"
    assert entries[1]["next_phase"] == "QUERY_FRAME" and entries[1]["next_step"] == 4


@pytest.fixture
def real_git_driver(git_project, new_driver):
    """A driver whose engine runs on G's GitService over the git_project repository."""
    root = ProjectRoot.from_args(git_project)
    git = GitService(root)
    engine = WorkflowEngine(root, git=git, context=lambda: ContextSettings(), config=lambda: Config())
    drv = new_driver(engine, git)
    drv.root = root
    yield drv
    engine.close()


def test_full_flow_on_a_real_git_repository(git_project, run_git, real_git_driver):
    """The whole session with G's GitService: task branch, commit of exactly the reviewed file, merge."""
    # new_driver's app_project fixture wrote src/app.py into this same folder
    run_git(git_project, "add", "src/app.py")
    run_git(git_project, "commit", "-q", "-m", "app")
    final = real_git_driver.run(real_git_driver.start())
    assert final["phase"] == "SESSION_COMPLETE", final
    assert run_git(git_project, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert "def subtract_task_1" in run_git(git_project, "show", "HEAD:src/app.py")
    assert "llm_task_" not in run_git(git_project, "branch", "--list")


def test_sessions_without_merge_drop_their_git_snapshot(git_project, run_git, real_git_driver):
    """An investigation never reaches MERGE; its working-tree snapshot ref must not outlive it."""
    resp = real_git_driver.start(intent="INVESTIGATE")
    assert run_git(git_project, "for-each-ref", "refs/code-intel/snapshots/").strip(), "a snapshot while active"
    final = real_git_driver.run(resp)
    assert final["phase"] == "SESSION_COMPLETE", final
    assert run_git(git_project, "for-each-ref", "refs/code-intel/snapshots/").strip() == ""


def test_a_failing_snapshot_drop_does_not_fail_the_last_submit(driver, fake_git):
    fake_git.fail["end_session"] = "ref is locked"
    original = fake_git.end_session

    def failing(info):
        original(info)
        fake_git._maybe_fail("end_session")

    fake_git.end_session = failing
    final = driver.run(driver.start(intent="INVESTIGATE"))
    assert final["success"] and final["phase"] == "SESSION_COMPLETE"
    assert fake_git.called("end_session")
