"""Exploration answers on a large repository (sympy, about 760,000 lines of Python): time and size of each call.

Targets (issue #40): every exploration call answers within 2 s on this machine and within its default budget
(about 1,500 tokens, characters / 3.5), and `analyze_impact sympy/core/basic.py` answers under 6 KB by default.
Beside each answer: what raw `rg` prints for the same question, measured in the same run.

The tree is sympy at tag sympy-1.14.0 (commit 16fa855354eb7bcabd3fe10993841e03b1382692), checked out outside
the repository:
    fetch github:sympy/sympy, then
    mkdir -p /work/corpora/sympy && git --git-dir=/work/.mirror/sympy+sympy/repo archive sympy-1.14.0 \
        | tar -x -C /work/corpora/sympy

The server is driven through the `mcp` package's stdio client. Its first call builds the definition index
(timed apart, as "index build"); every call is then timed on its first run ("first") and again after WARM_CALLS
runs (the agent's usual case: the index and the parse and comment caches warm).

Run: .venv/bin/python benchmarks/big_repo.py [--tree /work/corpora/sympy]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PINNED = "16fa855354eb7bcabd3fe10993841e03b1382692"
BUDGET_TOKENS = 1500
SLACK_TOKENS = 200  # the budget bounds the listed part; totals and hints come on top
IMPACT_LIMIT_BYTES = 6 * 1024
TIME_LIMIT_S = 2.0
WARM_CALLS = 2  # calls before the timed one: a big first answer leaves its parse and comment maps to later calls

CALLS: list[tuple[str, dict[str, Any], list[str] | None]] = [
    ("search_text", {"pattern": "def sympify"}, ["-n", "def sympify"]),
    ("search_text", {"pattern": "self"}, ["-n", "self"]),
    ("search_files", {"pattern": "**/basic.py"}, ["--files", "-g", "**/basic.py"]),
    ("find_definitions", {"symbol": "sympify"}, ["-n", r"^\s*def sympify\b"]),
    ("find_definitions", {"symbol": "Basic"}, ["-n", r"^\s*class Basic\b"]),
    ("find_references", {"symbol": "sympify"}, ["-n", "-w", "sympify"]),
    ("find_references", {"symbol": "Basic"}, ["-n", "-w", "Basic"]),
    ("get_symbols", {"path": "sympy/core/basic.py"}, None),
    ("analyze_structure", {"path": "sympy/core/basic.py"}, None),
    ("get_function_at_line", {"path": "sympy/core/basic.py", "line": 500}, None),
    ("analyze_impact", {"files": ["sympy/core/basic.py"]}, ["-l", "-w", "basic"]),
    ("analyze_impact", {"files": ["sympy/core/basic.py"], "symbols": ["Basic.subs"]}, ["-n", "-w", "subs"]),
    ("query", {"question": "where does sympify turn a string into an expression?"}, None),
]


def tokens(chars: int) -> int:
    return math.ceil(chars / 3.5)


def rg_chars(tree: Path, args: list[str]) -> int:
    rg = Path(sys.executable).parent / "rg"
    binary = str(rg) if rg.exists() else (shutil.which("rg") or "rg")
    out = subprocess.run([binary, *args], cwd=tree, capture_output=True, check=False).stdout
    return len(out)


async def run(tree: Path) -> list[dict[str, Any]]:
    import mcp_types as types
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=[str(REPO / "code_intel_server.py"), "--project",
                                                                 str(tree)], cwd=str(tree), env=dict(os.environ))
    rows = []
    async with Client(params, read_timeout_seconds=900) as client:
        started = time.perf_counter()
        await client.call_tool("find_definitions", {"symbol": "Basic"})
        print(f"index build (first find_definitions): {time.perf_counter() - started:.1f} s", flush=True)
        for tool, args, rg_args in CALLS:
            started = time.perf_counter()
            await client.call_tool(tool, args)
            first = time.perf_counter() - started
            for _ in range(WARM_CALLS - 1):
                await client.call_tool(tool, args)
            started = time.perf_counter()
            result = await client.call_tool(tool, args)
            seconds = time.perf_counter() - started
            text = "".join(p.text for p in result.content if isinstance(p, types.TextContent))
            size = len(text.encode("utf-8"))
            raw = rg_chars(tree, rg_args) if rg_args else None
            ok_size = tokens(len(text)) <= BUDGET_TOKENS + SLACK_TOKENS
            if tool == "analyze_impact" and "symbols" not in args:
                ok_size = size < IMPACT_LIMIT_BYTES
            rows.append({"tool": tool, "args": args, "first_s": round(first, 2), "s": round(seconds, 2), "bytes": size, "tokens": tokens(len(text)),
                         "rg_tokens": tokens(raw) if raw is not None else None,
                         "ok": seconds <= TIME_LIMIT_S and ok_size, "error": bool(result.is_error)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", type=Path, default=Path("/work/corpora/sympy"))
    args = parser.parse_args()
    if not (args.tree / "sympy" / "core" / "basic.py").exists():
        sys.exit(f"no sympy tree at {args.tree}; see this script's docstring for the commands that make it")
    rows = asyncio.run(run(args.tree))
    print(f"{'call':64} {'first':>6} {'warm':>6} {'bytes':>7} {'tok':>6} {'rg tok':>7}  ok")
    for r in rows:
        call = f"{r['tool']} {r['args']}"[:64]
        rg = "" if r["rg_tokens"] is None else str(r["rg_tokens"])
        print(f"{call:64} {r['first_s']:>6.2f} {r['s']:>6.2f} {r['bytes']:>7} {r['tokens']:>6} {rg:>7}  "
              f"{'yes' if r['ok'] else 'NO'}"
              + ("  (refused)" if r["error"] else ""))
    print(f"targets: <= {TIME_LIMIT_S} s each; <= {BUDGET_TOKENS} tokens (+{SLACK_TOKENS} for totals and hints); "
          f"analyze_impact of sympy/core/basic.py < {IMPACT_LIMIT_BYTES} bytes. Tree: sympy {PINNED[:12]}")


if __name__ == "__main__":
    main()
