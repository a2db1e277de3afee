"""What a server-run check reports: plain data, shared by the runner, the workflow and the MCP layer."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from code_intel.core.models import QuietLists

MAX_NAMES = 100  # failing-test names kept per command (the parsers stop there)


Verdict = Literal["passed", "failed", "timed_out", "error"]
# How a failing command compares with its run before the session changed anything (see failed_the_same_way).
FailedBefore = Literal["same_tests", "same_output"]


@dataclass(frozen=True)
class FileChange:
    """What the session changed in one file: 1-based inclusive ranges of lines it added or modified, and where it
    removed lines with nothing put in their place (the number of the line just before each such gap; 0 at the top)."""

    path: str
    ranges: tuple[tuple[int, int], ...]
    gaps: tuple[int, ...] = ()

    def touches(self, start: int, end: int) -> bool:
        """Whether lines start..end hold a changed line, or lines on both sides of a removal."""
        return (any(a <= end and start <= b for a, b in self.ranges)
                or any(start <= gap and gap + 1 <= end for gap in self.gaps))


class CommandOutcome(QuietLists):
    """One command's run: the exit code decides; names and tail say why."""

    quiet_lists = ("failing_tests", "excerpt")  # a passing command carries neither

    name: str
    command: str
    verdict: Verdict
    exit_code: int | None = None  # None when it was killed at its timeout or could not start
    duration_s: float = 0.0
    failing_tests: list[str] = Field(default_factory=list)  # parsed from the output, best effort
    excerpt: list[str] = Field(default_factory=list)  # assertion / error lines, first few
    tail: str = ""  # the last lines of the output (stdout and stderr together)
    note: str | None = None  # why it timed out or could not start
    tests_ran: int | None = Field(default=None, description="tests run to a verdict, as the runner's summary counts them")
    tests_skipped: int | None = Field(default=None, description="tests skipped, ignored, pending or disabled, per the summary")
    failed_before: FailedBefore | None = Field(
        default=None,
        description="it failed the same way before the session changed anything: same_tests = every failing test "
                    "was failing then with the same errors, and the session is not about it (not held against the "
                    "change); same_output = the same error lines and no test "
                    "names (the command cannot judge the change)")
    held: dict[str, str] | None = Field(
        default=None,
        description="tests that failed before the change too but still count against it, each with why the session "
                    "is about it (the request names or describes it, its file changed, it calls a function the "
                    "session changed, the session changed its lines)")

    @property
    def passed(self) -> bool:
        return self.verdict == "passed"

    def headline(self) -> str:
        """One line: `name failed (exit 1): test_a, test_b`."""
        how = {"passed": "passed", "failed": f"failed (exit {self.exit_code})",
               "timed_out": f"timed out after {self.duration_s:.0f}s and was killed", "error": "could not run"}[self.verdict]
        names = self.failing_tests[:10]
        more = f" (+{len(self.failing_tests) - 10} more)" if len(self.failing_tests) > 10 else ""
        tests = f": {', '.join(names)}{more}" if names else ""
        if self.verdict == "failed" and not names and (said := self._first_words()):
            tests = f": {said}"  # no test named: what it said instead (`No module named pytest`, a compile error)
        note = f" [{self.note}]" if self.note and self.verdict == "error" else ""
        before = " (it failed the same way before the change)" if self.failed_before else ""
        return f"{self.name} {how}{tests}{note}{before}"

    def _first_words(self, most: int = 160) -> str:
        """What a failed run that named no test said: its first error line, else the last line of its output."""
        said = " ".join((self.excerpt[0] if self.excerpt else _last_line(self.tail)).split())
        return said if len(said) <= most else said[:most - 3] + "..."


def _last_line(text: str) -> str:
    return next((line.strip() for line in reversed(text.splitlines()) if line.strip()), "")


