"""The workflow's result models: what start_session, submit_phase, get_session_status and the session's other
tools answer (workflow/responses.py fills them in). Kept apart from the workflow itself, which the MCP layer needs
only when a tool is called: listing the tools builds their output schemas from these models alone.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from code_intel.core.session_types import (
    BranchReport,
    ChangeReview,
    CleanupReport,
    CommitReport,
    MergeReport,
    Phase,
)
from code_intel.verify.models import CheckRun


class Counters(BaseModel):
    verification_failure_count: int = 0  # failed POST_IMPL_VERIFY submits in total
    intervention_count: int = 0  # VERIFY_INTERVENTION submits accepted
    quality_revert_count: int = 0  # QUALITY_REVIEW reverts to READY



class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    cut: list[str] | None = Field(default=None, description="what was shortened to keep state and answers bounded")


class TaskProgress(_Answer):
    total: int
    completed: int
    pending: int
    current: str | None = None


class NextTask(_Answer):
    id: str
    description: str
    checklist: list[str]


class SkippedItem(_Answer):
    task_id: str
    item: str
    reason: str


class Verification(_Answer):
    passed: bool
    details: str


class ReportPage(_Answer):
    """SESSION_COMPLETE: the session's report page (tools/report/), and the command that writes it again."""

    command: str
    path: str | None = Field(default=None, description="the page, relative to the project root, when it was written")


class PhaseResponse(_Answer):
    """start_session, submit_phase and get_session_status: where the session stands and what to send next."""

    success: Literal[True] = True
    session_id: str
    phase: Phase
    step: int
    instruction: str
    expected_payload: dict[str, str]
    call: Literal["submit_phase", "record_outcome"]
    compaction_count: int
    resources: list[str] | None = None
    phase_summaries: dict[str, str] | None = Field(default=None, description="every stored summary, after a context loss")
    warning: str | None = None
    # start_session
    intent: str | None = None
    flags: list[str] | None = None
    project_rules: dict[str, Any] | None = None
    git_note: str | None = None
    stale_branches: list[str] | None = None
    # get_session_status
    query: str | None = None
    completed_steps: list[int] | None = None
    task_progress: TaskProgress | None = None
    counters: Counters | None = None
    # what the accepted submit did
    progress: TaskProgress | None = None
    next_task: NextTask | None = None
    all_complete: bool | None = None
    task_branch: str | None = None
    reverted: bool | None = None
    failure_counts: dict[str, int] | None = None
    verification: Verification | None = None
    forced_completion: bool | None = None
    branch: BranchReport | None = None
    commit: CommitReport | None = None
    merge: MergeReport | None = None
    report: ReportPage | None = None
    # verification (server-run checks) and changes made before READY
    server_checks: CheckRun | None = None
    checks_before_change: CheckRun | None = Field(
        default=None, description="entering READY: the server's run of every check before anything was changed")
    verification_note: str | None = None
    last_check: str | None = None
    pre_ready_changes: list[str] | None = None
    skipped_items: list[SkippedItem] | None = Field(
        default=None, description="QUALITY_REVIEW and SESSION_COMPLETE: checklist items reported skipped, with reasons")
    test_edits: list[str] | None = Field(
        default=None, description="POST_IMPL_VERIFY to SESSION_COMPLETE: tests the change removed, skipped, focused or "
                                  "rewrote, and commands that ran fewer tests than before it")
    # after a restart: what the repository needed to match the checkpoint again
    repaired: list[str] | None = Field(default=None, description="repairs made when the session was resumed")


class RecoveryOffer(_Answer):
    """start_session while an interrupted session exists: ask the user to resume or discard it."""

    success: Literal[True] = True
    recovery_available: Literal[True] = True
    session_id: str
    phase: Phase
    step: int
    intent: str
    query: str
    compaction_count: int
    instruction: str
    choices: dict[str, str]
    call: Literal["get_session_status"]
    expected_payload: dict[str, str]  # empty: get_session_status takes no arguments


class WriteCheck(_Answer):
    """check_write_target: may this file be written now, and why (not)."""

    allowed: bool
    reason: str
    file: str
    phase: Phase | None = None
    step: int | None = None
    warning: str | None = None


class ExploredFiles(_Answer):
    added: list[str]
    already_explored: list[str]
    explored_count: int
    warning: str | None = None


class SessionReview(ChangeReview):
    """review_changes: the git review, judged against the session's write rules."""

    changed_files: list[str] | None = None  # not a repository: what changed since the content snapshot
    changed_before_ready: list[str] = Field(default_factory=list)


class CleanupResult(CleanupReport):
    """cleanup_stale_branches: the git cleanup, plus the checkpoints deleted and the session reset."""

    checkpoints_deleted: list[str]
    session_reset: str | None = None
