"""Resuming after a restart checks the repository against the checkpoint once, and says what it repaired."""

from __future__ import annotations

from tests.workflow.conftest import FakeGit


def test_a_restored_session_is_reconciled_and_the_repairs_are_told_once(driver, app_project, new_engine, new_driver):
    resp = driver.run(driver.start(), until="READY")
    driver.submit(driver.payload(resp))  # planned: the task branch exists, the session works on it
    git = FakeGit(root=app_project.path)
    git.repairs = ["HEAD was back on main; it is on llm_task_x_from_main again"]
    engine = new_engine(git)
    status = new_driver(engine, git).status()
    assert status["success"] and status["repaired"] == git.repairs
    assert git.called("reconcile") == [True]  # READY works on the task branch
    assert "repaired" not in new_driver(engine, git).status()


def test_a_failing_check_of_the_repository_does_not_block_the_resume(driver, app_project, new_engine, new_driver):
    driver.start()
    git = FakeGit(root=app_project.path)
    git.fail["reconcile"] = "git is broken"
    status = new_driver(new_engine(git), git).status()
    assert status["success"] and "could not be checked" in status["repaired"][0]


def test_starting_prunes_snapshots_of_interrupted_starts(driver, fake_git):
    driver.start()
    assert fake_git.called("prune_snapshots") == [[]]
