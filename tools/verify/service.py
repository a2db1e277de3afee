"""CheckService: the workflow's CheckPort. Picks the commands relevant to a change and runs them.

A command is relevant when its `when` globs match a changed file, or always when `when` is empty.
The last report is kept with a fingerprint of the changed files (path, size, modification time):
when run_checks already ran on exactly this state, POST_IMPL_VERIFY reuses its verdict instead of
running the suite again; any edit in between changes the fingerprint and runs it afresh.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from code_intel.core.errors import InvalidArgument
from code_intel.core.fsutil import is_racy
from code_intel.core.project import ProjectRoot
from code_intel.explore.globbing import glob_matches
from code_intel.explore.ripgrep import RgFilters
from code_intel.verify.models import CheckReport, FileChange, SkippedCommand
from code_intel.verify.runner import Progress, run_command
from code_intel.verify.settings import VerifyCommand, VerifySettings

REUSE_FOR_S = 15 * 60


def relevant(command: VerifyCommand, changed: list[str] | None) -> str | None:
    """None when the command should run; else why it is skipped."""
    if not command.when or changed is None:
        return None
    try:
        if any(glob_matches(glob, path) for glob in command.when for path in changed):
            return None
    except InvalidArgument as err:
        return f"its `when` glob is invalid ({err.message}); fix it in config.json"
    return f"no changed file matches its `when` globs {command.when}"


class CheckService:
    """Implements code_intel.workflow.ports.CheckPort on the project's configured commands."""

    def __init__(self, root: ProjectRoot, settings: Callable[[], VerifySettings],
                 filters: Callable[[], RgFilters] = RgFilters) -> None:
        self.root = root
        self._settings = settings
        self._filters = filters  # which files the project's searches cover (excludes, size cap)
        self._lock = threading.Lock()
        self._last: tuple[tuple[object, ...], float, CheckReport] | None = None

    def configured(self) -> bool:
        return bool(self._settings().commands)

    def runs_before_change(self) -> bool:
        return self._settings().run_before_change

    def _fingerprint(self, commands: list[VerifyCommand], changed: list[str]) -> tuple[object, ...]:
        stats: list[tuple[str, int, object]] = []
        for rel in sorted(changed):
            try:
                st = (self.root.path / rel).stat()
                # a file modified just now may be written again unseen in the same clock tick: such a fingerprint
                # equals no other, so no earlier verdict is reused for it
                mtime: object = object() if is_racy(st.st_mtime_ns) else st.st_mtime_ns
                stats.append((rel, st.st_size, mtime))
            except OSError:
                stats.append((rel, -1, -1))
        return (tuple(c.model_dump_json() for c in commands), tuple(stats))

    def run(self, changed_files: list[str] | None, *, progress: Progress | None = None, reuse: bool = False) -> CheckReport:
        """Run every relevant command in the project root; `changed_files` None runs them all.

        With `reuse`, a report from an earlier run on the same changed files (same sizes and times)
        within the last minutes is returned instead of running again.
        """
        commands = list(self._settings().commands)
        if not commands:
            return CheckReport(configured=False, passed=True, changed_files=changed_files)
        key = self._fingerprint(commands, changed_files) if changed_files is not None else None
        with self._lock:
            if reuse and key is not None and self._last is not None:
                last_key, at, report = self._last
                if last_key == key and time.monotonic() - at < REUSE_FOR_S:
                    return report.model_copy(deep=True)
            report = self._run(commands, changed_files, progress)
            if key is not None:
                self._last = (key, time.monotonic(), report)
            return report.model_copy(deep=True)

    def exercising(self, tests: list[str], changes: list[FileChange]) -> dict[str, str]:
        from code_intel.verify.exercised import Exercise

        return Exercise(self.root, self._filters(), changes).tests(tests)

    def _run(self, commands: list[VerifyCommand], changed: list[str] | None, progress: Progress | None) -> CheckReport:
        started = time.monotonic()
        report = CheckReport(configured=True, passed=True, changed_files=changed)
        cwd = Path(self.root.path)
        for index, command in enumerate(commands):
            skip = relevant(command, changed)
            if skip is not None:
                report.skipped.append(SkippedCommand(name=command.name, reason=skip))
                continue
            if progress is not None:
                progress(0.0, f"check {index + 1}/{len(commands)}: {command.name} ({command.shown()})")
            outcome = run_command(command, cwd, progress)
            report.commands.append(outcome)
        report.passed = all(c.passed for c in report.commands)
        report.duration_s = round(time.monotonic() - started, 3)
        return report
