"""Codex through `codex app-server` (JSON-RPC over stdio, no model): our MCP server, skill and hooks as Codex sees them."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.clients.conftest import client_env

pytestmark = pytest.mark.slow


class AppServer:
    """A `codex app-server` process: requests out as JSON lines, answers matched by id."""

    def __init__(self, command: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        self._send({"method": method, **({"params": params} if params is not None else {})})

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def call(self, method: str, params: dict[str, Any], timeout: float = 120) -> Any:
        self.next_id += 1
        wanted = self.next_id
        self._send({"id": wanted, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                message = json.loads(self.lines.get(timeout=1))
            except queue.Empty:
                continue
            if message.get("id") == wanted and "method" not in message:
                assert "error" not in message, f"{method}: {message['error']}"
                return message["result"]
        raise AssertionError(f"{method}: no answer within {timeout} s")

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def test_codex_app_server_sees_tools_skill_and_hooks(npm_clients: Path, sample_repo: Path, codex_home: Path,
                                                    tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = client_env(home, CODEX_HOME=str(codex_home))
    server = AppServer([str(npm_clients / "node_modules" / ".bin" / "codex"), "app-server"], sample_repo, env)
    try:
        server.call("initialize", {"clientInfo": {"name": "code-intel-tests", "title": None, "version": "1"},
                                   "capabilities": None})
        server.notify("initialized")

        skills = server.call("skills/list", {"cwds": [str(sample_repo)], "forceReload": True})["data"][0]["skills"]
        ours = next(s for s in skills if s["name"] == "code")
        assert Path(ours["path"]) == sample_repo / ".agents" / "skills" / "code" / "SKILL.md"
        assert "code-intel session" in ours["description"] and ours["enabled"]

        listed = server.call("hooks/list", {"cwds": [str(sample_repo)]})["data"][0]
        assert not listed["errors"], listed["errors"]
        hooks = {h["eventName"]: h for h in listed["hooks"] if Path(h["sourcePath"]) == sample_repo / ".codex" / "hooks.json"}
        assert set(hooks) == {"preToolUse", "sessionStart"}
        assert hooks["preToolUse"]["matcher"] == "Edit|Write|MultiEdit|NotebookEdit|Bash|apply_patch"
        assert hooks["preToolUse"]["command"].endswith(f"hook pre-tool-use --project {sample_repo}")
        assert hooks["sessionStart"]["matcher"] == "compact|resume"

        thread = server.call("thread/start", {"cwd": str(sample_repo)})["thread"]["id"]
        status = server.call("mcpServerStatus/list", {"threadId": thread, "serverName": "code-intel"}, timeout=180)
        entry = next(s for s in status["data"] if s["name"] == "code-intel")
        assert entry["toolsError"] is None
        tools = {t["name"]: t for t in entry["tools"].values()}
        assert {"start_session", "submit_phase", "get_session_status", "search_text", "check_write_target"} <= set(tools)
        # an untyped property reaches the model as {}: submit_phase.data is declared an object
        assert tools["submit_phase"]["inputSchema"]["properties"]["data"]["type"] == "object"

        started = server.call("mcpServer/tool/call", {"threadId": thread, "server": "code-intel", "tool": "start_session",
                                                      "arguments": {"intent": "INVESTIGATE", "query": "where is add defined",
                                                                    "flags": ["--no-doc-research"]}})
        assert not started.get("isError") and started["structuredContent"]["phase"] == "QUERY_FRAME"
        found = server.call("mcpServer/tool/call", {"threadId": thread, "server": "code-intel", "tool": "search_text",
                                                    "arguments": {"pattern": "def add"}})
        assert [m["file"] for m in found["structuredContent"]["matches"]] == ["src/app.py"]
    finally:
        server.close()
