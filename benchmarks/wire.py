"""The cost of a tool call on the wire: each tool through real stdio MCP clients, beside its raw engine.

For search_text (every match of a pattern), get_symbols (a large file) and analyze_impact (one module),
the script first runs the tool in this process with the engines spied on, to learn exactly what the
tool asks of them in a steady-state call: each ripgrep/ctags command line and each tree-sitter parse.
It then times those same engine runs bare (the raw engine), and times the tool end to end against a
spawned server, each client beside its own empty round trip (resources/list; the server answers no ping).
The figure to compare is (end to end - round trip) / raw engine; the target is 1.5x at most. Columns:

- raw engine: the recorded ripgrep/ctags runs and tree-sitter parses, timed bare.
- in server: the time the server's own log gives the call (arguments to answer, on its worker thread).
- end to end, - round trip, ratio: through the `mcp` package's (Python SDK's) stdio client, with a plain
  tools/call request (no output-schema validation); the rest beyond "in server" is the SDK's dispatch and
  serialisation, the pipe, and the client's parsing.
- + client validation: the same call through the Python client's call_tool, which also validates the
  structured content against the tool's outputSchema (end to end, round trip included).
- TS SDK client, ratio: the same calls through the TypeScript SDK's client (@modelcontextprotocol/sdk, the
  library Claude Code is built on), run by node from benchmarks/wire_client.mjs: same server command,
  working folder and environment, listTools once, then client.callTool, which parses the answer with the
  SDK's schemas and validates structuredContent against the tool's outputSchema (ajv), as Claude Code's
  client does; minus its own round trip. Left out, saying why, when node or the SDK is missing (the SDK
  comes with the clients tests/clients installs into .cache/clients). Lines above the table confirm that
  every answer was validated (and that a deliberately wrong schema was refused) and that the answers are
  the Python client's.
- bytes: the size of the answer's text content (characters).
- bare pipe, ratio: the same calls with no client library (JSON-RPC lines written, the answer line read and
  not parsed), so it shows the server's side and the pipe without any client's own parsing.
- canned, best: the same answer from a server that has it ready (benchmarks/wire_canned.py) over the bare
  pipe, minus its round trip; best is (raw engine + canned) / raw engine.

Corpus: standard-library files copied to benchmarks/.corpus/stdlib (git-ignored), as benchmarks/explore.py.

    .venv/bin/python benchmarks/wire.py [--files 175] [--runs 15] [--pattern REGEX ...] [--profile TOOL] [--ts-sdk DIR]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from explore import build_corpus  # noqa: E402

from tools.config import Config  # noqa: E402
from tools.explore import syntax  # noqa: E402
from tools.explore.impact import analyze_impact  # noqa: E402
from tools.explore.service import Explorer  # noqa: E402
from tools.project import ProjectRoot  # noqa: E402

TARGET = 1.5
DEFAULT_PATTERNS = [r"raise \w+Error", "return"]
PLAIN_ONLY = {"--line-number", "--column", "--no-heading", "--with-filename", "--color", "never"}
PARALLEL = 4  # tools.explore.impact.PARALLEL_LOOKUPS
# the TypeScript SDK that tests/clients/conftest.py installs (a dependency of the pinned MCP Inspector)
TS_SDK = REPO / ".cache" / "clients" / "node_modules" / "@modelcontextprotocol" / "sdk"


# ------------------------------------------------------------------ raw engine
class EngineSpy:
    """Records the engine work of the calls made inside `recording()`: command lines and parsed sources."""

    def __init__(self) -> None:
        self.commands: list[list[str]] = []
        self.parses: list[tuple[str, bytes]] = []

    @contextmanager
    def recording(self) -> Iterator[EngineSpy]:
        real_popen, real_get_parser = subprocess.Popen, syntax.get_parser
        spy = self

        class Popen(real_popen):  # type: ignore[misc, valid-type]
            def __init__(self, args: Any, *rest: Any, **kwargs: Any) -> None:
                spy.commands.append([str(a) for a in args])
                super().__init__(args, *rest, **kwargs)

        class Parser:
            def __init__(self, language: str) -> None:
                self.language, self.inner = language, real_get_parser(language)

            def parse(self, source: bytes) -> Any:
                spy.parses.append((self.language, source))
                return self.inner.parse(source)

        subprocess.Popen = Popen  # type: ignore[misc]
        syntax.get_parser = Parser  # type: ignore[assignment]
        try:
            yield self
        finally:
            subprocess.Popen = real_popen  # type: ignore[misc]
            syntax.get_parser = real_get_parser

    def replay(self, cwd: Path) -> float:
        """Seconds to run the recorded engine work bare: the commands four at a time (the parallelism
        analyze_impact uses for its lookups, which only makes the raw figure smaller), then the parses."""
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
            list(pool.map(lambda argv: subprocess.run(argv, cwd=cwd, capture_output=True, check=False), self.commands))
        for language, source in self.parses:
            syntax.get_parser(language).parse(source)
        return time.perf_counter() - started

    def describe(self) -> str:
        engines = [Path(argv[0]).name for argv in self.commands] + [f"tree-sitter ({lang})" for lang, _ in self.parses]
        counts = {name: engines.count(name) for name in dict.fromkeys(engines)}
        return ", ".join(f"{n} x {name}" if n > 1 else name for name, n in counts.items()) or "none"


def touch(path: Path | None) -> None:
    """A new mtime (before each call of a row that names a file): the next call parses the file again, as it
    would after an edit."""
    if path is not None:
        now = time.time_ns()
        os.utime(path, ns=(now, now))


# ------------------------------------------------------------------ the calls
Plan = dict[str, tuple[dict[str, Any], Path | None]]


def calls(corpus: Path, patterns: list[str], big: str, module: str) -> Plan:
    """row label -> (arguments, the file touched before each call or None); a label's first word is the tool."""
    plan: Plan = {f"search_text {p}": ({"pattern": p, "max_results": 5000}, None) for p in patterns}
    # the call as an agent usually makes it: the default max_results (100), however many lines match
    plan[f"search_text {patterns[-1]} (100)"] = ({"pattern": patterns[-1]}, None)
    plan["get_symbols"] = ({"path": big}, corpus / big)
    plan["analyze_impact"] = ({"files": [module]}, corpus / module)
    return plan


