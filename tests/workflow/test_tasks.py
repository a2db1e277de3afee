from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from code_intel.core.errors import TaskValidationFailed
from code_intel.core.project import ProjectRoot
from code_intel.workflow.tasks import TaskBoard

AUTH_PY = '''\
class Auth:
    def login(self, user, password):
        token = self.store.issue(user)
        return token

    def logout(self, token):
        self.store.revoke(token)
'''


def _task(task_id: str, *items: str, status: str = "pending", **extra: Any) -> dict[str, Any]:
    return {
        "id": task_id,
        "description": f"work for {task_id}",
        "status": status,
        "checklist": [{"item": i, "status": "pending"} for i in items],
        **extra,
    }


@pytest.fixture
def auth_project(project: ProjectRoot) -> ProjectRoot:
    (project.path / "auth.py").write_text(AUTH_PY, encoding="utf-8")
    return project


def _done(item: str, evidence: str) -> dict[str, str]:
    return {"item": item, "status": "done", "evidence": evidence}


def _planned_board() -> TaskBoard:
    board = TaskBoard()
    board.plan([_task("t1", "add login"), _task("t2", "add logout")])
    return board


def test_plan_registers_tasks_in_order_with_pending_checklists() -> None:
    board = _planned_board()
    assert board.is_planned()
    assert [t.id for t in board.tasks] == ["t1", "t2"]
    assert board.tasks[0].checklist[0].item == "add login"
    assert board.progress() == {"total": 2, "completed": 0, "pending": 2, "current": "t1"}
    assert not board.all_complete()


@pytest.mark.parametrize(
    ("tasks", "fragment"),
    [
        ([], "empty"),
        ([_task("t1", "x"), _task("t1", "y")], "appears twice"),
        ([_task("t1", "x", status="completed")], "never completed"),
        ([_task("t1")], "no checklist"),
        ([_task("t1", "x", "x")], "appears twice"),
        ([{"id": "", "description": "d", "checklist": ["x"]}], "task id"),
        ([{"id": "t1", "description": "", "checklist": ["x"]}], "description"),
        ([_task("t1", "x", status="done")], "status"),
        (["t1"], "object"),
    ],
)
def test_plan_refuses_bad_lists(tasks: list[Any], fragment: str) -> None:
    with pytest.raises(TaskValidationFailed) as err:
        TaskBoard().plan(tasks)
    assert fragment in err.value.message
    assert err.value.hint  # every refusal says what to send instead


def test_plan_is_idempotent() -> None:
    board = _planned_board()
    before = board.model_dump()
    board.plan([_task("t1", "add login"), _task("t2", "add logout")])
    assert board.model_dump() == before


def test_complete_in_registration_order_with_evidence(auth_project: ProjectRoot) -> None:
    board = _planned_board()
    with pytest.raises(TaskValidationFailed, match="out of order"):
        board.complete("t2", [_done("add logout", "auth.py:6-7")], auth_project)
    board.complete("t1", [_done("add login", "auth.py:2-4")], auth_project)
    assert board.tasks[0].status == "completed"
    assert board.tasks[0].checklist[0].evidence == "auth.py:2-4"
    assert board.progress()["current"] == "t2"
    with pytest.raises(TaskValidationFailed, match="already completed"):
        board.complete("t1", [_done("add login", "auth.py:2-4")], auth_project)
    board.complete("t2", [{"item": "add logout", "status": "skipped", "reason": "logout already exists in Session"}], auth_project)
    assert board.all_complete()
    assert board.next_pending() is None


def test_complete_refuses_unknown_and_unplanned(auth_project: ProjectRoot) -> None:
    with pytest.raises(TaskValidationFailed, match="no tasks are registered"):
        TaskBoard().complete("t1", [], auth_project)
    with pytest.raises(TaskValidationFailed, match="not registered"):
        _planned_board().complete("nope", [], auth_project)


def test_complete_reports_every_item_problem_at_once(auth_project: ProjectRoot) -> None:
    board = TaskBoard()
    board.plan([_task("t1", "a", "b", "c", "d", "e")])
    with pytest.raises(TaskValidationFailed) as err:
        board.complete("t1", [
            {"item": "a", "status": "pending"},
            {"item": "b", "status": "done"},
            {"item": "c", "status": "skipped", "reason": "too short"},
            _done("d", "missing.py:1"),
            {"item": "zzz", "status": "skipped", "reason": "not in the plan at all"},
        ], auth_project)
    message = err.value.message
    assert "'a' is still pending" in message
    assert "'b' is done but has no evidence" in message
    assert "'c' is skipped without a reason" in message
    assert "missing.py" in message and "does not exist" in message
    assert "'e' is not reported" in message
    assert "'zzz' is not in the registered checklist" in message
    assert board.tasks[0].status == "pending"  # a refusal changes nothing


