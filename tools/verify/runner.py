"""Run one check command: in the project root, in its own process group, killed at its timeout.

stdout and stderr are read together as they stream, decoded as UTF-8 with replacement (a test
printing bytes that are not text cannot break the run), fed to the failure parsers line by line,
and kept only as a bounded tail: a runner that prints gigabytes costs no memory. The exit code
decides the verdict. When the command ends, whatever it left running in its process group is
killed too, so a stray server started by a test cannot hold the session.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

from code_intel.core import processes
from code_intel.verify.models import CommandOutcome, Verdict
from code_intel.verify.parsers import FailureCollector, clean, junit_failures
from code_intel.verify.settings import VerifyCommand

TAIL_LINES = 60
TAIL_CHARS = 6000
MAX_LINE_CHARS = 2000
PROGRESS_EVERY_S = 5.0
KILL_GRACE_S = 3.0
# pytest's progress meter: `.....F..s [ 42%]`, `tests/test_a.py ..F. [ 12%]` (not -v lines, which name a test)
_PROGRESS_METER = re.compile(r"^(?:\S+\s+)?[.FEsxXp]+\s*\[\s*\d{1,3}%\]$")

# progress(elapsed seconds, message)
Progress = Callable[[float, str], None]


def _argv(command: VerifyCommand) -> list[str]:
    if isinstance(command.run, str):
        return ["/bin/sh", "-c", command.run]
    return list(command.run)


def _environment(junit_report: Path) -> dict[str, str]:
    """The command's environment. Caches in the tree are the agent's to write and the outcome check does not judge
    them, so the run keeps its own in the run's temporary folder: Python neither reads nor writes `__pycache__` in
    the tree (a planted .pyc would otherwise stand in for its source), and pytest's cache (`--lf`, `--ff`, `--sw`
    read it to choose tests) starts empty."""
    own = junit_report.parent
    env = dict(os.environ)
    env.setdefault("CI", "true")  # test runners that watch by default (jest, vitest) run once
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    env["PYTHONPYCACHEPREFIX"] = str(own / "pycache")
    # any pytest the command runs also writes its machine-readable report, read before the output's lines
    env["PYTEST_ADDOPTS"] = (f"{env.get('PYTEST_ADDOPTS', '')} --junitxml={junit_report} -o junit_family=xunit1 "
                             f"-o cache_dir={own / 'pytest-cache'}").strip()
    return env


class _Reader(threading.Thread):
    """Drains the pipe: feeds every line to the collector and keeps a bounded tail (a run of pytest progress-meter
    lines kept as its last line)."""

    def __init__(self, stream: object, collector: FailureCollector) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.collector = collector
        self.tail: deque[str] = deque(maxlen=TAIL_LINES)
        self.metering = False  # the tail's last line is a progress-meter line
        self.lines = 0
        self.bytes = 0  # unittest's dots go to stderr with no newline until the end: bytes show it is alive

    def _line(self, data: bytes) -> None:
        text = clean(data.decode("utf-8", errors="replace"))
        if len(text) > MAX_LINE_CHARS:
            text = text[:MAX_LINE_CHARS] + " [...]"
        self.lines += 1
        meter = _PROGRESS_METER.match(text) is not None
        if meter and self.metering:
            self.tail[-1] = text  # a run of meter lines keeps its last one: where the run got to, not a wall of dots
        else:
            self.tail.append(text)
        self.metering = meter
        self.collector.feed(text)

    def run(self) -> None:
        pending = b""
        read = getattr(self.stream, "read1", None) or self.stream.read  # type: ignore[attr-defined]
        try:
            while True:
                chunk = read(65536)
                if not chunk:
                    break
                self.bytes += len(chunk)
                pending += chunk
                *complete, pending = pending.split(b"\n")
                for line in complete:
                    self._line(line)
                if len(pending) > MAX_LINE_CHARS * 4:  # a huge line without newline: cut it
                    self._line(pending)
                    pending = b""
        except (OSError, ValueError):
            pass
        if pending:
            self._line(pending)

    def tail_text(self) -> str:
        text = "\n".join(self.tail)
        return text[-TAIL_CHARS:]


def _amount(reader: _Reader) -> str:
    """`12 lines`, or `3.1 KB` while the output holds no whole line yet (a dot per test, as unittest prints them)."""
    if reader.lines or not reader.bytes:
        return f"{reader.lines} line{'' if reader.lines == 1 else 's'}"
    return f"{reader.bytes} bytes" if reader.bytes < 1024 else f"{reader.bytes / 1024:.1f} KB"


def run_command(command: VerifyCommand, cwd: Path, progress: Progress | None = None) -> CommandOutcome:
    """Run `command` in `cwd`; never raises for the command's own failures. The failing tests are read from
    pytest's JUnit XML report when it wrote one, else from the output."""
    with tempfile.TemporaryDirectory(prefix="code-intel-check-") as folder:
        report = Path(folder) / "pytest-junit.xml"
        outcome = _run(command, cwd, progress, report)
        if outcome.verdict == "failed" and (names := junit_failures(report)):
            outcome.failing_tests = names
        return outcome


