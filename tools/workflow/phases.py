"""Phases, their step numbers (the 19-step table) and the contract ids that name a phase's variant.

READY has three sub-steps (12 planning, 13 implementation, 14 completion) and VERIFY_INTERVENTION
has an escalation variant; each variant has its own contract entry and payload model, so the
contract id (not the bare phase) is what selects instruction, expected payload and validation.

Decision: SESSION_COMPLETE is step 20, one after MERGE, so steps stay strictly increasing.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal


class Phase(StrEnum):
    BRANCH_INTERVENTION = "BRANCH_INTERVENTION"
    DOCUMENT_RESEARCH = "DOCUMENT_RESEARCH"
    QUERY_FRAME = "QUERY_FRAME"
    EXPLORATION = "EXPLORATION"
    Q1 = "Q1"
    SEMANTIC = "SEMANTIC"
    Q2 = "Q2"
    VERIFICATION = "VERIFICATION"
    Q3 = "Q3"
    IMPACT_ANALYSIS = "IMPACT_ANALYSIS"
    READY = "READY"
    POST_IMPL_VERIFY = "POST_IMPL_VERIFY"
    VERIFY_INTERVENTION = "VERIFY_INTERVENTION"
    PRE_COMMIT = "PRE_COMMIT"
    QUALITY_REVIEW = "QUALITY_REVIEW"
    MERGE = "MERGE"
    SESSION_COMPLETE = "SESSION_COMPLETE"


ReadySubstep = Literal["planning", "implementation", "completion"]

# The order phases run in; conditional phases (BRANCH_INTERVENTION, VERIFY_INTERVENTION) are in it too.
SEQUENCE: tuple[Phase, ...] = tuple(Phase)

STEPS: dict[Phase, int] = {
    Phase.BRANCH_INTERVENTION: 2,
    Phase.DOCUMENT_RESEARCH: 3,
    Phase.QUERY_FRAME: 4,
    Phase.EXPLORATION: 5,
    Phase.Q1: 6,
    Phase.SEMANTIC: 7,
    Phase.Q2: 8,
    Phase.VERIFICATION: 9,
    Phase.Q3: 10,
    Phase.IMPACT_ANALYSIS: 11,
    Phase.READY: 12,
    Phase.POST_IMPL_VERIFY: 15,
    Phase.VERIFY_INTERVENTION: 16,
    Phase.PRE_COMMIT: 17,
    Phase.QUALITY_REVIEW: 18,
    Phase.MERGE: 19,
    Phase.SESSION_COMPLETE: 20,
}
READY_STEPS: dict[str, int] = {"planning": 12, "implementation": 13, "completion": 14}

# The server's own exploration tools: EXPLORATION needs two distinct ones really called.
EXPLORATION_TOOLS: frozenset[str] = frozenset({
    "search_text", "search_files", "find_definitions", "find_references", "get_symbols",
    "analyze_structure", "get_function_at_line", "query", "semantic_search", "fetch_chunk_detail",
    "analyze_impact",
})

# Every tool this server exposes: naming one in tools_used is checked against the ledger.
SERVER_TOOLS: frozenset[str] = EXPLORATION_TOOLS | frozenset({
    "validate_symbol_relevance", "check_write_target", "add_explored_files", "review_changes",
    "cleanup_stale_branches", "sync_index", "update_context", "record_outcome", "get_outcome_stats",
    "start_session", "get_session_status",
})


def step_of(phase: Phase, substep: str | None = None) -> int:
    if phase is Phase.READY and substep:
        return READY_STEPS[substep]
    return STEPS[phase]


def contract_id(phase: Phase, substep: str | None = None, *, escalation: bool = False) -> str:
    """The key of this phase variant in phase_contract.yml and in the payload model table."""
    if phase is Phase.READY:
        return f"READY_{(substep or 'planning').upper()}"
    if phase is Phase.VERIFY_INTERVENTION and escalation:
        return "VERIFY_INTERVENTION_ESCALATION"
    return phase.value


CONTRACT_IDS: tuple[str, ...] = tuple(
    [p.value for p in SEQUENCE if p is not Phase.READY and p is not Phase.VERIFY_INTERVENTION]
    + ["READY_PLANNING", "READY_IMPLEMENTATION", "READY_COMPLETION", "VERIFY_INTERVENTION",
       "VERIFY_INTERVENTION_ESCALATION"]
)


def summary_key(phase: Phase, substep: str | None = None) -> str:
    """Key of a phase's summary in the checkpoint's phase_payloads, e.g. step_05_EXPLORATION."""
    return f"step_{step_of(phase, substep):02d}_{contract_id(phase, substep)}"
