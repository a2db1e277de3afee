"""Codex 0.169 against code-intel, two ways.

1. `codex app-server` (JSON-RPC over stdio, no model): our MCP server, skill and hooks as Codex lists them.
2. `codex exec` with the model played by a script (tests/clients/provider.py, the Responses API): it finds
   the code-intel tools with tool_search, starts a session and explores through our server, then writes
   before READY with apply_patch and a shell append, both of which our PreToolUse hook must deny (file
   unchanged, reason handed to the model); `codex exec resume` then runs our SessionStart hook, and again
   after Codex compacts the conversation (the stand-in reports a full context): both texts must reach
   the model.
3. `codex exec` through a whole `--fast` session on the demo's calculator, from `$code` to the merge, with
   apply_patch and exec_command doing the work (tests/clients/whole_session.py).
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from code_intel.workflow import write_log
from tests.clients import whole_session
from tests.clients.conftest import APP_CODE, EXPLORED, FRAME, client_env, client_key_dir
from tests.clients.provider import (
    CODEX_COMPACTION,
    ResponsesProvider,
    custom_call,
    function_call,
    message,
    tool_search,
)

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
        assert set(hooks) == {"preToolUse", "postToolUse", "sessionStart"}
        assert hooks["preToolUse"]["matcher"] == "Edit|Write|MultiEdit|NotebookEdit|Read|Bash|apply_patch"
        assert hooks["preToolUse"]["command"].endswith(f"hook pre-tool-use --project {sample_repo}")
        # reads count from what a tool's answer showed (#39): Codex lists the PostToolUse hook too
        assert hooks["postToolUse"]["matcher"] == "Read|Bash"
        assert hooks["postToolUse"]["command"].endswith(f"hook post-tool-use --project {sample_repo}")
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


# ----------------------------------------------------------------------------- codex exec with a scripted model
EXEC_REQUEST = "make add return an int"
PATCH = "*** Begin Patch\n*** Update File: src/app.py\n@@\n def add(a, b):\n-    return a + b\n+    return int(a + b)\n*** End Patch\n"
NAMESPACE = "mcp__code_intel"  # Codex's name for the code-intel server's tools
COMPACT_LIMIT = 200_000  # the resumed run compacts once the stand-in reports more tokens than this


def exec_script() -> list[list[dict[str, Any]]]:
    """What the model does. First run: find the code-intel tools, start a session, explore, then write before
    READY through Codex's own tools (apply_patch, a shell append), which our PreToolUse hook must deny.
    Resumed run: ask for the session status, after which the stand-in reports a full context."""
    return [
        tool_search("call_01", "code_intel start_session search_text"),
        function_call("call_02", "start_session", NAMESPACE, intent="MODIFY", query=EXEC_REQUEST,
                      flags=["--no-doc-research"]),
        function_call("call_03", "search_text", NAMESPACE, pattern="def add"),
        custom_call("call_04", "apply_patch", PATCH),
        function_call("call_05", "exec_command", cmd="echo '# note' >> src/app.py"),
        function_call("call_05r", "exec_command", cmd="sed -n 1,5p src/app.py"),
        function_call("call_05f", "submit_phase", NAMESPACE, data=FRAME),
        function_call("call_05s", "search_text", NAMESPACE, pattern="return"),
        function_call("call_05g", "get_symbols", NAMESPACE, path="src/app.py"),
        function_call("call_05x", "submit_phase", NAMESPACE, data=EXPLORED),  # README.md never read: refused
        function_call("call_05c", "exec_command", cmd="cat README.md"),
        function_call("call_05y", "submit_phase", NAMESPACE, data=EXPLORED),
        message("Exploration comes first; stopping here."),
        function_call("call_06", "get_session_status", NAMESPACE),
        message("Still in QUERY_FRAME; stopping here."),
    ]


def use_provider(codex_home: Path, provider: ResponsesProvider) -> None:
    """Point the test's Codex home at the stand-in. gpt-5.5 is a model Codex knows, so it offers the tools it
    would offer a real one (apply_patch as a freeform tool, tool_search for the deferred MCP tools)."""
    config = codex_home / "config.toml"
    config.write_text('model = "gpt-5.5"\nmodel_provider = "scripted"\n\n' + config.read_text(encoding="utf-8")
                      + f'\n[model_providers.scripted]\nname = "scripted stand-in"\nbase_url = "{provider.base_url}/v1"\n'
                      'wire_api = "responses"\nenv_key = "CODE_INTEL_TEST_KEY"\n', encoding="utf-8")


def codex_exec(codex: Path, repo: Path, env: dict[str, str], prompt: str, *options: str) -> list[dict[str, Any]]:
    """One `codex exec` run (`options` may start with `resume THREAD`), hooks trusted for this run only as a
    reviewed hook would be; its JSON events."""
    result = subprocess.run([str(codex), "exec", *options, "--json", "--dangerously-bypass-hook-trust", prompt],
                            cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, f"codex exec failed ({result.returncode}):\n{result.stdout}\n{result.stderr[-3000:]}"
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def tool_output(provider: ResponsesProvider, call_id: str) -> dict[str, Any]:
    """An MCP tool's answer as Codex handed it to the model ("Wall time: ...\\nOutput:\\n<the JSON text>")."""
    text = provider.output(call_id)
    assert "Output:\n" in text, text
    return dict(json.loads(text.split("Output:\n", 1)[1]))


