"""GitService: the workflow's GitPort on a real repository (see docs/git.md for the decisions).

Every operation checks what it needs before it changes anything, so a refusal (GitError) leaves
the repository as it was. The user's uncommitted work is never committed, reset or dropped: it
rides along in the working tree through every branch switch.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from code_intel.core import faults
from code_intel.core.errors import GitError, InvalidArgument
from code_intel.core.project import STATE_DIR, ProjectRoot
from code_intel.core.session_types import (
    Baseline,
    BranchChoice,
    BranchReport,
    ChangeReview,
    CleanupReport,
    CommitReport,
    DeletedBranch,
    GitSessionInfo,
    MergeReport,
    StaleMerge,
)
from code_intel.git import branches as br
from code_intel.git.baseline import READY, ContentBaseline, drop_all
from code_intel.git.commit import commit_session
from code_intel.git.outcome import OutcomeService
from code_intel.git.review import review_session
from code_intel.git.runner import GitRunner
from code_intel.git.snapshot import (
    SNAPSHOT_REF_PREFIX,
    RepoLayout,
    changed_paths,
    drop_snapshot,
    entry,
    list_snapshot_refs,
    snapshot_tree,
    take_snapshot,
    tree_of,
    working_tree,
)

log = logging.getLogger(__name__)
# files git keeps while a merge, rebase, cherry-pick or revert is unfinished
IN_PROGRESS_MARKERS = ("MERGE_HEAD", "rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD", "REVERT_HEAD")
NOT_A_REPO = "not a git repository: the workflow runs without task branches, commits or merges"
# git cannot tell who commits (no user.name / user.email, and none it can guess): found at start, not at PRE_COMMIT
NO_IDENTITY = ("git does not know who commits here (user.name / user.email are not set): PRE_COMMIT's commit will fail "
               "until the user sets them (git config --global user.name 'Name'; git config --global user.email "
               "'name@example.com'); tell the user now")


class GitService:
    """Implements code_intel.workflow.ports.GitPort."""

    def __init__(self, root: ProjectRoot) -> None:
        self.root = root
        self._lock = threading.RLock()
        self._opened = False
        self._git: GitRunner | None = None
        self._layout = RepoLayout(prefix="")
        self._outcome: OutcomeService | None = None

    # repository ---------------------------------------------------------------
    def _open(self) -> GitRunner | None:
        """The runner at the repository's top level, or None when the project is not in a repository."""
        if not self._opened:
            probe = GitRunner(self.root.path)
            status, out, _ = probe.run(["rev-parse", "--show-toplevel"], check=False)
            if status == 0 and out.strip():
                runner = GitRunner(Path(out.decode().strip()).resolve())
                prefix = self.root.path.relative_to(runner.toplevel).as_posix()
                self._layout = RepoLayout(prefix="" if prefix == "." else prefix + "/")
                self._git = runner
            self._opened = True
        return self._git

    def outcome(self) -> OutcomeService:
        """The project's fingerprints, copies and restores for the outcome check (code_intel.workflow.outcome)."""
        with self._lock:
            if self._outcome is None:
                git = self._open()
                self._outcome = OutcomeService(self.root, git, self._layout.prefix)
            return self._outcome

    def is_repo(self) -> bool:
        with self._lock:
            return self._open() is not None

    def close(self) -> None:
        with self._lock:
            self._git, self._opened = None, False

    # session start --------------------------------------------------------------
    def begin_session(self, session_id: str) -> GitSessionInfo:
        with self._lock:
            git = self._open()
            if git is None:
                return GitSessionInfo(is_repo=False, note=NOT_A_REPO, content_baseline=session_id)
            info = self._describe_head(git, GitSessionInfo(is_repo=True))
            if info.base_commit and not all(git.run(["var", f"GIT_{who}_IDENT"], check=False)[0] == 0
                                            for who in ("AUTHOR", "COMMITTER")):
                info.note = "; ".join(filter(None, [info.note, NO_IDENTITY]))
            info.stale_branches = sorted(br.list_task_branches(git))
            info.snapshot = take_snapshot(git, self._layout, session_id, info.base_commit)
            log.info("session %s: base %s, stale branches %s", session_id, info.base_branch or info.base_commit, info.stale_branches)
            return info

    def _describe_head(self, git: GitRunner, info: GitSessionInfo) -> GitSessionInfo:
        """Fill base_branch, base_commit, detached, current_task_branch and note from where HEAD is now."""
        head = br.head_state(git)
        info.base_commit = head.commit
        info.detached = head.branch is None
        info.current_task_branch = None
        info.base_branch = head.branch
        notes: list[str] = []
        if head.branch and br.base_of(head.branch):
            info.current_task_branch = head.branch
            info.base_branch = br.base_of(head.branch)
            notes.append(f"HEAD is on the task branch {head.branch}")
        if info.detached and head.commit:
            notes.append(
                f"HEAD is detached at {head.commit[:12]}: the task branch starts from that commit and MERGE leaves "
                "the work on the task branch, saying how to merge it"
            )
        if head.commit is None:
            notes.append("the repository has no commit yet: make a first commit before a task branch can be created")
        in_progress = [name for name in IN_PROGRESS_MARKERS if git.git_path(name).exists()]
        if in_progress:
            notes.append(
                f"a git operation is in progress ({', '.join(in_progress)}): finish or abort it before the session "
                "commits, or its state will be mixed with the session's"
            )
        info.note = "; ".join(notes)
        return info

    def _restart_snapshot(self, git: GitRunner, info: GitSessionInfo, session_id: str | None) -> None:
        """Re-take the snapshot after a branch switch, so files the switch changed never count as session edits."""
        if not session_id:
            return
        drop_snapshot(git, session_id)
        info.snapshot = take_snapshot(git, self._layout, session_id, info.base_commit)

    def _session_id(self, git: GitRunner, info: GitSessionInfo) -> str | None:
        if not info.snapshot:
            return None
        for ref in list_snapshot_refs(git):
            if git.rev(ref) == info.snapshot:
                return ref[len(SNAPSHOT_REF_PREFIX):]
        return None

    # BRANCH_INTERVENTION ----------------------------------------------------------
    def resolve_stale_branches(self, choice: BranchChoice, info: GitSessionInfo) -> tuple[GitSessionInfo, BranchReport]:
        if choice not in ("delete", "merge", "continue"):
            raise InvalidArgument(f"unknown branch choice {choice!r}", hint="send choice: 'delete', 'merge' or 'continue'")
        with self._lock:
            git = self._open()
            info = info.model_copy(deep=True)
            info.branch_policy = choice
            if git is None:
                return info, BranchReport(choice=choice, note=NOT_A_REPO)
            if choice == "continue":
                return self._continue(git, info)
            session_id = self._session_id(git, info)
            branches = br.list_task_branches(git)
            report = BranchReport(choice=choice)
            if choice == "merge":
                report.merged = self._merge_stale(git, info, branches)
            else:
                self._leave_task_branch(git, info)
            report.deleted_branches = self._delete_branches(git, br.list_task_branches(git))
            self._describe_head(git, info)
            info.stale_branches, info.task_branch = [], None
            self._restart_snapshot(git, info, session_id)
            report.now_on = info.base_branch or info.base_commit
            return info, report

    def _continue(self, git: GitRunner, info: GitSessionInfo) -> tuple[GitSessionInfo, BranchReport]:
        head = br.head_state(git)
        report = BranchReport(choice="continue", kept_branches=sorted(br.list_task_branches(git)))
        if info.current_task_branch and head.branch == info.current_task_branch:
            info.task_branch = info.current_task_branch
            report.note = f"the session works on {info.task_branch}; MERGE merges it into {info.base_branch}"
        else:
            report.note = (
                f"HEAD is on {head.branch or 'a detached commit'}, not on a task branch: no task branch will be "
                "created, so the session's commit goes straight onto it and MERGE has nothing to merge"
            )
        return info, report

    def _merge_stale(self, git: GitRunner, info: GitSessionInfo, branches: dict[str, str]) -> StaleMerge:
        target = info.current_task_branch or (next(iter(branches)) if len(branches) == 1 else None)
        if not target or target not in branches:
            raise GitError(
                "merge needs one task branch to merge, but HEAD is not on a task branch and there are "
                f"{len(branches)}: {', '.join(sorted(branches))}",
                hint="check out the llm_task_* branch to merge and start again, or choose 'delete' or 'continue'",
            )
        base = br.base_of(target)
        if not base or not br.branch_exists(git, base):
            raise GitError(
                f"{target} has no base branch to merge into ({base!r} is not a branch; it may have started from a "
                "detached HEAD)",
                hint=f"merge it by hand (git checkout <branch> && git merge {target}), or choose 'delete' or 'continue'",
            )
        result = br.plan_merge(git, target, base, f"Merge {target} into {base}")
        br.land_on_base(git, target, base, result, f"code-intel: merge {target}")
        return StaleMerge(branch=target, into=base, kind=result.kind, commit=result.new_base_head, branch_head=branches[target])

    def _leave_task_branch(self, git: GitRunner, info: GitSessionInfo) -> str | None:
        """When HEAD is on a task branch, go back to the base named in it (carrying uncommitted work)."""
        head = br.head_state(git)
        base = br.base_of(head.branch) if head.branch else None
        if not base:
            return None
        if not br.branch_exists(git, base) and not git.rev(f"{base}^{{commit}}"):
            raise GitError(
                f"HEAD is on {head.branch}, whose base {base!r} no longer exists",
                hint="check out the branch you want to keep working on, then try again; nothing was deleted",
            )
        br.switch_to(git, base)
        return base

    def _delete_branches(self, git: GitRunner, branches: dict[str, str]) -> list[DeletedBranch]:
        deleted = []
        for name, head in sorted(branches.items()):
            br.delete_branch(git, name)
            faults.hit("git.branches.after_delete")
            log.info("deleted %s at %s", name, head)
            deleted.append(DeletedBranch(branch=name, head=head, recover=f"git branch {name} {head}"))
        return deleted

    # READY planning -----------------------------------------------------------------
    def create_task_branch(self, session_id: str, info: GitSessionInfo) -> GitSessionInfo:
        with self._lock:
            git = self._open()
            info = info.model_copy(deep=True)
            if git is None:
                return info
            head = br.head_state(git)
            if info.branch_policy == "continue":
                info.task_branch = info.current_task_branch if head.branch == info.current_task_branch else None
                return info
            if info.task_branch and br.branch_exists(git, info.task_branch):
                if head.branch != info.task_branch:
                    br.switch_to(git, info.task_branch)  # back to READY after a revert: keep working on it
                return info
            name = br.task_branch_name(session_id, info.base_branch or (info.base_commit or "")[:12])
            if br.branch_exists(git, name):
                # made before the server was interrupted, and not yet in the checkpoint: take it up again
                if head.branch != name:
                    br.switch_to(git, name)
                info.task_branch = name
                log.info("took up task branch %s, created before an interruption", name)
                return info
            if head.commit is None:
                raise GitError(
                    "the repository has no commit yet, so there is nothing to branch from",
                    hint="make a first commit (e.g. `git commit --allow-empty -m 'Initial commit'`), then submit READY again",
                )
            expected = info.base_branch if not info.detached else None
            if head.branch != expected or (info.detached and head.commit != info.base_commit):
                raise GitError(
                    f"HEAD moved since the session started (now {head.branch or head.commit[:12]}, was "
                    f"{info.base_branch or (info.base_commit or '')[:12]})",
                    hint="check out the branch the session started on and submit again, or start a new session",
                )
            if not git.ok("check-ref-format", "--branch", name):
                raise GitError(f"{name!r} is not a valid branch name", hint="session ids must be plain letters, digits, '-' or '_'")
            git.run(["checkout", "--quiet", "-b", name])  # same commit: the working tree and index stay as they are
            faults.hit("git.branch.after_create")
            info.task_branch = name
            log.info("created task branch %s", name)
            return info

    # READY implementation / PRE_COMMIT -------------------------------------------------
    def changed_since_snapshot(self, info: GitSessionInfo) -> list[str]:
        with self._lock:
            git = self._open()
            if git is None and info.content_baseline:
                return ContentBaseline(self.root, info.content_baseline).changed()
            if git is None or not info.snapshot:
                return []
            return self._project_changes(git, snapshot_tree(git, info.snapshot), working_tree(git, self._layout))

    def changed_at_start(self, info: GitSessionInfo) -> list[str]:
        with self._lock:
            git = self._open()
            if git is None or not info.snapshot:
                return []
            return self._project_changes(git, tree_of(git, info.base_commit), snapshot_tree(git, info.snapshot))

    def working_changes(self) -> list[str] | None:
        """Project files whose content differs from HEAD now (staged, unstaged or untracked; ignored files and
        `.code-intel/` left out), as `git status` would list them; None when the project is not in a repository.
        For `code-intel check` outside a session."""
        with self._lock:
            git = self._open()
            if git is None:
                return None
            return self._project_changes(git, tree_of(git, git.rev("HEAD")), working_tree(git, self._layout))

    def _project_changes(self, git: GitRunner, old_tree: str, new_tree: str) -> list[str]:
        """The project-relative paths whose content differs between two trees (files outside the project left out)."""
        return [p for p in (self._layout.from_repo(c) for c in changed_paths(git, old_tree, new_tree)) if p is not None]

    def baseline(self, info: GitSessionInfo, path: str) -> Baseline:
        with self._lock:
            git = self._open()
            if git is None:
                if not info.content_baseline:
                    return Baseline(known=False)
                known, data = ContentBaseline(self.root, info.content_baseline).content(path)
                return Baseline(known=known, text=None if data is None else data.decode("utf-8", errors="replace"))
            if not info.snapshot:
                return Baseline(known=False)
            repo_path = self._layout.to_repo(path)
            found = entry(git, snapshot_tree(git, info.snapshot), repo_path)
            if found is None or found.kind != "blob":
                # not in the snapshot: new, or ignored by git (then it is never in any snapshot or commit)
                ignored = git.run(["check-ignore", "-q", "--", repo_path], check=False)[0] == 0
                return Baseline(known=True, text=None, ignored=ignored)
            return Baseline(known=True, text=git.blob_bytes(found.oid).decode("utf-8", errors="replace"))

    def snapshot_at_ready(self, session_id: str, info: GitSessionInfo, paths: list[str]) -> GitSessionInfo:
        with self._lock:
            ContentBaseline(self.root, session_id, READY).remember(paths, afresh=True)
            return info.model_copy(update={"ready_snapshot": session_id})

    def ready_baseline(self, info: GitSessionInfo, path: str) -> Baseline:
        if not info.ready_snapshot:
            return Baseline(known=False)
        with self._lock:
            known, data = ContentBaseline(self.root, info.ready_snapshot, READY).content(path)
            return Baseline(known=known, text=None if data is None else data.decode("utf-8", errors="replace"))

    def remember_baseline(self, info: GitSessionInfo, paths: list[str]) -> None:
        with self._lock:
            if self._open() is None and info.content_baseline:
                ContentBaseline(self.root, info.content_baseline).remember(paths)

    def review(
        self, info: GitSessionInfo, *, max_diff_bytes: int = 200_000, write_allowed: Callable[[str], bool] | None = None
    ) -> ChangeReview:
        """The session's changes; pass `write_allowed` (the write rules) to flag files written outside them."""
        with self._lock:
            git = self._open()
            if git is None or not info.snapshot:
                return ChangeReview(is_repo=git is not None,
                                    note=NOT_A_REPO if git is None else "no snapshot for this session: nothing to compare")
            review = review_session(git, self._layout, info.snapshot, max_diff_bytes=max_diff_bytes, write_allowed=write_allowed)
            review.task_branch = info.task_branch
            return review

    def _project_paths(self, paths: list[str], kind: str) -> list[str]:
        out: list[str] = []
        for raw in paths:
            resolved = self.root.resolve_entry(raw, kind=kind)  # a symlink is committed or discarded as a link
            rel = self.root.relative(resolved)
            if rel == "." or PurePosixPath(rel).parts[:1] == (STATE_DIR,):
                raise InvalidArgument(f"{kind} {raw!r} is not a project file", hint=f"list files, not folders or {STATE_DIR}/")
            if resolved.is_dir() and not resolved.is_symlink():
                raise InvalidArgument(f"{kind} {raw!r} is a folder", hint="list each file separately")
            if rel not in out:
                out.append(rel)
        return out

    def commit(
        self, info: GitSessionInfo, reviewed_files: list[str], discarded_files: list[str], message: str
    ) -> tuple[GitSessionInfo, CommitReport]:
        if not message or not message.strip():
            raise InvalidArgument("commit_message is empty", hint="send an imperative subject line, e.g. 'Add logout endpoint'")
        reviewed = self._project_paths(reviewed_files, "reviewed file")
        discarded = self._project_paths(discarded_files, "discarded file")
        both = sorted(set(reviewed) & set(discarded))
        if both:
            raise InvalidArgument(f"files both reviewed and discarded: {', '.join(both)}", hint="keep each file in one list")
        with self._lock:
            git = self._open()
            info = info.model_copy(deep=True)
            if git is None:
                return info, CommitReport(committed=False, note=NOT_A_REPO + "; the changes stay in the working tree")
            if not info.snapshot:
                raise GitError("this session has no working-tree snapshot", hint="start a new session")
            outcome = commit_session(
                git, self._layout, snapshot=info.snapshot, task_branch=info.task_branch,
                reviewed=reviewed, discarded=discarded, message=message.strip() + "\n",
            )
            if outcome.commit:
                info.commits.append(outcome.commit)
            elif outcome.committed_files == [] and (earlier := self._interrupted_commit(git, info, message)):
                # the same commit went in before the server was interrupted: count it as this submit's
                info.commits.append(earlier)
                outcome.commit = earlier
                outcome.warnings.append("this commit was made before the server was interrupted; it is not repeated")
            report = CommitReport(committed=outcome.commit is not None, branch=br.head_state(git).branch, **vars(outcome))
            if outcome.commit is None:
                report.note = "no reviewed file differs from the branch head: nothing new was committed"
            return info, report

    @staticmethod
    def _interrupted_commit(git: GitRunner, info: GitSessionInfo, message: str) -> str | None:
        """HEAD, when it is a commit with this message made on the task branch but not recorded yet."""
        head = br.head_state(git)
        if not head.commit or head.commit in info.commits or head.commit == info.base_commit:
            return None
        if info.task_branch and head.branch != info.task_branch:
            return None
        if git.text("log", "-1", "--format=%B", head.commit).strip() != message.strip():
            return None
        if info.base_commit and not git.ok("merge-base", "--is-ancestor", info.base_commit, head.commit):
            return None
        return head.commit

    # MERGE -------------------------------------------------------------------------------
    def merge(self, info: GitSessionInfo) -> tuple[GitSessionInfo, MergeReport]:
        with self._lock:
            git = self._open()
            info = info.model_copy(deep=True)
            if git is None:
                return info, MergeReport(merged=False, note=NOT_A_REPO)
            session_id = self._session_id(git, info)
            task = info.task_branch
            head = br.head_state(git)
            if not task:
                return info, MergeReport(merged=False, note="no task branch in this session: its commits, if any, are on "
                                         f"{head.branch or 'the detached HEAD'}")
            if info.detached or not info.base_branch:
                if session_id:
                    drop_snapshot(git, session_id)
                return info, MergeReport(
                    merged=False, task_branch=task,
                    note=f"the session started on a detached HEAD ({(info.base_commit or '')[:12]}), so there is no "
                         f"branch to merge into: the work stays on {task}. Merge it yourself with "
                         f"`git checkout <branch> && git merge {task}`.",
                )
            task_head = git.rev(f"refs/heads/{task}")
            if task_head is None:
                done = self._merged_before_interruption(git, info, session_id)
                if done is not None:
                    return done
                task_head = self._recreate_task_branch(git, info)
            result = br.plan_merge(git, task, info.base_branch, f"Merge {task} into {info.base_branch}")
            br.land_on_base(git, task, info.base_branch, result, f"code-intel: merge {task}")
            faults.hit("git.merge.after_land")
            br.delete_branch(git, task)
            faults.hit("git.merge.after_delete")
            if session_id:
                drop_snapshot(git, session_id)
            info.task_branch = None
            log.info("merged %s into %s (%s)", task, info.base_branch, result.kind)
            return info, MergeReport(merged=True, kind=result.kind, base_branch=info.base_branch, commit=result.new_base_head,
                                     deleted_branch=task, branch_head=task_head)

    def _merged_before_interruption(self, git: GitRunner, info: GitSessionInfo,
                                    session_id: str | None) -> tuple[GitSessionInfo, MergeReport] | None:
        """The MERGE report when the task branch is gone because this merge already happened, else None."""
        assert info.task_branch and info.base_branch
        base_head = git.rev(f"refs/heads/{info.base_branch}")
        if base_head is None:
            return None
        landed = all(git.ok("merge-base", "--is-ancestor", commit, base_head) for commit in info.commits)
        if not landed:
            return None
        task = info.task_branch
        head = br.head_state(git)
        if head.branch is None and head.commit == base_head:
            git.run(["symbolic-ref", "-m", f"code-intel: merge {task}", "HEAD", f"refs/heads/{info.base_branch}"])
        if session_id:
            drop_snapshot(git, session_id)
        info.task_branch = None
        note = (f"{task} was already merged into {info.base_branch} and deleted before the server was interrupted"
                if info.commits else f"{task} is gone and this session committed nothing: there was nothing to merge")
        log.info("merge of %s found done after an interruption", task)
        return info, MergeReport(merged=bool(info.commits), kind="already-merged" if info.commits else "nothing-to-merge",
                                 base_branch=info.base_branch, commit=base_head, deleted_branch=task, note=note)

    def _recreate_task_branch(self, git: GitRunner, info: GitSessionInfo) -> str:
        """Put a deleted task branch back at the session's last commit (its commits are still in the repository)."""
        assert info.task_branch
        tip = info.commits[-1] if info.commits else None
        if tip is None or git.rev(f"{tip}^{{commit}}") is None:
            raise GitError(f"task branch {info.task_branch!r} no longer exists and its commits cannot be found",
                           hint="run cleanup_stale_branches and start again; the branch head it reports can be recovered")
        git.run(["branch", "--", info.task_branch, tip])
        log.info("recreated deleted task branch %s at %s", info.task_branch, tip)
        return tip

    def reconcile(self, session_id: str, info: GitSessionInfo, on_task_branch: bool) -> tuple[GitSessionInfo, list[str]]:
        """Bring the repository back in line with a checkpoint after a restart; returns what was repaired.

        `on_task_branch` is True in the phases that work on the task branch (READY to QUALITY_REVIEW):
        a task branch deleted by an interrupted --clean is put back (at the session's last commit, or
        where HEAD is), and HEAD returns to it from the base branch, carrying uncommitted work. A
        missing snapshot ref is re-pointed at the recorded snapshot. Nothing is ever deleted here.
        """
        with self._lock:
            git = self._open()
            info = info.model_copy(deep=True)
            notes: list[str] = []
            if git is None or not info.is_repo:
                return info, notes
            ref = SNAPSHOT_REF_PREFIX + session_id
            current = git.rev(ref)
            if info.snapshot and current != info.snapshot and git.rev(f"{info.snapshot}^{{commit}}"):
                # missing (an interrupted --clean) or re-taken by a step the checkpoint never recorded
                git.run(["update-ref", "-m", "code-intel snapshot", ref, info.snapshot])
                notes.append("the working-tree snapshot ref was " + ("restored" if current is None else
                                                                     "put back to the one the checkpoint records"))
            task = info.task_branch
            if not on_task_branch or not task:
                return info, notes
            head = br.head_state(git)
            if not br.branch_exists(git, task):
                start = info.commits[-1] if info.commits and git.rev(f"{info.commits[-1]}^{{commit}}") else head.commit
                if start is None:
                    return info, notes
                git.run(["branch", "--", task, start])
                notes.append(f"the task branch {task} was missing and was recreated at {start[:12]}")
            if head.branch != task and (head.branch == info.base_branch or head.branch is None):
                try:
                    br.switch_to(git, task)
                    notes.append(f"HEAD was back on {head.branch or 'a detached commit'}; it is on {task} again")
                except GitError as err:
                    notes.append(f"HEAD is on {head.branch or 'a detached commit'}, not on {task}: {err.message}")
            return info, notes

    def prune_snapshots(self, keep: set[str]) -> list[str]:
        """Delete snapshot refs of sessions that have no checkpoint (left by a start that was interrupted)."""
        with self._lock:
            git = self._open()
            if git is None:
                return []
            dropped = []
            for ref in list_snapshot_refs(git):
                session_id = ref[len(SNAPSHOT_REF_PREFIX):]
                if session_id not in keep:
                    drop_snapshot(git, session_id)
                    dropped.append(session_id)
            return dropped

    def end_session(self, info: GitSessionInfo) -> None:
        """Forget the session's snapshot (sessions that end without MERGE: --quick, investigations)."""
        with self._lock:
            git = self._open()
            if git is None and info.content_baseline:
                ContentBaseline(self.root, info.content_baseline).drop()
            if info.ready_snapshot:
                ContentBaseline(self.root, info.ready_snapshot, READY).drop()
            session_id = self._session_id(git, info) if git else None
            if git and session_id:
                drop_snapshot(git, session_id)

    # --clean ----------------------------------------------------------------------------------
    def cleanup(self) -> CleanupReport:
        with self._lock:
            git = self._open()
            if git is None:
                return CleanupReport(is_repo=False, note=NOT_A_REPO, deleted_content_snapshots=drop_all(self.root))
            returned_to = self._leave_task_branch(git, GitSessionInfo(is_repo=True))
            faults.hit("git.clean.after_leave")
            deleted = self._delete_branches(git, br.list_task_branches(git))
            snapshots = list_snapshot_refs(git)
            for ref in snapshots:
                git.run(["update-ref", "-d", ref])
            drop_all(self.root)  # the READY snapshots belong to the sessions being reset
            faults.hit("git.clean.after_snapshots")
            head = br.head_state(git)
            return CleanupReport(is_repo=True, returned_to=returned_to, now_on=head.branch or head.commit,
                                 deleted_branches=deleted, deleted_snapshots=len(snapshots))
