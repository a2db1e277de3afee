"""code-intel MCP server: the MCP layer only.

Each tool is a top-level typed function: its type hints are its input schema, its docstring its
description and its return type (a pydantic model, or a union of them) its output schema. It
reaches the application object through the server's lifespan context, calls one core function and
returns that function's answer as its result model. Everything around a call is done once, in
`CodeIntelServer.call_tool`: argument validation, the refusal envelope for domain errors and bad
arguments (with isError set, see docs/architecture.md), the session ledger entry, timing, logging
and the compact JSON on the wire. Adding a tool is one decorated function and one result model (named
in RESULT_MODELS: the models are imported when the tool table is built, after the first answer).
The `/code` skill is also served as the MCP prompt `code`, with the user's request as its argument.

Run: `python code_intel_server.py [--project DIR]` or `code-intel serve [--project DIR]`.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import inspect
import json
import logging
import os
import signal
import sys
import threading
import time
import types
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts import Prompt
from mcp.server.mcpserver.tools import Tool, ToolManager
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from mcp_types import Tool as MCPTool
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import PydanticSerializationError, to_json

from code_intel.context import skill
from code_intel.core.errors import CodeIntelError, validation_problems
from code_intel.core.limits import MAX_RESPONSE_BYTES, bound_answer
from code_intel.core.log_setup import setup_logging
from code_intel.core.pathnames import client_safe
from code_intel.explore.shown import shown_files
from code_intel.server.app import CodeIntelApp
from code_intel.server.stdio import WireAnswers, serve_stdio
from code_intel.server.written import dump_json, dump_json_with_body, json_string_body

if TYPE_CHECKING:  # at run time import_result_models() brings them in, when the tool table is built
    from code_intel.context.rules import ContextUpdate
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
    from code_intel.verify.models import CheckRun
    from code_intel.workflow.responses import (
        CleanupResult,
        ExploredFiles,
        PhaseResponse,
        RecoveryOffer,
        SessionReview,
        WriteCheck,
    )


# Where the result models above live; import_result_models() brings them into this module at run time.
RESULT_MODELS = {
    "code_intel.context.rules": ("ContextUpdate",),
    "code_intel.explore.impact": ("ImpactReport",),
    "code_intel.explore.models": ("DefinitionResult", "EnclosingFunction", "FileSearchResult", "MultiPatternResult",
                             "PatternResult", "ReferenceResult", "StructureResult", "SymbolsResult"),
    "code_intel.explore.query": ("QueryResult",),
    "code_intel.index.models": ("ChunkDetail", "RelevanceResult", "SemanticSearchResult", "SyncReport"),
    "code_intel.learning.outcomes": ("OutcomeEntry", "OutcomeStats"),
    "code_intel.verify.models": ("CheckRun",),
    "code_intel.workflow.responses": ("CleanupResult", "ExploredFiles", "PhaseResponse", "RecoveryOffer", "SessionReview",
                                 "WriteCheck"),
}


def import_result_models() -> None:
    """Import the tools' result models into this module, where the tool functions' annotations and bodies
    find them. Building these pydantic models is a good part of our own start-up time, so the server
    answers a client's first message without them: they come with the tool table (CodeIntelServer.tools)."""
    namespace = globals()
    for module_name, names in RESULT_MODELS.items():
        if names[-1] not in namespace:
            module = importlib.import_module(module_name)
            namespace.update((name, getattr(module, name)) for name in names)


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


class Refusal(BaseModel):
    """Every refusal on the wire (the MCP result also sets isError). Workflow refusals add the current
    phase's instruction and expected_payload so the agent can retry without asking for them; a partial
    result (a timed-out search) adds what was found so far."""

    model_config = ConfigDict(extra="allow")
    success: Literal[False] = False
    error: str
    message: str
    hint: str | None = None
    session_id: str | None = None
    current_phase: str | None = None  # null (not absent) when no session is active: see output_schema
    step: int | None = None
    instruction: str | None = None
    expected_payload: dict[str, str] | None = None
    call: str | None = None
    compaction_count: int | None = None


