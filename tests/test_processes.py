"""The one subprocess helper (tools/core/processes.py), on real programs."""

from __future__ import annotations

import sys
import time

import pytest

from code_intel.core import processes


def test_output_status_and_input_come_back() -> None:
    done = processes.run([sys.executable, "-c", "import sys; d = sys.stdin.read(); print(d.upper()); "
                          "print('warn', file=sys.stderr); sys.exit(3)"], input=b"abc", timeout=30)
    assert (done.returncode, done.out.strip(), done.err.strip(), done.timed_out) == (3, "ABC", "warn", False)


def test_stdin_is_closed_when_no_input_is_given() -> None:
    done = processes.run([sys.executable, "-c", "import sys; print(repr(sys.stdin.read()))"], timeout=30)
    assert done.out.strip() == "''"


def test_a_program_past_its_timeout_is_killed_and_what_it_wrote_is_kept() -> None:
    started = time.monotonic()
    done = processes.run([sys.executable, "-u", "-c", "import time; print('first', flush=True); time.sleep(60)"],
                         timeout=1.0)
    assert done.timed_out and done.returncode is None
    assert done.out.strip() == "first"
    assert time.monotonic() - started < 1.0 + processes.DRAIN_S + 5


def test_a_program_that_cannot_start_raises() -> None:
    with pytest.raises(OSError):
        processes.run(["/nonexistent/program"], timeout=5)
    with pytest.raises(ValueError):
        processes.run([sys.executable, "-c", "pass", "a\x00b"], timeout=5)
