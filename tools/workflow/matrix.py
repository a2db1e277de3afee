"""The v1.16 phase matrix as data, and the next-phase rule built on it.

Each row is one step of the 19-step table; each column says whether the step runs for that intent
or flag. A step runs when the intent's column allows it and no active flag column forbids it.
Conditional steps (BRANCH_INTERVENTION, VERIFY_INTERVENTION) are only entered on their trigger;
gated steps (SEMANTIC, VERIFICATION, IMPACT_ANALYSIS) run when their Q answered true, or always
under --gate=full, which drops Q1/Q2/Q3 altogether.

Decision: --only-verify runs BRANCH_INTERVENTION (if stale branches) -> POST_IMPL_VERIFY ->
SESSION_COMPLETE, with no tasks and no revert.
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.workflow.flags import SessionFlags
from tools.workflow.phases import SEQUENCE, Phase

COLUMNS: tuple[str, ...] = ("impl", "investigate", "no_verify", "no_quality", "fast", "quick", "no_doc", "ni")
# Flag column -> the SessionFlags field that switches it on.
FLAG_COLUMNS: dict[str, str] = {
    "no_verify": "no_verify", "no_quality": "no_quality", "fast": "fast", "quick": "quick",
    "no_doc": "no_doc", "ni": "no_intervention",
}
INVESTIGATION_INTENTS = frozenset({"INVESTIGATE", "QUESTION"})
IMPLEMENTATION_INTENTS = frozenset({"IMPLEMENT", "MODIFY"})
INTENTS = IMPLEMENTATION_INTENTS | INVESTIGATION_INTENTS


@dataclass(frozen=True)
class MatrixRow:
    step: int
    label: str
    phase: Phase | None  # None for step 1 (start_session itself)
    cells: tuple[bool, ...]  # one per COLUMNS entry

    def allows(self, column: str) -> bool:
        return self.cells[COLUMNS.index(column)]


Y, N = True, False
#                 impl inv  no-v no-q fast quik nodc  ni
MATRIX: tuple[MatrixRow, ...] = (
    MatrixRow(1, "start_session", None, (Y, Y, Y, Y, Y, Y, Y, Y)),
    MatrixRow(2, "BRANCH_INTERVENTION", Phase.BRANCH_INTERVENTION, (Y, Y, Y, Y, Y, Y, Y, Y)),
    MatrixRow(3, "DOCUMENT_RESEARCH", Phase.DOCUMENT_RESEARCH, (Y, Y, Y, Y, Y, Y, N, Y)),
    MatrixRow(4, "QUERY_FRAME", Phase.QUERY_FRAME, (Y, Y, Y, Y, Y, Y, Y, Y)),
    MatrixRow(5, "EXPLORATION", Phase.EXPLORATION, (Y, Y, Y, Y, N, N, Y, Y)),
    MatrixRow(6, "Q1", Phase.Q1, (Y, Y, Y, Y, N, N, Y, Y)),
    MatrixRow(7, "SEMANTIC", Phase.SEMANTIC, (Y, Y, Y, Y, N, N, Y, Y)),
    MatrixRow(8, "Q2", Phase.Q2, (Y, Y, Y, Y, N, N, Y, Y)),
    MatrixRow(9, "VERIFICATION", Phase.VERIFICATION, (Y, Y, Y, Y, N, N, Y, Y)),
    MatrixRow(10, "Q3", Phase.Q3, (Y, Y, Y, Y, N, N, Y, Y)),
    MatrixRow(11, "IMPACT_ANALYSIS", Phase.IMPACT_ANALYSIS, (Y, Y, Y, Y, N, N, Y, Y)),
    MatrixRow(12, "READY (planning)", Phase.READY, (Y, N, Y, Y, Y, Y, Y, Y)),
    MatrixRow(13, "READY (implementation)", Phase.READY, (Y, N, Y, Y, Y, Y, Y, Y)),
    MatrixRow(14, "READY (completion)", Phase.READY, (Y, N, Y, Y, Y, Y, Y, Y)),
    MatrixRow(15, "POST_IMPL_VERIFY", Phase.POST_IMPL_VERIFY, (Y, N, N, Y, Y, Y, Y, Y)),
    MatrixRow(16, "VERIFY_INTERVENTION", Phase.VERIFY_INTERVENTION, (Y, N, N, Y, Y, N, Y, N)),
    MatrixRow(17, "PRE_COMMIT", Phase.PRE_COMMIT, (Y, N, Y, Y, Y, N, Y, Y)),
    MatrixRow(18, "QUALITY_REVIEW", Phase.QUALITY_REVIEW, (Y, N, Y, N, N, N, Y, Y)),
    MatrixRow(19, "MERGE", Phase.MERGE, (Y, N, Y, Y, Y, N, Y, Y)),
)

CONDITIONAL = frozenset({Phase.BRANCH_INTERVENTION, Phase.VERIFY_INTERVENTION})
GATED: dict[Phase, Phase] = {Phase.SEMANTIC: Phase.Q1, Phase.VERIFICATION: Phase.Q2, Phase.IMPACT_ANALYSIS: Phase.Q3}
GATES = frozenset(GATED.values())
ONLY_VERIFY_ROUTE = frozenset({Phase.BRANCH_INTERVENTION, Phase.POST_IMPL_VERIFY})


def is_investigation(intent: str, flags: SessionFlags) -> bool:
    """INVESTIGATE/QUESTION and --only-explore end after exploration."""
    return intent in INVESTIGATION_INTENTS or flags.only_explore


def active_columns(intent: str, flags: SessionFlags) -> list[str]:
    base = "investigate" if is_investigation(intent, flags) else "impl"
    return [base] + [column for column, field in FLAG_COLUMNS.items() if getattr(flags, field)]


def enabled_phases(intent: str, flags: SessionFlags) -> frozenset[Phase]:
    """Every phase this session may run (conditional ones included), per the matrix."""
    if flags.only_verify:
        return ONLY_VERIFY_ROUTE
    columns = active_columns(intent, flags)
    enabled = {row.phase for row in MATRIX if row.phase and all(row.allows(c) for c in columns)}
    if flags.gate == "full":
        enabled -= GATES
    return frozenset(enabled)


def next_phase(after: Phase | None, intent: str, flags: SessionFlags, gate_answers: dict[str, bool]) -> Phase:
    """The first phase after `after` (None: the session start) that this session runs."""
    enabled = enabled_phases(intent, flags)
    start = 0 if after is None else SEQUENCE.index(after) + 1
    for phase in SEQUENCE[start:]:
        if phase is Phase.SESSION_COMPLETE:
            return phase
        if phase not in enabled or phase in CONDITIONAL:
            continue
        if phase in GATED and flags.gate == "auto" and not gate_answers.get(GATED[phase].value, False):
            continue
        return phase
    return Phase.SESSION_COMPLETE


def intervention_enabled(intent: str, flags: SessionFlags) -> bool:
    return Phase.VERIFY_INTERVENTION in enabled_phases(intent, flags)


def creates_branch(intent: str, flags: SessionFlags) -> bool:
    """Task branches only for implementation sessions that commit (not --quick, not --only-verify)."""
    return Phase.READY in enabled_phases(intent, flags) and Phase.MERGE in enabled_phases(intent, flags)
