"""Claude Code end to end: `claude -p` in a project set up by `code-intel init`, the model played by a script.

Three runs of one conversation:
1. `/code ...`: the skill expands; ToolSearch loads the code-intel tools; start_session, a Read, an
   Edit and a Bash write before READY (both must be denied by our PreToolUse hook, the file left
   unchanged, the reason handed to the model; the Read lands in the session's read log), search_text, the
   query frame, EXPLORATION refused for a file the model never read, a Read of it, EXPLORATION accepted.
2. `/compact`: Claude Code compacts the conversation and runs SessionStart with source "compact".
3. a follow-up turn: the model's request must carry what our SessionStart hook said (phase, step,
   the compaction_count to send).

Then a whole `--fast` session on the demo's calculator, from the request to the merge, with Claude Code's own
Read, Edit and Bash doing the work (tests/clients/whole_session.py).
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from code_intel.workflow import write_log
from tests.clients import whole_session
from tests.clients.conftest import APP_CODE, EXPLORED, FRAME, client_env, client_key_dir
from tests.clients.provider import MessagesProvider, text, tool

pytestmark = pytest.mark.slow

CONVERSATION = "5f0c3a52-8d7e-4b1a-9c36-2f1e0d4b7a10"
REQUEST = "make add return an int"


def script(repo: Path) -> list[list[dict[str, Any]]]:
    app = str(repo / "src" / "app.py")
    return [
        tool("toolu_01", "ToolSearch", query="select:mcp__code-intel__start_session,mcp__code-intel__search_text,"
             "mcp__code-intel__get_session_status,mcp__code-intel__submit_phase,mcp__code-intel__get_symbols",
             max_results=6),
        tool("toolu_02", "mcp__code-intel__start_session", intent="MODIFY", query=REQUEST, flags=["--no-doc-research"]),
        tool("toolu_03", "Read", file_path=app),
        tool("toolu_04", "Edit", file_path=app, old_string="return a + b", new_string="return int(a + b)"),
        tool("toolu_05", "Bash", command="echo '# note' >> src/app.py", description="append a note"),
        tool("toolu_06", "mcp__code-intel__search_text", pattern="def add"),
        tool("toolu_07", "mcp__code-intel__submit_phase", data=FRAME),
        tool("toolu_08", "mcp__code-intel__search_text", pattern="return"),
        tool("toolu_09", "mcp__code-intel__get_symbols", path="src/app.py"),
        tool("toolu_10", "mcp__code-intel__submit_phase", data=EXPLORED),  # README.md was never read: refused
        tool("toolu_11", "Read", file_path=str(repo / "README.md")),
        tool("toolu_12", "mcp__code-intel__submit_phase", data=EXPLORED),
        text("Explored; stopping here."),
    ]


def claude(command: list[str], repo: Path, home: Path, provider: MessagesProvider, prompt: str,
           *session: str) -> dict[str, Any]:
    env = client_env(home, ANTHROPIC_BASE_URL=provider.base_url, ANTHROPIC_API_KEY="sk-test-not-a-key",
                     CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1")
    result = subprocess.run([*command, "-p", prompt, "--output-format", "json", *session], cwd=repo, env=env,
                            capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, f"claude failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    return json.loads(result.stdout)


def test_claude_code_session_hooks_and_compaction(claude_bin: list[str], sample_repo: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("CODE_INTEL_KEY_DIR", client_key_dir(home))  # to read the logs the client's processes sealed
    (home / ".claude").mkdir(parents=True)
    # the user approved the project's .mcp.json server and trusts the folder (so its permission rule applies)
    (home / ".claude" / "settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True}), encoding="utf-8")
    (home / ".claude.json").write_text(json.dumps({"projects": {str(sample_repo): {"hasTrustDialogAccepted": True}}}),
                                       encoding="utf-8")
    app = sample_repo / "src" / "app.py"

    with MessagesProvider(script(sample_repo)) as provider:
        first = claude(claude_bin, sample_repo, home, provider, f"/code --no-doc-research {REQUEST}",
                       "--session-id", CONVERSATION)

        # the /code skill reached the model, with the request in place
        opening = json.dumps(provider.requests[0]["messages"])
        assert "code-intel session" in opening and f"Request: --no-doc-research {REQUEST}" in opening
        # ToolSearch loaded the deferred MCP tools, and the calls reached our server
        assert any("mcp__code-intel__start_session" in {t.get("name") for t in r.get("tools", [])} for r in provider.requests)
        started = json.loads(provider.result_text("toolu_02"))
        assert started["success"] and started["phase"] == "QUERY_FRAME" and started["step"] == 4
        searched = json.loads(provider.result_text("toolu_06"))
        assert searched["success"] and any(m["file"] == "src/app.py" for m in searched["matches"])
        server_log = (sample_repo / ".code-intel" / "logs" / "server.log").read_text(encoding="utf-8")
        assert "start_session ok" in server_log and "search_text ok" in server_log
        # the hook denied the Edit and the Bash write before READY; the model got the reason; the file is unchanged
        for tool_id, name in (("toolu_04", "Edit"), ("toolu_05", "Bash")):
            result = provider.tool_results()[tool_id]
            reason = provider.result_text(tool_id)
            assert result.get("is_error") is True, result
            assert f"code-intel blocked this {name} call" in reason and "QUERY_FRAME (step 4)" in reason, reason
        assert {d["tool_use_id"] for d in first["permission_denials"]} >= {"toolu_04", "toolu_05"}
        assert app.read_text(encoding="utf-8") == APP_CODE
        sessions = sample_repo / ".code-intel" / "sessions"
        assert not list(sessions.glob("*.writes.jsonl"))  # nothing was allowed, so nothing was logged
        # Claude Code ran our hook on its Reads: the read log names them, beside the file search_text showed;
        # EXPLORATION refused README.md until the model had read it, then took both files
        reads = write_log.read_entries(write_log.reads_file(sessions, started["session_id"]))
        logged = [(e.tool, e.files) for e in reads]
        assert logged[:2] == [("Read", ("src/app.py",)), ("search_text", ("src/app.py",))]
        assert logged[-1] == ("Read", ("README.md",)) and all(e.tool == "search_text" for e in reads[2:-1])
        refused = json.loads(provider.result_text("toolu_10"))
        assert refused["error"] == "payload_mismatch" and "never read or was shown: README.md" in refused["message"]
        explored = json.loads(provider.result_text("toolu_12"))
        assert explored["success"] and explored["phase"] == "Q1" and explored["step"] == 6, explored

        # compaction: SessionStart(source=compact) tells the model where the session stands
        claude(claude_bin, sample_repo, home, provider, "/compact", "--resume", CONVERSATION)
        provider.script = []
        before = len(provider.requests)
        claude(claude_bin, sample_repo, home, provider, "go on", "--resume", CONVERSATION)
        after = [json.dumps(r) for r in provider.requests[before:] if "ToolSearch" in json.dumps(r.get("tools", []))]
        assert after, "no model request after the compaction"
        assert any("SessionStart" in body and f"session {started['session_id']} is active, in Q1 (step 6)" in body
                   and "Your context was compacted: send compaction_count 1" in body for body in after)


class ClaudeScript:
    """whole_session's steps as Claude Code tool calls (toolu_01, ...); `ids[label]` is a labelled call's id."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.turns: list[list[dict[str, Any]]] = []
        self.ids: dict[str, str] = {}
        self.read: set[str] = set()

    def _call(self, name: str, label: str | None, **tool_input: Any) -> None:
        tool_id = f"toolu_{len(self.turns) + 1:02d}"
        self.turns.append(tool(tool_id, name, **tool_input))
        if label:
            self.ids[label] = tool_id

    def find_tools(self) -> None:
        self._call("ToolSearch", None, query="select:" + ",".join(f"mcp__code-intel__{t}" for t in whole_session.TOOLS),
                   max_results=len(whole_session.TOOLS))

    def mcp(self, tool_name: str, label: str | None = None, **arguments: Any) -> None:
        self._call(f"mcp__code-intel__{tool_name}", label, **arguments)

    def edit(self, path: str, old: str, new: str, label: str | None = None) -> None:
        target = str(self.repo / path)
        if target not in self.read:  # Claude Code edits only files read in this conversation
            self.read.add(target)
            self._call("Read", None, file_path=target)
        self._call("Edit", label, file_path=target, old_string=old, new_string=new)

    def shell(self, command: str, label: str | None = None) -> None:
        self._call("Bash", label, command=command, description="run a command")

    def say(self, words: str) -> None:
        self.turns.append(text(words))


