"""How many tests a command ran and skipped, from its runner's closing summary.

The names of removed or skipped tests come from the change itself (code_intel.verify.test_edits); the counts are the
runners' own word on it, and catch what reading test files cannot: a folder dropped from the test paths, a test
deselected in a config file, a skip decorator of the project's own. At POST_IMPL_VERIFY a command that ran fewer
tests, or skipped more, than in the run before the change is told beside the removed tests.

Read per line as the output streams: pytest (`= 3 failed, 40 passed, 2 skipped in 0.52s =`, or without the `=`
under -q; pytest 9 adds `5 subtests passed`), unittest (`Ran 45 tests` then `OK (skipped=2)`), jest (`Tests: 1
failed, 2 skipped, 10 passed, 13 total`), vitest (`Tests  1 failed | 10 passed | 2 skipped (13)`), mocha (`10 passing`, `2 pending`, `1 failing`),
cargo (`test result: ok. 3 passed; 1 failed; 2 ignored; ...`, added up over the test binaries), Maven Surefire's
closing `Tests run: 10, Failures: 1, Errors: 0, Skipped: 2`, CTest (`... 0 tests failed out of 20`), GoogleTest
(`[==========] 12 tests from 3 test suites ran.`, `YOU HAVE 2 DISABLED TESTS`) and TAP (`# tests 10`, `# skip 2`).
go test prints no counts without -v, nor does Gradle: their commands have none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PYTEST = re.compile(r"^=*\s*((?:\d+ (?:subtests )?(?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?)"
                     r"(?:, )?)+)(?: in [\d.]+s)?(?: \([^)]*\))?\s*=*$")
_PYTEST_PART = re.compile(r"(\d+) ((?:subtests )?(?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?))")
_UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in [\d.]+s$")
_UNITTEST_END = re.compile(r"^(?:OK|FAILED)(?: \((.*)\))?$")
_JEST = re.compile(r"^Tests:\s+(.*?)(\d+) total\s*$")
_JEST_PART = re.compile(r"(\d+) (passed|failed|skipped|todo|pending)")
_VITEST = re.compile(r"^Tests\s+(.*?)\s*\((\d+)\)\s*$")
_MOCHA = re.compile(r"^\s*(\d+) (passing|failing|pending)(?: \(.*\))?\s*$")
_CARGO = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored;")
_SUREFIRE = re.compile(r"^(?:\[\w+\]\s+)?Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)\s*$")
_CTEST = re.compile(r"^\d+% tests passed, (\d+) tests? failed out of (\d+)\s*$")
_GTEST_RAN = re.compile(r"^\[==========\] (\d+) tests? from \d+ test (?:suites?|cases?) ran\.")
_GTEST_SKIPPED = re.compile(r"^\[  SKIPPED \] (\d+) tests?, listed below:")
_GTEST_DISABLED = re.compile(r"^\s*YOU HAVE (\d+) DISABLED TESTS?\s*$")
_TAP = re.compile(r"^# (tests|skip|skipped|todo) (\d+)\s*$")


@dataclass
class TestCounts:
    """What one command's output said about the tests it ran (None: it said nothing)."""

    __test__ = False  # not a pytest test class

    ran: int | None = None  # tests run to a verdict (passed or failed)
    skipped: int | None = None  # skipped, ignored, pending, disabled, expected to fail

    def _set(self, ran: int, skipped: int, *, add: bool = False) -> None:
        if add and self.ran is not None:
            self.ran, self.skipped = self.ran + ran, (self.skipped or 0) + skipped
        else:
            self.ran, self.skipped = ran, skipped

    def feed(self, line: str) -> None:
        """One line of output, without ANSI colours."""
        stripped = line.strip()
        if not self._feed_script_runners(line, stripped):
            self._feed_compiled_runners(stripped)

    def _feed_script_runners(self, line: str, stripped: str) -> bool:
        """cargo and the script runners (pytest, unittest, jest, vitest, mocha): True when the line was one of their summaries."""
        if match := _CARGO.match(stripped):  # one per test binary, doc tests included
            self._set(int(match[1]) + int(match[2]), int(match[3]), add=True)
        elif match := _PYTEST.match(stripped):
            parts = {kind.rstrip("s") if kind.startswith("error") else kind: int(n)
                     for n, kind in _PYTEST_PART.findall(match[1])}
            if parts.keys() - {"warning", "warnings", "deselected"}:
                # pytest 9 counts a failed subtest among `failed` and a passed one apart (`subtests passed`): with
                # both in, a subtest that the change made pass keeps the total as it was
                self._set(parts.get("passed", 0) + parts.get("failed", 0) + parts.get("error", 0) + parts.get("xpassed", 0)
                          + parts.get("subtests passed", 0), parts.get("skipped", 0) + parts.get("xfailed", 0))
        elif match := _UNITTEST_RAN.match(stripped):
            self._set(int(match[1]), 0)
        elif (match := _UNITTEST_END.match(stripped)) and self.ran is not None and match[1]:
            skipped = sum(int(n) for key, n in re.findall(r"(skipped|expected failures)=(\d+)", match[1]))
            self._set(self.ran - skipped, skipped)
        elif match := _JEST.match(stripped):
            parts = {kind: int(n) for n, kind in _JEST_PART.findall(match[1])}
            self._set(parts.get("passed", 0) + parts.get("failed", 0), parts.get("skipped", 0) + parts.get("todo", 0))
        elif match := _VITEST.match(stripped):
            parts = {kind: int(n) for n, kind in _JEST_PART.findall(match[1])}
            if parts:
                self._set(parts.get("passed", 0) + parts.get("failed", 0), parts.get("skipped", 0) + parts.get("todo", 0))
        elif match := _MOCHA.match(line):
            count, kind = int(match[1]), match[2]
            ran, skipped = (self.ran or 0), (self.skipped or 0)
            if kind == "passing":  # mocha's summary starts with it
                ran, skipped = count, 0
            elif kind == "failing":
                ran += count
            else:
                skipped += count
            self._set(ran, skipped)
        else:
            return False
        return True

    def _feed_compiled_runners(self, stripped: str) -> None:
        """Maven's surefire, ctest, GoogleTest, TAP."""
        if match := _SUREFIRE.match(stripped):  # a module's closing total (a class's line goes on with its time)
            skipped = int(match[4])
            self._set(int(match[1]) - skipped, skipped, add=True)
        elif match := _CTEST.match(stripped):
            self._set(int(match[2]), self.skipped or 0)
        elif match := _GTEST_RAN.match(stripped):
            self._set(int(match[1]), self.skipped or 0)
        elif match := _GTEST_SKIPPED.match(stripped):  # GTEST_SKIP(): counted among the tests that ran
            self._set(max((self.ran or 0) - int(match[1]), 0), (self.skipped or 0) + int(match[1]))
        elif match := _GTEST_DISABLED.match(stripped):  # DISABLED_: never started, not among those that ran
            self._set(self.ran or 0, (self.skipped or 0) + int(match[1]))
        elif match := _TAP.match(stripped):
            kind, count = match[1], int(match[2])
            if kind == "tests":
                self._set(count, self.skipped or 0)
            elif self.ran is not None:
                self._set(self.ran - count, (self.skipped or 0) + count)


def fewer_tests(name: str, before: TestCounts, after: TestCounts) -> str | None:
    """A line telling that `name` ran fewer tests or skipped more than before the change; None when it did not, or
    when either run said nothing."""
    if before.ran is None or after.ran is None:
        return None
    fewer = after.ran < before.ran
    more_skipped = (after.skipped or 0) > (before.skipped or 0)
    if not (fewer or more_skipped):
        return None
    said = f"{name} ran {after.ran} test{'' if after.ran == 1 else 's'} ({before.ran} before the change)"
    if before.skipped or after.skipped:
        said += f" and skipped {after.skipped or 0} ({before.skipped or 0} before)"
    return said
