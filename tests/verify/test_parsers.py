"""Failing test names from real-looking output of each runner the parsers know."""

from __future__ import annotations

from pathlib import Path

from code_intel.verify.parsers import MAX_EXCERPT, FailureCollector, failing_tests

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


def test_pytest_9_subtests_name_the_test_whose_subtest_failed() -> None:
    """pytest 9 reports a failed subtest (unittest's subTest, the subtests fixture) on a SUBFAILED line. A unittest
    test whose subtest failed gets no FAILED line at all (its verbose line even says PASSED), so without reading
    SUBFAILED the run would name only the other test. Real output of pytest 9.2.0, -q and -v."""
    data = Path(__file__).parent / "data"
    quiet = (data / "pytest-9.2.0-q-subtests.txt").read_text(encoding="utf-8")
    assert failing_tests(quiet) == ["test_s.py::T::test_a", "test_s.py::test_p"]
    verbose = (data / "pytest-9.2.0-v-subtests.txt").read_text(encoding="utf-8")
    assert sorted(failing_tests(verbose)) == ["test_s.py::T::test_a", "test_s.py::test_p"]
    # a description with spaces, brackets or a `::` of its own is not the node id
    assert failing_tests("SUBFAILED[check a::b] (name='x y') tests/t.py::T::test_c - AssertionError: no\n") == [
        "tests/t.py::T::test_c"]
    assert failing_tests("SUBFAILED(<subtest>) tests/t.py::test_d\n") == ["tests/t.py::test_d"]


def test_unittest_both_header_styles() -> None:
    assert failing_tests(UNITTEST) == ["test_calc.CalcTest.test_sub", "test_calc.OldTest.test_old"]


def test_unittest_s_closing_count_is_no_test_name() -> None:
    """python -m unittest (3.11) ends with `FAILED (failures=2)` when only one kind failed: not pytest's
    `FAILED name` summary. A count read as a name would change with the number of failures, so a change that
    fixed one of two old failures would look like a new failing test."""
    def output(*tests: str) -> str:
        blocks = "".join(f"{'=' * 70}\nFAIL: {t} (test_calc.CalcTest.{t})\n{'-' * 70}\nTraceback (most recent call last):\n"
                         f"AssertionError: 4 != 5\n\n" for t in tests)
        return f"{blocks}{'-' * 70}\nRan 2 tests in 0.000s\n\nFAILED (failures={len(tests)})\n"

    assert failing_tests(output("test_add", "test_mul")) == ["test_calc.CalcTest.test_add", "test_calc.CalcTest.test_mul"]
    assert failing_tests(output("test_mul")) == ["test_calc.CalcTest.test_mul"]
    assert failing_tests("FAILED (errors=1)\n") == []


def test_jest() -> None:
    assert failing_tests(JEST) == ["src/math.test.js › math › subtracts"]


def test_jest_names_start_with_their_file_and_a_file_that_failed_to_run_is_named() -> None:
    """As jest 30 printed them here: a slow file's header carries its time; a suite that cannot load names no test."""
    output = (
        "PASS src/add.test.js\n"
        "FAIL src/math.test.js (5.21 s)\n"
        "  ● math › nested › fails with an object\n\n    expect(received).toEqual(expected) // deep equality\n"
        "FAIL src/broken.test.js\n"
        "  ● Test suite failed to run\n\n    Cannot find module './missing' from 'src/broken.test.js'\n"
        "FAIL src/other.test.js\n"
        "  ● other thing works\n"
    )
    assert failing_tests(output) == ["src/math.test.js › math › nested › fails with an object", "src/broken.test.js",
                                     "src/other.test.js › other thing works"]


def test_vitest() -> None:
    names = failing_tests(VITEST)
    assert "math > subtracts" in names
    assert "src/math.test.ts > math > subtracts" in names


def test_mocha_summary_joins_suite_and_test() -> None:
    assert failing_tests(MOCHA) == ["math subtracts"]


