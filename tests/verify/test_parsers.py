"""Failing test names from real-looking output of each runner the parsers know."""

from __future__ import annotations

from tools.verify.parsers import failing_tests

PYTEST = """\
============================= test session starts ==============================
collected 3 items

tests/test_calc.py .F.                                                   [100%]

=================================== FAILURES ===================================
_________________________________ test_subtract _________________________________

    def test_subtract():
>       assert subtract(3, 1) == 2
E       assert 4 == 2

tests/test_calc.py:9: AssertionError
=========================== short test summary info ============================
FAILED tests/test_calc.py::test_subtract - assert 4 == 2
ERROR tests/test_db.py::test_connect - ConnectionError
========================= 1 failed, 2 passed in 0.03s ==========================
"""

PYTEST_VERBOSE = "tests/test_calc.py::test_add PASSED\ntests/test_calc.py::test_sub[1-2] FAILED  [ 50%]\n"

UNITTEST = """\
.F
======================================================================
FAIL: test_sub (test_calc.CalcTest.test_sub)
----------------------------------------------------------------------
Traceback (most recent call last):
AssertionError: 4 != 2
======================================================================
ERROR: test_old (test_calc.OldTest)
----------------------------------------------------------------------
FAILED (failures=1, errors=1)
"""

JEST = """\
FAIL src/math.test.js
  math
    ✓ adds (2 ms)
    ✕ subtracts (3 ms)

  ● math › subtracts

    expect(received).toBe(expected) // Object.is equality

    Expected: 2
    Received: 4

Tests:       1 failed, 1 passed, 2 total
"""

VITEST = """\
 ❯ src/math.test.ts (2 tests | 1 failed) 5ms
   × math > subtracts 3ms
 FAIL  src/math.test.ts > math > subtracts
AssertionError: expected 4 to be 2
"""

MOCHA = """\
  math
    ✔ adds
    1) subtracts


  1 passing (5ms)
  1 failing

  1) math
       subtracts:

      AssertionError [ERR_ASSERTION]: 4 == 2
      at Context.<anonymous> (test/math.test.js:9:12)
"""

GO = """\
=== RUN   TestAdd
--- PASS: TestAdd (0.00s)
=== RUN   TestSub
    calc_test.go:12: got 4, want 2
--- FAIL: TestSub (0.00s)
    --- FAIL: TestSub/negative (0.00s)
FAIL
FAIL	example.com/calc	0.002s
"""

CARGO = """\
running 2 tests
test tests::adds ... ok
test tests::subtracts ... FAILED

failures:

---- tests::subtracts stdout ----
thread 'tests::subtracts' panicked at src/lib.rs:10:9:
assertion `left == right` failed
test result: FAILED. 1 passed; 1 failed; 0 ignored
"""


def test_pytest_summary_and_errors() -> None:
    assert failing_tests(PYTEST) == ["tests/test_calc.py::test_subtract", "tests/test_db.py::test_connect"]


def test_pytest_verbose_lines() -> None:
    assert failing_tests(PYTEST_VERBOSE) == ["tests/test_calc.py::test_sub[1-2]"]


def test_unittest_both_header_styles() -> None:
    assert failing_tests(UNITTEST) == ["test_calc.CalcTest.test_sub", "test_calc.OldTest.test_old"]


def test_jest() -> None:
    assert failing_tests(JEST) == ["math › subtracts"]


def test_vitest() -> None:
    names = failing_tests(VITEST)
    assert "math > subtracts" in names
    assert "src/math.test.ts > math > subtracts" in names


def test_mocha_summary_joins_suite_and_test() -> None:
    assert failing_tests(MOCHA) == ["math subtracts"]


def test_go_test_subtests_too() -> None:
    assert failing_tests(GO) == ["TestSub", "TestSub/negative"]


def test_cargo_test() -> None:
    assert failing_tests(CARGO) == ["tests::subtracts"]


def test_tap_from_node_test() -> None:
    tap = "TAP version 13\n# Subtest: adds\nnot ok 1 - adds\n  ---\nok 2 - keeps\nnot ok 3 - later # TODO not yet\n"
    assert failing_tests(tap) == ["adds"]


def test_colour_codes_are_ignored_and_passing_output_names_nothing() -> None:
    assert failing_tests("\x1b[31mFAILED\x1b[0m tests/t.py::test_a - boom\n") == ["tests/t.py::test_a"]
    assert failing_tests("3 passed in 0.01s\nok  \texample.com/calc\t0.002s\ntest result: ok. 2 passed\n") == []
