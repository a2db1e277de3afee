"""code-intel MCP server: the MCP layer only.

Each tool is a top-level typed function: its type hints are its input schema, its docstring its description and
its return type (a pydantic model, or a union of them) its output schema, "one of these, or the refusal". It
reaches the application object through the server's lifespan context, calls one core function and returns that
function's answer as its result model. The rest of what the server knows of a tool (its MCP annotations, whether
its calls go into the session ledger, whether its answers show code) is its entry in tools/core/tool_facts.py, a
table the workflow reads too. Around every call, once: refusals
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
from typing import Annotated, Any, Literal, cast

import anyio
from mcp.server.mcpserver import AcceptedElicitation, Context, Elicit, ElicitationResult, MCPServer, Resolve
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.prompts import Prompt
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp_types import Tool as MCPTool
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field, ValidationError

from code_intel.context import skill
from code_intel.context.rules import ContextUpdate
from code_intel.core.errors import CodeIntelError
from code_intel.core.log_setup import setup_logging
from code_intel.core.tool_facts import DESTRUCTIVE, READ_ONLY, STATEFUL, TOOL_FACTS, Access
from code_intel.explore.models import (
    DefinitionResult,
    EnclosingFunction,
    FileSearchResult,
    ImpactReport,
    MultiPatternResult,
    PatternResult,
    QueryResult,
    ReferenceResult,
    StructureResult,
    SymbolsResult,
    UnusedResult,
)
from code_intel.index.models import ChunkDetail, RelevanceResult, SemanticSearchResult, SyncReport
from code_intel.learning.outcomes import OutcomeEntry, OutcomeStats
from code_intel.server import sdk
from code_intel.server.answers import compact_schema, output_schema, result_models, wire_result
from code_intel.server.app import CodeIntelApp
from code_intel.server.calls import answering, record_calls
from code_intel.server.refusals import argument_error, refusal, unknown_argument_error, unknown_tool_error
from code_intel.server.stdio import serve_stdio
from code_intel.verify.models import CheckRun
from code_intel.workflow import grants
from code_intel.workflow.response_models import (
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

# the MCP annotations of each access a tool declares (core/tool_facts.py)
ANNOTATIONS: dict[Access, ToolAnnotations] = {
    READ_ONLY: ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False),
    STATEFUL: ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
    DESTRUCTIVE: ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False),
}

Ctx = Context[CodeIntelApp, Any]
KeywordsArg = Annotated[list[str] | None, Field(description="identifiers you expect (guesses are fine)")]
OffsetArg = Annotated[int, Field(ge=0, description="a next_offset")]
MaxArg = Annotated[int | None, Field(ge=1, le=5000, description="this many, past the budget")]
CodeHintArg = Annotated[str | None, Field(description="a sketch of the code you expect")]

TOOLS: dict[str, Callable[..., Any]] = {}


def tool(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Make a top-level function a tool of this server. What the server knows of it besides its signature (MCP
    annotations, ledger, shows code) is its entry in core/tool_facts.py, which the workflow reads as well."""
    if fn.__name__ not in TOOL_FACTS:
        raise TypeError(f"tool {fn.__name__} has no entry in code_intel/core/tool_facts.py")
    TOOLS[fn.__name__] = fn
    return fn


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
@tool
def start_session(
    ctx: Ctx,
    intent: Literal["IMPLEMENT", "MODIFY", "INVESTIGATE", "QUESTION"],
    query: Annotated[str, Field(description="the user's request, verbatim")],
    flags: Annotated[list[str] | None, Field(description="options exactly as typed, e.g. ['--quick', '-ni']")] = None,
    repo_path: Annotated[str | None, Field(description="the project root, if given")] = None,
) -> PhaseResponse | RecoveryOffer:
    """Start a guided session for one request: answers the first phase's instruction, expected_payload and
    resources. One session per project; an interrupted one is offered for recovery."""
    answer = app_of(ctx).start_session(intent, query, flags or [], repo_path)
    if answer.get("recovery_available"):
        return RecoveryOffer.model_validate(answer)
    return PhaseResponse.model_validate(answer)


