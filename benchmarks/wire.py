"""The cost of a tool call on the wire: each tool through real stdio MCP clients, beside its raw engine.

For search_text (every match of a pattern), get_symbols (a large file) and analyze_impact (one module),
the script first runs the tool in this process with the engines spied on, to learn exactly what the
tool asks of them in a steady-state call: each ripgrep/ctags command line and each tree-sitter parse.
It then times those same engine runs bare (the raw engine), and times the tool end to end against a
spawned server, each client beside its own empty round trip (resources/list; the server answers no ping), taken
right before each timed call so that it is measured under the same conditions as the calls.
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
  comes with the clients tests/clients installs into .cache/clients).
- bytes: the size of the answer's text content (characters).
- bare pipe, ratio: the same calls with no client library (JSON-RPC lines written, the answer line read and
  not parsed), so it shows the server's side and the pipe without any client's own parsing.

A second table puts each client's figure beside a floor measured through that same client: the same answer
from a server that has it ready (benchmarks/wire_canned.py, one per row, holding the answer the Python client
got from our server), timed the same way, minus that server's own round trip. The canned server lists our
server's tools as the Python client got them from its tools/list, so each SDK client learns the same output
schemas through its own listing and validates the canned answers against them. Per client and row: floor;
best = (raw engine + floor) / raw engine, the ratio of a server whose own work cost nothing; net = (ours -
floor) / raw engine, our ratio with the part any server pays for an answer of that size through that client
taken out.

How the 1.5x target is judged: on what the server adds, which is the bare pipe's ratio (no client library at
all) and each SDK client's net ratio (its floor taken out). The ratio through a client library with its floor
left in is printed too, but not judged: for an answer of hundreds of KB, a client's own parsing and schema
check exceed half the raw engine's time whoever the server is (docs/benchmarks.md, "How the target is
judged").

Lines above the tables confirm, per client and for our server and the canned ones, that every answer is the one
the Python client got from our server and, for the SDK clients, that every answer was validated: its tool has an
outputSchema in the listing the client got from that server's tools/list, and the same client refuses the same
answer for a tool whose listed schema no answer meets (each canned server also lists the row's tool under the
name wrong_schema with such a schema; our server cannot be asked to list a wrong one). Only the clients' public
calls are used (list_tools/listTools, call_tool/callTool).

Corpus: standard-library files copied to benchmarks/.corpus/stdlib (git-ignored), as benchmarks/explore.py.

    .venv/bin/python benchmarks/wire.py [--files 175] [--runs 15] [--pattern REGEX ...] [--tool NAME ...]
        [--profile TOOL] [--server DIR] [--ts-sdk DIR]
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
import threading
import time
from collections.abc import Callable, Iterator
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

from code_intel.core.config import Config  # noqa: E402
from code_intel.core.project import ProjectRoot  # noqa: E402
from code_intel.explore import syntax  # noqa: E402
from code_intel.explore.impact import analyze_impact  # noqa: E402
from code_intel.explore.service import Explorer  # noqa: E402

TARGET = 1.5
DEFAULT_PATTERNS = [r"raise \w+Error", "return"]
# search_text's rg arguments for its own output format, left out when the same search is run with --json
PLAIN_ONLY = {"--line-number", "--column", "--heading", "--with-filename", "--field-match-separator", "\x1f", "--color",
              "never"}
PARALLEL = 4  # code_intel.explore.impact.PARALLEL_LOOKUPS
# the TypeScript SDK that tests/clients/conftest.py installs (a dependency of the pinned MCP Inspector)
TS_SDK = REPO / ".cache" / "clients" / "node_modules" / "@modelcontextprotocol" / "sdk"


# ------------------------------------------------------------------ raw engine
# threads the server starts for its own upkeep (index warm-up and sync, the lexical maps built after an index
# change, cache writes): their engine work is not the call's, even while the call runs
BACKGROUND_THREADS = ("code-intel-index-", "code-intel-definitions", "code-intel-lexical-", "code-intel-cache-")


def background_work_done(seconds: float = 300) -> None:
    """Wait (bounded) for the server's upkeep threads, e.g. the lexical maps rebuilt after the corpus changed, so
    a recorded call meets the caches of a steady state."""
    deadline = time.monotonic() + seconds
    for thread in threading.enumerate():
        if thread.name.startswith(BACKGROUND_THREADS):
            thread.join(max(0.0, deadline - time.monotonic()))


class EngineSpy:
    """Records the engine work of the calls made inside `recording()`: command lines and parsed sources, from
    any thread but the server's upkeep threads (BACKGROUND_THREADS)."""

    def __init__(self) -> None:
        self.commands: list[list[str]] = []
        self.parses: list[tuple[str, bytes]] = []

    @contextmanager
    def recording(self) -> Iterator[EngineSpy]:
        real_popen, real_get_parser = subprocess.Popen, syntax.get_parser
        spy = self

        class Popen(real_popen):  # type: ignore[misc, valid-type]
            def __init__(self, args: Any, *rest: Any, **kwargs: Any) -> None:
                if not threading.current_thread().name.startswith(BACKGROUND_THREADS):
                    spy.commands.append([str(a) for a in args])
                super().__init__(args, *rest, **kwargs)

        class Parser:
            def __init__(self, language: str) -> None:
                self.language, self.inner = language, real_get_parser(language)

            def parse(self, source: bytes) -> Any:
                if not threading.current_thread().name.startswith(BACKGROUND_THREADS):
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
        background_work_done()  # after a corpus change the first call starts rebuilding the lexical maps
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
# What one server gave through one client: "ping" (its empty round trip, ms), "wrong_schema" (a canned server only:
# the error the client raised for the WRONG_SCHEMA_TOOL's answer; None if it took the answer), and per row label the
# row's figures: "e2e" (ms), "structured" (the answer's structured content) and "utf8" (bytes of its text content),
# plus what that client adds ("checked": the tool has an outputSchema in the listing the client got).
Session = dict[str, Any]
# Each canned server also lists its row's tool under this name with this output schema, which no answer meets (its
# one required property is in none), and answers it with the row's answer: a client that validates must refuse it.
WRONG_SCHEMA_TOOL = "wrong_schema"
IMPOSSIBLE_SCHEMA = {"type": "object", "required": ["not_in_any_answer"], "properties": {"not_in_any_answer": {"type": "string"}}}


