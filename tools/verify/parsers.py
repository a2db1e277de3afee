"""Failing test names from test-runner output: pytest, unittest, jest, vitest, mocha, go test, cargo test,
TAP (node --test, prove), Maven Surefire and Gradle (JUnit 4 and 5), CTest, and the C/C++ frameworks it
usually runs (Unity, GoogleTest).

The exit code decides whether a command failed; these parsers only name what failed, so the agent
and the revert reason can point at it. They read the output line by line as it streams (nothing
is kept beyond what they match) and never raise on odd input.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from code_intel.verify.counts import TestCounts
from code_intel.verify.models import MAX_NAMES

MAX_REPORT_BYTES = 50_000_000  # a larger JUnit report is not read; the output's names stand
MAX_EXCERPT = 20

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")

_PYTEST_SUMMARY = re.compile(r"^(?:FAILED|ERROR) (?!\()(\S+?)(?: - .*)?$")  # not unittest's `FAILED (failures=2)`
_PYTEST_VERBOSE = re.compile(r"^(\S+::\S+) (?:SUB)?(?:FAILED|ERROR)\b")
# pytest 9's subtests (unittest's subTest and the subtests fixture): `SUBFAILED[msg] (i=2) tests/t.py::T::test_a -
# AssertionError: ...`. A unittest test whose subtest failed gets no FAILED line of its own, only this one; the node
# id is the first `a::b` word followed by ` - ` or the end (a message or a value in the description may hold spaces).
_PYTEST_SUBFAILED = re.compile(r"^SUBFAILED\S.*? (\S+::\S+?)(?: - .*)?$")
_UNITTEST = re.compile(r"^(?:FAIL|ERROR): (\S+) \(([^)]+)\)")
_JEST = re.compile(r"^\s*●\s+(.+?)\s*$")
# jest's header for a test file: `FAIL src/math.test.js`, with the run time when it was slow (`(5.2 s)`); the file
# starts the names of its failing tests, since jest's `●` headings name only the describe blocks and the test
_JEST_FILE = re.compile(r"^\s*(?:FAIL|PASS)\s+(\S+\.[cm]?[jt]sx?)(?:\s+\([\d.]+\s*m?s\))?\s*$")
_VITEST_FAIL = re.compile(r"^\s*FAIL\s+(\S.*? > .+?)\s*(?:\[.*\])?$")
_VITEST_CROSS = re.compile(r"^\s*[×✖]\s+(.+?)(?:\s+\(?\d+(?:\.\d+)?\s*m?s\)?)?$")  # jest's ✕ lines repeat its ● ones
_MOCHA_FAILING = re.compile(r"^\s*\d+ failing\b")
_MOCHA_ITEM = re.compile(r"^\s*\d+\) (.+?):?\s*$")
_GO = re.compile(r"^\s*--- FAIL: (\S+)")
# The line go test ends each package's output with: `FAIL\texample.com/calc\t0.002s`, `FAIL\texample.com/calc [build
# failed]`, `ok  \texample.com/calc\t(cached)`. A package's output comes in one piece, even when packages run in parallel.
_GO_PACKAGE = re.compile(r"^(?:FAIL|ok)\s+(\S+)\s+(?:\d[\d.]*m?s\b|\[|\(cached\))")
# cargo test (libtest): `test tests::adds ... FAILED`, a doc test `test src/lib.rs - Version::new (line 376) ... FAILED`,
# with the test's mode after ` - ` (should panic, compile fail, compile: not part of its name, the closing
# `failures:` list leaves it out) and, with --report-time, its time (`FAILED <0.055s>`); -q prints `name --- FAILED`.
_CARGO = re.compile(r"^test (\S.*?)(?: - (?:should panic|compile fail|compile))? \.\.\. FAILED(?: <[\d.]+s>)?$")
_CARGO_TERSE = re.compile(r"^(\S.*?)(?: - (?:should panic|compile fail|compile))? --- FAILED(?: <[\d.]+s>)?$")
_CARGO_LIST_ITEM = re.compile(r"^ {4}(\S.*?)\s*$")  # an entry of the closing `failures:` list
_LIBTEST_RUNNING = re.compile(r"^running \d+ tests?$")  # each test binary's first line
# The test binary cargo is about to run: `Running tests/test_version.rs (target/debug/deps/test_version-b71417f14012d63c)`,
# `Running unittests src/lib.rs (target/debug/deps/semver-08707e0d390c1b5c)`; cargo before 1.51 printed only the binary.
_CARGO_RUNNING = re.compile(
    r"^\s*Running (?:(unittests) )?(?:(.+?) \(([^()]+)\)|(\S*[/\\]\S+-[0-9a-f]{16}(?:\.exe)?))\s*$")
_CARGO_BINARY = re.compile(r"^(?P<name>.+?)(?:-[0-9a-f]{16})?(?:\.exe)?$")
_CARGO_DOCTESTS = re.compile(r"^\s*Doc-tests \S+\s*$")
# After a test binary failed: `error: test failed, to rerun pass `--test test_version``; in a run over several
# packages with the package, `-p beta --test integration` (older cargo quoted with '...').
_CARGO_RERUN = re.compile(r"^error: (?:test|doctest) failed, to rerun pass [`'](?:-p (\S+) )?--(lib|bin|test|example|bench)\b"
                          r"(?: ([^`'\s]+))?")
_CARGO_KINDS = {"lib": "", "test": "", "bin": "bin", "example": "example", "bench": "bench"}
# A Rust panic: `thread 'x' (16131) panicked at tests/t.rs:261:15:` with its message on the next lines (Rust 1.73
# on; recent Rust adds the thread's id in parentheses), or `thread 'x' panicked at 'message', src/lib.rs:2:5` before.
_PANIC = re.compile(r"^(\s*thread '[^']*')(?: \(\d+\))?( panicked at .*)$")
# libtest's own verdict for a #[should_panic] whose panic said something else: the two lines after it say what
_PANIC_MISMATCH = re.compile(r"^\s*note: panic did not contain expected string\s*$")
_PANIC_END = re.compile(r"^\s*(?:note: |stack backtrace:|---- |test result: )")
MAX_PANIC_LINES = 4  # message lines quoted after a panic's first line
_TAP = re.compile(r"^\s*not ok \d+(?: -)? (.+?)\s*$")
# Surefire, one line per failing test: `[ERROR] pkg.FooTest.bar -- Time elapsed: 0.01 s <<< FAILURE!` (3.x),
# `bar(pkg.FooTest)  Time elapsed: 0.01 sec  <<< ERROR!` (2.x); the class line `Tests run: ... -- in pkg.FooTest`
# that also ends in <<< FAILURE! is no test.
_SUREFIRE = re.compile(r"^(?:\[ERROR\]\s+)?(?!Tests run:)([^\s\[].*?)\s+(?:--\s+)?Time elapsed:.*<<<\s*(?:FAILURE|ERROR)!")
_JUNIT4_NAME = re.compile(r"^([\w$]+)\(([\w$]+(?:\.[\w$]+)+)\)$")  # bar(pkg.FooTest) -> pkg.FooTest.bar
# The summary Surefire prints at the end: `[ERROR] Failures:` / `[ERROR] Errors:`, then one indented entry per
# test, `[ERROR]   FooTest.bar:42 expected: <1> but was: <2>` (the class without its package).
_SUREFIRE_SECTION = re.compile(r"^\[ERROR\] (?:Failures|Errors):\s*$")
_SUREFIRE_ENTRY = re.compile(r"^\[ERROR\]\s{2,}(?:Run \d+: )?([\w$]+(?:\.[\w$]+)+)(?::\d+)?(?:\s|->|$)")
# Gradle: `pkg.FooTest > bar() FAILED`, nested classes and display names joined by ` > `.
_GRADLE = re.compile(r"^(?!>)(\S.*? > .+?) FAILED\s*$")
# Unity (C): `tests/parse_number.c:56:parse_number_should_parse_zero:FAIL: Expected 0 Was 1` (or a bare `:FAIL`)
_UNITY = re.compile(r"^(?P<file>[^\s:][^:]*?\.(?:c|cc|cpp|cxx|h|hpp)):\d+:(?P<test>\w+):FAIL\b")
# GoogleTest: `[  FAILED  ] Suite.Name (3 ms)`, repeated in its closing list (typed tests add `, where ...`)
_GTEST = re.compile(r"^\[  FAILED  \] ([\w/]+\.[\w/]+)(?:, where .*?)?(?: \(\d+ ms\))?\s*$")
# CTest: ` 2/19 Test  #2: parse_examples ....***Failed  0.00 sec` as each test ends, and the closing list
# `The following tests FAILED:` / `\t  2 - parse_examples (Failed)`
_CTEST_RESULT = re.compile(r"^\s*\d+/\d+ Test\s+#\d+: (\S+) \.*\s*\*\*\*(?:Failed|Exception|Timeout|Not Run)")
_CTEST_SECTION = re.compile(r"^The following tests (?:FAILED|did not run):\s*$")
_CTEST_ENTRY = re.compile(r"^\s+\d+ - (.+?) \(([^()]+)\)\s*$")
_TAP_DIRECTIVE = re.compile(r"#\s*(?:TODO|SKIP)\b", re.IGNORECASE)
_EXCERPT = re.compile(
    r"^E\s{2,}\S|^\s*(?:AssertionError|AssertError|Error|TypeError|ValueError|KeyError|panic)\b[:\s]"
    r"|^\s*(?:Expected|Received):|^\s*assert(?:ion)?\b.*(?:failed|left|==)|^\s*\S+_test\.go:\d+:"
    # a JVM exception (`org.opentest4j.AssertionFailedError: ...`, Gradle's `java.lang.AssertionError at X.java:9`)
    r"|^\s*(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Error|Exception|Failure)\b(?::|\s+at\s|\s*$)"
    # compile errors: javac through Maven, rustc, tsc, go build
    r"|^\[ERROR\] \S+\.(?:java|kt|scala|groovy):\[\d+(?:,\d+)?\]|^error(?:\[E\d{4}\])?: "
    r"|^\S+\.(?:ts|tsx|mts|cts)(?:\(\d+,\d+\)|:\d+:\d+)\s*[:-]\s*error TS\d+|^\S+\.go:\d+:\d+: "
    # gcc and clang (`x.c:3:13: error: 'x' undeclared`, `x.c:84: error: ...` under -Werror), and the linker
    r"|^\S+\.(?:c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|m|mm|cu)(?::\d+){1,2}: (?:fatal )?error: "
    r"|undefined reference to [`']|^(?:collect2|clang(?:\+\+)?|ld(?:\.\w+)?): error: "
    # Unity's and GoogleTest's failure lines
    r"|^[^\s:][^:]*\.(?:c|cc|cpp|cxx|h|hpp):\d+:\w+:FAIL\b|^\S+:\d+: Failure$|^Expected equality of these values:"
    # libtest: a #[should_panic] test that did not panic, a compile_fail doc test that compiled
    r"|^note: test did not panic as expected\b|^Test compiled successfully, but it's marked `compile_fail`"
)
_JEST_NOT_A_TEST = ("Test suite failed to run", "Console")


def clean(line: str) -> str:
    """The line without colour codes or a trailing carriage return."""
    return ANSI.sub("", line).rstrip("\r\n").rstrip("\r")


class _ClosingList:
    """A list a runner prints after a heading, one entry per line, ended by the first line that is no entry."""

    def __init__(self, entry: re.Pattern[str]) -> None:
        self._entry = entry
        self._inside = False

    def open(self) -> None:
        self._inside = True

    def entry(self, line: str) -> re.Match[str] | None:
        """The line's entry match while the list is open; the first other line closes it."""
        match = self._entry.match(line) if self._inside else None
        self._inside = match is not None
        return match


