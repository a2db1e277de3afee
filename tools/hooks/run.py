"""`code-intel hook EVENT`: read the client's event JSON on stdin, answer on stdout, always exit 0.

Claude Code lets a tool call through when a hook exits with anything but 0 or 2 (and exit 2 blocks
it with stderr as the reason), and both clients run the call anyway when a hook outlives their
timeout (10 s as init installs it), so this entry point never relies on either:
- a refusal is `permissionDecision: "deny"` with the reason (the only decision Codex honours);
- an allowed call gets no output at all, so the client's own permission rules still apply;
- the hook's work is bounded: at most MAX_EVENT_BYTES of stdin, BUDGET_CPU_SECONDS of CPU and
  BUDGET_WALL_SECONDS in all for the decision (interval timers interrupt it; the shell reader also bounds its
  own nesting, globbing and time);
- when the hook fails (malformed event, its own exception, the time budget spent) while a session is
  active, it denies, in every phase (fail closed); with no session it lets the call through with a
  warning on stderr. It never raises.

`post-tool-use` only records (the files a tool's answer showed, tools/hooks/post_tool_use.py): it
prints nothing and never blocks.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from code_intel.core.errors import CheckpointCorrupt
from code_intel.core.project import ENV_PROJECT, ProjectRoot

if TYPE_CHECKING:
    import argparse

EVENTS = ("pre-tool-use", "post-tool-use", "session-start")
BUDGET_CPU_SECONDS = 1.5  # the hook's own work; bounded inputs keep the worst case far below it
BUDGET_WALL_SECONDS = 6.0  # and in all, so the answer comes before the clients' 10 s timeout on a loaded machine
FALLBACK_SECONDS = 0.3  # finding out, after a failure, whether a session is active
MAX_EVENT_BYTES = 8_000_000


class HookTimeout(Exception):
    """The hook's time budget ran out before it decided."""


@contextmanager
def time_budget(cpu_seconds: float, wall_seconds: float | None = None) -> Iterator[None]:
    """Raise HookTimeout in the main thread once the process has used `cpu_seconds` of CPU (what the hook's own work
    costs, whatever the machine's load), or once `wall_seconds` have passed (a read that hangs). A no-op where
    interval timers are unavailable."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def expired(signum: int, frame: Any) -> None:
        kind = "of CPU" if signum == signal.SIGPROF else "in all"
        raise HookTimeout(f"the hook took longer than {cpu_seconds if signum == signal.SIGPROF else wall_seconds:g} s "
                          f"{kind}")

    timers = [(signal.SIGPROF, signal.ITIMER_PROF, cpu_seconds)]
    if wall_seconds is not None:
        timers.append((signal.SIGALRM, signal.ITIMER_REAL, wall_seconds))
    previous = [(signum, signal.signal(signum, expired)) for signum, _, _ in timers]
    for _, timer, seconds in timers:
        signal.setitimer(timer, seconds)
    try:
        yield
    finally:
        for _, timer, _ in timers:
            signal.setitimer(timer, 0)
        for signum, handler in previous:
            signal.signal(signum, handler)


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
        with time_budget(FALLBACK_SECONDS, 2 * FALLBACK_SECONDS):
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


def post_tool_use(event: dict[str, Any], root: ProjectRoot) -> None:
    from code_intel.hooks.post_tool_use import record_reads

    record_reads(event, root)


def session_start(event: dict[str, Any], root: ProjectRoot) -> None:
    from code_intel.hooks.session_start import session_context

    text = session_context(event, root)
    if text:
        _emit({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}})


HANDLERS = {"pre-tool-use": pre_tool_use, "post-tool-use": post_tool_use, "session-start": session_start}


def _read_event() -> dict[str, Any]:
    raw = sys.stdin.buffer.read(MAX_EVENT_BYTES + 1)
    if len(raw) > MAX_EVENT_BYTES:
        raise ValueError(f"the event on stdin is larger than {MAX_EVENT_BYTES} bytes")
    parsed = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    if not isinstance(parsed, dict):
        raise ValueError(f"the event on stdin is a JSON {type(parsed).__name__}, not an object")
    return parsed


def run_hook(args: argparse.Namespace) -> int:
    """CLI entry: `code-intel hook pre-tool-use|post-tool-use|session-start [--project DIR]`."""
    name = str(args.event)
    if name not in EVENTS:
        _warn(f"unknown hook event {name!r}; expected one of {', '.join(EVENTS)}")
        return 1
    event: dict[str, Any] = {}
    root: ProjectRoot | None = None
    try:
        with time_budget(BUDGET_CPU_SECONDS, BUDGET_WALL_SECONDS):
            event = _read_event()
            root = _root(getattr(args, "project", None), event)
            HANDLERS[name](event, root)
    except Exception as err:  # never let an error turn into the client's "let it through"
        _failed(name, f"{type(err).__name__}: {str(err)[:300]}", args, event, root)
    return 0


def _failed(name: str, problem: str, args: argparse.Namespace, event: dict[str, Any], root: ProjectRoot | None) -> None:
    """Answer for a hook that could not decide: deny during a session (any phase), else warn."""
    try:
        if name != "pre-tool-use":
            _warn(f"{name} failed ({problem})")
            return
        if root is None:
            try:
                root = _root(getattr(args, "project", None), event)
            except Exception:
                _warn(f"failed ({problem}) and the project cannot be found; the call was let through")
                return
        phase = _phase_if_active(root)
        if phase is not None:
            deny(f"code-intel's hook failed ({problem}) while a session is active in {phase}, so the call is "
                 "refused. Send a simpler call (name files literally, split long commands), or ask the user to "
                 "check `code-intel doctor`.")
        else:
            _warn(f"failed ({problem}); the call was let through (no session)")
    except Exception as err:  # noqa: BLE001 - the last resort must not raise either
        _warn(f"failed twice ({problem}; {type(err).__name__})")