def test_codex_exec_session_hooks_resume_and_compaction(npm_clients: Path, sample_repo: Path, codex_home: Path,
                                                       tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("CODE_INTEL_KEY_DIR", client_key_dir(home))  # to read the logs the client's processes sealed
    env = client_env(home, CODEX_HOME=str(codex_home), CODE_INTEL_TEST_KEY="sk-test-not-a-key")
    codex = npm_clients / "node_modules" / ".bin" / "codex"
    app = sample_repo / "src" / "app.py"

    with ResponsesProvider(exec_script(), compact_after={"call_06"}) as provider:
        use_provider(codex_home, provider)
        events = codex_exec(codex, sample_repo, env, EXEC_REQUEST)

        # init's required = true made Codex wait for the server: the first tool_search found its tools
        searched = provider.items("tool_search_output")[0]["tools"]
        ours = [t for t in searched if t.get("name") == NAMESPACE]
        assert ours, f"tool_search found no code-intel tools (was the server started?): {searched}"
        assert {"start_session", "search_text"} <= {t["name"] for t in ours[0]["tools"]}
        # the MCP calls reached our server and their answers reached the model
        started = tool_output(provider, "call_02")
        assert started["success"] and started["phase"] == "QUERY_FRAME" and started["step"] == 4
        found = tool_output(provider, "call_03")
        assert [m["file"] for m in found["matches"]] == ["src/app.py"]
        calls = {e["item"]["tool"]: e["item"] for e in events
                 if e.get("type") == "item.completed" and e["item"].get("type") == "mcp_tool_call"}
        assert calls["start_session"]["status"] == calls["search_text"]["status"] == "completed"
        server_log = (sample_repo / ".code-intel" / "logs" / "server.log").read_text(encoding="utf-8")
        assert "start_session ok" in server_log and "search_text ok" in server_log
        # the hook denied apply_patch and the shell append before READY; the model got our reason
        session = f"session {started['session_id']} is in QUERY_FRAME (step 4)"
        for call_id, name in (("call_04", "apply_patch"), ("call_05", "Bash")):
            said = provider.output(call_id)
            assert said.startswith(f"Command blocked by PreToolUse hook: code-intel blocked this {name} call: "), said
            assert "only in the READY phase" in said and session in said, said
        assert app.read_text(encoding="utf-8") == APP_CODE
        assert not list((sample_repo / ".code-intel" / "sessions").glob("*.writes.jsonl"))  # nothing was allowed
        # the shell reads ran through our hook into the read log, beside the file search_text showed; EXPLORATION
        # refused README.md until the model had read it, then took both files
        reads = write_log.read_entries(write_log.reads_file(sample_repo / ".code-intel" / "sessions", started["session_id"]))
        logged = [(e.tool, e.files) for e in reads]
        assert logged[:2] == [("search_text", ("src/app.py",)), ("Bash", ("src/app.py",))]
        assert logged[-1] == ("Bash", ("README.md",)) and all(e.tool == "search_text" for e in reads[2:-1])
        assert "def add" in provider.output("call_05r")
        refused = tool_output(provider, "call_05x")
        assert refused["error"] == "payload_mismatch" and "never read or was shown: README.md" in refused["message"]
        explored = tool_output(provider, "call_05y")
        assert explored["success"] and explored["phase"] == "Q1" and explored["step"] == 6, explored

        # resumed: SessionStart (source "resume") tells the model where the session stands; then the context fills
        # up, Codex compacts and runs SessionStart again (source "compact"), asking for compaction_count 1
        thread = next(e["thread_id"] for e in events if e.get("type") == "thread.started")
        before = len(provider.requests)
        codex_exec(codex, sample_repo, env, "go on", "resume", thread, "-c", f"model_auto_compact_token_limit={COMPACT_LIMIT}")
        later = [json.dumps(body.get("input", [])) for body in provider.requests[before:]]
        active = f"code-intel: session {started['session_id']} is active, in Q1 (step 6)"
        assert active in later[0] and "Echo compaction_count 0 with your next submit_phase" in later[0]
        assert tool_output(provider, "call_06")["phase"] == "Q1"
        compacted = [i for i, body in enumerate(later) if CODEX_COMPACTION in body]
        assert compacted, "Codex did not compact"
        assert any(active in body and "Your context was compacted: send compaction_count 1" in body
                   for body in later[compacted[0] + 1:])
    assert app.read_text(encoding="utf-8") == APP_CODE


class CodexScript:
    """whole_session's steps as Codex calls (call_01, ...); `ids[label]` is a labelled call's id."""

    def __init__(self) -> None:
        self.turns: list[list[dict[str, Any]]] = []
        self.ids: dict[str, str] = {}

    def _next(self, label: str | None) -> str:
        call_id = f"call_{len(self.turns) + 1:02d}"
        if label:
            self.ids[label] = call_id
        return call_id

    def find_tools(self) -> None:
        self.turns.append(tool_search(self._next(None), "code_intel " + " ".join(whole_session.TOOLS)))

    def mcp(self, tool_name: str, label: str | None = None, **arguments: Any) -> None:
        self.turns.append(function_call(self._next(label), tool_name, NAMESPACE, **arguments))

    def edit(self, path: str, old: str, new: str, label: str | None = None) -> None:
        lines = [f"-{line}" for line in old.splitlines()] + [f"+{line}" for line in new.splitlines()]
        patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n" + "\n".join(lines) + "\n*** End Patch\n"
        self.turns.append(custom_call(self._next(label), "apply_patch", patch))

    def shell(self, command: str, label: str | None = None) -> None:
        self.turns.append(function_call(self._next(label), "exec_command", cmd=command))

    def say(self, words: str) -> None:
        self.turns.append(message(words))


def test_codex_whole_session_to_merge(npm_clients: Path, calc_repo: Path, codex_home: Path, tmp_path: Path) -> None:
    """Codex's own apply_patch and exec_command under our hook, the server deciding (tests/clients/whole_session.py)."""
    home = tmp_path / "home"
    home.mkdir()
    env = client_env(home, CODEX_HOME=str(codex_home), CODE_INTEL_TEST_KEY="sk-test-not-a-key")
    script = CodexScript()
    whole_session.play(script)
    with ResponsesProvider(script.turns) as provider:
        use_provider(codex_home, provider)
        codex_exec(npm_clients / "node_modules" / ".bin" / "codex", calc_repo, env, f"$code {whole_session.PROMPT_ARGS}")
        assert "code-intel session" in json.dumps(provider.requests[0].get("input", []))  # the $code skill was read
        whole_session.check(lambda label: tool_output(provider, script.ids[label]),
                            lambda label: provider.output(script.ids[label]), calc_repo)
