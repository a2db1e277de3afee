"""SessionState: the orchestrator's state of one session, exactly what the checkpoint persists.

Per-phase payloads are not kept here beyond their summaries (in the checkpoint's phase_payloads);
control values (phase, counters, tasks, git facts, compaction_count) are authoritative here.

The checkpoint's `orchestrator_state` follows the v1.13 memo's layout on top of the model's own
fields: `phase_state` ({current_phase, step, ready_substep}), `tasks` at the top level (moved out of
`board`) and `branch_policy` ("continue" when BRANCH_INTERVENTION chose to stay on the current task
branch, else null). `phase_state` and `branch_policy` are written for readers of the file; loading
takes the phase from `phase` and `ready_substep`, and puts `tasks` back on the board.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from code_intel.core.session_types import GitSessionInfo, Phase, ReadySubstep
from code_intel.verify.models import CommandOutcome
from code_intel.workflow.flags import SessionFlags
from code_intel.workflow.phases import contract_id, step_of
from code_intel.workflow.response_models import Counters
from code_intel.workflow.tasks import TaskBoard


def new_session_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%d_%H%M%S") + "_" + secrets.token_hex(2)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class SessionState(BaseModel):
    model_config = ConfigDict(extra="ignore")
    session_id: str
    intent: str
    query: str
    flags: SessionFlags
    phase: Phase
    ready_substep: ReadySubstep | None = None
    counters: Counters = Field(default_factory=Counters)
    compaction_count: int = 0
    board: TaskBoard = Field(default_factory=TaskBoard)
    git: GitSessionInfo = Field(default_factory=GitSessionInfo)
    gate_answers: dict[str, bool] = Field(default_factory=dict)  # Q1/Q2/Q3 -> answer
    explored_files: list[str] = Field(default_factory=list)
    allowed_writes: list[str] = Field(default_factory=list)  # files check_write_target allowed
    target_symbols: list[str] = Field(default_factory=list)
    completed_steps: list[int] = Field(default_factory=lambda: [1])
    window: int = 0  # accepted submits so far: the ledger's evidence window
    revert_reason: str | None = None  # set while READY planning follows a revert
    ready_entered: bool = False  # READY was reached once: pre_ready_changes is recorded
    pre_ready_changes: list[str] = Field(default_factory=list)  # files changed before READY (flagged, not evidence)
    last_check: str | None = None  # summary of the server's latest verify run
    # tests the latest POST_IMPL_VERIFY run failed only as they did before the change (not held against it)
    excused_failures: list[str] = Field(default_factory=list)
    # tests the session removed, skipped, focused or rewrote, as last measured (code_intel.verify.test_edits; as text)
    test_edits: list[str] = Field(default_factory=list)
    # tests the change made fail in one of the session's runs after it changed something (bounded)
    failed_after_change: list[str] = Field(default_factory=list)
    # run_checks' outcomes while the session had changed nothing: what already failed before the change
    checks_before_change: list[CommandOutcome] = Field(default_factory=list)
    unresolved_issues: list[str] = Field(default_factory=list)  # quality issues a forced completion left open
    tool_counts: dict[str, dict[str, int]] = Field(default_factory=dict)
    ledger_seq: int = 0  # ledger entries recorded so far; tool_counts includes them (tools/workflow/ledger.py)
    started_at: str = Field(default_factory=now)
    updated_at: str = Field(default_factory=now)

    @model_validator(mode="before")
    @classmethod
    def _tasks_from_checkpoint(cls, data: Any) -> Any:
        """A checkpoint keeps the task list at the top level (memo layout): put it back on the board."""
        if isinstance(data, dict) and isinstance(data.get("tasks"), list):
            board = data.get("board")
            board = dict(board) if isinstance(board, dict) else {}
            board.setdefault("tasks", data["tasks"])
            data = {**data, "board": board}
        return data

    @property
    def step(self) -> int:
        return step_of(self.phase, self.ready_substep)

    @property
    def escalation(self) -> bool:
        """Two interventions already ran: the next one asks the user (user_escalation.md)."""
        return self.phase is Phase.VERIFY_INTERVENTION and self.counters.intervention_count >= 2

    @property
    def contract_id(self) -> str:
        return contract_id(self.phase, self.ready_substep, escalation=self.escalation)

    @property
    def label(self) -> str:
        if self.phase is Phase.READY and self.ready_substep:
            return f"READY ({self.ready_substep}, step {self.step})"
        return f"{self.phase.value} (step {self.step})"

    @property
    def failed_before_change(self) -> list[str]:
        """The tests that failed in the run before the change, over all its commands."""
        return [test for command in self.checks_before_change for test in command.failing_tests]

    @property
    def tracks_changes(self) -> bool:
        """The session has a starting point to measure its own changes against (git snapshot or content snapshot)."""
        return bool(self.git.snapshot or self.git.content_baseline)

    def mark_completed(self, step: int) -> None:
        if step not in self.completed_steps:
            self.completed_steps = sorted({*self.completed_steps, step})

    def add_explored(self, files: list[str]) -> list[str]:
        added = [f for f in files if f not in self.explored_files]
        self.explored_files.extend(added)
        return added

    def memo_fields(self) -> dict[str, Any]:
        """The fields the memo's layout adds to the model's own: phase_state and branch_policy."""
        return {"phase_state": {"current_phase": self.phase.value, "step": self.step, "ready_substep": self.ready_substep},
                "branch_policy": "continue" if self.git.branch_policy == "continue" else None}

    def to_checkpoint(self) -> dict[str, Any]:
        """The checkpoint's orchestrator_state: the model's fields in the memo's layout (see the module docstring)."""
        document = self.model_dump(mode="json")
        document["tasks"] = document["board"].pop("tasks")
        document.update(self.memo_fields())
        return document
