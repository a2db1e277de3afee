"""Checkpoints: `.code-intel/sessions/{session_id}.json`, written atomically after each accepted submit.

Layout (the v1.13 memo): {"version", "orchestrator_state": {...}, "phase_payloads": {key: {"summary"}}}.
Writes go to a temp file in the same folder, are fsynced, then renamed over the old file, so a
crash leaves either the old or the new checkpoint, never half of one. Over the size limit, older
summaries are shortened (then dropped) until it fits; the submit never fails for size.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tools.errors import CheckpointCorrupt
from tools.fsutil import write_atomic
from tools.project import ProjectRoot
from tools.workflow.state import SessionState

log = logging.getLogger(__name__)

CHECKPOINT_VERSION = 1
MAX_CHECKPOINT_BYTES = 256 * 1024
_SHORTEN_TO = (400, 120, 0)  # successive summary lengths tried for old summaries; 0 drops them


def _cleanup_hint(file: str) -> str:
    return (f"delete {file} (or call cleanup_stale_branches, which deletes every checkpoint and resets the "
            "session), then call start_session again")


class CheckpointStore:
    def __init__(self, root: ProjectRoot, max_bytes: int = MAX_CHECKPOINT_BYTES) -> None:
        self.root = root
        self.max_bytes = max_bytes

    @property
    def folder(self) -> Path:
        return self.root.runtime_dir("sessions")

    def path_for(self, session_id: str) -> Path:
        return self.folder / f"{session_id}.json"

    def files(self) -> list[Path]:
        """Checkpoint files, newest first."""
        files = [p for p in self.folder.glob("*.json") if p.is_file()]
        return sorted(files, key=lambda p: p.stat().st_mtime, reverse=True)

    # writing ----------------------------------------------------------------
    def save(self, state: SessionState, phase_payloads: dict[str, dict[str, str]]) -> int:
        """Write the checkpoint; returns its size in bytes. Shortens old summaries when too large."""
        document = {"version": CHECKPOINT_VERSION, "orchestrator_state": state.to_checkpoint(),
                    "phase_payloads": phase_payloads}
        text = json.dumps(document, ensure_ascii=False)
        if len(text.encode("utf-8")) > self.max_bytes:
            text = self._compressed(document)
        data = text.encode("utf-8")
        return write_atomic(self.path_for(state.session_id), data, fsync=True)

    def _compressed(self, document: dict[str, Any]) -> str:
        """Shorten the oldest summaries first (the newest is kept longest) until the document fits."""
        payloads: dict[str, dict[str, str]] = {k: dict(v) for k, v in document["phase_payloads"].items()}
        keys = list(payloads)
        text = json.dumps(document, ensure_ascii=False)
        for limit in _SHORTEN_TO:
            for key in keys:  # oldest first
                summary = payloads[key].get("summary", "")
                if limit == 0:
                    payloads[key] = {"summary": "(dropped to keep the checkpoint small)"}
                elif len(summary) > limit:
                    payloads[key] = {"summary": summary[: limit - 3] + "..."}
                text = json.dumps({**document, "phase_payloads": payloads}, ensure_ascii=False)
                if len(text.encode("utf-8")) <= self.max_bytes:
                    return text
        log.warning("checkpoint still %d bytes after dropping summaries (limit %d)", len(text), self.max_bytes)
        return text

    # reading ----------------------------------------------------------------
    def load(self, file: Path) -> tuple[SessionState, dict[str, dict[str, str]]]:
        """The state and summaries in a checkpoint, or checkpoint_corrupt saying how to clean up."""
        try:
            document = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise CheckpointCorrupt(f"checkpoint {self.root.relative(file)} cannot be read: {err}",
                                    hint=_cleanup_hint(self.root.relative(file))) from None
        if not isinstance(document, dict) or not isinstance(document.get("orchestrator_state"), dict):
            raise CheckpointCorrupt(f"checkpoint {self.root.relative(file)} has no orchestrator_state",
                                    hint=_cleanup_hint(self.root.relative(file)))
        try:
            state = SessionState.model_validate(document["orchestrator_state"])
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise CheckpointCorrupt(
                f"checkpoint {self.root.relative(file)} is invalid at '{where}': {first['msg']}",
                hint=_cleanup_hint(self.root.relative(file)),
            ) from None
        raw = document.get("phase_payloads") or {}
        payloads = {str(k): {"summary": str(v.get("summary", ""))} for k, v in raw.items() if isinstance(v, dict)} \
            if isinstance(raw, dict) else {}
        return state, payloads

    def delete(self, session_id: str) -> None:
        self.path_for(session_id).unlink(missing_ok=True)

    def delete_all(self) -> list[str]:
        removed = []
        for file in self.files():
            file.unlink(missing_ok=True)
            removed.append(self.root.relative(file))
        return removed
