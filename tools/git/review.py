"""review_changes: what the session changed, measured against the tree it started from.

The comparison is snapshot -> working tree, so it holds both the session's commits on the task
branch and its uncommitted edits, and never the edits the user had made before the session.
"""

from __future__ import annotations

from collections.abc import Callable

from code_intel.core.session_types import ChangeReview, ReviewedFile
from code_intel.git.garbage import ChangedFile, find_garbage
from code_intel.git.runner import GitRunner
from code_intel.git.snapshot import RepoLayout, entry, snapshot_base, snapshot_tree, tree_of, working_tree

_STATUS = {"A": "added", "M": "modified", "D": "deleted", "T": "type_changed"}


def _split_patch(patch: str) -> list[str]:
    """One chunk per file, in git's order (the same order as its name-status list)."""
    chunks: list[str] = []
    for line in patch.splitlines(keepends=True):
        if line.startswith("diff --git ") or not chunks:
            chunks.append(line)
        else:
            chunks[-1] += line
    return chunks


def _cap(chunks: list[str], files: list[str], max_bytes: int) -> tuple[str, list[str], bool]:
    """Whole file diffs while they fit, then as much of the next as fits (cut at a line end)."""
    kept: list[str] = []
    used = 0
    for index, chunk in enumerate(chunks):
        size = len(chunk.encode())
        if used + size <= max_bytes:
            kept.append(chunk)
            used += size
            continue
        room = max_bytes - used
        partial = chunk.encode()[:room].decode(errors="ignore")
        partial = partial[: partial.rfind("\n") + 1]
        if partial:
            kept.append(partial + "... [diff of this file cut here]\n")
        return "".join(kept), files[index + (1 if partial else 0):], True
    return "".join(kept), [], False


def review_session(
    git: GitRunner,
    layout: RepoLayout,
    snapshot: str,
    *,
    max_diff_bytes: int,
    write_allowed: Callable[[str], bool] | None = None,
) -> ChangeReview:
    """The changes since the session's snapshot: each file with its line counts and where its change came from,
    the diff (cut at `max_diff_bytes`), garbage candidates, and the files outside the write rules."""
    start = snapshot_tree(git, snapshot)
    current = working_tree(git, layout)
    scope = ["--", *layout.scope]
    review, repo_paths = _reviewed_files(git, layout, snapshot, start, current, scope)
    patch = git.run(["diff-tree", "-r", "-p", "--no-renames", "--no-color", "--no-ext-diff", start, current, *scope])[1]
    chunks = _split_patch(patch.decode(errors="replace"))
    names = [f.file for f in review.files]
    changes = [
        ChangedFile(file=f.file, status=f.status, binary=f.binary, size=_size(git, repo_path),
                    patch=chunks[i] if len(chunks) == len(names) else "")
        for i, (f, repo_path) in enumerate(zip(review.files, repo_paths, strict=True))
    ]
    review.garbage = find_garbage(changes)
    review.diff_total_bytes = len(patch)
    review.diff, review.diff_omitted_files, review.diff_truncated = _cap(chunks, names, max_diff_bytes)
    if review.diff_truncated:
        review.note = (
            f"the diff was cut at {max_diff_bytes} of {len(patch)} bytes; files with no diff shown: "
            f"{', '.join(review.diff_omitted_files) or 'none'}. Read them directly to review them."
        )
    if write_allowed is not None:
        for item in review.files:
            item.write_allowed = write_allowed(item.file)
        review.outside_write_rules = [f.file for f in review.files if f.write_allowed is False]
    return review


def _reviewed_files(git: GitRunner, layout: RepoLayout, snapshot: str, start: str, current: str,
                    scope: list[str]) -> tuple[ChangeReview, list[str]]:
    """A review listing each changed file (status, line counts, user edits, branch commits), and their repo paths."""
    committed_at_start = tree_of(git, snapshot_base(git, snapshot))
    head = tree_of(git, git.rev("HEAD"))
    statuses = git.run(["diff-tree", "-r", "-z", "--no-renames", "--name-status", start, current, *scope])[1].split(b"\0")
    numstats = git.run(["diff-tree", "-r", "-z", "--no-renames", "--numstat", start, current, *scope])[1].split(b"\0")
    counts: dict[str, tuple[int | None, int | None]] = {}
    for record in numstats:
        if record.count(b"\t") == 2:
            plus, minus, counted = record.decode(errors="surrogateescape").split("\t", 2)
            counts[counted] = (None, None) if plus == "-" else (int(plus), int(minus))
    repo_paths: list[str] = []
    review = ChangeReview()
    for letter, name in zip(statuses[0::2], statuses[1::2], strict=False):
        repo_path = name.decode(errors="surrogateescape")
        repo_paths.append(repo_path)
        added, removed = counts.get(repo_path, (None, None))
        review.files.append(ReviewedFile(
            file=layout.from_repo(repo_path) or repo_path,
            status=_STATUS.get(letter.decode()[:1], letter.decode()),
            added=added or 0,  # a binary file has no line counts: 0 and binary true, so the schema's fields stay
            removed=removed or 0,
            binary=added is None,
            had_user_edits=entry(git, start, repo_path) != entry(git, committed_at_start, repo_path),
            in_branch_commits=entry(git, head, repo_path) != entry(git, committed_at_start, repo_path),
        ))
    return review, repo_paths


def _size(git: GitRunner, repo_path: str) -> int | None:
    path = git.toplevel / repo_path
    return path.stat().st_size if path.is_file() else None

