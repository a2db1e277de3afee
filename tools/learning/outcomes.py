"""OutcomeLog: how sessions ended, and what the decision log says about refusals.

Outcomes are appended to `.code-intel/logs/outcomes.jsonl`, one JSON object a line. `stats()` reads
that file and the workflow's `decisions.jsonl` to count outcomes by result and phase, and refusals
by phase and error code. A half-written last line (a crash mid-append) is skipped, not fatal.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import Counter, defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from code_intel.core.errors import InvalidArgument
from code_intel.core.project import ProjectRoot
from code_intel.core.session_types import Phase

log = logging.getLogger(__name__)

OUTCOMES_FILE = "outcomes.jsonl"
DECISIONS_FILE = "decisions.jsonl"
OUTCOMES = ("success", "failure")
# The phase names an outcome may name (an outcome may also be recorded before any phase ran: None).
PHASES: tuple[str, ...] = tuple(phase.value for phase in Phase)
UNKNOWN_PHASE = "(none)"


class OutcomeEntry(BaseModel):
    """record_outcome's answer: the line appended to outcomes.jsonl, and whether the Map learned it."""

    model_config = ConfigDict(extra="allow")
    ts: str
    session_id: str | None = None
    intent: str | None = None
    query: str | None = None
    outcome: str
    phase_at_outcome: str | None = None
    analysis: dict[str, Any] = Field(default_factory=dict)
    log_file: str
    map_updated: bool | None = None
    map_error: str | None = None


class OutcomeCounts(BaseModel):
    total: int
    by_outcome: dict[str, int]
    by_phase: dict[str, dict[str, int]]
    success_rate: float | None = None


class DecisionCounts(BaseModel):
    total: int
    accepted: int
    refused: int


class RefusalCounts(BaseModel):
    by_phase: dict[str, dict[str, int]]
    by_error: dict[str, int]


class OutcomeStats(BaseModel):
    """get_outcome_stats' answer."""

    outcomes: OutcomeCounts
    decisions: DecisionCounts
    refusals: RefusalCounts
    skipped_lines: dict[str, int]


def _read_jsonl(file: Path) -> tuple[list[dict[str, Any]], int]:
    """Every JSON object in the file, and how many lines were unreadable (e.g. a truncated last line)."""
    if not file.exists():
        return [], 0
    entries: list[dict[str, Any]] = []
    skipped = 0
    for line in _lines(file):
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            skipped += 1
            continue
        if isinstance(value, dict):
            entries.append(value)
        else:
            skipped += 1
    if skipped:
        log.warning("%s: skipped %d unreadable line(s)", file, skipped)
    return entries, skipped


def _lines(file: Path) -> Iterator[str]:
    with file.open("r", encoding="utf-8", errors="replace") as handle:
        for raw in handle:
            line = raw.strip()
            if line:
                yield line


class OutcomeLog:
    """Append-only outcome log of one project, plus statistics over it and the decision log."""

    def __init__(self, root: ProjectRoot) -> None:
        self.root = root
        self._lock = threading.Lock()

    @property
    def log_dir(self) -> Path:
        return self.root.runtime_dir("logs")

    @property
    def outcomes_file(self) -> Path:
        return self.log_dir / OUTCOMES_FILE

    @property
    def decisions_file(self) -> Path:
        return self.log_dir / DECISIONS_FILE

    def record(
        self,
        outcome: str,
        phase_at_outcome: str | None,
        analysis: dict[str, Any],
        session: dict[str, Any],
    ) -> dict[str, Any]:
        """Append one outcome line and return it (with success True). Without `phase_at_outcome`, the phase is
        the session's own (`session["phase"]`: the active session's, or SESSION_COMPLETE after one ended)."""
        if outcome not in OUTCOMES:
            raise InvalidArgument(f"outcome {outcome!r} is not one of {list(OUTCOMES)}", hint="send 'success' or 'failure'")
        phase = self._normalise_phase(phase_at_outcome) or self._normalise_phase(session.get("phase"))
        if analysis is None:
            analysis = {}
        if not isinstance(analysis, dict):
            raise InvalidArgument(
                f"analysis must be an object, got {type(analysis).__name__}",
                hint='send e.g. {"root_cause": "...", "user_feedback": "..."}',
            )
        entry: dict[str, Any] = {
            "ts": datetime.now(UTC).isoformat(timespec="seconds"),
            "session_id": session.get("session_id"),
            "intent": session.get("intent"),
            "query": session.get("query"),
            "outcome": outcome,
            "phase_at_outcome": phase,
            "analysis": analysis,
        }
        # default=str keeps odd values (paths, dates) loggable instead of failing the call.
        line = json.dumps(entry, ensure_ascii=False, default=str)
        with self._lock, self.outcomes_file.open("a+b") as handle:
            # After a crash mid-append the file lacks its final newline: start a fresh line.
            if handle.tell() > 0:
                handle.seek(-1, 2)
                if handle.read(1) != b"\n":
                    line = "\n" + line
            handle.write((line + "\n").encode("utf-8"))
            line = line.lstrip("\n")
        log.info("outcome %s recorded for session %s at %s", outcome, entry["session_id"], phase)
        result: dict[str, Any] = json.loads(line)
        result["success"] = True
        result["log_file"] = self.root.relative(self.outcomes_file)
        return result

    @staticmethod
    def _normalise_phase(phase: str | None) -> str | None:
        if phase is None or not str(phase).strip():
            return None
        name = str(phase).strip().upper()
        if name not in PHASES:
            raise InvalidArgument(
                f"phase_at_outcome {phase!r} is not a phase name",
                hint=f"send one of {', '.join(PHASES)}, or omit it",
            )
        return name

    def stats(self) -> dict[str, Any]:
        """Outcome counts by result and phase; refusals from the decision log by phase and error code."""
        outcomes, bad_outcome_lines = _read_jsonl(self.outcomes_file)
        decisions, bad_decision_lines = _read_jsonl(self.decisions_file)

        by_outcome: Counter[str] = Counter(str(o.get("outcome")) for o in outcomes)
        by_phase: dict[str, Counter[str]] = defaultdict(Counter)
        for o in outcomes:
            by_phase[str(o.get("phase_at_outcome") or UNKNOWN_PHASE)][str(o.get("outcome"))] += 1

        refusals = [d for d in decisions if d.get("accepted") is False]
        refusals_by_phase: dict[str, Counter[str]] = defaultdict(Counter)
        for d in refusals:
            refusals_by_phase[str(d.get("phase") or UNKNOWN_PHASE)][str(d.get("error") or "unknown")] += 1
        by_error: Counter[str] = Counter(str(d.get("error") or "unknown") for d in refusals)

        total = len(outcomes)
        return {
            "success": True,
            "outcomes": {
                "total": total,
                "by_outcome": dict(by_outcome),
                "by_phase": {phase: dict(counts) for phase, counts in sorted(by_phase.items())},
                "success_rate": round(by_outcome["success"] / total, 3) if total else None,
            },
            "decisions": {
                "total": len(decisions),
                "accepted": sum(1 for d in decisions if d.get("accepted") is True),
                "refused": len(refusals),
            },
            "refusals": {
                "by_phase": {phase: dict(codes) for phase, codes in sorted(refusals_by_phase.items())},
                "by_error": dict(by_error.most_common()),
            },
            "skipped_lines": {OUTCOMES_FILE: bad_outcome_lines, DECISIONS_FILE: bad_decision_lines},
        }
