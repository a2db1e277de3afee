"""The ledger of tool calls: which server tools really ran, in which phase, since which submit.

Every tool call is recorded with the phase (and READY sub-step) it happened in, the submit window
it belongs to (the number of accepted submits so far) and a digest of its arguments. Evidence
checks look only at successful calls in the current window and phase, so a call made in an
earlier phase, or before the previous accepted submit, never counts twice. Only per-phase counts
are persisted in the checkpoint; after a restart the current window starts empty.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any


def normalise_tool_name(name: str) -> str:
    """'mcp__code-intel__search_text' -> 'search_text'; client tools keep their name."""
    return name.strip().rsplit("__", 1)[-1]


def digest_arguments(arguments: dict[str, Any]) -> str:
    text = json.dumps(arguments, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class LedgerEntry:
    tool: str
    phase: str  # contract id, e.g. EXPLORATION or READY_IMPLEMENTATION
    window: int
    ok: bool
    digest: str
    at: float


class ToolLedger:
    """In-memory record of tool calls for one session (the engine holds the lock)."""

    MAX_ENTRIES = 5000  # a long session must not grow memory without bound

    def __init__(self, counts: dict[str, dict[str, int]] | None = None) -> None:
        self.entries: list[LedgerEntry] = []
        self.counts: dict[str, dict[str, int]] = {k: dict(v) for k, v in (counts or {}).items()}

    def record(self, tool: str, arguments: dict[str, Any], *, phase: str, window: int, ok: bool) -> LedgerEntry:
        entry = LedgerEntry(normalise_tool_name(tool), phase, window, ok, digest_arguments(arguments), time.time())
        self.entries.append(entry)
        if len(self.entries) > self.MAX_ENTRIES:
            del self.entries[: len(self.entries) - self.MAX_ENTRIES]
        if ok:
            per_phase = self.counts.setdefault(phase, {})
            per_phase[entry.tool] = per_phase.get(entry.tool, 0) + 1
        return entry

    def called(self, *, phase: str, window: int) -> set[str]:
        """Names of the tools successfully called in this phase within this submit window."""
        return {e.tool for e in self.entries if e.ok and e.window == window and e.phase == phase}