@dataclass(frozen=True)
class ToolSpec:
    fn: Callable[..., Any]
    annotations: ToolAnnotations
    ledger: bool  # recorded in the session ledger (the evidence tools_used claims are checked against)


TOOLS: dict[str, ToolSpec] = {}


def tool(annotations: ToolAnnotations, *, ledger: bool = True) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a top-level function as an MCP tool of this server."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        TOOLS[fn.__name__] = ToolSpec(fn, annotations, ledger)
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
@tool(READ_ONLY)
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


@tool(READ_ONLY)
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


@tool(READ_ONLY)
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


@tool(READ_ONLY)
def get_symbols(ctx: Ctx, path: Annotated[str, Field(description="a file, relative to the project root")]) -> SymbolsResult:
    """The nested outline of one file: classes with their methods, functions and module-level
    variables, each with line and end_line."""
    return app_of(ctx).explorer.get_symbols(path)


@tool(READ_ONLY)
def analyze_structure(
    ctx: Ctx, path: Annotated[str, Field(description="a file, relative to the project root")],
    parts: Annotated[list[Literal["imports", "classes", "functions"]] | None, Field(
        description="default: all three")] = None,
    offset: OffsetArg = 0,
) -> StructureResult:
    """One file's structure from its syntax tree: imports (with the project files they resolve to), classes,
    functions and the calls each makes. Classes and functions are cut to about 1,500 tokens; next_offset pages on."""
    return app_of(ctx).explorer.structure_answer(path, parts=list(parts) if parts else None, offset=offset)


@tool(READ_ONLY)
def get_function_at_line(ctx: Ctx, path: str, line: Annotated[int, Field(ge=1)]) -> EnclosingFunction:
    """The innermost function or method enclosing a line, with its name, span and code."""
    return app_of(ctx).explorer.get_function_at_line(path, line)


@tool(READ_ONLY)
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


@tool(READ_ONLY)
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
@tool(READ_ONLY)
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


@tool(READ_ONLY)
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


# ------------------------------------------------------------- the wire shape
def result_models(fn: Callable[..., Any]) -> tuple[type[BaseModel], ...]:
    """The models a tool function's return annotation names (one, or the members of a union)."""
    import_result_models()
    annotation = get_type_hints(fn)["return"]
    members = get_args(annotation) if get_origin(annotation) in (Union, types.UnionType) else (annotation,)
    models = tuple(m for m in members if isinstance(m, type) and issubclass(m, BaseModel))
    if len(models) != len(members):
        raise TypeError(f"tool {fn.__name__} must return a pydantic model (or a union of them), not {annotation}")
    return models


