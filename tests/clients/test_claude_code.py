"""Claude Code end to end: `claude -p` in a project set up by `code-intel init`, the model played by a script.

Three runs of one conversation:
1. `/code ...`: the skill expands; ToolSearch loads the code-intel tools; start_session, a Read, an
   Edit and a Bash write before READY (both must be denied by our PreToolUse hook, the file left
   unchanged, the reason handed to the model), then search_text.
2. `/compact`: Claude Code compacts the conversation and runs SessionStart with source "compact".
3. a follow-up turn: the model's request must carry what our SessionStart hook said (phase, step,
   the compaction_count to send).

Then a whole `--fast` session on the demo's calculator, from the request to the merge, with Claude Code's own
Read, Edit and Bash doing the work (test_claude_code_whole_session_to_merge).
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.clients.conftest import APP_CODE, client_env
from tests.clients.provider import MessagesProvider, text, tool
from tools.demo import POWER_CODE
from tools.demo import REQUEST as CALC_REQUEST

pytestmark = pytest.mark.slow

CONVERSATION = "5f0c3a52-8d7e-4b1a-9c36-2f1e0d4b7a10"
REQUEST = "make add return an int"


def script(repo: Path) -> list[list[dict[str, Any]]]:
    app = str(repo / "src" / "app.py")
    return [
        tool("toolu_01", "ToolSearch", query="select:mcp__code-intel__start_session,mcp__code-intel__search_text,"
             "mcp__code-intel__get_session_status,mcp__code-intel__submit_phase", max_results=5),
        tool("toolu_02", "mcp__code-intel__start_session", intent="MODIFY", query=REQUEST, flags=["--no-doc-research"]),
        tool("toolu_03", "Read", file_path=app),
        tool("toolu_04", "Edit", file_path=app, old_string="return a + b", new_string="return int(a + b)"),
        tool("toolu_05", "Bash", command="echo '# note' >> src/app.py", description="append a note"),
        tool("toolu_06", "mcp__code-intel__search_text", pattern="def add"),
        text("Exploration comes first; stopping here."),
    ]


def claude(command: list[str], repo: Path, home: Path, provider: MessagesProvider, prompt: str,
           *session: str) -> dict[str, Any]:
    env = client_env(home, ANTHROPIC_BASE_URL=provider.base_url, ANTHROPIC_API_KEY="sk-test-not-a-key",
                     CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1")
    result = subprocess.run([*command, "-p", prompt, "--output-format", "json", *session], cwd=repo, env=env,
                            capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, f"claude failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    return json.loads(result.stdout)


def test_claude_code_session_hooks_and_compaction(claude_bin: list[str], sample_repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
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

        # compaction: SessionStart(source=compact) tells the model where the session stands
        claude(claude_bin, sample_repo, home, provider, "/compact", "--resume", CONVERSATION)
        provider.script = []
        before = len(provider.requests)
        claude(claude_bin, sample_repo, home, provider, "go on", "--resume", CONVERSATION)
        after = [json.dumps(r) for r in provider.requests[before:] if "ToolSearch" in json.dumps(r.get("tools", []))]
        assert after, "no model request after the compaction"
        assert any("SessionStart" in body and f"session {started['session_id']} is active, in QUERY_FRAME (step 4)" in body
                   and "Your context was compacted: send compaction_count 1" in body for body in after)


M = "mcp__code-intel__"
FIRST_TASK = {"id": "task_1", "description": "Add power() and its test", "status": "pending",
              "checklist": [{"item": "power in calc/operations.py", "status": "pending"},
                            {"item": "test_power in tests/test_operations.py", "status": "pending"}]}
FIX_TASK = {"id": "task_2", "description": "Make power raise base to exponent", "status": "pending",
            "checklist": [{"item": "power returns base**exponent", "status": "pending"}]}
TEST_POWER = "\n    def test_power(self) -> None:\n        self.assertEqual(power(2, 10), 1024)\n"


class Turns:
    """Numbered tool calls (toolu_01, ...) for a script; `ids[name]` is the id of a call given a name."""

    def __init__(self) -> None:
        self.turns: list[list[dict[str, Any]]] = []
        self.ids: dict[str, str] = {}

    def call(self, tool_name: str, name: str | None = None, **tool_input: Any) -> None:
        tool_id = f"toolu_{len(self.turns) + 1:02d}"
        self.turns.append(tool(tool_id, tool_name, **tool_input))
        if name:
            self.ids[name] = tool_id

    def submit(self, name: str | None = None, **data: Any) -> None:
        self.call(M + "submit_phase", name, data={**data, "compaction_count": 0})


def whole_session(repo: Path) -> Turns:
    """The model's side of a `--fast` session: plan, implement power() wrongly, try to commit it with git
    and to call it verified, get sent back, try to skip the re-plan, plan a fix, fix it, pass, commit, merge."""
    ops, tests = str(repo / "calc" / "operations.py"), str(repo / "tests" / "test_operations.py")
    verdict = {"verifier_used": ".code-intel/verifiers/backend.md", "tools_used": []}
    s = Turns()
    s.call("ToolSearch", query="select:" + ",".join(M + n for n in ("start_session", "submit_phase", "get_session_status",
                                                                     "check_write_target", "run_checks", "review_changes")),
           max_results=6)
    s.call(M + "start_session", "start", intent="MODIFY", query=CALC_REQUEST, flags=["--fast", "--no-doc-research"])
    s.submit("frame", action_type="add_feature", target_symbols=["power"], scope="calc/operations.py, its test",
             target_feature="power(base, exponent)", desired_action="with a unit test", constraints="",
             quotes={"target_feature": "power(base, exponent)", "desired_action": "with a unit test"}, tools_used=[],
             summary="Add power() beside add and multiply, plus a test.")
    s.submit("plan", tasks=[FIRST_TASK], tools_used=[], summary="One task: power() and its test.")
    s.call(M + "check_write_target", file_path="calc/operations.py")
    s.call("Read", file_path=ops)
    s.call("Edit", "wrong", file_path=ops, old_string="    return a * b\n",
           new_string="    return a * b\n" + POWER_CODE.replace("base**exponent", "base * exponent"))
    s.call("Read", file_path=tests)  # no check_write_target for the test file: the hook's log allows it
    s.call("Edit", file_path=tests, old_string="import add, multiply", new_string="import add, multiply, power")
    s.call("Edit", file_path=tests, old_string="        self.assertEqual(multiply(2, 3), 6)\n",
           new_string="        self.assertEqual(multiply(2, 3), 6)\n" + TEST_POWER)
    s.call("Bash", "git", command="git commit -qam 'Add power'", description="commit the change")
    s.submit("report", task_id="task_1", tools_used=["check_write_target", "Edit"], summary="power() and test_power.",
             checklist=[{"item": "power in calc/operations.py", "status": "done", "evidence": "calc/operations.py:14-16"},
                        {"item": "test_power in tests/test_operations.py", "status": "done",
                         "evidence": "tests/test_operations.py:13-14"}])
    s.submit(summary="The task is implemented.")
    s.submit("claim", **verdict, passed=True, details="", summary="Tests pass.")
    s.submit("admit", **verdict, passed=False, details="test_power fails", summary="power() is wrong.")
    s.submit("skip_plan", summary="Fixed it.")
    s.submit(tasks=[FIRST_TASK | {"status": "completed"}, FIX_TASK], tools_used=[], summary="A fix task.")
    s.call(M + "check_write_target", file_path="calc/operations.py")
    s.call("Edit", file_path=ops, old_string="base * exponent", new_string="base**exponent")
    s.submit(task_id="task_2", tools_used=["check_write_target", "Edit"], summary="power() fixed.",
             checklist=[{"item": "power returns base**exponent", "status": "done", "evidence": "calc/operations.py:16"}])
    s.submit(summary="Both tasks are implemented.")
    s.submit("verified", **verdict, passed=True, details="", summary="Tests pass.")
    s.call(M + "review_changes", "review")
    s.submit("commit", review_prompt_used=".code-intel/review_prompts/garbage_detection.md", discarded_files=[],
             reviewed_files=["calc/operations.py", "tests/test_operations.py"], commit_message="Add power() with a unit test",
             tools_used=["review_changes"], summary="Both files reviewed; commit them.")
    s.submit("merge", summary="Merge the task branch.")
    s.turns.append(text("power() is on main, with its test."))
    return s


def test_claude_code_whole_session_to_merge(claude_bin: list[str], calc_repo: Path, tmp_path: Path) -> None:
    """Claude Code's own Edit and Bash under our hook, and the server deciding: it runs the tests on entering
    READY, refuses `passed: true` against its own failing run, refuses to skip the re-plan that follows,
    and commits and merges only what the write rules allowed. The user's permission mode (acceptEdits)
    lets the edits through once our hook has."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True}), encoding="utf-8")
    (home / ".claude.json").write_text(json.dumps({"projects": {str(calc_repo): {"hasTrustDialogAccepted": True}}}),
                                       encoding="utf-8")
    script = whole_session(calc_repo)
    with MessagesProvider(script.turns) as provider:
        claude(claude_bin, calc_repo, home, provider, f"/code --fast --no-doc-research {CALC_REQUEST}",
               "--permission-mode", "acceptEdits")

        def answer(name: str) -> dict[str, Any]:
            return dict(json.loads(provider.result_text(script.ids[name])))

        # the server ran the tests itself on entering READY, before anything changed
        planned = answer("frame")
        assert planned["phase"] == "READY" and planned["step"] == 12
        assert planned["checks_before_change"]["passed"] is True
        # Claude Code's Edit went through our hook in READY; a git commit through Bash did not
        assert "has been updated successfully" in provider.result_text(script.ids["wrong"])
        blocked = provider.result_text(script.ids["git"])
        assert "code-intel blocked this Bash call: `git commit`" in blocked and "READY (step 13)" in blocked
        # the claim of a pass met the server's own run, which names the failing test
        claim = answer("claim")
        assert claim["success"] is False and claim["error"] == "payload_mismatch"
        assert "the server's own run failed" in claim["message"] and "test_power" in claim["message"]
        assert answer("admit")["step"] == 12
        skipped = answer("skip_plan")
        assert skipped["success"] is False and "back at planning (step 12)" in skipped["message"]
        # after the fix: the pass is accepted, both files (the test file allowed by the hook alone) are committed
        assert answer("verified")["phase"] == "PRE_COMMIT"
        assert {f["file"] for f in answer("review")["files"]} == {"calc/operations.py", "tests/test_operations.py"}
        assert answer("review")["outside_write_rules"] == []
        done = answer("merge")
        assert done["phase"] == "SESSION_COMPLETE" and done["merge"]["merged"] is True

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=calc_repo, capture_output=True, text=True, check=True).stdout

    assert git("log", "-1", "--format=%s", "main").strip() == "Add power() with a unit test"
    assert git("show", "--stat", "--format=", "main").count("|") == 2
    assert "return base**exponent" in (calc_repo / "calc" / "operations.py").read_text(encoding="utf-8")
    assert git("status", "--porcelain") == "" and git("branch", "--list", "llm_task_*") == ""


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
