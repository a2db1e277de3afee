"""CheckService on real temp projects: relevance by `when`, pytest suites that pass and fail, npm test,
go test where Go exists, and reuse of a report made on the same changed files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from code_intel.core.project import ProjectRoot
from code_intel.verify.detect import detect_commands
from code_intel.verify.models import CheckRun
from code_intel.verify.service import CheckService
from code_intel.verify.settings import VerifyCommand, VerifySettings

pytestmark = pytest.mark.slow  # runs real check commands (pytest) in subprocesses

CALC = "def add(a, b):\n    return a + b\n\n\ndef subtract(a, b):\n    return a - b\n"
TESTS = ("from calc import add, subtract\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
         "def test_subtract():\n    assert subtract(3, 1) == 2\n")
PYTEST = VerifyCommand(name="pytest", run=[sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], timeout_s=120)


def pytest_project(root: Path, *, broken: bool) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "calc.py").write_text(CALC.replace("a - b", "a + b") if broken else CALC, encoding="utf-8")
    (root / "test_calc.py").write_text(TESTS, encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return root


def service(root: Path, *commands: VerifyCommand) -> CheckService:
    settings = VerifySettings(commands=list(commands))
    return CheckService(ProjectRoot.from_args(root), lambda: settings)


def test_no_commands_means_self_reported(tmp_path: Path) -> None:
    report = service(tmp_path).run(None)
    assert not report.configured and report.passed and not report.ran
    assert "self-reported" in report.summary()


def test_passing_pytest_suite(tmp_path: Path) -> None:
    report = service(pytest_project(tmp_path / "p", broken=False), PYTEST).run(None)
    assert report.passed and report.commands[0].verdict == "passed" and report.commands[0].failing_tests == []
    # on the wire (run_checks' output model, null fields left out) a pass carries no empty lists
    shown = CheckRun.model_validate(report.view()).model_dump(mode="json", exclude_none=True)
    assert not {"failing_tests", "skipped"} & set(shown)
    assert not {"failing_tests", "excerpt"} & set(shown["commands"][0]) and "2 passed" in shown["commands"][0]["tail"]


def test_failing_pytest_suite_names_the_test(tmp_path: Path) -> None:
    report = service(pytest_project(tmp_path / "p", broken=True), PYTEST).run(None)
    assert not report.passed
    outcome = report.commands[0]
    assert outcome.verdict == "failed" and outcome.exit_code == 1
    assert outcome.failing_tests == ["test_calc.py::test_subtract"]
    assert "test_subtract" in report.failure_text()


def test_a_failing_unittest_subtest_is_named(tmp_path: Path) -> None:
    """pytest 9 reports a unittest subTest failure only on a SUBFAILED line: the report still names the test, and
    counts the subtests that passed among the tests that ran."""
    root = tmp_path / "p"
    root.mkdir()
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (root / "test_bounds.py").write_text(
        "import unittest\n\n\nclass Bounds(unittest.TestCase):\n    def test_below(self):\n"
        "        for i in range(3):\n            with self.subTest(i=i):\n                self.assertLess(i, 2)\n",
        encoding="utf-8")
    outcome = service(root, PYTEST).run(None).commands[0]
    assert outcome.verdict == "failed"
    assert outcome.failing_tests == ["test_bounds.py::Bounds::test_below"]
    assert outcome.tests_ran == 4  # the failed subtest, the test itself, two subtests that passed


def test_a_unittest_project_without_pytest_runs_what_init_detected(tmp_path: Path) -> None:
    """A real virtualenv without pytest and unittest test files: init's command is `python -m unittest`, and the
    server's run of it names the failing test and counts what ran."""
    root = tmp_path / "p"
    (root / "tests").mkdir(parents=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    (root / "calc.py").write_text(CALC.replace("a - b", "a + b"), encoding="utf-8")
    (root / "tests" / "__init__.py").write_text("", encoding="utf-8")
    (root / "tests" / "test_calc.py").write_text(
        "import unittest\n\nfrom calc import add, subtract\n\n\nclass Calc(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n\n"
        "    def test_subtract(self):\n        self.assertEqual(subtract(3, 1), 2)\n", encoding="utf-8")
    (command,) = detect_commands(root).commands
    assert command.run == [".venv/bin/python", "-m", "unittest"]
    outcome = service(root, command).run(None).commands[0]
    assert outcome.verdict == "failed" and outcome.failing_tests == ["tests.test_calc.Calc.test_subtract"]
    assert outcome.tests_ran == 2


def test_a_failure_that_names_no_test_says_what_the_command_said(tmp_path: Path) -> None:
    """A command that fails before any test runs (its runner is not installed) names no test: the summary, which
    READY's checks_before_change and the refusals show, carries what it said instead."""
    root = pytest_project(tmp_path / "p", broken=False)
    missing = VerifyCommand(name="pytest", run=[sys.executable, "-m", "no_such_runner_here", "-q"], timeout_s=60)
    report = service(root, missing).run(None)
    assert report.summary() == f"pytest failed (exit 1): {sys.executable}: No module named no_such_runner_here"
    compiled = VerifyCommand(name="build", run=[sys.executable, "-c", "import sys; print('error: expected `;`, found `}`');"
                                                "print('could not compile'); sys.exit(2)"], timeout_s=60)
    assert service(root, compiled).run(None).summary() == "build failed (exit 2): error: expected `;`, found `}`"


def test_when_globs_pick_relevant_commands(tmp_path: Path) -> None:
    root = pytest_project(tmp_path / "p", broken=True)
    docs = VerifyCommand(name="docs", run=["true"], when=["docs/**"])
    svc = service(root, PYTEST.model_copy(update={"when": ["**/*.py"]}), docs)
    only_docs = svc.run(["docs/index.md"])
    assert only_docs.passed and [c.name for c in only_docs.commands] == ["docs"]
    assert only_docs.skipped[0].name == "pytest" and "when" in only_docs.skipped[0].reason
    code = svc.run(["calc.py"])
    assert not code.passed and [c.name for c in code.commands] == ["pytest"]


def test_a_report_is_reused_only_for_the_same_changed_files(tmp_path: Path) -> None:
    root = pytest_project(tmp_path / "p", broken=True)
    counter = root / "count.txt"
    command = VerifyCommand(name="count", run=f"echo x >> {counter}; exit 1")
    svc = service(root, command)
    settled(root / "calc.py")
    svc.run(["calc.py"])
    svc.run(["calc.py"], reuse=True)
    assert counter.read_text().count("x") == 1
    (root / "calc.py").write_text(CALC + "\n# edited\n", encoding="utf-8")
    settled(root / "calc.py")
    svc.run(["calc.py"], reuse=True)
    assert counter.read_text().count("x") == 2


def settled(path: Path) -> None:
    """Date a file back ten seconds, as a file edited before the checks ran (not within the same clock tick)."""
    stamp = path.stat().st_mtime_ns - 10_000_000_000
    os.utime(path, ns=(stamp, stamp))


def test_no_report_is_reused_for_a_file_written_just_before_the_run(tmp_path: Path) -> None:
    """A file written in the same clock tick as the run can be written again, same size, with the same mtime:
    its (size, mtime) cannot prove that nothing changed, so the checks run again."""
    root = pytest_project(tmp_path / "p", broken=True)
    counter = root / "count.txt"
    svc = service(root, VerifyCommand(name="count", run=f"echo x >> {counter}; exit 1"))
    target = root / "calc.py"
    target.write_text("a = 1\n", encoding="utf-8")
    first = target.stat()
    svc.run(["calc.py"])
    target.write_text("a = 2\n", encoding="utf-8")  # same size; the same mtime, as within one tick
    os.utime(target, ns=(first.st_atime_ns, first.st_mtime_ns))
    svc.run(["calc.py"], reuse=True)
    assert counter.read_text().count("x") == 2


def test_failing_npm_test_without_install(tmp_path: Path) -> None:
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed on this machine")
    root = tmp_path / "web"
    root.mkdir()
    (root / "package.json").write_text(
        '{"name": "web", "version": "1.0.0", "scripts": {"test": "node --test"}}\n', encoding="utf-8")
    (root / "math.test.js").write_text(
        "const test = require('node:test');\nconst assert = require('assert');\n"
        "test('adds', () => { assert.strictEqual(1 + 1, 3); });\n"
        "test('keeps', () => { assert.strictEqual(1, 1); });\n", encoding="utf-8")
    report = service(root, VerifyCommand(name="npm test", run=["npm", "test"], timeout_s=120)).run(None)
    assert not report.passed
    assert report.commands[0].exit_code != 0
    assert report.commands[0].failing_tests == ["adds"]


def test_failing_go_test(tmp_path: Path) -> None:
    if shutil.which("go") is None:
        pytest.skip("no Go toolchain on this machine: `go test` cannot run here")
    root = tmp_path / "calc"
    root.mkdir()
    (root / "go.mod").write_text("module example.com/calc\n\ngo 1.20\n", encoding="utf-8")
    (root / "calc.go").write_text("package calc\n\nfunc Sub(a, b int) int { return a + b }\n", encoding="utf-8")
    (root / "calc_test.go").write_text(
        'package calc\n\nimport "testing"\n\nfunc TestSub(t *testing.T) {\n\tif Sub(3, 1) != 2 {\n\t\tt.Fatal("wrong")\n\t}\n}\n',
        encoding="utf-8")
    report = service(root, VerifyCommand(name="go test", run=["go", "test", "./..."], timeout_s=300)).run(None)
    assert not report.passed and report.commands[0].failing_tests == ["example.com/calc::TestSub"]


def test_failing_cargo_test(tmp_path: Path) -> None:
    """The names are qualified by the test binary cargo announces on stderr, read in order with the tests'
    stdout: a unit test and a doc test fail, the integration test of the same name passes."""
    if shutil.which("cargo") is None:
        pytest.skip("no Rust toolchain on this machine: `cargo test` cannot run here")
    root = tmp_path / "calc"
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "Cargo.toml").write_text('[package]\nname = "my-calc"\nversion = "0.1.0"\nedition = "2021"\n',
                                     encoding="utf-8")
    (root / "src" / "lib.rs").write_text(
        "/// ```\n/// assert_eq!(my_calc::add(1, 1), 3);\n/// ```\npub fn add(a: u8, b: u8) -> u8 { a + b }\n\n"
        "#[cfg(test)]\nmod tests {\n    #[test]\n    fn same() { assert_eq!(super::add(1, 1), 3); }\n}\n", encoding="utf-8")
    (root / "tests" / "same.rs").write_text("#[test]\nfn same() { assert_eq!(my_calc::add(1, 1), 2); }\n", encoding="utf-8")
    report = service(root, VerifyCommand(name="cargo test", run=["cargo", "test", "--no-fail-fast"], timeout_s=300)).run(None)
    outcome = report.commands[0]
    assert not report.passed and outcome.exit_code == 101
    assert outcome.failing_tests == ["my_calc::tests::same", "src/lib.rs - add (line 1)"]
    assert "thread 'tests::same' panicked at src/lib.rs:9:17:" in outcome.excerpt
    assert outcome.excerpt[outcome.excerpt.index("thread 'tests::same' panicked at src/lib.rs:9:17:") + 1:][:3] == [
        "assertion `left == right` failed", "  left: 2", " right: 3"]
