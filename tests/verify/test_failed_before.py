"""failed_the_same_way: when a failing check is one the session found failing before it changed anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from code_intel.verify.models import CheckReport, CommandOutcome, failed_the_same_way
from code_intel.verify.parsers import MAX_NAMES, FailureCollector

DATA = Path(__file__).parent / "data"


def run(**fields: Any) -> CommandOutcome:
    base: dict[str, Any] = {"name": "tests", "command": "pytest -q", "verdict": "failed", "exit_code": 1}
    return CommandOutcome(**{**base, **fields})


@pytest.mark.parametrize(("before", "after", "expected"), [
    # the same failing tests, or fewer: the rest of the suite passed, the change broke nothing it covers
    (run(failing_tests=["t::a", "t::b"]), run(failing_tests=["t::a"]), "same_tests"),
    (run(failing_tests=["t::a"]), run(failing_tests=["t::a"]), "same_tests"),
    # the same test failing with the same error, addresses, file positions and long numbers aside
    (run(failing_tests=["t::a"], excerpt=["E   ConnectionRefusedError: port 54321 at 0x7f3a", "panicked at src/lib.rs:45:9"]),
     run(failing_tests=["t::a"], excerpt=["E   ConnectionRefusedError: port 40123 at 0x7f9b", "panicked at src/lib.rs:52:9"]),
     "same_tests"),
    (run(failing_tests=["t::a"], excerpt=["E   FileNotFoundError: '/tmp/pytest-of-ci/pytest-12/tmp_a0/x.json'"]),
     run(failing_tests=["t::a"], excerpt=["E   FileNotFoundError: '/tmp/pytest-of-ci/pytest-13/tmp_b7/x.json'"]),
     "same_tests"),
    (run(failing_tests=["t::a"], excerpt=["expected: <[Foo@1b6d3586]> but was: <[]>", "id 3f2a9c1e-77b0-4c1a-9d2e-1a2b3c4d5e6f missing"]),
     run(failing_tests=["t::a"], excerpt=["expected: <[Foo@4554617c]> but was: <[]>", "id 9e0d41aa-12c3-4f00-8abc-ffeeddccbbaa missing"]),
     "same_tests"),
    (run(failing_tests=["t::a"], excerpt=["E   boom", "E   other"]), run(failing_tests=["t::a"], excerpt=["E   boom"]),
     "same_tests"),
    (run(failing_tests=["t::a"]), run(failing_tests=["t::a"], excerpt=["E   boom"]), None),
    # the same test failing for another reason: a missing function before, a wrong result now (the change was
    # likely meant to make it pass)
    (run(failing_tests=["t::a"], excerpt=["E   AttributeError: module 'app' has no attribute 'subtract'"]),
     run(failing_tests=["t::a"], excerpt=["E   assert 4 == 2"]), None),
    (run(failing_tests=["t::a"], excerpt=["E   assert 3 == 2"]), run(failing_tests=["t::a"], excerpt=["E   assert 4 == 2"]),
     None),
    # a test failing now that did not before, or names where there were none: the change may be to blame
    (run(failing_tests=["t::a"]), run(failing_tests=["t::a", "t::c"]), None),
    (run(excerpt=["E   boom"]), run(failing_tests=["t::a"]), None),
    (run(failing_tests=["t::a"]), run(excerpt=["E   boom"]), None),
    # names cut at the cap: a new failure could hide past it
    (run(failing_tests=[f"t::{i}" for i in range(MAX_NAMES)]), run(failing_tests=[f"t::{i}" for i in range(MAX_NAMES)]), None),
    # another command, another verdict, a passing run before, a timeout: never the same
    (run(failing_tests=["t::a"], command="pytest -x"), run(failing_tests=["t::a"]), None),
    (run(failing_tests=["t::a"]), run(failing_tests=["t::a"], verdict="timed_out", exit_code=None), None),
    (run(verdict="timed_out", exit_code=None), run(verdict="timed_out", exit_code=None), None),
    (run(verdict="passed", exit_code=0), run(failing_tests=["t::a"]), None),
    # no test names: the same error lines with the same exit code is the same failure, a new line is not
    (run(excerpt=["TypeError: x is undefined"]), run(excerpt=["TypeError: x is undefined"]), "same_output"),
    (run(excerpt=["TypeError: x is undefined"]), run(excerpt=["TypeError: y is undefined"]), None),
    (run(excerpt=["TypeError: x"], exit_code=2), run(excerpt=["TypeError: x"]), None),
    # nothing recognised at all: the tails, with durations masked
    (run(tail="tsc: error TS1005\nDone in 1.52s"), run(tail="tsc: error TS1005\nDone in 2.07s"), "same_output"),
    (run(tail="tsc: error TS1005"), run(tail="tsc: error TS2304"), None),
    (run(tail=""), run(tail=""), None),
    # could not start, for the same reason or another
    (run(verdict="error", exit_code=None, note="npm: not found"), run(verdict="error", exit_code=None, note="npm: not found"),
     "same_output"),
    (run(verdict="error", exit_code=None, note="npm: not found"), run(verdict="error", exit_code=None, note="denied"), None),
])
def test_failed_the_same_way(before: CommandOutcome, after: CommandOutcome, expected: str | None) -> None:
    assert failed_the_same_way(after, before) == expected


def test_a_report_marks_its_failures_and_keeps_its_verdict() -> None:
    report = CheckReport(configured=True, passed=False, commands=[
        run(name="unit", failing_tests=["t::old"]),
        run(name="lint", command="ruff check .", excerpt=["Error: E501 line too long"]),
        run(name="types", command="mypy", verdict="passed", exit_code=0),
    ])
    report.compare_with([run(name="unit", failing_tests=["t::old", "t::other"]),
                         run(name="types", command="mypy", verdict="passed", exit_code=0)])
    unit, lint, types = report.commands
    assert (unit.failed_before, lint.failed_before, types.failed_before) == ("same_tests", None, None)
    assert report.new_failures == [lint]  # ruff had no run before the change: it counts
    assert report.passed is False
    assert "failed the same way before the change" in unit.headline()


def _real_run(fixture: str, command: str = "cargo test", exit_code: int = 101) -> CommandOutcome:
    """A failing run as the parser reads a real runner's output kept in tests/verify/data."""
    collector = FailureCollector()
    for line in (DATA / fixture).read_text(encoding="utf-8").splitlines():
        collector.feed(line)
    return run(command=command, exit_code=exit_code, failing_tests=collector.names, excerpt=collector.excerpt)


