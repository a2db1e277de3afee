"""`code-intel hook ...` as the clients run it: a process reading stdin, answering JSON, always exiting 0."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from code_intel.core.project import ProjectRoot
from code_intel.workflow import write_log
from tests.workflow.conftest import APP_CODE, Driver

pytestmark = pytest.mark.slow  # spawns the hook command as the clients do

CODE_INTEL = str(Path(sys.executable).parent / "code-intel")
HEAVY = ("mcp", "pydantic", "pydantic_core", "chromadb", "torch", "sentence_transformers", "tree_sitter",
         "tree_sitter_language_pack", "yaml", "git")


def run(event: str, stdin: str, *args: str, python_flags: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, *python_flags, "-m", "code_intel.cli.main"] if python_flags else [CODE_INTEL]
    return subprocess.run([*argv, "hook", event, *args], input=stdin, capture_output=True, text=True, timeout=60)


def edit_event(root: ProjectRoot, rel: str = "src/app.py", tool: str = "Edit") -> str:
    return json.dumps({"session_id": "c1", "hook_event_name": "PreToolUse", "cwd": str(root.path), "tool_name": tool,
                       "tool_input": {"file_path": str(root.path / rel), "old_string": "a", "new_string": "b"}})


def answer(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_deny_is_the_documented_json_with_exit_0(driver: Driver, app_project: ProjectRoot) -> None:
    resp = driver.start()
    out = answer(run("pre-tool-use", edit_event(app_project), "--project", str(app_project.path)))
    specific = out["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse" and specific["permissionDecision"] == "deny"
    assert "only in the READY phase" in specific["permissionDecisionReason"]
    assert resp["phase"] in specific["permissionDecisionReason"]


def test_allow_prints_nothing(app_project: ProjectRoot) -> None:
    result = run("pre-tool-use", edit_event(app_project), "--project", str(app_project.path))
    assert result.returncode == 0 and result.stdout == "" and result.stderr == ""


def test_project_falls_back_to_the_event_cwd(driver: Driver, app_project: ProjectRoot) -> None:
    driver.start()
    out = answer(run("pre-tool-use", edit_event(app_project)))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_session_start_answers_additional_context(driver: Driver, app_project: ProjectRoot) -> None:
    driver.start()
    event = json.dumps({"hook_event_name": "SessionStart", "source": "compact", "cwd": str(app_project.path)})
    out = answer(run("session-start", event, "--project", str(app_project.path)))
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert "DOCUMENT_RESEARCH (step 3)" in out["hookSpecificOutput"]["additionalContext"]


def test_own_failure_without_a_session_allows_with_a_warning(app_project: ProjectRoot) -> None:
    result = run("pre-tool-use", "{ this is not json", "--project", str(app_project.path))
    assert result.returncode == 0 and result.stdout == ""
    assert "code-intel hook: failed" in result.stderr and "no session" in result.stderr


def test_own_failure_inside_a_session_before_ready_denies(driver: Driver, app_project: ProjectRoot) -> None:
    driver.start()
    out = answer(run("pre-tool-use", "[1, 2]", "--project", str(app_project.path)))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "hook failed" in out["hookSpecificOutput"]["permissionDecisionReason"]


def test_broken_checkpoint_denies_writes(driver: Driver, app_project: ProjectRoot) -> None:
    resp = driver.start()
    (app_project.state_dir / "sessions" / f"{resp['session_id']}.json").write_bytes(b"\x00\xff")
    out = answer(run("pre-tool-use", edit_event(app_project), "--project", str(app_project.path)))
    assert "cannot be read" in out["hookSpecificOutput"]["permissionDecisionReason"]


def test_unknown_event_is_a_non_blocking_error(app_project: ProjectRoot) -> None:
    result = run("stop", "{}", "--project", str(app_project.path))
    assert result.returncode == 1 and "unknown hook event" in result.stderr


@pytest.mark.parametrize("event", ["pre-tool-use", "post-tool-use", "session-start"])
def test_no_heavy_library_is_imported(driver: Driver, app_project: ProjectRoot, event: str) -> None:
    resp = driver.run(driver.start(), until="READY")
    driver.submit(driver.payload(resp))
    stdin = {"pre-tool-use": edit_event(app_project), "session-start": json.dumps({"source": "compact"}),
             "post-tool-use": json.dumps({"cwd": str(app_project.path), "tool_name": "Bash",
                                          "tool_input": {"command": "cat src/app.py"},
                                          "tool_response": {"stdout": APP_CODE, "stderr": ""}})}[event]
    result = run(event, stdin, "--project", str(app_project.path), python_flags=("-X", "importtime"))
    assert result.returncode == 0
    imported = {line.split("|")[-1].strip().split(".")[0] for line in result.stderr.splitlines() if "import time:" in line}
    assert "code_intel" in imported and not imported.intersection(HEAVY), sorted(imported.intersection(HEAVY))


def bash_event(root: ProjectRoot, command: str) -> str:
    return json.dumps({"session_id": "c1", "hook_event_name": "PreToolUse", "cwd": str(root.path), "tool_name": "Bash",
                       "tool_input": {"command": command}})


def _in_ready(driver: Driver) -> None:
    resp = driver.run(driver.start(), until="READY")
    assert resp["phase"] == "READY"


@pytest.mark.parametrize("stdin", ["not json", "[1, 2]", '{"tool_name": "Bash", "tool_input": {"command": 5}}'])
def test_own_failure_or_malformed_event_in_ready_denies(driver: Driver, app_project: ProjectRoot, stdin: str) -> None:
    _in_ready(driver)
    out = answer(run("pre-tool-use", stdin, "--project", str(app_project.path)))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.parametrize("command", [
    "echo " + "$(" * 1100 + "x" + ")" * 1100,  # nested deeper than any reader should follow
    "false && rm " + " ".join(f"src/*/*/*/*{i}" for i in range(300)),  # 300 patterns in a branch that never runs
    "false && rm " + " ".join(f"src/*/*{i}" for i in range(300)),
    "echo " + "x" * 200_000,
    "python3 -c \"" + "open(" * 5000 + "\"",
])
def test_pathological_commands_are_denied_fast(driver: Driver, app_project: ProjectRoot, command: str) -> None:
    _in_ready(driver)
    started = time.monotonic()
    out = answer(run("pre-tool-use", bash_event(app_project, command), "--project", str(app_project.path)))
    elapsed = time.monotonic() - started
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert elapsed < 5, elapsed  # the budget is 1.5 s of decision; interpreter start on a loaded machine on top


def test_an_oversized_event_is_refused_during_a_session(driver: Driver, app_project: ProjectRoot) -> None:
    driver.start()
    out = answer(run("pre-tool-use", bash_event(app_project, "ls") + " " * 9_000_000, "--project", str(app_project.path)))
    assert "larger than" in out["hookSpecificOutput"]["permissionDecisionReason"]


def test_post_tool_use_prints_nothing_and_logs_what_was_shown(driver: Driver, app_project: ProjectRoot) -> None:
    resp = driver.start()
    event = json.dumps({"session_id": "c1", "hook_event_name": "PostToolUse", "cwd": str(app_project.path),
                        "tool_name": "Bash", "tool_input": {"command": "cat src/app.py"},
                        "tool_response": {"stdout": APP_CODE, "stderr": ""}})
    result = run("post-tool-use", event, "--project", str(app_project.path))
    assert result.returncode == 0 and result.stdout == "" and result.stderr == ""
    reads = write_log.files_read(write_log.reads_file(app_project.state_dir / "sessions", resp["session_id"]))
    assert reads == {"src/app.py"}
    broken = run("post-tool-use", "{ not json", "--project", str(app_project.path))
    assert broken.returncode == 0 and broken.stdout == "" and "post-tool-use failed" in broken.stderr


def test_the_time_budget_interrupts_the_hooks_own_work() -> None:
    from code_intel.hooks.run import HookTimeout, time_budget

    started = time.process_time()
    with pytest.raises(HookTimeout, match="of CPU"), time_budget(0.05, 5.0):
        while True:
            pass
    assert time.process_time() - started < 1.0
    with time_budget(0.05, 5.0):  # work that fits is not interrupted, and the timers are off afterwards
        sum(range(1000))
    time.sleep(0.01)
