"""How many tests a command ran and skipped, read from real runners' summaries kept in tests/verify/data."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_intel.verify.counts import TestCounts, fewer_tests
from code_intel.verify.parsers import FailureCollector

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(("output", "ran", "skipped"), [
    ("pytest-9.2.0-skip-xfail.txt", 3, 3),  # 1 failed, 2 passed, 2 skipped, 1 xfailed
    ("pytest-9.2.0-q-skip-xfail.txt", 3, 3),
    ("pytest-9.2.0-q-subtests.txt", 8, 1),  # 3 failed (two of them subtests), 2 passed, 1 skipped, 3 subtests passed
    ("pytest-9.2.0-v-subtests.txt", 8, 1),
    ("unittest-3.11-skip.txt", 1, 1),  # Ran 2 tests, OK (skipped=1)
    ("jest-30.5.2-skip-todo.txt", 4, 2),  # 1 failed, 1 skipped, 1 todo, 3 passed, 6 total
    ("vitest-2.1.9-skip-todo.txt", 2, 2),  # 2 failed | 1 skipped | 1 todo (4)
    ("mocha-10.8.2-pending.txt", 2, 1),  # 0 passing, 1 pending, 2 failing
    ("cargo-1.95-no-fail-fast.txt", 39, 0),  # added up over the test binaries and doc tests
    ("maven-surefire-3.2.5-junit5.txt", 4, 0),
    ("ctest-3.25-unity-fail.txt", 19, 0),
    ("gtest-1.12.1-disabled-skip.txt", 7, 2),  # 8 ran, one of them GTEST_SKIP(); 1 DISABLED_
    ("go-1.19-testnew-two-packages.txt", None, None),  # go test prints no counts without -v
    ("maven-compile-error.txt", None, None),
])
def test_counts_from_real_runner_output(output, ran, skipped):
    collector = FailureCollector()
    for line in (DATA / output).read_text(encoding="utf-8").splitlines():
        collector.feed(line)
    assert (collector.counts.ran, collector.counts.skipped) == (ran, skipped)


def test_tap_counts():
    counts = TestCounts()
    for line in ["TAP version 13", "ok 1 - a", "ok 2 - b # SKIP", "1..2", "# tests 2", "# pass 1", "# skipped 1"]:
        counts.feed(line)
    assert (counts.ran, counts.skipped) == (1, 1)


def test_a_warnings_only_line_is_no_summary():
    counts = TestCounts()
    counts.feed("3 warnings in 0.10s")
    assert counts.ran is None


def test_a_subtest_made_to_pass_is_no_fewer_tests():
    """pytest 9 counts a failed subtest among `failed` but a passed one under `subtests passed`: the run after a
    change that made one subtest pass (real output) must count as many tests as the run before it."""
    def counted(name: str) -> TestCounts:
        collector = FailureCollector()
        for line in (DATA / name).read_text(encoding="utf-8").splitlines():
            collector.feed(line)
        return collector.counts
    before, after = counted("pytest-9.2.0-q-subtests.txt"), counted("pytest-9.2.0-q-subtests-one-fixed.txt")
    assert (after.ran, after.skipped) == (before.ran, before.skipped) == (8, 1)
    assert fewer_tests("pytest", before, after) is None


def test_fewer_tests_or_more_skipped_is_said():
    assert fewer_tests("pytest", TestCounts(45, 0), TestCounts(43, 0)) == "pytest ran 43 tests (45 before the change)"
    assert fewer_tests("jest", TestCounts(10, 1), TestCounts(10, 2)) == (
        "jest ran 10 tests (10 before the change) and skipped 2 (1 before)")
    assert fewer_tests("pytest", TestCounts(45, 2), TestCounts(47, 2)) is None  # tests added
    assert fewer_tests("go test", TestCounts(None, None), TestCounts(3, 0)) is None  # nothing to compare with
