"""The engine behind the real MCP layer (in-memory client): refusal envelope, ledger through real tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from code_intel.server.app import CodeIntelApp
from code_intel_server import build_server

ENVELOPE = {"success", "error", "message", "current_phase", "step", "instruction", "expected_payload", "call"}


async def _call(client: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    data = result.structured_content
    return data if data is not None else json.loads(result.content[0].text)


async def test_session_through_the_mcp_layer(app_project):
    from mcp import Client

    (app_project.state_dir).mkdir(exist_ok=True)
    (app_project.state_dir / "config.json").write_text('{"sync_on_start": false}')  # keep the index out of this test
    app = CodeIntelApp(app_project)
    try:
        async with Client(build_server(app), read_timeout_seconds=60) as client:
            bad_flag = await _call(client, "start_session", {"intent": "QUESTION", "query": "how is add used?",
                                                             "flags": ["--bogus"]})
            assert bad_flag["success"] is False and bad_flag["error"] == "invalid_flag"

            resp = await _call(client, "start_session", {"intent": "QUESTION", "query": "how is add used?",
                                                         "flags": ["--no-doc-research"]})
            assert resp["success"] and resp["phase"] == "QUERY_FRAME" and resp["step"] == 4

            refused = await _call(client, "submit_phase", {"data": "done"})
            assert ENVELOPE <= set(refused) and refused["error"] == "payload_mismatch"
            assert refused["current_phase"] == "QUERY_FRAME" and refused["call"] == "submit_phase"

            resp = await _call(client, "submit_phase", {"data": {
                "action_type": "question", "target_symbols": ["add"], "scope": "src", "constraints": "",
                "quotes": {"target_feature": "add"}, "summary": "where add is used", "compaction_count": 0}})
            assert resp["phase"] == "EXPLORATION"

            other_tool = await _call(client, "get_symbols", {"path": "no/such/file.py"})
            assert other_tool["success"] is False and other_tool["current_phase"] == "EXPLORATION"

            exploration = {"explored_files": ["src/app.py"], "findings": ["add is defined once"],
                           "tools_used": ["search_text", "search_files"], "summary": "add in src/app.py",
                           "compaction_count": 0}
            early = await _call(client, "submit_phase", {"data": exploration})
            assert early["error"] == "payload_mismatch" and "search_text" in early["message"]

            # search_files names files, it shows no code of them: the file is not read yet
            assert (await _call(client, "search_files", {"pattern": "**/*.py"}))["success"]
            assert (await _call(client, "search_text", {"pattern": "no such text anywhere"}))["success"]
            unread = await _call(client, "submit_phase", {"data": exploration})
            assert unread["error"] == "payload_mismatch" and "never read or was shown: src/app.py" in unread["message"]
            assert unread["current_phase"] == "EXPLORATION"

            assert (await _call(client, "search_text", {"pattern": "def add"}))["success"]  # a hit in src/app.py
            resp = await _call(client, "submit_phase", {"data": exploration})
            assert resp["success"] and resp["phase"] == "Q1", resp

            status = await _call(client, "get_session_status", {})
            assert status["phase"] == "Q1" and status["completed_steps"] == [1, 4, 5]
    finally:
        app.close()
    assert Path(app_project.state_dir / "logs" / "decisions.jsonl").exists()
