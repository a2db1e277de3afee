"""Task branches: naming, listing, switching and merging, each step undone if the next one fails."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from code_intel.core import faults
from code_intel.core.errors import GitError
from code_intel.core.session_types import TASK_BRANCH_PREFIX
from code_intel.git.runner import GitRunner

log = logging.getLogger(__name__)
BASE_SEPARATOR = "_from_"


def task_branch_name(session_id: str, base_label: str) -> str:
    return f"{TASK_BRANCH_PREFIX}{session_id}{BASE_SEPARATOR}{base_label}"


def base_of(task_branch: str) -> str | None:
    """The base named in `llm_task_<session>_from_<base>` (a branch, or a commit for a detached start)."""
    if not task_branch.startswith(TASK_BRANCH_PREFIX):
        return None
    _, sep, base = task_branch[len(TASK_BRANCH_PREFIX):].partition(BASE_SEPARATOR)
    return base if sep and base else None


def list_task_branches(git: GitRunner) -> dict[str, str]:
    """Every local llm_task_* branch with its head commit."""
    out = git.text("for-each-ref", "--format=%(refname:short) %(objectname)", f"refs/heads/{TASK_BRANCH_PREFIX}*")
    branches: dict[str, str] = {}
    for line in out.splitlines():
        name, _, head = line.rpartition(" ")
        if name:
            branches[name] = head
    return branches


@dataclass(frozen=True)
class HeadState:
    commit: str | None  # None on a branch with no commit yet
    branch: str | None  # None when detached


def head_state(git: GitRunner) -> HeadState:
    status, out, _ = git.run(["symbolic-ref", "--quiet", "--short", "HEAD"], check=False)
    branch = out.decode().strip() if status == 0 else None
    return HeadState(commit=git.rev("HEAD"), branch=branch)


def branch_exists(git: GitRunner, name: str) -> bool:
    return git.rev(f"refs/heads/{name}") is not None


def switch_to(git: GitRunner, target: str) -> None:
    """Check out a branch (or, for a commit, detach there), carrying uncommitted changes along.

    git refuses, touching nothing, when a carried change would be overwritten; that becomes a
    GitError naming the files.
    """
    if branch_exists(git, target):
        args = ["checkout", "--quiet", target, "--"]
    elif git.rev(f"{target}^{{commit}}"):
        args = ["checkout", "--quiet", "--detach", target, "--"]
    else:
        raise GitError(f"cannot return to {target!r}: no such branch or commit", hint="check `git branch` and switch by hand")
    status, _, err = git.run(args, check=False)
    if status != 0:
        files = _files_in_checkout_error(err)
        raise GitError(
            f"cannot switch to {target!r}: uncommitted changes would be overwritten"
            + (f" in {', '.join(files)}" if files else f" ({err.strip()})"),
            hint="commit, stash or move those changes yourself, then try again; nothing was changed",
            files=files,
        )


def _files_in_checkout_error(stderr: str) -> list[str]:
    # git lists the affected files indented by a tab between its two message lines
    return [line.strip() for line in stderr.splitlines() if line.startswith("\t")]


def delete_branch(git: GitRunner, name: str) -> None:
    git.run(["branch", "-D", "--", name])


@dataclass(frozen=True)
class MergeResult:
    new_base_head: str
    kind: str  # "fast-forward", "merge-commit" or "up-to-date"


def plan_merge(git: GitRunner, task_branch: str, base_branch: str, message: str) -> MergeResult:
    """Compute the merged commit without touching the working tree, the index or any ref.

    A conflict raises GitError with `files`; nothing in the repository has changed.
    """
    task_head = git.rev(f"refs/heads/{task_branch}")
    base_head = git.rev(f"refs/heads/{base_branch}")
    if not task_head:
        raise GitError(f"task branch {task_branch!r} no longer exists", hint="run cleanup_stale_branches and start again")
    if not base_head:
        raise GitError(
            f"base branch {base_branch!r} no longer exists",
            hint=f"recreate it (git branch {base_branch} <commit>) and submit MERGE again",
        )
    if git.ok("merge-base", "--is-ancestor", task_head, base_head):
        return MergeResult(new_base_head=base_head, kind="up-to-date")
    if git.ok("merge-base", "--is-ancestor", base_head, task_head):
        return MergeResult(new_base_head=task_head, kind="fast-forward")
    status, out, err = git.run(["merge-tree", "--write-tree", "-z", "--name-only", base_head, task_head], check=False)
    if status == 1:
        files = _conflicted_files(out)
        raise GitError(
            f"merging {task_branch} into {base_branch} conflicts in: {', '.join(files)}",
            hint=(
                f"nothing was merged and the repository is as it was. Resolve by hand: `git checkout {base_branch}`, "
                f"`git merge {task_branch}`, fix the files, commit; or rebase {task_branch} onto {base_branch} "
                "and submit MERGE again"
            ),
            files=files,
        )
    if status != 0:
        raise GitError(f"git merge-tree failed: {err.strip()}", hint="the repository was left as it was")
    tree = out.split(b"\0", 1)[0].decode().strip()
    commit = git.text("commit-tree", "-p", base_head, "-p", task_head, "-m", message, tree)
    return MergeResult(new_base_head=commit, kind="merge-commit")


def _conflicted_files(out: bytes) -> list[str]:
    # -z --name-only: tree id, then the conflicted paths, an empty field, then informational messages
    fields = out.split(b"\0")
    files: list[str] = []
    for field in fields[1:]:
        if not field:
            break
        name = field.decode(errors="surrogateescape")
        if name not in files:
            files.append(name)
    return files


def move_branch(git: GitRunner, branch: str, new_head: str, old_head: str, reason: str) -> None:
    """Point `branch` at `new_head` only if it still points at `old_head` (no lost concurrent update)."""
    git.run(["update-ref", "-m", reason, f"refs/heads/{branch}", new_head, old_head])


def land_on_base(git: GitRunner, task_branch: str, base_branch: str, result: MergeResult, reason: str) -> None:
    """Move the base branch to the merge result and leave HEAD on it, restoring everything on failure."""
    head = head_state(git)
    base_head = git.rev(f"refs/heads/{base_branch}")
    assert base_head is not None  # plan_merge checked it
    if head.branch == base_branch:
        # the working tree follows the base: a fast-forward to the result updates files atomically or not at all
        if result.new_base_head != base_head:
            status, _, err = git.run(["merge", "--ff-only", "--quiet", result.new_base_head], check=False)
            if status != 0:
                raise GitError(
                    f"cannot update {base_branch}: {err.strip()}",
                    hint="uncommitted changes stand in the way; commit or move them and try again; nothing was changed",
                    files=_files_in_checkout_error(err),
                )
        return
    if result.new_base_head != base_head:
        move_branch(git, base_branch, result.new_base_head, base_head, reason)
        faults.hit("git.merge.after_move")
    if head.branch != task_branch:
        return  # HEAD is elsewhere: only the ref moves
    if result.new_base_head == head.commit:
        # same commit: just re-point HEAD, the working tree and index already match
        git.run(["symbolic-ref", "-m", reason, "HEAD", f"refs/heads/{base_branch}"])
        return
    try:
        switch_to(git, base_branch)
    except GitError:
        if result.new_base_head != base_head:
            move_branch(git, base_branch, base_head, result.new_base_head, "code-intel: undo " + reason)
        raise
