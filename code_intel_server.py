"""code-intel MCP server: the MCP layer only.

Each tool is a thin typed function: it validates its arguments (pydantic, from the type hints),
calls one core function on the application object, records the call in the session ledger and
returns a structured result. Domain errors become the refusal envelope; nothing crashes the server.

Run: `python code_intel_server.py [--project DIR]` or `code-intel serve [--project DIR]`.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tools.app import CodeIntelApp
from tools.errors import CodeIntelError
from tools.logs import setup_logging

log = logging.getLogger("code_intel.server")

SERVER_INSTRUCTIONS = (
    "code-intel guides a coding session through exploration, verification, planning, implementation, "
    "review, commit and merge. Start with start_session, then follow each response's `instruction` and "
    "send `expected_payload` to submit_phase. After a context loss call get_session_status."
)

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
STATEFUL = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)


class ToolResult(BaseModel):
    """Every tool answers an object with `success`; refusals add `error` and `message`."""

    model_config = ConfigDict(extra="allow")
    success: bool
    error: str | None = None
    message: str | None = None


Result = Annotated[CallToolResult, ToolResult]


def _to_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, BaseModel):
        data = value.model_dump(mode="json", exclude_none=True)
    elif isinstance(value, dict):
        data = json.loads(json.dumps(value, default=str))
    else:
        data = {"result": value}
    data.setdefault("success", True)
    return data


def _respond(data: dict[str, Any]) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(data, ensure_ascii=False, indent=1))],
        structured_content=data,
    )


def _skip_sdk_logging_setup() -> None:
    """We own logging (stderr + .code-intel/logs). The SDK's configure_logging imports rich (~50 ms of
    start-up) only to call logging.basicConfig, which does nothing once our handlers exist."""
    import mcp.server.mcpserver.server as sdk_server

    sdk_server.configure_logging = lambda *args, **kwargs: None  # type: ignore[assignment]


def argument_refusal(tool: str, err: ValidationError) -> dict[str, Any]:
    """Arguments that do not fit a tool's input schema, as the same refusal any other bad input gets."""
    problems = [f"{'.'.join(str(part) for part in e['loc']) or 'arguments'}: {e['msg']}" for e in err.errors()]
    return {
        "success": False,
        "error": "invalid_argument",
        "message": f"{tool} arguments do not fit its input schema: " + "; ".join(problems),
        "hint": f"fix the named arguments and call {tool} again; its input schema (tools/list) gives each "
        "argument's type, allowed values and bounds",
    }


class CodeIntelServer(MCPServer):
    """MCPServer whose schema violations answer a structured `invalid_argument` refusal, like every other
    bad input, instead of the SDK's bare error text. `on_refusal` adds the session's phase to it."""

    on_refusal: Callable[[dict[str, Any]], None] | None = None

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as err:
            if isinstance(err, UnexpectedToolError) or not isinstance(err.__cause__, ValidationError):
                raise
            data = argument_refusal(name, err.__cause__)
            if self.on_refusal is not None:
                self.on_refusal(data)
            log.info("%s invalid_argument (schema)", name)
            return _respond(data)


