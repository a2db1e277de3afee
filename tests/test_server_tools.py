"""The MCP layer's table of tools (in-memory client): per-tool output schemas, the refusal envelope
with isError, compact text content, and the ledger entry every tool but submit_phase leaves."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from code_intel.core.tool_facts import SERVER_TOOLS
from code_intel.server.app import CodeIntelApp
from code_intel_server import TOOLS, build_server

# Every tool the in-memory test can run without the embedding model, with arguments that succeed.
CHEAP_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_outcome_stats", {}),
    ("start_session", {"intent": "QUESTION", "query": "where is add used?", "flags": ["--no-doc-research"]}),
    ("start_session", {"intent": "QUESTION", "query": "where is add used?"}),  # the recovery offer
    ("get_session_status", {}),
    ("search_text", {"pattern": "def add", "context_lines": 1}),
    ("search_text", {"pattern": ["def", "return"]}),
    ("search_files", {"pattern": "**/*.py"}),
    ("find_definitions", {"symbol": "add"}),
    ("find_references", {"symbol": "add"}),
    ("find_references", {"symbol": "Rules"}),  # only in CLAUDE.md's prose: the answer's left_out is set
    ("get_symbols", {"path": "src/app.py"}),
    ("analyze_structure", {"path": "src/app.py"}),
    ("get_function_at_line", {"path": "src/app.py", "line": 2}),
    ("analyze_impact", {"files": ["src/app.py"]}),
    ("query", {"question": "where is add defined"}),
    ("check_write_target", {"file_path": "src/app.py"}),
    ("add_explored_files", {"files": ["src/app.py"]}),
    ("review_changes", {}),
    ("update_context", {}),
    ("record_outcome", {"outcome": "failure", "phase_at_outcome": "EXPLORATION", "analysis": {"why": "test"}}),
    ("cleanup_stale_branches", {}),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = (tmp_path / "project").resolve()
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def add(a, b):\n    total = a + b\n    return total\n\n\nprint(add(1, 2))\n")
    (root / "CLAUDE.md").write_text("# Rules\n\n- DO keep functions small\n")
    (root / ".code-intel").mkdir()
    (root / ".code-intel" / "config.json").write_text('{"sync_on_start": false}')
    for args in (["init", "-q", "-b", "main"], ["add", "-A"],
                 ["-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "init"]):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
    return root


def _references(node: object) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [ref for value in node.values() for ref in _references(value)]
    if isinstance(node, list):
        return [ref for item in node for ref in _references(item)]
    return []


async def test_every_tool_lists_its_own_output_schema(project: Path) -> None:
    app = CodeIntelApp.for_path(project)
    try:
        async with Client(build_server(app)) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    finally:
        app.close()
    assert set(tools) == set(TOOLS) == SERVER_TOOLS
    results = set()
    for name, tool in tools.items():
        schema = tool.output_schema
        assert schema is not None and schema["type"] == "object", name
        choices = []
        for choice in schema["anyOf"]:
            model = choice["title"]
            success = {part["properties"]["success"]["const"] for part in choice["allOf"] if "success" in part.get("properties", {})}
            assert success == {model != "Refusal"}, (name, model)
            choices.append(model)
        assert choices[-1] == "Refusal" and len(choices) >= 2, name
        results.add(tuple(choices[:-1]))
        # every reference resolves inside the schema (a client refuses the whole tool otherwise)
        defined = set(schema.get("$defs", {}))
        for ref in _references(schema):
            assert ref.startswith("#/$defs/") and ref.removeprefix("#/$defs/") in defined, (name, ref)
    assert ("PhaseResponse", "RecoveryOffer") in results and ("PatternResult", "MultiPatternResult") in results
    assert len(results) >= 18  # each tool says what it returns; only the session tools share a model


async def test_results_fit_their_schema_and_refusals_set_is_error(project: Path) -> None:
    app = CodeIntelApp.for_path(project)
    try:
        async with Client(build_server(app)) as client:  # the SDK client validates each result against its schema
            for name, args in CHEAP_CALLS:
                result = await client.call_tool(name, args)
                data = result.structured_content
                assert data is not None and data["success"] is True, (name, data)
                assert result.is_error is False
                text = result.content[0].text
                assert text == json.dumps(data, ensure_ascii=False, separators=(",", ":")), name  # compact
                if name == "search_text" and isinstance(args["pattern"], str):
                    assert app.workflow.live is not None
                    tools = [e.tool for e in app.workflow.live.ledger.entries]
                    assert tools == ["start_session", "start_session", "get_session_status", "search_text"]

            refused = await client.call_tool("get_symbols", {"path": "no/such/file.py"})
            assert refused.is_error is True
            assert refused.structured_content["success"] is False and refused.structured_content["error"] == "invalid_argument"
            assert json.loads(refused.content[0].text) == refused.structured_content

            bad = await client.call_tool("search_text", {"max_results": "many"})
            assert bad.is_error is True and bad.structured_content["error"] == "invalid_argument"
    finally:
        app.close()


async def test_ledger_records_failed_calls_and_the_session_tools_but_not_submit(project: Path) -> None:
    app = CodeIntelApp.for_path(project)
    try:
        async with Client(build_server(app)) as client:
            await client.call_tool("start_session", {"intent": "QUESTION", "query": "q?", "flags": ["--no-doc-research"]})
            await client.call_tool("get_symbols", {"path": "missing.py"})
            await client.call_tool("get_symbols", {"path": "src/app.py"})
            await client.call_tool("get_session_status", {})
            await client.call_tool("submit_phase", {"data": {"bogus": 1}})
            assert app.workflow.live is not None
            entries = [(e.tool, e.ok) for e in app.workflow.live.ledger.entries]
    finally:
        app.close()
    # start_session lands in the session it started; submit_phase is the submit itself, never evidence
    assert entries == [("start_session", True), ("get_symbols", False), ("get_symbols", True), ("get_session_status", True)]


async def test_calls_outside_a_session_leave_the_workflow_unloaded_until_one_starts(project: Path) -> None:
    app = CodeIntelApp.for_path(project)
    try:
        async with Client(build_server(app)) as client:
            await client.call_tool("get_symbols", {"path": "src/app.py"})
            # no session in this process and none waiting in a checkpoint: no ledger, so nothing loads the workflow
            unloaded = "workflow" not in app._services
            await client.call_tool("start_session", {"intent": "QUESTION", "query": "q?", "flags": ["--no-doc-research"]})
            await client.call_tool("get_symbols", {"path": "src/app.py"})
            assert app.workflow.live is not None
            entries = [e.tool for e in app.workflow.live.ledger.entries]
    finally:
        app.close()
    assert unloaded and entries == ["start_session", "get_symbols"]


def test_an_answer_is_its_model_as_json_with_success_and_no_nulls() -> None:
    """The structured content is the model's JSON values with null fields left out and `success: true` (declared,
    an extra field, or added); the text content is the same object as compact JSON."""
    from code_intel.explore.models import Partial, PatternResult
    from code_intel.learning.outcomes import OutcomeEntry
    from code_intel.server.answers import answered
    from code_intel.workflow.response_models import PhaseResponse

    results = [
        Partial(),  # every field null: only `success` is left
        PatternResult(pattern="x", total_matches=2, truncated=True, skipped_total=None,
                      matches=[{"file": "a.py", "line": 1, "column": 3, "text": 'é "q" \\ \t'},
                               {"file": "b.py", "line": 2, "column": 1, "text": "x", "context_before": [""]}]),
        OutcomeEntry(ts="t", outcome="success", log_file="l", success=True),  # `success` as an extra field
        PhaseResponse.model_construct(**{name: field.default for name, field in PhaseResponse.model_fields.items()
                                         if not field.is_required()}),  # `success` as a declared field
    ]
    for result in results:
        wire = answered(result)
        expected = {**result.model_dump(mode="json", exclude_none=True), "success": True}
        assert wire.structured_content == expected and wire.is_error is False, type(result).__name__
        assert wire.content[0].text == json.dumps(expected, ensure_ascii=False, separators=(",", ":"))


def test_session_completes_asking_for_exactly_record_outcomes_arguments() -> None:
    """SESSION_COMPLETE's expected_payload (responses.RECORD_OUTCOME_PAYLOAD) names the record_outcome tool's own
    arguments, so an agent sending what it lists is never refused as an unknown argument."""
    from code_intel.workflow.responses import RECORD_OUTCOME_PAYLOAD

    schema = build_server(None).registered["record_outcome"].parameters  # type: ignore[arg-type]
    assert set(RECORD_OUTCOME_PAYLOAD) == set(schema["properties"])
    assert schema.get("required") == ["outcome"] and "optional" not in RECORD_OUTCOME_PAYLOAD["outcome"]


@pytest.mark.parametrize(("tool", "sent", "suggested"), [
    ("submit_phase", "payload", "data"),  # the answers' own `expected_payload` makes this the natural guess
    ("find_definitions", "name", "symbol"),
    ("query", "name", "question"),
    ("start_session", "request", "query"),
    ("start_session", "project_path", "repo_path"),
    ("search_text", "query", "pattern"),
    ("search_text", "paths", "path"),
    ("semantic_search", "top_k", "n_results"),
    ("get_function_at_line", "line_number", "line"),
    ("find_references", "symbl", "symbol"),  # a misspelling: by similarity
])
def test_an_unknown_argument_gets_the_argument_meant(tool: str, sent: str, suggested: str) -> None:
    from code_intel.server.refusals import unknown_argument_error

    known = list(build_server(None).registered[tool].parameters["properties"])  # type: ignore[arg-type]
    refusal = unknown_argument_error(tool, {sent: "x"}, known)
    assert refusal is not None and f"did you mean {suggested!r} for {sent!r}?" in refusal.message, refusal



def test_a_tool_the_table_does_not_name_is_refused_at_registration() -> None:
    from code_intel_server import tool

    def not_in_the_table() -> None:
        """A tool without a line in core/tool_facts.py."""

    with pytest.raises(TypeError, match="tool_facts"):
        tool(not_in_the_table)
