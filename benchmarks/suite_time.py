"""How long `make test-fast` takes: its test selection run in one process beside the same selection spread
over pytest-xdist workers, as the Makefile runs it.

Each round runs the selection both ways, the first of the pair alternating, and times the whole pytest
command (collection included: each xdist worker collects the suite again). Printed: every run's wall time,
then the median of each way and the ratio. Nothing is cached between runs beyond what pytest and Python
cache on disk themselves.

    .venv/bin/python benchmarks/suite_time.py [--rounds 3] [--workers "auto --maxprocesses=4"]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SELECTION = ["-m", "not model and not slow"]


def run(extra: list[str]) -> tuple[float, str]:
    """One pytest run of the fast selection; returns the wall time and pytest's last line."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra, *SELECTION]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    last = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
    if done.returncode != 0:
        raise SystemExit(f"pytest {' '.join(extra)} failed (exit {done.returncode}): {last}\n{done.stdout[-3000:]}")
    return elapsed, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", default="auto --maxprocesses=4", help="what follows -n (as in the Makefile)")
    args = parser.parse_args()
    ways: dict[str, list[str]] = {"one process": [], f"-n {args.workers}": ["-n", *args.workers.split()]}
    times: dict[str, list[float]] = {name: [] for name in ways}
    print(f"cores: {os.cpu_count()}; load average at the start: {os.getloadavg()[0]:.2f}")
    for round_no in range(args.rounds):
        order = list(ways) if round_no % 2 == 0 else list(reversed(ways))
        for name in order:
            elapsed, last = run(ways[name])
            times[name].append(elapsed)
            print(f"round {round_no + 1}  {name:<28} {elapsed:6.1f} s   {last}", flush=True)
    medians = {name: statistics.median(values) for name, values in times.items()}
    serial, parallel = medians.values()
    for name, value in medians.items():
        print(f"median  {name:<28} {value:6.1f} s")
    print(f"speed-up: {serial / parallel:.2f}x")


if __name__ == "__main__":
    main()