def test_complete_refuses_placeholder_evidence(auth_project: ProjectRoot) -> None:
    (auth_project.path / "stub.py").write_text("def login():\n    # TODO\n    pass\n", encoding="utf-8")
    board = TaskBoard()
    board.plan([_task("t1", "add login")])
    with pytest.raises(TaskValidationFailed, match="no implementation"):
        board.complete("t1", [_done("add login", "stub.py:1-3")], auth_project)


def _finish_round(board: TaskBoard, root: ProjectRoot) -> None:
    while (task := board.next_pending()) is not None:
        board.complete(task.id, [_done(i.item, "auth.py:2-4") for i in task.checklist], root)


def test_revert_replan_keeps_completed_tasks_and_server_failure_counts(auth_project: ProjectRoot) -> None:
    board = _planned_board()
    _finish_round(board, auth_project)
    failed = board.record_failures(None, "test_login failed")
    assert [t.id for t in failed] == ["t1", "t2"]
    assert board.max_failure_count() == 1
    instruction = board.revert_instruction("test_login failed")
    assert "test_login failed" in instruction and "t1 [completed, failure_count=1]" in instruction

    # the payload lies about counts and tries to reopen t1: the server keeps its own record
    board.plan([
        _task("t1", "other item", failure_count=0),
        _task("t2", "add logout", status="completed", failure_count=0),
        _task("fix_1", "fix login test", failure_count=0),
    ])
    by_id = {t.id: t for t in board.tasks}
    assert by_id["t1"].status == "completed" and by_id["t1"].checklist[0].item == "add login"
    assert by_id["t1"].failure_count == 1 and by_id["t2"].failure_count == 1
    assert by_id["fix_1"].status == "pending"
    assert by_id["fix_1"].failure_count == 1  # a fix task carries the consecutive failures on
    assert by_id["fix_1"].revert_reason == "test_login failed"
    assert board.progress() == {"total": 3, "completed": 2, "pending": 1, "current": "fix_1"}

    _finish_round(board, auth_project)
    failed = board.record_failures([], "still failing")
    assert [t.id for t in failed] == ["fix_1"]  # only the latest round is blamed
    assert board.max_failure_count() == 2
    board.reset_failures()
    assert board.max_failure_count() == 0


def test_replan_must_keep_every_registered_task_and_a_pending_one(auth_project: ProjectRoot) -> None:
    board = _planned_board()
    with pytest.raises(TaskValidationFailed, match="leaves out"):
        board.plan([_task("t1", "add login")])
    _finish_round(board, auth_project)
    with pytest.raises(TaskValidationFailed, match="no pending task"):
        board.plan([_task("t1", "add login", status="completed"), _task("t2", "add logout", status="completed")])
    # sending a completed task as pending again does not reopen it, and the refusal says so
    with pytest.raises(TaskValidationFailed, match=r"\['t1'\] was sent as pending but is already completed") as err:
        board.plan([_task("t1", "add login"), _task("t2", "add logout", status="completed")])
    assert "under a new id" in str(err.value.hint)


def test_replan_mid_round_keeps_round_progress(auth_project: ProjectRoot) -> None:
    board = _planned_board()
    board.complete("t1", [_done("add login", "auth.py:2-4")], auth_project)
    board.plan([_task("t1", "add login", status="completed"), _task("t2", "add logout", "and test it")])
    assert board.tasks[1].checklist[1].item == "and test it"
    _finish_round(board, auth_project)
    assert [t.id for t in board.record_failures(None, "x")] == ["t1", "t2"]


def test_record_failures_refuses_unknown_ids() -> None:
    with pytest.raises(TaskValidationFailed, match="unknown task ids"):
        _planned_board().record_failures(["ghost"], "reason")


def test_board_round_trips_through_the_checkpoint(auth_project: ProjectRoot, tmp_path: Path) -> None:
    board = _planned_board()
    board.complete("t1", [_done("add login", "auth.py:2-4")], auth_project)
    restored = TaskBoard.model_validate_json(board.model_dump_json())
    assert restored == board
    assert restored.next_pending() is not None and restored.next_pending().id == "t2"  # type: ignore[union-attr]
