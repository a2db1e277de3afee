"""The refusal envelope: every way a tool call can fail, turned into one answer shape (CONTRACT.md, Errors).

`refusal()` is the only place a refusal is assembled: a domain error (CodeIntelError) gives its code, message, hint
and details; a write into `.code-intel/` that failed names the folder and the fix; anything else is an
`internal_error` and is logged with its traceback. The workflow then adds the session's phase fields (instruction,
expected_payload, call), so the agent can retry without asking for them.
"""

from __future__ import annotations

import logging
from difflib import get_close_matches
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from code_intel.core.errors import CodeIntelError, InvalidArgument, validation_problems

if TYPE_CHECKING:
    from code_intel.server.app import CodeIntelApp

log = logging.getLogger("code_intel.server")


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
    current_phase: str | None = None  # null (not absent) when no session is active: see answers.output_schema
    step: int | None = None
    instruction: str | None = None
    expected_payload: dict[str, str] | None = None
    call: str | None = None
    compaction_count: int | None = None


def refusal(err: BaseException, tool: str, app: CodeIntelApp) -> dict[str, Any]:
    """The refusal envelope for `err`, raised by (or on the way to) `tool`, with the session's phase fields."""
    if not isinstance(err, CodeIntelError):
        unwritable = app.root.unwritable_state(err, tool)
        if unwritable is not None:  # .code-intel/ read-only or the disk full: name the folder and the fix
            log.warning("tool %s: %s", tool, unwritable.message)
            err = unwritable
    if isinstance(err, CodeIntelError):
        data: dict[str, Any] = {"success": False, "error": err.code, "message": err.message}
        if err.hint:
            data["hint"] = err.hint
        data.update(err.details)
    else:
        log.error("tool %s failed", tool, exc_info=err)
        data = {"success": False, "error": "internal_error", "message": f"{tool} failed: {type(err).__name__}: {err}",
                "hint": "see .code-intel/logs/server.log; the server is still running"}
    app.workflow.annotate_refusal(data)
    return data


def argument_error(tool: str, err: ValidationError) -> InvalidArgument:
    """Arguments that do not fit a tool's input schema, refused like any other bad input."""
    return InvalidArgument(f"{tool} arguments do not fit its input schema: "
                           + "; ".join(validation_problems(err, "argument", "arguments")),
                           hint=f"fix the named arguments and call {tool} again; its input schema (tools/list) gives "
                                "each argument's type, allowed values and bounds")


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


def unknown_argument_error(tool: str, arguments: dict[str, Any], known: list[str]) -> InvalidArgument | None:
    """Arguments the tool does not have (a misspelt `paths` for `path`): refused rather than dropped, since a
    search that silently ignores its scope answers a different question than the one asked."""
    unknown = [key for key in arguments if key not in known]
    if not unknown:
        return None
    guesses = {key: close[0] for key in unknown
               if (close := [a for a in ARGUMENT_ALIASES.get(key.lower(), ()) if a in known]
                   or get_close_matches(key, known, n=1, cutoff=0.6))}
    return InvalidArgument(f"{tool} has no argument " + ", ".join(repr(key[:100]) for key in unknown)
                           + "".join(f" (did you mean {guess!r} for {key[:100]!r}?)" for key, guess in guesses.items()),
                           hint=(f"{tool} takes: {', '.join(known)} (tools/list gives their types)" if known
                                 else f"{tool} takes no arguments: send {{}}"))


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


def unknown_tool_error(tool: str, tools: list[str]) -> InvalidArgument:
    """A call to a tool this server does not have: the contract's invalid_argument, naming the tools it has
    (and, for a tool v1.11 retired, what replaced it)."""
    message = f"unknown tool {tool[:100]!r}: code-intel has no tool of that name"
    hint = "call one of: " + ", ".join(tools) + " (tools/list gives their input schemas)"
    if tool in RETIRED_TOOLS:
        instead = RETIRED_TOOLS[tool]
        message += " any more: every phase now ends through submit_phase"
        hint = (f"send {instead} to submit_phase" if instead else
                "nothing replaces it: the server counts verification failures itself (get_session_status shows "
                "the counters)") + "; get_session_status gives the current phase's instruction and expected_payload"
    return InvalidArgument(message, hint=hint)