def test_mocha_nested_suites_are_joined_too() -> None:
    """mocha 10's own output for a test in a suite in a suite: each title on its own line, one level deeper."""
    output = ("  0 passing (7ms)\n  2 failing\n\n  1) Array\n       #indexOf()\n"
              "         should return -1 when the value is not present:\n\n"
              "      AssertionError [ERR_ASSERTION]: 0 == -1\n      + expected - actual\n\n"
              "      at Context.<anonymous> (test/search.test.js:6:14)\n\n"
              "  2) Array\n       #indexOf()\n         is not present:\n\n"
              "      AssertionError [ERR_ASSERTION]: The expression evaluated to a falsy value:\n")
    assert failing_tests(output) == ["Array #indexOf() should return -1 when the value is not present",
                                     "Array #indexOf() is not present"]


def test_go_test_subtests_too_named_after_their_package() -> None:
    assert failing_tests(GO) == ["example.com/calc::TestSub", "example.com/calc::TestSub/negative"]


# `go test ./...` on go 1.19: two packages each with a failing TestNew, a package that did not build, one that passed
GO_PACKAGES = """\
--- FAIL: TestNew (0.00s)
    a_test.go:7: Add(1, 2) = 3, want 4
FAIL
FAIL	example.com/multi	0.003s
# example.com/multi/sub/deep [example.com/multi/sub/deep.test]
sub/deep/bad.go:2:23: cannot use "s" (untyped string constant) as int value in return statement
--- FAIL: TestNew (0.00s)
    --- FAIL: TestNew/case (0.00s)
        b_test.go:9: Mul = 2
    --- FAIL: TestNew/case#01 (0.00s)
        b_test.go:9: Mul = 4
FAIL
FAIL	example.com/multi/sub	0.002s
FAIL	example.com/multi/sub/deep [build failed]
ok  	example.com/multi/other	(cached)
FAIL
"""


def test_go_tests_of_the_same_name_in_two_packages_are_two_tests() -> None:
    assert failing_tests(GO_PACKAGES) == ["example.com/multi::TestNew", "example.com/multi/sub::TestNew",
                                          "example.com/multi/sub::TestNew/case", "example.com/multi/sub::TestNew/case#01"]
    # `go test` in the package's folder says `exit status 1` before the package line
    assert failing_tests("--- FAIL: TestX (0.00s)\nFAIL\nexit status 1\nFAIL\texample.com/multi/sub\t0.002s\n") == [
        "example.com/multi/sub::TestX"]


def test_go_output_cut_before_its_package_line_keeps_the_names_bare() -> None:
    assert failing_tests("--- FAIL: TestSlow (0.00s)\n    a_test.go:3: boom\n") == ["TestSlow"]


def test_cargo_test() -> None:
    """No `Running` line before the tests (a snippet, `cargo test -q`): the names stay as libtest prints them."""
    collector = _collect(CARGO)
    assert collector.names == ["tests::subtracts"]
    assert collector.excerpt == ["thread 'tests::subtracts' panicked at src/lib.rs:10:9:", "assertion `left == right` failed"]


def test_cargo_test_quiet_names_each_binary_after_its_rerun_hint() -> None:
    """A real `cargo test -q --no-fail-fast` (cargo 1.95): no Running lines, but each failing binary's rerun hint names
    it, so the two integration tests' `parse` are two tests; the library's unit tests are `unittests`, as cargo calls
    them (not `lib`, which would read as src/lib.rs)."""
    output = (DATA / "cargo-1.95-quiet-no-fail-fast.txt").read_text(encoding="utf-8")
    assert failing_tests(output) == ["unittests::tests::set", "unittests::tests::map", "integ::parse", "other::parse"]
    hinted = ("running 1 test\nx --- FAILED\nerror: test failed, to rerun pass `-p beta --bin tool`\n"
              "running 1 test\ny --- FAILED\n")  # the next binary's run cut short: no hint for it
    assert failing_tests(hinted) == ["beta/tool(bin)::x", "y"]


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


# --------------------------------------------------------------- cargo test: names per test binary, panics
# Captured with cargo 1.95 on dtolnay/semver (RUST_BACKTRACE=1 in the first two, unset in the next two) and on a
# workspace with the packages my-crate (src/lib.rs, src/main.rs, src/bin/other-tool.rs, tests/it-works.rs, doc
# tests) and other (src/lib.rs).