def served_corpus(files: int) -> Path:
    """The stdlib corpus of `files` files, set up for our server: no index sync on start (the calls timed
    here do not use the semantic index, and a sync would compete with them for the CPU)."""
    corpus = build_corpus(files)
    state = corpus / ".code-intel"
    state.mkdir(exist_ok=True)
    (state / "config.json").write_text(json.dumps({"sync_on_start": False}), encoding="utf-8")
    return corpus


def server_argv(corpus: Path, server: Path) -> list[str]:
    return [sys.executable, str(server / "code_intel_server.py"), "--project", str(corpus)]


def quiet(argv: list[str]) -> list[str]:
    """The command line both SDK clients spawn (in the corpus, with their SDK's default environment): argv with its
    stderr dropped (our server's INFO log, one line per call with the time it took inside, is read from its file)."""
    return ["/bin/sh", "-c", f"exec {shlex.join(argv)} 2>/dev/null"]


def canned_servers(corpus: Path, plan: Plan, answers: dict[str, Any], listing: list[dict[str, Any]]) -> dict[str, list[str]]:
    """row label -> the command line of a server that has that row's answer ready (benchmarks/wire_canned.py: the
    same SDK server class, the same answer as text plus structured content, no work). One server per row: rows of
    the same tool differ in their answer. Each lists `listing` (our server's tools/list entries, as JSON) and, under
    WRONG_SCHEMA_TOOL, the row's tool with IMPOSSIBLE_SCHEMA, and answers both with the row's answer."""
    canned = {}
    for number, label in enumerate(plan):
        tool = tool_of(label)
        entry = next(entry for entry in listing if entry["name"] == tool)
        given = {"tools": [*listing, {**entry, "name": WRONG_SCHEMA_TOOL, "outputSchema": IMPOSSIBLE_SCHEMA}],
                 "answers": {tool: answers[label], WRONG_SCHEMA_TOOL: answers[label]}}
        answers_file = corpus / ".code-intel" / f"wire-canned-{number}.json"
        answers_file.write_text(json.dumps(given), encoding="utf-8")
        canned[label] = [sys.executable, str(HERE / "wire_canned.py"), str(answers_file)]
    return canned


