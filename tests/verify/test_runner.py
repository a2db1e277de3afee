"""The runner on real commands: exit codes decide, output is bounded, a hanging command is killed."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from code_intel.verify.runner import TAIL_CHARS, run_command
from code_intel.verify.settings import VerifyCommand


def test_exit_code_decides(tmp_path: Path) -> None:
    ok = run_command(VerifyCommand(name="ok", run=[sys.executable, "-c", "print('fine')"]), tmp_path)
    assert ok.verdict == "passed" and ok.exit_code == 0 and "fine" in ok.tail
    bad = run_command(VerifyCommand(name="bad", run="echo 'FAILED tests/t.py::test_x - boom'; exit 3"), tmp_path)
    assert bad.verdict == "failed" and bad.exit_code == 3
    assert bad.failing_tests == ["tests/t.py::test_x"]


def test_runs_in_the_given_folder(tmp_path: Path) -> None:
    (tmp_path / "marker.txt").write_text("here", encoding="utf-8")
    out = run_command(VerifyCommand(name="ls", run=["ls"]), tmp_path)
    assert "marker.txt" in out.tail


def test_undecodable_and_huge_output_is_bounded(tmp_path: Path) -> None:
    script = "import sys; sys.stdout.buffer.write(b'\\xff\\xfe bad bytes\\n' + b'x' * 3_000_000 + b'\\n' + b'line\\n' * 50000)"
    out = run_command(VerifyCommand(name="noisy", run=[sys.executable, "-c", script]), tmp_path)
    assert out.verdict == "passed"
    assert len(out.tail) <= TAIL_CHARS
    assert out.tail.endswith("line")


def test_a_hanging_command_is_killed_with_its_children(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    # the shell starts a sleeping child and waits: both must die at the timeout
    command = VerifyCommand(name="hang", run=f"sleep 300 & echo $! > {pid_file}; wait", timeout_s=1)
    started = time.monotonic()
    out = run_command(command, tmp_path)
    assert time.monotonic() - started < 15
    assert out.verdict == "timed_out" and out.exit_code is None
    assert "timeout" in out.note and "timed out" in out.headline()
    child = int(pid_file.read_text().strip())
    time.sleep(0.2)
    try:
        os.kill(child, 0)
        alive = Path(f"/proc/{child}/stat").read_text().split()[2] != "Z"
    except ProcessLookupError:
        alive = False
    assert not alive


def test_a_missing_program_is_an_error_not_a_crash(tmp_path: Path) -> None:
    out = run_command(VerifyCommand(name="nope", run=["definitely-not-a-program-xyz"]), tmp_path)
    assert out.verdict == "error" and not out.passed and "could not start" in out.note


def test_progress_is_reported_for_long_runs(tmp_path: Path, monkeypatch: object) -> None:
    import code_intel.verify.runner as runner

    monkeypatch.setattr(runner, "PROGRESS_EVERY_S", 0.2)  # type: ignore[attr-defined]
    seen: list[str] = []
    out = run_command(VerifyCommand(name="slow", run=[sys.executable, "-c", "import time; time.sleep(1.2)"]), tmp_path,
                      progress=lambda elapsed, message: seen.append(message))
    assert out.passed
    assert seen and all("slow: running for" in m for m in seen)
    dots: list[str] = []  # unittest's way: a dot per test on stderr, no newline until the end
    script = "import sys, time\nfor _ in range(12):\n    sys.stderr.write('.'); sys.stderr.flush(); time.sleep(0.1)"
    run_command(VerifyCommand(name="dots", run=[sys.executable, "-c", script]), tmp_path,
                progress=lambda elapsed, message: dots.append(message))
    assert dots and dots[-1].endswith(" bytes of output)")  # not "(0 lines of output)" while it runs


def test_a_run_of_progress_meter_lines_keeps_only_its_last(tmp_path: Path) -> None:
    meter = "\n".join(f"{'.' * 72} [{p:3d}%]" for p in range(1, 100)) + "\n" + "." * 8 + " " * 65 + "[100%]"
    lines = ["tests/test_a.py ..F.                                      [ 12%]",
             "tests/test_b.py ....                                      [ 20%]",
             "tests/test_c.py::test_x PASSED                            [ 30%]",
             meter, "", "=== 1 failed, 62431 passed in 27.92s ==="]
    script = f"print({chr(10).join(lines)!r}); raise SystemExit(1)"
    out = run_command(VerifyCommand(name="pytest", run=[sys.executable, "-c", script]), tmp_path)
    assert out.tail.splitlines() == ["tests/test_b.py ....                                      [ 20%]",
                                     "tests/test_c.py::test_x PASSED                            [ 30%]",
                                     "." * 8 + " " * 65 + "[100%]", "", "=== 1 failed, 62431 passed in 27.92s ==="]


def test_pytest_s_junit_report_names_the_failures(tmp_path: Path) -> None:
    """pytest writes its JUnit XML report (PYTEST_ADDOPTS), and the failing tests are read from it, class included,
    even with -q -rN, where the output names none of them."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(
        "class TestGroup:\n    def test_member(self):\n        assert 1 == 2\n\n\ndef test_ok():\n    pass\n\n\n"
        "def test_broken():\n    raise ValueError('x')\n", encoding="utf-8")
    run = [sys.executable, "-m", "pytest", "-q", "-rN", "-p", "no:cacheprovider", "tests"]
    out = run_command(VerifyCommand(name="pytest", run=run), tmp_path)
    assert out.verdict == "failed"
    assert out.failing_tests == ["tests/test_calc.py::TestGroup::test_member", "tests/test_calc.py::test_broken"]


def test_without_a_junit_report_the_output_s_names_stand(tmp_path: Path) -> None:
    out = run_command(VerifyCommand(name="npm", run="echo 'FAILED tests/t.py::test_x - boom'; exit 1"), tmp_path)
    assert out.failing_tests == ["tests/t.py::test_x"]
