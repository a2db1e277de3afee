"""The commit gate: restore discarded files, commit exactly the reviewed ones, keep the user's own work.

The commit is built in a throw-away index from HEAD plus the reviewed files, so whatever the user
had staged or left unstaged before the session stays exactly where it was. A reviewed file that
already held uncommitted user edits at session start gets only the session's part of the change
(a three-way merge that takes the user's edits back out); when the two overlap the commit is
refused for that file instead of committing the user's work.
"""

from __future__ import annotations

import logging
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from code_intel.core import faults
from code_intel.core.errors import GitError
from code_intel.git.branches import head_state
from code_intel.git.runner import GitRunner
from code_intel.git.snapshot import (
    LITERAL_PATHS,
    RepoLayout,
    TreeEntry,
    entry,
    snapshot_base,
    snapshot_index,
    snapshot_tree,
    tree_of,
    working_tree,
)

log = logging.getLogger(__name__)


@dataclass
class CommitOutcome:
    commit: str | None
    committed_files: list[str] = field(default_factory=list)
    unchanged_files: list[str] = field(default_factory=list)
    discarded_files: list[str] = field(default_factory=list)
    kept_user_edits: list[str] = field(default_factory=list)  # files whose pre-session edits stay uncommitted
    warnings: list[str] = field(default_factory=list)


def three_way(git: GitRunner, ours: bytes, base: bytes, theirs: bytes) -> bytes | None:
    """`git merge-file`: ours + (theirs - base), or None on a conflict or binary content."""
    with tempfile.TemporaryDirectory(prefix="code-intel-merge-") as folder:
        paths = [Path(folder) / name for name in ("ours", "base", "theirs")]
        for path, content in zip(paths, (ours, base, theirs), strict=True):
            path.write_bytes(content)
        status, out, _ = git.run(["merge-file", "-p", "-q", *map(str, paths)], check=False)
        return out if status == 0 else None


def _blob(git: GitRunner, item: TreeEntry | None) -> bytes:
    return git.blob_bytes(item.oid) if item and item.kind == "blob" else b""


def _session_part(
    git: GitRunner, current: TreeEntry | None, at_start: TreeEntry | None, committed_at_start: TreeEntry | None, head: TreeEntry | None
) -> tuple[TreeEntry | None, bool]:
    """What to commit for one file: (entry, True) or (None, False) when it cannot be separated."""
    if at_start == committed_at_start:
        return current, True  # the user had not touched it: commit the file as it is now
    if current == at_start:
        return head, True  # the session did not change it: nothing of it is committed
    texts = all(e is not None and e.kind == "blob" and e.mode != "120000" for e in (current, at_start, committed_at_start))
    if not texts:
        return None, False  # created, deleted or made binary/symlink around the user's own edits
    assert current is not None and committed_at_start is not None
    merged = three_way(git, _blob(git, current), _blob(git, at_start), _blob(git, committed_at_start))
    if merged is None:
        return None, False
    return TreeEntry(mode=current.mode, oid=git.write_blob(merged), kind="blob"), True


def _index_entry(git: GitRunner, repo_path: str) -> TreeEntry | None:
    out = git.run(["ls-files", "-s", "-z", "--", repo_path], env=LITERAL_PATHS)[1]
    for record in out.split(b"\0"):
        meta, _, name = record.partition(b"\t")
        if name.decode(errors="surrogateescape") == repo_path:
            mode, oid, stage = meta.decode().split()
            if stage == "0":
                return TreeEntry(mode=mode, oid=oid, kind="commit" if mode == "160000" else "blob")
    return None


def _set_index(git: GitRunner, repo_path: str, item: TreeEntry | None, env: dict[str, str] | None = None) -> None:
    if item is None:
        git.run(["update-index", "--force-remove", "--", repo_path], env=env)
    else:
        git.run(["update-index", "--add", "--cacheinfo", f"{item.mode},{item.oid},{repo_path}"], env=env)


def _restore_file(git: GitRunner, repo_path: str, item: TreeEntry | None, tree: str) -> None:
    """Put one working-tree file back to its content in `tree` (filters and mode applied), or delete it."""
    target = git.toplevel / repo_path
    if item is None:
        if target.is_symlink() or target.is_file():
            target.unlink()
        return
    with git.temporary_index(seed_from_real_index=False) as env:
        git.run(["read-tree", tree], env=env)
        if target.is_symlink() or target.is_file():
            target.unlink()  # checkout-index will not replace a file that changed type
        git.run(["checkout-index", "-f", "--", repo_path], env={**env, **LITERAL_PATHS})


def commit_session(
    git: GitRunner,
    layout: RepoLayout,
    *,
    snapshot: str,
    task_branch: str | None,
    reviewed: list[str],
    discarded: list[str],
    message: str,
) -> CommitOutcome:
    """Discard, then commit; every check runs before the first change, so a refusal changes nothing."""
    head = head_state(git)
    if task_branch and head.branch != task_branch:
        raise GitError(
            f"HEAD is on {head.branch or 'a detached commit'}, not on the session's task branch {task_branch}",
            hint=f"run `git checkout {task_branch}` and submit PRE_COMMIT again",
        )
    trees = _Trees(start=snapshot_tree(git, snapshot), committed_at_start=tree_of(git, snapshot_base(git, snapshot)),
                   head=tree_of(git, head.commit), current=working_tree(git, layout))
    outcome = CommitOutcome(commit=None)
    planned = _session_parts(git, layout, trees, reviewed, outcome)
    new_commit = _commit_tree(git, head.commit, trees.head, planned, message) if planned else None
    _discard(git, layout, snapshot, trees.start, discarded, outcome)
    faults.hit("git.commit.after_discard")
    if new_commit:
        _move_head(git, head.commit, trees.head, planned, new_commit, message, outcome)
        outcome.commit = new_commit
    return outcome


