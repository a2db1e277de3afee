"""Which lines did this session change? Evidence must point at them.

A `done` checklist item proves itself with a span of lines. Pointing at code that was already there
proves nothing, so the span must overlap lines the session added or modified, measured against the
file as it was when the session started (the git snapshot, or the content snapshot outside a
repository). A removal leaves no line to point at: a span that touches the lines on either side of
lines the session removed proves it (and may be blank or a lone brace, as what is left there often
is). Lines changed before the session reached READY are not the session's own work either:
they were written while the rules forbade writing. For such a file the server recorded its content
when READY began, and only lines that differ both from the start and from that record count.
Files git ignores are never evidence: they are in no snapshot and never reach a commit.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from code_intel.core.project import ProjectRoot
from code_intel.core.session_types import Baseline, GitSessionInfo
from code_intel.verify.models import FileChange
from code_intel.verify.test_edits import TestEdit, find_test_edits, may_hold_tests
from code_intel.workflow.evidence import EvidenceRef, OwnChange
from code_intel.workflow.ports import GitPort

SKIP_HINT = "an item already satisfied by existing code is reported as {item, status: 'skipped', reason: '...'}"
_MAX_DIFF_LINES = 200_000
MAX_TEST_FILES = 300  # changed files read for test edits in one go


def line_changes(old: str | None, new_lines: list[str]) -> tuple[list[tuple[int, int]], list[int]]:
    """One line diff of `old` against `new_lines`: the 1-based inclusive ranges of new lines that are not in `old`
    (all of them when old is None), and where lines of `old` were removed with nothing put in their place (for
    each such gap, the number of the new line just before it; 0 at the top)."""
    if old is None:
        return ([(1, len(new_lines))] if new_lines else []), []
    old_lines = old.splitlines()
    if len(old_lines) + len(new_lines) > _MAX_DIFF_LINES:  # too big to diff line by line: compare whole lines as sets
        known = set(old_lines)
        return _runs(i + 1 for i, line in enumerate(new_lines) if line not in known), []
    ranges: list[tuple[int, int]] = []
    gaps: list[int] = []
    for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes():
        if tag in ("replace", "insert") and j2 > j1:
            ranges.append((j1 + 1, j2))
        elif tag == "delete":
            gaps.append(j1)
    return ranges, gaps


def changed_ranges(old: str | None, new_lines: list[str]) -> list[tuple[int, int]]:
    """1-based inclusive line ranges of `new_lines` that are not in `old` (all of them when old is None)."""
    return line_changes(old, new_lines)[0]


def removed_after(old: str | None, new_lines: list[str]) -> list[int]:
    """Where lines of `old` were removed with nothing put in their place (see line_changes)."""
    return line_changes(old, new_lines)[1]


def _borders(gaps: list[int], start: int, end: int) -> bool:
    """Whether lines start..end touch a gap: the line before it (gap) or the line after it (gap + 1)."""
    return any(start <= gap + 1 and gap <= end for gap in gaps)


def _runs(numbers: Iterable[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for n in numbers:
        if out and out[-1][1] == n - 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def intersect(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The lines both sorted range lists cover, as sorted ranges."""
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def overlaps(ranges: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(a <= end and start <= b for a, b in ranges)


def describe(ranges: list[tuple[int, int]], limit: int = 6) -> str:
    shown = [f"{a}" if a == b else f"{a}-{b}" for a, b in ranges[:limit]]
    return ", ".join(shown) + (" ..." if len(ranges) > limit else "")


def session_changes(git: GitPort, info: GitSessionInfo, root: ProjectRoot, paths: Iterable[str]) -> list[FileChange]:
    """What the session changed in each of `paths` (project-relative), against the file as it was at the start;
    files with no starting content recorded, ignored by git or gone are left out."""
    out: list[FileChange] = []
    for path in paths:
        base = git.baseline(info, path)
        if not base.known or base.ignored:
            continue
        try:
            lines = (root.path / path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        ranges, gaps = line_changes(base.text, lines)
        out.append(FileChange(path, tuple(ranges), tuple(gaps)))
    return out


def session_test_edits(git: GitPort, info: GitSessionInfo, root: ProjectRoot, paths: Iterable[str]) -> list[TestEdit]:
    """The tests the session removed, skipped, focused or rewrote in `paths` (its changed files;
    code_intel.verify.test_edits), against each file as it was at the start. A file with no starting content recorded,
    or ignored by git, is left out: nothing can be told about it."""
    files: list[tuple[str, str | None, str | None]] = []
    for path in [p for p in paths if may_hold_tests(p)][:MAX_TEST_FILES]:
        base = git.baseline(info, path)
        if not base.known or base.ignored:
            continue
        try:
            now: str | None = (root.path / path).read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            now = None
        except OSError:
            continue
        files.append((path, base.text, now))
    return find_test_edits(files)


def own_change_check(git: GitPort, info: GitSessionInfo, pre_ready: Iterable[str]) -> OwnChange:
    """A check for check_evidence: None when the span overlaps the session's own change, else the problem."""
    return _OwnChange(git, info, set(pre_ready))


class _OwnChange:
    """The check for one submit: each file's starting content is fetched and diffed once, whatever the number of
    checklist items pointing into it (the file does not change while a submit is judged)."""

    def __init__(self, git: GitPort, info: GitSessionInfo, flagged: set[str]) -> None:
        self.git, self.info, self.flagged = git, info, flagged
        self._diffs: dict[str, tuple[Baseline, list[tuple[int, int]], list[int]]] = {}

    def _since_start(self, path: str, lines: list[str]) -> tuple[Baseline, list[tuple[int, int]], list[int]]:
        """The file's starting content, and its changed ranges and removal gaps since then."""
        if path not in self._diffs:
            base: Baseline = self.git.baseline(self.info, path)
            ranges, gaps = line_changes(base.text, lines) if base.known and not base.ignored else ([], [])
            self._diffs[path] = (base, ranges, gaps)
        return self._diffs[path]

    def removal(self, ref: EvidenceRef, lines: list[str]) -> bool:
        """Whether the span borders lines the session removed (since READY, for a file changed before it)."""
        _base, _ranges, gaps = self._since_start(ref.path, lines)
        if gaps and ref.path in self.flagged:
            at_ready = self.git.ready_baseline(self.info, ref.path)
            since_ready = set(removed_after(at_ready.text, lines)) if at_ready.known else set()
            gaps = [gap for gap in gaps if gap in since_ready]
        return _borders(gaps, ref.start, ref.end)

    def __call__(self, ref: EvidenceRef, lines: list[str]) -> str | None:
        git, info, flagged = self.git, self.info, self.flagged
        base, ranges, gaps = self._since_start(ref.path, lines)
        if base.ignored:
            return (f"{ref.path} is ignored by git (.gitignore or .git/info/exclude): an ignored file is in no "
                    "snapshot and never committed, so it cannot prove a checklist item; point at a file the "
                    "commit will hold, or stop ignoring this one")
        if not base.known:
            return (f"{ref.path} has no recorded starting content in this session (this folder is not a git "
                    "repository, and the file was never explored or checked with check_write_target before it was "
                    "written), so the server cannot tell your lines from old ones; explore it or call "
                    "check_write_target before writing it")
        if not ranges and not gaps:
            return f"{ref.path} is unchanged since the session started: evidence must point at lines you wrote; " + SKIP_HINT
        if ref.path in flagged:
            return _since_ready(git, info, ref, lines, ranges)
        if not overlaps(ranges, ref.start, ref.end):
            removed = f"; lines were removed after line {', '.join(str(g) for g in gaps[:6])}" if gaps else ""
            return (f"lines {ref.start}-{ref.end} of {ref.path} were not changed in this session (changed lines: "
                    f"{describe(ranges) or 'none'}{removed}); point at the lines you wrote (for a removal, the lines "
                    "around it), or " + SKIP_HINT)
        return None


def _since_ready(git: GitPort, info: GitSessionInfo, ref: EvidenceRef, lines: list[str],
                 since_start: list[tuple[int, int]]) -> str | None:
    """A file changed before READY: only lines changed since READY began (and since the start) count."""
    at_ready = git.ready_baseline(info, ref.path)
    if not at_ready.known:
        return (f"{ref.path} was changed before the session reached READY (while writing was not allowed) and the "
                "server holds no record of it from that moment, so none of its lines are accepted as evidence; "
                + SKIP_HINT)
    own = intersect(since_start, changed_ranges(at_ready.text, lines))
    if overlaps(own, ref.start, ref.end):
        return None
    where = (f"lines changed since READY: {describe(own)}" if own
             else "no line of it has changed since READY began")
    return (f"lines {ref.start}-{ref.end} of {ref.path} were changed before the session reached READY (while writing "
            f"was not allowed), not during READY ({where}); point at lines you wrote in READY, or " + SKIP_HINT)
