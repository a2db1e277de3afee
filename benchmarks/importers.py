"""The importer search of analyze_impact on a large repository, with and without its rule that only an import
writing the changed file's word (or a bare relative path) is resolved: wall and CPU time of `importers_of` and of
the whole `analyze_impact`, the number of resolutions and existence checks, and whether both answers are the same.
Both variants run in the same process, alternating, so a loaded machine slows both alike; CPU time is this
process's (ripgrep's own is not counted).

    .venv/bin/python benchmarks/importers.py [--tree /work/corpora/sympy] [--file sympy/core/basic.py] [--runs 3]

The tree is sympy at tag sympy-1.14.0, checked out as benchmarks/big_repo.py says.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from code_intel.core.config import Config
from code_intel.core.project import ProjectRoot
from code_intel.explore import importers, resolve
from code_intel.explore.impact import analyze_impact
from code_intel.explore.service import Explorer

COUNTS = {"resolutions": 0, "exists": 0}
_real_targets, _real_exists, _real_may_name = importers.import_targets, resolve._exists, importers._may_name


def _counting_targets(*args: Any, **kw: Any) -> list[str]:
    COUNTS["resolutions"] += 1
    return _real_targets(*args, **kw)


def _counting_exists(*args: Any) -> bool:
    COUNTS["exists"] += 1
    return _real_exists(*args)


def _timed(call: Callable[[], Any]) -> tuple[float, float, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = call()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", type=Path, default=Path("/work/corpora/sympy"))
    parser.add_argument("--file", default="sympy/core/basic.py")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    explorer = Explorer(ProjectRoot.from_args(args.tree.resolve()), lambda: Config())
    importers.import_targets = _counting_targets
    resolve._exists = _counting_exists  # type: ignore[assignment]
    variants: dict[str, Callable[..., bool]] = {"every import resolved (before)": lambda *_: True,
                                                "only imports that may name it": _real_may_name}
    analyze_impact(explorer, [args.file], None)  # the definition index and caches, built once for both
    rows: dict[str, dict[str, list[float]]] = {name: {} for name in variants}
    answers: dict[str, tuple[Any, Any]] = {}
    for _ in range(args.runs):
        for name, rule in variants.items():
            importers._may_name = rule  # type: ignore[assignment]
            COUNTS.update(resolutions=0, exists=0)
            wall, cpu, found = _timed(lambda: importers.importers_of(explorer, args.file, []))
            counts = dict(COUNTS)
            impact_wall, impact_cpu, report = _timed(lambda: analyze_impact(explorer, [args.file], None))
            answers[name] = (found, report.model_dump())
            for key, value in [("importers wall", wall), ("importers cpu", cpu), ("impact wall", impact_wall),
                               ("impact cpu", impact_cpu)]:
                rows[name].setdefault(key, []).append(value)
            rows[name]["found"] = [len(found)]
            rows[name]["resolutions"], rows[name]["exists"] = [counts["resolutions"]], [counts["exists"]]
    print(f"{args.tree} {args.file}, median of {args.runs} runs (s)")
    for name, row in rows.items():
        print(f"  {name}: importers {int(row['found'][0])}, resolutions {int(row['resolutions'][0])}, "
              f"existence checks {int(row['exists'][0])}; importers_of wall {statistics.median(row['importers wall']):.2f}"
              f" cpu {statistics.median(row['importers cpu']):.2f}; analyze_impact wall "
              f"{statistics.median(row['impact wall']):.2f} cpu {statistics.median(row['impact cpu']):.2f}")
    before, after = answers.values()
    print("same importers and same analyze_impact answer:", before == after)
    return 0 if before == after else 1


if __name__ == "__main__":
    sys.exit(main())
