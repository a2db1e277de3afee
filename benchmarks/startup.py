"""Cold start: time from spawning the server to its answer to `tools/list`.

Speaks raw JSON-RPC over the child's pipes (as a client would) so that the client's own imports
are not counted. Also reports the biggest imports of `code_intel_server` (python -X importtime)
and checks that no heavy library is loaded by then. With --server (repeatable), other checkouts of
the server are timed too, in alternating rounds, so that a change is judged against its base under
the same load. (benchmarks/default_calls.py times the same through the Python SDK's client.)

    .venv/bin/python benchmarks/startup.py [--runs 7] [--project DIR] [--server DIR ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from default_calls import import_path  # benchmarks/ is on sys.path when this script runs

REPO = Path(__file__).resolve().parent.parent
SERVER = REPO / "code_intel_server.py"
HEAVY = ("torch", "chromadb", "sentence_transformers", "transformers", "git", "tree_sitter_language_pack")
TARGET_SECONDS = 1.0

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "startup-bench", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def spawn_to_tools_list(project: Path, server: Path = SERVER) -> tuple[float, int]:
    """Seconds from Popen to the tools/list reply, and how many tools it listed."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(server), "--project", str(project), "--log-level", "WARNING"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=own_imports(server))
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


# CPU seconds of the server's own start after the SDK's import: importing code_intel_server, building the server
# and answering tools/list in process (load on the machine inflates wall time far more than CPU time)
CPU_AFTER_SDK = """
import asyncio, sys, tempfile, time
import mcp.server.mcpserver
started = time.process_time()
import code_intel_server
from code_intel.server.app import CodeIntelApp
server = code_intel_server.build_server(CodeIntelApp.for_path(tempfile.mkdtemp()))
asyncio.run(server.list_tools())
print(time.process_time() - started)
"""


def cpu_after_sdk(runs: int, server: Path = SERVER) -> list[float]:
    return [float(subprocess.run([sys.executable, "-c", CPU_AFTER_SDK], capture_output=True, text=True,
                                 cwd=server.parent, env=own_imports(server), check=True).stdout) for _ in range(runs)]


def own_imports(server: Path) -> dict[str, str]:
    """The environment in which `server` imports `code_intel` from its own checkout, not this one."""
    return {**os.environ, "PYTHONPATH": str(import_path(server.parent))}


def heavy_loaded() -> list[str]:
    code = f"import sys, code_intel_server; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    return [m for m in out.stdout.strip().split(",") if m]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--project", help="project folder to serve (default: an empty temp folder)")
    parser.add_argument("--server", action="append", type=Path, default=[],
                        help="another checkout's folder, timed beside this one")
    args = parser.parse_args()

    servers = [SERVER, *(folder.resolve() / "code_intel_server.py" for folder in args.server)]
    served: dict[Path, list[float]] = {server: [] for server in servers}
    fresh: dict[Path, list[float]] = {server: [] for server in servers}
    with tempfile.TemporaryDirectory(prefix="code-intel-startup-") as tmp:
        project = Path(args.project or tmp)
        for server in servers:
            spawn_to_tools_list(project, server)  # warm the OS file cache and .pyc files; not counted
        for number in range(args.runs):
            for server in servers if number % 2 == 0 else reversed(servers):
                seconds, count = spawn_to_tools_list(project, server)
                served[server].append(seconds)
                new = Path(tmp) / f"fresh-{number}-{servers.index(server)}"
                (new / ".code-intel").mkdir(parents=True)
                fresh[server].append(spawn_to_tools_list(new, server)[0])
    for server in servers:
        print(f"{server.parent}: spawn -> tools/list ({count} tools), {args.runs} runs")
        for label, times in (("a project it served before", served[server]), ("a fresh project", fresh[server])):
            print(f"  {label}: min {min(times):.3f} s   median {statistics.median(times):.3f} s   max {max(times):.3f} s"
                  f"   target < {TARGET_SECONDS:.1f} s: {'met' if statistics.median(times) < TARGET_SECONDS else 'NOT met'}")
    for server in servers:
        cpu = cpu_after_sdk(args.runs, server)
        print(f"{server.parent}: CPU after the SDK's import to the tools/list answer, in process: "
              f"min {min(cpu):.3f} s   median {statistics.median(cpu):.3f} s")
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
