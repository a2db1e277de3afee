"""Failing test names from test-runner output: pytest, unittest, jest, vitest, mocha, go test, cargo test,
TAP (node --test, prove), Maven Surefire and Gradle (JUnit 4 and 5).

The exit code decides whether a command failed; these parsers only name what failed, so the agent
and the revert reason can point at it. They read the output line by line as it streams (nothing
is kept beyond what they match) and never raise on odd input.
"""

from __future__ import annotations

import re

MAX_NAMES = 100
MAX_EXCERPT = 20

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")

_PYTEST_SUMMARY = re.compile(r"^(?:FAILED|ERROR) (\S+?)(?: - .*)?$")
_PYTEST_VERBOSE = re.compile(r"^(\S+::\S+) (?:FAILED|ERROR)\b")
_UNITTEST = re.compile(r"^(?:FAIL|ERROR): (\S+) \(([^)]+)\)")
_JEST = re.compile(r"^\s*●\s+(.+?)\s*$")
_VITEST_FAIL = re.compile(r"^\s*FAIL\s+(\S.*? > .+?)\s*(?:\[.*\])?$")
_VITEST_CROSS = re.compile(r"^\s*[×✖]\s+(.+?)(?:\s+\(?\d+(?:\.\d+)?\s*m?s\)?)?$")  # jest's ✕ lines repeat its ● ones
_MOCHA_FAILING = re.compile(r"^\s*\d+ failing\b")
_MOCHA_ITEM = re.compile(r"^\s*\d+\) (.+?):?\s*$")
_GO = re.compile(r"^\s*--- FAIL: (\S+)")
_CARGO = re.compile(r"^test (\S+) \.\.\. FAILED$")
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
_TAP_DIRECTIVE = re.compile(r"#\s*(?:TODO|SKIP)\b", re.IGNORECASE)
_EXCERPT = re.compile(
    r"^E\s{2,}\S|^\s*(?:AssertionError|AssertError|Error|TypeError|ValueError|KeyError|panic)\b[:\s]"
    r"|^\s*(?:Expected|Received):|^\s*assert(?:ion)?\b.*(?:failed|left|==)|^\s*\S+_test\.go:\d+:"
    # a JVM exception (`org.opentest4j.AssertionFailedError: ...`, Gradle's `java.lang.AssertionError at X.java:9`)
    r"|^\s*(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Error|Exception|Failure)\b(?::|\s+at\s|\s*$)"
    # compile errors: javac through Maven, rustc, tsc, go build
    r"|^\[ERROR\] \S+\.(?:java|kt|scala|groovy):\[\d+(?:,\d+)?\]|^error(?:\[E\d{4}\])?: "
    r"|^\S+\.(?:ts|tsx|mts|cts)(?:\(\d+,\d+\)|:\d+:\d+)\s*[:-]\s*error TS\d+|^\S+\.go:\d+:\d+: "
)
_JEST_NOT_A_TEST = ("Test suite failed to run", "Console")


def clean(line: str) -> str:
    """The line without colour codes or a trailing carriage return."""
    return ANSI.sub("", line).rstrip("\r\n").rstrip("\r")


class FailureCollector:
    """Feed it every output line; `names` are the failing tests found, `excerpt` the first error lines."""

    def __init__(self) -> None:
        self._names: list[str] = []
        self._seen: set[str] = set()
        self.excerpt: list[str] = []
        self._mocha = False  # inside mocha's "N failing" section
        self._mocha_title: str | None = None  # "1) suite" waiting for its test line
        self._surefire_summary = False  # inside Surefire's closing "Failures:" / "Errors:" list

    def _add(self, name: str) -> None:
        name = name.strip()
        if name and name not in self._seen and len(self._names) < MAX_NAMES:
            self._seen.add(name)
            self._names.append(name)

    def _quote(self, line: str) -> None:
        """Keep an error line for the excerpt (each text once: Maven repeats its compile errors)."""
        text = line[:300]
        if len(self.excerpt) < MAX_EXCERPT and text not in self.excerpt:
            self.excerpt.append(text)

    def feed(self, raw: str) -> None:
        line = clean(raw)
        if not line.strip():
            return
        if _EXCERPT.search(line):
            self._quote(line)
        if self._feed_mocha(line) or self._feed_surefire(line):
            return
        for pattern in (_PYTEST_SUMMARY, _PYTEST_VERBOSE, _GO, _CARGO, _VITEST_FAIL, _GRADLE):
            match = pattern.match(line)
            if match:
                self._add(match[1])
                return
        match = _UNITTEST.match(line)
        if match:
            test, where = match[1], match[2]
            self._add(where if where.endswith("." + test) else f"{where}.{test}")
            return
        match = _JEST.match(line)
        if match and not match[1].startswith(_JEST_NOT_A_TEST):
            self._add(match[1])
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
            self._mocha_title = match[1]
            return True
        if self._mocha_title is not None:
            text = line.strip()
            if text.endswith(":") and not _EXCERPT.search(line):
                self._add(f"{self._mocha_title} {text[:-1].strip()}")
                self._mocha_title = None
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
            self._surefire_summary = True
            return True
        if not self._surefire_summary:
            return False
        match = _SUREFIRE_ENTRY.match(line)
        if not match:
            self._surefire_summary = False
            return False
        self._quote(line)
        # the entry names the class without its package: a test already named in full is not added again
        short = match[1]
        if not any(name == short or name.endswith("." + short) for name in self._names):
            self._add(short)
        return True

    def _flush_mocha(self) -> None:
        if self._mocha_title is not None:
            self._add(self._mocha_title)
            self._mocha_title = None

    @property
    def names(self) -> list[str]:
        self._flush_mocha()
        return list(self._names)


def failing_tests(output: str) -> list[str]:
    """All failing test names in a whole output text."""
    collector = FailureCollector()
    for line in output.splitlines():
        collector.feed(line)
    return collector.names
