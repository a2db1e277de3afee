"""The MCP Inspector CLI (0.15.0) against the server init configured: tools, the `code` prompt, a tool call."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.clients.conftest import client_env

pytestmark = pytest.mark.slow


def inspector(npm_clients: Path, repo: Path, tmp_path: Path, *args: str) -> Any:
    entry = json.loads((repo / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["code-intel"]
    command = [str(npm_clients / "node_modules" / ".bin" / "mcp-inspector"), "--cli", entry["command"], *entry["args"], *args]
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    result = subprocess.run(command, cwd=repo, env=client_env(home), capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, f"inspector failed:\n{result.stdout}\n{result.stderr}"
    return json.loads(result.stdout)


def test_inspector_lists_tools_and_the_prompt_and_calls_a_tool(npm_clients: Path, sample_repo: Path,
                                                               tmp_path: Path) -> None:
    tools = {t["name"]: t for t in inspector(npm_clients, sample_repo, tmp_path, "--method", "tools/list")["tools"]}
    assert {"start_session", "submit_phase", "get_session_status", "search_text", "check_write_target"} <= set(tools)
    assert tools["submit_phase"]["inputSchema"]["properties"]["data"]["type"] == "object"

    prompts = inspector(npm_clients, sample_repo, tmp_path, "--method", "prompts/list")["prompts"]
    assert [(p["name"], [a["name"] for a in p["arguments"]]) for p in prompts] == [("code", ["request"])]
    rendered = inspector(npm_clients, sample_repo, tmp_path, "--method", "prompts/get", "--prompt-name", "code",
                         "--prompt-args", "request=--quick fix the typo")
    text = rendered["messages"][0]["content"]["text"]
    assert "Request: --quick fix the typo (if this looks cut short" in text and "get_session_status" in text
    called = inspector(npm_clients, sample_repo, tmp_path, "--method", "tools/call", "--tool-name", "check_write_target",
                       "--tool-arg", "file_path=src/app.py")
    answer = called["structuredContent"]
    assert answer["allowed"] is False and "no active session" in answer["reason"]
