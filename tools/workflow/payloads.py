"""One pydantic model per phase variant: what submit_phase's `data` must look like (the phase
registry, `phases.py`, names each variant's model).

Unknown fields, a missing or blank summary and wrong types are all refused with
`payload_mismatch`, naming each problem. Booleans are strict (no "yes" -> True), so a payload sent
for another phase cannot slip through by coercion. `compaction_count` is taken out before this.
"""

from __future__ import annotations

from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError, field_validator

from code_intel.core.errors import PayloadMismatch, validation_problems


class PhasePayload(BaseModel):
    """Every phase sends a non-empty summary; tools_used lists what it used (empty allowed)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    summary: str = Field(description="key points needed to resume")
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
    target_feature: str | None = None
    trigger_condition: str | None = None
    observed_issue: str | None = None
    desired_action: str | None = None
    constraints: str | list[str] = Field(description='"" when the request states none')
    quotes: dict[str, str] | None = Field(
        default=None, description="slot -> verbatim text from the request, one per filled slot")


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
    tasks: list[dict[str, Any]] = Field(json_schema_extra={"shown": (  # the TaskBoard validates each task
        "list[{id: str, description: str, status: 'pending'|'completed', checklist: list[{item: str, "
        "status: 'pending'}]}]")})


class ReadyImplementationPayload(PhasePayload):
    task_id: str
    checklist: list[dict[str, Any]] = Field(json_schema_extra={"shown": (  # the TaskBoard checks items and evidence
        "list[{item: str, status: 'done'|'skipped', evidence?: 'file:line', reason?: str}]")})

    def writes_nothing(self) -> bool:
        """Every item is reported skipped: the task wrote nothing, so it needs no check_write_target."""
        return bool(self.checklist) and all(isinstance(i, dict) and i.get("status") == "skipped" for i in self.checklist)


class ReadyCompletionPayload(PhasePayload):
    pass


class PostImplVerifyPayload(PhasePayload):
    verifier_used: str = Field(description="name or path")
    passed: StrictBool
    failed_tasks: list[str] | None = Field(default=None, description="task ids, when passed is false")
    details: str


class VerifyInterventionPayload(PhasePayload):
    prompt_used: str = Field(description="name or path")
    action_taken: str


class EscalationPayload(VerifyInterventionPayload):
    prompt_used: str = Field(description="should be .code-intel/user_escalation.md")


class PreCommitPayload(PhasePayload):
    review_prompt_used: str = Field(description="name or path")
    reviewed_files: list[str]
    discarded_files: list[str] = Field(default_factory=list)
    reallowed_files: list[str] = Field(default_factory=list, description="files flagged at READY that the user keeps")
    commit_message: str

    @field_validator("commit_message")
    @classmethod
    def _message_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("commit_message is blank")
        return value.strip()


class QualityReviewPayload(PhasePayload):
    quality_prompt_used: str = Field(description="name or path")
    quality_score: str | int | float
    issues: list[str]


class MergePayload(PhasePayload):
    pass


def _shown_type(annotation: Any) -> str:
    """A field's type as the agent reads it: `list[str]`, `'a' | 'b'`, `{hypothesis: str, reason?: str}`."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return " | ".join(repr(a) for a in args)
    if origin in (Union, UnionType):
        shown = [_shown_type(a) for a in args if a is not type(None)]
        return " or ".join(shown)
    if origin is list:
        return f"list[{_shown_type(args[0])}]"
    if origin is dict:
        return "dict" if args[1] is Any else f"dict[{_shown_type(args[0])}, {_shown_type(args[1])}]"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        fields = (f"{name}{'' if info.is_required() else '?'}: {_shown_type(info.annotation)}"
                  for name, info in annotation.model_fields.items())
        return "{" + ", ".join(fields) + "}"
    return "any" if annotation is Any else getattr(annotation, "__name__", str(annotation))


def expected_payload(model: type[PhasePayload] | None, tools_used: str = "") -> dict[str, str]:
    """What submit_phase's `data` holds in a phase, made from the phase's model: each field's type, then
    `(optional)` and its description in brackets. `tools_used` says what the phase's tools_used must hold."""
    if model is None:
        return {}
    shared = list(PhasePayload.model_fields)
    shown: dict[str, str] = {}
    for name in [*(n for n in model.model_fields if n not in shared), *reversed(shared)]:
        info = model.model_fields[name]
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        text = str(extra.get("shown") or _shown_type(info.annotation))
        if name == "tools_used":  # optional in the model, but what the phase needs in it is what counts
            notes = [tools_used] if tools_used else []
        else:
            notes = [note for note in ("" if info.is_required() else "optional", info.description or "") if note]
        shown[name] = f"{text} ({': '.join(notes)})" if notes else text
    return shown


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