def listed(listing: Any) -> list[dict[str, Any]]:
    """A client's tools/list result (mcp's ListToolsResult) -> its tools as the JSON they came in."""
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listing.tools]


def read_answer(line: bytes) -> tuple[Any, int]:
    """A tools/call answer line -> (its structured content, the UTF-8 bytes of its text content)."""
    result = json.loads(line)["result"]
    text = "".join(part["text"] for part in result.get("content", []) if part.get("type") == "text")
    return result.get("structuredContent"), len(text.encode())


async def python_session(corpus: Path, argv: list[str], plan: Plan, runs: int, log_file: Path | None = None,
                         wrong_schema: bool = False) -> tuple[Session, Any]:
    """The calls through the `mcp` package's stdio client against the server argv starts: each call timed as a plain
    tools/call ("e2e": no output-schema validation, the server's and the wire's cost) and through call_tool
    ("validated": also checked against the tool's outputSchema from the server's tools/list, round trip included).
    log_file, our server's log, gives "server": the time the call took inside. With wrong_schema (a canned server),
    the session ends with a call of WRONG_SCHEMA_TOOL, which call_tool must refuse. Returns the figures and the
    server's tool listing."""
    import mcp_types as types
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    shell, *command = quiet(argv)
    params = StdioServerParameters(command=shell, args=command, cwd=str(corpus))
    figures: Session = {}
    async with Client(params, read_timeout_seconds=120) as client:
        listing = await client.list_tools()  # the client learns the output schemas (it validates results against them)
        schemas = {tool.name: tool.output_schema for tool in listing.tools}

        async def plain(tool: str, args: dict[str, Any]) -> types.CallToolResult:
            request = types.CallToolRequest(params=types.CallToolRequestParams(name=tool, arguments=args))
            return await client.session.send_request(request, types.CallToolResult)

        # The server answers no ping: resources/list (an empty list) is the bare round trip. A few first, untimed
        # (a server just started is still doing its start-up upkeep on the same two cores), then one right before
        # each timed call, so the round trip taken off is measured under the same conditions as the calls.
        pings: list[float] = []

        async def ping() -> None:
            started = time.perf_counter()
            await client.list_resources()
            pings.append(time.perf_counter() - started)

        for _ in range(runs):
            await ping()
        pings.clear()
        for label, (args, touched) in plan.items():
            tool = tool_of(label)
            for _ in range(2):  # warm-up: lazy imports, caches
                touch(touched)
                await plain(tool, args)
            samples, validated = [], []
            text = ""
            logged = log_file.stat().st_size if log_file is not None and log_file.exists() else 0
            for _ in range(runs):
                await ping()
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
            inside: list[float] = []
            if log_file is not None:
                with log_file.open("rb") as handle:
                    handle.seek(logged)
                    inside = [float(m.group(1)) for m in re.finditer(rf"{tool} ok in (\d+) ms".encode(), handle.read())]
            figures[label] = {"e2e": statistics.median(samples) * 1000, "validated": statistics.median(validated) * 1000,
                              "server": statistics.median(inside) if inside else float("nan"),
                              "bytes": len(text), "utf8": len(text.encode()), "structured": result.structured_content,
                              "checked": schemas.get(tool) is not None}
        figures["ping"] = statistics.median(pings) * 1000
        if wrong_schema:  # the first call's answer again, for a tool listed with a schema it does not meet
            try:
                await client.call_tool(WRONG_SCHEMA_TOOL, next(iter(plan.values()))[0])
                figures["wrong_schema"] = None
            except RuntimeError as refused:
                figures["wrong_schema"] = str(refused)
    return figures, listing