class KeepEarlyChanges(BaseModel):
    """The user's answer to keeping files the agent changed before READY."""

    keep: bool = Field(description="keep these files, as they are now, in the session's commit")


def _files_to_confirm(ctx: Ctx, data: Any) -> list[str]:
    """The files of a PRE_COMMIT payload's reallowed_files that still need the user's consent."""
    files = data.get("reallowed_files") if isinstance(data, dict) else None
    if not isinstance(files, list) or not files or not all(isinstance(f, str) for f in files):
        return []
    return app_of(ctx).workflow.early_changes_to_confirm(files)


def early_changes_question(context: Context, data: Any) -> Elicit[KeepEarlyChanges] | None:
    """PRE_COMMIT's reallowed_files keeps files changed before READY only with the user's consent: the question
    for the user, asked through MCP elicitation by the SDK before submit_phase runs (a request mid-call up to
    protocol 2025-11-25, the call answered with input_requests and retried from 2026-07-28), or None: nothing to
    ask, or a client that cannot ask (the refusal then says to run `code-intel allow`). The question names each
    file's content, so an answer given for other content is not taken (the SDK asks again when the text changed)."""
    ctx = cast(Ctx, context)  # the SDK finds a resolver's context by the bare class
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.elicitation is None:
        return None
    pending = _files_to_confirm(ctx, data)
    if not pending:
        return None
    root = app_of(ctx).root.path
    named = ", ".join(f"{f} (sha256 {grants.content_hash(root / f)[:12]})" for f in pending)
    return Elicit("The agent asks to keep files it changed before the session reached READY, while writing was not "
                  f"allowed: {named}. Keep them, as they are now, in this session's commit?", KeepEarlyChanges)


def record_user_answer(ctx: Ctx, data: Any, answer: ElicitationResult[KeepEarlyChanges] | None) -> None:
    """A yes from the user is recorded as their grant of the files' current content (workflow/grants.py)."""
    if not isinstance(answer, AcceptedElicitation) or not isinstance(answer.data, KeepEarlyChanges):
        return  # declined, cancelled, or nothing was asked
    pending = _files_to_confirm(ctx, data)
    if answer.data.keep and pending:
        app_of(ctx).workflow.grant_early_changes(pending, by="elicitation")


@tool
def submit_phase(
    ctx: Ctx,
    # declared an object (Codex shows an untyped property to the model as `{}`), validated by the phase's
    # payload model rather than here, so anything else gets payload_mismatch with the phase's instruction
    data: Annotated[Any, Field(description="the payload named by the last response's expected_payload",
                               json_schema_extra={"type": "object"})],
    # the user's answer, when the payload keeps files changed before READY (not an argument: the SDK asks the client)
    keep: Annotated[ElicitationResult[KeepEarlyChanges], Resolve(early_changes_question)],
) -> PhaseResponse:
    """The only way out of a phase: send the payload expected_payload names. The server checks it and the tools
    you used and answers the next instruction or a refusal saying what was wrong; it runs verify.commands at
    POST_IMPL_VERIFY and on entering READY."""
    record_user_answer(ctx, data, keep)
    return PhaseResponse.model_validate(app_of(ctx).workflow.submit_phase(data, progress_reporter(ctx)))


@tool
def get_session_status(ctx: Ctx) -> PhaseResponse:
    """Where the session stands: phase, step, completed steps, instruction, expected_payload, task progress;
    restores an interrupted session. Call it when unsure what to do next."""
    return PhaseResponse.model_validate(app_of(ctx).workflow.get_session_status())


