"""What the workflow needs from git and from the project's checks, as interfaces.

`code_intel.git.service.GitService` implements GitPort; `code_intel.verify.service.CheckService` implements
CheckPort. The workflow stays free of subprocesses: tests drive it with a real runner on temp
projects or with a stand-in.

The workflow never touches git directly: it asks this port to snapshot the tree at session start,
handle stale task branches, create the task branch, list what changed during the session, review,
commit, merge and clean up. Every method either succeeds or raises `code_intel.core.errors.GitError` with the
repository left as it was. The reports are the models in `tools/core/session_types.py`, so the real
service and a test double answer the same shapes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from code_intel.core.session_types import (
    Baseline,
    BranchChoice,
    BranchReport,
    ChangeReview,
    CleanupReport,
    CommitReport,
    GitSessionInfo,
    MergeReport,
)
from code_intel.verify.models import CheckReport, FileChange


class GitPort(Protocol):
    def begin_session(self, session_id: str) -> GitSessionInfo:
        """Inspect the repository and snapshot the working tree (without changing it)."""
        ...

    def resolve_stale_branches(self, choice: BranchChoice, info: GitSessionInfo) -> tuple[GitSessionInfo, BranchReport]:
        """Apply a BRANCH_INTERVENTION choice; returns the updated info and a report for the response."""
        ...

    def create_task_branch(self, session_id: str, info: GitSessionInfo) -> GitSessionInfo:
        """Create and check out `llm_task_<session_id>_from_<base>`, keeping the user's uncommitted work."""
        ...

    def changed_since_snapshot(self, info: GitSessionInfo) -> list[str]:
        """Project-relative paths whose content changed after the session started."""
        ...

    def changed_at_start(self, info: GitSessionInfo) -> list[str]:
        """Project-relative paths the user had changed (uncommitted, untracked included) when the session
        started: the snapshot against HEAD then. Empty outside git."""
        ...

    def baseline(self, info: GitSessionInfo, path: str) -> Baseline:
        """The content `path` (project-relative) had at session start, for telling the session's own lines
        apart; `ignored` set when git ignores the file."""
        ...

    def snapshot_at_ready(self, session_id: str, info: GitSessionInfo, paths: list[str]) -> GitSessionInfo:
        """When the session first reaches READY: record the content `paths` (the files changed before READY)
        have now, replacing any earlier record; returns the info that names the record."""
        ...

    def ready_baseline(self, info: GitSessionInfo, path: str) -> Baseline:
        """The content `path` had when the session reached READY, as `snapshot_at_ready` recorded it
        (`known` False when it was not recorded)."""
        ...

    def remember_baseline(self, info: GitSessionInfo, paths: list[str]) -> None:
        """Outside a repository: record the current content of `paths` the first time they are seen
        (explored or asked about), before the session may write them. A repository's snapshot already
        holds every file, so there it does nothing."""
        ...

    def review(self, info: GitSessionInfo, *, max_diff_bytes: int = 200_000,
               write_allowed: Callable[[str], bool] | None = None) -> ChangeReview:
        """The session's changes; `write_allowed` (the write rules) flags files written outside them."""
        ...

    def commit(self, info: GitSessionInfo, reviewed_files: list[str], discarded_files: list[str],
               message: str) -> tuple[GitSessionInfo, CommitReport]:
        """Restore discarded files to their base content, commit exactly the reviewed files."""
        ...

    def merge(self, info: GitSessionInfo) -> tuple[GitSessionInfo, MergeReport]:
        """Merge the task branch into its base, delete it and return to the base branch."""
        ...

    def reconcile(self, session_id: str, info: GitSessionInfo, on_task_branch: bool) -> tuple[GitSessionInfo, list[str]]:
        """After a restart: repair what an interrupted step left half done (missing task branch or snapshot
        ref, HEAD back on the base); returns the updated info and a note per repair. Never deletes."""
        ...

    def prune_snapshots(self, keep: set[str]) -> list[str]:
        """Drop working-tree snapshots of sessions not in `keep` (interrupted starts); returns their ids."""
        ...

    def end_session(self, info: GitSessionInfo) -> None:
        """Forget the session's working-tree snapshot (idempotent; MERGE already did it for merged sessions)."""
        ...

    def cleanup(self) -> CleanupReport:
        """Back to base; delete every llm_task_* branch. Reports each branch with its head commit."""
        ...


# progress(elapsed seconds, message)
CheckProgress = Callable[[float, str], None]


class CheckPort(Protocol):
    def configured(self) -> bool:
        """True when config.json lists verify.commands."""
        ...

    def runs_before_change(self) -> bool:
        """True when the server itself takes the run before the change on entering READY (verify.run_before_change)."""
        ...

    def run(self, changed_files: list[str] | None, *, progress: CheckProgress | None = None, reuse: bool = False) -> CheckReport:
        """Run the commands relevant to `changed_files` (None: all) in the project root; never raises for a
        failing command. `reuse` may answer an earlier report made on exactly the same changed files."""
        ...

    def exercising(self, tests: list[str], changes: list[FileChange]) -> dict[str, str]:
        """Those of the failing `tests` whose source names a function or method changed in `changes`, or whose own
        lines are changed there, each with why (code_intel.verify.exercised)."""
        ...