async def python_canned(corpus: Path, plan: Plan, runs: int, canned: dict[str, list[str]]) -> dict[str, Session]:
    """Each canned server through the Python SDK's client: it lists our server's tools, so call_tool validates its
    answers against the same output schemas; each session ends with the wrong-schema call."""
    floors = {}
    for label, argv in canned.items():
        floors[label], _ = await python_session(corpus, argv, {label: plan[label]}, runs, wrong_schema=True)
    return floors


def over_ts_client(corpus: Path, plan: Plan, runs: int, argv: list[str], canned: dict[str, list[str]],
                   sdk: Path) -> tuple[Session, dict[str, Session], str] | str:
    """The same calls through the TypeScript SDK's client (benchmarks/wire_client.mjs, run by node), the client
    library Claude Code is built on: the same server command line, working folder and default environment as
    the Python client, each call made with client.callTool after one listTools, so the client validates every
    structuredContent against the tool's outputSchema; then each canned server, in the same node process, through
    its own listTools, each session ending with the wrong-schema call. Returns our server's figures, the canned
    ones and the SDK's version, or why the column is left out."""
    if shutil.which("node") is None:
        return "node is not on PATH"
    if not (sdk / "package.json").is_file():
        return (f"no @modelcontextprotocol/sdk at {sdk} (`.venv/bin/pytest tests/clients` installs the pinned "
                f"clients, with it, into .cache/clients; or pass --ts-sdk)")

    def spec(argv: list[str], rows: Plan, wrong_schema: bool) -> dict[str, Any]:
        shell, *command = quiet(argv)
        first_args = next(iter(rows.values()))[0]
        return {"command": shell, "args": command, "cwd": str(corpus),
                "calls": [{"label": label, "name": tool_of(label), "arguments": args, "touch": str(touched) if touched else None}
                          for label, (args, touched) in rows.items()],
                "wrong_schema": {"name": WRONG_SCHEMA_TOOL, "arguments": first_args} if wrong_schema else None}

    request = {"runs": runs, "sessions": [spec(argv + ["--log-level", "INFO"], plan, wrong_schema=False)] +
               [spec(canned_argv, {label: plan[label]}, wrong_schema=True) for label, canned_argv in canned.items()]}
    done = subprocess.run(["node", str(HERE / "wire_client.mjs"), str(sdk)], input=json.dumps(request),
                          capture_output=True, text=True, timeout=1200, check=False)
    if done.returncode != 0:
        raise SystemExit(f"benchmarks/wire_client.mjs failed ({done.returncode}):\n{done.stderr[-3000:]}")
    out = json.loads(done.stdout)
    sessions = []
    for session in out["sessions"]:
        figures: Session = {"ping": session["ping"]}
        if "wrong_schema" in session:
            figures["wrong_schema"] = session["wrong_schema"]
        for label, row in session["calls"].items():
            figures[label] = {"e2e": row["e2e"], "checked": row["validated"], "utf8": row["text_bytes"],
                              "matches": row["matches"], "structured": row["structured"]}
        sessions.append(figures)
    return sessions[0], dict(zip(canned, sessions[1:], strict=True)), out["sdk"]


def raw_pipe(process: subprocess.Popen[bytes], name: str = "wire-benchmark") -> Callable[[str, dict[str, Any]], bytes]:
    """A request function for a spawned server spoken to in JSON-RPC lines, with no client library, after the
    handshake (initialize, initialized, tools/list). Each request is one line; it returns the answer's line,
    unparsed (notifications such as progress may come first and are skipped)."""
    assert process.stdin is not None and process.stdout is not None
    pipe_in, pipe_out = process.stdin, process.stdout
    ids = iter(range(1, 1_000_000_000))

    def request(method: str, params: dict[str, Any]) -> bytes:
        number = next(ids)
        line = json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}) + "\n"
        pipe_in.write(line.encode())
        pipe_in.flush()
        tail = f'"id":{number}'.encode()
        while True:  # answers are compact JSON lines
            answer = pipe_out.readline()
            if not answer:
                raise SystemExit("the server closed its output")
            if tail in answer:
                return answer

    request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": name, "version": "0"}})
    pipe_in.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    pipe_in.flush()
    request("tools/list", {})
    return request


