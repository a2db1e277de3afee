"""What a user feels of the MCP layer: start-up to tools/list, and default-size calls through a real stdio client
beside raw rg.

Each server checkout given with --server (default: this one) is driven through the Python SDK's stdio client
(`mcp.Client`, which also checks each structured answer against the tool's outputSchema, as Claude Code's client
does), in alternating rounds so that the checkouts share the machine's noise:

- start-up: seconds from spawning the server to the answer of tools/list (initialize included), in a project the
  server has served before, and in a fresh one (an empty `.code-intel/`).
- search_text, find_references and analyze_impact with their default max_results, each beside raw rg doing the
  search the call rests on (`rg -n --column` for search_text; `rg --json -w` on the symbol for the other two).

Corpus: a public repository checked out outside this one (default /work/corpora/fastapi at the commit named in
docs/benchmarks.md); `.code-intel/config.json` there turns the index sync at start-up off (it would compete with
the calls for the CPU). The figures printed are medians with the spread (25th-75th percentile) and the slowest beside them.

    .venv/bin/python benchmarks/default_calls.py [--server DIR ...] [--corpus DIR] [--runs 15] [--starts 7]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

REPO = Path(__file__).resolve().parent.parent
SYMBOL = "Depends"
IMPACT_FILE = "fastapi/param_functions.py"
CALLS: dict[str, dict[str, Any]] = {
    "search_text": {"pattern": SYMBOL},
    "find_references": {"symbol": SYMBOL},
    "analyze_impact": {"files": [IMPACT_FILE], "symbols": [SYMBOL]},
}
# the rg setup.sh installs beside the interpreter, as the server finds it
RG = str(Path(sys.executable).parent / "rg") if (Path(sys.executable).parent / "rg").exists() else shutil.which("rg") or "rg"
RAW_RG = {
    "search_text": ["--line-number", "--column", "-e", SYMBOL],
    "find_references": ["--json", "-w", "-e", SYMBOL],
    "analyze_impact": ["--json", "-w", "-e", SYMBOL],
}


def import_path(server: Path) -> Path:
    """A folder to put first on PYTHONPATH so that `code_intel` is that checkout's tools/ folder (the editable
    install maps it to this checkout's only)."""
    folder = Path(tempfile.gettempdir()) / f"code-intel-bench-{hashlib.sha1(str(server).encode()).hexdigest()[:10]}"
    folder.mkdir(exist_ok=True)
    link = folder / "code_intel"
    if not link.exists():
        link.symlink_to(server / "tools")
    return folder


def server_params(server: Path, project: Path) -> Any:
    from mcp.client.stdio import StdioServerParameters

    argv = [sys.executable, str(server / "code_intel_server.py"), "--project", str(project), "--log-level", "WARNING"]
    # stderr dropped: the client would copy it to ours
    command = f"PYTHONPATH={shlex.quote(str(import_path(server)))} exec {shlex.join(argv)} 2>/dev/null"
    return StdioServerParameters(command="/bin/sh", args=["-c", command], cwd=str(project))


async def start_to_list(server: Path, project: Path) -> tuple[float, int]:
    """Seconds from spawning the server to its tools/list answer, and how many tools it listed."""
    from mcp import Client

    started = time.perf_counter()
    async with Client(server_params(server, project), read_timeout_seconds=60) as client:
        listing = await client.list_tools()
        return time.perf_counter() - started, len(listing.tools)


async def timed_calls(server: Path, project: Path, runs: int) -> dict[str, list[float]]:
    """Seconds per call of each CALLS entry through one client session (two untimed calls each first)."""
    from mcp import Client

    out: dict[str, list[float]] = {}
    async with Client(server_params(server, project), read_timeout_seconds=120) as client:
        await client.list_tools()
        for tool, args in CALLS.items():
            for _ in range(2):
                result = await client.call_tool(tool, args)
                if result.is_error:
                    raise RuntimeError(f"{tool} refused: {result.content}")
            samples = []
            for _ in range(runs):
                started = time.perf_counter()
                await client.call_tool(tool, args)
                samples.append(time.perf_counter() - started)
            out[tool] = samples
    return out


