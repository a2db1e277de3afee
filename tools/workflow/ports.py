"""What the workflow needs from git, as an interface. `tools.git.service.GitService` implements it.

The workflow never touches git directly: it asks this port to snapshot the tree at session start,
handle stale task branches, create the task branch, list what changed during the session, review,
commit, merge and clean up. Every method either succeeds or raises `tools.errors.GitError` with the
repository left as it was.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

TASK_BRANCH_PREFIX = "llm_task_"
BranchChoice = Literal["delete", "merge", "continue"]


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


class GitPort(Protocol):
    def begin_session(self, session_id: str) -> GitSessionInfo:
        """Inspect the repository and snapshot the working tree (without changing it)."""
        ...

    def resolve_stale_branches(self, choice: BranchChoice, info: GitSessionInfo) -> tuple[GitSessionInfo, dict[str, Any]]:
        """Apply a BRANCH_INTERVENTION choice; returns the updated info and a report for the response."""
        ...

    def create_task_branch(self, session_id: str, info: GitSessionInfo) -> GitSessionInfo:
        """Create and check out `llm_task_<session_id>_from_<base>`, keeping the user's uncommitted work."""
        ...

    def changed_since_snapshot(self, info: GitSessionInfo) -> list[str]:
        """Project-relative paths whose content changed after the session started."""
        ...

    def review(self, info: GitSessionInfo, *, max_diff_bytes: int = 200_000) -> dict[str, Any]:
        """The session's changes: files (path, status, added, removed), diff, diff_truncated, garbage."""
        ...

    def commit(self, info: GitSessionInfo, reviewed_files: list[str], discarded_files: list[str], message: str) -> tuple[GitSessionInfo, dict[str, Any]]:
        """Restore discarded files to their base content, commit exactly the reviewed files."""
        ...

    def merge(self, info: GitSessionInfo) -> tuple[GitSessionInfo, dict[str, Any]]:
        """Merge the task branch into its base, delete it and return to the base branch."""
        ...

    def end_session(self, info: GitSessionInfo) -> None:
        """Forget the session's working-tree snapshot (idempotent; MERGE already did it for merged sessions)."""
        ...

    def cleanup(self) -> dict[str, Any]:
        """Back to base; delete every llm_task_* branch. Reports each branch with its head commit."""
        ...