def over_raw_pipe(corpus: Path, plan: Plan, runs: int, argv: list[str]) -> Session:
    """The same calls over the same stdio transport with no MCP client library: each request is written as
    one JSON-RPC line and timed until its answer line has been read, unparsed. This is the server's side
    and the pipe; what a client spends parsing and validating the answer is left out (clients differ
    there: the Python SDK's client builds pydantic models, Claude Code and Codex are not Python). The last
    answer line of each row is parsed after the timing, to check that it is the answer the clients got."""
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=corpus)
    figures: Session = {}
    try:
        request = raw_pipe(process)
        pings: list[float] = []  # as in python_session: a few untimed, then one before each timed call

        def ping() -> None:
            started = time.perf_counter()
            request("resources/list", {})
            pings.append(time.perf_counter() - started)

        for _ in range(runs):
            ping()
        pings.clear()
        for label, (args, touched) in plan.items():
            call = {"name": tool_of(label), "arguments": args}
            for _ in range(2):
                touch(touched)
                request("tools/call", call)
            samples = []
            for _ in range(runs):
                ping()
                touch(touched)
                started = time.perf_counter()
                answer = request("tools/call", call)
                samples.append(time.perf_counter() - started)
            structured, utf8 = read_answer(answer)
            figures[label] = {"e2e": statistics.median(samples) * 1000, "line_bytes": len(answer),
                              "structured": structured, "utf8": utf8}
        figures["ping"] = statistics.median(pings) * 1000
    finally:
        process.kill()
        process.wait()
    return figures


def canned_over_raw_pipe(corpus: Path, plan: Plan, runs: int, canned: dict[str, list[str]]) -> dict[str, Session]:
    return {label: over_raw_pipe(corpus, {label: plan[label]}, runs, argv) for label, argv in canned.items()}


# ------------------------------------------------------------------ checks and figures
def differing(sessions: dict[str, Session], wire: Session) -> list[str]:
    """Lines for the rows whose answer (structured content, bytes of text) is not the one the Python client got from
    our server; `sessions` maps a row label to the session that has that row."""
    lines = []
    for label, session in sessions.items():
        row, mine = session[label], wire[label]
        if row["structured"] != mine["structured"] or row["utf8"] != mine["utf8"]:
            theirs = row["structured"].get("matches") if isinstance(row["structured"], dict) else None
            counts = f", {len(theirs)} against {len(mine['structured']['matches'])} matches" if isinstance(theirs, list) else ""
            lines.append(f"{label}: {row['utf8']} against {mine['utf8']} bytes of text{counts}")
    return lines


def refusals(sessions: dict[str, Session]) -> tuple[list[str], str]:
    """(the rows whose session did not refuse the wrong-schema answer for its schema, the first line of the error
    one refusal gave). A refusal counts only if it names the property IMPOSSIBLE_SCHEMA requires: an error for any
    other reason (an unknown tool, a lost connection) shows nothing about validation."""
    required = IMPOSSIBLE_SCHEMA["required"][0]
    took = [label for label, session in sessions.items() if required not in (session.get("wrong_schema") or "")]
    said = next((session["wrong_schema"] for label, session in sessions.items() if label not in took), "")
    return took, said.splitlines()[0][:160] if said else ""


