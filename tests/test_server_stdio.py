"""The server as a client sees it: spawned over stdio by the MCP SDK's own client."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

pytestmark = pytest.mark.slow  # spawns the server over stdio

REPO = Path(__file__).resolve().parent.parent
SERVER = REPO / "code_intel_server.py"
CONTRACT_TOOLS = {
    "start_session", "submit_phase", "get_session_status",
    "search_text", "search_files", "find_definitions", "find_references", "get_symbols", "analyze_structure",
    "get_function_at_line", "semantic_search", "fetch_chunk_detail", "query", "analyze_impact",
    "validate_symbol_relevance", "check_write_target", "add_explored_files", "review_changes",
    "cleanup_stale_branches", "sync_index", "update_context", "record_outcome", "get_outcome_stats", "run_checks",
}
HEAVY_MODULES = ("torch", "chromadb", "sentence_transformers", "transformers", "git", "tree_sitter_language_pack")


async def _session(project: Path) -> dict[str, Any]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=[str(SERVER), "--project", str(project)],
                                   env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}, cwd=str(project))
    seen: dict[str, Any] = {}
    async with Client(params, read_timeout_seconds=60) as client:
        seen["tools"] = (await client.list_tools()).tools
        for name, args in [("get_outcome_stats", {}), ("get_session_status", {}),
                           ("semantic_search", {"query": "parse a date", "n_results": 0}),
                           ("search_text", {"max_results": "many"}),
                           ("record_outcome", {"outcome": "failure", "phase_at_outcome": "LUNCH"}),
                           ("record_outcome", {"outcome": "failure", "phase_at_outcome": "READY",
                                               "analysis": {"root_cause": "test"}}),
                           ("get_outcome_stats", {})]:
            result = await client.call_tool(name, args)
            seen.setdefault(name, []).append(result)
    return seen


@pytest.fixture(scope="module")
def spawned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    project = tmp_path_factory.mktemp("stdio") / "project"
    project.mkdir()
    return project, anyio.run(_session, project)


def test_lists_every_contract_tool_with_schema_and_annotations(spawned: tuple[Path, dict[str, Any]]) -> None:
    _, seen = spawned
    tools = {tool.name: tool for tool in seen["tools"]}
    assert CONTRACT_TOOLS <= set(tools)
    for tool in tools.values():
        assert tool.description and len(tool.description) > 40, tool.name
        assert tool.input_schema["type"] == "object"
        assert tool.annotations is not None
    assert tools["search_text"].annotations.read_only_hint is True
    assert tools["cleanup_stale_branches"].annotations.destructive_hint is True
    assert {"pattern", "path", "glob", "case_sensitive", "fixed_strings", "context_lines", "max_results"} <= set(
        tools["search_text"].input_schema["properties"])
    assert set(tools["record_outcome"].input_schema["properties"]) >= {"outcome", "phase_at_outcome", "analysis"}


def test_calls_answer_structured_results_and_refusals(spawned: tuple[Path, dict[str, Any]]) -> None:
    _, seen = spawned
    empty, after = (r.structured_content for r in seen["get_outcome_stats"])
    assert empty["success"] is True and empty["outcomes"]["total"] == 0
    assert after["outcomes"]["by_phase"] == {"READY": {"failure": 1}}

    status = seen["get_session_status"][0].structured_content
    assert status["success"] is False and status["error"] == "no_active_session" and status["message"]

    refused, recorded = (r.structured_content for r in seen["record_outcome"])
    assert refused["success"] is False and refused["error"] == "invalid_argument" and "LUNCH" in refused["message"]
    assert recorded["success"] is True and recorded["phase_at_outcome"] == "READY"
    # the text content mirrors the structured result for clients that only read text
    assert json.loads(seen["record_outcome"][1].content[0].text)["outcome"] == "failure"


def test_arguments_outside_the_schema_get_a_structured_refusal(spawned: tuple[Path, dict[str, Any]]) -> None:
    _, seen = spawned
    (bound,) = (r.structured_content for r in seen["semantic_search"])
    assert bound["success"] is False and bound["error"] == "invalid_argument"
    assert "n_results" in bound["message"] and "greater than or equal to 1" in bound["message"]
    assert "semantic_search again" in bound["hint"]
    (missing,) = (r.structured_content for r in seen["search_text"])
    assert missing["error"] == "invalid_argument"
    assert "missing argument 'pattern'" in missing["message"] and "max_results" in missing["message"]
    # the server answered the calls after them
    assert seen["get_outcome_stats"][1].structured_content["success"] is True


def test_logs_go_to_the_project_log_file(spawned: tuple[Path, dict[str, Any]]) -> None:
    project, _ = spawned
    log = (project / ".code-intel" / "logs" / "server.log").read_text(encoding="utf-8")
    assert f"serving project {project.resolve()}" in log
    assert "get_outcome_stats ok" in log


def test_stdout_carries_only_protocol_messages(tmp_path: Path) -> None:
    """Speak raw JSON-RPC: every stdout line must parse as a JSON-RPC message."""
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
    messages = [initialize, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_outcome_stats", "arguments": {}}}]
    stdin = "".join(json.dumps(m) + "\n" for m in messages)
    proc = subprocess.Popen([sys.executable, str(SERVER), "--project", str(tmp_path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdin and proc.stdout and proc.stderr
    watchdog = threading.Timer(60, proc.kill)  # a silent server must fail the test, not hang it
    watchdog.start()
    try:
        proc.stdin.write(stdin)
        proc.stdin.flush()
        out_lines = [proc.stdout.readline() for _ in range(3)]  # initialize, tools/list, tools/call
    finally:
        proc.stdin.close()  # EOF ends the server
        proc.wait(timeout=30)
        watchdog.cancel()
    rest, err = proc.stdout.read(), proc.stderr.read()
    assert rest.strip() == ""
    replies = [json.loads(line) for line in out_lines]
    assert [r.get("id") for r in replies] == [1, 2, 3]
    assert all(r["jsonrpc"] == "2.0" for r in replies)
    assert "serving project" not in err and " INFO " not in err  # INFO goes to the log file only


def test_importing_and_building_the_server_loads_no_heavy_library(tmp_path: Path) -> None:
    code = (
        "import sys, code_intel_server as s\n"
        "from code_intel.server.app import CodeIntelApp\n"
        f"server = s.build_server(CodeIntelApp.for_path({str(tmp_path)!r}))\n"
        f"print([m for m in {(*HEAVY_MODULES, 'code_intel.workflow.engine')!r} if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO, timeout=60)
    assert out.stdout.strip() == "[]"  # the workflow too is built on first use, not before the server answers