def test_cargo_names_a_failing_test_after_its_binary_and_quotes_the_panic() -> None:
    collector = _collect((DATA / "cargo-1.95-fail-fast.txt").read_text(encoding="utf-8"))
    assert collector.names == ["test_version::test_leading_v"]
    assert collector.excerpt == [
        "thread 'test_leading_v' panicked at tests/test_version.rs:261:15:",
        "called `Result::unwrap_err()` on an `Ok` value: Version { major: 1, minor: 2, patch: 3 }",
        "error: test failed, to rerun pass `--test test_version`",
    ]


def test_cargo_unit_integration_and_doc_tests_with_their_panics() -> None:
    """--no-fail-fast: a unit test of the lib, an assert_eq in an integration test, a doc test. The closing
    `failures:` lists name each test again; two panics with the same assertion lines are both quoted whole."""
    collector = _collect((DATA / "cargo-1.95-no-fail-fast.txt").read_text(encoding="utf-8"))
    assert collector.names == ["semver::tests::inner_fails", "test_version_req::test_parse",
                               "src/lib.rs - Version::new (line 376)"]
    assert collector.excerpt == [
        "thread 'tests::inner_fails' panicked at src/lib.rs:577:11:",
        "no value here",
        "error: test failed, to rerun pass `--lib`",
        "thread 'test_parse' panicked at tests/test_version_req.rs:334:5:",
        "assertion `left == right` failed",
        "  left: 1",
        " right: 2",
        "error: test failed, to rerun pass `--test test_version_req`",
        "thread 'main' panicked at src/lib.rs:16:1:",
        "assertion `left == right` failed",
        "  left: 1",
        " right: 9",
        "error: doctest failed, to rerun pass `--doc`",
        "error: 3 targets failed:",
    ]


def test_cargo_workspace_binaries_hyphens_and_test_modes() -> None:
    """Hyphenated names become the binary's underscores; the lib and the src/main.rs binary of my-crate are both
    `my_crate-<hash>`, so a binary's unit tests say `(bin)`; over several packages cargo's rerun hint names the
    package (`-p my-crate --lib`); ` - should panic` and ` - compile` are modes, not names (the `failures:` list
    leaves them out); a doc test's path already names its package folder."""
    collector = _collect((DATA / "cargo-1.95-workspace.txt").read_text(encoding="utf-8"))
    assert collector.names == [
        "my-crate/my_crate::tests::multi", "my-crate/my_crate::tests::it_works", "my-crate/my_crate::tests::returns_err",
        "my-crate/my_crate::tests::should_but_does_not", "my-crate/my_crate::tests::wrong_message",
        "my-crate/my_crate(bin)::tests::it_works", "my-crate/other_tool(bin)::tests::it_works",
        "my-crate/it_works::it_works", "other/other::tests::it_works",
        "my-crate/src/lib.rs - add (line 11)", "my-crate/src/lib.rs - (line 1)", "my-crate/src/lib.rs - add (line 7)",
    ]
    excerpt = collector.excerpt
    assert len(excerpt) == MAX_EXCERPT
    # a long message is cut after a few lines; a test returning Err, a should_panic that did not, or panicked
    # with another message say so
    assert excerpt[:5] == ["thread 'tests::multi' panicked at my-crate/src/lib.rs:29:18:",
                           "line one", "line two", "line three", "line four"]
    assert 'Error: "nope"' in excerpt
    assert "note: test did not panic as expected at my-crate/src/lib.rs:22:8" in excerpt
    i = excerpt.index("note: panic did not contain expected string")
    assert excerpt[i + 1:i + 3] == ['      panic message: "bang"', ' expected substring: "boom"']
    assert not any("stack backtrace" in line or "RUST_BACKTRACE" in line for line in excerpt)