def check_lines(client: str, sessions: dict[str, Session], wire: Session, validates: bool, against: str,
                wrong_schema: bool = False) -> list[str]:
    """What one client's answers from one kind of server show (`sessions` maps a row label to the session that has
    that row): for a client that validates, that every answer's tool has an outputSchema in the listing the client
    got from the server's tools/list (so the client validated the answer against it) and, with wrong_schema (the
    canned servers), that each session refused the answer for WRONG_SCHEMA_TOOL; unless `against` is empty, that
    every answer is the one the Python client got from our server (`against` names it)."""
    said = []
    if validates:
        unchecked = [label for label, session in sessions.items() if not session[label]["checked"]]
        took, refusal = refusals(sessions) if wrong_schema else ([], "")
        if unchecked or took:
            said.append(f"WARNING: structured content NOT validated (no outputSchema listed for {unchecked or 'none'}; "
                        f"the wrong-schema answer accepted for {took or 'none'})")
        elif wrong_schema:
            said.append(f"every answer validated against its tool's outputSchema from the server's tools/list; "
                        f"the same answer for {WRONG_SCHEMA_TOOL} refused in every session ({refusal})")
        else:
            said.append("every answer validated against its tool's outputSchema from our server's tools/list "
                        "(that this client refuses an answer its schema does not allow: canned, below)")
    wrong = differing(sessions, wire) if against else []
    if against and not wrong:
        said.append(f"every answer identical to {against} (same structured content, same text size)")
    warnings = [f"  WARNING {client}, {line}: not the answer the Python client got from our server" for line in wrong]
    return ([f"  {client}: " + "; ".join(said)] if said else []) + warnings


def floor_view(raw_ms: float, ours_ms: float, floor_ms: float) -> tuple[float, float, float]:
    """(ratio, best, net) of a call that took ours_ms beyond its client's round trip, for a raw engine of raw_ms and an
    answer that took floor_ms through the same client from a server that had it ready: ratio = ours / raw;
    best = (raw + floor) / raw, the ratio of a server whose own work cost nothing; net = (ours - floor) / raw, ours
    with what the answer's size costs through that client taken out (the figure the target is judged on, with the
    bare pipe's ratio). The three add up: ratio - 1 = (best - 1) + (net - 1)."""
    return ratio(ours_ms, raw_ms), ratio(raw_ms + floor_ms, raw_ms), ratio(ours_ms - floor_ms, raw_ms)


def judged_ratios(worst: dict[str, float], worst_net: dict[str, float]) -> dict[str, float]:
    """The figures the target is judged on, from the worst rows: the bare pipe's ratio (no client library, so no
    floor to take out) and each SDK client's net ratio (its own cost for an answer of that size taken out)."""
    return {("bare pipe" if name == "bare pipe" else f"net through the {name}"):
            (worst[name] if name == "bare pipe" else worst_net[name]) for name in worst}


def spread(values: list[float]) -> str:
    low, high = min(values), max(values)
    return f"{low:.2f} ms" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}-{high:.2f} ms"


