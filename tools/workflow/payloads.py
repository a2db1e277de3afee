"""One pydantic model per phase variant: what submit_phase's `data` must look like (the phase
registry, `phases.py`, names each variant's model).

Unknown fields, a missing or blank summary and wrong types are all refused with
`payload_mismatch`, naming each problem. Booleans are strict (no "yes" -> True), so a payload sent
for another phase cannot slip through by coercion. `compaction_count` is taken out before this.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError, field_validator

from code_intel.core.errors import PayloadMismatch, validation_problems


class PhasePayload(BaseModel):
    """Every phase sends a non-empty summary; tools_used lists what it used (empty allowed)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    summary: str
    tools_used: list[str] = Field(default_factory=list)

    @field_validator("summary")
    @classmethod
    def _summary_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("summary is blank: write the key points needed to resume this session")
        return value.strip()


class BranchInterventionPayload(PhasePayload):
    choice: Literal["delete", "merge", "continue"]


class DocumentResearchPayload(PhasePayload):
    documents_reviewed: list[str]


class QueryFramePayload(PhasePayload):
    action_type: str
    target_symbols: list[str]
    scope: str
    constraints: str | list[str]
    target_feature: str | None = None
    trigger_condition: str | None = None
    observed_issue: str | None = None
    desired_action: str | None = None
    quotes: dict[str, str] | None = None  # slot -> text quoted verbatim from the query


class ExplorationPayload(PhasePayload):
    explored_files: list[str]
    findings: list[str]


class Q1Payload(PhasePayload):
    needs_more_information: StrictBool
    reason: str


class SemanticPayload(PhasePayload):
    search_query: str | None = None
    search_results: list[str | dict[str, Any]]


class Q2Payload(PhasePayload):
    has_unverified_hypotheses: StrictBool
    reason: str


class VerifiedHypothesis(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    hypothesis: str
    result: StrictBool
    evidence: str
    reason: str | None = None


class VerificationPayload(PhasePayload):
    hypotheses_verified: list[VerifiedHypothesis]


class Q3Payload(PhasePayload):
    needs_impact_analysis: StrictBool
    reason: str


class ImpactAnalysisPayload(PhasePayload):
    impact_summary: dict[str, Any]


class ReadyPlanningPayload(PhasePayload):
    tasks: list[dict[str, Any]]  # the TaskBoard validates each task


class ReadyImplementationPayload(PhasePayload):
    task_id: str
    checklist: list[dict[str, Any]]  # the TaskBoard checks items, order and evidence

    def writes_nothing(self) -> bool:
        """Every item is reported skipped: the task wrote nothing, so it needs no check_write_target."""
        return bool(self.checklist) and all(isinstance(i, dict) and i.get("status") == "skipped" for i in self.checklist)


class ReadyCompletionPayload(PhasePayload):
    pass


class PostImplVerifyPayload(PhasePayload):
    verifier_used: str
    passed: StrictBool
    failed_tasks: list[str] | None = None
    details: str


class VerifyInterventionPayload(PhasePayload):
    prompt_used: str
    action_taken: str


class PreCommitPayload(PhasePayload):
    review_prompt_used: str
    reviewed_files: list[str]
    discarded_files: list[str] = Field(default_factory=list)
    reallowed_files: list[str] = Field(default_factory=list)  # flagged at READY as changed before it; kept by the user's choice
    commit_message: str

    @field_validator("commit_message")
    @classmethod
    def _message_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("commit_message is blank")
        return value.strip()


class QualityReviewPayload(PhasePayload):
    quality_prompt_used: str
    quality_score: str | int | float
    issues: list[str]


class MergePayload(PhasePayload):
    pass


def validate_payload(model: type[PhasePayload], phase_label: str, data: Any) -> PhasePayload:
    """The payload as its phase's model, or payload_mismatch naming every problem."""
    if isinstance(data, str):
        raise PayloadMismatch(
            f"`data` is a string, not an object; currently in {phase_label}. A payload sent as JSON text inside a "
            "string is not read",
            hint="send `data` as the JSON object itself, e.g. {\"summary\": ..., \"tools_used\": [...]}, not as a "
            "quoted string",
        )
    if not isinstance(data, dict):
        raise PayloadMismatch(
            f"submit_phase needs an object in `data`, got {type(data).__name__}; currently in {phase_label}",
            hint="send the fields listed in expected_payload as a JSON object",
        )
    try:
        return model.model_validate(data)
    except ValidationError as err:
        problems = validation_problems(err, "field", "(payload)")
        raise PayloadMismatch(
            f"payload does not fit {phase_label}: " + "; ".join(problems),
            hint="send exactly the fields in expected_payload (with a non-empty summary)",
        ) from None
