"""Running a program: the one place the product starts a subprocess (git, rg, ctags, the checks, the doctor).

Argument lists only, never a shell string (a check command the user wrote as one string is run by `/bin/sh -c`
by its caller, on purpose). stdin is closed unless input is given, so a program that waits for input cannot
hang a call. `run` reads stdout and stderr to the end or to its timeout, whichever comes first, without a thread;
at the timeout the program is killed and what it wrote so far is kept, so the caller can answer in part and say so.
The exploration tools pass the time left in their call's budget as the timeout (explore/budget.py).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

DRAIN_S = 2.0  # after a program was killed, how long what it already wrote may take to read


@dataclass(frozen=True)
class Finished:
    """A program that ran: its exit status (None when it was killed at its timeout) and everything it wrote."""

    returncode: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool

    @property
    def out(self) -> str:
        return self.stdout.decode("utf-8", errors="replace")

    @property
    def err(self) -> str:
        return self.stderr.decode("utf-8", errors="replace")


def run(argv: Sequence[str], *, timeout: float, cwd: Path | str | None = None, env: Mapping[str, str] | None = None,
        input: bytes | None = None) -> Finished:  # noqa: A002 - the name subprocess uses
    """Run `argv` to its end or to `timeout` seconds. Raises OSError (or ValueError, for a NUL byte in an
    argument) when the program cannot be started; never for what the program itself does."""
    proc = subprocess.Popen(list(argv), cwd=cwd, env=dict(env) if env is not None else None,  # noqa: S603
                            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with proc:
        try:
            out, err = proc.communicate(input, timeout=max(timeout, 0.0))
            return Finished(proc.returncode, out, err, timed_out=False)
        except subprocess.TimeoutExpired:
            proc.kill()
        try:  # communicate again: nothing read before the timeout is lost
            out, err = proc.communicate(timeout=DRAIN_S)
        except subprocess.TimeoutExpired as late:  # a child of it still holds the pipes open
            out, err = late.output or b"", late.stderr or b""
        return Finished(None, out, err, timed_out=True)


def start_streaming(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None = None) -> subprocess.Popen[bytes]:
    """A program whose output (stdout and stderr merged) its caller reads as it streams, in a process group of
    its own, so that `stop_group` can stop whatever it started too (the project's check commands)."""
    return subprocess.Popen(list(argv), cwd=str(cwd), env=dict(env) if env is not None else None,  # noqa: S603
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)


def stop_group(proc: subprocess.Popen[bytes], grace_s: float) -> None:
    """SIGTERM to the program's process group, then SIGKILL when it has not ended after `grace_s`."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=grace_s)
            return
        except subprocess.TimeoutExpired:
            continue


def kill_group(pgid: int) -> None:
    """Kill whatever is left in a process group (background servers or stuck children a command left behind)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