def ratio(ms: float, raw_ms: float) -> float:
    return ms / raw_ms if raw_ms else float("inf")


def tool_of(label: str) -> str:
    return label.split(" ", 1)[0]


def in_process(explorer: Explorer, label: str, args: dict[str, Any]) -> Any:
    tool = tool_of(label)
    if tool == "analyze_impact":
        return analyze_impact(explorer, args["files"], None)
    return getattr(explorer, tool)(**args)


def raw_engine(corpus: Path, plan: Plan, runs: int) -> dict[str, tuple[float, str]]:
    """tool -> (median raw-engine milliseconds, what the engine work is)."""
    explorer = Explorer(ProjectRoot.from_args(corpus), lambda: Config(sync_on_start=False))
    explorer.definition_index.refresh()  # steady state: the project's definition index exists
    out = {}
    for label, (args, touched) in plan.items():
        touch(touched)
        in_process(explorer, label, args)  # warm caches the tool keeps between calls
        touch(touched)
        spy = EngineSpy()
        with spy.recording():
            in_process(explorer, label, args)
        samples = [spy.replay(corpus) for _ in range(runs)]
        out[label] = (statistics.median(samples) * 1000, spy.describe())
        if tool_of(label) == "search_text":  # the engine search_text ran before: rg --json on the same search
            as_json = EngineSpy()
            as_json.commands = [["--json" if a == "--null" else a for a in argv if a not in PLAIN_ONLY] for argv in spy.commands]
            out[label + " (rg --json)"] = (statistics.median(as_json.replay(corpus) for _ in range(runs)) * 1000, "")
    explorer.close()
    return out


