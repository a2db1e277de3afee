"""The pre-tool-use decision against real sessions: every phase, each write rule, Bash, patches, the write log."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from code_intel.core.errors import CheckpointCorrupt, InvalidArgument
from code_intel.core.project import ProjectRoot
from code_intel.hooks.post_tool_use import record_reads
from code_intel.hooks.pre_tool_use import HookDecision
from code_intel.workflow import seal, write_log
from code_intel.workflow.engine import WorkflowEngine
from tests.workflow.conftest import Driver

Hook = Callable[..., HookDecision]


def _log(root: ProjectRoot, session_id: str) -> list[write_log.LogEntry]:
    return write_log.read_entries(write_log.log_file(root.state_dir / "sessions", session_id))


def _to_ready(driver: Driver, *, flags: list[str] | None = None, stop: int = 13) -> dict:
    resp = driver.run(driver.start(flags=flags), until="READY")
    if stop == 13:
        resp = driver.submit(driver.payload(resp))
    assert resp["phase"] == "READY" and resp["step"] == stop, resp
    return resp


def test_no_session_lets_every_write_through_and_logs_nothing(hook: Hook, app_project: ProjectRoot) -> None:
    assert hook("Edit", file_path=str(app_project.path / "src/app.py"), old_string="a", new_string="b").allow
    assert hook("Bash", command="git commit -am wip && rm -rf lib").allow
    assert hook("Write", file_path="/etc/elsewhere.conf", content="x").allow
    assert not (app_project.state_dir / "sessions").exists()  # asking created nothing


def test_calls_that_write_nothing_pass_in_any_phase(driver: Driver, hook: Hook) -> None:
    driver.start()
    for command in ("pytest -q", "git status && git diff", "cat src/app.py | grep add > /dev/null", "ls > /tmp/listing"):
        decision = hook("Bash", command=command)
        assert decision.allow and not decision.files, command
    assert hook("Read", file_path="src/app.py").allow  # reading is never refused


def test_hook_agrees_with_check_write_target_in_every_phase(driver: Driver, engine: WorkflowEngine, hook: Hook,
                                                            app_project: ProjectRoot) -> None:
    """Walk a whole session (every optional phase on) and compare the two decisions at each step."""
    driver.answers = {"Q1": True, "Q2": True, "Q3": True}
    driver.verify_results = [False]  # one failed verification: READY is entered twice
    seen: list[str] = []
    resp = driver.start()
    for _ in range(60):
        if resp.get("phase") == "SESSION_COMPLETE":
            break
        assert resp.get("success"), resp
        label = f"{resp['phase']}:{resp['step']}"
        for target in ("src/app.py", "lib/other.py", "src/new_module.py", "docs/new/page.md", "notes.txt"):
            expected = engine.check_write_target(target)
            decision = hook("Write", file_path=str(app_project.path / target), content="x")
            assert decision.allow == expected["allowed"], (label, target, decision.reason, expected)
            if not decision.allow:
                assert resp["phase"] in decision.reason and "code-intel blocked" in decision.reason
        seen.append(label)
        resp = driver.submit(driver.payload(resp))
    phases = {label.split(":")[0] for label in seen}
    assert phases >= {"DOCUMENT_RESEARCH", "QUERY_FRAME", "EXPLORATION", "Q1", "SEMANTIC", "Q2", "VERIFICATION",
                      "Q3", "IMPACT_ANALYSIS", "READY", "POST_IMPL_VERIFY", "PRE_COMMIT", "QUALITY_REVIEW", "MERGE"}
    assert {"READY:12", "READY:13", "READY:14"} <= set(seen)


def test_before_ready_the_reason_says_what_to_do_next(driver: Driver, hook: Hook, app_project: ProjectRoot) -> None:
    resp = driver.start()
    decision = hook("Edit", file_path=str(app_project.path / "src/app.py"), old_string="a", new_string="b")
    assert not decision.allow
    assert "only in the READY phase" in decision.reason
    assert f"{resp['phase']} (step {resp['step']})" in decision.reason
    assert "submit_phase" in decision.reason and "get_session_status" in decision.reason
    assert not _log(app_project, resp["session_id"])


def test_ready_applies_each_write_rule(driver: Driver, hook: Hook, app_project: ProjectRoot) -> None:
    resp = _to_ready(driver)
    root = app_project.path
    allowed = {
        "src/app.py": "explored",
        "src/helpers.py": "new file in src/",
        "docs/guide.md": "pure markup",
    }
    for rel, why in allowed.items():
        decision = hook("Write", file_path=str(root / rel), content="x")
        assert decision.allow and decision.files == (rel,), (rel, why, decision.reason)
    refused = {
        "lib/other.py": "was not explored",
        "tools/new.py": "no file in ./ was explored",
        ".git/config": "belongs to git",
        ".code-intel/config.json": "belongs to code-intel",
        "/etc/passwd": "outside the project root",
        "../sibling.py": "outside the project root",
    }
    for rel, why in refused.items():
        decision = hook("Edit", file_path=rel if rel.startswith("/") else str(root / rel), old_string="a", new_string="b")
        assert not decision.allow and why in decision.reason, (rel, decision.reason)
        assert "READY (step 13)" in decision.reason
    entries = _log(app_project, resp["session_id"])
    assert [e.files for e in entries] == [("src/app.py",), ("src/helpers.py",), ("docs/guide.md",)]
    assert {(e.phase, e.step, e.tool) for e in entries} == {("READY", 13, "Write")}


def test_relative_paths_use_the_event_cwd(driver: Driver, hook: Hook) -> None:
    _to_ready(driver)
    assert hook("Edit", file_path="src/app.py", old_string="a", new_string="b").files == ("src/app.py",)


def test_fast_sessions_may_write_any_project_file(driver: Driver, hook: Hook, app_project: ProjectRoot) -> None:
    resp = driver.start(flags=["--fast"])
    resp = driver.run(resp, until="READY")
    assert hook("Edit", file_path=str(app_project.path / "lib/other.py"), old_string="x", new_string="y").allow
    assert not hook("Edit", file_path="/etc/hosts", old_string="x", new_string="y").allow


def test_multi_edit_and_notebook_edit_name_their_files(driver: Driver, hook: Hook, app_project: ProjectRoot) -> None:
    _to_ready(driver)
    assert hook("MultiEdit", file_path=str(app_project.path / "src/app.py"), edits=[]).files == ("src/app.py",)
    assert not hook("NotebookEdit", notebook_path=str(app_project.path / "lib/nb.ipynb"), new_source="x").allow
    assert not hook("Write", content="no path").allow


def test_bash_writes_follow_the_same_rules(driver: Driver, hook: Hook, app_project: ProjectRoot) -> None:
    resp = _to_ready(driver)
    ok = hook("Bash", command="sed -i 's/total/result/' src/app.py && echo done > /tmp/code-intel-hook-test")
    assert ok.allow and ok.files == ("src/app.py",)
    refused = hook("Bash", command="echo x >> lib/other.py")
    assert not refused.allow and "lib/other.py was not explored" in refused.reason
    for command, words in [("git commit -am wip", "git commit"), ("git stash", "git stash"),
                           ("git checkout main", "git checkout"), ("echo x > $TARGET", "cannot tell which file")]:
        decision = hook("Bash", command=command)
        assert not decision.allow and words in decision.reason, command
    entries = _log(app_project, resp["session_id"])
    assert len(entries) == 1 and entries[0].tool == "Bash" and entries[0].command and "sed -i" in entries[0].command


def test_bash_before_ready_is_refused_only_when_it_writes_into_the_project(driver: Driver, hook: Hook) -> None:
    driver.start()
    assert not hook("Bash", command="touch src/new.py").allow
    assert not hook("Bash", command="git reset --hard").allow
    assert hook("Bash", command="touch /tmp/code-intel-scratch").allow


def test_codex_apply_patch_names_every_file(driver: Driver, hook: Hook, app_project: ProjectRoot) -> None:
    _to_ready(driver)
    patch = ("*** Begin Patch\n*** Update File: src/app.py\n@@\n-x\n+y\n*** Add File: src/extra.py\n+z\n"
             "*** End Patch\n")
    decision = hook("apply_patch", command=patch)
    assert decision.allow and decision.files == ("src/app.py", "src/extra.py")
    moved = patch.replace("*** Add File: src/extra.py\n+z\n", "*** Update File: src/app.py\n*** Move to: lib/moved.py\n")
    refused = hook("apply_patch", command=moved)
    assert not refused.allow and "lib/moved.py" in refused.reason
    assert not hook("apply_patch", command="not a patch").allow


def test_broken_checkpoint_refuses_writes_but_not_reads(driver: Driver, hook: Hook, app_project: ProjectRoot) -> None:
    resp = driver.start()
    checkpoint = app_project.state_dir / "sessions" / f"{resp['session_id']}.json"
    checkpoint.write_text("{ not json", encoding="utf-8")
    with pytest.raises(CheckpointCorrupt):
        hook("Edit", file_path=str(app_project.path / "src/app.py"), old_string="a", new_string="b")
    assert hook("Bash", command="ls -la").allow
    assert hook("Read", file_path=str(app_project.path / "src/app.py")).allow  # reading passes, logged or not
    assert hook("Bash", command="cat src/app.py").allow
    forged = {"orchestrator_state": {"session_id": resp["session_id"], "phase": 5}}
    checkpoint.write_text(json.dumps(forged))
    with pytest.raises(CheckpointCorrupt, match="fails its seal"):
        hook("Bash", command="rm src/app.py")
    checkpoint.write_text(json.dumps(seal.seal(forged, app_project.path)))  # sealed, yet not a valid checkpoint
    with pytest.raises(CheckpointCorrupt, match="invalid at 'phase'"):
        hook("Bash", command="rm src/app.py")


def test_older_checkpoint_without_status_still_decides(driver: Driver, hook: Hook, app_project: ProjectRoot) -> None:
    resp = driver.start()
    checkpoint = app_project.state_dir / "sessions" / f"{resp['session_id']}.json"
    document = json.loads(checkpoint.read_text(encoding="utf-8"))
    document.pop("status")
    checkpoint.write_text(json.dumps(seal.seal(document, app_project.path)), encoding="utf-8")
    decision = hook("Write", file_path=str(app_project.path / "src/app.py"), content="x")
    assert not decision.allow and f"is in {resp['phase']}: continue" in decision.reason


def test_write_log_entries_are_one_object_per_line(tmp_path: Path) -> None:
    entry = write_log.LogEntry(session_id="s1", phase="READY", step=13, tool="Bash", files=("a.py", "b/c.py"),
                                 command="x" * 900)
    file = write_log.append(tmp_path, entry)
    write_log.append(tmp_path, write_log.LogEntry(session_id="s1", phase="READY", tool="Edit", files=("d.py",)))
    with file.open("a", encoding="utf-8") as handle:
        handle.write("not json\n" + json.dumps({"session_id": "s1", "phase": "READY", "tool": "Edit", "files": []}) + "\n")
        unsealed = {"time": "2026-11-27T00:00:00Z", "session_id": "s1", "phase": "READY", "tool": "Edit",
                    "files": ["forged.py"]}
        handle.write(json.dumps(unsealed) + "\n")  # well formed, but written without the key: never permission
    lines = file.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    assert list(first) == ["time", "session_id", "phase", "step", "tool", "files", "command", "mac"]
    assert len(first["command"]) == write_log.MAX_COMMAND_CHARS and first["time"].endswith("Z")
    assert [e.files for e in write_log.read_entries(file)] == [("a.py", "b/c.py"), ("d.py",)]
    assert write_log.allowed_writes(file) == {"a.py", "b/c.py", "d.py"}
    with pytest.raises(ValueError):
        write_log.append(tmp_path, write_log.LogEntry(session_id="s1", phase="READY", tool="Edit", files=()))
    write_log.remove(tmp_path, "s1")
    assert write_log.read_entries(file) == [] and write_log.allowed_writes(file) == set()


def test_write_log_goes_with_the_session(driver: Driver, hook: Hook, engine: WorkflowEngine,
                                         app_project: ProjectRoot) -> None:
    resp = _to_ready(driver)
    assert hook("Edit", file_path=str(app_project.path / "src/app.py"), old_string="a", new_string="b").allow
    sessions = app_project.state_dir / "sessions"
    log = write_log.log_file(sessions, resp["session_id"])
    assert log.is_file()
    engine.cleanup_stale_branches()  # discarding the session discards its log
    assert not log.exists() and not list(sessions.glob("*.json"))
    resp = driver.run(driver.start(), until="READY")
    resp = driver.submit(driver.payload(resp))
    assert hook("Edit", file_path=str(app_project.path / "src/app.py"), old_string="a", new_string="b").allow
    log = write_log.log_file(sessions, resp["session_id"])
    assert log.is_file()
    assert driver.run(resp)["phase"] == "SESSION_COMPLETE"  # the commit gate read it; then it goes
    assert not log.exists()


def _reads(root: ProjectRoot, session_id: str) -> set[str]:
    return write_log.files_read(write_log.reads_file(root.state_dir / "sessions", session_id))


def test_asking_to_read_logs_nothing_the_answer_does(driver: Driver, hook: Hook, engine: WorkflowEngine,
                                                     app_project: ProjectRoot) -> None:
    """PreToolUse sees only what the agent asks for; the read log is written after the call, from what the tool
    answered (tools/hooks/post_tool_use.py), so a Read or a `cat` that never ran, or showed nothing, proves nothing."""
    resp = driver.start()
    assert hook("Read", file_path=str(app_project.path / "src/app.py")).allow
    assert hook("Bash", command="cat src/app.py > /dev/null").allow
    assert _reads(app_project, resp["session_id"]) == set()
    with pytest.raises(InvalidArgument, match="src/app.py"):
        engine.add_explored_files(["src/app.py"])
    event = {"session_id": "client-1", "hook_event_name": "PostToolUse", "cwd": str(app_project.path), "tool_name": "Read",
             "tool_input": {"file_path": str(app_project.path / "src/app.py")},
             "tool_response": {"type": "text", "file": {"content": (app_project.path / "src/app.py").read_text()}}}
    assert record_reads(event, app_project) == ("src/app.py",)
    assert engine.add_explored_files(["src/app.py"])["added"] == ["src/app.py"]
