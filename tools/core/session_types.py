"""Types shared by the workflow and its git adapter: the phases, a session's git facts, and the
reports git operations hand back.

They live below both `tools/workflow/` and `tools/git/` so that the adapter implements the
workflow's port (`tools/workflow/ports.py`) without importing the workflow itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from code_intel.core.models import QuietLists


class Phase(StrEnum):
    """Every phase a session can be in, in the order they run (conditional ones included)."""

    BRANCH_INTERVENTION = "BRANCH_INTERVENTION"
    DOCUMENT_RESEARCH = "DOCUMENT_RESEARCH"
    QUERY_FRAME = "QUERY_FRAME"
    EXPLORATION = "EXPLORATION"
    Q1 = "Q1"
    SEMANTIC = "SEMANTIC"
    Q2 = "Q2"
    VERIFICATION = "VERIFICATION"
    Q3 = "Q3"
    IMPACT_ANALYSIS = "IMPACT_ANALYSIS"
    READY = "READY"
    POST_IMPL_VERIFY = "POST_IMPL_VERIFY"
    VERIFY_INTERVENTION = "VERIFY_INTERVENTION"
    PRE_COMMIT = "PRE_COMMIT"
    QUALITY_REVIEW = "QUALITY_REVIEW"
    MERGE = "MERGE"
    SESSION_COMPLETE = "SESSION_COMPLETE"


ReadySubstep = Literal["planning", "implementation", "completion"]
BranchChoice = Literal["delete", "merge", "continue"]
TASK_BRANCH_PREFIX = "llm_task_"


class GitSessionInfo(BaseModel):
    """Git facts about one session, kept in its checkpoint."""

    model_config = ConfigDict(extra="allow")
    is_repo: bool = False
    note: str = ""  # e.g. "not a git repository: the workflow runs without branches"
    base_branch: str | None = None  # the branch the session's work merges into
    base_commit: str | None = None  # HEAD when the session started
    detached: bool = False
    snapshot: str | None = None  # id of the working-tree snapshot taken at session start
    stale_branches: list[str] = Field(default_factory=list)  # llm_task_* branches found at start
    current_task_branch: str | None = None  # set when HEAD was on an llm_task_* branch at start
    task_branch: str | None = None  # the branch this session works on, once created or adopted
    branch_policy: BranchChoice | None = None  # the BRANCH_INTERVENTION choice, if any
    commits: list[str] = Field(default_factory=list)  # commits this session made
    content_baseline: str | None = None  # not a repository: the session whose content snapshot holds the baselines
    ready_snapshot: str | None = None  # the session whose snapshot at READY holds the files changed before READY


@dataclass(frozen=True)
class Baseline:
    """A file as it was at a point of the session (its start, or the moment it reached READY):
    `known` False when nothing was recorded for it (a project that is not a git repository, for a
    file the session never explored or asked to write); `text` None when the file did not exist
    then; `ignored` True when git ignores the file (it is in no snapshot and is never committed)."""

    known: bool
    text: str | None = None
    ignored: bool = False


# ------------------------------------------------------------------ git reports
class Report(BaseModel):
    """A git report: compact on the wire (unset optional fields are left out)."""

    model_config = ConfigDict(extra="forbid")
    cut: list[str] | None = None  # what was shortened to keep the answer bounded (see tools/core/limits.py)


class DeletedBranch(Report):
    branch: str
    head: str
    recover: str = Field(description="the git command that brings the branch back")


class StaleMerge(Report):
    branch: str
    into: str
    kind: str
    commit: str | None = None
    branch_head: str | None = None


class BranchReport(Report):
    """What BRANCH_INTERVENTION did with the stale task branches."""

    choice: BranchChoice
    note: str | None = None
    kept_branches: list[str] | None = None
    merged: StaleMerge | None = None
    deleted_branches: list[DeletedBranch] | None = None
    now_on: str | None = None


class CommitReport(Report, QuietLists):
    """What PRE_COMMIT committed (or why nothing was)."""

    quiet_lists = ("unchanged_files", "discarded_files", "kept_user_edits", "warnings")

    committed: bool
    note: str | None = None
    branch: str | None = None
    commit: str | None = None
    committed_files: list[str] = Field(default_factory=list)
    unchanged_files: list[str] = Field(default_factory=list)
    discarded_files: list[str] = Field(default_factory=list)
    kept_user_edits: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class MergeReport(Report):
    """What MERGE did with the task branch."""

    merged: bool
    note: str | None = None
    kind: str | None = None  # fast-forward or merge commit
    base_branch: str | None = None
    commit: str | None = None
    deleted_branch: str | None = None
    branch_head: str | None = None
    task_branch: str | None = None


class ReviewedFile(Report):
    file: str
    status: str
    added: int  # lines; 0 for a binary file (binary is then true)
    removed: int
    binary: bool = False
    had_user_edits: bool = False  # the user had uncommitted edits in it before the session
    in_branch_commits: bool = False  # part of it is already committed on the task branch
    write_allowed: bool | None = None  # set when the caller passes its write rules


class GarbageCandidate(Report):
    file: str
    line: int
    end_line: int | None = None
    kind: str  # debug_output, commented_out_code, temp_file, local_file, large_file, binary_file, placeholder, secret
    detail: str


class ChangeReview(Report):
    """The session's changes against its start: files, a capped diff and garbage candidates."""

    is_repo: bool = True
    task_branch: str | None = None
    files: list[ReviewedFile] = Field(default_factory=list)
    diff: str = ""
    diff_truncated: bool = False
    diff_total_bytes: int = 0
    diff_omitted_files: list[str] = Field(default_factory=list)
    garbage: list[GarbageCandidate] = Field(default_factory=list)
    outside_write_rules: list[str] = Field(default_factory=list)
    note: str | None = None


class CleanupReport(Report):
    """What cleanup did: branch returned to, branches and snapshots deleted."""

    is_repo: bool
    note: str | None = None
    returned_to: str | None = None
    now_on: str | None = None
    deleted_branches: list[DeletedBranch] = Field(default_factory=list)
    deleted_snapshots: int = 0
    deleted_content_snapshots: int | None = None  # not a repository: content snapshots dropped