def _compact(schema: Any) -> Any:
    """A pydantic schema without what the wire never needs: titles, and null as an option (results go
    out with null fields left out, so an optional field is absent rather than null)."""
    if isinstance(schema, list):
        return [_compact(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _compact(value) for key, value in schema.items() if key != "title" and not (key == "default" and value is None)}
    options = out.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options:
        rest = [option for option in options if option != {"type": "null"}]
        del out["anyOf"]
        if len(rest) == 1:
            out.update(rest[0])
        else:
            out["anyOf"] = rest
    if isinstance(out.get("properties"), dict):  # property names are data, not keywords: keep them all
        out["properties"] = {name: _compact(value) for name, value in schema["properties"].items()}
    return out


SUCCESS = {"properties": {"success": {"const": True, "type": "boolean"}}, "required": ["success"]}


@cache
def _model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A model's JSON schema, generated once (Refusal is part of every tool's output schema)."""
    return model.model_json_schema(ref_template="#/$defs/{model}")


def output_schema(models: tuple[type[BaseModel], ...]) -> dict[str, Any]:
    """One object schema for a tool: any of its result models (each with `success: true`) or the refusal."""
    definitions: dict[str, Any] = {}
    choices: list[dict[str, Any]] = []
    answers: tuple[type[BaseModel], ...] = (*models, Refusal)
    for model in answers:
        schema = copy.deepcopy(_model_schema(model))
        definitions.update(schema.pop("$defs", {}))
        definitions[model.__name__] = schema
        ref = {"$ref": f"#/$defs/{model.__name__}"}
        if "success" in schema["properties"]:
            choices.append({"title": model.__name__, "allOf": [ref]})
        else:  # the envelope's `success: true`, beside the model's own fields
            schema.pop("additionalProperties", None)
            choices.append({"title": model.__name__, "allOf": [ref, SUCCESS]})
    titles = [choice.pop("title") for choice in choices]
    compact = _compact({"type": "object", "anyOf": choices, "$defs": definitions})
    # the one null on the wire: a refusal with no session active has no current phase (step is 0)
    compact["$defs"]["Refusal"]["properties"]["current_phase"] = {
        "type": ["string", "null"], "description": "the session's phase; null when no session is active"}
    out = _inline_refs(compact)
    for choice, title in zip(out["anyOf"], titles, strict=True):  # the model each answer is, named
        choice["title"] = title
    return out


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Every `$ref` replaced by the definition it names, except where a definition contains itself (an
    outline's children): validators then do not resolve a reference for every item of a long list."""
    definitions: dict[str, Any] = schema.pop("$defs", {})
    kept: set[str] = set()

    def expand(node: Any, inside: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [expand(item, inside) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in inside:
                kept.add(name)
                return node
            # keys beside the reference (an optional field's description) stay, over the definition's own
            siblings = {key: expand(value, inside) for key, value in node.items() if key != "$ref"}
            return {**expand(definitions[name], (*inside, name)), **siblings}
        return {key: expand(value, inside) for key, value in node.items()}

    out = expand(schema, ())
    pending = set(kept)
    while pending:  # a kept definition is expanded too (its own references to itself stay)
        name = pending.pop()
        definitions[name] = expand(definitions[name], (name,))
    if kept:
        out["$defs"] = {name: definitions[name] for name in sorted(kept)}
    return out


def wire_data(result: BaseModel) -> dict[str, Any]:
    """A result model as the structured content: JSON values, unset and null fields left out."""
    data = result.model_dump(mode="json", exclude_none=True)
    data.setdefault("success", True)
    return data


def result_json(result: BaseModel) -> bytes | None:
    """`wire_json(wire_data(result))`'s bytes, written by the model's serialiser with no dict in between (for an
    answer of thousands of matches that dict is most of the cost; lists already held as JSON, such as search_text's
    matches, are spliced in as they are, tools/server/written.py); None when the result cannot be written as is
    (a file name that is not UTF-8), which then takes the dict path."""
    written = result_json_with_body(result, body=False)
    return written[0] if written is not None else None


def result_json_with_body(result: BaseModel, *, body: bool = True) -> tuple[bytes, bytes | None] | None:
    """result_json's bytes and, with `body`, the same as the inside of a JSON string (the answer's text copy on
    our stdio transport), taking the escaped records a WrittenList made ahead; None as for result_json."""
    try:
        encoded, escaped = (dump_json_with_body(result, exclude_none=True) if body
                            else (dump_json(result, exclude_none=True), None))
    except PydanticSerializationError:
        return None
    if "success" in type(result).model_fields or "success" in (result.model_extra or {}):
        return encoded, escaped
    tail = b'"success":true}' if encoded == b"{}" else b',"success":true}'
    return encoded[:-1] + tail, (escaped[:-1] + json_string_body(tail) if escaped is not None else None)


def argument_refusal(tool_name: str, err: ValidationError) -> dict[str, Any]:
    """Arguments that do not fit a tool's input schema, as the same refusal any other bad input gets."""
    problems = validation_problems(err, "argument", "arguments")
    return {
        "success": False,
        "error": "invalid_argument",
        "message": f"{tool_name} arguments do not fit its input schema: " + "; ".join(problems),
        "hint": f"fix the named arguments and call {tool_name} again; its input schema (tools/list) gives each "
        "argument's type, allowed values and bounds",
    }


# Names agents send for an argument that is spelt otherwise here (the answers' own `expected_payload` makes
# `payload` a natural guess for submit_phase's `data`): the first of the candidates the tool has is suggested.
ARGUMENT_ALIASES: dict[str, tuple[str, ...]] = {
    "payload": ("data",), "phase_data": ("data",), "body": ("data",), "params": ("data",),
    "name": ("symbol", "question"), "symbol_name": ("symbol",), "identifier": ("symbol",),
    "symbols": ("symbol",), "request": ("query",), "prompt": ("query", "question"), "task": ("query",),
    "user_request": ("query",), "text": ("pattern", "query", "question"), "regex": ("pattern",),
    "search": ("pattern", "query", "question"), "glob_pattern": ("pattern", "glob"),
    "query": ("pattern", "question"), "question": ("query",), "file": ("path", "file_path", "files"),
    "filename": ("path", "file_path"), "filepath": ("path", "file_path"), "file_path": ("path", "files"),
    "directory": ("path",), "dir": ("path",), "folder": ("path",), "paths": ("files", "path"),
    "project_path": ("repo_path",), "project": ("repo_path",), "repo": ("repo_path",), "root": ("repo_path",),
    "cwd": ("repo_path",), "limit": ("max_results", "n_results"), "max": ("max_results", "n_results"),
    "top_k": ("n_results", "max_results"), "k": ("n_results", "max_results"), "count": ("max_results", "n_results"),
    "line_number": ("line",), "lineno": ("line",), "id": ("chunk_id",), "options": ("flags",),
}


def unknown_argument_refusal(tool_name: str, arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any] | None:
    """Arguments the tool does not have (a misspelt `paths` for `path`): refused rather than dropped, since a
    search that silently ignores its scope answers a different question than the one asked."""
    known = list(schema.get("properties") or {})
    unknown = [key for key in arguments if key not in known]
    if not unknown:
        return None
    from difflib import get_close_matches

    guesses = {key: close[0] for key in unknown
               if (close := [a for a in ARGUMENT_ALIASES.get(key.lower(), ()) if a in known]
                   or get_close_matches(key, known, n=1, cutoff=0.6))}
    return {
        "success": False,
        "error": "invalid_argument",
        "message": f"{tool_name} has no argument " + ", ".join(repr(key[:100]) for key in unknown)
        + "".join(f" (did you mean {guess!r} for {key[:100]!r}?)" for key, guess in guesses.items()),
        "hint": (f"{tool_name} takes: {', '.join(known)} (tools/list gives their types)" if known
                 else f"{tool_name} takes no arguments: send {{}}"),
    }


# Tools that v1.11 folded into submit_phase (an agent or a skill written for an older server still calls them):
# old name -> what to send instead.
RETIRED_TOOLS: dict[str, str | None] = {
    "check_phase_necessity": "the Q1, Q2 or Q3 payload",
    "set_query_frame": "the QUERY_FRAME payload",
    "begin_phase_gate": "the BRANCH_INTERVENTION payload (choice)",
    "complete_task": "the READY implementation payload (task_id, checklist, summary)",
    "submit_for_review": "the READY completion payload (summary)",
    "submit_exploration": "the EXPLORATION payload",
    "submit_semantic": "the SEMANTIC payload",
    "submit_verification": "the VERIFICATION payload",
    "submit_impact_analysis": "the IMPACT_ANALYSIS payload",
    "submit_quality_review": "the QUALITY_REVIEW payload",
    "finalize_changes": "the PRE_COMMIT payload",
    "merge_to_base": "the MERGE payload (summary)",
    "record_verification_failure": "the POST_IMPL_VERIFY payload with passed: false",
    "record_intervention_used": "the VERIFY_INTERVENTION payload",
    "get_intervention_status": None,  # nothing: the server counts failures itself
}


def unknown_tool_refusal(tool_name: str) -> dict[str, Any]:
    """A call to a tool this server does not have: the contract's invalid_argument, naming the tools it has
    (and, for a tool v1.11 retired, what replaced it)."""
    message = f"unknown tool {tool_name[:100]!r}: code-intel has no tool of that name"
    hint = "call one of: " + ", ".join(TOOLS) + " (tools/list gives their input schemas)"
    if tool_name in RETIRED_TOOLS:
        instead = RETIRED_TOOLS[tool_name]
        message += " any more: every phase now ends through submit_phase"
        hint = (f"send {instead} to submit_phase" if instead else
                "nothing replaces it: the server counts verification failures itself (get_session_status shows "
                "the counters)") + "; get_session_status gives the current phase's instruction and expected_payload"
    return {"success": False, "error": "invalid_argument", "message": message, "hint": hint}


def internal_error(tool_name: str, err: BaseException) -> dict[str, Any]:
    log.error("tool %s failed", tool_name, exc_info=err)
    return {
        "success": False,
        "error": "internal_error",
        "message": f"{tool_name} failed: {type(err).__name__}: {err}",
        "hint": "see .code-intel/logs/server.log; the server is still running",
    }


def wire_json(data: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    """An answer as compact JSON (non-ASCII kept as is), with the data it was made from: a file name that is
    not UTF-8 cannot be encoded, so then the answer carries such names in their \\xNN form (tools/core/pathnames.py)."""
    try:
        return data, to_json(data, fallback=str)
    except PydanticSerializationError:
        safe = client_safe(data)
        return safe, to_json(safe, fallback=str)


def tool_entry(name: str, spec: ToolSpec) -> Tool:
    """One tool as the SDK serves it: input model from the signature, output schema from the result models."""
    import_result_models()  # the signature names them
    # cleandoc: a docstring's continuation lines are indented in the source, not in the description
    entry = Tool.from_function(spec.fn, name=name, description=inspect.cleandoc(spec.fn.__doc__ or ""),
                               annotations=spec.annotations, structured_output=False)
    entry.fn_metadata.output_schema = output_schema(result_models(spec.fn))
    entry.parameters = {**entry.parameters, "additionalProperties": False}  # call_tool refuses any other argument
    return entry


class CodeIntelServer(MCPServer[CodeIntelApp]):
    """MCPServer running the TOOLS table: every call goes through `call_tool`, which answers either the
    tool's result model or the refusal envelope, and records the call in the session ledger."""

    def __init__(self, app: CodeIntelApp) -> None:
        @asynccontextmanager
        async def lifespan(_: MCPServer[CodeIntelApp]) -> AsyncIterator[CodeIntelApp]:
            yield app

        super().__init__("code-intel", instructions=SERVER_INSTRUCTIONS, lifespan=lifespan)
        self.app = app
        self._registered: dict[str, Tool] | None = None  # see tools()
        self.wire_answers: WireAnswers | None = None  # set while serving our stdio transport, see _answer()
        self._building = threading.Lock()
        self._build_started = threading.Event()
        self.build_in_background = True  # after answering tools/list from the saved listing (tests turn it off)
        self.add_prompt(Prompt.from_function(code, name="code", title="code-intel session",
                                             description=skill.description()))

    def tools(self) -> dict[str, Tool]:
        """The tool table, built on first need (tools/list, tools/call) rather than before serving: with the
        result models it imports it is about a quarter of the start-up's CPU time, and a client's first
        message must not wait for it (Claude Code gives its opening `server/discover` 3 s, then falls back to
        `initialize` and connects a second or more later; docs/benchmarks.md, client connect). Built once, under a
        lock: the event loop (a call's input schema) and a worker thread (tools/list) may ask at once."""
        if self._registered is None:
            with self._building:
                self._build()
        assert self._registered is not None
        return self._registered

    def _build(self) -> None:
        """Build the table unless it exists; the caller holds `_building`."""
        if self._registered is None:
            entries = [tool_entry(name, spec) for name, spec in TOOLS.items()]
            self._tool_manager = ToolManager(tools=entries, warn_on_duplicate_tools=self.settings.warn_on_duplicate_tools)
            self._registered = {entry.name: entry for entry in entries}

    async def list_tools(self) -> list[MCPTool]:
        """The listing; before the table exists, the one a server of this very code saved (tools/server/tool_listing.py),
        with the table then built in the background, else the table built now (off the event loop, which
        meanwhile answers other requests) and its listing saved for the next server."""
        if self._registered is not None:
            return await super().list_tools()
        cached = await anyio.to_thread.run_sync(self._saved_listing_or_table)
        if cached is not None:
            if self.build_in_background and not self._build_started.is_set():
                self._build_started.set()
                threading.Thread(target=self.tools, daemon=True, name="code-intel-tool-table").start()
            return cached
        listing = await super().list_tools()
        # saved after the answer, off the event loop: the client is not kept waiting for the file
        threading.Thread(target=self._save_listing, args=(listing,), daemon=True, name="code-intel-tool-table").start()
        return listing

    def _saved_listing_or_table(self) -> list[MCPTool] | None:
        """The saved listing, or None once the table is built. Decided under the build lock, so that a call
        arriving meanwhile waits for the table instead of building it first (answers keep their order)."""
        with self._building:
            if self._registered is None:
                cached = self._saved_listing()
                if cached is not None:
                    return cached
                self._build()
        return None

    @cache  # noqa: B019 - one server object per process: the fingerprint of the code it runs
    def _listing_file(self) -> tuple[Path, str]:
        from code_intel.server import tool_listing as tool_table

        return tool_table.listing_path(self.app.root.state_dir), tool_table.current_key()

    def _saved_listing(self) -> list[MCPTool] | None:
        """The saved listing for this code; None when there is none or anything about it fails (a module
        file gone while it was read, no package metadata): the table is then built, as without a cache."""
        from code_intel.server import tool_listing as tool_table

        try:
            path, key = self._listing_file()
            saved = tool_table.load(path, key)
            return None if saved is None else [MCPTool.model_validate(entry) for entry in saved]
        except Exception:
            log.debug("saved tool listing not used", exc_info=True)
            return None

    def _save_listing(self, listing: list[MCPTool]) -> None:
        from code_intel.server import tool_listing as tool_table

        try:
            path, key = self._listing_file()
            if self.app.root.state_dir.is_dir():  # never create .code-intel/ only for this
                tool_table.save(self.app.root.runtime_dir("cache") / path.name, key,
                                [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listing])
        except Exception:  # only speed is lost
            log.debug("tool listing not saved", exc_info=True)

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        self.tools()  # the SDK asks before a call, on the event loop
        return super()._tool_input_schema(name)

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        entry = self.tools().get(name)
        if context is None:
            return await super().call_tool(name, arguments, context)
        app = app_of(context)
        started = time.perf_counter()
        if entry is None:  # a refusal like any other, rather than the SDK's bare "Unknown tool" text
            return await anyio.to_thread.run_sync(partial(self._answer, app, name, arguments, started,
                                                          refusal=unknown_tool_refusal(name)))
        if refusal := unknown_argument_refusal(name, arguments, entry.parameters):
            return await anyio.to_thread.run_sync(partial(self._answer, app, name, arguments, started, refusal=refusal))
        try:
            kwargs = entry.fn_metadata.validate_arguments(arguments)
            if name == "submit_phase" and isinstance(arguments.get("data"), str):
                kwargs["data"] = arguments["data"]  # the SDK parses JSON text in strings; a payload must be an object
        except ValidationError as err:
            return await anyio.to_thread.run_sync(partial(self._answer, app, name, arguments, started,
                                                          refusal=argument_refusal(name, err)))
        if entry.context_kwarg:
            kwargs[entry.context_kwarg] = context
        if entry.is_async:
            try:
                result = await entry.fn(**kwargs)
            except Exception as err:  # the server stays up whatever a tool does
                return await anyio.to_thread.run_sync(partial(self._answer, app, name, arguments, started, error=err))
            return await anyio.to_thread.run_sync(partial(self._answer, app, name, arguments, started, result=result))
        return await anyio.to_thread.run_sync(partial(self._run, entry.fn, kwargs, app, name, arguments, started))

    def _run(self, fn: Callable[..., Any], kwargs: dict[str, Any], app: CodeIntelApp, name: str,
             arguments: dict[str, Any], started: float) -> CallToolResult:
        try:
            result = fn(**kwargs)
        except Exception as err:  # the server stays up whatever a tool does
            return self._answer(app, name, arguments, started, error=err)
        return self._answer(app, name, arguments, started, result=result)

    def _answer(self, app: CodeIntelApp, name: str, arguments: dict[str, Any], started: float, *,
                result: BaseModel | None = None, error: BaseException | None = None,
                refusal: dict[str, Any] | None = None) -> CallToolResult:
        """The one place a tool's outcome becomes a wire result: envelope, ledger, log line."""
        if refusal is not None:
            data = refusal
        elif error is not None:
            unwritable = None if isinstance(error, CodeIntelError) else app.root.unwritable_state(error, name)
            if unwritable is not None:  # .code-intel/ read-only or the disk full: name the folder and the fix
                log.warning("tool %s: %s", name, unwritable.message)
                error = unwritable
            data = error.to_dict() if isinstance(error, CodeIntelError) else internal_error(name, error)
        else:
            assert result is not None
            data = {"success": True}  # what the log line and the ledger need; the answer is written from the model
        ok = data.get("success") is True
        if not ok:
            app.workflow.annotate_refusal(data)
        written = result_json_with_body(result, body=self.wire_answers is not None) if result is not None else None
        answer, body = written if written is not None else (None, None)
        if answer is None or len(answer) > MAX_RESPONSE_BYTES:
            body = None
            if result is not None:
                data = wire_data(result)
            data, answer = wire_json(data)
            if len(answer) > MAX_RESPONSE_BYTES:  # serialised once; only an answer over the cap is cut and redone
                data, answer = wire_json(bound_answer(data))
        elif self.wire_answers is None:
            data = json.loads(answer)
        spec = TOOLS.get(name)
        if spec is not None and spec.ledger:
            shown = (lambda: shown_files(name, result)) if ok and result is not None else None
            app.workflow.record_tool_call(name, arguments, ok=ok, shown=shown)
        log.info("%s %s in %.0f ms", name, "ok" if ok else data.get("error"), (time.perf_counter() - started) * 1000)
        if self.wire_answers is not None:
            # on our stdio transport the SDK gets markers and the answer's bytes are put in place of both when the
            # line is written (tools/server/stdio.py): the SDK's own pipeline would copy, re-check and re-encode a large
            # answer several times on the way out
            return self.wire_answers.result(answer, is_error=not ok, body=body)
        return CallToolResult(content=[TextContent(type="text", text=answer.decode())], structured_content=data,
                              is_error=not ok)

    def stdio_answers(self) -> WireAnswers:
        """The table of answers for our stdio writer. A lost answer's refusal gets the phase fields like any
        other, unless a call holds the session for more than a second (a submit running checks reports
        progress through this same writer, so waiting on it could deadlock). The workflow is reached only then:
        building it at start-up would delay the server's first answer."""
        return WireAnswers(annotate=lambda refusal: self.app.workflow.annotate_refusal(refusal, wait=1.0))

    async def run_stdio_async(self) -> None:
        """stdio with our layer around the SDK's (tools/server/stdio.py): every request gets an answer, and each tool
        answer is written from its encoded JSON, kept aside until its line goes out."""
        self.wire_answers = self.stdio_answers()
        await serve_stdio(self._lowlevel_server, self.wire_answers)


def _skip_sdk_logging_setup() -> None:
    """We own logging (stderr + .code-intel/logs). The SDK's configure_logging imports rich (~50 ms of
    start-up) only to call logging.basicConfig, which does nothing once our handlers exist."""
    import mcp.server.mcpserver.server as sdk_server

    sdk_server.configure_logging = lambda *args, **kwargs: None  # type: ignore[assignment]


def build_server(app: CodeIntelApp) -> CodeIntelServer:
    _skip_sdk_logging_setup()
    return CodeIntelServer(app)


def save_tool_listing(project: str | Path) -> None:
    """Build the tool table and save its listing in the project's `.code-intel/cache/` now (`code-intel init`),
    so that even the first server started there answers tools/list from the file. A failure only costs speed."""
    app = CodeIntelApp.for_path(project)
    try:
        server = build_server(app)
        server.tools()  # built here: list_tools then answers from the table and saves nothing on its own
        server._save_listing(anyio.run(server.list_tools))
    finally:
        app.close()


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
    from code_intel.server import gc_policy as heap

    heap.install()  # full collections walk what is new, not the whole long-lived heap (tools/server/gc_policy.py)
    server = build_server(app)
    try:
        server.run()
    finally:
        app.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
