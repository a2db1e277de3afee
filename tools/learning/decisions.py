"""DecisionLog: every submit_phase, accepted or refused, appended to `.code-intel/logs/decisions.jsonl`.

One JSON object a line: ts, session_id, phase, step, accepted, error (refusals), message,
next_phase/next_step (accepted), and the payload's field names (never its content). OutcomeLog
reads this file for refusal statistics. Writing the log never fails a submit.
"""

from __future__ import annotations

import json
import logging
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from code_intel.core.project import ProjectRoot

log = logging.getLogger(__name__)

DECISIONS_FILE = "decisions.jsonl"


class DecisionLog:
    def __init__(self, root: ProjectRoot) -> None:
        self.root = root
        self._lock = threading.Lock()

    @property
    def file(self) -> Path:
        return self.root.runtime_dir("logs") / DECISIONS_FILE

    def append(
        self,
        *,
        session_id: str | None,
        phase: str | None,
        step: int | None,
        accepted: bool,
        payload: Any,
        error: str | None = None,
        message: str | None = None,
        next_phase: str | None = None,
        next_step: int | None = None,
    ) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "session_id": session_id,
            "phase": phase,
            "step": step,
            "accepted": accepted,
            "payload_fields": sorted(str(k) for k in payload) if isinstance(payload, dict) else type(payload).__name__,
        }
        if accepted:
            entry.update(next_phase=next_phase, next_step=next_step)
        else:
            entry.update(error=error, message=message)
        try:
            line = json.dumps(entry, ensure_ascii=False, default=str) + "\n"
            with self._lock, self.file.open("a", encoding="utf-8", errors="surrogateescape") as handle:
                handle.write(line)
        except OSError:
            log.exception("could not append to %s", DECISIONS_FILE)
        return entry

    def read(self) -> list[dict[str, Any]]:
        if not self.file.exists():
            return []
        out = []
        for line in self.file.read_text(encoding="utf-8").splitlines():
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                out.append(value)
        return out
