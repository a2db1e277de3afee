"""The phase registry: one entry per phase variant, and everything derived from it.

An entry says everything the server knows about a phase variant: its contract id (the key in
phase_contract.yml), the phase and step it belongs to, the payload model submit_phase validates,
the handler that decides what comes next, the contract defaults (required tools, resources, the
exploration minimum), and when it runs: in investigation sessions or not, which flag columns of
the v1.16 matrix switch it off, whether it waits for a trigger or a gate question. The matrix
(`matrix.py`), the contract defaults (`contract.py`), the step numbers and the docs' phase table
are all read from here, so adding or changing a phase is one entry.

READY has three variants (12 planning, 13 implementation, 14 completion) and VERIFY_INTERVENTION
an escalation variant; the contract id, not the bare phase, selects instruction, payload and
handler. Decision: SESSION_COMPLETE is step 20, one after MERGE, so steps stay strictly increasing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from code_intel.core.session_types import Phase, ReadySubstep
from code_intel.workflow import handlers as h
from code_intel.workflow import payloads as p

Handler = Callable[[h.PhaseContext], h.Transition]

# Flag columns of the v1.16 matrix, in its order: the column name -> the SessionFlags field.
FLAG_COLUMNS: MappingProxyType[str, str] = MappingProxyType({
    "no_verify": "no_verify", "no_quality": "no_quality", "fast": "fast", "quick": "quick",
    "no_doc": "no_doc", "ni": "no_intervention",
})
COLUMNS: tuple[str, ...] = ("impl", "investigate", *FLAG_COLUMNS)
EXPLORATION_SKIPPERS = frozenset({"fast", "quick"})  # --fast and --quick skip steps 5-11


@dataclass(frozen=True)
class PhaseSpec:
    contract_id: str
    phase: Phase
    step: int
    payload: type[p.PhasePayload] | None  # None only for SESSION_COMPLETE (nothing is submitted there)
    handler: Handler | None
    substep: ReadySubstep | None = None
    escalation: bool = False  # the VERIFY_INTERVENTION variant after two interventions
    investigation: bool = True  # runs in INVESTIGATE/QUESTION/--only-explore sessions
    skipped_by: frozenset[str] = frozenset()  # flag columns (FLAG_COLUMNS) that switch it off
    conditional: bool = False  # entered only on its trigger (stale branches, repeated failures)
    gated_by: Phase | None = None  # runs only when this question answered true (under --gate=auto)
    is_gate: bool = False  # Q1/Q2/Q3: dropped under --gate=full
    required_tools: tuple[str, ...] = ()
    min_exploration_tools: int = 0
    resources: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """The row label of the 19-step table, e.g. 'READY (planning)'."""
        return f"{self.phase.value} ({self.substep})" if self.substep else self.phase.value

    def contract_defaults(self) -> dict[str, Any]:
        """The contract fields this entry supplies when phase_contract.yml leaves them out (the built-in copy
        holds only the instructions): the tools and resources, and the payload made from the phase's model."""
        if self.required_tools:
            tools_used = "must include " + ", ".join(self.required_tools)
        elif self.min_exploration_tools:
            tools_used = f"at least {self.min_exploration_tools} different code-intel exploration tools"
        else:
            tools_used = ""
        return {"required_tools": list(self.required_tools), "resources": list(self.resources),
                "min_exploration_tools": self.min_exploration_tools,
                "expected_payload": p.expected_payload(self.payload, tools_used)}