def test_claude_code_whole_session_to_merge(claude_bin: list[str], calc_repo: Path, tmp_path: Path) -> None:
    """Claude Code's own Read, Edit and Bash under our hook, the server deciding (tests/clients/whole_session.py).
    The user's permission mode (acceptEdits) lets the edits through once our hook has."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True}), encoding="utf-8")
    (home / ".claude.json").write_text(json.dumps({"projects": {str(calc_repo): {"hasTrustDialogAccepted": True}}}),
                                       encoding="utf-8")
    script = ClaudeScript(calc_repo)
    whole_session.play(script)
    with MessagesProvider(script.turns) as provider:
        claude(claude_bin, calc_repo, home, provider, f"/code {whole_session.PROMPT_ARGS}", "--permission-mode", "acceptEdits")
        assert "code-intel session" in json.dumps(provider.requests[0]["messages"])  # the /code skill expanded
        whole_session.check(lambda label: dict(json.loads(provider.result_text(script.ids[label]))),
                            lambda label: provider.result_text(script.ids[label]), calc_repo)


def test_claude_code_offers_the_code_prompt(claude_bin: list[str], sample_repo: Path, tmp_path: Path) -> None:
    """The MCP prompt `code` as the slash command /mcp__code-intel__code. Claude Code fixes its slash commands
    when the first message arrives, so the conversation is fed on stdin (stream-json) once the server is
    connected: the init message says so (status "connected"); if the machine was too slow, try again later."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True}), encoding="utf-8")
    (home / ".claude.json").write_text(json.dumps({"projects": {str(sample_repo): {"hasTrustDialogAccepted": True}}}),
                                       encoding="utf-8")
    with MessagesProvider([]) as provider:
        env = client_env(home, ANTHROPIC_BASE_URL=provider.base_url, ANTHROPIC_API_KEY="sk-test-not-a-key",
                         CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1")
        for wait in (8, 20, 40):
            messages = claude_stream(claude_bin, sample_repo, env, f"/mcp__code-intel__code --quick {REQUEST}", wait)
            init = next(m for m in messages if m.get("subtype") == "init")
            if {"name": "code-intel", "status": "connected", "source": "project"} in init["mcp_servers"]:
                break
        else:
            pytest.fail(f"the code-intel server was not connected {wait} s after start: {init['mcp_servers']}")
    assert "mcp__code-intel__code" in init["slash_commands"] and "code" in init["slash_commands"]
    expanded = json.dumps(provider.requests[-1]["messages"])
    assert "<command-name>/mcp__code-intel__code</command-name>" in expanded
    assert f"--quick {REQUEST}</command-args>" in expanded  # the whole line reaches the model
    assert "# code-intel session" in expanded and "Request: --quick (if this looks cut short" in expanded


def claude_stream(command: list[str], repo: Path, env: dict[str, str], message: str, wait: float) -> list[dict[str, Any]]:
    """One message sent `wait` seconds after start, on stdin as stream-json; the messages Claude Code printed."""
    proc = subprocess.Popen([*command, "-p", "--input-format", "stream-json", "--output-format", "stream-json",
                             "--verbose"], cwd=repo, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin and proc.stdout
    watchdog = threading.Timer(wait + 180, proc.kill)  # a client that never answers fails the test, not hangs it
    watchdog.start()
    try:
        time.sleep(wait)
        proc.stdin.write(json.dumps({"type": "user", "message": {"role": "user", "content": message}}) + "\n")
        proc.stdin.close()  # end of input: Claude Code answers, then exits
        out = proc.stdout.read()
        proc.wait(timeout=30)
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]
