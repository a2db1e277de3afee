"""The phase registry agrees with the v1.16 19-step table, with the built-in phase_contract.yml and
with the phase table in docs/workflow.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_intel.core.config import read_yaml
from code_intel.core.session_types import Phase
from code_intel.workflow.contract import BUILTIN_CONTRACT
from code_intel.workflow.matrix import COLUMNS, MATRIX
from code_intel.workflow.payloads import PhasePayload, PreCommitPayload
from code_intel.workflow.phases import BY_ID, CONTRACT_IDS, PHASES, SEQUENCE, markdown_table

DOCS = Path(__file__).resolve().parents[2] / "docs" / "workflow.md"

# The phase matrix of design-v1.16.md ("Phase Matrix"), transcribed: Y runs, N does not.
#            step label                      Impl Inv  no-v no-q fast quik nodc -ni
SPEC_TABLE = """
             1  start_session                Y    Y    Y    Y    Y    Y    Y    Y
             2  BRANCH_INTERVENTION          Y    Y    Y    Y    Y    Y    Y    Y
             3  DOCUMENT_RESEARCH            Y    Y    Y    Y    Y    Y    N    Y
             4  QUERY_FRAME                  Y    Y    Y    Y    Y    Y    Y    Y
             5  EXPLORATION                  Y    Y    Y    Y    N    N    Y    Y
             6  Q1                           Y    Y    Y    Y    N    N    Y    Y
             7  SEMANTIC                     Y    Y    Y    Y    N    N    Y    Y
             8  Q2                           Y    Y    Y    Y    N    N    Y    Y
             9  VERIFICATION                 Y    Y    Y    Y    N    N    Y    Y
            10  Q3                           Y    Y    Y    Y    N    N    Y    Y
            11  IMPACT_ANALYSIS              Y    Y    Y    Y    N    N    Y    Y
            12  READY(planning)              Y    N    Y    Y    Y    Y    Y    Y
            13  READY(implementation)        Y    N    Y    Y    Y    Y    Y    Y
            14  READY(completion)            Y    N    Y    Y    Y    Y    Y    Y
            15  POST_IMPL_VERIFY             Y    N    N    Y    Y    Y    Y    Y
            16  VERIFY_INTERVENTION          Y    N    N    Y    Y    N    Y    N
            17  PRE_COMMIT                   Y    N    Y    Y    Y    N    Y    Y
            18  QUALITY_REVIEW               Y    N    Y    N    N    N    Y    Y
            19  MERGE                        Y    N    Y    Y    Y    N    Y    Y
"""


def _spec_rows() -> list[tuple[int, str, tuple[bool, ...]]]:
    rows = []
    for line in SPEC_TABLE.strip().splitlines():
        step, label, *cells = line.split()
        rows.append((int(step), label, tuple(cell == "Y" for cell in cells)))
    return rows


def test_matrix_derived_from_the_registry_is_the_19_step_table():
    assert COLUMNS == ("impl", "investigate", "no_verify", "no_quality", "fast", "quick", "no_doc", "ni")
    derived = [(row.step, row.label.replace(" ", ""), row.cells) for row in MATRIX]
    assert derived == _spec_rows()


def test_registry_is_in_step_order_and_covers_every_phase():
    steps = [spec.step for spec in PHASES if not spec.escalation]
    assert steps == sorted(steps) and len(set(steps)) == len(steps) == 19  # steps 2..20
    assert SEQUENCE == tuple(Phase)
    assert {spec.phase for spec in PHASES} == set(Phase)
    for spec in PHASES:
        assert (spec.payload is None) == (spec.handler is None) == (spec.phase is Phase.SESSION_COMPLETE), spec


def _template() -> dict[str, dict]:
    return read_yaml(BUILTIN_CONTRACT.read_text(encoding="utf-8"))["phases"]


def test_builtin_contract_has_exactly_the_registry_variants():
    assert list(_template()) == list(CONTRACT_IDS)


def test_the_builtin_contract_holds_only_instructions():
    """One source for each phase fact: tools, resources and the payload come from the registry and the models."""
    assert {key for entry in _template().values() for key in entry} == {"instruction"}


@pytest.mark.parametrize("cid", CONTRACT_IDS)
def test_expected_payload_is_made_from_the_phase_model(cid):
    spec = BY_ID[cid]
    shown = spec.contract_defaults()["expected_payload"]
    if spec.payload is None:
        assert shown == {}
        return
    assert list(shown) == [*(n for n in spec.payload.model_fields if n not in PhasePayload.model_fields),
                           "tools_used", "summary"]
    for name, info in spec.payload.model_fields.items():
        assert ("(optional" in shown[name]) is (not info.is_required() and name != "tools_used"), (cid, name)
    for tool in spec.required_tools:
        assert f"must include {tool}" in shown["tools_used"]


def test_expected_payload_shows_types_literals_and_nested_models():
    shown = BY_ID["BRANCH_INTERVENTION"].contract_defaults()["expected_payload"]
    assert shown["choice"] == "'delete' | 'merge' | 'continue'"
    assert shown["summary"] == "str (key points needed to resume)"
    verification = BY_ID["VERIFICATION"].contract_defaults()["expected_payload"]
    assert verification["hypotheses_verified"] == "list[{hypothesis: str, result: bool, evidence: str, reason?: str}]"
    assert "at least 2" in BY_ID["EXPLORATION"].contract_defaults()["expected_payload"]["tools_used"]
    assert "user_escalation" in BY_ID["VERIFY_INTERVENTION_ESCALATION"].contract_defaults()["expected_payload"]["prompt_used"]


def test_pre_commit_reallowed_files_is_optional_in_the_registry_and_shown_to_the_agent():
    spec = BY_ID["PRE_COMMIT"]
    assert spec.payload is PreCommitPayload
    field = PreCommitPayload.model_fields["reallowed_files"]
    assert not field.is_required() and field.default_factory is not None and field.default_factory() == []
    assert "optional" in spec.contract_defaults()["expected_payload"]["reallowed_files"]
    assert "reallowed_files" in _template()["PRE_COMMIT"]["instruction"]


def test_docs_phase_table_is_the_registry():
    text = DOCS.read_text(encoding="utf-8")
    assert markdown_table() in text, (
        "docs/workflow.md's phase table differs from the registry; paste the output of "
        "`python -c 'from code_intel.workflow.phases import markdown_table; print(markdown_table())'`"
    )
