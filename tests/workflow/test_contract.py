"""phase_contract.yml first, built-in defaults second; a malformed file is a clear error."""

from __future__ import annotations

import pytest

from code_intel.core.errors import ConfigError
from code_intel.workflow.contract import BUILTIN_CONTRACT, load_contract
from code_intel.workflow.phases import CONTRACT_IDS


def test_builtin_contract_covers_every_variant():
    contracts = load_contract(None)
    assert set(contracts) == set(CONTRACT_IDS)
    assert contracts["SEMANTIC"].required_tools == ["semantic_search"]
    assert contracts["IMPACT_ANALYSIS"].required_tools == ["analyze_impact"]
    assert contracts["READY_IMPLEMENTATION"].required_tools == ["check_write_target"]
    assert contracts["PRE_COMMIT"].required_tools == ["review_changes"]
    assert contracts["EXPLORATION"].min_exploration_tools == 2
    assert BUILTIN_CONTRACT.exists()


# The v1.13 memo's required and recommended tools, and the .code-intel files, per phase (docs/spec-audit-v1.13.md).
MEMO_TOOLS = {
    "DOCUMENT_RESEARCH": ["search_files", "search_text"],
    "EXPLORATION": ["search_text", "search_files", "find_definitions", "get_symbols", "analyze_structure",
                    "get_function_at_line", "find_references"],
    "SEMANTIC": ["semantic_search", "fetch_chunk_detail"],
    "VERIFICATION": ["search_text", "find_definitions", "find_references"],
    "IMPACT_ANALYSIS": ["analyze_impact"],
    "READY_IMPLEMENTATION": ["check_write_target"],
    "PRE_COMMIT": ["review_changes"],
}
MEMO_RESOURCES = {
    "DOCUMENT_RESEARCH": [".code-intel/context.yml", ".code-intel/doc_research/*.md"],
    "READY_PLANNING": [".code-intel/task_planning.md"],
    "POST_IMPL_VERIFY": [".code-intel/verifiers/*.md"],
    "VERIFY_INTERVENTION": [".code-intel/interventions/*.md"],
    "VERIFY_INTERVENTION_ESCALATION": [".code-intel/user_escalation.md"],
    "PRE_COMMIT": [".code-intel/review_prompts/garbage_detection.md"],
    "QUALITY_REVIEW": [".code-intel/review_prompts/quality_review.md"],
}


@pytest.mark.parametrize("key", sorted(MEMO_TOOLS))
def test_builtin_instruction_names_the_memos_tools(key):
    instruction = load_contract(None)[key].instruction
    assert [t for t in MEMO_TOOLS[key] if t not in instruction] == []


@pytest.mark.parametrize("key", sorted(MEMO_RESOURCES))
def test_builtin_contract_points_at_the_memos_files(key):
    assert load_contract(None)[key].resources == MEMO_RESOURCES[key]


def test_project_file_overrides_field_by_field(tmp_path):
    file = tmp_path / "phase_contract.yml"
    file.write_text("phases:\n  Q1:\n    instruction: Ask yourself whether semantic search helps.\n")
    contracts = load_contract(file)
    assert contracts["Q1"].instruction == "Ask yourself whether semantic search helps."
    assert "needs_more_information" in contracts["Q1"].expected_payload  # made from the phase's model
    assert contracts["Q2"] == load_contract(None)["Q2"]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("phases: [1, 2]\n", "'phases' mapping"),
        ("phases:\n  Q9:\n    instruction: x\n", "unknown phase 'Q9'"),
        ("phases:\n  Q1: just text\n", "must be a mapping"),
        ("phases:\n  Q1:\n    instruction: ''\n", "instruction"),
        ("phases:\n  Q1:\n    required_tools: semantic_search\n", "required_tools"),
        ("phases:\n  Q1:\n    color: blue\n", "color"),
        ("phases:\n  Q1:\n    expected_payload: {answer: bool}\n", "answer"),
        ("phases:\n  Q1: {instruction: [unclosed\n", "not valid YAML"),
    ],
)
def test_malformed_file_is_a_clear_error(tmp_path, text, fragment):
    file = tmp_path / "phase_contract.yml"
    file.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_contract(file)
    assert fragment in err.value.message and str(file) in err.value.message


def test_engine_uses_project_contract_and_refuses_malformed(driver, app_project):
    contract = app_project.state_dir / "phase_contract.yml"
    contract.parent.mkdir(parents=True, exist_ok=True)
    contract.write_text("phases:\n  DOCUMENT_RESEARCH:\n    instruction: Read docs/ first.\n")
    resp = driver.start()
    assert resp["instruction"].split("\n\n")[0] == "Read docs/ first."
    contract.write_text("phases:\n  DOCUMENT_RESEARCH:\n    instruction: [broken\n")
    bad = driver.submit(driver.payload(resp))
    assert bad["success"] is False and bad["error"] == "tool_unavailable"
    assert driver.engine.live.state.phase.value == "DOCUMENT_RESEARCH"  # nothing moved


def test_required_tool_added_by_project_is_enforced(driver, app_project):
    contract = app_project.state_dir / "phase_contract.yml"
    contract.parent.mkdir(parents=True, exist_ok=True)
    contract.write_text("phases:\n  DOCUMENT_RESEARCH:\n    required_tools: [search_files]\n")
    resp = driver.start()
    bad = driver.submit(driver.payload(resp))
    assert bad["error"] == "payload_mismatch" and "search_files" in bad["message"]
    driver.tool("search_files", pattern="**/*.md")
    assert driver.submit(driver.payload(resp) | {"tools_used": ["search_files"]})["phase"] == "QUERY_FRAME"
