"""What the real clients need from the server (../shared/CLIENTS.md): the `code` prompt, a stop within a
second of SIGINT, `submit_phase.data` typed as an object, dedented descriptions, only warnings on
stderr, and the session tools counted as evidence once really called."""

from __future__ import annotations

import json
import logging
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from code_intel.context import skill
from code_intel.core.log_setup import setup_logging
from code_intel.server.app import CodeIntelApp
from code_intel_server import build_server

SERVER = Path(__file__).resolve().parent.parent / "code_intel_server.py"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = (tmp_path / "project").resolve()
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    (root / ".code-intel").mkdir()
    (root / ".code-intel" / "config.json").write_text('{"sync_on_start": false}', encoding="utf-8")
    return root


async def _data(client: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    return dict(result.structured_content or json.loads(result.content[0].text))


async def test_the_code_prompt_is_the_skill_with_the_request(project: Path) -> None:
    app = CodeIntelApp.for_path(project)
    try:
        async with Client(build_server(app)) as client:
            prompts = (await client.list_prompts()).prompts
            prompt, = [p for p in prompts if p.name == "code"]
            rendered = await client.get_prompt("code", {"request": "--quick fix the typo in the login message"})
            empty = await client.get_prompt("code", {})
    finally:
        app.close()
    assert prompt.description == skill.description()
    assert [(a.name, a.required) for a in prompt.arguments or []] == [("request", False)]
    message, = rendered.messages
    text = message.content.text  # type: ignore[union-attr]
    assert message.role == "user" and "Request: --quick fix the typo in the login message (if this looks" in text
    assert "submit_phase" in text and "get_session_status" in text and "READY" in text
    assert "ask the user for the request" in empty.messages[0].content.text  # type: ignore[union-attr]


async def test_input_schemas_and_descriptions_fit_the_clients(project: Path) -> None:
    app = CodeIntelApp.for_path(project)
    try:
        async with Client(build_server(app)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            await _data(client, "start_session", {"intent": "QUESTION", "query": "where is add?", "flags": ["--no-doc-research"]})
            not_an_object = await _data(client, "submit_phase", {"data": "done"})
    finally:
        app.close()
    data = tools["submit_phase"].input_schema["properties"]["data"]
    assert data["type"] == "object" and "default" not in data
    assert tools["submit_phase"].input_schema["required"] == ["data"]
    # the schema says object; anything else still gets the phase's own refusal with what to send
    assert not_an_object["error"] == "payload_mismatch" and not_an_object["expected_payload"]
    for tool in tools.values():
        description = tool.description or ""
        assert description and "\n " not in description and description == description.strip(), tool.name


async def test_session_tools_named_in_tools_used_count_once_called(project: Path) -> None:
    frame = {"action_type": "question", "target_symbols": ["add"], "scope": "src", "constraints": "",
             "quotes": {"target_feature": "add"}, "summary": "where add is", "compaction_count": 0}
    app = CodeIntelApp.for_path(project)
    try:
        async with Client(build_server(app)) as client:
            started = await _data(client, "start_session", {"intent": "QUESTION", "query": "where is add?",
                                                            "flags": ["--no-doc-research"]})
            assert started["phase"] == "QUERY_FRAME"
            early = await _data(client, "submit_phase", {"data": frame | {"tools_used": ["get_session_status"]}})
            await _data(client, "get_session_status", {})
            accepted = await _data(client, "submit_phase", {
                "data": frame | {"tools_used": ["start_session", "get_session_status"]}})
    finally:
        app.close()
    assert early["error"] == "payload_mismatch" and "get_session_status" in early["message"]
    assert accepted["success"] and accepted["phase"] == "EXPLORATION", accepted


def test_info_goes_to_the_log_file_and_warnings_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        setup_logging(tmp_path, "INFO")
        log = logging.getLogger("code_intel.test")
        log.info("an ordinary call")
        log.warning("something the user should see")
        for handler in root.handlers:
            handler.flush()
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
            handler.close()
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])
    err = capsys.readouterr().err
    assert "something the user should see" in err and "an ordinary call" not in err
    text = (tmp_path / "server.log").read_text(encoding="utf-8")
    assert "an ordinary call" in text and "something the user should see" in text


@pytest.mark.serial
def test_sigint_stops_the_server_within_a_second(project: Path) -> None:
    proc = subprocess.Popen([sys.executable, str(SERVER), "--project", str(project)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdin and proc.stdout and proc.stderr
    watchdog = threading.Timer(60, proc.kill)
    watchdog.start()
    try:
        messages = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "sigint", "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "start_session", "arguments": {
                "intent": "QUESTION", "query": "where is add?", "flags": ["--no-doc-research"]}}},
        ]
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        proc.stdin.flush()
        replies = [json.loads(proc.stdout.readline()) for _ in range(2)]
        assert replies[1]["result"]["structuredContent"]["phase"] == "QUERY_FRAME"
        lock = project / ".code-intel" / "sessions" / "session.lock"
        assert lock.exists()
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)  # stdin stays open, as with a client that only signals
        proc.wait(timeout=5)
        elapsed = time.monotonic() - started
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read()
    assert elapsed < 1.0, f"the server took {elapsed:.2f} s to stop after SIGINT"
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert not lock.exists()  # the lock was released, the checkpoint kept for a later resume
    assert list((project / ".code-intel" / "sessions").glob("*.json"))
    assert "stopping on SIGINT" in (project / ".code-intel" / "logs" / "server.log").read_text(encoding="utf-8")