def failed_the_same_way(after: CommandOutcome, before: CommandOutcome,
                        concerned: Callable[[str], str | None] | None = None) -> FailedBefore | None:
    """How `after` (a failing run) compares with `before` (the same command before any change), or None when the
    change may be to blame. The comparison is strict: a doubt counts against the change.

    - same_tests: both runs failed naming failing tests, every test failing now was failing then, and every
      error line now was there then (addresses, positions in files and durations aside). The rest of the suite
      ran and passed, so the change broke nothing it covers. A test that fails now for another reason, say an
      assertion where there was a missing function, counts against the change: the change was likely meant to
      make it pass. So does a test `concerned` says the session is about (code_intel.verify.concerned and
      code_intel.verify.exercised), however it fails. (A run that fails naming no test, say because the suite could not
      even be collected, is never excused by one that named some.)
    - same_output: neither run named a failing test, both could not run or failed with the same exit code, and
      every error line now was there then. The command fails whatever the change (a broken tool, a missing
      dependency): it cannot judge the change, and only the user can fix that.
    A timeout is never the same: what a killed run would have found is unknown.
    """
    if after.passed or before.passed or after.command != before.command or after.verdict != before.verdict:
        return None
    if after.verdict == "timed_out":
        return None
    if after.failing_tests or before.failing_tests:
        if len(after.failing_tests) >= MAX_NAMES or len(before.failing_tests) >= MAX_NAMES:
            return None  # the names were cut at the cap: a new failure could hide past it
        if concerned is not None and any(concerned(test) for test in after.failing_tests):
            return None  # the request names it, or it is in a file changed before or in the session
        if (after.failing_tests and before.failing_tests and set(after.failing_tests) <= set(before.failing_tests)
                and _errors_seen(after.excerpt, before.excerpt)):
            return "same_tests"
        return None
    if after.verdict == "error":
        return "same_output" if after.note == before.note else None  # could not start, for the same reason
    if after.exit_code != before.exit_code:
        return None
    if before.excerpt or after.excerpt:
        return "same_output" if before.excerpt and set(after.excerpt) <= set(before.excerpt) else None
    shape = _tail_shape(after.tail)
    return "same_output" if shape and shape == _tail_shape(before.tail) else None


def _errors_seen(now: list[str], then: list[str]) -> bool:
    """Every error line of `now` is among those of `then`, read by their shape (_error_shape)."""
    seen = {_error_shape(line) for line in then}
    return all(_error_shape(line) in seen for line in now)


# What changes between two runs of the same failure: object addresses (Python's 0x7f..., Java's Foo@1b6d3586),
# uuids and long hex ids, positions in a file (a change above the failing line moves it), temporary paths, long
# numbers (ports, process ids, times) and durations.
_VOLATILE = re.compile(r"\b[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b|0x[0-9a-fA-F]+|(?<=\w)@[0-9a-f]{4,}\b"
                       r"|\b(?=[0-9a-f]*\d)[0-9a-f]{8,}\b|(?<=\w):\d+(?::\d+)?\b|\bline \d+|/tmp/[^\s'\"]*|\b\d{4,}\b")


def _error_shape(line: str) -> str:
    # masked before the items are sorted: `{Foo@1b6d3586=1, Foo@4554617c=2}` sorts by what stays the same
    return _unordered(_VOLATILE.sub("#", _DURATION.sub("#", " ".join(line.split()))))


MAX_SORTED_LINE = 2000
MAX_SORTED_GROUPS = 100


def _unordered(line: str) -> str:
    """The line with the items of each `{...}` sorted: Rust's HashMap and HashSet and Python's sets print their items
    in another order in each run (`left: {"gamma": 3, "alpha": 1}`), so the same failure would read as another."""
    if "{" not in line or len(line) > MAX_SORTED_LINE or line.count("{") > MAX_SORTED_GROUPS:
        return line  # (each group is read by a call of its own: their number bounds how deep that goes)
    out, i = [], 0
    while i < len(line):
        if line[i] == "{":
            group, i = _sorted_group(line, i)
            out.append(group)
        else:
            out.append(line[i])
            i += 1
    return "".join(out)


def _sorted_group(text: str, start: int) -> tuple[str, int]:
    """The `{...}` group at `start` with its top-level items sorted (groups inside it too), and where it ends;
    an unclosed group (a line cut short) is left as it is."""
    items: list[str] = []
    item: list[str] = []
    depth, i = 0, start + 1
    while i < len(text):
        char = text[i]
        if char in "'\"":  # a quoted string is one piece, commas and braces in it included
            end = i + 1
            while end < len(text) and text[end] != char:
                end += 2 if text[end] == "\\" else 1
            item.append(text[i:end + 1])
            i = end + 1
            continue
        if char == "{":
            group, i = _sorted_group(text, i)
            item.append(group)
            continue
        if char in "([":
            depth += 1
        elif char in ")]" and depth:
            depth -= 1
        elif char in ",}" and not depth:
            items.append("".join(item).strip())
            item = []
            if char == "}":
                return "{" + ", ".join(sorted(items)) + "}", i + 1
            i += 1
            continue
        item.append(char)
        i += 1
    return text[start:], len(text)


_DURATION = re.compile(r"\d+(?:\.\d+)?\s*(?:ms|s|sec|secs|seconds|m|min)\b|\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?")


