"""Task orchestration inside READY: planning (step 12), completion reports (step 13), the final check (step 14).

The server, not the agent, owns the task list: planning is idempotent (the complete list is resent
after every revert), completion goes in registration order with every checklist item accounted
for, and per-task failure counts live here whatever a payload claims.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from code_intel.core.errors import TaskValidationFailed
from code_intel.core.project import ProjectRoot
from code_intel.workflow.evidence import OwnChange, check_evidence, parse_evidence

MIN_SKIP_REASON_CHARS = 10
_MAX_TASKS = 200
_MAX_ITEMS_PER_TASK = 100

_PLAN_SHAPE = (
    "send {tasks: [{id, description, status: 'pending', checklist: [{item, status: 'pending'}, ...]}, ...]}"
)
_ITEM_SHAPE = "{item, status: 'done', evidence: 'file.py:42-58'} or {item, status: 'skipped', reason: '...'}"


class ChecklistItem(BaseModel):
    item: str
    status: Literal["pending", "done", "skipped"]
    evidence: str | None = None
    reason: str | None = None


class Task(BaseModel):
    id: str
    description: str
    status: Literal["pending", "completed"]
    checklist: list[ChecklistItem] = Field(default_factory=list)
    failure_count: int = 0
    revert_reason: str = ""


_TaskText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class PlannedItem(BaseModel):
    """A checklist item as planned: its text (a bare string is taken as the text); statuses come at completion."""

    model_config = ConfigDict(extra="ignore")
    item: _TaskText

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        return {"item": value} if isinstance(value, str) else value


class PlannedTask(BaseModel):
    """One task of a planning payload; other keys an agent sends along are ignored. A task the board has
    completed keeps what it recorded, so its description and checklist are read only for a task to do."""

    model_config = ConfigDict(extra="ignore")
    id: _TaskText
    status: Literal["pending", "completed"] = "pending"
    description: Any = None
    checklist: Any = None
    revert_reason: str | None = None


class _ToDo(BaseModel):
    """What a task to do must have besides its id."""

    description: _TaskText
    checklist: list[PlannedItem] = Field(default_factory=list, max_length=_MAX_ITEMS_PER_TASK)


_PLAN = TypeAdapter(list[PlannedTask])
_FIELD_NAMES = {"id": "task id", "description": "description", "status": "status", "checklist": "checklist"}


def _refusal(err: ValidationError, task: str, raw: Any, *, inside: int = 0) -> TaskValidationFailed:
    """The first problem pydantic found in a task (its location past the first `inside` parts), as a refusal."""
    first = err.errors()[0]
    where = [str(part) for part in first["loc"][inside:]]
    if where and where[0] == "checklist" and first["type"] == "too_long":
        return TaskValidationFailed(f"{task} has {len(raw['checklist'])} checklist items; at most {_MAX_ITEMS_PER_TASK}",
                                    hint="split the task")
    field = " ".join([_FIELD_NAMES.get(where[0], where[0]), *where[1:]]) if where else "task"
    return TaskValidationFailed(f"{task}: {field}: {first['msg']} (got {first.get('input')!r:.80})", hint=_PLAN_SHAPE)


def _parsed_plan(tasks: Any) -> list[PlannedTask]:
    """The planning payload's tasks, or a refusal naming the first problem and the shape to send."""
    if not isinstance(tasks, list) or not tasks:
        raise TaskValidationFailed("the task list is empty", hint=_PLAN_SHAPE)
    if len(tasks) > _MAX_TASKS:
        raise TaskValidationFailed(f"{len(tasks)} tasks is too many; at most {_MAX_TASKS}", hint="merge small steps into larger tasks")
    try:
        return _PLAN.validate_python(tasks)
    except ValidationError as err:
        index = int(err.errors()[0]["loc"][0])
        raw = tasks[index]
        if not isinstance(raw, dict):
            raise TaskValidationFailed(f"each task must be an object, got {raw!r}", hint=_PLAN_SHAPE) from None
        raise _refusal(err, f"task #{index + 1}", raw, inside=1) from None


