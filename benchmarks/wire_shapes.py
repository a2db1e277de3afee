"""What the shape of a large search_text answer costs through each client (#16): the floor of the answer as it is,
beside the same matches in two smaller shapes, each from a canned server (benchmarks/wire_canned.py) that lists a
matching outputSchema, timed exactly as benchmarks/wire.py times its floors, in the same run.

Shapes, for every match of one pattern (default: `return` over the stdlib corpus, 3,059 matches):
- as it is: {"matches": [{"file", "line", "column", "text"}, ...], ...}, the contract's shape (every item carries
  its file and line);
- grouped: {"files": [{"file", "matches": [{"line", "column", "text"}, ...]}, ...], ...}, each path once;
- grouped rows: {"files": [{"file", "lines": [[line, column, text], ...]}, ...], ...}, no key per match.
Each is sent as our server sends an answer: structured content and the same JSON as text.

It prints, per shape and client, the floor (end to end minus that server's empty round trip) and the ratio a
server would reach whose own work cost nothing but the rg run (best = (rg + floor) / rg), beside rg's time on
the same search. Ours also pays its own work above rg (in server, see wire.py), so best is a lower bound.

    .venv/bin/python benchmarks/wire_shapes.py [--files 175] [--runs 21] [--pattern return] [--ts-sdk DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import wire  # noqa: E402


def shapes(answer: dict[str, Any], schema: dict[str, Any]) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """shape name -> (the answer in that shape, an outputSchema it meets)."""
    rest = {key: value for key, value in answer.items() if key != "matches"}
    by_file: dict[str, list[dict[str, Any]]] = {}
    for match in answer["matches"]:
        by_file.setdefault(match["file"], []).append(match)
    grouped = {**rest, "files": [{"file": file, "matches": [{key: m[key] for key in ("line", "column", "text")}
                                                            for m in matches]}
                                 for file, matches in by_file.items()]}
    rows = {**rest, "files": [{"file": file, "lines": [[m["line"], m["column"], m["text"]] for m in matches]}
                              for file, matches in by_file.items()]}
    others = {key: {} for key in rest}

    def files_schema(inner: str, item: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "required": ["files"], "properties": {**others, "files": {
            "type": "array", "items": {"type": "object", "required": ["file", inner], "properties": {
                "file": {"type": "string"}, inner: {"type": "array", "items": item}}}}}}

    match_schema = {"type": "object", "required": ["line", "column", "text"], "properties": {
        "line": {"type": "integer"}, "column": {"type": "integer"}, "text": {"type": "string"}}}
    row_schema = {"type": "array", "minItems": 3, "maxItems": 3}  # the same in draft 7 (ajv) and 2020-12
    return {"as it is": (answer, schema), "grouped": (grouped, files_schema("matches", match_schema)),
            "grouped rows": (rows, files_schema("lines", row_schema))}


async def our_listing(corpus: Path) -> list[dict[str, Any]]:
    from mcp import Client

    from code_intel.server.app import CodeIntelApp
    from code_intel_server import build_server

    app = CodeIntelApp.for_path(corpus)
    try:
        async with Client(build_server(app)) as client:
            return wire.listed(await client.list_tools())
    finally:
        app.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=175)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--pattern", default="return")
    parser.add_argument("--ts-sdk", type=Path, default=wire.TS_SDK)
    args = parser.parse_args()

    from code_intel.core.config import Config
    from code_intel.core.project import ProjectRoot
    from code_intel.explore.service import Explorer
    from code_intel_server import result_json

    corpus = wire.served_corpus(args.files)
    label = f"search_text {args.pattern}"
    plan: wire.Plan = {label: ({"pattern": args.pattern, "max_results": 5000}, None)}
    explorer = Explorer(ProjectRoot.from_args(corpus), lambda: Config(sync_on_start=False))
    answer = json.loads(result_json(explorer.search_text(args.pattern, max_results=5000)))
    explorer.close()
    rg_ms = wire.raw_engine(corpus, plan, args.runs)[label][0]
    entry = next(tool for tool in anyio.run(our_listing, corpus) if tool["name"] == "search_text")
    print(f"{label}: {len(answer['matches'])} matches; rg alone {rg_ms:.1f} ms (median of {args.runs})")
    print(f"{'shape':<14}{'bytes':>9}   {'client':<18}{'floor':>8}{'best':>8}")
    for name, (data, schema) in shapes(answer, entry["outputSchema"]).items():
        given = corpus / ".code-intel" / f"wire-shape-{name.replace(' ', '-')}.json"
        given.write_text(json.dumps({"tools": [{**entry, "outputSchema": schema}], "answers": {"search_text": data}}),
                         encoding="utf-8")
        argv = [sys.executable, str(HERE / "wire_canned.py"), str(given)]
        floors: dict[str, float] = {}
        python, _ = anyio.run(wire.python_session, corpus, argv, plan, args.runs)
        floors["Python SDK client"] = python[label]["e2e"] - python["ping"]
        ts = wire.over_ts_client(corpus, plan, args.runs, argv, {}, args.ts_sdk)
        if not isinstance(ts, str):
            floors["TS SDK client"] = ts[0][label]["e2e"] - ts[0]["ping"]
        pipe = wire.over_raw_pipe(corpus, plan, args.runs, argv)
        floors["bare pipe"] = pipe[label]["e2e"] - pipe["ping"]
        size = len(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode())
        for number, (client, floor) in enumerate(floors.items()):
            first = f"{name:<14}{size:>9}" if number == 0 else " " * 23
            print(f"{first}   {client:<18}{floor:>6.1f}ms{(rg_ms + floor) / rg_ms:>7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
