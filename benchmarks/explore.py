"""Speed of the exploration engines, each beside the raw engine measured in the same run.

Corpus: about 300 files of CPython's standard library copied to benchmarks/.corpus/stdlib (git-ignored).
Run: .venv/bin/python benchmarks/explore.py [--files 300] [--repeat 7]

Targets: search_text within 1.5x of raw `rg --json`; warm find_definitions under 20 ms; the first
call's index build within 1.5x of raw `ctags -R`; find_references under 200 ms.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from code_intel.core.binaries import require_binary
from code_intel.core.config import Config
from code_intel.core.project import ProjectRoot
from code_intel.explore.ctags import _OPTIONS as CTAGS_OPTIONS
from code_intel.explore.service import Explorer

CORPUS = Path(__file__).resolve().parent / ".corpus" / "stdlib"
SEARCH_PATTERNS = [r"def \w+\(self", "import os", r"raise \w+Error\("]
DEFINITION_NAMES = ["__init__", "Popen", "urlopen", "HTTPConnection", "_parse", "get", "Request", "run"]
REFERENCE_NAMES = ["Request", "_parse", "socket", "encoding", "HTTPConnection", "timeout"]


def build_corpus(count: int) -> Path:
    """Copy `count` standard-library files (a stable spread over the whole library) once."""
    marker = CORPUS / f".files-{count}"
    if marker.exists():
        return CORPUS
    shutil.rmtree(CORPUS, ignore_errors=True)
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in stdlib.rglob("*.py") if "site-packages" not in p.parts and p.stat().st_size > 1000)
    step = max(1, len(files) // count)
    for source in files[::step][:count]:
        target = CORPUS / source.relative_to(stdlib)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    marker.write_text("", encoding="utf-8")
    return CORPUS


def timed(action: Callable[[], object], repeat: int, setup: Callable[[], object] | None = None) -> float:
    """Median wall time in milliseconds (`setup` runs before each sample, outside the timing)."""
    samples = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def raw(args: list[str], cwd: Path, stdin: bytes | None = None) -> None:
    subprocess.run(args, cwd=cwd, input=stdin, capture_output=True, check=False)


def settle() -> None:
    """Wait for background warm-up (lexical maps) so it does not slow the next measurement."""
    while busy := [t for t in threading.enumerate() if t.name.startswith("code-intel-")]:
        for thread in busy:
            thread.join()


def fresh_explorer(root: Path) -> Explorer:
    settings = Config(search_timeout_seconds=120)
    return Explorer(ProjectRoot.from_args(root), lambda: settings)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=7)
    options = parser.parse_args()
    root = build_corpus(options.files)
    files = [p for p in root.rglob("*.py")]
    size_mb = sum(p.stat().st_size for p in files) / 1e6
    print(f"corpus: {len(files)} Python files, {size_mb:.1f} MB at {root}")
    rg, ctags = require_binary("rg"), require_binary("ctags")
    rows: list[tuple[str, float, str, float | None]] = []

    explorer = fresh_explorer(root)
    explorer.warm_up()
    settle()  # the first exploration call starts indexing in the background; keep it out of the figures
    for pattern in SEARCH_PATTERNS:
        ours = timed(lambda p=pattern: explorer.search_text(p, max_results=100), options.repeat)  # type: ignore[misc]
        base = timed(lambda p=pattern: raw([rg, "--json", "-e", p, "--", "."], root), options.repeat)  # type: ignore[misc]
        rows.append((f"search_text {pattern!r}", ours, "rg --json", base))

    # first call: the whole index is built (disk cache removed), against ctags -R with the same options
    def forget_index() -> None:
        settle()
        shutil.rmtree(root / ".code-intel", ignore_errors=True)

    cold = timed(lambda: fresh_explorer(root).find_definitions("Popen"), max(3, options.repeat // 2), setup=forget_index)
    settle()
    # the same options, and our cache folder left out so ctags reads the same files we index
    ctags_raw = timed(lambda: raw([ctags, "-R", *CTAGS_OPTIONS, "--exclude=.code-intel", "-f", "-", "."], root),
                      max(3, options.repeat // 2))
    rows.append(("find_definitions, first call (index build)", cold, "ctags -R", ctags_raw))
    restart = timed(lambda: fresh_explorer(root).find_definitions("Popen"), max(3, options.repeat // 2))
    rows.append(("find_definitions, new process (disk cache)", restart, "", None))

    warm_explorer = fresh_explorer(root)
    warm_explorer.find_definitions("Popen")
    warm = statistics.median(timed(lambda n=name: warm_explorer.find_definitions(n), options.repeat)  # type: ignore[misc]
                             for name in DEFINITION_NAMES)
    rows.append(("find_definitions, warm (median of names)", warm, "", None))

    # a project never indexed: the files holding hits are parsed during the call
    never_indexed = []
    for name in REFERENCE_NAMES[:3]:
        forget_index()
        start = time.perf_counter()
        fresh_explorer(root).find_references(name, max_results=5000)
        never_indexed.append((time.perf_counter() - start) * 1000)
    rows.append(("find_references, never-indexed project (median)", statistics.median(never_indexed), "", None))
    fresh_explorer(root).find_definitions("Popen")  # builds the index and the lexical maps again
    settle()

    ref_explorer = fresh_explorer(root)
    cold_refs, warm_refs, raw_refs, hits = [], [], [], 0
    for name in REFERENCE_NAMES:
        start = time.perf_counter()
        hits += ref_explorer.find_references(name, max_results=5000).total
        cold_refs.append((time.perf_counter() - start) * 1000)
        warm_refs.append(timed(lambda n=name: ref_explorer.find_references(n, max_results=5000), options.repeat))  # type: ignore[misc]
        raw_refs.append(timed(lambda n=name: raw([rg, "--json", "-w", "-F", "-e", n, "--", "."], root), options.repeat))  # type: ignore[misc]
    rows.append((f"find_references, indexed project, new process (median, {hits} hits)", statistics.median(cold_refs),
                 "rg --json -w", statistics.median(raw_refs)))
    rows.append(("find_references, same, first name (loads the caches)", cold_refs[0], "", None))
    rows.append(("find_references, warm (median)", statistics.median(warm_refs), "rg --json -w", statistics.median(raw_refs)))

    width = max(len(r[0]) for r in rows)
    print(f"{'measure'.ljust(width)}  {'ours ms':>9}  {'raw engine':<12} {'raw ms':>8}  ratio")
    for label, ours, engine, base in rows:
        ratio = f"{ours / base:.2f}x" if base else ""
        base_text = f"{base:8.1f}" if base is not None else " " * 8
        print(f"{label.ljust(width)}  {ours:9.1f}  {engine:<12} {base_text}  {ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
