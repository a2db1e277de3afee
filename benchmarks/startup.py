"""Cold start: time from spawning the server to its answer to `tools/list`.

Speaks raw JSON-RPC over the child's pipes (as a client would) so that the client's own imports
are not counted. Also reports the biggest imports of `code_intel_server` (python -X importtime)
and checks that no heavy library is loaded by then.

    .venv/bin/python benchmarks/startup.py [--runs 7] [--project DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SERVER = REPO / "code_intel_server.py"
HEAVY = ("torch", "chromadb", "sentence_transformers", "transformers", "git", "tree_sitter_language_pack")
TARGET_SECONDS = 1.0

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "startup-bench", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def spawn_to_tools_list(project: Path) -> tuple[float, int]:
    """Seconds from Popen to the tools/list reply, and how many tools it listed."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(SERVER), "--project", str(project), "--log-level", "WARNING"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin and proc.stdout
    try:
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in (INITIALIZE, INITIALIZED, LIST_TOOLS)))
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError("the server closed stdout before answering tools/list")
            message = json.loads(line)
            if message.get("id") == 2:
                elapsed = time.perf_counter() - started
                return elapsed, len(message["result"]["tools"])
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


def biggest_imports(limit: int) -> list[tuple[float, str]]:
    """Cumulative import time (seconds) of code_intel_server and of the modules it imports directly."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", "import code_intel_server"],
                         capture_output=True, text=True, cwd=REPO, check=True)
    rows = []
    for line in out.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) != 3 or not parts[1].strip().isdigit():
            continue
        raw_name = parts[2]
        depth = (len(raw_name) - len(raw_name.lstrip()) - 1) // 2  # importtime indents two spaces a level
        if depth <= 1:
            rows.append((int(parts[1]) / 1e6, "  " * depth + raw_name.strip()))
    return sorted(rows, reverse=True)[:limit]


def import_seconds(statement: str, runs: int) -> float:
    """Fastest wall time of a fresh interpreter running one import (the floor we cannot go under)."""
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", statement], cwd=REPO, check=True)
        best = min(best, time.perf_counter() - started)
    return best


def heavy_loaded() -> list[str]:
    code = f"import sys, code_intel_server; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    return [m for m in out.stdout.strip().split(",") if m]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--project", help="project folder to serve (default: an empty temp folder)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="code-intel-startup-") as tmp:
        project = Path(args.project or tmp)
        spawn_to_tools_list(project)  # warm the OS file cache and .pyc files (and save the listing); not counted
        times = []
        for _ in range(args.runs):
            seconds, count = spawn_to_tools_list(project)
            times.append(seconds)
        first_times = []  # no listing saved in the project for this code: the tool table is built before the answer
        for number in range(args.runs):
            fresh = Path(tmp) / f"first-{number}"
            (fresh / ".code-intel").mkdir(parents=True)
            first_times.append(spawn_to_tools_list(fresh)[0])
        init_times = []  # the first spawn in a project `code-intel init` has just set up (init saves the listing)
        for number in range(args.runs):
            fresh = Path(tmp) / f"init-{number}"
            fresh.mkdir()
            subprocess.run([sys.executable, "-m", "code_intel.cli.main", "init", str(fresh), "--no-hooks"], cwd=REPO,
                           capture_output=True, check=True)
            init_times.append(spawn_to_tools_list(fresh)[0])
    print(f"spawn -> tools/list ({count} tools), {args.runs} runs, the listing saved by an earlier server of this code:")
    print(f"  min {min(times):.3f} s   median {statistics.median(times):.3f} s   max {max(times):.3f} s"
          f"   target < {TARGET_SECONDS:.1f} s: {'met' if statistics.median(times) < TARGET_SECONDS else 'NOT met'}")
    print(f"the first spawn in a project `code-intel init` has just set up (init saved the listing), {args.runs} projects:")
    print(f"  min {min(init_times):.3f} s   median {statistics.median(init_times):.3f} s   max {max(init_times):.3f} s")
    print(f"no listing saved for this code in the project (set up without init, or the code changed since; the "
          f"tool table is built first), {args.runs} projects:")
    print(f"  min {min(first_times):.3f} s   median {statistics.median(first_times):.3f} s   max {max(first_times):.3f} s")
    sdk = import_seconds("import mcp.server.mcpserver", args.runs)
    ours = import_seconds("import code_intel_server", args.runs)
    print(f"fresh interpreter, fastest of {args.runs}: mcp SDK import {sdk:.3f} s, code_intel_server import {ours:.3f} s")
    print("slowest imports under code_intel_server (cumulative):")
    for seconds, name in biggest_imports(8):
        print(f"  {seconds:6.3f} s  {name}")
    heavy = heavy_loaded()
    print("heavy libraries loaded at import: " + (", ".join(heavy) if heavy else "none"))
    return 0 if not heavy else 1


if __name__ == "__main__":
    sys.exit(main())