@dataclass(frozen=True)
class _Trees:
    start: str  # the working tree at session start (the snapshot)
    committed_at_start: str  # HEAD's tree at session start
    head: str  # HEAD's tree now
    current: str  # the working tree now


def _session_parts(git: GitRunner, layout: RepoLayout, trees: _Trees, reviewed: list[str],
                   outcome: CommitOutcome) -> dict[str, TreeEntry | None]:
    """What each reviewed file is to become in the commit (its session part), by repository path; refuses files
    whose session part cannot be told from the user's own uncommitted edits."""
    planned: dict[str, TreeEntry | None] = {}
    inseparable: list[str] = []
    for path in reviewed:
        repo_path = layout.to_repo(path)
        current = entry(git, trees.current, repo_path)
        if current is None and (git.toplevel / repo_path).exists() and not (git.toplevel / repo_path).is_dir():
            outcome.warnings.append(f"{path} is ignored by .gitignore and was not committed")
            continue
        at_start = entry(git, trees.start, repo_path)
        committed_at_start = entry(git, trees.committed_at_start, repo_path)
        in_head = entry(git, trees.head, repo_path)
        wanted, ok = _session_part(git, current, at_start, committed_at_start, in_head)
        if not ok:
            inseparable.append(path)
            continue
        if at_start != committed_at_start and current != at_start:
            outcome.kept_user_edits.append(path)
        if wanted == in_head:
            outcome.unchanged_files.append(path)
        else:
            planned[repo_path] = wanted
            outcome.committed_files.append(path)
    if inseparable:
        raise GitError(
            "these files held your own uncommitted edits before the session and the session changed the same "
            f"lines, so its part cannot be committed without yours: {', '.join(inseparable)}",
            hint="move them to discarded_files (back to how they were at session start), or commit or revert "
            "your own edits there yourself, then submit again; nothing was committed",
            files=inseparable,
        )
    return planned


def _commit_tree(git: GitRunner, head_commit: str | None, head_tree: str, planned: dict[str, TreeEntry | None],
                 message: str) -> str:
    """A commit of HEAD's tree with the planned files set, built in a temporary index; no ref moves yet."""
    with git.temporary_index(seed_from_real_index=False) as env:
        git.run(["read-tree", head_tree], env=env)
        for repo_path, wanted in planned.items():
            _set_index(git, repo_path, wanted, env)
        new_tree = git.text("write-tree", env=env)
    parents = ["-p", head_commit] if head_commit else []
    return git.text("commit-tree", *parents, "-m", message, new_tree)


def _discard(git: GitRunner, layout: RepoLayout, snapshot: str, start_tree: str, discarded: list[str],
             outcome: CommitOutcome) -> None:
    """Put each discarded file back as it was at session start, in the working tree and the index."""
    start_index_tree = snapshot_index(git, snapshot)
    for path in discarded:
        repo_path = layout.to_repo(path)
        _restore_file(git, repo_path, entry(git, start_tree, repo_path), start_tree)
        if start_index_tree:
            _set_index(git, repo_path, entry(git, start_index_tree, repo_path))
        outcome.discarded_files.append(path)


def _move_head(git: GitRunner, head_commit: str | None, head_tree: str, planned: dict[str, TreeEntry | None],
               new_commit: str, message: str, outcome: CommitOutcome) -> None:
    """The user's index follows first, then HEAD moves: a retry after a crash between the two finds the index
    already right (the three-way merge of equal changes is a no-op) and commits again."""
    previous = _follow_in_user_index(git, planned, head_tree, outcome)
    faults.hit("git.commit.after_index")
    try:
        git.run(["update-ref", "-m", f"code-intel: {message.splitlines()[0][:80]}", "HEAD", new_commit, head_commit or ""])
    except GitError:
        for repo_path, item in previous.items():
            _set_index(git, repo_path, item)
        raise
    faults.hit("git.commit.after_ref")


def _follow_in_user_index(git: GitRunner, planned: dict[str, TreeEntry | None], old_head_tree: str,
                          outcome: CommitOutcome) -> dict[str, TreeEntry | None]:
    """Bring the user's index along for committed files, like `git commit --only` does; returns the
    entries it replaced, so a commit that then fails can put them back.

    An entry that matched the old HEAD takes the committed version; one the user had staged
    differently gets the session's change merged in, or is left alone with a warning.
    """
    previous: dict[str, TreeEntry | None] = {}
    for repo_path, wanted in planned.items():
        staged = _index_entry(git, repo_path)
        before = entry(git, old_head_tree, repo_path)
        if staged == before:
            previous[repo_path] = staged
            _set_index(git, repo_path, wanted)
            continue
        if staged and before and wanted and staged.kind == before.kind == wanted.kind == "blob":
            merged = three_way(git, _blob(git, staged), _blob(git, before), _blob(git, wanted))
            if merged is not None:
                previous[repo_path] = staged
                _set_index(git, repo_path, TreeEntry(mode=staged.mode, oid=git.write_blob(merged), kind="blob"))
                continue
        outcome.warnings.append(f"{repo_path}: your staged version was left as you staged it; check `git diff --cached`")
    return previous

