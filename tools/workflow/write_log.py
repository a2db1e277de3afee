"""The hooks' write log, read defensively: which files a client hook allowed the agent to write.

The Claude Code / Codex pre-tool-use hook asks the write rules before every Edit/Write and appends
one JSON object per decision to `.code-intel/sessions/<session_id>.writes.jsonl`. The commit gate
counts a file as allowed when an entry for it says it was allowed while the session was in READY.
Until the hooks' own module defines the format, this reader accepts the shapes such a log can
reasonably take (`file`, `path` or `file_path`; `allowed: true` or `decision: "allow"`; an optional
`phase`) and skips anything else: a line it cannot read is never taken as permission.
"""

from __future__ import annotations

import json
from pathlib import Path

MAX_LOG_BYTES = 20_000_000
_PATH_KEYS = ("file", "path", "file_path")
_ALLOW_WORDS = {"allow", "allowed", "approve", "approved"}


def log_file(sessions_dir: Path, session_id: str) -> Path:
    return sessions_dir / f"{session_id}.writes.jsonl"


def _allowed(entry: dict[str, object]) -> bool:
    flag = entry.get("allowed")
    if isinstance(flag, bool):
        return flag
    decision = entry.get("decision") or entry.get("permissionDecision")
    return isinstance(decision, str) and decision.strip().lower() in _ALLOW_WORDS


def allowed_writes(file: Path) -> set[str]:
    """Paths (as logged) that an entry allowed during READY; empty when the log is missing or unreadable."""
    try:
        if not file.is_file() or file.stat().st_size > MAX_LOG_BYTES:
            return set()
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    out: set[str] = set()
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(entry, dict) or not _allowed(entry):
            continue
        phase = entry.get("phase")
        if phase is not None and phase != "READY":
            continue
        path = next((entry[k] for k in _PATH_KEYS if isinstance(entry.get(k), str) and entry[k].strip()), None)
        if path:
            out.add(str(path).strip())
    return out