def raw_rg(project: Path, runs: int) -> dict[str, list[float]]:
    out = {}
    for tool, args in RAW_RG.items():
        argv = [RG, "--no-config", *args, "--", "."]
        subprocess.run(argv, cwd=project, capture_output=True, check=False)
        samples = []
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run(argv, cwd=project, capture_output=True, check=False)
            samples.append(time.perf_counter() - started)
        out[tool] = samples
    return out


def spread(samples: list[float], scale: float = 1000) -> str:
    """Median (25th-75th percentile) max; seconds times `scale`."""
    q = statistics.quantiles(samples, n=4) if len(samples) > 1 else [samples[0]] * 3
    digits = 1 if scale == 1000 else 3
    return (f"{statistics.median(samples) * scale:.{digits}f} ({q[0] * scale:.{digits}f}-{q[2] * scale:.{digits}f})"
            f" max {max(samples) * scale:.{digits}f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", action="append", type=Path, help="a checkout holding code_intel_server.py")
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpora/fastapi"))
    parser.add_argument("--runs", type=int, default=15, help="timed calls of each tool per round")
    parser.add_argument("--starts", type=int, default=7, help="spawns per round")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    servers = [path.resolve() for path in (args.server or [REPO])]
    corpus = args.corpus.resolve()
    (corpus / ".code-intel").mkdir(exist_ok=True)
    (corpus / ".code-intel" / "config.json").write_text(json.dumps({"sync_on_start": False}), encoding="utf-8")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=corpus, capture_output=True, text=True)
    print(f"corpus {corpus} at {commit.stdout.strip() or '?'}; {args.rounds} rounds, servers alternating")

    warm: dict[Path, list[float]] = {s: [] for s in servers}
    fresh: dict[Path, list[float]] = {s: [] for s in servers}
    calls: dict[Path, dict[str, list[float]]] = {s: {tool: [] for tool in CALLS} for s in servers}
    rg: dict[str, list[float]] = {tool: [] for tool in CALLS}
    with tempfile.TemporaryDirectory(prefix="code-intel-start-") as tmp:
        for server in servers:  # untimed: .pyc files, the OS cache, whatever a server keeps in the project
            anyio.run(start_to_list, server, corpus)
        for round_number in range(args.rounds):
            for server in servers if round_number % 2 == 0 else reversed(servers):
                for number in range(args.starts):
                    warm[server].append(anyio.run(start_to_list, server, corpus)[0])
                    project = Path(tmp) / f"{server.name}-{round_number}-{number}"
                    (project / ".code-intel").mkdir(parents=True)
                    fresh[server].append(anyio.run(start_to_list, server, project)[0])
                for tool, samples in anyio.run(timed_calls, server, corpus, args.runs).items():
                    calls[server][tool] += samples
            for tool, samples in raw_rg(corpus, args.runs).items():
                rg[tool] += samples

    print("spawn -> tools/list through the Python SDK client, seconds, median (25th-75th percentile) max:")
    for server in servers:
        print(f"  {server}: served before {spread(warm[server], 1)}   fresh project {spread(fresh[server], 1)}")
    print("default-size calls through the Python SDK client (call_tool), ms, median (25th-75th percentile) max,"
          " and the ratio of medians to raw rg:")
    for tool in CALLS:
        raw = statistics.median(rg[tool])
        print(f"  {tool} {json.dumps(CALLS[tool])}: raw rg {spread(rg[tool])}  [rg {' '.join(RAW_RG[tool])}]")
        for server in servers:
            print(f"    {server}: {spread(calls[server][tool])}  {statistics.median(calls[server][tool]) / raw:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