def test_cargo_quiet_and_other_output_modes() -> None:
    """cargo 1.95: `-q` prints `name --- FAILED` and no Running lines, --report-time a time after FAILED,
    --nocapture the panic right before the verdict; a compile_fail doc test that compiled says so."""
    quiet = ("running 20 tests\n.............. 14/20\ntest_parse --- FAILED\n.....\nfailures:\n\n"
             "---- test_parse stdout ----\n\nthread 'test_parse' (3199) panicked at tests/test_version_req.rs:334:5:\n"
             "assertion `left == right` failed\n  left: 1\n right: 2\n"
             "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\n"
             "failures:\n    test_parse\n\ntest result: FAILED. 19 passed; 1 failed; 0 ignored\n")
    collector = _collect(quiet)
    assert collector.names == ["test_parse"]
    assert collector.excerpt == ["thread 'test_parse' panicked at tests/test_version_req.rs:334:5:",
                                 "assertion `left == right` failed", "  left: 1", " right: 2"]
    timed = ("     Running unittests src/lib.rs (target/debug/deps/my_crate-d19f96be62160139)\n"
             "test tests::ignored ... ignored\ntest tests::it_works ... FAILED <0.055s>\n")
    assert failing_tests(timed) == ["my_crate::tests::it_works"]
    nocapture = ("     Running tests/test_version_req.rs (target/debug/deps/test_version_req-1bbdc54143b4c77e)\n"
                 "\nrunning 20 tests\n\nthread 'test_parse' (3226) panicked at tests/test_version_req.rs:334:5:\n"
                 "assertion `left == right` failed\n  left: 1\n right: 2\ntest test_parse ... FAILED\n"
                 "\nfailures:\n\nfailures:\n    test_parse\n")
    collector = _collect(nocapture)
    assert collector.names == ["test_version_req::test_parse"]
    assert collector.excerpt[-1] == " right: 2"
    doc = ("   Doc-tests my_crate\n\nrunning 3 tests\ntest my-crate/src/lib.rs - add (line 11) ... ignored\n"
           "test my-crate/src/lib.rs - add (line 7) - compile ... FAILED\n"
           "test my-crate/src/lib.rs - add (line 3) - compile fail ... FAILED\n\nfailures:\n\n"
           "---- my-crate/src/lib.rs - add (line 7) stdout ----\nerror[E0308]: mismatched types\n --> my-crate/src/lib.rs:8:13\n"
           "---- my-crate/src/lib.rs - add (line 3) stdout ----\nTest compiled successfully, but it's marked `compile_fail`.\n"
           "\nfailures:\n    my-crate/src/lib.rs - add (line 3)\n    my-crate/src/lib.rs - add (line 7)\n")
    collector = _collect(doc)
    assert collector.names == ["my-crate/src/lib.rs - add (line 7)", "my-crate/src/lib.rs - add (line 3)"]
    assert collector.excerpt == ["error[E0308]: mismatched types",
                                 "Test compiled successfully, but it's marked `compile_fail`."]


def test_cargo_before_1_73_panics_and_running_lines() -> None:
    """Before Rust 1.73 the message sat between quotes on the panic line itself (continuing on the next lines for
    assert_eq); cargo before 1.51 named only the binary in its Running line."""
    old = ("     Running target/debug/deps/semver-08707e0d390c1b5c\n\nrunning 2 tests\n"
           "test tests::a ... FAILED\ntest tests::b ... FAILED\n\nfailures:\n\n---- tests::a stdout ----\n"
           "thread 'tests::a' panicked at 'called `Option::unwrap()` on a `None` value', src/lib.rs:2:5\n"
           "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n---- tests::b stdout ----\n"
           "thread 'tests::b' panicked at 'assertion failed: `(left == right)`\n  left: `1`,\n right: `2`', src/lib.rs:7:5\n\n"
           "failures:\n    tests::a\n    tests::b\n\n"
           "     Running target\\debug\\deps\\test_version-b71417f14012d63c.exe\ntest test_parse ... FAILED\n")
    collector = _collect(old)
    assert collector.names == ["semver::tests::a", "semver::tests::b", "test_version::test_parse"]
    assert collector.excerpt == [
        "thread 'tests::a' panicked at 'called `Option::unwrap()` on a `None` value', src/lib.rs:2:5",
        "thread 'tests::b' panicked at 'assertion failed: `(left == right)`", "  left: `1`,", " right: `2`', src/lib.rs:7:5",
    ]