# --------------------------------------------------------------- exploration
@tool
def search_text(
    ctx: Ctx,
    pattern: Annotated[str | list[str], Field(description="a regex or a list of them")],
    path: Annotated[str | None, Field(description="file or folder")] = None,
    glob: Annotated[str | list[str] | None, Field(description="include globs, e.g. '*.py'; prefix ! to exclude")] = None,
    case_sensitive: bool = True,
    fixed_strings: Annotated[bool, Field(description="literal patterns")] = False,
    context_lines: Annotated[int, Field(ge=0, le=20)] = 0,
    offset: OffsetArg = 0,
    max_results: MaxArg = None,
) -> PatternResult | MultiPatternResult:
    """ripgrep over file contents (.gitignore, excludes respected): file, line, column, text per match; a list of
    patterns, one group each. About 1,500 tokens; next_offset pages on."""
    return app_of(ctx).explorer.text_answer(pattern, path=path, glob=glob, case_sensitive=case_sensitive,
                                            fixed_strings=fixed_strings, context_lines=context_lines,
                                            offset=offset, max_results=max_results)


@tool
def search_files(
    ctx: Ctx,
    pattern: Annotated[str, Field(description="glob; ** crosses folders")],
    path: Annotated[str | None, Field(description="folder to search under")] = None,
    max_results: Annotated[int, Field(ge=1, le=10000)] = 200,
) -> FileSearchResult:
    """Files by glob ('src/**/*.py'), .gitignore and excludes respected."""
    return app_of(ctx).explorer.search_files(pattern, path=path, max_results=max_results)


@tool
def find_definitions(
    ctx: Ctx,
    symbol: str,
    path: Annotated[str | None, Field(description="a file or folder")] = None,
    language: Annotated[str | None, Field(description="e.g. python, typescript, go")] = None,
    match: Literal["exact", "prefix", "icase"] = "exact",
    offset: OffsetArg = 0,
    max_results: Annotated[int | None, Field(ge=1, le=2000, description="this many, past the budget")] = None,
) -> DefinitionResult:
    """Where a symbol (or a test, by its title) is defined, own source first, with kind, scope and
    signature. About 1,500 tokens; next_offset pages on."""
    return app_of(ctx).explorer.definitions_answer(symbol, path=path, language=language, match=match,
                                                   offset=offset, max_results=max_results)


@tool
def find_references(
    ctx: Ctx,
    symbol: str,
    path: Annotated[str | None, Field(description="a file or folder")] = None,
    language: str | None = None,
    include_comments: bool = False,
    include_strings: bool = False,
    level: Annotated[Literal["counts", "locations", "code"], Field(
        description="counts: per file; locations: lines; code: with text")] = "locations",
    role: Annotated[Literal["implementation", "test", "doc", "generated", "all"] | None, Field(
        description="whose hits to list")] = None,
    offset: OffsetArg = 0,
    max_results: MaxArg = None,
) -> ReferenceResult:
    """Where a symbol is used in code (comments/strings on request), own source first, near the definition;
    roles that do not fit are counted per file (role= lists one). About 1,500 tokens; `more` says what was left
    out. `Type.name`: uses through Type only."""
    return app_of(ctx).explorer.references_answer(symbol, path=path, language=language,
                                                  include_comments=include_comments, include_strings=include_strings,
                                                  level=level, role=role, offset=offset, max_results=max_results)


@tool
def get_symbols(
    ctx: Ctx, path: Annotated[str, Field(description="a file; with unused, a folder too")],
    unused: Annotated[bool, Field(description="what nothing else names")] = False,
    offset: OffsetArg = 0,
) -> SymbolsResult | UnusedResult:
    """One file's nested outline: classes, methods, functions (nested too), module variables. unused: dead code
    with evidence, exports left out."""
    if unused:
        return app_of(ctx).explorer.unused_answer(path, offset=offset)
    return app_of(ctx).explorer.symbols_answer(path, offset=offset)