# ------------------------------------------------------------------ the wire
def server_command(corpus: Path, server: Path) -> list[str]:
    """The command line both SDK clients spawn (in the corpus, with their SDK's default environment). INFO logs
    one line per call with the time it took inside the server; stderr is dropped, the log file read."""
    command = f"exec {shlex.quote(sys.executable)} {shlex.quote(str(server / 'code_intel_server.py'))} " \
              f"--project {shlex.quote(str(corpus))} --log-level INFO 2>/dev/null"
    return ["/bin/sh", "-c", command]


async def over_stdio(corpus: Path, plan: Plan, runs: int, server: Path) -> dict[str, Any]:
    import mcp_types as types
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    shell, *command = server_command(corpus, server)
    params = StdioServerParameters(command=shell, args=command, cwd=str(corpus))
    log_file = corpus / ".code-intel" / "logs" / "server.log"
    figures: dict[str, Any] = {}
    async with Client(params, read_timeout_seconds=120) as client:
        await client.list_tools()  # the client learns the output schemas (it validates results against them)

        async def plain(tool: str, args: dict[str, Any]) -> types.CallToolResult:
            """tools/call without the client's output-schema validation: the server's and the wire's cost."""
            request = types.CallToolRequest(params=types.CallToolRequestParams(name=tool, arguments=args))
            return await client.session.send_request(request, types.CallToolResult)

        pings = []
        for _ in range(runs * 2):  # the server answers no ping: resources/list (an empty list) is the bare round trip
            started = time.perf_counter()
            await client.list_resources()
            pings.append(time.perf_counter() - started)
        figures["ping"] = statistics.median(pings) * 1000
        for label, (args, touched) in plan.items():
            tool = tool_of(label)
            for _ in range(2):  # warm-up: lazy imports, caches
                touch(touched)
                await plain(tool, args)
            samples, validated = [], []
            text = ""
            logged = log_file.stat().st_size if log_file.exists() else 0
            for _ in range(runs):
                touch(touched)
                started = time.perf_counter()
                result = await plain(tool, args)
                samples.append(time.perf_counter() - started)
                text = "".join(part.text for part in result.content if isinstance(part, types.TextContent))
                if result.is_error:
                    raise SystemExit(f"{tool} refused: {text[:300]}")
                touch(touched)
                started = time.perf_counter()
                await client.call_tool(tool, args)
                validated.append(time.perf_counter() - started)
            with log_file.open("rb") as handle:
                handle.seek(logged)
                inside = [float(m.group(1)) for m in re.finditer(rf"{tool} ok in (\d+) ms".encode(), handle.read())]
            figures[label] = {"e2e": statistics.median(samples) * 1000, "validated": statistics.median(validated) * 1000,
                             "server": statistics.median(inside) if inside else float("nan"),
                             "bytes": len(text), "utf8": len(text.encode()), "structured": result.structured_content}
    return figures