def test_a_cargo_test_failing_in_another_binary_is_not_excused() -> None:
    """semver has a test_parse in tests/test_version.rs and in tests/test_version_req.rs (real cargo 1.95 runs,
    each failing the one): libtest names both `test_parse`, the names kept say which binary ran it."""
    before = _real_run("cargo-1.95-test-parse-in-test-version.txt")
    after = _real_run("cargo-1.95-test-parse-in-test-version-req.txt")
    assert (before.failing_tests, after.failing_tests) == (["test_version::test_parse"], ["test_version_req::test_parse"])
    assert failed_the_same_way(after, before) is None
    assert failed_the_same_way(after, _real_run("cargo-1.95-test-parse-in-test-version-req.txt")) == "same_tests"
    # a workspace where two packages have tests/integration.rs with a test `smoke`, alpha's failing before
    alpha, beta = _real_run("cargo-1.95-workspace-alpha-smoke.txt"), _real_run("cargo-1.95-workspace-beta-smoke.txt")
    assert failed_the_same_way(beta, alpha) is None


def test_a_go_test_failing_in_another_package_is_not_excused() -> None:
    """Two packages each have a TestNew failing with the same words (real go 1.19 runs: the root package's failed
    before the change, the change broke sub's): go test names both `TestNew`, the names kept say which package."""
    def go_run(fixture: str) -> CommandOutcome:
        return _real_run(fixture, "go test ./...", 1)

    before, after = go_run("go-1.19-testnew-one-package.txt"), go_run("go-1.19-testnew-two-packages.txt")
    assert before.failing_tests == ["example.com/same::TestNew"]
    assert after.failing_tests == ["example.com/same::TestNew", "example.com/same/sub::TestNew"]
    assert after.excerpt == before.excerpt  # the error lines alone cannot tell them apart
    assert failed_the_same_way(after, before) is None
    assert failed_the_same_way(go_run("go-1.19-testnew-one-package.txt"), before) == "same_tests"


def test_a_rust_hash_map_printed_in_another_order_is_the_same_failure() -> None:
    """Real cargo 1.95 runs of the same two broken tests: a HashMap and a HashSet print their items in another order
    in each run. That is the same failure; a value that changed is not."""
    before = _real_run("cargo-1.95-hashmap-order-a.txt")
    again = _real_run("cargo-1.95-hashmap-order-b.txt")
    assert set(before.failing_tests) == set(again.failing_tests) == {"rsset::tests::map", "rsset::tests::set"}
    assert set(again.excerpt) != set(before.excerpt)  # the orders differ
    assert failed_the_same_way(again, before) == "same_tests"
    assert failed_the_same_way(_real_run("cargo-1.95-hashmap-changed.txt"), before) is None  # "beta": 5


@pytest.mark.parametrize(("before", "after", "same"), [
    ("E   ValueError: unknown {'b', 'a'}", "E   ValueError: unknown {'a', 'b'}", True),
    ("left: {1: {3, 2}, 0: [2, 1]}", "left: {0: [2, 1], 1: {2, 3}}", True),  # groups in groups too
    ("left: {0: [2, 1]}", "left: {0: [1, 2]}", False),  # a list's order is its value
    # Java's HashMap of objects without their own hashCode: the order follows the addresses, masked first
    ("expected: <{Foo@1b6d3586=1, Foo@4554617c=2}>", "expected: <{Foo@1a2b3c4d=2, Foo@7e8f9a0b=1}>", True),
    ("E   KeyError: {'a, b', 'c'}", "E   KeyError: {'a', 'b, c'}", False),  # a quoted comma is no separator
    ("E   boom {b, a", "E   boom {a, b", False),  # a group cut short is left as it is
])
def test_the_items_of_a_set_or_map_are_compared_in_any_order(before: str, after: str, same: bool) -> None:
    outcome = failed_the_same_way(run(failing_tests=["t::a"], excerpt=[after]), run(failing_tests=["t::a"], excerpt=[before]))
    assert (outcome == "same_tests") is same


def test_a_tail_printing_a_set_in_another_order_is_the_same_output() -> None:
    """Neither run named a test nor printed an error line: the tails are compared, a set's order aside."""
    before = run(command="make check", exit_code=2, tail="checking...\nmissing: {'b', 'a'} after 1.2s\n")
    after = run(command="make check", exit_code=2, tail="checking...\nmissing: {'a', 'b'} after 0.9s\n")
    assert failed_the_same_way(after, before) == "same_output"
    other = run(command="make check", exit_code=2, tail="checking...\nmissing: {'a', 'c'} after 0.9s\n")
    assert failed_the_same_way(other, before) is None
