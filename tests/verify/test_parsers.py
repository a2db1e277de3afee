"""Failing test names from real-looking output of each runner the parsers know."""

from __future__ import annotations

from pathlib import Path

from tools.verify.parsers import FailureCollector, failing_tests

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


# --------------------------------------------------------------- JVM: Maven Surefire and Gradle
DATA = Path(__file__).parent / "data"

# Surefire 2.x names a JUnit 4 test `method(pkg.Class)`; the same test reads pkg.Class.method in 3.x.
SUREFIRE_2 = """\
Running com.example.CalcTest
Tests run: 3, Failures: 1, Errors: 1, Skipped: 0, Time elapsed: 0.021 sec <<< FAILURE! - in com.example.CalcTest
addsWrong(com.example.CalcTest)  Time elapsed: 0.004 sec  <<< FAILURE!
java.lang.AssertionError: expected:<4> but was:<3>
\tat org.junit.Assert.fail(Assert.java:89)
throwsUp(com.example.CalcTest)  Time elapsed: 0.001 sec  <<< ERROR!
java.lang.IllegalStateException: boom
"""

GRADLE = """\
> Task :test FAILED

com.example.CalcTest > addsWrong() FAILED
    org.opentest4j.AssertionFailedError at CalcTest.java:7

com.example.CalcTest > Inner > innerFails() FAILED
    org.opentest4j.AssertionFailedError at CalcTest.java:9

com.example.CalcTest > adds() PASSED

3 tests completed, 2 failed
"""


def _collect(text: str) -> FailureCollector:
    collector = FailureCollector()
    for line in text.splitlines():
        collector.feed(line)
    return collector


def test_surefire_3_names_each_failing_test_once_from_real_maven_output() -> None:
    """Captured from `mvn -q test` (Surefire 3.2.5, JUnit 5): per-test lines in full, the closing summary
    with short class names adds nothing new, and the class line `Tests run: ... <<< FAILURE!` is no test."""
    collector = _collect((DATA / "maven-surefire-3.2.5-junit5.txt").read_text(encoding="utf-8"))
    assert collector.names == ["demo.CalcTest.addsWrong", "demo.CalcTest.throwsUp", "demo.CalcTest$Inner.innerFails"]
    assert "org.opentest4j.AssertionFailedError: expected: <4> but was: <3>" in collector.excerpt
    assert "java.lang.IllegalStateException: boom" in collector.excerpt
    assert "[ERROR]   CalcTest.addsWrong:7 expected: <4> but was: <3>" in collector.excerpt
    assert not any(line.lstrip().startswith("at ") for line in collector.excerpt)


def test_surefire_summary_alone_still_names_the_tests() -> None:
    summary = ("[ERROR] Failures: \n[ERROR]   CalcTest.addsWrong:7 expected: <4> but was: <3>\n"
               "[ERROR]   CalcTest$Inner.innerFails:9 inner\n[ERROR] Errors: \n[ERROR]   CalcTest.throwsUp:8 IllegalState boom\n"
               "[ERROR] Tests run: 4, Failures: 2, Errors: 1, Skipped: 0\n[ERROR]   not.AnEntry:1 after the list\n")
    assert failing_tests(summary) == ["CalcTest.addsWrong", "CalcTest$Inner.innerFails", "CalcTest.throwsUp"]


def test_surefire_2_junit4_names_read_as_class_dot_method() -> None:
    collector = _collect(SUREFIRE_2)
    assert collector.names == ["com.example.CalcTest.addsWrong", "com.example.CalcTest.throwsUp"]
    assert collector.excerpt == ["java.lang.AssertionError: expected:<4> but was:<3>", "java.lang.IllegalStateException: boom"]


def test_gradle_failed_lines_but_not_the_task_line() -> None:
    collector = _collect(GRADLE)
    assert collector.names == ["com.example.CalcTest > addsWrong()", "com.example.CalcTest > Inner > innerFails()"]
    assert collector.excerpt == ["    org.opentest4j.AssertionFailedError at CalcTest.java:7",
                                 "    org.opentest4j.AssertionFailedError at CalcTest.java:9"]


def test_compile_errors_are_quoted_once() -> None:
    """A build that does not compile names no test; its compiler lines say why (Maven prints each twice)."""
    maven = _collect((DATA / "maven-compile-error.txt").read_text(encoding="utf-8"))
    assert maven.names == []
    assert maven.excerpt == ["[ERROR] /home/dev/calc/src/main/java/demo/Calc.java:[2,70] cannot find symbol"]
    others = _collect(
        "error[E0425]: cannot find value `c` in this scope\n  --> src/lib.rs:2:9\n"
        "src/calc.ts(2,10): error TS2304: Cannot find name 'c'.\n"
        "src/calc.ts:2:10 - error TS2304: Cannot find name 'c'.\n"
        "./calc.go:4:13: undefined: c\n"
        "org.example.Config loaded from disk\n"  # a dotted name that is no exception
    )
    assert others.names == []
    assert others.excerpt == ["error[E0425]: cannot find value `c` in this scope",
                              "src/calc.ts(2,10): error TS2304: Cannot find name 'c'.",
                              "src/calc.ts:2:10 - error TS2304: Cannot find name 'c'.",
                              "./calc.go:4:13: undefined: c"]