def over_ts_client(corpus: Path, plan: Plan, runs: int, server: Path, sdk: Path) -> dict[str, Any] | str:
    """The same calls through the TypeScript SDK's client (benchmarks/wire_client.mjs, run by node), the client
    library Claude Code is built on: the same server command line, working folder and default environment as
    the Python client, each call made with client.callTool after one listTools, so the client validates every
    structuredContent against the tool's outputSchema. Returns its figures, or why the column is left out."""
    if shutil.which("node") is None:
        return "node is not on PATH"
    if not (sdk / "package.json").is_file():
        return (f"no @modelcontextprotocol/sdk at {sdk} (`.venv/bin/pytest tests/clients` installs the pinned "
                f"clients, with it, into .cache/clients; or pass --ts-sdk)")
    shell, *command = server_command(corpus, server)
    request = {"command": shell, "args": command, "cwd": str(corpus), "runs": runs,
               "calls": [{"label": label, "name": tool_of(label), "arguments": args, "touch": str(touched) if touched else None}
                         for label, (args, touched) in plan.items()]}
    done = subprocess.run(["node", str(HERE / "wire_client.mjs"), str(sdk)], input=json.dumps(request),
                          capture_output=True, text=True, timeout=1200, check=False)
    if done.returncode != 0:
        raise SystemExit(f"benchmarks/wire_client.mjs failed ({done.returncode}):\n{done.stderr[-3000:]}")
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def ts_checks(ts: dict[str, Any], wire: dict[str, Any]) -> list[str]:
    """What the TS client's answers show: that it validated them, and that they are the Python client's answers."""
    unchecked = [label for label, row in ts["calls"].items() if not row["validated"]]
    lines = [f"TS SDK client: @modelcontextprotocol/sdk {ts['sdk']}; empty round trip (resources/list) {ts['ping']:.2f} ms"]
    if unchecked or ts["wrong_schema"] is None:
        lines.append(f"  WARNING: structured content NOT validated (no validator for {unchecked or 'none'}; "
                     f"wrong schema refused: {ts['wrong_schema'] is not None})")
    else:
        lines.append("  every answer validated against its tool's outputSchema; the same call against a wrong schema "
                     f"was refused: {ts['wrong_schema']}")
    differ = [label for label, row in ts["calls"].items()
              if row["structured"] != wire[label]["structured"] or row["text_bytes"] != wire[label]["utf8"]]
    for label in differ:
        row, mine = ts["calls"][label], wire[label]
        counts = "" if row["matches"] is None else f", {row['matches']} against {len(mine['structured']['matches'])} matches"
        lines.append(f"  WARNING {label}: not the Python client's answer ({row['text_bytes']} against {mine['utf8']} "
                     f"bytes of text{counts})")
    if not differ:
        lines.append("  every answer identical to the Python client's (same structured content, same text size)")
    return lines


def over_raw_pipe(corpus: Path, plan: Plan, runs: int, argv: list[str]) -> dict[str, Any]:
    """The same calls over the same stdio transport with no MCP client library: each request is written as
    one JSON-RPC line and timed until its answer line has been read, unparsed. This is the server's side
    and the pipe; what a client spends parsing and validating the answer is left out (clients differ
    there: the Python SDK's client builds pydantic models, Claude Code and Codex are not Python)."""
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=corpus)
    assert process.stdin is not None and process.stdout is not None
    pipe_in, pipe_out = process.stdin, process.stdout
    ids = iter(range(1, 1_000_000))

    def request(method: str, params: dict[str, Any]) -> bytes:
        number = next(ids)
        line = json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}) + "\n"
        pipe_in.write(line.encode())
        pipe_in.flush()
        tail = f'"id":{number}'.encode()
        while True:  # notifications (progress, logs) may come first; answers are compact JSON lines
            answer = pipe_out.readline()
            if not answer:
                raise SystemExit("the server closed its output")
            if tail in answer:
                return answer

    figures: dict[str, Any] = {}
    try:
        request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "wire-benchmark", "version": "0"}})
        pipe_in.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        pipe_in.flush()
        request("tools/list", {})
        pings = []
        for _ in range(runs * 2):
            started = time.perf_counter()
            request("resources/list", {})
            pings.append(time.perf_counter() - started)
        figures["ping"] = statistics.median(pings) * 1000
        for label, (args, touched) in plan.items():
            call = {"name": tool_of(label), "arguments": args}
            for _ in range(2):
                touch(touched)
                request("tools/call", call)
            samples = []
            for _ in range(runs):
                touch(touched)
                started = time.perf_counter()
                answer = request("tools/call", call)
                samples.append(time.perf_counter() - started)
            figures[label] = {"e2e": statistics.median(samples) * 1000, "line_bytes": len(answer)}
    finally:
        process.kill()
        process.wait()
    return figures