def _tail_shape(tail: str, lines: int = 10) -> list[str]:
    """The last lines of a run's output with durations and clock times masked (and the items of `{...}` groups
    sorted, as in _error_shape): what to compare two runs by when neither named a test nor printed a recognised
    error line."""
    kept = [line.strip() for line in tail.splitlines() if line.strip()][-lines:]
    return [_unordered(_DURATION.sub("#", line)) for line in kept]


class SkippedCommand(BaseModel):
    name: str
    reason: str


class CheckReport(BaseModel):
    """The result of one server-run verification."""

    configured: bool  # False: no verify.commands in config.json (the pass is self-reported)
    passed: bool  # every command that ran passed (True when none ran)
    commands: list[CommandOutcome] = Field(default_factory=list)
    skipped: list[SkippedCommand] = Field(default_factory=list)
    changed_files: list[str] | None = None  # what relevance was judged against (None: all commands run)
    relevance: str = ""  # where changed_files came from, in words (the session, the working tree, --changed, --all)
    duration_s: float = 0.0

    @property
    def failed(self) -> list[CommandOutcome]:
        return [c for c in self.commands if not c.passed]

    @property
    def new_failures(self) -> list[CommandOutcome]:
        """The failing commands the change may be to blame for: all but those failing in the same tests as before it."""
        return [c for c in self.failed if c.failed_before != "same_tests"]

    def compare_with(self, before: list[CommandOutcome], concerned: Callable[[str], str | None] | None = None) -> None:
        """Mark each failing command that failed the same way in `before` (the run before any change); a test
        `concerned` names is never excused."""
        earlier = {c.command: c for c in before}
        for outcome in self.failed:
            was = earlier.get(outcome.command)
            outcome.failed_before = failed_the_same_way(outcome, was, concerned) if was is not None else None
            held: dict[str, str] = {}
            if was is not None and concerned is not None:
                old = set(was.failing_tests)
                held = {test: why for test in outcome.failing_tests if test in old and (why := concerned(test))}
            outcome.held = held or None

    @property
    def ran(self) -> bool:
        return bool(self.commands)

    def failing_tests(self) -> list[str]:
        return [t for c in self.failed for t in c.failing_tests]

    def failure_text(self, tail_lines: int = 15) -> str:
        """Why the run failed, for a revert reason: each failing command, its tests, and its first error lines
        (else its last lines)."""
        parts = []
        for c in self.failed:
            parts.append(c.headline())
            lines = c.excerpt[:tail_lines] if c.excerpt else c.tail.splitlines()[-tail_lines:]  # the first errors
            if lines:
                parts.append("\n".join("    " + line for line in lines))
        return "\n".join(parts)

    def summary(self) -> str:
        if not self.configured:
            return "no verify.commands configured: the pass is self-reported"
        if not self.commands:
            return "no configured command is relevant to the changed files"
        return "; ".join(c.headline() for c in self.commands)

    def brief(self, note: str) -> dict[str, Any]:
        """The report without its commands' output (a CheckRun): what the READY response says of the run the
        server took before the change."""
        return {"passed": self.passed, "note": note, "summary": self.summary(), "duration_s": self.duration_s,
                "failing_tests": self.failing_tests() or None}

    def view(self) -> dict[str, Any]:
        """The report as every output shows it (run_checks, POST_IMPL_VERIFY's `server_checks`,
        `code-intel check --json`): the fields of CheckRun."""
        return {
            "configured": self.configured,
            "passed": self.passed,
            "summary": self.summary(),
            "commands": [c.model_dump(exclude={"excerpt"} if c.passed else set(), exclude_none=True) for c in self.commands],
            "skipped": [sk.model_dump() for sk in self.skipped] or None,
            "changed_files": self.changed_files,
            "relevance": self.relevance or None,
            "duration_s": self.duration_s,
            "failing_tests": self.failing_tests() or None,
        }


def not_configured_view(note: str) -> dict[str, Any]:
    """What run_checks and `code-intel check --json` answer when config.json lists no verify.commands."""
    return {"configured": False, "passed": None, "note": note}


class CheckRun(BaseModel):
    """The server's verify run as it is shown: run_checks' answer, `server_checks` of a POST_IMPL_VERIFY
    response and the JSON of `code-intel check --json` (see CheckReport.view)."""

    configured: bool | None = None  # False when no verify.commands are configured (then passed is None)
    passed: bool | None = None
    note: str | None = None
    summary: str | None = None
    commands: list[CommandOutcome] | None = None  # left out of the brief form and when nothing is configured
    skipped: list[SkippedCommand] | None = None
    changed_files: list[str] | None = None  # the files the `when` globs were matched against; None: every command ran
    relevance: str | None = None  # where those files came from
    duration_s: float | None = None
    failing_tests: list[str] | None = None
