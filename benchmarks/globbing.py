"""Glob matching: the linear matcher (tools/explore/globbing.py: pathspec + RE2) beside the backtracking regex it
replaced, measured in the same run.

Ordinary globs over a synthetic tree of 50,000 paths show what linear matching costs on everyday
patterns; hostile globs against one long file name show what it saves. The regex baseline is the
translation the old matcher used (`*` -> `[^/]*`, `**/` -> `(?:.*/)?`); on hostile globs it is only
run on names short enough to finish, with the time growing by a large factor per extra character.

    .venv/bin/python benchmarks/globbing.py [--paths 50000]
"""

from __future__ import annotations

import argparse
import re
import time

from code_intel.explore.globbing import glob_matches

ORDINARY = ["**/*.py", "src/**/*.py", "*_1*.py", "**/test_*.{py,pyi}", "src/pkg1?/**"]
HOSTILE = "*a*a*a*a*a*a*a*a*a*a*a*a*b"


SINGLE = {"*": "[^/]*", "?": "[^/]", "{": "(?:", "}": ")", ",": "|"}


def regex_for(glob: str) -> re.Pattern[str]:
    """The old translation into a regex (braces as groups, `**/` as optional folders)."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i) and (i == 0 or glob[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            out.append(SINGLE.get(glob[i], re.escape(glob[i])))
            i += 1
    return re.compile("".join(out) + r"\Z")


def per_path_us(match: object, paths: list[str]) -> float:
    started = time.perf_counter()
    for path in paths:
        match(path)  # type: ignore[operator]
    return (time.perf_counter() - started) / len(paths) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", type=int, default=50_000)
    args = parser.parse_args()
    paths = [f"src/pkg{i % 50}/mod{i % 7}/file_{i}.py" for i in range(args.paths)]

    print(f"ordinary globs over {len(paths):,} paths (microseconds per path)")
    print(f"  {'glob':24} {'linear':>8} {'regex':>8}")
    for glob in ORDINARY:
        linear = per_path_us(lambda p, g=glob: glob_matches(g, p), paths)
        compiled = regex_for(glob)
        whole = "/" in glob
        regex = per_path_us(lambda p, r=compiled, w=whole: r.match(p if w else p.rsplit("/", 1)[-1]), paths)
        print(f"  {glob:24} {linear:8.2f} {regex:8.2f}")

    print(f"\nhostile glob {HOSTILE!r} against one name of n 'a's plus '.py' (milliseconds)")
    print(f"  {'n':>5} {'linear':>10} {'regex':>12}")
    compiled = regex_for(HOSTILE)
    for n in (16, 20, 24, 28, 200, 5000):
        name = "a" * n + ".py"
        started = time.perf_counter()
        glob_matches(HOSTILE, name)
        linear = (time.perf_counter() - started) * 1000
        regex = "not run"
        if n <= 28:
            started = time.perf_counter()
            compiled.match(name)
            regex = f"{(time.perf_counter() - started) * 1000:10.1f}"
        print(f"  {n:5} {linear:10.3f} {regex:>12}")


if __name__ == "__main__":
    main()