def _run(command: VerifyCommand, cwd: Path, progress: Progress | None, junit_report: Path) -> CommandOutcome:
    collector = FailureCollector()
    started = time.monotonic()
    try:
        proc = processes.start_streaming(_argv(command), cwd=cwd, env=_environment(junit_report))
    except OSError as err:
        return CommandOutcome(name=command.name, command=command.shown(), verdict="error",
                              note=f"could not start: {err.strerror or err} ({_argv(command)[0]})",
                              duration_s=round(time.monotonic() - started, 3))
    reader = _Reader(proc.stdout, collector)
    reader.start()
    timed_out = not _wait(proc, command, started, reader, progress)
    processes.kill_group(proc.pid)  # whatever it left running in its group
    reader.join(timeout=KILL_GRACE_S)
    if proc.stdout is not None:
        with contextlib.suppress(OSError):
            proc.stdout.close()
    return _outcome(command, None if timed_out else proc.returncode, round(time.monotonic() - started, 3),
                    collector, reader)


def _wait(proc: subprocess.Popen[bytes], command: VerifyCommand, started: float, reader: _Reader,
          progress: Progress | None) -> bool:
    """Wait for the command to end, telling `progress` how it goes; False when it was stopped at its timeout."""
    next_report = PROGRESS_EVERY_S
    while True:
        elapsed = time.monotonic() - started
        remaining = command.timeout_s - elapsed
        if remaining <= 0:
            processes.stop_group(proc, KILL_GRACE_S)
            return False
        try:
            proc.wait(timeout=min(remaining, 0.5))
            return True
        except subprocess.TimeoutExpired:
            pass
        if progress is not None and elapsed >= next_report:
            next_report += PROGRESS_EVERY_S
            with contextlib.suppress(Exception):  # a lost client must not stop the check
                progress(elapsed, f"{command.name}: running for {elapsed:.0f}s ({_amount(reader)} of output)")


def _outcome(command: VerifyCommand, code: int | None, duration: float, collector: FailureCollector,
             reader: _Reader) -> CommandOutcome:
    """The verdict of a command that ran: its exit code decides (None: stopped at its timeout)."""
    verdict: Verdict
    if code is None:
        verdict = "timed_out"
        note = f"killed after its {command.timeout_s:g}s timeout (timeout_s in config.json verify.commands)"
    else:
        verdict = "passed" if code == 0 else "failed"
        note = None
        if code == 127 and isinstance(command.run, str):
            note = "exit 127: the shell could not find the program"
    return CommandOutcome(
        name=command.name, command=command.shown(), verdict=verdict, exit_code=code, duration_s=duration,
        failing_tests=collector.names if verdict != "passed" else [], excerpt=collector.excerpt if verdict != "passed" else [],
        tail=reader.tail_text(), note=note, tests_ran=collector.counts.ran, tests_skipped=collector.counts.skipped,
    )