def test_cargo_binary_kinds() -> None:
    """The unit tests of a binary, an example or a bench say what they are; the lib's and an integration
    test's are the binary's name alone."""
    def target(running: str) -> list[str]:
        return failing_tests(f"     Running {running}\ntest t ... FAILED\n")
    assert target("unittests src/lib.rs (target/debug/deps/my_crate-d19f96be62160139)") == ["my_crate::t"]
    assert target("unittests src/main.rs (target/debug/deps/my_crate-83ed02aeaa5b23ca)") == ["my_crate(bin)::t"]
    assert target("unittests src/bin/other-tool.rs (target/debug/deps/other_tool-edfcf9fdadfcd9ae)") == ["other_tool(bin)::t"]
    assert target("tests/it-works.rs (target/debug/deps/it_works-b39d6be7ce303868)") == ["it_works::t"]
    assert target("tests/suite/main.rs (target/debug/deps/suite-b39d6be7ce303868)") == ["suite::t"]
    assert target("unittests examples/demo-ex.rs (target/debug/examples/demo_ex-0123456789abcdef)") == ["demo_ex(example)::t"]
    assert target("benches/speed.rs (target/debug/deps/speed-0123456789abcdef)") == ["speed(bench)::t"]
    # Surefire 2.x prints `Running pkg.Class` too: no cargo binary, nothing qualified
    assert failing_tests("Running com.example.CalcTest\ntest t ... FAILED\n") == ["t"]
    # without libtest's `running N tests`, a `failures:` list is someone else's
    assert failing_tests("failures:\n    not_a_test\n") == []
    assert failing_tests("running 1 test\nfailures:\n    a_test\n") == ["a_test"]
    # the rerun hint after a failing binary says its kind, also for a binary with a path of its own
    assert failing_tests("     Running unittests tools/gen.rs (target/debug/deps/gen-0123456789abcdef)\n"
                         "test t ... FAILED\nerror: test failed, to rerun pass `--bin gen`\n") == ["gen(bin)::t"]
    assert failing_tests("     Running target/debug/deps/gen-0123456789abcdef\n"
                         "test t ... FAILED\nerror: test failed, to rerun pass '-p tools --bin gen'\n") == ["tools/gen(bin)::t"]


def test_cargo_integration_tests_of_two_packages_with_one_file_name() -> None:
    """A workspace (alpha, beta) where both packages have tests/integration.rs with a test `smoke`: the binaries
    are both `integration-<hash>`; cargo's rerun hint names the package. Real runs, alpha failing, then beta."""
    alpha = _collect((DATA / "cargo-1.95-workspace-alpha-smoke.txt").read_text(encoding="utf-8"))
    beta = _collect((DATA / "cargo-1.95-workspace-beta-smoke.txt").read_text(encoding="utf-8"))
    assert (alpha.names, beta.names) == (["alpha/integration::smoke"], ["beta/integration::smoke"])


# --------------------------------------------------------------- CTest, Unity and GoogleTest
def test_ctest_running_unity_tests_names_each_failing_function_after_its_file() -> None:
    """cJSON's suite under CTest (--output-on-failure) with a number parser broken on purpose: eight test
    programs fail; each Unity failure is named `file::function`, and a CTest test whose output named its own
    failures is not named again from the closing list."""
    collector = FailureCollector()
    for line in (DATA / "ctest-3.25-unity-fail.txt").read_text(encoding="utf-8").splitlines():
        collector.feed(line)
    names = collector.names
    assert len(names) == 20 and len(set(names)) == 20
    assert names[:2] == ["parse_examples::file_test3_should_be_parsed_and_printed",
                         "parse_examples::file_test4_should_be_parsed_and_printed"]
    assert "parse_number::parse_number_should_parse_zero" in names
    assert names[-1] == "readme_examples::supports_full_hd_should_check_for_full_hd_support"
    assert "parse_number" not in names  # the closing list's entry: its functions are named already
    excerpt = collector.excerpt
    assert len(excerpt) == MAX_EXCERPT and all(len(line) <= 300 for line in excerpt)
    assert excerpt[6].endswith("tests/parse_number.c:56:parse_number_should_parse_zero:FAIL: Expected 0 Was 1")


CTEST_PLAIN = """\
Test project /tmp/calc/build
    Start 1: sub_test
1/2 Test #1: sub_test .........................***Failed    0.00 sec
    Start 2: add_test
2/2 Test #2: add_test .........................   Passed    0.00 sec

50% tests passed, 1 tests failed out of 2

Total Test time (real) =   0.01 sec

The following tests FAILED:
\t  1 - sub_test (Failed)
\t  3 - crashes (SEGFAULT)
Errors while running CTest
"""

