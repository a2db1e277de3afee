"""Domain errors. Each carries the refusal code the MCP layer puts in its envelope."""

from __future__ import annotations

from typing import Any


class CodeIntelError(Exception):
    """Base of every refusal the server gives: a code, a message and, when useful, a hint."""

    code = "error"

    def __init__(self, message: str, *, hint: str | None = None, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"success": False, "error": self.code, "message": self.message}
        if self.hint:
            out["hint"] = self.hint
        out.update(self.details)
        return out


def validation_problems(err: Any, noun: str = "field", top: str = "(top level)") -> list[str]:
    """One line per problem of a pydantic ValidationError, the same wording wherever input is checked
    (tool arguments, phase payloads, settings files, the phase contract, checkpoints):
    `missing field 'x'`, `unknown field 'x'`, `field 'x': <why> (got <value>)`."""
    problems = []
    for e in err.errors():
        where = ".".join(str(part) for part in e["loc"]) or top
        if e["type"] == "missing":
            problems.append(f"missing {noun} '{where}'")
        elif e["type"] == "extra_forbidden":
            problems.append(f"unknown {noun} '{where}'")
        else:
            problems.append(f"{noun} '{where}': {e['msg']} (got {e.get('input')!r:.80})")
    return problems


class InvalidArgument(CodeIntelError):
    code = "invalid_argument"


class PathOutsideProject(CodeIntelError):
    code = "path_outside_project"


class FileNotFound(CodeIntelError):
    """A path argument names no file or folder of the project: an argument that does not fit the tool's rules,
    so it has the contract's `invalid_argument` code; the message says the path does not exist."""

    code = "invalid_argument"


class ToolUnavailable(CodeIntelError):
    """A binary or library the tool needs is missing; the hint says how to install it."""

    code = "tool_unavailable"


class StateUnwritable(CodeIntelError):
    """`.code-intel/` (or a folder in it) cannot be written: read-only, wrong owner or a full disk.

    It shares the contract's `tool_unavailable` code: like a missing rg, it is a precondition of the
    machine, and the message names the folder and how to fix it."""

    code = "tool_unavailable"


class ConfigError(CodeIntelError):
    """A settings file (config.json, context.yml, phase_contract.yml) cannot be read or does not validate.

    On the wire it has the contract's `tool_unavailable` code, like StateUnwritable: the tool cannot run until
    the project is put right, and the message names the file and the problem, the hint how to fix it."""

    code = "tool_unavailable"


class GitError(CodeIntelError):
    code = "git_error"


# Workflow refusals: the codes of the contract's phase-refusal envelope.
class PayloadMismatch(CodeIntelError):
    code = "payload_mismatch"


class TaskValidationFailed(CodeIntelError):
    code = "task_validation_failed"


class NoActiveSession(CodeIntelError):
    code = "no_active_session"


class SessionActive(CodeIntelError):
    code = "session_active"


class InvalidFlag(CodeIntelError):
    code = "invalid_flag"


class CheckpointCorrupt(CodeIntelError):
    code = "checkpoint_corrupt"

