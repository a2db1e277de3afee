"""What the workflow needs from git and from the project's checks, as interfaces.

`tools.git.service.GitService` implements GitPort; `tools.verify.service.CheckService` implements
CheckPort. The workflow stays free of subprocesses: tests drive it with a real runner on temp
projects or with a stand-in.

The workflow never touches git directly: it asks this port to snapshot the tree at session start,
handle stale task branches, create the task branch, list what changed during the session, review,
commit, merge and clean up. Every method either succeeds or raises `tools.errors.GitError` with the
repository left as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from tools.verify.models import CheckReport

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
    content_baseline: str | None = None  # not a repository: the session whose content snapshot holds the baselines


@dataclass(frozen=True)
class Baseline:
    """A file as it was when the session started: `known` False when nothing was recorded for it
    (a project that is not a git repository, for a file the session never explored or asked to
    write); `text` None when the file did not exist then."""

    known: bool
    text: str | None = None


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

    def baseline(self, info: GitSessionInfo, path: str) -> Baseline:
        """The content `path` (project-relative) had at session start, for telling the session's own lines apart."""
        ...

    def remember_baseline(self, info: GitSessionInfo, paths: list[str]) -> None:
        """Outside a repository: record the current content of `paths` the first time they are seen
        (explored or asked about), before the session may write them. A repository's snapshot already
        holds every file, so there it does nothing."""
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


# progress(elapsed seconds, message)
CheckProgress = Callable[[float, str], None]


class CheckPort(Protocol):
    def configured(self) -> bool:
        """True when config.json lists verify.commands."""
        ...

    def run(self, changed_files: list[str] | None, *, progress: CheckProgress | None = None, reuse: bool = False) -> CheckReport:
        """Run the commands relevant to `changed_files` (None: all) in the project root; never raises for a
        failing command. `reuse` may answer an earlier report made on exactly the same changed files."""
        ...