def canned_floor(corpus: Path, plan: Plan, runs: int, answers: dict[str, Any]) -> dict[str, Any]:
    """The bare-pipe timing of a server that has each answer ready (benchmarks/wire_canned.py: the same SDK
    server class, the same answer as text plus structured content, no work): what the SDK's serialisation and
    the pipe cost for an answer of that size, whoever computes it."""
    canned = corpus / ".code-intel" / "wire-canned.json"
    figures: dict[str, Any] = {}
    for label in plan:  # one tool name per server: rows of the same tool differ in their answer
        canned.write_text(json.dumps({tool_of(label): answers[label]}), encoding="utf-8")
        one = {label: plan[label]}
        measured = over_raw_pipe(corpus, one, runs, [sys.executable, str(HERE / "wire_canned.py"), str(canned)])
        figures[label] = measured[label]
        figures.setdefault("ping", measured["ping"])
    return figures


# ------------------------------------------------------------------ profiling
def profile(corpus: Path, tool: str, args: dict[str, Any], touched: Path | None, runs: int) -> None:
    """The tool through the real MCP layer in this process (in-memory client, no output validation), under cProfile."""
    import mcp_types as types
    from mcp import Client

    import code_intel_server
    from code_intel_server import build_server
    from tools.app import CodeIntelApp

    worker_profiles: list[cProfile.Profile] = []
    real_run = code_intel_server.CodeIntelServer._run

    def profiled_run(self: Any, *rest: Any) -> Any:  # the tool and its answer run on a worker thread
        worker = cProfile.Profile()
        worker.enable()
        try:
            return real_run(self, *rest)
        finally:
            worker.disable()
            worker_profiles.append(worker)

    code_intel_server.CodeIntelServer._run = profiled_run  # type: ignore[method-assign, assignment]

    async def session() -> None:
        app = CodeIntelApp.for_path(corpus)
        try:
            async with Client(build_server(app)) as client:
                request = types.CallToolRequest(params=types.CallToolRequestParams(name=tool, arguments=args))
                touch(touched)
                await client.session.send_request(request, types.CallToolResult)
                profiler = cProfile.Profile()
                profiler.enable()
                for _ in range(runs):
                    touch(touched)
                    await client.session.send_request(request, types.CallToolResult)
                profiler.disable()
        finally:
            app.close()
        print("=== event loop thread (the SDK: dispatch, result serialisation, transport)")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        print("=== worker thread (the tool function and call_tool's answer)")
        stats = pstats.Stats(worker_profiles[-runs])
        for extra in worker_profiles[-runs + 1:]:
            stats.add(extra)
        stats.sort_stats("tottime").print_stats(25)

    anyio.run(session)


