"""`code-intel status` and `code-intel clean`: the active session from the shell.

`status` reads the checkpoint and lock files directly (no server, no git, nothing written), so it
works while a server holds the session. `clean` is cleanup_stale_branches from the command line.
"""

from __future__ import annotations

import argparse
import socket
import sys
from datetime import UTC, datetime
from typing import Any

from code_intel.core.errors import CodeIntelError
from code_intel.core.limits import first_of
from code_intel.core.project import STATE_DIR, ProjectRoot
from code_intel.workflow.checkpoint import CheckpointStore
from code_intel.workflow.lock import ProjectLock, pid_alive
from code_intel.workflow.state import SessionState


def _age(stamp: str | float | None) -> str:
    """'3m 12s ago' from an ISO timestamp or epoch seconds; '?' when unknown."""
    if stamp is None:
        return "?"
    try:
        moment = datetime.fromtimestamp(stamp, UTC) if isinstance(stamp, int | float) else datetime.fromisoformat(stamp)
    except (ValueError, OSError, OverflowError):
        return "?"
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    seconds = max(0, int((datetime.now(UTC) - moment).total_seconds()))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{days}d"] * bool(days) + [f"{hours}h"] * bool(hours) + [f"{minutes}m"] * bool(minutes)
    return " ".join(parts[:2] or [f"{secs}s"]) + " ago"


def _describe_lock(owner: dict[str, Any] | None) -> str:
    if owner is None:
        return "none (no server holds this project)"
    pid, host = owner.get("pid"), owner.get("host")
    if not isinstance(pid, int):
        return "unreadable lock file (stale; the next session takes it over)"
    where = f"pid {pid} on {host}, session {owner.get('session_id')}, since {_age(owner.get('since'))}"
    if host == socket.gethostname():
        return where + (" (running)" if pid_alive(pid) else " (stale: the process is gone)")
    return where + " (another host)"


def _status_lines(state: SessionState, checkpoint: str, lock: str, others: int) -> list[str]:
    progress = state.board.progress()
    if state.board.is_planned():
        tasks = f"{progress['completed']}/{progress['total']} completed"
        tasks += f", current: {progress['current']}" if progress["current"] else ""
        if state.board.max_failure_count():
            tasks += f", max failure_count {state.board.max_failure_count()}"
    else:
        tasks = "not planned yet"
    flags = " ".join(state.flags.typed()) or "(none)"
    lines = [
        f"session     {state.session_id}",
        f"intent      {state.intent}   flags: {flags}",
        f"query       {state.query[:200]}",
        f"phase       {state.label}",
        f"tasks       {tasks}",
        f"started     {state.started_at} ({_age(state.started_at)}); last update {_age(state.updated_at)}",
        f"lock        {lock}",
        f"checkpoint  {checkpoint}   compactions: {state.compaction_count}",
    ]
    if state.git.task_branch:
        lines.append(f"branch      {state.git.task_branch} (base {state.git.base_branch or state.git.base_commit})")
    if state.last_check:
        lines.append(f"checks      {state.last_check[:300]}")
    if state.test_edits:  # what the reviewers and the user are told (docs/verification.md)
        lines.append(f"test edits  {first_of(state.test_edits, '; ', '; and {} more')}")
    if others:
        lines.append(f"note        {others} older checkpoint(s) also exist; `code-intel clean` removes them")
    return lines


def run_status(args: argparse.Namespace) -> int:
    """Print the project's active session; exit 1 with one clear line when there is none."""
    root = ProjectRoot.from_args(getattr(args, "project", None))
    sessions = root.path / STATE_DIR / "sessions"
    store = CheckpointStore(root)
    owner = ProjectLock(root).owner() if sessions.is_dir() else None
    file = store.active_file(owner) if sessions.is_dir() else None
    if file is None:
        line = f"no active session in {root.path}"
        if owner:
            line += f"; a lock exists: {_describe_lock(owner)}"
        print("\n".join([line, *_last_session_lines(root)]))
        return 1
    try:
        state, _ = store.load(file)
    except CodeIntelError as err:
        print(f"code-intel status: {err.message}" + (f"\n  hint: {err.hint}" if err.hint else ""), file=sys.stderr)
        return 1
    others = sum(1 for p in sessions.glob("*.json") if p.is_file()) - 1
    lines = _status_lines(state, root.relative(file), _describe_lock(owner), others)
    print("\n".join([*lines, *_history_lines(root, state.session_id)]))
    return 0


def _history_lines(root: ProjectRoot, session_id: str) -> list[str]:
    """The session's phases as one line, and its last refusal, from its history (tools/report/facts.py)."""
    from code_intel.report.facts import gather, timeline_line

    try:
        facts = gather(root, session_id, read_git=False)
    except (CodeIntelError, OSError):
        return []
    lines = [f"timeline    {timeline_line(facts)}"] if facts.visits else []
    last = facts.last_refusal
    if last is not None:
        lines.append(f"refused     {len(facts.refusals)}x; last: {last.error} at {last.phase} (step {last.step}), "
                     f"{_age(last.ts)}: {last.message[:240]}")
    lines.append(f"report      code-intel report {session_id}")
    return lines


def _last_session_lines(root: ProjectRoot) -> list[str]:
    """With no active session: the latest one the project recorded, and how to see its report."""
    from code_intel.report.facts import gather, session_ids, timeline_line

    known = session_ids(root)
    if not known:
        return []
    try:
        facts = gather(root, known[0], read_git=False)
    except (CodeIntelError, OSError):
        return []
    lines = [f"last        {facts.session_id} ({facts.status}, {facts.intent}): {facts.query[:120]}"]
    if facts.visits:
        lines.append(f"timeline    {timeline_line(facts)}")
    lines.append(f"report      code-intel report {facts.session_id}")
    return lines


def run_clean(args: argparse.Namespace) -> int:
    """Delete every llm_task_* branch and checkpoint and reset the session (cleanup_stale_branches)."""
    from code_intel.server.app import CodeIntelApp

    app = CodeIntelApp.for_path(getattr(args, "project", None))
    report = app.workflow.cleanup_stale_branches()
    if not report.get("is_repo", True):
        print(f"not a git repository: {report.get('note') or 'no branches to delete'}")
    branches = report.get("deleted_branches") or []
    for branch in branches:
        print(f"deleted branch {branch.get('branch')} at {branch.get('head')} (recover: {branch.get('recover')})")
    if report.get("is_repo", True) and not branches:
        print("no llm_task_* branches to delete")
    if report.get("returned_to"):
        print(f"checked out {report['returned_to']}")
    checkpoints = report.get("checkpoints_deleted") or []
    for checkpoint in checkpoints:
        print(f"deleted checkpoint {checkpoint}")
    if not checkpoints:
        print("no checkpoints to delete")
    if report.get("session_reset"):
        print(f"reset session {report['session_reset']}")
    return 0
