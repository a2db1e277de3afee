"""What the outcome check costs on each submit, beside a plain `git status` of the same tree in the same run.

The check re-takes the project's fingerprint (tools/git/fingerprint.py: every work-tree file with
untracked and ignored ones, .git/config, hooks, info, refs, hiding index flags) and compares it
with the expected one. Measured on checkouts of public repositories (brought with the `fetch` tool
and checked out at a pinned commit outside this repository):

    .venv/bin/python benchmarks/outcome_check.py /work/corpora/enf-sphinx /work/corpora/enf-sympy [--runs 9]

Per repository it prints: files and lines tracked; the first take (every file hashed, paid once at
start_session); the median of `--runs` takes with nothing changed (the submit of an honest agent
that wrote nothing), wall-clock and CPU (this process's user + system time); the median with 5 files
rewritten since the last take (a READY submit); the repository's part alone (refs, HEAD, index
flags, settings: the second look a READY, PRE_COMMIT or MERGE submit takes after its own step); and,
in the same loop, the median of `git status --porcelain` (refreshing the index), wall-clock and CPU
(the child's user + system time), for comparison.
Targets (issue #39): under 150 ms on a 2,000-file repository, under 2 s on sympy (800,000 lines).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _git_status(folder: Path) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one `git status --porcelain`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(["git", "status", "--porcelain"], cwd=folder, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def measure(folder: Path, runs: int) -> dict[str, float | int]:
    from code_intel.core.outcome_types import diff
    from code_intel.core.project import ProjectRoot
    from code_intel.git.fingerprint import DEFAULT_CACHE_PATTERNS
    from code_intel.git.service import GitService

    root = ProjectRoot.from_args(folder)
    outcome = GitService(root).outcome()
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=folder, check=True, capture_output=True).stdout.split(b"\0")
    tracked = [t for t in tracked if t]
    lines = 0
    for name in tracked:
        try:
            lines += (folder / name.decode()).read_bytes().count(b"\n")
        except OSError:
            continue
    _git_status(folder)  # both start from a refreshed index
    started = time.perf_counter()
    expected = outcome.take(DEFAULT_CACHE_PATTERNS)
    first = time.perf_counter() - started

    time.sleep(2.1)  # past the racy window of the first take: later takes hash only what changed
    outcome.take(DEFAULT_CACHE_PATTERNS)
    still, still_cpu, statuses, status_cpu, changed, repo_part = [], [], [], [], [], []
    victims = [folder / t.decode() for t in tracked if t.endswith(b".py")][:5]
    originals = [v.read_bytes() for v in victims]
    try:
        for run in range(runs):
            wall, cpu = _git_status(folder)
            statuses.append(wall)
            status_cpu.append(cpu)
            started, started_cpu = time.perf_counter(), time.process_time()
            now = outcome.take(DEFAULT_CACHE_PATTERNS)
            found = diff(expected, now)
            still.append(time.perf_counter() - started)
            still_cpu.append(time.process_time() - started_cpu)
            assert not found, found[:3]
            started = time.perf_counter()
            outcome.take(DEFAULT_CACHE_PATTERNS, tree=False)
            repo_part.append(time.perf_counter() - started)
            for victim, original in zip(victims, originals, strict=True):
                victim.write_bytes(original + f"# bench {run}\n".encode())
            started = time.perf_counter()
            now = outcome.take(DEFAULT_CACHE_PATTERNS)
            found = diff(expected, now)
            changed.append(time.perf_counter() - started)
            assert len(found) == len(victims), found
            for victim, original in zip(victims, originals, strict=True):
                victim.write_bytes(original)
            outcome.take(DEFAULT_CACHE_PATTERNS)  # the stat cache learns the restored files (not timed)
    finally:
        for victim, original in zip(victims, originals, strict=True):
            victim.write_bytes(original)
    return {"files": len(tracked), "keys": len(expected), "lines": lines, "first": first,
            "unchanged": statistics.median(still), "unchanged_cpu": statistics.median(still_cpu),
            "five_changed": statistics.median(changed), "repository_part": statistics.median(repo_part),
            "git_status": statistics.median(statuses), "git_status_cpu": statistics.median(status_cpu)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'repository':<14} {'files':>6} {'lines':>9} {'keys':>6} {'first take':>11} {'check':>9} {'its CPU':>9} "
          f"{'5 changed':>10} {'repo part':>10} {'git status':>11} {'its CPU':>9}")
    for folder in args.folders:
        row = {k: float(v) for k, v in measure(folder.resolve(), args.runs).items()}
        print(f"{folder.name:<14} {row['files']:>6.0f} {row['lines']:>9,.0f} {row['keys']:>6.0f} {_ms(row['first']):>11} "
              f"{_ms(row['unchanged']):>9} {_ms(row['unchanged_cpu']):>9} {_ms(row['five_changed']):>10} "
              f"{_ms(row['repository_part']):>10} {_ms(row['git_status']):>11} {_ms(row['git_status_cpu']):>9}")


if __name__ == "__main__":
    main()
