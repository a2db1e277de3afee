"""The v1.16 phase matrix, derived from the phase registry, and the next-phase rule built on it.

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

from code_intel.core.session_types import Phase
from code_intel.workflow.flags import SessionFlags
from code_intel.workflow.phases import COLUMNS, FLAG_COLUMNS, PHASES, ROUTING, SEQUENCE, PhaseSpec

INVESTIGATION_INTENTS = frozenset({"INVESTIGATE", "QUESTION"})
IMPLEMENTATION_INTENTS = frozenset({"IMPLEMENT", "MODIFY"})
INTENTS = IMPLEMENTATION_INTENTS | INVESTIGATION_INTENTS
ONLY_VERIFY_ROUTE = frozenset({Phase.BRANCH_INTERVENTION, Phase.POST_IMPL_VERIFY})


@dataclass(frozen=True)
class MatrixRow:
    step: int
    label: str
    phase: Phase | None  # None for step 1 (start_session itself)
    cells: tuple[bool, ...]  # one per COLUMNS entry

    def allows(self, column: str) -> bool:
        return self.cells[COLUMNS.index(column)]


def _row(spec: PhaseSpec) -> MatrixRow:
    cells = (True, spec.investigation, *(column not in spec.skipped_by for column in FLAG_COLUMNS))
    return MatrixRow(spec.step, spec.label, spec.phase, cells)


MATRIX: tuple[MatrixRow, ...] = (
    MatrixRow(1, "start_session", None, (True,) * len(COLUMNS)),
    *(_row(spec) for spec in PHASES if spec.phase is not Phase.SESSION_COMPLETE and not spec.escalation),
)


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
        enabled -= {phase for phase, spec in ROUTING.items() if spec.is_gate}
    return frozenset(enabled)


def next_phase(after: Phase | None, intent: str, flags: SessionFlags, gate_answers: dict[str, bool]) -> Phase:
    """The first phase after `after` (None: the session start) that this session runs."""
    enabled = enabled_phases(intent, flags)
    start = 0 if after is None else SEQUENCE.index(after) + 1
    for phase in SEQUENCE[start:]:
        if phase is Phase.SESSION_COMPLETE:
            return phase
        spec = ROUTING[phase]
        if phase not in enabled or spec.conditional:
            continue
        if spec.gated_by and flags.gate == "auto" and not gate_answers.get(spec.gated_by.value, False):
            continue
        return phase
    return Phase.SESSION_COMPLETE