@tool
def analyze_structure(
    ctx: Ctx, path: Annotated[str, Field(description="a file")],
    parts: Annotated[list[Literal["imports", "classes", "functions"]] | None, Field(
        description="default: all three")] = None,
    offset: OffsetArg = 0,
) -> StructureResult:
    """One file's imports (with the project files they name), classes, functions and their calls, from its
    syntax tree. About 1,500 tokens; next_offset pages on."""
    return app_of(ctx).explorer.structure_answer(path, parts=list(parts) if parts else None, offset=offset)


@tool
def get_function_at_line(ctx: Ctx, path: str, line: Annotated[int, Field(ge=1)]) -> EnclosingFunction:
    """The innermost function or method around a line: name, span, code."""
    return app_of(ctx).explorer.get_function_at_line(path, line)


@tool
def analyze_impact(
    ctx: Ctx,
    files: Annotated[list[str], Field(description="files you plan to change")],
    symbols: Annotated[list[str] | None, Field(description="symbols you plan to change; default: all in the files")] = None,
    level: Annotated[Literal["summary", "locations", "code"], Field(
        description="locations: the items; code: with their lines")] = "summary",
    group: Annotated[Literal["importers", "direct", "dependents", "tests", "configs", "docs", "should_verify"] | None,
                     Field(description="list this group's items")] = None,
    offset: OffsetArg = 0,
) -> ImpactReport:
    """What changing these files (or symbols; `Type.name`: in Type only) touches: importers, references, tests,
    configs, docs, overrides, stubs, CSS links. Default: counts, importers, top files; group= lists one."""
    return app_of(ctx).analyze_impact(files, symbols, level=level, group=group, offset=offset)


@tool
def query(
    ctx: Ctx,
    question: Annotated[str, Field(description="a natural-language question about the code")],
    keywords: KeywordsArg = None,
    code_hint: CodeHintArg = None,
    offset: OffsetArg = 0,
) -> QueryResult:
    """Routes a question to symbol, text and semantic search and merges the hits. keywords and
    code_hint sharpen it. About 1,500 tokens."""
    return app_of(ctx).query(question, keywords=keywords, code_hint=code_hint, offset=offset)


# ------------------------------------------------------------------ semantic
@tool
def semantic_search(
    ctx: Ctx,
    query: str,
    n_results: Annotated[int, Field(ge=1, le=100)] = 10,
    collection: Annotated[Literal["forest", "map"] | None, Field(description="default: both")] = None,
    keywords: KeywordsArg = None,
    code_hint: CodeHintArg = None,
    offset: OffsetArg = 0,
) -> SemanticSearchResult:
    """Meaning-based search of the code (Forest) and past agreements (Map; a Map hit of 0.7+ answers alone),
    saying how complete the index is; keywords and code_hint sharpen it. About 1,500 tokens."""
    return SemanticSearchResult.model_validate(app_of(ctx).semantic_search(
        query, n_results=n_results, collection=collection, keywords=keywords, code_hint=code_hint, offset=offset))


@tool
def fetch_chunk_detail(ctx: Ctx, chunk_id: str) -> ChunkDetail:
    """The full text and location of one chunk returned by semantic_search."""
    return ChunkDetail.model_validate(app_of(ctx).index.fetch_chunk_detail(chunk_id))


@tool
def validate_symbol_relevance(ctx: Ctx, query: str, symbols: list[str]) -> RelevanceResult:
    """Each symbol's relevance to a request (embedding similarity), with a verdict."""
    return RelevanceResult.model_validate(app_of(ctx).validate_symbol_relevance(query, symbols))


@tool
def sync_index(
    ctx: Ctx,
    force: bool = False,
    wait: Annotated[bool, Field(description="hold the call until the index is complete")] = False,
) -> SyncReport:
    """Update the semantic index: changed files (force: all). Answers within a second, done or not (`index` says
    how far; searches use what is indexed); wait holds the call."""

    def progress(done: float, total: float | None, message: str) -> None:
        anyio.from_thread.run(lambda: ctx.report_progress(done, total, message))

    return SyncReport.model_validate(app_of(ctx).sync_index(force, progress, wait=wait))