class FailureCollector:
    """Feed it every output line; `names` are the failing tests found, `excerpt` the first error lines."""

    def __init__(self) -> None:
        self._names: list[str] = []
        self._seen: set[str] = set()
        self._mocha = False  # inside mocha's "N failing" section
        self._mocha_title: str | None = None  # "1) suite" (and nested suites) waiting for its test line
        self._mocha_indent = 0  # where the last title line of it starts
        self._surefire_list = _ClosingList(_SUREFIRE_ENTRY)  # Surefire's closing "Failures:" / "Errors:" list
        self._ctest_list = _ClosingList(_CTEST_ENTRY)  # CTest's closing "The following tests FAILED:" list
        self._ctest_named: set[str] = set()  # CTest tests whose own output named failing tests (Unity, GoogleTest)
        self._ctest_running: str | None = None  # the CTest test whose output follows (--output-on-failure)
        self._cargo_binary: tuple[str, str] | None = None  # the test binary cargo is running: its name and kind
        self._cargo_failed: list[str] = []  # its failing tests, named once it has ended
        self._libtest = False  # a libtest binary has started: its `failures:` list and -q verdicts are read
        self._cargo_list = _ClosingList(_CARGO_LIST_ITEM)  # libtest's closing "failures:" list
        self._jest_file: str | None = None  # the test file of jest's last FAIL/PASS header
        self._go_failed: list[str] = []  # go test's failing tests in the package whose output is being read
        self._excerpt: list[str] = []
        self._panic: list[str] = []  # the panic being read: its first line and the message lines so far
        self._panics: set[tuple[str, ...]] = set()
        self.counts = TestCounts()  # how many tests ran and were skipped, from the runner's summary

    def _add(self, name: str) -> None:
        name = name.strip()
        if name and name not in self._seen and len(self._names) < MAX_NAMES:
            self._seen.add(name)
            self._names.append(name)

    def _quote(self, line: str) -> None:
        """Keep an error line for the excerpt (each text once: Maven repeats its compile errors)."""
        text = line[:300]
        if len(self._excerpt) < MAX_EXCERPT and text not in self._excerpt:
            self._excerpt.append(text)

    @property
    def excerpt(self) -> list[str]:
        """The first error lines, each text once (a panic is one text: its first line and message). Read it when
        the output has ended: it closes a panic still being read."""
        self._end_panic()
        return list(self._excerpt)

    def feed(self, raw: str) -> None:
        line = clean(raw)
        if self._feed_panic(line):
            return
        if not line.strip():
            return
        self.counts.feed(line)
        if _EXCERPT.search(line):
            self._quote(line)
        if (self._feed_mocha(line) or self._feed_surefire(line) or self._feed_cargo(line) or self._feed_ctest(line)
                or self._feed_go(line)):
            return
        for pattern in (_PYTEST_SUMMARY, _PYTEST_SUBFAILED, _PYTEST_VERBOSE, _VITEST_FAIL, _GRADLE):
            match = pattern.match(line)
            if match:
                self._add(match[1])
                return
        match = _UNITTEST.match(line)
        if match:
            test, where = match[1], match[2]
            self._add(where if where.endswith("." + test) else f"{where}.{test}")
            return
        match = _JEST_FILE.match(line)
        if match:
            self._jest_file = match[1]
            return
        match = _JEST.match(line)
        if match:
            if not match[1].startswith(_JEST_NOT_A_TEST):
                self._add(f"{self._jest_file} › {match[1]}" if self._jest_file else match[1])
            elif match[1].startswith("Test suite failed to run") and self._jest_file:
                self._add(self._jest_file)  # the whole file failed (a syntax or import error): it is what failed
            return
        match = _TAP.match(line)
        if match:
            if not _TAP_DIRECTIVE.search(match[1]):  # "not ok ... # TODO" is an expected failure
                self._add(match[1])
            return
        match = _VITEST_CROSS.match(line)
        if match:
            self._add(match[1])

    def _feed_mocha(self, line: str) -> bool:
        if _MOCHA_FAILING.match(line):
            self._mocha = True
            return True
        if not self._mocha:
            return False
        match = _MOCHA_ITEM.match(line)
        if match:
            self._flush_mocha()
            self._mocha_title, self._mocha_indent = match[1], match.start(1)
            return True
        if self._mocha_title is not None:
            text = line.strip()
            indent = len(line) - len(line.lstrip())
            if text.endswith(":") and not _EXCERPT.search(line):
                self._add(f"{self._mocha_title} {text[:-1].strip()}")
                self._mocha_title = None
                return True
            if indent > self._mocha_indent and not _EXCERPT.search(line):  # a nested suite's title, one level deeper
                self._mocha_title, self._mocha_indent = f"{self._mocha_title} {text}", indent
                return True
            self._flush_mocha()
        return False

    def _feed_surefire(self, line: str) -> bool:
        match = _SUREFIRE.match(line)
        if match:
            name = match[1]
            junit4 = _JUNIT4_NAME.match(name)
            self._add(f"{junit4[2]}.{junit4[1]}" if junit4 else name)
            return True
        if _SUREFIRE_SECTION.match(line):
            self._surefire_list.open()
            return True
        match = self._surefire_list.entry(line)
        if not match:
            return False
        self._quote(line)
        # the entry names the class without its package: a test already named in full is not added again
        short = match[1]
        if not any(name == short or name.endswith("." + short) for name in self._names):
            self._add(short)
        return True

    def _feed_ctest(self, line: str) -> bool:
        """CTest and the frameworks whose output it shows: a Unity or GoogleTest failure is named (a Unity test
        after its source file, `parse_number::parse_number_should_parse_zero`, since its functions are only
        unique per test program); a CTest test is named on its own when its output named nothing finer."""
        match = _UNITY.match(line)
        if match:
            self._add(f"{PurePosixPath(match['file']).stem}::{match['test']}")
            self._ctest_named.add(self._ctest_running or "")
            return True
        match = _GTEST.match(line)
        if match:
            self._add(match[1])
            self._ctest_named.add(self._ctest_running or "")
            return True
        match = _CTEST_RESULT.match(line)
        if match:
            self._ctest_running = match[1]
            return True
        if _CTEST_SECTION.match(line):
            self._ctest_list.open()
            return True
        match = self._ctest_list.entry(line)
        if not match:
            return False
        if match[1] not in self._ctest_named:
            self._add(match[1])
        return True

    def _feed_panic(self, line: str) -> bool:
        """Quote a Rust panic as one text: `thread 'x' panicked at file:line:col:` (without the thread's id,
        which changes from run to run) and the message lines after it, up to a blank line, a `note:` or the
        backtrace; the same for libtest's note that a #[should_panic] test panicked with another message.
        True when the line belonged to a panic."""
        match = _PANIC.match(line)
        if match or _PANIC_MISMATCH.match(line):
            self._end_panic()
            self._panic = [match[1] + match[2] if match else line]
            return True
        if not self._panic:
            return False
        if not line.strip() or _PANIC_END.match(line) or _CARGO.match(line) or _CARGO_TERSE.match(line):
            self._end_panic()  # (without capture, libtest's verdict on the test can follow the panic at once)
            return False
        self._panic.append(line)
        if len(self._panic) > MAX_PANIC_LINES:
            self._end_panic()
        return True

    def _end_panic(self) -> None:
        panic, self._panic = tuple(self._panic), []
        if panic and panic not in self._panics:
            self._panics.add(panic)
            for text in panic:
                if len(self._excerpt) < MAX_EXCERPT:
                    self._excerpt.append(text[:300])

    def _feed_cargo(self, line: str) -> bool:
        """cargo test: the failing tests of each test binary, named `binary::test` after the binary's `Running`
        line (test names repeat across a package's test binaries), `package/binary::test` when cargo's rerun
        hint names the package (integration tests of a workspace's packages often share file names); doc tests
        as libtest names them."""
        running = _CARGO_RUNNING.match(line)
        if running:
            self._end_cargo_binary()
            self._cargo_binary = _cargo_binary(running[1] is not None, running[2] or "", running[3] or running[4])
            return True
        if _CARGO_DOCTESTS.match(line):
            self._end_cargo_binary()
            self._cargo_binary = None  # `src/lib.rs - Version::new (line 376)` already says where it is
            return True
        rerun = _CARGO_RERUN.match(line)
        if rerun:
            # `--lib` names no target: "unittests", as cargo's `Running unittests src/lib.rs` calls them (not "lib",
            # which would read as src/lib.rs to code_intel.verify.concerned even for a test in another module's file)
            self._end_cargo_binary(rerun[1], _CARGO_KINDS[rerun[2]], rerun[3] or "unittests")
            return True
        if _LIBTEST_RUNNING.match(line):
            self._libtest = True
            return True
        if self._libtest and line.rstrip() == "failures:":
            self._cargo_list.open()  # the first such heading precedes each test's output, the last the list
            return True
        match = self._cargo_list.entry(line)
        if match:
            _pend(self._cargo_failed, match[1])
            return True
        match = _CARGO.match(line) or (_CARGO_TERSE.match(line) if self._libtest else None)
        if match:
            _pend(self._cargo_failed, match[1])
            return True
        return False

    def _end_cargo_binary(self, package: str | None = None, kind: str | None = None, target: str | None = None) -> None:
        """Name the failing tests of the binary that ended; `package`, `kind` and `target` come from cargo's rerun
        hint (without one, as when the run was cut short, the kind is read from the binary's source path). With no
        `Running` line (`cargo test -q`), the hint's target names the binary: `integ::parse` for `--test integ`,
        `unittests::tests::x` for `--lib`; with neither, the names stay bare."""
        failed, self._cargo_failed = self._cargo_failed, []
        running = self._cargo_binary or ((target, "") if target is not None else None)
        if running is None:
            for name in failed:
                self._add(name)
            return
        binary, path_kind = running
        kind = path_kind if kind is None else kind
        qualifier = f"{package + '/' if package else ''}{binary}{f'({kind})' if kind else ''}"
        for name in failed:
            self._add(f"{qualifier}::{name}")

    def _feed_go(self, line: str) -> bool:
        """go test: a failing test (`--- FAIL: TestSub`, a subtest `TestSub/negative` indented below it) is named
        after its package once the package's closing line says which (`example.com/calc::TestSub`): in a run over
        several packages, two packages' `TestNew` are two tests, and one failing before the change must not excuse
        the other. Output cut short before that line leaves the names bare."""
        match = _GO.match(line)
        if match:
            _pend(self._go_failed, match[1])
            return True
        package = _GO_PACKAGE.match(line) if self._go_failed else None
        if package:
            self._end_go_package(package[1])
            return True
        return False

    def _end_go_package(self, package: str | None = None) -> None:
        failed, self._go_failed = self._go_failed, []
        for name in failed:
            self._add(f"{package}::{name}" if package else name)

    def _flush_mocha(self) -> None:
        if self._mocha_title is not None:
            self._add(self._mocha_title)
            self._mocha_title = None

    @property
    def names(self) -> list[str]:
        self._flush_mocha()
        self._end_cargo_binary()
        self._end_go_package()
        return list(self._names)