# ------------------------------------------------------------------ profiling
def profile(corpus: Path, tool: str, args: dict[str, Any], touched: Path | None, runs: int) -> None:
    """The tool through the real MCP layer in this process (in-memory client, no output validation), under cProfile."""
    import mcp_types as types
    from mcp import Client

    import code_intel_server
    from code_intel.server.app import CodeIntelApp
    from code_intel_server import build_server

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
    parser.add_argument("--tool", action="append", choices=["search_text", "get_symbols", "analyze_impact"],
                        help="time only this tool's rows, repeatable (a shorter run, e.g. to alternate two servers)")
    parser.add_argument("--profile", help="a row label (e.g. get_symbols, or 'search_text return'): profile it instead")
    parser.add_argument("--server", type=Path, default=REPO,
                        help="checkout whose code_intel_server.py to spawn (e.g. a worktree of an older commit)")
    parser.add_argument("--ts-sdk", type=Path, default=TS_SDK,
                        help="installed @modelcontextprotocol/sdk package for the TS SDK client column (default: %(default)s)")
    args = parser.parse_args()

    corpus = served_corpus(args.files)
    files = sorted(p for p in corpus.rglob("*.py") if ".code-intel" not in p.parts)
    big = max(files, key=lambda p: p.stat().st_size).relative_to(corpus).as_posix()
    module = next((p for p in files if p.name == "shlex.py"), files[len(files) // 2]).relative_to(corpus).as_posix()
    plan = calls(corpus, args.pattern or DEFAULT_PATTERNS, big, module)

    if args.profile:
        tool_args, touched = plan[args.profile]
        profile(corpus, tool_of(args.profile), tool_args, touched, args.runs)
        return 0

    if args.tool:
        plan = {label: call for label, call in plan.items() if tool_of(label) in args.tool}
    raw = raw_engine(corpus, plan, args.runs)
    server = args.server.resolve()
    argv = server_argv(corpus, server)
    # each client meets our server first, then the canned servers, which hold the answers the Python client got
    wire, listing = anyio.run(python_session, corpus, argv + ["--log-level", "INFO"], plan, args.runs,
                              corpus / ".code-intel" / "logs" / "server.log")
    canned = canned_servers(corpus, plan, {label: wire[label]["structured"] for label in plan}, listed(listing))
    py_floors = anyio.run(python_canned, corpus, plan, args.runs, canned)
    ts = over_ts_client(corpus, plan, args.runs, argv, canned, args.ts_sdk.resolve())
    bare = over_raw_pipe(corpus, plan, args.runs, argv)
    bare_floors = canned_over_raw_pipe(corpus, plan, args.runs, canned)

    size = sum(p.stat().st_size for p in files)
    lines = (corpus / big).read_text(encoding="utf-8", errors="replace").count("\n")
    print(f"corpus: {len(files)} files, {size / 1e6:.1f} MB (benchmarks/.corpus/stdlib); {args.runs} runs, medians")
    for label in plan:
        if tool_of(label) == "search_text":
            answer = wire[label]["structured"]
            print(f"{label}: {len(answer['matches'])} of its {answer['total_matches']} matches")
    print(f"get_symbols: {big} ({lines} lines); analyze_impact: {module}")
    print(f"server: {server}")
    # (client, our server's figures, the canned servers' figures, the figure's key); the TS client when it ran
    clients: list[tuple[str, Session, dict[str, Session], str]] = [("Python SDK client", wire, py_floors, "e2e")]
    if isinstance(ts, str):
        print(f"TS SDK client left out: {ts}")
    else:
        clients.append(("TS SDK client", ts[0], ts[1], "e2e"))
    clients.append(("bare pipe", bare, bare_floors, "e2e"))
    print("empty round trips (resources/list), our server | the canned servers: " + "; ".join(
        f"{name} {ours['ping']:.2f} ms | {spread([floor['ping'] for floor in floors.values()])}"
        for name, ours, floors, _ in clients))
    print("checks (canned: benchmarks/wire_canned.py, one server per row, holding the answer the Python client got from "
          f"ours; it lists our server's tools as that client got them, plus the row's tool as {WRONG_SCHEMA_TOOL} with "
          f"an outputSchema no answer meets, answered the same):")
    print("\n".join(check_lines("Python SDK client call_tool, our server", {label: wire for label in plan}, wire,
                                validates=True, against="")))
    print("\n".join(check_lines("Python SDK client, canned", py_floors, wire, validates=True,
                                against="our server's", wrong_schema=True)))
    if not isinstance(ts, str):
        print("\n".join(check_lines(f"TS SDK client (@modelcontextprotocol/sdk {ts[2]}), our server",
                                    {label: ts[0] for label in plan}, wire, validates=True, against="the Python client's")))
        print("\n".join(check_lines("TS SDK client, canned", ts[1], wire, validates=True, against="our server's",
                                    wrong_schema=True)))
    print("\n".join(check_lines("bare pipe, our server", {label: bare for label in plan}, wire, validates=False,
                                against="the Python client's")))
    print("\n".join(check_lines("bare pipe, canned", bare_floors, wire, validates=False, against="our server's")))

    print()
    header = (f"{'call':<30}{'raw engine':>12}{'in server':>11}{'end to end':>12}{'- round trip':>14}{'ratio':>8}"
              f"{'+ client validation':>21}" + ("" if isinstance(ts, str) else f"{'TS SDK client':>15}{'ratio':>8}") +
              f"{'bytes':>10}{'bare pipe':>11}{'ratio':>8}")
    print(header)
    print("-" * len(header))
    worst = dict.fromkeys([name for name, *_ in clients], 0.0)
    for label in plan:
        raw_ms, engines = raw[label]
        beyond = {name: ours[label][key] - ours["ping"] for name, ours, _, key in clients}
        for name, ms in beyond.items():
            worst[name] = max(worst[name], ratio(ms, raw_ms))
        e2e = wire[label]["e2e"]
        typescript = "" if isinstance(ts, str) else \
            f"{beyond['TS SDK client']:>13.1f}ms{ratio(beyond['TS SDK client'], raw_ms):>7.2f}x"
        print(f"{label:<30}{raw_ms:>10.1f}ms{wire[label]['server']:>9.0f}ms{e2e:>10.1f}ms"
              f"{beyond['Python SDK client']:>12.1f}ms{ratio(beyond['Python SDK client'], raw_ms):>7.2f}x"
              f"{wire[label]['validated']:>19.1f}ms{typescript}{wire[label]['bytes']:>10}"
              f"{beyond['bare pipe']:>9.1f}ms{ratio(beyond['bare pipe'], raw_ms):>7.2f}x")
        print(f"{'':<30}raw engine: {engines}")
        if label + " (rg --json)" in raw:
            print(f"{'':<30}the same search with rg --json (what search_text ran before): {raw[label + ' (rg --json)'][0]:.1f} ms")
    print()
    print("bare pipe: the same calls written as JSON-RPC lines, timed to the answer line, minus its own round trip")
    if not isinstance(ts, str):
        print("TS SDK client: the same calls through the TypeScript SDK's client.callTool (validated), minus its own "
              "round trip")

    # the floor-adjusted view: per client, what the same answer costs from a server that has it ready
    print()
    print("Per client, the same answers from the canned servers (the target is judged on net and on the bare pipe's "
          "ratio):")
    print("  ours   end to end - round trip through that client (the table above); ratio = ours / raw engine")
    print("  floor  the canned server's end to end - its own round trip: what the answer costs through that client, "
          "whoever computes it")
    print("  best   (raw engine + floor) / raw engine: the ratio of a server whose own work cost nothing")
    print("  net    (ours - floor) / raw engine: our ratio with that client's floor taken out; "
          "ratio - 1 = (best - 1) + (net - 1)")
    print("  + validation: the Python client's call_tool, which also checks the answer against the tool's outputSchema")
    views = clients[:1] + [("  + validation", wire, py_floors, "validated")] + clients[1:]
    header = (f"{'call':<30}{'client':<20}{'raw engine':>12}{'ours':>10}{'ratio':>8}{'floor':>10}{'best':>8}"
              f"{'ours - floor':>14}{'net':>8}")
    print(header)
    print("-" * len(header))
    worst_best = dict.fromkeys(worst, 0.0)
    worst_net = dict.fromkeys(worst, 0.0)
    for label in plan:
        raw_ms = raw[label][0]
        for number, (name, ours, floors, key) in enumerate(views):
            ours_ms = ours[label][key] - ours["ping"]
            floor_ms = floors[label][label][key] - floors[label]["ping"]
            counted, best, net = floor_view(raw_ms, ours_ms, floor_ms)
            if name in worst:
                worst_best[name] = max(worst_best[name], best)
                worst_net[name] = max(worst_net[name], net)
            first = f"{label:<30}{name:<20}{raw_ms:>10.1f}ms" if number == 0 else f"{'':<30}{name:<20}{'':>12}"
            print(f"{first}{ours_ms:>8.1f}ms{counted:>7.2f}x{floor_ms:>8.1f}ms{best:>7.2f}x{ours_ms - floor_ms:>12.1f}ms"
                  f"{net:>7.2f}x")
    print()
    print("worst ratio with the client's floor left in (not judged): " + ", ".join(
        f"{worst[name]:.2f}x {'over the' if name == 'bare pipe' else 'through the'} {name}" for name in worst) +
        "; the floor alone (worst best): " + ", ".join(f"{worst_best[name]:.2f}x {name}" for name in worst))
    judged = judged_ratios(worst, worst_net)
    print("what the server adds (judged): " + ", ".join(f"{value:.2f}x {name}" for name, value in judged.items()) +
          f"; target {TARGET}x: {'met' if max(judged.values()) <= TARGET else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