@tool
def update_context(ctx: Ctx) -> ContextUpdate:
    """Refresh context.yml's summary of the project rules file (CLAUDE.md by default)."""
    return ContextUpdate.model_validate(app_of(ctx).update_context())


# ---------------------------------------------------- implementation control
@tool
def check_write_target(ctx: Ctx, file_path: str) -> WriteCheck:
    """May this file be written now? Only in READY, inside the project: explored files, new files in explored
    folders, pure markup."""
    return WriteCheck.model_validate(app_of(ctx).workflow.check_write_target(file_path))


@tool
def add_explored_files(ctx: Ctx, files: list[str]) -> ExploredFiles:
    """Mark files you have read as explored, so READY may write them."""
    return ExploredFiles.model_validate(app_of(ctx).workflow.add_explored_files(files))


@tool
def review_changes(ctx: Ctx) -> SessionReview:
    """The session's changes against the base: per file status, line counts, a capped diff, files changed outside
    the write rules, leftovers (debug prints, commented-out code, temp files)."""
    return SessionReview.model_validate(app_of(ctx).workflow.review_changes())


@tool
def run_checks(ctx: Ctx) -> CheckRun:
    """Run the verify.commands for the session's changed files now, as POST_IMPL_VERIFY will: per command the
    verdict, duration, failing tests, the output's tail. In VERIFICATION and POST_IMPL_VERIFY."""
    return CheckRun.model_validate(app_of(ctx).workflow.run_checks(progress_reporter(ctx)))


@tool
def cleanup_stale_branches(ctx: Ctx) -> CleanupResult:
    """Back to the base branch; delete every llm_task_* branch (each reported with its head) and the
    checkpoints; reset the session."""
    return CleanupResult.model_validate(app_of(ctx).workflow.cleanup_stale_branches())


# ------------------------------------------------------------------ learning
@tool
def record_outcome(
    ctx: Ctx,
    outcome: Literal["success", "failure"],
    phase_at_outcome: str | None = None,
    analysis: dict[str, Any] | None = None,
) -> OutcomeEntry:
    """Record how a session ended; a success stores the request's symbols and files in the Map for similar
    requests."""
    return OutcomeEntry.model_validate(app_of(ctx).record_outcome(outcome, phase_at_outcome, analysis or {}))


@tool
def get_outcome_stats(ctx: Ctx) -> OutcomeStats:
    """Recorded outcomes and refusals counted by phase and reason."""
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

        self.registered = {name: Tool.from_function(answering(fn), name=name,
                                                    annotations=ANNOTATIONS[TOOL_FACTS[name].access],
                                                    description=inspect.cleandoc(fn.__doc__ or ""), structured_output=False)
                           for name, fn in TOOLS.items()}
        super().__init__("code-intel", instructions=SERVER_INSTRUCTIONS, lifespan=lifespan,
                         tools=list(self.registered.values()), middleware=[record_calls(TOOL_FACTS)])
        self.app = app
        self.output_schemas = {name: output_schema(result_models(fn)) for name, fn in TOOLS.items()}
        self.add_prompt(Prompt.from_function(code, name="code", title="code-intel session",
                                             description=skill.description()))

    async def list_tools(self) -> list[MCPTool]:
        # arguments outside the input schema are refused (call_tool), so the schema says so too; titles and null
        # options say nothing a model needs (optional arguments may be left out), and the model reads this listing
        return [listed.model_copy(update={"input_schema": {**compact_schema(listed.input_schema),
                                                           "additionalProperties": False},
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
                return await anyio.to_thread.run_sync(partial(self.registered[name].fn, context, data=arguments["data"],
                                                              keep=None))
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
    that blocks reading stdin, so SIGINT alone would leave the server running."""
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