def _pend(pending: list[str], name: str) -> None:
    """Keep a failing test's name (once, up to MAX_NAMES) until the runner says what to qualify it with: a cargo test
    binary's end, a go package's closing line."""
    name = name.strip()
    if name not in pending and len(pending) < MAX_NAMES:
        pending.append(name)


def _cargo_binary(unittests: bool, source: str, binary: str) -> tuple[str, str]:
    """The name a cargo test binary's tests are qualified with, the binary's file name without cargo's hash
    (`test_version`, `semver`; cargo writes a hyphenated crate or target name with underscores), and its kind
    as far as the source path tells it. A package's lib and its src/main.rs binary get the same file name, so
    the unit tests of a binary, an example or a bench say what they are: `semver(bin)`."""
    *folders, file = re.split(r"[/\\]", binary.strip())
    match = _CARGO_BINARY.match(file)
    name = match["name"] if match else file
    *source_folders, source_file = re.split(r"[/\\]", source.strip())
    if unittests and (source_file == "main.rs" or "bin" in source_folders):
        return name, "bin"
    for folder, kind in (("examples", "example"), ("benches", "bench")):
        if folder in source_folders or folder in folders:  # cargo writes examples to target/debug/examples/
            return name, kind
    return name, ""


def junit_failures(report: Path) -> list[str]:
    """Failing tests from a JUnit XML report (pytest's `--junitxml`, xunit1: each testcase names its file), as
    pytest node ids (`tests/test_calc.py::TestGroup::test_m`); empty when there is no readable report."""
    import xml.etree.ElementTree as ElementTree

    try:
        if report.stat().st_size > MAX_REPORT_BYTES:
            return []
        root = ElementTree.parse(report).getroot()
    except (OSError, ElementTree.ParseError):
        return []
    names: list[str] = []
    for case in root.iter("testcase"):
        if case.find("failure") is None and case.find("error") is None:
            continue
        file, classname, name = case.get("file", ""), case.get("classname", ""), case.get("name", "")
        if not file:
            names.append(".".join(part for part in (classname, name) if part))
            continue
        module = file.removesuffix(".py").replace("/", ".")
        inner = classname[len(module) + 1:] if classname.startswith(module + ".") else ""
        names.append("::".join(part for part in (file, inner.replace(".", "::"), name) if part))
    return list(dict.fromkeys(names))[:MAX_NAMES]


def failing_tests(output: str) -> list[str]:
    """All failing test names in a whole output text."""
    collector = FailureCollector()
    for line in output.splitlines():
        collector.feed(line)
    return collector.names
