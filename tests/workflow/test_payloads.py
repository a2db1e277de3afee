"""Payload models: wrong fields, missing summary, wrong types, quotes, tool evidence."""

from __future__ import annotations

import pytest

from code_intel.core.errors import PayloadMismatch
from code_intel.workflow.payloads import PhasePayload, validate_payload
from code_intel.workflow.phases import BY_ID, CONTRACT_IDS

PAYLOAD_MODELS: dict[str, type[PhasePayload]] = {cid: spec.payload for cid, spec in BY_ID.items() if spec.payload}


def test_every_contract_variant_has_a_model():
    assert set(CONTRACT_IDS) - {"SESSION_COMPLETE"} == set(PAYLOAD_MODELS)


@pytest.mark.parametrize("cid", sorted(PAYLOAD_MODELS))
def test_summary_is_required_everywhere(cid):
    with pytest.raises(PayloadMismatch, match="missing field 'summary'"):
        validate_payload(PAYLOAD_MODELS[cid], cid, {})


@pytest.mark.parametrize("summary", ["", "   \n"])
def test_blank_summary_is_refused(summary):
    with pytest.raises(PayloadMismatch, match="summary is blank"):
        validate_payload(PAYLOAD_MODELS["MERGE"], "MERGE", {"summary": summary})


def test_wrong_fields_are_named():
    with pytest.raises(PayloadMismatch) as err:
        validate_payload(PAYLOAD_MODELS["MERGE"], "MERGE", {"summary": "s", "merged": True})
    assert "unknown field 'merged'" in err.value.message


@pytest.mark.parametrize(
    ("cid", "data", "field"),
    [
        ("EXPLORATION", {"explored_files": "src/app.py", "findings": [], "summary": "s"}, "explored_files"),
        ("POST_IMPL_VERIFY", {"verifier_used": "v", "passed": 1, "details": "d", "summary": "s"}, "passed"),
        ("VERIFICATION", {"hypotheses_verified": [{"hypothesis": "h", "result": "yes", "evidence": "e"}], "summary": "s"},
         "hypotheses_verified.0.result"),
        ("QUALITY_REVIEW", {"quality_prompt_used": "q", "quality_score": "ok", "issues": "none", "summary": "s"}, "issues"),
        ("EXPLORATION", {"explored_files": [], "findings": [], "tools_used": "search_text", "summary": "s"}, "tools_used"),
    ],
)
def test_wrong_types_are_refused(cid, data, field):
    with pytest.raises(PayloadMismatch) as err:
        validate_payload(PAYLOAD_MODELS[cid], cid, data)
    assert f"'{field}'" in err.value.message


def test_valid_payload_passes():
    model = validate_payload(PAYLOAD_MODELS["Q3"], "Q3", {"needs_impact_analysis": False, "reason": "r", "summary": " s "})
    assert model.summary == "s" and model.tools_used == []


# --------------------------------------------------------------- quotes
def _frame(quotes):
    return {"action_type": "add", "target_symbols": [], "scope": "s", "constraints": "", "quotes": quotes,
            "tools_used": [], "summary": "frame"}


def test_quotes_fold_case_and_whitespace(driver):
    resp = driver.run(driver.start(), until="QUERY_FRAME")
    ok = driver.submit(_frame({"target_feature": "a   SUBTRACT\nfunction", "desired_action": "with a test"}))
    assert ok["phase"] == "EXPLORATION", ok
    assert resp["phase"] == "QUERY_FRAME"


def test_quote_not_in_query_names_the_slot(driver):
    driver.run(driver.start(), until="QUERY_FRAME")
    bad = driver.submit(_frame({"target_feature": "a subtract function", "observed_issue": "it crashes on zero"}))
    assert bad["error"] == "payload_mismatch" and "'observed_issue'" in bad["message"]
    assert bad["current_phase"] == "QUERY_FRAME"


# ------------------------------------------------------------ tool evidence
def test_tool_named_but_never_called_is_refused(driver):
    driver.run(driver.start(), until="EXPLORATION")
    bad = driver.submit({"explored_files": ["src/app.py"], "findings": ["f"], "summary": "s",
                         "tools_used": ["find_definitions", "find_references"]})
    assert bad["error"] == "payload_mismatch" and "find_definitions" in bad["message"]


def test_exploration_needs_two_distinct_tools(driver):
    driver.run(driver.start(), until="EXPLORATION")
    driver.tool("search_text", pattern="a")
    driver.tool("search_text", pattern="b")
    payload = {"explored_files": ["src/app.py"], "findings": ["f"], "summary": "s", "tools_used": ["search_text", "Read"]}
    bad = driver.submit(payload)
    assert bad["error"] == "payload_mismatch" and "at least 2" in bad["message"]
    driver.tool("mcp__code-intel__get_symbols", path="src/app.py", shown=["src/app.py"])
    ok = driver.submit(payload | {"tools_used": ["search_text", "mcp__code-intel__get_symbols", "Read"]})
    assert ok["phase"] == "Q1"


def test_failed_tool_calls_are_not_evidence(driver, engine):
    driver.run(driver.start(), until="EXPLORATION")
    engine.record_tool_call("search_text", {"pattern": "("}, ok=False)
    driver.tool("find_definitions", symbol="add")
    bad = driver.submit({"explored_files": [], "findings": [], "summary": "s", "tools_used": ["search_text", "find_definitions"]})
    assert bad["error"] == "payload_mismatch" and "search_text" in bad["message"]


def test_calls_from_an_earlier_phase_do_not_count(driver):
    resp = driver.run(driver.start(), until="QUERY_FRAME")
    driver.tool("search_text", pattern="add")
    driver.tool("find_definitions", symbol="add")
    driver.submit(driver.payload(resp))
    bad = driver.submit({"explored_files": [], "findings": [], "summary": "s", "tools_used": ["search_text", "find_definitions"]})
    assert bad["error"] == "payload_mismatch"


@pytest.mark.parametrize(("phase", "tool", "gate"), [("SEMANTIC", "semantic_search", "Q1"),
                                                      ("IMPACT_ANALYSIS", "analyze_impact", "Q3")])
def test_required_tool_must_be_named_and_called(driver, phase, tool, gate):
    driver.answers[gate] = True
    resp = driver.run(driver.start(), until=phase)
    good = driver.payload(resp)  # calls the tool
    bad = driver.submit(good | {"tools_used": []})
    assert bad["error"] == "payload_mismatch" and tool in bad["message"]
    assert driver.submit(good)["phase"] != phase


def test_calls_without_session_are_ignored(engine):
    engine.record_tool_call("search_text", {"pattern": "x"}, ok=True)
    data = {"success": False, "error": "x"}
    engine.annotate_refusal(data)  # no session: the refusal says how to start one
    assert data["current_phase"] is None and data["step"] == 0 and data["call"] == "start_session"
    assert "start_session" in data["instruction"] and "intent" in data["expected_payload"]
    engine.start_session("QUESTION", "where is add used?", [], None)
    assert engine.live is not None and engine.live.ledger.entries == []


def test_annotate_refusal_adds_phase(driver, engine):
    driver.start()
    data = {"success": False, "error": "file_not_found", "message": "m"}
    engine.annotate_refusal(data)
    assert data["current_phase"] == "DOCUMENT_RESEARCH" and data["step"] == 3
