"""code-intel MCP server: the MCP layer only.

Each tool is a top-level typed function: its type hints are its input schema, its docstring its description and
its return type (a pydantic model, or a union of them) its output schema, "one of these, or the refusal". It
reaches the application object through the server's lifespan context, calls one core function and returns that
function's answer as its result model. The `@tool` line declares the rest of what the server knows of it: its MCP
annotations, whether its calls go into the session ledger (the evidence `tools_used` is checked against) and
whether its answers show code (the files they show count as seen). Around every call, once: refusals
(tools/server/refusals.py), the answer on the wire (tools/server/answers.py), and the ledger, timing and log line
(tools/server/calls.py, a middleware of the SDK). The `/code` skill is also served as the MCP prompt `code`.

Run: `python code_intel_server.py [--project DIR]` or `code-intel serve [--project DIR]`.
"""

from __future__ import annotations

import argparse
import inspect
import logging
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Annotated, Any, Literal

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.prompts import Prompt
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp_types import Tool as MCPTool
from mcp_types import ToolAnnotations
from pydantic import Field, ValidationError

from code_intel.context import skill
from code_intel.context.rules import ContextUpdate
from code_intel.core.errors import CodeIntelError
from code_intel.core.log_setup import setup_logging
from code_intel.explore.impact import ImpactReport
from code_intel.explore.models import (
    DefinitionResult,
    EnclosingFunction,
    FileSearchResult,
    MultiPatternResult,
    PatternResult,
    ReferenceResult,
    StructureResult,
    SymbolsResult,
)
from code_intel.explore.query import QueryResult
from code_intel.index.models import ChunkDetail, RelevanceResult, SemanticSearchResult, SyncReport
from code_intel.learning.outcomes import OutcomeEntry, OutcomeStats
from code_intel.server import sdk
from code_intel.server.answers import output_schema, result_models, wire_result
from code_intel.server.app import CodeIntelApp
from code_intel.server.calls import ToolFacts, answering, record_calls
from code_intel.server.refusals import argument_error, refusal, unknown_argument_error, unknown_tool_error
from code_intel.server.stdio import serve_stdio
from code_intel.verify.models import CheckRun
from code_intel.workflow.responses import (
    CleanupResult,
    ExploredFiles,
    PhaseResponse,
    RecoveryOffer,
    SessionReview,
    WriteCheck,
)

log = logging.getLogger("code_intel.server")

SERVER_INSTRUCTIONS = (
    "code-intel guides a coding session through exploration, verification, planning, implementation, "
    "review, commit and merge. Start with start_session, then follow each response's `instruction` and "
    "send `expected_payload` to submit_phase. After a context loss call get_session_status."
)

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
STATEFUL = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)

Ctx = Context[CodeIntelApp, Any]
KeywordsArg = Annotated[list[str] | None, Field(
    description="identifiers you expect in the answer (guesses are fine), e.g. ['retry_after', 'Backoff']")]
OffsetArg = Annotated[int, Field(ge=0, description="the next_offset of the previous answer")]
CodeHintArg = Annotated[str | None, Field(description="a short sketch of the code you expect, e.g. "
                                                      "'if resp.status == 429: sleep(retry_after)'")]

TOOLS: dict[str, ToolFacts] = {}


