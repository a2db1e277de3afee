"""Garbage-collection pauses in a long-running server: the interpreter's default beside tools/server/gc_policy.py.

Two servers are spawned on the same corpus, one as shipped (full collections freeze their survivors,
tools/server/gc_policy.py) and one with that turned off (the interpreter's default), one after the other, the first of
the pair alternating when --repeats is above 1. Each gets the wire benchmark's calls (benchmarks/wire.py:
search_text for every match of two patterns and with the default cap, get_symbols on the largest file after
touching it, analyze_impact of one module), a few rounds to warm up, then --rounds rounds timed over a bare
pipe (JSON-RPC lines, the answer line read unparsed). Printed per server: each call's median, 90th and 99th
percentile and maximum; the collections per generation that ran in the timed rounds, with their total and
longest pause (from a gc callback inside the server); the objects frozen after the last full collection; and the server's
resident memory at the end and at its peak. The pauses are timed inside the server: the machine's load moves
them less than the end-to-end times.

Corpus: standard-library files copied to benchmarks/.corpus/stdlib (git-ignored), as benchmarks/explore.py.

    .venv/bin/python benchmarks/gc_pauses.py [--rounds 40] [--repeats 2] [--files 175]
"""

from __future__ import annotations

import argparse
import os
import runpy
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SERVER = REPO / "code_intel_server.py"


def serve(log: str, mode: str, argv: list[str]) -> None:
    """Run the server (argv) in this process with a gc callback writing each collection's generation and
    pause to `log`, and, when mode is "default", tools/server/gc_policy.py turned off."""
    import gc

    out = open(log, "w", buffering=1)  # noqa: SIM115 - open for the life of the process
    started: list[float] = [0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            pause = (time.perf_counter() - started[0]) * 1000
            # get_freeze_count walks the frozen objects' list: asked after full collections only, it costs
            # nothing the calls would feel (asked after every collection it made get_symbols twice as slow)
            frozen = gc.get_freeze_count() if info["generation"] == 2 else -1
            out.write(f"{info['generation']} {pause:.3f} {frozen}\n")

    gc.callbacks.insert(0, timed)  # first: the pause measured leaves out what tools/server/gc_policy.py does after it
    sys.path.insert(0, str(REPO))
    if mode == "default":
        from code_intel.server import gc_policy as heap

        heap.install = lambda recheck=heap.RECHECK: None  # type: ignore[assignment]
    sys.argv = argv
    runpy.run_path(argv[0], run_name="__main__")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def memory_kb(pid: int) -> tuple[int, int]:
    """(resident, peak resident) in kB, from /proc."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.split()[0] if value.split() else "0"
    return int(fields.get("VmRSS", 0)), int(fields.get("VmHWM", 0))


def run_server(mode: str, corpus: Path, plan: dict[str, tuple[dict[str, Any], Path | None]], rounds: int,
               warm_rounds: int) -> dict[str, Any]:
    from wire import raw_pipe, tool_of, touch

    with tempfile.NamedTemporaryFile(prefix=f"gc-{mode}-", suffix=".log", delete=False) as handle:
        log = handle.name
    argv = [sys.executable, __file__, "--serve", log, mode, "--", str(SERVER), "--project", str(corpus),
            "--log-level", "WARNING"]
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=corpus)
    times: dict[str, list[float]] = {label: [] for label in plan}
    try:
        request = raw_pipe(process, "gc-benchmark")
        for _ in range(warm_rounds):
            for label, (args, touched) in plan.items():
                touch(touched)
                request("tools/call", {"name": tool_of(label), "arguments": args})
        time.sleep(1.0)  # background upkeep after the first calls (lexical maps, cache writes) is over
        skip = len(Path(log).read_text().splitlines())
        for _ in range(rounds):
            for label, (args, touched) in plan.items():
                touch(touched)
                started = time.perf_counter()
                answer = request("tools/call", {"name": tool_of(label), "arguments": args})
                times[label].append((time.perf_counter() - started) * 1000)
                if b'"isError":true' in answer:
                    raise SystemExit(f"the {mode} server refused {label}: {answer[:300]!r}")
        resident, peak = memory_kb(process.pid)
    finally:
        process.kill()
        process.wait()
    every = [line.split() for line in Path(log).read_text().splitlines()]
    os.unlink(log)
    records = every[skip:]  # the timed rounds' collections
    pauses = {gen: [float(r[1]) for r in records if r[0] == gen] for gen in ("0", "1", "2")}
    # warm-up included: a short run may have no full collection in its timed rounds
    frozen = next((int(r[2]) for r in reversed(every) if r[2] != "-1"), 0)
    return {"times": times, "pauses": pauses, "frozen": frozen,
            "resident": resident, "peak": peak}


def report(mode: str, figures: dict[str, Any]) -> list[str]:
    lines = []
    for label, values in figures["times"].items():
        lines.append(f"{mode:8} {label:30} {statistics.median(values):8.1f} {percentile(values, 0.9):8.1f} "
                     f"{percentile(values, 0.99):8.1f} {max(values):8.1f}")
    for gen, pauses in figures["pauses"].items():
        lines.append(f"{mode:8} gen{gen} collections: {len(pauses):5}, {sum(pauses):8.1f} ms in all, "
                     f"longest {max(pauses, default=0.0):6.1f} ms")
    lines.append(f"{mode:8} frozen after the last full collection: {figures['frozen']:,} objects; memory at the end: resident {figures['resident'] / 1024:.0f} MB, "
                 f"peak {figures['peak'] / 1024:.0f} MB")
    return lines


def main() -> int:
    if len(sys.argv) > 4 and sys.argv[1] == "--serve":
        serve(sys.argv[2], sys.argv[3], sys.argv[5:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40, help="timed rounds of all the calls, per server")
    parser.add_argument("--repeats", type=int, default=2, help="servers of each kind, alternating")
    parser.add_argument("--files", type=int, default=175, help="standard-library files in the corpus")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(REPO))
    from wire import DEFAULT_PATTERNS, calls, served_corpus

    corpus = served_corpus(args.files)
    files = sorted(p for p in corpus.rglob("*.py") if ".code-intel" not in p.parts)
    big = max(files, key=lambda p: p.stat().st_size).relative_to(corpus).as_posix()
    module = next((p for p in files if p.name == "shlex.py"), files[len(files) // 2]).relative_to(corpus).as_posix()
    plan = calls(corpus, DEFAULT_PATTERNS, big, module)
    print(f"corpus: {len(files)} files; {args.rounds} timed rounds of {len(plan)} calls per server, after 3 to warm up; "
          f"python {sys.version.split()[0]}")
    print(f"{'server':8} {'call':30} {'median':>8} {'p90':>8} {'p99':>8} {'max':>8}   (ms, end to end over a bare pipe)")
    for repeat in range(args.repeats):
        for mode in ("default", "shipped") if repeat % 2 == 0 else ("shipped", "default"):  # neither always first
            print("\n".join(report(mode, run_server(mode, corpus, plan, args.rounds, warm_rounds=3))), flush=True)
        if repeat + 1 < args.repeats:
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