def _planned_checklist(task: PlannedTask) -> list[ChecklistItem]:
    """The checklist of a task to do: its items, all pending, each text once."""
    try:
        todo = _ToDo.model_validate({"description": task.description, "checklist": task.checklist or []})
    except ValidationError as err:
        raise _refusal(err, f"task {task.id!r}", task.model_dump()) from None
    if not todo.checklist:
        raise TaskValidationFailed(
            f"task {task.id!r} has no checklist",
            hint="list the concrete changes the task makes, e.g. checklist: [{item: 'Add login() to auth.py', status: 'pending'}]",
        )
    names = [entry.item for entry in todo.checklist]
    twice = next((name for i, name in enumerate(names) if name in names[:i]), None)
    if twice is not None:
        raise TaskValidationFailed(f"task {task.id!r}: checklist item {twice!r} appears twice", hint="give each item a distinct text")
    return [ChecklistItem(item=name, status="pending") for name in names]


class TaskBoard(BaseModel):
    """The session's task list, serialised into the checkpoint."""

    tasks: list[Task] = Field(default_factory=list)
    # ids completed since the current implementation round began (the round a verifier judges)
    round_completed: list[str] = Field(default_factory=list)
    last_revert_reason: str = ""

    # planning ---------------------------------------------------------------
    def plan(self, tasks: list[dict[str, Any]]) -> None:
        """Register the complete task list (step 12). Resending the same list changes nothing."""
        planned = _parsed_plan(tasks)
        ids = [t.id for t in planned]
        twice = next((task_id for i, task_id in enumerate(ids) if task_id in ids[:i]), None)
        if twice is not None:
            raise TaskValidationFailed(f"task id {twice!r} appears twice", hint="give every task a distinct id")
        new_round = not self.tasks or self.all_complete()
        registered = [self._registered(task) for task in planned]
        self._refuse_dropped(set(ids))
        self._refuse_nothing_pending(registered, planned)
        self.tasks = registered
        self.round_completed = [] if new_round else [i for i in self.round_completed if i in ids]

    def _registered(self, planned: PlannedTask) -> Task:
        """A planned task as the board keeps it: completed work as recorded, a known id with the server's failure
        count, a new one inheriting the failures so far (so that fix loops still reach the limit)."""
        previous = self._find(planned.id)
        if previous is not None and previous.status == "completed":
            return previous.model_copy(deep=True)
        if planned.status == "completed":
            raise TaskValidationFailed(
                f"task {planned.id!r} is marked completed but was never completed through a completion report",
                hint=f"send {planned.id!r} with status 'pending', then report it done with its checklist evidence",
            )
        checklist = _planned_checklist(planned)
        task = Task(id=planned.id, description=str(planned.description).strip(), status="pending", checklist=checklist)
        if previous is not None:  # the server's count for a known id, whatever the payload says
            task.failure_count, task.revert_reason = previous.failure_count, previous.revert_reason
        else:
            task.failure_count = self.max_failure_count()
            task.revert_reason = (planned.revert_reason or "").strip() or self.last_revert_reason
        return task

    def _refuse_dropped(self, ids: set[str]) -> None:
        dropped = [t.id for t in self.tasks if t.id not in ids]
        if dropped:
            raise TaskValidationFailed(
                f"the list leaves out registered tasks {dropped}",
                hint="resend the complete list: every registered task (completed ones too) plus any new ones; "
                "to not do a pending task, report it with its checklist items 'skipped' and a reason",
            )

    def _refuse_nothing_pending(self, registered: list[Task], planned: list[PlannedTask]) -> None:
        if any(t.status == "pending" for t in registered):
            return
        # completed tasks the list sent as pending: they stay completed
        reopened = [p.id for p, t in zip(planned, registered, strict=True) if p.status == "pending" and t.status == "completed"]
        one = len(reopened) == 1
        why = (f": {reopened} {'was' if one else 'were'} sent as pending but {'is' if one else 'are'} "
               "already completed, and completed tasks are not reopened" if reopened else "")
        raise TaskValidationFailed(
            f"the list has no pending task{why}",
            hint="add at least one task with status 'pending' under a new id (after a revert: a fix task for the "
            "failure, with a checklist of the changes that address it)",
        )

    # completion -------------------------------------------------------------
    def complete(self, task_id: str, checklist: list[dict[str, Any]], root: ProjectRoot, own_change: OwnChange | None = None) -> None:
        """Mark the next pending task completed once every checklist item is done with evidence or skipped with a reason."""
        if not self.is_planned():
            raise TaskValidationFailed("no tasks are registered yet", hint=_PLAN_SHAPE)
        if not isinstance(task_id, str) or not task_id.strip():
            raise TaskValidationFailed("task_id is missing", hint="send {task_id, checklist: [...], summary}")
        task = self._find(task_id.strip())
        if task is None:
            raise TaskValidationFailed(
                f"task {task_id!r} is not registered; registered tasks: {[t.id for t in self.tasks]}",
                hint="report one of the registered tasks, or re-plan with the complete list",
            )
        if task.status == "completed":
            nxt = self.next_pending()
            raise TaskValidationFailed(
                f"task {task.id!r} is already completed",
                hint=f"report the next pending task, {nxt.id!r}" if nxt else "all tasks are complete: send the completion payload",
            )
        nxt = self.next_pending()
        if nxt is not None and nxt.id != task.id:
            raise TaskValidationFailed(
                f"task {task.id!r} is out of order: {nxt.id!r} comes first",
                hint=f"complete tasks in registration order; report {nxt.id!r} now",
            )
        task.checklist = self._checked_items(task, checklist, root, own_change)
        task.status = "completed"
        if task.id not in self.round_completed:
            self.round_completed.append(task.id)

    def _checked_items(self, task: Task, checklist: Any, root: ProjectRoot, own_change: OwnChange | None) -> list[ChecklistItem]:
        if not isinstance(checklist, list):
            raise TaskValidationFailed(f"task {task.id!r}: checklist must be a list", hint=f"send each item as {_ITEM_SHAPE}")
        reported: dict[str, dict[str, Any]] = {}
        problems: list[str] = []
        for entry in checklist:
            name = entry.get("item") if isinstance(entry, dict) else None
            if not isinstance(name, str) or not name.strip():
                problems.append(f"an entry without an item text: {entry!r}")
                continue
            if name.strip() in reported:
                problems.append(f"item {name.strip()!r} is reported twice")
                continue
            reported[name.strip()] = entry  # type: ignore[assignment]
        registered = [i.item for i in task.checklist]
        problems += [f"item {name!r} is not in the registered checklist" for name in reported if name not in registered]
        checked: list[ChecklistItem] = []
        for name in registered:
            entry = reported.get(name)
            if entry is None:
                problems.append(f"item {name!r} is not reported")
                continue
            item, problem = self._checked_item(name, entry, root, own_change)
            if problem:
                problems.append(problem)
            elif item is not None:
                checked.append(item)
        if problems:
            raise TaskValidationFailed(
                f"task {task.id!r} cannot be completed: " + "; ".join(problems),
                hint=f"report every registered item ({registered}) as {_ITEM_SHAPE}",
            )
        return checked

    @staticmethod
    def _checked_item(name: str, entry: dict[str, Any], root: ProjectRoot, own_change: OwnChange | None) -> tuple[ChecklistItem | None, str]:
        status = entry.get("status")
        if status == "done":
            evidence = entry.get("evidence")
            if not isinstance(evidence, str) or not evidence.strip():
                return None, f"item {name!r} is done but has no evidence (send 'file.py:42' or 'file.py:42-58')"
            try:
                ref = check_evidence(root, evidence, own_change)
            except TaskValidationFailed as err:
                return None, f"item {name!r}: {err.message}"
            return ChecklistItem(item=name, status="done", evidence=str(ref)), ""
        if status == "skipped":
            reason = entry.get("reason")
            if not isinstance(reason, str) or len(reason.strip()) < MIN_SKIP_REASON_CHARS:
                return None, f"item {name!r} is skipped without a reason of at least {MIN_SKIP_REASON_CHARS} characters"
            return ChecklistItem(item=name, status="skipped", reason=reason.strip()), ""
        if status == "pending":
            return None, f"item {name!r} is still pending: implement it (done + evidence) or skip it with a reason"
        return None, f"item {name!r} has status {status!r}; use 'done' or 'skipped'"

    # queries ----------------------------------------------------------------
    def _find(self, task_id: str) -> Task | None:
        return next((t for t in self.tasks if t.id == task_id), None)

    def next_pending(self) -> Task | None:
        return next((t for t in self.tasks if t.status == "pending"), None)

    def all_complete(self) -> bool:
        return self.is_planned() and all(t.status == "completed" for t in self.tasks)

    def is_planned(self) -> bool:
        return bool(self.tasks)

    def progress(self) -> dict[str, Any]:
        completed = sum(1 for t in self.tasks if t.status == "completed")
        current = self.next_pending()
        return {
            "total": len(self.tasks),
            "completed": completed,
            "pending": len(self.tasks) - completed,
            "current": current.id if current else None,
        }

    # failures and reverts ---------------------------------------------------
    def evidence_files(self, task: Task) -> set[str]:
        files: set[str] = set()
        for item in task.checklist:
            if item.status == "done" and item.evidence:
                try:
                    files.add(parse_evidence(item.evidence).path)
                except TaskValidationFailed:
                    continue
        return files

    def record_failures(self, task_ids: list[str] | None, reason: str, touched: set[str] | None = None) -> list[Task]:
        """Count a failed verification against the named tasks; by default against the tasks of the latest
        round whose evidence lies in `touched` (the files the change touched), else that whole round."""
        reason = (reason or "").strip()
        targets: list[Task]
        if task_ids:
            unknown = [i for i in task_ids if self._find(i) is None]
            if unknown:
                raise TaskValidationFailed(
                    f"failed_tasks names unknown task ids {unknown}",
                    hint=f"name registered task ids: {[t.id for t in self.tasks]}",
                )
            targets = [t for t in self.tasks if t.id in set(task_ids)]
        else:
            round_ids = set(self.round_completed)
            targets = [t for t in self.tasks if t.id in round_ids] or [t for t in self.tasks if t.status == "completed"]
            if touched:
                targets = [t for t in targets if self.evidence_files(t) & touched] or targets
        for task in targets:
            task.failure_count += 1
            if reason:
                task.revert_reason = reason
        if reason:
            self.last_revert_reason = reason
        return targets

    def max_failure_count(self) -> int:
        return max((t.failure_count for t in self.tasks), default=0)

    def reset_failures(self) -> None:
        for task in self.tasks:
            task.failure_count = 0

    def revert_instruction(self, reason: str) -> str:
        """What the agent must do after a revert to planning: the reason, the current list, how to resend it."""
        lines = [f"Reverted to task planning: {reason.strip() or self.last_revert_reason or 'no reason given'}.",
                 "Registered tasks:"]
        for t in self.tasks:
            note = f", failure_count={t.failure_count}" if t.failure_count else ""
            lines.append(f"- {t.id} [{t.status}{note}]: {t.description}")
        lines.append(
            "Resend the complete task list via submit_phase: every task above (completed ones keep status "
            "'completed') plus new pending fix tasks, each with a checklist of the changes that address the "
            "failure. Then implement only the pending tasks."
        )
        return "\n".join(lines)