def tool(annotations: ToolAnnotations, *, ledger: bool = True,
         shows_code: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Make a top-level function a tool of this server, with what the server needs to know of it: `ledger`, its
    calls are recorded in the session ledger; `shows_code`, the files its answers show code of count as seen."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        TOOLS[fn.__name__] = ToolFacts(fn, annotations, ledger=ledger, shows_code=shows_code)
        return fn

    return register


def app_of(ctx: Ctx) -> CodeIntelApp:
    """The application object the server's lifespan yielded."""
    app: CodeIntelApp = ctx.request_context.lifespan_context
    return app


def progress_reporter(ctx: Ctx) -> Callable[[float, str], None]:
    """Progress notifications from the tool's worker thread, as (elapsed seconds, message); the SDK sends
    them only when the client asked with a progress token."""

    def progress(elapsed: float, message: str) -> None:
        anyio.from_thread.run(lambda: ctx.report_progress(elapsed, None, message))

    return progress


# ------------------------------------------------------------------- session
# start_session and get_session_status are recorded in the ledger (after the call, so start_session
# lands in the new session): an agent naming them in tools_used really called them.
@tool(STATEFUL)
def start_session(
    ctx: Ctx,
    intent: Literal["IMPLEMENT", "MODIFY", "INVESTIGATE", "QUESTION"],
    query: Annotated[str, Field(description="the user's request, verbatim")],
    flags: Annotated[list[str] | None, Field(description="options exactly as typed, e.g. ['--quick', '-ni']")] = None,
    repo_path: Annotated[str | None, Field(description="must be the server's project root when given")] = None,
) -> PhaseResponse | RecoveryOffer:
    """Start a guided session for one user request. The server parses the flags, loads the project
    rules and answers the first phase's instruction, expected_payload and resources to read. Only one
    session per project runs at a time; an interrupted one is offered for recovery."""
    answer = app_of(ctx).start_session(intent, query, flags or [], repo_path)
    if answer.get("recovery_available"):
        return RecoveryOffer.model_validate(answer)
    return PhaseResponse.model_validate(answer)


@tool(STATEFUL, ledger=False)
def submit_phase(
    ctx: Ctx,
    # declared an object (Codex shows an untyped property to the model as `{}`), validated by the phase's
    # payload model rather than here, so anything else gets payload_mismatch with the phase's instruction
    data: Annotated[Any, Field(description="the payload named by the last response's expected_payload",
                               json_schema_extra={"type": "object"})],
) -> PhaseResponse:
    """The only way out of a phase. Send the payload the current phase expects (see expected_payload);
    the server validates it, checks the tools you used, decides the next phase and answers its
    instruction. A refusal names what was wrong and repeats the current phase's instruction. The
    server runs the configured verify.commands itself, with progress: at POST_IMPL_VERIFY, and once
    on the submit that first enters READY (the run before the change)."""
    return PhaseResponse.model_validate(app_of(ctx).workflow.submit_phase(data, progress_reporter(ctx)))


@tool(READ_ONLY)
def get_session_status(ctx: Ctx) -> PhaseResponse:
    """Where the session stands: phase, step, completed steps, instruction, expected_payload, task
    progress and compaction_count. Restores an interrupted session from its checkpoint. Call it
    whenever you are unsure what to do next."""
    return PhaseResponse.model_validate(app_of(ctx).workflow.get_session_status())


# --------------------------------------------------------------- exploration
@tool(READ_ONLY, shows_code=True)
def search_text(
    ctx: Ctx,
    pattern: Annotated[str | list[str], Field(description="a regex, or a list of them searched in parallel")],
    path: Annotated[str | None, Field(description="file or folder relative to the project root")] = None,
    glob: Annotated[str | list[str] | None, Field(description="include globs, e.g. '*.py'; prefix ! to exclude")] = None,
    case_sensitive: bool = True,
    fixed_strings: Annotated[bool, Field(description="treat patterns as literal text")] = False,
    context_lines: Annotated[int, Field(ge=0, le=20)] = 0,
    max_results: Annotated[int, Field(ge=1, le=5000)] = 100,
) -> PatternResult | MultiPatternResult:
    """Search file contents with ripgrep (respects .gitignore and the configured excludes). Each match
    has file, line, column and text; a list of patterns gives one group per pattern. `truncated` and
    `total_matches` say when max_results cut the list."""
    return app_of(ctx).explorer.search_text(pattern, path=path, glob=glob, case_sensitive=case_sensitive,
                                            fixed_strings=fixed_strings, context_lines=context_lines,
                                            max_results=max_results)


@tool(READ_ONLY)
def search_files(
    ctx: Ctx,
    pattern: Annotated[str, Field(description="glob on project-relative paths; ** crosses folders")],
    path: Annotated[str | None, Field(description="folder to search under")] = None,
    max_results: Annotated[int, Field(ge=1, le=10000)] = 200,
) -> FileSearchResult:
    """Find files by glob (e.g. 'src/**/*.py', '**/test_*.py'), honouring .gitignore and the configured
    excludes. Returns project-relative paths."""
    return app_of(ctx).explorer.search_files(pattern, path=path, max_results=max_results)


@tool(READ_ONLY, shows_code=True)
def find_definitions(
    ctx: Ctx,
    symbol: str,
    path: Annotated[str | None, Field(description="limit to a file or folder")] = None,
    language: Annotated[str | None, Field(description="e.g. python, typescript, go")] = None,
    match: Literal["exact", "prefix", "icase"] = "exact",
    offset: OffsetArg = 0,
    max_results: Annotated[int | None, Field(ge=1, le=2000, description="list this many, past the budget")] = None,
) -> DefinitionResult:
    """Where a symbol is defined (Universal Ctags, tree-sitter where ctags misses), own source first: file, line,
    end_line, kind, scope, signature. Cut to about 1,500 tokens; next_offset pages on."""
    return app_of(ctx).explorer.definitions_answer(symbol, path=path, language=language, match=match,
                                                   offset=offset, max_results=max_results)


@tool(READ_ONLY, shows_code=True)
def find_references(
    ctx: Ctx,
    symbol: str,
    path: Annotated[str | None, Field(description="limit to a file or folder")] = None,
    language: str | None = None,
    include_comments: bool = False,
    include_strings: bool = False,
    level: Annotated[Literal["counts", "locations", "code"], Field(
        description="counts: files with hit counts; locations: hit lines per file; code: each hit's text")] = "locations",
    role: Annotated[Literal["implementation", "test", "doc", "generated", "all"] | None, Field(
        description="list this role's hits line by line (default: own source)")] = None,
    offset: OffsetArg = 0,
    max_results: Annotated[int | None, Field(ge=1, le=5000, description="list this many, past the budget")] = None,
) -> ReferenceResult:
    """Where a symbol is used: whole-word matches that tree-sitter confirms as code (comments and strings on
    request; left_out counts them). Own source is listed line by line near the definition first; tests, docs and
    generated files come as per-file counts (by_role, counted; role= lists them). Cut to about 1,500 tokens:
    `more` says what was left out, next_offset pages on. For `Type.name`, uses through other types are left out."""
    return app_of(ctx).explorer.references_answer(symbol, path=path, language=language,
                                                  include_comments=include_comments, include_strings=include_strings,
                                                  level=level, role=role, offset=offset, max_results=max_results)


@tool(READ_ONLY, shows_code=True)
def get_symbols(ctx: Ctx, path: Annotated[str, Field(description="a file, relative to the project root")]) -> SymbolsResult:
    """The nested outline of one file: classes with their methods, functions and module-level
    variables, each with line and end_line."""
    return app_of(ctx).explorer.get_symbols(path)


@tool(READ_ONLY, shows_code=True)
def analyze_structure(
    ctx: Ctx, path: Annotated[str, Field(description="a file, relative to the project root")],
    parts: Annotated[list[Literal["imports", "classes", "functions"]] | None, Field(
        description="default: all three")] = None,
    offset: OffsetArg = 0,
) -> StructureResult:
    """One file's structure from its syntax tree: imports (with the project files they resolve to), classes,
    functions and the calls each makes. Classes and functions are cut to about 1,500 tokens; next_offset pages on."""
    return app_of(ctx).explorer.structure_answer(path, parts=list(parts) if parts else None, offset=offset)


@tool(READ_ONLY, shows_code=True)
def get_function_at_line(ctx: Ctx, path: str, line: Annotated[int, Field(ge=1)]) -> EnclosingFunction:
    """The innermost function or method enclosing a line, with its name, span and code."""
    return app_of(ctx).explorer.get_function_at_line(path, line)


@tool(READ_ONLY, shows_code=True)
def analyze_impact(
    ctx: Ctx,
    files: Annotated[list[str], Field(description="files you plan to change")],
    symbols: Annotated[list[str] | None, Field(description="symbols you plan to change; default: all in the files")] = None,
    level: Annotated[Literal["summary", "locations", "code"], Field(
        description="summary: counts, importers, top files; locations: the items; code: with their lines")] = "summary",
    group: Annotated[Literal["importers", "direct", "dependents", "tests", "configs", "docs", "should_verify"] | None,
                     Field(description="list this group's items")] = None,
    offset: OffsetArg = 0,
) -> ImpactReport:
    """What a change to these files would touch: importers, references to their symbols (for symbols you name,
    also their other uses in these files), tests, configs and docs that mention them, overrides and overridden
    methods, type stubs, CSS/markup cross-references. `Type.name` is followed in Type only. By default a summary:
    counts per group, the importers, each group's top files; group= lists one group (next_offset pages on)."""
    return app_of(ctx).analyze_impact(files, symbols, level=level, group=group, offset=offset)


@tool(READ_ONLY, shows_code=True)
def query(
    ctx: Ctx,
    question: Annotated[str, Field(description="a natural-language question about the code")],
    keywords: KeywordsArg = None,
    code_hint: CodeHintArg = None,
) -> QueryResult:
    """A general entry point: routes a question to symbol, text and (when the index exists) semantic
    search and merges the results, each with file and line and the file's role (implementation, test,
    doc, generated). Optional `keywords` and `code_hint` sharpen it like in semantic_search."""
    return app_of(ctx).query(question, keywords=keywords, code_hint=code_hint)


# ------------------------------------------------------------------ semantic
@tool(READ_ONLY, shows_code=True)
def semantic_search(
    ctx: Ctx,
    query: str,
    n_results: Annotated[int, Field(ge=1, le=100)] = 10,
    collection: Annotated[Literal["forest", "map"] | None, Field(description="default: Map first, then Forest")] = None,
    keywords: KeywordsArg = None,
    code_hint: CodeHintArg = None,
) -> SemanticSearchResult:
    """Meaning-based search over the code index (Forest) and past successful agreements (Map). A Map
    hit scoring 0.7 or more answers alone; the response says which collection answered and how complete
    the index is (`index`: it answers during a sync, first with a fast model). Each hit carries its file's
    role. Optional `keywords` (identifiers you expect) and `code_hint` (a sketch of the code you expect)
    are fused with the question."""
    return SemanticSearchResult.model_validate(app_of(ctx).semantic_search(
        query, n_results=n_results, collection=collection, keywords=keywords, code_hint=code_hint))


@tool(READ_ONLY, shows_code=True)
def fetch_chunk_detail(ctx: Ctx, chunk_id: str) -> ChunkDetail:
    """The full text and location of one chunk returned by semantic_search."""
    return ChunkDetail.model_validate(app_of(ctx).index.fetch_chunk_detail(chunk_id))


@tool(READ_ONLY)
def validate_symbol_relevance(ctx: Ctx, query: str, symbols: list[str]) -> RelevanceResult:
    """How relevant each symbol is to a request, by embedding similarity, with a verdict per symbol."""
    return RelevanceResult.model_validate(app_of(ctx).validate_symbol_relevance(query, symbols))


@tool(STATEFUL)
def sync_index(
    ctx: Ctx,
    force: bool = False,
    wait: Annotated[bool, Field(description="hold the call until the index is complete; by default it answers "
                                            "within a second with the index state while the sync goes on in the "
                                            "background")] = False,
) -> SyncReport:
    """Bring the semantic index up to date: only changed files are re-chunked and re-embedded; `force`
    rebuilds everything. Answers within a second, finished or not (`index` says how far it is; searches answer
    from what is indexed meanwhile), with progress notifications while the call is open; `wait` holds it."""

    def progress(done: float, total: float | None, message: str) -> None:
        anyio.from_thread.run(lambda: ctx.report_progress(done, total, message))

    return SyncReport.model_validate(app_of(ctx).sync_index(force, progress, wait=wait))


@tool(STATEFUL)
def update_context(ctx: Ctx) -> ContextUpdate:
    """Refresh context.yml's project_rules summary from the project rules file (CLAUDE.md by default)."""
    return ContextUpdate.model_validate(app_of(ctx).update_context())


# ---------------------------------------------------- implementation control
@tool(READ_ONLY)
def check_write_target(ctx: Ctx, file_path: str) -> WriteCheck:
    """May this file be written now? Writes are allowed only in READY, only inside the project, to
    explored files, new files in explored folders, or pure markup. Answers `allowed` and `reason`."""
    return WriteCheck.model_validate(app_of(ctx).workflow.check_write_target(file_path))


@tool(STATEFUL)
def add_explored_files(ctx: Ctx, files: list[str]) -> ExploredFiles:
    """Add files you have read to the session's explored set, so that they may be written in READY."""
    return ExploredFiles.model_validate(app_of(ctx).workflow.add_explored_files(files))


@tool(READ_ONLY)
def review_changes(ctx: Ctx) -> SessionReview:
    """The session's changes against the base: per file status, line counts and a unified diff (capped),
    files changed outside the write rules, and garbage candidates (debug prints, commented-out
    blocks, temp files, large binaries)."""
    return SessionReview.model_validate(app_of(ctx).workflow.review_changes())


@tool(STATEFUL)
def run_checks(ctx: Ctx) -> CheckRun:
    """Run the project's verify.commands (config.json) now, as POST_IMPL_VERIFY will: the commands relevant
    to the session's changed files, in the project root, each with its timeout. Answers per command the
    verdict, duration, failing test names and the output's tail, the skipped commands and the changed
    files relevance was judged on. Allowed in VERIFICATION and POST_IMPL_VERIFY; long runs send
    progress notifications."""
    return CheckRun.model_validate(app_of(ctx).workflow.run_checks(progress_reporter(ctx)))


@tool(DESTRUCTIVE)
def cleanup_stale_branches(ctx: Ctx) -> CleanupResult:
    """Return to the base branch, delete every llm_task_* branch, delete checkpoints and reset the
    session. Reports each deleted branch with its head commit so it can be recovered."""
    return CleanupResult.model_validate(app_of(ctx).workflow.cleanup_stale_branches())


# ------------------------------------------------------------------ learning
@tool(STATEFUL)
def record_outcome(
    ctx: Ctx,
    outcome: Literal["success", "failure"],
    phase_at_outcome: str | None = None,
    analysis: dict[str, Any] | None = None,
) -> OutcomeEntry:
    """Record how a session ended. phase_at_outcome defaults to the session's phase. A success also stores
    the request -> symbols/files agreement in the Map so similar requests find it first."""
    return OutcomeEntry.model_validate(app_of(ctx).record_outcome(outcome, phase_at_outcome, analysis or {}))


@tool(READ_ONLY)
def get_outcome_stats(ctx: Ctx) -> OutcomeStats:
    """Counts of recorded outcomes and refusals by phase and reason, from the decision and outcome logs."""
    return OutcomeStats.model_validate(app_of(ctx).outcome_stats())


# -------------------------------------------------------------------- prompt
def code(request: Annotated[str, Field(description="what the user asks for, flags included, e.g. "
                                                      "'--quick fix the typo in the login message'")] = "") -> str:
    """The /code skill with the request in place: how to work through a code-intel session."""
    return skill.prompt_text(request)



class CodeIntelServer(MCPServer[CodeIntelApp]):
    """The SDK's server with our tools: it lists each with its output schema ("result model or refusal") and
    refuses, as tool results in the refusal envelope, what would stop a call before its tool runs."""

    def __init__(self, app: CodeIntelApp) -> None:
        @asynccontextmanager
        async def lifespan(_: MCPServer[CodeIntelApp]) -> AsyncIterator[CodeIntelApp]:
            yield app

        self.registered = {name: Tool.from_function(answering(facts.fn), name=name, annotations=facts.annotations,
                                                    description=inspect.cleandoc(facts.fn.__doc__ or ""),
                                                    structured_output=False)
                           for name, facts in TOOLS.items()}
        super().__init__("code-intel", instructions=SERVER_INSTRUCTIONS, lifespan=lifespan,
                         tools=list(self.registered.values()), middleware=[record_calls(TOOLS)])
        self.app = app
        self.output_schemas = {name: output_schema(result_models(facts.fn)) for name, facts in TOOLS.items()}
        self.add_prompt(Prompt.from_function(code, name="code", title="code-intel session",
                                             description=skill.description()))

    async def list_tools(self) -> list[MCPTool]:
        # arguments outside the input schema are refused (call_tool), so the schema says so too
        return [listed.model_copy(update={"input_schema": {**listed.input_schema, "additionalProperties": False},
                                          "output_schema": self.output_schemas[listed.name]})
                for listed in await super().list_tools()]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        if context is None:  # not through a client: nothing to refuse to
            return await super().call_tool(name, arguments, context)
        try:
            if name not in self.registered:  # a refusal like any other, rather than the SDK's bare "Unknown tool"
                raise unknown_tool_error(name, list(self.registered))
            unknown = unknown_argument_error(name, arguments, list(self.registered[name].parameters["properties"]))
            if unknown is not None:
                raise unknown
            if name == "submit_phase" and isinstance(arguments.get("data"), str):
                # the SDK would read JSON text as the object it spells; a payload is an object, and the phase
                # refuses anything else saying what to send
                return await anyio.to_thread.run_sync(partial(self.registered[name].fn, context, data=arguments["data"]))
            return await super().call_tool(name, arguments, context)
        except MCPError:  # a protocol error, answered as such
            raise
        except Exception as err:  # the server stays up whatever a tool does
            error = refusable(name, err)
        data = await anyio.to_thread.run_sync(refusal, error, name, app_of(context))
        return wire_result(data, is_error=True)

    async def run_stdio_async(self) -> None:
        """The SDK's stdio transport with our reader in front of stdin: every request gets an answer."""
        await serve_stdio(partial(sdk.run_on_streams, self))


def refusable(tool: str, err: Exception) -> BaseException:
    """What to refuse for an exception out of the SDK's call of `tool`: arguments that do not fit its input schema
    (ToolError from a ValidationError), or what the tool itself raised (the SDK's wrapper's cause)."""
    if not isinstance(err, ToolError):
        return err
    if type(err) is ToolError and isinstance(err.__cause__, ValidationError):
        return argument_error(tool, err.__cause__)
    return err.__cause__ or err


def build_server(app: CodeIntelApp) -> CodeIntelServer:
    sdk.skip_logging_setup()  # we own logging (stderr and .code-intel/logs)
    return CodeIntelServer(app)


STOP_SECONDS = 0.3  # Claude Code sends SIGINT, SIGTERM 100 ms later and SIGKILL 400 ms after that


def stop_on_signals(app: CodeIntelApp) -> None:
    """SIGINT and SIGTERM stop the server at once: save the session and release the project lock (waiting
    at most STOP_SECONDS for a tool that holds it), flush the log, exit. The index and other caches are not
    closed: their state survives a kill anyway. A normal interpreter exit would wait for the worker thread
    that blocks reading stdin, which is why SIGINT alone used to leave the server running."""
    stopping = threading.Event()

    def stop(signum: int, _frame: Any) -> None:
        if stopping.is_set():  # a second signal while the first is being handled: go now
            os._exit(0)
        stopping.set()
        log.info("stopping on %s", signal.Signals(signum).name)
        closing = threading.Thread(target=app.close_session, name="close-on-signal", daemon=True)
        closing.start()
        closing.join(STOP_SECONDS)
        if closing.is_alive():
            log.warning("stopped without saving the session: a tool was still running; the checkpoint of its "
                        "last accepted step stays, and the lock of this process is taken over as stale")
        logging.shutdown()
        os._exit(0)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="code-intel serve", description="code-intel MCP server (stdio)")
    parser.add_argument("--project", help="project root (default: $CODE_INTEL_PROJECT, else the working directory)")
    parser.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    args = parser.parse_args(argv)
    try:
        app = CodeIntelApp.for_path(args.project)
    except CodeIntelError as err:
        print(f"code-intel: {err.message}" + (f" ({err.hint})" if err.hint else ""), file=sys.stderr)
        return 2
    setup_logging(app.root.runtime_dir("logs"), args.log_level)
    log.info("serving project %s", app.root.path)
    stop_on_signals(app)
    from code_intel.workflow.lock import remove_stray_temp_files

    remove_stray_temp_files(app.root)
    server = build_server(app)
    try:
        server.run()
    finally:
        app.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