# GoogleTest's documented output (no GoogleTest on this machine to capture it from)
GTEST = """\
[==========] Running 2 tests from 1 test suite.
[ RUN      ] MathTest.Adds
[       OK ] MathTest.Adds (0 ms)
[ RUN      ] MathTest.Subtracts
math_test.cc:12: Failure
Expected equality of these values:
  sub(3, 1)
    Which is: 4
  2
[  FAILED  ] MathTest.Subtracts (0 ms)
[==========] 2 tests from 1 test suite ran. (0 ms total)
[  PASSED  ] 1 test.
[  FAILED  ] 1 test, listed below:
[  FAILED  ] MathTest.Subtracts

 1 FAILED TEST
"""


def test_ctest_names_a_plain_test_program_and_googletest_names_its_tests() -> None:
    assert failing_tests(CTEST_PLAIN) == ["sub_test", "crashes"]
    collector = FailureCollector()
    for line in GTEST.splitlines():
        collector.feed(line)
    assert collector.names == ["MathTest.Subtracts"]
    assert collector.excerpt == ["math_test.cc:12: Failure", "Expected equality of these values:"]


def test_a_revert_reason_quotes_the_first_errors_of_a_long_excerpt() -> None:
    """With more errors than the reason holds, the first ones stay: the first failure is usually the cause."""
    from code_intel.verify.models import CheckReport, CommandOutcome

    excerpt = [f"tests/t.c:{n}:test_{n}:FAIL: Expected {n} Was 0" for n in range(1, MAX_EXCERPT + 1)]
    outcome = CommandOutcome(name="ctest", command="ctest", verdict="failed", exit_code=8, excerpt=excerpt)
    text = CheckReport(configured=True, passed=False, commands=[outcome]).failure_text()
    assert "test_1:FAIL" in text and "test_15:FAIL" in text and "test_16:FAIL" not in text


def test_c_compile_and_link_errors_are_quoted() -> None:
    """gcc under -Werror through CMake (cJSON after a change left a macro unused; a real run), an undeclared
    name, and the linker's undefined reference: each error line is quoted, not the make noise around it."""
    collector = FailureCollector()
    for line in (DATA / "cmake-gcc-werror.txt").read_text(encoding="utf-8").splitlines():
        collector.feed(line)
    assert collector.excerpt == ['/work/tmp/cjson/cJSON.c:84: error: macro "NAN" is not used [-Werror=unused-macros]']
    gcc = ("a.c: In function 'main':\na.c:3:13: error: 'x' undeclared (first use in this function)\n"
           "    3 |     int y = x + 1;\n      |             ^\n"
           "/usr/bin/ld: /tmp/ccqAOBaQ.o: in function `main':\nb.c:(.text+0x5): undefined reference to `f'\n"
           "collect2: error: ld returned 1 exit status\n")
    collector = FailureCollector()
    for line in gcc.splitlines():
        collector.feed(line)
    assert collector.excerpt == ["a.c:3:13: error: 'x' undeclared (first use in this function)",
                                 "b.c:(.text+0x5): undefined reference to `f'",
                                 "collect2: error: ld returned 1 exit status"]


def test_junit_failures_read_pytest_s_xunit1_report(tmp_path: Path) -> None:
    from code_intel.verify.parsers import junit_failures

    report = tmp_path / "r.xml"
    report.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.test_a" name="test_ok" file="tests/test_a.py" line="1"/>'
        '<testcase classname="tests.test_a.TestX" name="test_m[2-3]" file="tests/test_a.py" line="5">'
        '<failure message="assert">x</failure></testcase>'
        '<testcase classname="" name="tests.test_b"><error message="collection failure">y</error></testcase>'
        '</testsuite></testsuites>', encoding="utf-8")
    assert junit_failures(report) == ["tests/test_a.py::TestX::test_m[2-3]", "tests.test_b"]
    assert junit_failures(tmp_path / "missing.xml") == []
    (tmp_path / "bad.xml").write_text("<testsuites", encoding="utf-8")
    assert junit_failures(tmp_path / "bad.xml") == []