_EXPLORING = EXPLORATION_SKIPPERS
PHASES: tuple[PhaseSpec, ...] = (
    PhaseSpec("BRANCH_INTERVENTION", Phase.BRANCH_INTERVENTION, 2, p.BranchInterventionPayload,
              h.branch_intervention, conditional=True),
    PhaseSpec("DOCUMENT_RESEARCH", Phase.DOCUMENT_RESEARCH, 3, p.DocumentResearchPayload, h.document_research,
              skipped_by=frozenset({"no_doc"}),
              resources=(".code-intel/context.yml", ".code-intel/doc_research/*.md")),
    PhaseSpec("QUERY_FRAME", Phase.QUERY_FRAME, 4, p.QueryFramePayload, h.query_frame),
    PhaseSpec("EXPLORATION", Phase.EXPLORATION, 5, p.ExplorationPayload, h.exploration, skipped_by=_EXPLORING,
              min_exploration_tools=2),
    PhaseSpec("Q1", Phase.Q1, 6, p.Q1Payload, h.gate(Phase.Q1, "needs_more_information"), skipped_by=_EXPLORING,
              is_gate=True),
    PhaseSpec("SEMANTIC", Phase.SEMANTIC, 7, p.SemanticPayload, h.advance, skipped_by=_EXPLORING,
              gated_by=Phase.Q1, required_tools=("semantic_search",)),
    PhaseSpec("Q2", Phase.Q2, 8, p.Q2Payload, h.gate(Phase.Q2, "has_unverified_hypotheses"), skipped_by=_EXPLORING,
              is_gate=True),
    PhaseSpec("VERIFICATION", Phase.VERIFICATION, 9, p.VerificationPayload, h.advance, skipped_by=_EXPLORING,
              gated_by=Phase.Q2),
    PhaseSpec("Q3", Phase.Q3, 10, p.Q3Payload, h.gate(Phase.Q3, "needs_impact_analysis"), skipped_by=_EXPLORING,
              is_gate=True),
    PhaseSpec("IMPACT_ANALYSIS", Phase.IMPACT_ANALYSIS, 11, p.ImpactAnalysisPayload, h.advance,
              skipped_by=_EXPLORING, gated_by=Phase.Q3, required_tools=("analyze_impact",)),
    PhaseSpec("READY_PLANNING", Phase.READY, 12, p.ReadyPlanningPayload, h.ready_planning, substep="planning",
              investigation=False, resources=(".code-intel/task_planning.md",)),
    PhaseSpec("READY_IMPLEMENTATION", Phase.READY, 13, p.ReadyImplementationPayload, h.ready_implementation,
              substep="implementation", investigation=False, required_tools=("check_write_target",)),
    PhaseSpec("READY_COMPLETION", Phase.READY, 14, p.ReadyCompletionPayload, h.ready_completion,
              substep="completion", investigation=False),
    PhaseSpec("POST_IMPL_VERIFY", Phase.POST_IMPL_VERIFY, 15, p.PostImplVerifyPayload, h.post_impl_verify,
              investigation=False, skipped_by=frozenset({"no_verify"}), resources=(".code-intel/verifiers/*.md",)),
    PhaseSpec("VERIFY_INTERVENTION", Phase.VERIFY_INTERVENTION, 16, p.VerifyInterventionPayload,
              h.verify_intervention, investigation=False, conditional=True,
              skipped_by=frozenset({"no_verify", "quick", "ni"}), resources=(".code-intel/interventions/*.md",)),
    PhaseSpec("VERIFY_INTERVENTION_ESCALATION", Phase.VERIFY_INTERVENTION, 16, p.EscalationPayload,
              h.verify_intervention, escalation=True, investigation=False, conditional=True,
              skipped_by=frozenset({"no_verify", "quick", "ni"}), resources=(".code-intel/user_escalation.md",)),
    PhaseSpec("PRE_COMMIT", Phase.PRE_COMMIT, 17, p.PreCommitPayload, h.pre_commit, investigation=False,
              skipped_by=frozenset({"quick"}), required_tools=("review_changes",),
              resources=(".code-intel/review_prompts/garbage_detection.md",)),
    PhaseSpec("QUALITY_REVIEW", Phase.QUALITY_REVIEW, 18, p.QualityReviewPayload, h.quality_review,
              investigation=False, skipped_by=frozenset({"no_quality", "fast", "quick"}),
              resources=(".code-intel/review_prompts/quality_review.md",)),
    PhaseSpec("MERGE", Phase.MERGE, 19, p.MergePayload, h.merge, investigation=False,
              skipped_by=frozenset({"quick"})),
    PhaseSpec("SESSION_COMPLETE", Phase.SESSION_COMPLETE, 20, None, None),
)

BY_ID: MappingProxyType[str, PhaseSpec] = MappingProxyType({spec.contract_id: spec for spec in PHASES})
CONTRACT_IDS: tuple[str, ...] = tuple(BY_ID)
# The order phases run in (each phase once; READY's and VERIFY_INTERVENTION's variants share a place).
SEQUENCE: tuple[Phase, ...] = tuple(dict.fromkeys(spec.phase for spec in PHASES))
# The phase-level entry (the first variant) that routing reads: skip flags, gates, triggers.
ROUTING: MappingProxyType[Phase, PhaseSpec] = MappingProxyType(
    {phase: next(s for s in PHASES if s.phase is phase) for phase in SEQUENCE})

def contract_id(phase: Phase, substep: str | None = None, *, escalation: bool = False) -> str:
    """The key of this phase variant in phase_contract.yml and in the registry."""
    if phase is Phase.READY:
        return f"READY_{(substep or 'planning').upper()}"
    if phase is Phase.VERIFY_INTERVENTION and escalation:
        return "VERIFY_INTERVENTION_ESCALATION"
    return phase.value


def step_of(phase: Phase, substep: str | None = None) -> int:
    return BY_ID[contract_id(phase, substep)].step


def markdown_table() -> str:
    """The registry as the Markdown table in docs/workflow.md (a test keeps the two equal)."""
    rows = ["| step | contract id | payload model | handler | required tools | skipped by | runs when |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for spec in PHASES:
        skipped = sorted(spec.skipped_by) + ([] if spec.investigation else ["investigation"])
        handler = getattr(spec.handler, "__qualname__", "-").split(".<locals>")[0]
        when = ("after two interventions" if spec.escalation else "on its trigger" if spec.conditional
                else f"{spec.gated_by.value} answered yes" if spec.gated_by else "not --gate=full" if spec.is_gate
                else "-")
        rows.append(f"| {spec.step} | `{spec.contract_id}` | {f'`{spec.payload.__name__}`' if spec.payload else '-'} "
                    f"| {f'`{handler}`' if spec.handler else '-'} | {', '.join(spec.required_tools) or '-'} "
                    f"| {', '.join(skipped) or '-'} | {when} |")
    return "\n".join(rows)
