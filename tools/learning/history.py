"""SessionHistory: what one session did, kept after it ends, in `.code-intel/logs/history/<session_id>.jsonl`.

The checkpoint holds a session's state only while it runs (it is deleted at SESSION_COMPLETE), and the
decision log keeps only the payload's field names. The history keeps what a reviewer of the session
needs afterwards, one JSON object a line, appended by the workflow engine:

- `start`: intent, request, flags, the phase the session began in, the git facts at the start;
- `submit`: every submit_phase, accepted or refused: the phase and step, what the agent sent (bounded),
  the refusal's error, message and hint, or the next phase and what the server did on the way (its run
  of the checks, the commit, the merge, the failure counts), the counters and, where they changed, the tasks;
- `checks`: a run_checks call (the server's run of the checks) outside a submit;
- `compaction`: the client's compaction_count moved;
- `resumed`: a server took the session over from its checkpoint (after a crash or a restart);
- `end`: SESSION_COMPLETE, with the final tasks, counters, git facts and the files the session wrote;
- `discarded`: cleanup_stale_branches dropped the session.

Every line carries `ts`, `kind` and `session_id`. A line is at most MAX_EVENT_BYTES (its longest texts and
lists are cut first), so a session of 19 steps and ten tasks stays well under a megabyte. The folder keeps the
newest MAX_SESSIONS histories. Writing never fails a submit: an OSError is logged and the session goes on.
`code-intel report` renders a history as a page (tools/report/).
"""

from __future__ import annotations

import json
import logging
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from code_intel.core.limits import fit_json
from code_intel.core.project import ProjectRoot

log = logging.getLogger(__name__)

HISTORY_DIR = "history"  # under .code-intel/logs/
SUFFIX = ".jsonl"
MAX_EVENT_BYTES = 48 * 1024
MAX_SESSIONS = 200
KINDS = ("start", "submit", "checks", "compaction", "resumed", "end", "discarded")


def _stamp() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _safe_name(session_id: str) -> bool:
    """Session ids are made by the server (`20261127_221716_ab12`); anything else never names a file."""
    return bool(session_id) and all(c.isalnum() or c in "_-" for c in session_id) and len(session_id) <= 80


class SessionHistory:
    def __init__(self, root: ProjectRoot) -> None:
        self.root = root
        self._lock = threading.Lock()

    @property
    def folder(self) -> Path:
        """`.code-intel/logs/history/` (not created: readers must not write)."""
        return self.root.state_dir / "logs" / HISTORY_DIR

    def file(self, session_id: str) -> Path:
        if not _safe_name(session_id):
            raise ValueError(f"not a session id: {session_id!r}")
        return self.folder / f"{session_id}{SUFFIX}"

    # writing ----------------------------------------------------------------
    def append(self, session_id: str, kind: str, **fields: Any) -> None:
        """Append one event; never raises for the file system (a lost event only costs the report a line)."""
        if kind not in KINDS or not _safe_name(session_id):
            log.warning("history event %r of %r not written: unknown kind or session id", kind, session_id)
            return
        event: dict[str, Any] = {"ts": _stamp(), "kind": kind, "session_id": session_id, **fields}
        try:
            text = json.dumps(event, ensure_ascii=False, default=str)
            if len(text.encode("utf-8", errors="surrogatepass")) > MAX_EVENT_BYTES:
                fitted, notes = fit_json(json.loads(text), MAX_EVENT_BYTES - 2048,
                                         protected=frozenset({"ts", "kind", "session_id", "phase", "step", "accepted"}))
                fitted["cut"] = [note[:200] for note in notes[:10]]
                text = json.dumps(fitted, ensure_ascii=False, default=str)
            logs = self.root.runtime_dir("logs")
            folder = logs / HISTORY_DIR
            fresh = not folder.is_dir()
            folder.mkdir(parents=True, exist_ok=True)
            with self._lock, (folder / f"{session_id}{SUFFIX}").open("a", encoding="utf-8",
                                                                      errors="surrogateescape") as handle:
                handle.write(text + "\n")
            if kind == "start" and not fresh:
                self._prune()
        except (OSError, TypeError, ValueError) as err:
            log.warning("history of %s: %s event not written (%s)", session_id, kind, err)

    def _prune(self) -> None:
        """Keep the newest MAX_SESSIONS histories."""
        files = self.files()
        for old in files[MAX_SESSIONS:]:
            try:
                old.unlink()
            except OSError as err:
                log.warning("old history %s not deleted: %s", old.name, err)

    # reading ----------------------------------------------------------------
    def files(self) -> list[Path]:
        """History files, newest first (by name: session ids begin with their start time, then by mtime)."""
        if not self.folder.is_dir():
            return []
        found = [p for p in self.folder.glob(f"*{SUFFIX}") if p.is_file() and _safe_name(p.stem)]
        return sorted(found, key=lambda p: (p.stem[:15], p.stat().st_mtime), reverse=True)

    def session_ids(self) -> list[str]:
        return [p.stem for p in self.files()]

    def read(self, session_id: str) -> tuple[list[dict[str, Any]], int]:
        """The session's events in order, and how many lines could not be read (a crash mid-append)."""
        path = self.file(session_id)
        if not path.is_file():
            return [], 0
        events: list[dict[str, Any]] = []
        bad = 0
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                bad += 1
                continue
            if isinstance(value, dict) and value.get("kind") in KINDS:
                events.append(value)
            else:
                bad += 1
        return events, bad
