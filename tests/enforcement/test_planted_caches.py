"""Caches the outcome check does not judge (tests/enforcement's other files judge everything else) cannot steer the
server's own run of the checks: a planted `.pyc` beside a source, or a planted pytest cache, is neither read nor
written by the run (code_intel.verify.runner gives it a cache folder of its own)."""

from __future__ import annotations

import json
import os
import py_compile
import sys
from pathlib import Path

from code_intel.verify.runner import run_command
from code_intel.verify.settings import VerifyCommand

BROKEN = "def answer():\n    return 41\n"
PLANTED = "def answer():\n    return 42\n"  # same length: a stale .pyc's header (mtime, size) still matches


def _project(folder: Path) -> None:
    (folder / "calc.py").write_text(BROKEN)
    (folder / "test_calc.py").write_text("from calc import answer\n\n\ndef test_answer():\n    assert answer() == 42\n\n\n"
                                         "def test_other():\n    assert True\n")


def _plant_pyc(folder: Path) -> Path:
    """A .pyc compiled from the 'fixed' source, left where Python looks for it, the broken source's stat matching."""
    source = folder / "calc.py"
    stamp = source.stat().st_mtime_ns
    source.write_text(PLANTED)
    os.utime(source, ns=(stamp, stamp))
    planted = Path(py_compile.compile(str(source), doraise=True))
    source.write_text(BROKEN)
    os.utime(source, ns=(stamp, stamp))
    return planted


PYTEST = VerifyCommand(name="tests", run=[sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "test_calc.py"])


def test_the_planted_pyc_steers_python_run_plainly(tmp_path: Path) -> None:
    """The attack is real: Python alone loads the planted bytecode and the broken function answers 42."""
    _project(tmp_path)
    _plant_pyc(tmp_path)
    import subprocess

    out = subprocess.run([sys.executable, "-c", "import calc; print(calc.answer())"], cwd=tmp_path, capture_output=True,
                         text=True, check=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert out.stdout.strip() == "42"


def test_a_planted_pyc_does_not_steer_the_servers_test_run(tmp_path: Path) -> None:
    _project(tmp_path)
    planted = _plant_pyc(tmp_path)
    before = planted.read_bytes()
    outcome = run_command(PYTEST, tmp_path)
    assert outcome.verdict == "failed", outcome.tail
    assert "test_answer" in " ".join(outcome.failing_tests)
    assert planted.read_bytes() == before  # the run neither used nor rewrote the tree's cache
    assert sorted(p.name for p in planted.parent.iterdir()) == [planted.name]


def test_a_planted_pytest_cache_does_not_choose_the_tests(tmp_path: Path) -> None:
    """`--lf` in the project's command reads pytest's cache: a planted one naming only a passing test would skip the
    failing one. The server's run gives pytest a cache folder of its own, so every test runs."""
    _project(tmp_path)
    cache = tmp_path / ".pytest_cache" / "v" / "cache"
    cache.mkdir(parents=True)
    (cache / "lastfailed").write_text(json.dumps({"test_calc.py::test_other": True}))
    command = VerifyCommand(name="tests", run=[*PYTEST.run, "--lf"])
    outcome = run_command(command, tmp_path)
    assert outcome.verdict == "failed", outcome.tail
    assert json.loads((cache / "lastfailed").read_text()) == {"test_calc.py::test_other": True}
