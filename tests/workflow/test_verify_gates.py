"""The doors #13 closes, each driven through the engine: server-run checks decide POST_IMPL_VERIFY,
evidence must be the session's own change, only files the rules allowed in READY are committed, and
filled QUERY_FRAME slots need quotes. Checks run for real (pytest, shell commands) in the temp project."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from code_intel.core.config import Config, ContextSettings
from code_intel.core.project import ProjectRoot
from code_intel.core.session_types import Phase
from code_intel.verify.models import CheckRun
from code_intel.verify.service import CheckService
from code_intel.verify.settings import VerifyCommand, VerifySettings
from code_intel.workflow import responses, write_log
from code_intel.workflow.engine import WorkflowEngine
from code_intel.workflow.flags import SessionFlags
from code_intel.workflow.state import SessionState

from .conftest import QUERY, TEST_APP, Driver, FakeGit

pytestmark = pytest.mark.slow  # runs real check commands (pytest) in subprocesses

PYTEST = VerifyCommand(name="pytest", run=[sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_app.py"],
                       timeout_s=120)


def checked_engine(project: ProjectRoot, git: FakeGit, *commands: VerifyCommand,
                   run_before_change: bool = True) -> WorkflowEngine:
    settings = VerifySettings(commands=list(commands), run_before_change=run_before_change)
    return WorkflowEngine(project, git=git, context=lambda: ContextSettings(), config=lambda: Config(),
                          checks=CheckService(project, lambda: settings))


@pytest.fixture
def checked(app_project: ProjectRoot, fake_git: FakeGit) -> Any:
    (app_project.path / "test_app.py").write_text(TEST_APP, encoding="utf-8")
    engines: list[WorkflowEngine] = []

    def build(*commands: VerifyCommand, run_before_change: bool = True) -> Driver:
        engines.append(checked_engine(app_project, fake_git, *commands, run_before_change=run_before_change))
        return Driver(engines[-1], fake_git, app_project)

    yield build
    for engine in engines:
        engine.close()


def _break_subtract(root: Path) -> None:
    app = root / "src" / "app.py"
    app.write_text(app.read_text(encoding="utf-8").replace("return a - b", "return a + b"), encoding="utf-8")


def _to_verify(driver: Driver, *, broken: bool) -> dict[str, Any]:
    resp = driver.run(driver.start(), until="READY")
    resp = driver.run(resp, until="POST_IMPL_VERIFY")
    if broken:
        _break_subtract(driver.root.path)
    return resp


def _verify_payload(passed: bool, details: str = "") -> dict[str, Any]:
    return {"verifier_used": "backend.md", "passed": passed, "details": details or ("ok" if passed else "broken"),
            "tools_used": ["Bash"], "summary": "verification"}


# ------------------------------------------------------------------ server-run verification
def test_server_verdict_wins_over_a_claimed_pass(checked):
    driver = checked(PYTEST)
    resp = _to_verify(driver, broken=True)
    assert resp["phase"] == "POST_IMPL_VERIFY"
    refused = driver.submit(_verify_payload(True))
    assert refused["error"] == "payload_mismatch"
    assert "pytest failed" in refused["message"] and "test_app.py::test_subtract" in refused["hint"]
    assert refused["server_checks"]["commands"][0]["failing_tests"] == ["test_app.py::test_subtract"]
    assert refused["current_phase"] == "POST_IMPL_VERIFY"

    reverted = driver.submit(_verify_payload(False, "I saw it fail"))
    assert reverted["phase"] == "READY" and reverted["step"] == 12 and reverted["reverted"] is True
    assert "test_app.py::test_subtract" in reverted["instruction"]  # the failing test reaches the revert instruction
    assert "assert 4 == 2" in reverted["instruction"]
    assert reverted["failure_counts"] == {"task_1": 1}
    status = driver.status()
    assert status["counters"]["verification_failure_count"] == 1
    assert "test_subtract" in status["last_check"]


def test_failures_counted_by_the_server_reach_the_intervention(checked):
    driver = checked(PYTEST)
    _to_verify(driver, broken=True)
    for round_no in range(3):
        resp = driver.submit(_verify_payload(False))
        if round_no < 2:
            assert resp["phase"] == "READY"
            resp = driver.run(resp, until="POST_IMPL_VERIFY")
            _break_subtract(driver.root.path)  # the fix tasks did not fix it
    assert resp["phase"] == "VERIFY_INTERVENTION"


def test_a_passing_run_accepts_passed_and_a_self_reported_failure(checked):
    driver = checked(PYTEST)
    _to_verify(driver, broken=False)
    back = driver.submit(_verify_payload(False, "the manual check of the CLI failed"))
    assert back["phase"] == "READY" and "manual check of the CLI failed" in back["instruction"]
    assert back["server_checks"]["passed"] is True
    resp = driver.run(back, until="POST_IMPL_VERIFY")
    ok = driver.submit(_verify_payload(True))
    assert ok["success"] and ok["phase"] != "POST_IMPL_VERIFY"
    assert ok["server_checks"]["commands"][0]["verdict"] == "passed"
    assert resp["phase"] == "POST_IMPL_VERIFY"


def test_without_commands_the_pass_is_self_reported(driver):
    resp = driver.run(driver.start(), until="POST_IMPL_VERIFY")
    ok = driver.submit(driver.payload(resp))
    assert ok["success"] and "self-reported" in ok["verification_note"]


def test_a_hanging_check_is_killed_and_fails_the_phase(checked):
    driver = checked(VerifyCommand(name="hang", run="echo started; sleep 120", timeout_s=1))
    _to_verify(driver, broken=False)
    refused = driver.submit(_verify_payload(True))
    assert refused["error"] == "payload_mismatch" and "timed out" in refused["message"]
    outcome = refused["server_checks"]["commands"][0]
    assert outcome["verdict"] == "timed_out" and "started" in outcome["tail"]


def test_run_checks_only_in_verification_phases(checked):
    driver = checked(PYTEST)
    driver.start()
    with pytest.raises(Exception) as early:
        driver.engine.run_checks()
    assert "VERIFICATION and POST_IMPL_VERIFY" in str(early.value)
    _to_verify(driver, broken=True)
    report = driver.engine.run_checks()
    assert report["passed"] is False and report["failing_tests"] == ["test_app.py::test_subtract"]
    assert report["changed_files"] == ["src/app.py"] and report["relevance"] == "files changed since the session started"
    assert set(report) <= set(CheckRun.model_fields)  # the tool's output model drops nothing
    shown = {key: value for key, value in report.items() if value is not None}  # what the wire carries
    assert CheckRun.model_validate(report).model_dump(include=set(report), exclude_none=True) == shown
    refused = driver.submit(_verify_payload(True))
    assert set(refused["server_checks"]) == set(shown)  # server_checks and run_checks answer the same fields
    assert None not in refused["server_checks"].values()  # a refusal carries no nulls either


def test_only_verify_reports_the_server_verdict(checked):
    driver = checked(PYTEST)
    resp = driver.start(flags=["--only-verify"])
    assert resp["phase"] == "POST_IMPL_VERIFY"
    done = driver.submit(_verify_payload(False, "not checked"))
    assert done["phase"] == "SESSION_COMPLETE"
    assert done["verification"]["passed"] is False and done["server_checks"]["passed"] is False


# ------------------------------------------------------------------ evidence must be the session's own
def _at_implementation(driver: Driver) -> dict[str, Any]:
    resp = driver.run(driver.start(), until="READY")
    return driver.submit(driver.payload(resp))  # planning accepted: step 13


def test_evidence_on_unchanged_lines_of_a_changed_file_is_refused(driver):
    _at_implementation(driver)
    payload = driver.implementation("task_1")
    payload["checklist"][0]["evidence"] = "src/app.py:1-3"  # the old add(), not the new subtract
    bad = driver.submit(payload)
    assert bad["error"] == "task_validation_failed"
    assert "not changed in this session" in bad["message"] and "skipped" in bad["message"]


def test_evidence_in_an_untouched_file_is_refused(driver):
    _at_implementation(driver)
    payload = driver.implementation("task_1")
    payload["checklist"][0]["evidence"] = "README.md:1"
    bad = driver.submit(payload)
    assert bad["error"] == "task_validation_failed" and "unchanged since the session started" in bad["message"]


def test_a_removal_is_proved_by_the_lines_around_it(driver, app_project):
    """Removing code leaves no line to point at: the lines on either side of the removal prove it, even when
    what is left there is blank; a blank line elsewhere still proves nothing."""
    app = app_project.path / "src" / "app.py"
    app.write_text("import os\n\nLEGACY = 1\nOTHER = 2\n\n\ndef add(a, b):\n    total = a + b\n    return total\n",
                   encoding="utf-8")
    _at_implementation(driver)
    payload = driver.implementation("task_1")  # the harness appends subtract_task_1 at the end
    text = app.read_text(encoding="utf-8")
    app.write_text(text.replace("LEGACY = 1\n", ""), encoding="utf-8")  # lines now: import os, "", OTHER = 2, ...
    far = dict(payload, checklist=[{**payload["checklist"][0], "evidence": "src/app.py:5"}])  # a blank line
    bad = driver.submit(far)
    # not the session's lines: the answer says so and names the lines it did change (the span being blank too
    # would say less: a line number one off the change reads the same)
    assert bad["error"] == "task_validation_failed", bad
    assert ("lines 5-5 of src/app.py were not changed in this session (changed lines: 9-12; lines were removed "
            "after line 2)") in bad["message"], bad
    near = dict(payload, checklist=[{**payload["checklist"][0], "evidence": "src/app.py:2"}])  # blank, above it
    assert driver.submit(near)["success"] is True


def test_a_skipped_item_needs_no_change(driver):
    _at_implementation(driver)
    payload = driver.implementation("task_1")
    payload["checklist"][0] = {"item": payload["checklist"][0]["item"], "status": "skipped",
                               "reason": "add() already does this; nothing to write"}
    assert driver.submit(payload)["success"]


def test_a_pre_ready_write_is_flagged_refused_as_evidence_and_must_be_discarded(driver, fake_git, app_project):
    resp = driver.start()
    while resp["phase"] != "EXPLORATION":
        resp = driver.submit(driver.payload(resp))
    app = app_project.path / "src" / "app.py"
    app.write_text(app.read_text(encoding="utf-8") + "\n\ndef sneaky(a, b):\n    return a * b\n", encoding="utf-8")
    fake_git.changed.append("src/app.py")
    resp = driver.run(resp, until="READY")
    assert resp["pre_ready_changes"] == ["src/app.py"] and "before READY" in resp["warning"]
    assert driver.status()["pre_ready_changes"] == ["src/app.py"]
    assert fake_git.called("snapshot_at_ready") == [["src/app.py"]]  # its content when READY began
    resp = driver.submit(driver.payload(resp))
    payload = driver.implementation("task_1")
    sneaky = payload | {"checklist": [payload["checklist"][0] | {"evidence": "src/app.py:6-7"}]}
    bad = driver.submit(sneaky)
    assert bad["error"] == "task_validation_failed" and "before the session reached READY" in bad["message"]
    assert "lines changed since READY: 8-11" in bad["message"]

    resp = driver.run(driver.submit(payload), until="PRE_COMMIT")  # the lines written in READY are evidence
    commit = driver.payload(resp)
    refused = driver.submit(commit)
    assert refused["error"] == "payload_mismatch" and "before the session reached READY" in refused["message"]
    assert "src/app.py" in refused["message"] and "discarded_files" in refused["hint"]
    unconsented = driver.submit(commit | {"reallowed_files": ["src/app.py"]})  # the payload alone grants nothing
    assert unconsented["error"] == "payload_mismatch" and "user's own consent" in unconsented["message"]
    assert "code-intel allow" in unconsented["hint"]
    assert driver.engine.grant_early_changes(["src/app.py", "README.md"], by="terminal") == ["src/app.py"]
    kept = driver.submit(commit | {"reallowed_files": ["src/app.py"]})
    assert kept["success"] and kept["phase"] == "QUALITY_REVIEW"


def test_reallowed_files_only_names_flagged_files(driver, fake_git):
    resp = driver.run(driver.start(), until="PRE_COMMIT")
    bad = driver.submit(driver.payload(resp) | {"reallowed_files": ["src/app.py"]})
    assert bad["error"] == "payload_mismatch" and "not flagged" in bad["message"]


# ------------------------------------------------------------------ commit gate
def test_a_file_never_allowed_is_refused_at_pre_commit(driver, fake_git, app_project):
    resp = driver.run(driver.start(), until="PRE_COMMIT")
    (app_project.path / "src" / "extra.py").write_text("X = 1\n", encoding="utf-8")
    fake_git.changed.append("src/extra.py")  # written in READY without asking check_write_target
    payload = driver.payload(resp)
    refused = driver.submit(payload)
    assert refused["error"] == "payload_mismatch" and "src/extra.py" in refused["message"]
    assert "check_write_target" in refused["hint"] and "discarded_files" in refused["hint"]
    accepted = driver.submit(payload | {"reviewed_files": ["src/app.py"], "discarded_files": ["src/extra.py"]})
    assert accepted["success"]
    assert fake_git.called("commit")[-1] == (["src/app.py"], ["src/extra.py"], "Add subtract")


def test_the_hook_write_log_counts_as_allowed(driver, fake_git, app_project):
    resp = driver.run(driver.start(), until="PRE_COMMIT")
    (app_project.path / "src" / "extra.py").write_text("X = 1\n", encoding="utf-8")
    fake_git.changed.append("src/extra.py")
    sessions = app_project.state_dir / "sessions"
    log = write_log.log_file(sessions, resp["session_id"])
    log.write_text("not json\n" + json.dumps({"file": "src/extra.py", "allowed": True, "phase": "READY"}) + "\n",
                   encoding="utf-8")
    write_log.append(sessions, write_log.LogEntry(session_id=resp["session_id"], phase="EXPLORATION", tool="Edit",
                                                    files=("src/extra.py",)))
    assert driver.submit(driver.payload(resp))["error"] == "payload_mismatch"  # malformed lines and other phases do not count
    write_log.append(sessions, write_log.LogEntry(session_id=resp["session_id"], phase="READY", step=13, tool="Write",
                                                    files=("src/extra.py",)))
    assert "src/extra.py" not in driver.engine.review_changes()["outside_write_rules"]
    assert driver.submit(driver.payload(resp))["success"]


# ------------------------------------------------------------------ QUERY_FRAME quotes
def _at_query_frame(driver: Driver) -> dict[str, Any]:
    resp = driver.start()
    while resp["phase"] != "QUERY_FRAME":
        resp = driver.submit(driver.payload(resp))
    return driver.payload(resp)


def test_a_filled_slot_without_a_quote_is_refused(driver):
    payload = _at_query_frame(driver)
    bad = driver.submit(payload | {"desired_action": "add subtract"})
    assert bad["error"] == "payload_mismatch" and "desired_action" in bad["message"]
    unquoted_constraint = driver.submit(payload | {"constraints": ["keep add unchanged"], "quotes": {"target_feature": "a subtract function"}})
    assert unquoted_constraint["error"] == "payload_mismatch" and "constraints" in unquoted_constraint["message"]
    empty_slots = payload | {"target_feature": None, "constraints": "none", "quotes": {}}
    assert driver.submit(empty_slots)["success"]


@pytest.mark.parametrize("quote", [
    "a subtr\u0430ct function",  # Cyrillic a
    "a sub\u200btract function",  # zero-width space
    "\uff41 subtract function",  # full-width a
    "ad",  # too short to back anything
])
def test_disguised_or_empty_quotes_stay_refused(driver, quote):
    payload = _at_query_frame(driver)
    bad = driver.submit(payload | {"quotes": {"target_feature": quote, "constraints": "with a test"}})
    assert bad["error"] == "payload_mismatch" and "target_feature" in bad["message"]


# ------------------------------------------------------------------ a folder that is not a repository
def test_plain_folder_evidence_is_judged_against_the_content_snapshot(app_project):
    from code_intel.git.service import GitService

    engine = WorkflowEngine(app_project, git=GitService(app_project), context=lambda: ContextSettings(),
                            config=lambda: Config())
    try:
        driver = Driver(engine, FakeGit(), app_project)  # FakeGit only steers the driver; the engine uses real GitService
        driver.git = engine.git  # type: ignore[assignment]
        _at_implementation(driver)  # EXPLORATION recorded src/app.py before READY
        (app_project.path / "notes.py").write_text("def note():\n    return 'n'\n", encoding="utf-8")
        payload = driver.implementation("task_1")
        old_lines = payload | {"checklist": [payload["checklist"][0] | {"evidence": "src/app.py:1-3"}]}
        bad = driver.submit(old_lines)
        assert bad["error"] == "task_validation_failed" and "not changed in this session" in bad["message"]
        unknown = driver.submit(payload | {"checklist": [payload["checklist"][0] | {"evidence": "notes.py:1-2"}]})
        assert unknown["error"] == "task_validation_failed" and "no recorded starting content" in unknown["message"]
        assert driver.submit(payload)["success"]
    finally:
        engine.close()


# ------------------------------------------------------------------ failures that were there before the change
ALREADY_BROKEN = "\n\ndef test_already_broken():\n    assert 'upstream' == 'fixed'\n"


def _add_already_broken(root: Path) -> None:
    """A test that fails before any change, for reasons the session has nothing to do with."""
    with (root / "test_app.py").open("a", encoding="utf-8") as f:
        f.write(ALREADY_BROKEN)


def _to_verification(driver: Driver) -> dict[str, Any]:
    driver.answers["Q2"] = True
    resp = driver.run(driver.start(), until="VERIFICATION")
    assert resp["phase"] == "VERIFICATION"
    return resp


def test_a_test_failing_before_the_change_is_not_held_against_it(checked, app_project):
    _add_already_broken(app_project.path)
    driver = checked(PYTEST)
    resp = _to_verification(driver)
    before = driver.engine.run_checks()  # nothing changed yet: every command runs, and the outcome is kept
    assert before["passed"] is False and before["changed_files"] is None
    assert "changed nothing yet" in before["relevance"]
    assert set(before["failing_tests"]) == {"test_app.py::test_already_broken", "test_app.py::test_subtract"}
    resp = driver.run(driver.submit(driver.payload(resp)), until="POST_IMPL_VERIFY")  # implements subtract
    report = driver.engine.run_checks()
    assert report["failing_tests"] == ["test_app.py::test_already_broken"]
    assert report["commands"][0]["failed_before"] == "same_tests"
    assert "failed the same way before the change" in report["summary"]
    accepted = driver.submit(_verify_payload(True))
    assert accepted["success"] is True and accepted["phase"] == "PRE_COMMIT"
    assert "test_app.py::test_already_broken" in accepted["verification_note"]
    assert accepted["server_checks"]["passed"] is False  # the report stays true to what ran


def test_a_new_failure_beside_an_old_one_is_still_refused(checked, app_project):
    _add_already_broken(app_project.path)
    driver = checked(PYTEST)
    resp = _to_verification(driver)
    driver.engine.run_checks()
    driver.run(driver.submit(driver.payload(resp)), until="POST_IMPL_VERIFY")
    (app_project.path / "test_app.py").write_text(  # a test the change breaks, which passed before it
        (app_project.path / "test_app.py").read_text(encoding="utf-8").replace("app.add(1, 2) == 3", "app.add(1, 2) == 4"),
        encoding="utf-8")
    refused = driver.submit(_verify_payload(True))
    assert refused["error"] == "payload_mismatch" and "test_app.py::test_add" in refused["message"]
    assert "failed_before" not in refused["server_checks"]["commands"][0]  # left out: nothing failed before


def test_entering_ready_the_server_runs_the_checks_before_the_change_itself(checked, app_project):
    _add_already_broken(app_project.path)
    driver = checked(PYTEST)
    ready = driver.run(driver.start(), until="READY")  # Q2 no: no VERIFICATION, so no run_checks by the agent
    before = ready["checks_before_change"]
    assert before["passed"] is False and "fail before anything is changed" in before["note"]
    assert set(before["failing_tests"]) == {"test_app.py::test_already_broken", "test_app.py::test_subtract"}
    assert not {"commands", "skipped", "relevance"} & set(before)  # the brief form: no command output
    assert "test_already_broken" in driver.status()["last_check"]
    driver.run(ready, until="POST_IMPL_VERIFY")
    accepted = driver.submit(_verify_payload(True))
    assert accepted["success"] is True and "test_app.py::test_already_broken" in accepted["verification_note"]
    assert accepted["server_checks"]["commands"][0]["failed_before"] == "same_tests"
    done = driver.run(accepted)  # the final report still says the suite is not green
    assert done["phase"] == "SESSION_COMPLETE"
    told = "still fail in tests that failed the same way before the change: test_app.py::test_already_broken"
    assert told in done["instruction"] and told in done["verification_note"]


@pytest.mark.parametrize("how", ["named in the request", "in a file the user had changed"])
def test_an_old_failure_the_session_is_about_counts(checked, app_project, fake_git, how):
    """test_already_broken fails the same way before and after the change, but the session concerns it: the
    request names it, or its file held uncommitted work when the session began (a test written for the change)."""
    _add_already_broken(app_project.path)
    driver = checked(PYTEST)
    if how == "in a file the user had changed":
        fake_git.dirty_at_start.append("test_app.py")
        start = driver.start()
    else:
        start = driver.start(query=QUERY + ", and make test_already_broken pass")
    ready = driver.run(start, until="READY")
    assert "test_app.py::test_already_broken" in ready["checks_before_change"]["failing_tests"]
    driver.run(ready, until="POST_IMPL_VERIFY")
    refused = driver.submit(_verify_payload(True))
    assert refused["error"] == "payload_mismatch" and "test_already_broken" in refused["message"]
    assert "failed_before" not in refused["server_checks"]["commands"][0]
    assert "test_app.py::test_already_broken failed before the change too, but the session is about it" in refused["hint"]


@pytest.mark.parametrize("touches_add", [False, True])
def test_an_old_failure_calling_a_function_the_session_changed_counts(checked, app_project, fake_git, touches_add):
    """test_add_big fails the same way before and after, and neither the request nor a changed file's name points at
    it. It calls add: a session that changes only subtract is not held to it, one that also changes add is (a
    bug fix that leaves its test failing as before has fixed nothing)."""
    with (app_project.path / "test_app.py").open("a", encoding="utf-8") as f:
        f.write("\n\ndef test_add_big():\n    assert app.add(2, 2) == 5\n")
    driver = checked(PYTEST)
    ready = driver.run(driver.start(), until="READY")
    assert "test_app.py::test_add_big" in ready["checks_before_change"]["failing_tests"]
    driver.run(ready, until="POST_IMPL_VERIFY")  # writes subtract_task_1 into src/app.py
    if touches_add:
        app = app_project.path / "src" / "app.py"
        app.write_text(app.read_text(encoding="utf-8").replace("total = a + b", "total = b + a"), encoding="utf-8")
    assert "src/app.py" in fake_git.changed
    answer = driver.submit(_verify_payload(True))
    if not touches_add:
        assert answer["success"] is True and "test_app.py::test_add_big" in answer["verification_note"]
        assert "held" not in answer["server_checks"]["commands"][0]
        return
    assert answer["error"] == "payload_mismatch" and "test_add_big" in answer["message"]
    assert "failed_before" not in answer["server_checks"]["commands"][0]
    assert answer["server_checks"]["commands"][0]["held"] == {  # run_checks shows the same
        "test_app.py::test_add_big": "it calls add, which the session changed"}
    assert ("test_app.py::test_add_big failed before the change too, but the session is about it (it calls add, which "
            "the session changed), so it counts however it fails") in answer["hint"]


def test_a_session_that_changed_nothing_is_told_why_old_failures_still_count(checked, app_project):
    """Every item skipped, nothing written: the run at POST_IMPL_VERIFY is the state before the change again, and
    nothing excuses its failures (a bug fix that changed nothing fixed nothing). The hint says so and what to do."""
    _add_already_broken(app_project.path)
    driver = checked(PYTEST)
    resp = driver.submit(driver.payload(driver.run(driver.start(), until="READY")))  # planned: step 13
    assert resp["step"] == 13
    item = driver.engine.live.state.board.tasks[0].checklist[0].item
    resp = driver.submit({"task_id": driver.next_task_id(), "tools_used": [], "summary": "nothing to write",
                          "checklist": [{"item": item, "status": "skipped", "reason": "subtract exists already"}]})
    resp = driver.submit({"summary": "nothing changed"})
    assert resp["phase"] == "POST_IMPL_VERIFY"
    refused = driver.submit(_verify_payload(True))
    assert refused["error"] == "payload_mismatch" and "test_already_broken" in refused["message"]
    assert refused["hint"].endswith(
        "The session has changed nothing since it started, so nothing excuses these failures: make the change the "
        "request asks for in READY; if it needs none, say so in details with passed: false and ask the user how to "
        "go on")


def test_a_test_that_failed_before_and_fails_now_for_another_reason_counts(checked):
    """test_subtract fails before the change (no subtract_task_1 yet); a wrong subtract makes it fail with an
    assertion instead. The same test name is not enough: the error lines differ, so the change is to blame."""
    driver = checked(PYTEST)
    ready = driver.run(driver.start(), until="READY")
    assert ready["checks_before_change"]["failing_tests"] == ["test_app.py::test_subtract"]
    driver.run(ready, until="POST_IMPL_VERIFY")
    _break_subtract(driver.root.path)
    refused = driver.submit(_verify_payload(True))
    assert refused["error"] == "payload_mismatch" and "test_app.py::test_subtract" in refused["message"]
    assert "failed_before" not in refused["server_checks"]["commands"][0]
    assert "test_app.py::test_subtract failed before the change too" in refused["hint"]


def test_without_a_run_before_the_change_an_old_failure_counts(checked, app_project):
    _add_already_broken(app_project.path)
    driver = checked(PYTEST, run_before_change=False)
    ready = driver.run(driver.start(), until="READY")  # Q2 no: VERIFICATION, and with it run_checks, never came
    assert "checks_before_change" not in ready
    driver.run(ready, until="POST_IMPL_VERIFY")
    refused = driver.submit(_verify_payload(True))
    assert refused["error"] == "payload_mismatch" and "test_already_broken" in refused["message"]


def _counting(marker: Path) -> VerifyCommand:
    """A check that appends a line to `marker` (outside the project) each time it runs."""
    return VerifyCommand(name="count", run=f"echo run >> {marker}", timeout_s=30)


def test_a_run_in_verification_is_not_repeated_on_entering_ready(checked, tmp_path):
    marker = tmp_path / "runs.txt"
    driver = checked(_counting(marker))
    resp = _to_verification(driver)
    driver.engine.run_checks()
    ready = driver.run(driver.submit(driver.payload(resp)), until="READY")
    assert "checks_before_change" not in ready
    assert marker.read_text(encoding="utf-8").count("run") == 1


def test_no_run_before_the_change_when_files_changed_before_ready_or_nothing_is_verified(checked, fake_git, tmp_path):
    marker = tmp_path / "runs.txt"
    driver = checked(_counting(marker))
    fake_git.changed.append("src/app.py")  # changed while writing was not allowed
    ready = driver.run(driver.start(), until="READY")
    assert ready["pre_ready_changes"] == ["src/app.py"] and "checks_before_change" not in ready
    assert not marker.exists()  # such a run would not show the state before the change
    driver.engine.cleanup_stale_branches()
    fake_git.changed.clear()
    ready = driver.run(driver.start(flags=["--no-verify"]), until="READY")
    assert "checks_before_change" not in ready and not marker.exists()  # POST_IMPL_VERIFY will not judge it


def test_a_command_that_fails_the_same_way_whatever_the_change_sends_the_agent_to_the_user(checked):
    broken_tool = VerifyCommand(name="typecheck", run="echo 'error: cannot find module typescript' >&2; exit 2",
                                timeout_s=30)
    driver = checked(broken_tool)
    resp = _to_verification(driver)
    assert driver.engine.run_checks()["passed"] is False
    driver.run(driver.submit(driver.payload(resp)), until="POST_IMPL_VERIFY")
    refused = driver.submit(_verify_payload(True))
    assert refused["error"] == "payload_mismatch"
    assert refused["server_checks"]["commands"][0]["failed_before"] == "same_output"
    assert "cannot judge this change" in refused["hint"] and "--no-verify" in refused["hint"]


def test_the_hint_says_why_each_test_that_failed_before_is_held() -> None:
    """One command fails in a test the session is about and in one that would be excused alone; another fails
    with other errors than before: the hint tells the three apart."""
    from code_intel.verify.models import CheckReport, CommandOutcome
    from code_intel.workflow.handlers import _failing_before_too

    def run(command: str, tests: list[str], error: str) -> CommandOutcome:
        return CommandOutcome(name=command, command=command, verdict="failed", exit_code=1, failing_tests=tests,
                              excerpt=[error])

    before = [run("jest", ["emitter › off", "format › date"], "Expected: 1"), run("lint", ["style"], "E1 too long")]

    def hint_for(concerned: Callable[[str], str | None]) -> str:
        report = CheckReport(configured=True, passed=False,
                             commands=[run("jest", ["emitter › off", "format › date"], "Expected: 1"),
                                       run("lint", ["style"], "E2 unused")])
        report.compare_with(before, concerned)  # as session_checks does before any hint is written
        return _failing_before_too(report, before, concerned)

    hint = hint_for(lambda test: "the request names it" if "emitter" in test else None)
    assert ". emitter › off failed before the change too, but the session is about it (the request names it), so it " \
           "counts however it fails" in hint
    assert ". format › date failed before the change too and would not count alone" in hint
    assert ". style failed before the change too, but with other errors now" in hint

    # a new failing test beside old ones: the old ones wait for it, whatever the command's errors say now
    report = CheckReport(configured=True, passed=False, commands=[
        run("cargo", ["tests::doubles", "tests::map"], "left: 6"), run("lint", ["style"], "E1 too long")])
    old = [run("cargo", ["tests::map"], "left: {}")]
    report.compare_with(old, lambda test: None)
    hint = _failing_before_too(report, old, lambda test: None)
    assert hint == (". tests::map failed before the change too and would not count alone: once the other failing tests "
                    "pass, a run failing only there with the same errors as before is accepted")

    whys = {"emitter › off": "the request names it", "format › date": "it calls formatDate, which the session changed"}
    hint = hint_for(whys.get)
    assert ". emitter › off, format › date failed before the change too, but the session is about them (emitter › " \
           "off: the request names it; format › date: it calls formatDate, which the session changed), so they " \
           "count however they fail" in hint


# ------------------------------------------------------------------ tests the change removed, skipped or rewrote
def _edit_tests(root: Path, git: FakeGit, old: str, new: str) -> None:
    tests = root / "test_app.py"
    tests.write_text(tests.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    if "test_app.py" not in git.changed:
        git.changed.append("test_app.py")


def test_skipping_a_test_the_change_made_fail_does_not_pass(checked, app_project, fake_git):
    driver = checked(PYTEST)
    _to_verify(driver, broken=True)
    back = driver.submit(_verify_payload(False))  # test_subtract failed in the server's run: back to READY
    assert back["phase"] == "READY"
    driver.run(back, until="POST_IMPL_VERIFY")
    _break_subtract(app_project.path)  # still broken, and now its test is skipped
    _edit_tests(app_project.path, fake_git, "def test_subtract", "@pytest.mark.skip(reason='later')\ndef test_subtract")
    _edit_tests(app_project.path, fake_git, "import importlib.util", "import importlib.util\nimport pytest")
    refused = driver.submit(_verify_payload(True))
    assert refused["error"] == "payload_mismatch"
    assert ("stopped tests its change made fail from running: test_app.py:14 test_subtract: skipped "
            "(@pytest.mark.skip), after test_app.py::test_subtract failed in this session's run") in refused["message"]
    assert "take the skip (or the focus) out again" in refused["hint"]
    assert driver.status()["phase"] == "POST_IMPL_VERIFY"


def test_a_refused_pass_still_keeps_what_failed_so_a_skip_right_after_it_is_refused(checked, app_project, fake_git):
    driver = checked(PYTEST)
    _to_verify(driver, broken=True)
    assert driver.submit(_verify_payload(True))["error"] == "payload_mismatch"  # test_subtract fails
    assert "test_subtract" in driver.status()["last_check"]  # the refused submit's run is kept
    # no round through READY: the test is skipped in place and the pass claimed again
    _edit_tests(app_project.path, fake_git, "def test_subtract():\n", "def test_subtract():\n    pytest.skip('later')\n")
    _edit_tests(app_project.path, fake_git, "import importlib.util", "import importlib.util\nimport pytest")
    refused = driver.submit(_verify_payload(True))
    assert refused["error"] == "payload_mismatch"
    assert "test_app.py:15 test_subtract: skipped (pytest.skip), after test_app.py::test_subtract" in refused["message"]


def test_skipping_a_test_that_failed_before_the_change_is_told_not_refused(checked, app_project, fake_git):
    _add_already_broken(app_project.path)
    driver = checked(PYTEST)
    _to_verify(driver, broken=True)  # entering READY ran the checks before the change: test_already_broken failed
    refused = driver.submit(_verify_payload(True))  # test_subtract is new; test_already_broken fails as before
    assert "test_app.py::test_subtract" in refused["message"] and "test_already_broken" in refused["message"]
    app = app_project.path / "src" / "app.py"
    app.write_text(app.read_text(encoding="utf-8").replace("return a + b", "return a - b"), encoding="utf-8")
    _edit_tests(app_project.path, fake_git, "def test_already_broken():\n",
                "def test_already_broken():\n    pytest.skip('needs a service')\n")
    _edit_tests(app_project.path, fake_git, "import importlib.util", "import importlib.util\nimport pytest")
    accepted = driver.submit(_verify_payload(True))
    assert accepted["success"] is True, accepted
    told, counted = accepted["test_edits"]
    assert told.startswith("test_app.py:") and told.endswith(" test_already_broken: skipped (pytest.skip), after it "
                                                             "failed in this session's run before the change")
    assert counted == "pytest ran 2 tests (3 before the change) and skipped 1 (0 before)"


def test_a_test_rewritten_to_fit_the_change_passes_but_is_told_with_its_failure(checked, app_project, fake_git):
    driver = checked(PYTEST)
    _to_verify(driver, broken=True)
    back = driver.submit(_verify_payload(False))
    assert back["phase"] == "READY", back  # test_subtract failed in the server's run
    driver.run(driver.status(), until="POST_IMPL_VERIFY")
    _break_subtract(app_project.path)
    _edit_tests(app_project.path, fake_git, "subtract_task_1(3, 1) == 2", "subtract_task_1(3, 1) == 4")  # fits the bug
    accepted = driver.submit(_verify_payload(True))
    # told, not refused: a requested change of behaviour rewrites tests too
    assert accepted.get("phase") == "PRE_COMMIT", accepted
    assert accepted["test_edits"] == ["test_app.py test_subtract: rewritten (lines it had are changed or gone), after it "
                                      "failed in this session's run"]
    assert "a rewritten test must still check what it checked" in accepted["instruction"]


def test_a_test_that_failed_before_the_change_and_was_fitted_to_pass_is_told_with_that(checked, app_project, fake_git):
    _add_already_broken(app_project.path)
    driver = checked(PYTEST)
    _to_verify(driver, broken=False)  # entering READY ran the checks before the change: test_already_broken failed
    _edit_tests(app_project.path, fake_git, "assert 'upstream' == 'fixed'", "assert 'upstream' == 'upstream'")
    accepted = driver.submit(_verify_payload(True))
    assert accepted.get("phase") == "PRE_COMMIT", accepted
    assert accepted["test_edits"] == ["test_app.py test_already_broken: rewritten (lines it had are changed or gone), "
                                      "after it failed in this session's run before the change"]


def test_a_skip_the_request_names_is_let_through_and_told(checked, app_project, fake_git):
    driver = checked(PYTEST)
    resp = driver.run(driver.start(query=QUERY + "; skip test_subtract for now"), until="POST_IMPL_VERIFY")
    _break_subtract(app_project.path)
    assert driver.submit(_verify_payload(False))["phase"] == "READY"
    driver.run(driver.status(), until="POST_IMPL_VERIFY")
    _break_subtract(app_project.path)
    _edit_tests(app_project.path, fake_git, "def test_subtract():\n", "def test_subtract():\n    pytest.skip('later')\n")
    _edit_tests(app_project.path, fake_git, "import importlib.util", "import importlib.util\nimport pytest")
    accepted = driver.submit(_verify_payload(True))
    assert accepted["success"] is True, accepted
    assert accepted["test_edits"] == ["test_app.py:15 test_subtract: skipped (pytest.skip), after it failed in this "
                                      "session's run",
                                      "pytest ran 1 test (2 before the change) and skipped 1 (0 before)"]
    assert resp["phase"] == "POST_IMPL_VERIFY"


def test_a_removed_test_passes_but_is_told_up_to_the_end(checked, app_project, fake_git):
    driver = checked(PYTEST)
    driver.run(driver.start(flags=["--quick"]), until="POST_IMPL_VERIFY")
    _edit_tests(app_project.path, fake_git, "def test_add():\n    assert app.add(1, 2) == 3\n", "")
    accepted = driver.submit(_verify_payload(True))
    assert accepted["phase"] == "SESSION_COMPLETE"  # --quick: no PRE_COMMIT, QUALITY_REVIEW or MERGE
    told = ("The change removes, switches off or rewrites tests that guard the code: test_app.py test_add: removed (its "
            "definition is gone)")
    assert accepted["test_edits"] == ["test_app.py test_add: removed (its definition is gone)",
                                      "pytest ran 1 test (2 before the change)"]
    assert told in accepted["instruction"] and "Tell the user which" in accepted["instruction"]


def test_a_test_left_out_by_config_is_told_by_the_runner_s_count(checked, app_project, fake_git):
    driver = checked(PYTEST)
    driver.run(driver.start(flags=["--quick"]), until="POST_IMPL_VERIFY")  # entering READY counted 2 tests
    (app_project.path / "conftest.py").write_text(  # no test file changes: only the runner's count shows it
        "def pytest_collection_modifyitems(items):\n    items[:] = [i for i in items if i.name != 'test_add']\n",
        encoding="utf-8")
    fake_git.changed.append("conftest.py")
    accepted = driver.submit(_verify_payload(True))
    assert accepted["test_edits"] == ["pytest ran 1 test (2 before the change)"]
    assert accepted["server_checks"]["commands"][0]["tests_ran"] == 1
    assert "pytest ran 1 test (2 before the change)" in accepted["instruction"]  # SESSION_COMPLETE tells the user


def test_review_phases_are_told_to_judge_removed_tests(checked, app_project, fake_git):
    driver = checked(PYTEST)
    driver.run(driver.start(), until="POST_IMPL_VERIFY")
    _edit_tests(app_project.path, fake_git, "def test_add():\n    assert app.add(1, 2) == 3\n", "")
    at_commit = driver.submit(_verify_payload(True))
    assert at_commit["phase"] == "PRE_COMMIT" and at_commit["test_edits"]
    assert "Keep each only if the request asks for it" in at_commit["instruction"]
    status = driver.status()  # what an agent that lost its context asks for
    assert status["test_edits"] == at_commit["test_edits"] and "Keep each only" in status["instruction"]


@pytest.mark.parametrize(("phase", "told"), [
    (Phase.POST_IMPL_VERIFY, None),
    (Phase.PRE_COMMIT, "Keep each only if the request asks for it"),
    (Phase.QUALITY_REVIEW, "Judge each: a test removed, skipped, focused or rewritten without the request asking for "
                           "it is an issue"),
    (Phase.MERGE, None),
    (Phase.SESSION_COMPLETE, "Tell the user which"),
])
def test_where_removed_tests_are_told(phase, told):
    state = SessionState(session_id="s", intent="IMPLEMENT", query="q", flags=SessionFlags(), phase=phase,
                         test_edits=["test_app.py test_add: removed (its definition is gone)"])
    said = responses.tests_told(state)
    assert (said is None) if told is None else (told in (said or "") and "test_app.py test_add" in (said or ""))
    assert responses.tests_told(state.model_copy(update={"test_edits": []})) is None