def build_server(app: CodeIntelApp) -> MCPServer:
    _skip_sdk_logging_setup()
    mcp = CodeIntelServer("code-intel", instructions=SERVER_INSTRUCTIONS)
    mcp.on_refusal = app.workflow.annotate_refusal

    def run(tool: str, arguments: dict[str, Any], call: Callable[[], Any], *, ledger: bool = True) -> CallToolResult:
        started = time.perf_counter()
        try:
            data = _to_dict(call())
        except CodeIntelError as err:
            data = err.to_dict()
            app.workflow.annotate_refusal(data)
        except Exception as err:  # the server stays up whatever a tool does
            log.exception("tool %s failed", tool)
            data = {
                "success": False,
                "error": "internal_error",
                "message": f"{tool} failed: {type(err).__name__}: {err}",
                "hint": "see .code-intel/logs/server.log; the server is still running",
            }
        ok = bool(data.get("success"))
        if ledger:
            app.workflow.record_tool_call(tool, arguments, ok=ok)
        log.info("%s %s in %.0f ms", tool, "ok" if ok else data.get("error"), (time.perf_counter() - started) * 1000)
        return _respond(data)

    # ---------------------------------------------------------------- session
    @mcp.tool(annotations=STATEFUL)
    def start_session(
        intent: Literal["IMPLEMENT", "MODIFY", "INVESTIGATE", "QUESTION"],
        query: Annotated[str, Field(description="the user's request, verbatim")],
        flags: Annotated[list[str] | None, Field(description="options exactly as typed, e.g. ['--quick', '-ni']")] = None,
        repo_path: Annotated[str | None, Field(description="must be the server's project root when given")] = None,
    ) -> Result:
        """Start a guided session for one user request. The server parses the flags, loads the project
        rules and answers the first phase's instruction, expected_payload and resources to read. Only one
        session per project runs at a time; an interrupted one is offered for recovery."""
        args = {"intent": intent, "query": query, "flags": flags or [], "repo_path": repo_path}
        return run("start_session", args, lambda: app.start_session(intent, query, flags or [], repo_path), ledger=False)

    def progress_reporter(ctx: Context) -> Callable[[float, str], None]:
        """Progress notifications from a worker thread (sent only when the client asked with a progress token)."""
        import anyio

        def progress(elapsed: float, message: str) -> None:
            anyio.from_thread.run(lambda: ctx.report_progress(elapsed, None, message))

        return progress

    @mcp.tool(annotations=STATEFUL)
    async def submit_phase(
        ctx: Context,
        data: Annotated[Any, Field(description="the payload named by the last response's expected_payload")] = None,
    ) -> Result:
        """The only way out of a phase. Send the payload the current phase expects (see expected_payload);
        the server validates it, checks the tools you used, decides the next phase and answers its
        instruction. A refusal names what was wrong and repeats the current phase's instruction. At
        POST_IMPL_VERIFY the server runs the configured verify.commands itself, with progress."""
        import anyio

        progress = progress_reporter(ctx)
        return await anyio.to_thread.run_sync(
            lambda: run("submit_phase", {"data": data}, lambda: app.workflow.submit_phase(data, progress), ledger=False)
        )

    @mcp.tool(annotations=READ_ONLY)
    def get_session_status() -> Result:
        """Where the session stands: phase, step, completed steps, instruction, expected_payload, task
        progress and compaction_count. Restores an interrupted session from its checkpoint. Call it
        whenever you are unsure what to do next."""
        return run("get_session_status", {}, app.workflow.get_session_status, ledger=False)

    # ------------------------------------------------------------ exploration
    @mcp.tool(annotations=READ_ONLY)
    def search_text(
        pattern: Annotated[str | list[str], Field(description="a regex, or a list of them searched in parallel")],
        path: Annotated[str | None, Field(description="file or folder relative to the project root")] = None,
        glob: Annotated[str | list[str] | None, Field(description="include globs, e.g. '*.py'; prefix ! to exclude")] = None,
        case_sensitive: bool = True,
        fixed_strings: Annotated[bool, Field(description="treat patterns as literal text")] = False,
        context_lines: Annotated[int, Field(ge=0, le=20)] = 0,
        max_results: Annotated[int, Field(ge=1, le=5000)] = 100,
    ) -> Result:
        """Search file contents with ripgrep (respects .gitignore and the configured excludes). Each match
        has file, line, column and text; a list of patterns gives one group per pattern. `truncated` and
        `total_matches` say when max_results cut the list."""
        args: dict[str, Any] = dict(pattern=pattern, path=path, glob=glob, case_sensitive=case_sensitive,
                    fixed_strings=fixed_strings, context_lines=context_lines, max_results=max_results)
        return run("search_text", args, lambda: app.explorer.search_text(**args))

    @mcp.tool(annotations=READ_ONLY)
    def search_files(
        pattern: Annotated[str, Field(description="glob on project-relative paths; ** crosses folders")],
        path: Annotated[str | None, Field(description="folder to search under")] = None,
        max_results: Annotated[int, Field(ge=1, le=10000)] = 200,
    ) -> Result:
        """Find files by glob (e.g. 'src/**/*.py', '**/test_*.py'), honouring .gitignore and the configured
        excludes. Returns project-relative paths."""
        args: dict[str, Any] = dict(pattern=pattern, path=path, max_results=max_results)
        return run("search_files", args, lambda: app.explorer.search_files(**args))

    @mcp.tool(annotations=READ_ONLY)
    def find_definitions(
        symbol: str,
        path: Annotated[str | None, Field(description="limit to a file or folder")] = None,
        language: Annotated[str | None, Field(description="e.g. python, typescript, go")] = None,
        match: Annotated[Literal["exact", "prefix", "icase"], Field(description="name matching")] = "exact",
        max_results: Annotated[int, Field(ge=1, le=2000)] = 50,
    ) -> Result:
        """Where a symbol is defined, from a Universal Ctags index (tree-sitter for languages ctags misses).
        Each result has file, line, end_line, kind, scope, language and signature where known."""
        args: dict[str, Any] = dict(symbol=symbol, path=path, language=language, match=match, max_results=max_results)
        return run("find_definitions", args, lambda: app.explorer.find_definitions(**args))

    @mcp.tool(annotations=READ_ONLY)
    def find_references(
        symbol: str,
        path: Annotated[str | None, Field(description="limit to a file or folder")] = None,
        language: str | None = None,
        include_comments: bool = False,
        include_strings: bool = False,
        max_results: Annotated[int, Field(ge=1, le=5000)] = 200,
    ) -> Result:
        """Where a symbol is used: whole-word ripgrep matches narrowed by tree-sitter to real identifiers
        (comments and strings excluded unless asked). Definition sites are marked `is_definition`."""
        args: dict[str, Any] = dict(symbol=symbol, path=path, language=language, include_comments=include_comments,
                    include_strings=include_strings, max_results=max_results)
        return run("find_references", args, lambda: app.explorer.find_references(**args))

    @mcp.tool(annotations=READ_ONLY)
    def get_symbols(path: Annotated[str, Field(description="a file, relative to the project root")]) -> Result:
        """The nested outline of one file: classes with their methods, functions and module-level
        variables, each with line and end_line."""
        return run("get_symbols", {"path": path}, lambda: app.explorer.get_symbols(path))

    @mcp.tool(annotations=READ_ONLY)
    def analyze_structure(path: Annotated[str, Field(description="a file, relative to the project root")]) -> Result:
        """The structure of one file from its syntax tree: imports, classes, functions and the calls each
        function makes."""
        return run("analyze_structure", {"path": path}, lambda: app.explorer.analyze_structure(path))

    @mcp.tool(annotations=READ_ONLY)
    def get_function_at_line(path: str, line: Annotated[int, Field(ge=1)]) -> Result:
        """The innermost function or method enclosing a line, with its name, span and code."""
        return run("get_function_at_line", {"path": path, "line": line}, lambda: app.explorer.get_function_at_line(path, line))

    @mcp.tool(annotations=READ_ONLY)
    def analyze_impact(
        files: Annotated[list[str], Field(description="files you plan to change")],
        symbols: Annotated[list[str] | None, Field(description="symbols you plan to change; default: all in the files")] = None,
    ) -> Result:
        """What a change to these files would touch: references and importers of their symbols, tests that
        use them, configs and docs that mention them, and markup cross-references (CSS class/id <-> HTML,
        JSX, Vue and DOM code). Grouped as direct, dependents, tests, configs, docs and should_verify."""
        return run("analyze_impact", {"files": files, "symbols": symbols}, lambda: app.explorer.analyze_impact(files, symbols))

    @mcp.tool(annotations=READ_ONLY)
    def query(question: Annotated[str, Field(description="a natural-language question about the code")]) -> Result:
        """A general entry point: routes a question to symbol, text and (when the index exists) semantic
        search and merges the results, each with file and line."""
        return run("query", {"question": question}, lambda: app.query(question))

    # --------------------------------------------------------------- semantic
    @mcp.tool(annotations=READ_ONLY)
    def semantic_search(
        query: str,
        n_results: Annotated[int, Field(ge=1, le=100)] = 10,
        collection: Annotated[Literal["forest", "map"] | None, Field(description="default: Map first, then Forest")] = None,
    ) -> Result:
        """Meaning-based search over the code index (Forest) and past successful agreements (Map). A Map
        hit scoring 0.7 or more answers alone; the response says which collection answered and whether
        the index is complete."""
        args: dict[str, Any] = dict(query=query, n_results=n_results, collection=collection)
        return run("semantic_search", args, lambda: app.index.semantic_search(**args))

    @mcp.tool(annotations=READ_ONLY)
    def fetch_chunk_detail(chunk_id: str) -> Result:
        """The full text and location of one chunk returned by semantic_search."""
        return run("fetch_chunk_detail", {"chunk_id": chunk_id}, lambda: app.index.fetch_chunk_detail(chunk_id))

    @mcp.tool(annotations=READ_ONLY)
    def validate_symbol_relevance(query: str, symbols: list[str]) -> Result:
        """How relevant each symbol is to a request, by embedding similarity, with a verdict per symbol."""
        args: dict[str, Any] = dict(query=query, symbols=symbols)
        return run("validate_symbol_relevance", args, lambda: app.index.validate_symbol_relevance(query, symbols))

    @mcp.tool(annotations=STATEFUL)
    async def sync_index(ctx: Context, force: bool = False) -> Result:
        """Bring the semantic index up to date: only changed files are re-chunked and re-embedded; `force`
        rebuilds everything. Reports counts, duration and whether the index is complete, with progress."""
        import anyio

        def progress(done: float, total: float | None, message: str) -> None:
            anyio.from_thread.run(lambda: ctx.report_progress(done, total, message))

        return await anyio.to_thread.run_sync(
            lambda: run("sync_index", {"force": force}, lambda: app.index.sync(force=force, progress=progress))
        )

    @mcp.tool(annotations=STATEFUL)
    def update_context() -> Result:
        """Refresh context.yml's project_rules summary from the project rules file (CLAUDE.md by default)."""
        return run("update_context", {}, app.update_context)

    # --------------------------------------------------- implementation control
    @mcp.tool(annotations=READ_ONLY)
    def check_write_target(file_path: str) -> Result:
        """May this file be written now? Writes are allowed only in READY, only inside the project, to
        explored files, new files in explored folders, or pure markup. Answers `allowed` and `reason`."""
        return run("check_write_target", {"file_path": file_path}, lambda: app.workflow.check_write_target(file_path))

    @mcp.tool(annotations=STATEFUL)
    def add_explored_files(files: list[str]) -> Result:
        """Add files you have read to the session's explored set, so that they may be written in READY."""
        return run("add_explored_files", {"files": files}, lambda: app.workflow.add_explored_files(files))

    @mcp.tool(annotations=READ_ONLY)
    def review_changes() -> Result:
        """The session's changes against the base: per file status, line counts and a unified diff (capped),
        files changed outside the write rules, and garbage candidates (debug prints, commented-out
        blocks, temp files, large binaries)."""
        return run("review_changes", {}, app.workflow.review_changes)

    @mcp.tool(annotations=STATEFUL)
    async def run_checks(ctx: Context) -> Result:
        """Run the project's verify.commands (config.json) now, as POST_IMPL_VERIFY will: the commands relevant
        to the session's changed files, in the project root, each with its timeout. Answers per command the
        verdict, duration, failing test names and the output's tail. Allowed in VERIFICATION and
        POST_IMPL_VERIFY; long runs send progress notifications."""
        import anyio

        progress = progress_reporter(ctx)
        return await anyio.to_thread.run_sync(lambda: run("run_checks", {}, lambda: app.workflow.run_checks(progress)))

    @mcp.tool(annotations=DESTRUCTIVE)
    def cleanup_stale_branches() -> Result:
        """Return to the base branch, delete every llm_task_* branch, delete checkpoints and reset the
        session. Reports each deleted branch with its head commit so it can be recovered."""
        return run("cleanup_stale_branches", {}, app.workflow.cleanup_stale_branches)

    # --------------------------------------------------------------- learning
    @mcp.tool(annotations=STATEFUL)
    def record_outcome(
        outcome: Literal["success", "failure"],
        phase_at_outcome: str | None = None,
        analysis: dict[str, Any] | None = None,
    ) -> Result:
        """Record how a session ended. A success also stores the request -> symbols/files agreement in the
        Map so similar requests find it first."""
        args: dict[str, Any] = dict(outcome=outcome, phase_at_outcome=phase_at_outcome, analysis=analysis)
        return run("record_outcome", args, lambda: app.record_outcome(outcome, phase_at_outcome, analysis or {}))

    @mcp.tool(annotations=READ_ONLY)
    def get_outcome_stats() -> Result:
        """Counts of recorded outcomes and refusals by phase and reason, from the decision and outcome logs."""
        return run("get_outcome_stats", {}, app.outcome_stats)

    return mcp


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
    server = build_server(app)
    try:
        server.run()
    finally:
        app.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
