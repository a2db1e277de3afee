"""`code-intel hook EVENT`: read the client's event JSON on stdin, answer on stdout, always exit 0.

Claude Code lets a tool call through when a hook exits with anything but 0 or 2 (and exit 2 blocks
it with stderr as the reason), so this entry point catches every error itself and answers with an
explicit decision instead:
- a refusal is `permissionDecision: "deny"` with the reason (the only decision Codex honours);
- an allowed call gets no output at all, so the client's own permission rules still apply;
- when the hook itself fails, it denies while a session that has not reached READY is active (fail
  closed), and otherwise lets the call through with a warning on stderr.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from code_intel.core.errors import CheckpointCorrupt
from code_intel.core.project import ENV_PROJECT, ProjectRoot

if TYPE_CHECKING:
    import argparse

EVENTS = ("pre-tool-use", "session-start")


def _root(explicit: str | None, event: dict[str, Any]) -> ProjectRoot:
    """--project, else $CODE_INTEL_PROJECT, else the event's cwd, else the working directory."""
    import os

    candidate = explicit or os.environ.get(ENV_PROJECT) or event.get("cwd") or os.getcwd()
    return ProjectRoot(Path(str(candidate)).expanduser().resolve())


def _emit(output: dict[str, Any]) -> None:
    try:
        sys.stdout.write(json.dumps(output, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    except OSError:  # the client stopped listening; nothing left to tell it
        pass


def _warn(text: str) -> None:
    try:
        print(f"code-intel hook: {text}", file=sys.stderr)
    except OSError:
        pass


def deny(reason: str) -> None:
    _emit({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                  "permissionDecisionReason": reason}})


def _phase_if_active(root: ProjectRoot) -> str | None:
    """After a failure: the active session's phase, "unreadable" for a checkpoint that cannot be read, else None."""
    try:
        from code_intel.hooks.session import find_session

        session = find_session(root)
        return session.phase if session is not None else None
    except Exception:  # whatever broke the hook may break this too: a checkpoint file means a session
        sessions = root.state_dir / "sessions"
        try:
            return "unreadable" if any(p.suffix == ".json" for p in sessions.iterdir()) else None
        except OSError:
            return None


def pre_tool_use(event: dict[str, Any], root: ProjectRoot) -> None:
    from code_intel.hooks.pre_tool_use import decide

    try:
        decision = decide(event, root)
    except CheckpointCorrupt as err:
        deny(f"code-intel blocked this write: {err.message}. The session cannot be read, so no file may be written "
             f"until it is repaired or discarded; ask the user ({err.hint}).")
        return
    if not decision.allow:
        deny(decision.reason)


def session_start(event: dict[str, Any], root: ProjectRoot) -> None:
    from code_intel.hooks.session_start import session_context

    text = session_context(event, root)
    if text:
        _emit({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}})


def run_hook(args: argparse.Namespace) -> int:
    """CLI entry: `code-intel hook pre-tool-use|session-start [--project DIR]`."""
    name = str(args.event)
    if name not in EVENTS:
        _warn(f"unknown hook event {name!r}; expected one of {', '.join(EVENTS)}")
        return 1
    event: dict[str, Any] = {}
    root: ProjectRoot | None = None
    try:
        raw = sys.stdin.read()
        parsed = json.loads(raw) if raw.strip() else {}
        if not isinstance(parsed, dict):
            raise ValueError(f"the event on stdin is a JSON {type(parsed).__name__}, not an object")
        event = parsed
        root = _root(getattr(args, "project", None), event)
        (pre_tool_use if name == "pre-tool-use" else session_start)(event, root)
    except Exception as err:  # never let an error turn into the client's "let it through"
        problem = f"{type(err).__name__}: {err}"
        if name != "pre-tool-use":
            _warn(f"session-start failed ({problem})")
            return 0
        if root is None:
            try:
                root = _root(getattr(args, "project", None), event)
            except Exception:
                _warn(f"failed ({problem}) and the project cannot be found; the call was let through")
                return 0
        phase = _phase_if_active(root)
        if phase is not None and phase != "READY":
            deny(f"code-intel's hook failed ({problem}) while a session is active in {phase}; writes stay blocked "
                 "outside READY. Continue the session with submit_phase, or ask the user to check "
                 "`code-intel doctor`.")
        else:
            _warn(f"failed ({problem}); the call was let through" + (" (session in READY)" if phase else " (no session)"))
    return 0