# ------------------------------------------------------------------ main
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=175, help="standard-library files in the corpus")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--pattern", action="append", help="search_text pattern, repeatable (all its matches are "
                        "asked for); default: a few hundred matches and a few thousand")
    parser.add_argument("--profile", help="a row label (e.g. get_symbols, or 'search_text return'): profile it instead")
    parser.add_argument("--server", type=Path, default=REPO,
                        help="checkout whose code_intel_server.py to spawn (e.g. a worktree of an older commit)")
    parser.add_argument("--ts-sdk", type=Path, default=TS_SDK,
                        help="installed @modelcontextprotocol/sdk package for the TS SDK client column (default: %(default)s)")
    args = parser.parse_args()

    corpus = build_corpus(args.files)
    state = corpus / ".code-intel"
    state.mkdir(exist_ok=True)
    (state / "config.json").write_text(json.dumps({"sync_on_start": False}), encoding="utf-8")
    files = sorted(p for p in corpus.rglob("*.py") if ".code-intel" not in p.parts)
    big = max(files, key=lambda p: p.stat().st_size).relative_to(corpus).as_posix()
    module = next((p for p in files if p.name == "shlex.py"), files[len(files) // 2]).relative_to(corpus).as_posix()
    plan = calls(corpus, args.pattern or DEFAULT_PATTERNS, big, module)

    if args.profile:
        tool_args, touched = plan[args.profile]
        profile(corpus, tool_of(args.profile), tool_args, touched, args.runs)
        return 0

    raw = raw_engine(corpus, plan, args.runs)
    server = args.server.resolve()
    wire = anyio.run(over_stdio, corpus, plan, args.runs, server)
    ts = over_ts_client(corpus, plan, args.runs, server, args.ts_sdk.resolve())
    bare = over_raw_pipe(corpus, plan, args.runs, [sys.executable, str(server / "code_intel_server.py"), "--project", str(corpus)])
    floor = canned_floor(corpus, plan, args.runs, {label: wire[label]["structured"] for label in plan})
    size = sum(p.stat().st_size for p in files)
    lines = (corpus / big).read_text(encoding="utf-8", errors="replace").count("\n")
    print(f"corpus: {len(files)} files, {size / 1e6:.1f} MB (benchmarks/.corpus/stdlib); {args.runs} runs, medians")
    for label in plan:
        if tool_of(label) == "search_text":
            answer = wire[label]["structured"]
            print(f"{label}: {len(answer['matches'])} of its {answer['total_matches']} matches")
    print(f"get_symbols: {big} ({lines} lines); analyze_impact: {module}")
    print(f"server: {server}; empty round trip (resources/list): {wire['ping']:.2f} ms")
    if isinstance(ts, str):
        print(f"TS SDK client column left out: {ts}")
    else:
        print("\n".join(ts_checks(ts, wire)))
    print()
    header = (f"{'call':<30}{'raw engine':>12}{'in server':>11}{'end to end':>12}{'- round trip':>14}{'ratio':>8}"
              f"{'+ client validation':>21}" + ("" if isinstance(ts, str) else f"{'TS SDK client':>15}{'ratio':>8}") +
              f"{'bytes':>10}{'bare pipe':>11}{'ratio':>8}{'canned':>9}{'best':>7}")
    print(header)
    print("-" * len(header))
    worst = worst_ts = worst_piped = 0.0
    for tool in plan:
        raw_ms, engines = raw[tool]

        e2e = wire[tool]["e2e"]
        beyond = e2e - wire["ping"]
        worst = max(worst, ratio(beyond, raw_ms))
        piped = bare[tool]["e2e"] - bare["ping"]
        worst_piped = max(worst_piped, ratio(piped, raw_ms))
        canned = floor[tool]["e2e"] - floor["ping"]
        typescript = ""
        if not isinstance(ts, str):
            ts_beyond = ts["calls"][tool]["e2e"] - ts["ping"]
            worst_ts = max(worst_ts, ratio(ts_beyond, raw_ms))
            typescript = f"{ts_beyond:>13.1f}ms{ratio(ts_beyond, raw_ms):>7.2f}x"
        print(f"{tool:<30}{raw_ms:>10.1f}ms{wire[tool]['server']:>9.0f}ms{e2e:>10.1f}ms{beyond:>12.1f}ms{ratio(beyond, raw_ms):>7.2f}x"
              f"{wire[tool]['validated']:>19.1f}ms{typescript}{wire[tool]['bytes']:>10}{piped:>9.1f}ms{ratio(piped, raw_ms):>7.2f}x"
              f"{canned:>7.1f}ms{ratio(raw_ms + canned, raw_ms):>6.2f}x")
        print(f"{'':<30}raw engine: {engines}")
        if tool + " (rg --json)" in raw:
            print(f"{'':<30}the same search with rg --json (what search_text ran before): {raw[tool + ' (rg --json)'][0]:.1f} ms")
    print()
    print(f"bare pipe: the same calls written as JSON-RPC lines, timed to the answer line, minus its own round trip "
          f"({bare['ping']:.2f} ms)")
    print("canned: the same answer from a server that has it ready (benchmarks/wire_canned.py), bare pipe minus its "
          "round trip; best: (raw engine + canned) / raw engine, the ratio of a server whose own work cost nothing")
    if not isinstance(ts, str):
        print(f"TS SDK client: the same calls through the TypeScript SDK's client.callTool (validated), minus its own "
              f"round trip ({ts['ping']:.2f} ms)")
    through_ts = "" if isinstance(ts, str) else f"{worst_ts:.2f}x through the TS SDK client, "
    print(f"worst ratio {worst:.2f}x through the Python SDK client, {through_ts}{worst_piped:.2f}x over the bare pipe; "
          f"target {TARGET}x: {'met' if worst <= TARGET else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
