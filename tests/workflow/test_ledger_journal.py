"""The ledger journal: tool calls made since the last accepted submit survive a killed server.

A kill is played by dropping the engine's session from memory without saving anything (what SIGKILL
leaves: the checkpoint and the journal on disk, nothing else); a new engine on the same project is
the respawned server. The stdio version with a real SIGKILL is e2e/test_ledger_restart_stdio.py."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from code_intel.workflow import ledger as ledger_module
from code_intel.workflow import seal
from code_intel.workflow.engine import WorkflowEngine
from code_intel.workflow.ledger import CALLS_SUFFIX, LedgerJournal, ToolLedger, journal_file

EXPLORED = {"explored_files": ["src/app.py"], "findings": ["add lives in src/app.py"],
            "tools_used": ["search_text", "find_definitions"], "summary": "add is in src/app.py"}


def kill(engine: WorkflowEngine) -> None:
    """The process dies: its memory is gone, nothing more is written."""
    engine._reset()


def sessions(engine: WorkflowEngine) -> Path:
    return engine.checkpoints.folder


def journal_of(engine: WorkflowEngine, session_id: str) -> Path:
    return journal_file(sessions(engine), session_id)


def lines(file: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]


def at_exploration(driver: Any) -> dict[str, Any]:
    resp = driver.run(driver.start(), until="EXPLORATION")
    assert resp["phase"] == "EXPLORATION", resp
    driver.read("src/app.py")
    return resp


def test_calls_since_the_last_accepted_submit_survive_a_kill(driver, fake_git, new_engine, new_driver):
    resp = at_exploration(driver)
    driver.tool("search_text", pattern="def add")
    driver.tool("mcp__code-intel__find_definitions", symbol="add")
    written = lines(journal_of(driver.engine, resp["session_id"]))
    assert [(e["t"], e["p"], e["ok"]) for e in written[-2:]] == [("search_text", "EXPLORATION", True),
                                                                ("find_definitions", "EXPLORATION", True)]
    kill(driver.engine)

    again = new_driver(new_engine(fake_git), fake_git)
    after = again.submit(EXPLORED)
    assert after["success"] and after["phase"] == "Q1", after
    assert not journal_of(driver.engine, resp["session_id"]).exists()  # spent: the checkpoint moved on


def test_without_the_journal_the_same_submit_is_refused(driver, fake_git, new_engine, new_driver):
    """What the journal fixes: the same kill with the journal gone is the refusal the agent used to get."""
    resp = at_exploration(driver)
    driver.tool("search_text", pattern="def add")
    driver.tool("find_definitions", symbol="add")
    kill(driver.engine)
    journal_of(driver.engine, resp["session_id"]).unlink()

    refused = new_driver(new_engine(fake_git), fake_git).submit(EXPLORED)
    assert refused["error"] == "payload_mismatch" and "no successful call" in refused["message"], refused


def test_calls_of_an_earlier_window_never_count_again(driver, fake_git, new_engine, new_driver):
    """Task 1's check_write_target does not stand for task 2's, even when a kill came between the checkpoint
    of task 1's submit and the journal being emptied (its lines are still in the file)."""
    resp = driver.run(driver.start(), until="READY")
    resp = driver.submit(driver.payload(resp))  # planning: one task
    assert resp["step"] == 13
    session_id = resp["session_id"]
    driver.engine.check_write_target("src/app.py")
    driver.tool("check_write_target", file_path="src/app.py")
    stale = journal_of(driver.engine, session_id).read_bytes()
    kill(driver.engine)
    state = json.loads((sessions(driver.engine) / f"{session_id}.json").read_text())["orchestrator_state"]
    old = [e for e in lines(journal_of(driver.engine, session_id)) if e["t"] == "check_write_target"]
    assert old and all(e["w"] == state["window"] for e in old)
    # the next window's checkpoint, as an accepted submit would have written it, but the journal not yet emptied
    path = sessions(driver.engine) / f"{session_id}.json"
    document = json.loads(path.read_text())
    document["orchestrator_state"]["window"] += 1
    path.write_text(json.dumps(seal.seal(document, driver.engine.root.path)))
    journal_of(driver.engine, session_id).write_bytes(stale)

    again = new_driver(new_engine(fake_git), fake_git)
    app = Path(again.root.path) / "src" / "app.py"
    app.write_text(app.read_text() + "\n\ndef subtract(a, b):\n    return a - b\n")
    last = len(app.read_text().splitlines())
    refused = again.submit({"task_id": "task_1", "tools_used": ["check_write_target", "Edit"],
                            "checklist": [{"item": "subtract() in src/app.py", "status": "done",
                                           "evidence": f"src/app.py:{last - 1}-{last}"}], "summary": "done"})
    assert refused["error"] == "payload_mismatch" and "check_write_target" in refused["message"], refused


def test_a_line_cut_short_by_the_kill_is_skipped_and_the_next_call_starts_a_new_line(
        driver, fake_git, new_engine, new_driver):
    resp = at_exploration(driver)
    driver.tool("search_text", pattern="def add")
    driver.tool("find_definitions", symbol="add")
    file = journal_of(driver.engine, resp["session_id"])
    with file.open("ab") as handle:  # the kill came in the middle of a third line
        handle.write(b'{"s":"' + resp["session_id"].encode() + b'","n":99,"w":4,"p":"EXPL')
    kill(driver.engine)

    engine = new_engine(fake_git)
    status = new_driver(engine, fake_git).status()  # restores; the call itself is the next line
    assert status["phase"] == "EXPLORATION"
    engine.record_tool_call("get_session_status", {}, ok=True)
    text = file.read_text(encoding="utf-8").splitlines()
    assert text[-2].endswith('"p":"EXPL') and json.loads(text[-1])["t"] == "get_session_status"
    assert engine.live is not None
    assert engine.live.ledger.called(phase="EXPLORATION", window=engine.live.state.window) == {
        "search_text", "find_definitions", "get_session_status"}
    assert new_driver(engine, fake_git).submit(EXPLORED)["phase"] == "Q1"


def test_a_journal_of_another_session_is_ignored(driver, fake_git, new_engine, new_driver):
    resp = at_exploration(driver)
    window = driver.engine.live.state.window
    session_id = resp["session_id"]
    kill(driver.engine)
    other = "20200101_000000_abcd"
    foreign = [{"s": other, "n": i + 1, "w": window, "p": "EXPLORATION", "t": tool, "ok": True, "d": "0" * 16,
                "at": 1.0} for i, tool in enumerate(["search_text", "find_definitions"])]
    journal_of(driver.engine, other).write_text("".join(json.dumps(e) + "\n" for e in foreign))
    # lines of another session inside this session's file count no more than a file of its own
    journal_of(driver.engine, session_id).write_text("".join(json.dumps(e) + "\n" for e in foreign))

    refused = new_driver(new_engine(fake_git), fake_git).submit(EXPLORED)
    assert refused["error"] == "payload_mismatch" and "no successful call" in refused["message"], refused


def test_counts_in_the_checkpoint_are_not_counted_twice(driver, fake_git, new_engine, new_driver):
    resp = at_exploration(driver)
    driver.tool("search_text", pattern="a")
    driver.engine.add_explored_files(["src/app.py"])  # a checkpoint between the two calls
    driver.tool("search_text", pattern="b")
    driver.tool("find_definitions", symbol="add")
    kill(driver.engine)
    engine = new_engine(fake_git)
    new_driver(engine, fake_git).status()
    assert engine.live is not None
    assert engine.live.ledger.counts["EXPLORATION"] == {"search_text": 2, "find_definitions": 1}
    assert engine.live.ledger.seq == 3
    engine.close()
    saved = json.loads((sessions(engine) / f"{resp['session_id']}.json").read_text())["orchestrator_state"]
    assert saved["tool_counts"]["EXPLORATION"] == {"search_text": 2, "find_definitions": 1}
    assert saved["ledger_seq"] == 3


def test_the_journal_goes_where_the_checkpoint_goes(driver, fake_git, engine):
    resp = driver.start(intent="QUESTION")
    folder = sessions(engine)
    file = journal_of(engine, resp["session_id"])
    driver.tool("search_text", pattern="x")
    assert file.exists()
    driver.run(resp)  # to SESSION_COMPLETE
    assert not file.exists() and not list(folder.glob("*.json"))

    resp = at_exploration(driver)
    driver.tool("search_text", pattern="x")
    file = journal_of(engine, resp["session_id"])
    (folder / f"20200101_000000_dead{CALLS_SUFFIX}").write_text("{}\n")
    assert file.exists()
    report = engine.cleanup_stale_branches()
    assert report["checkpoints_deleted"] and not list(folder.glob(f"*{CALLS_SUFFIX}"))


def test_close_keeps_the_journal_and_a_new_session_drops_orphans(driver, fake_git, engine, new_engine, new_driver):
    resp = at_exploration(driver)
    driver.tool("search_text", pattern="x")
    driver.tool("find_definitions", symbol="add")
    engine.close()  # an orderly stop: checkpoint and journal stay for the next process
    file = journal_of(engine, resp["session_id"])
    assert file.exists()
    again = new_driver(new_engine(fake_git), fake_git)
    assert again.submit(EXPLORED)["phase"] == "Q1"

    orphan = journal_of(engine, "20200101_000000_beef")
    orphan.write_text("{}\n")
    again.engine.cleanup_stale_branches()
    orphan.write_text("{}\n")  # left by a session whose checkpoint was deleted by hand
    fresh = again.start()
    assert fresh["success"] and not orphan.exists()


def test_a_journal_that_cannot_be_written_never_fails_the_call(driver):
    resp = at_exploration(driver)
    journal_of(driver.engine, resp["session_id"]).mkdir()  # open() for writing fails: EISDIR
    driver.tool("search_text", pattern="def add")
    driver.tool("find_definitions", symbol="add")
    assert driver.submit(EXPLORED)["phase"] == "Q1"  # the memory still has them


def test_a_journal_over_its_size_is_rewritten_with_the_current_window(tmp_path, monkeypatch):
    monkeypatch.setattr(ledger_module, "MAX_JOURNAL_BYTES", 2_000)
    journal = LedgerJournal(tmp_path, "s1")
    ledger = ToolLedger(journal=journal)
    for i in range(40):
        ledger.record("search_text", {"i": i}, phase="EXPLORATION", window=0, ok=True)
    for i in range(60):
        ledger.record("find_definitions", {"i": i}, phase="Q1", window=1, ok=True)
    assert journal.file.stat().st_size <= 2_000 + 200
    back = ToolLedger(journal=LedgerJournal(tmp_path, "s1"))
    assert back.restore(window=1, counted=0) > 0
    assert back.called(phase="Q1", window=1) == {"find_definitions"}
    assert back.called(phase="EXPLORATION", window=0) == set()
    assert back.seq == 100


def test_a_file_over_the_limit_is_read_from_its_end(tmp_path, monkeypatch):
    journal = LedgerJournal(tmp_path, "s1")
    ledger = ToolLedger(journal=journal)
    for i in range(30):
        ledger.record("search_text" if i < 29 else "get_symbols", {"i": i}, phase="EXPLORATION", window=0, ok=True)
    monkeypatch.setattr(ledger_module, "MAX_JOURNAL_BYTES", 300)  # the file is bigger than the reader's limit
    entries = LedgerJournal(tmp_path, "s1").read()
    assert 0 < len(entries) < 30 and entries[-1].tool == "get_symbols" and entries[-1].seq == 30


@pytest.mark.parametrize("line", [
    b"not json", b"[]", b'{"s":"s1"}', b'{"s":"s1","n":1,"w":0,"p":"EXPLORATION","t":"x","ok":"yes","d":"d","at":1}',
    b'{"s":"s1","n":-1,"w":0,"p":"EXPLORATION","t":"x","ok":true,"d":"d","at":1}', b"\xff\xfe",
])
def test_malformed_lines_are_skipped(tmp_path, line):
    journal = LedgerJournal(tmp_path, "s1")
    good = ToolLedger(journal=journal)
    good.record("search_text", {}, phase="EXPLORATION", window=0, ok=True)
    with journal.file.open("ab") as handle:
        handle.write(line + b"\n")
    good.record("get_symbols", {}, phase="EXPLORATION", window=0, ok=True)
    assert [e.tool for e in LedgerJournal(tmp_path, "s1").read()] == ["search_text", "get_symbols"]


def test_a_call_after_the_respawn_but_before_the_restore_counts_too(driver, fake_git, new_engine, new_driver):
    """/mcp reconnect: the agent's next call may be an exploration tool, before any get_session_status."""
    resp = at_exploration(driver)
    driver.tool("search_text", pattern="def add")
    kill(driver.engine)
    engine = new_engine(fake_git)
    engine.record_tool_call("find_definitions", {"symbol": "add"}, ok=True)
    assert engine.live is None  # nothing restored: no lock taken, no repository touched
    assert engine.project_lock.owner() is None or engine.project_lock.owner().get("session_id") == resp["session_id"]
    written = lines(journal_of(engine, resp["session_id"]))
    assert [(e["t"], e["p"]) for e in written[-2:]] == [("search_text", "EXPLORATION"), ("find_definitions", "EXPLORATION")]
    assert len({e["n"] for e in written}) == len(written)  # numbered on from the journal
    assert new_driver(engine, fake_git).submit(EXPLORED)["phase"] == "Q1"


def test_no_call_is_recorded_for_a_session_another_live_process_holds(driver, fake_git, new_engine):
    resp = at_exploration(driver)
    kill(driver.engine)
    lock = driver.engine.project_lock
    lock.file.write_text(json.dumps({"pid": os.getppid(), "host": lock.host, "session_id": resp["session_id"]}))
    file = journal_of(driver.engine, resp["session_id"])
    before = file.read_bytes() if file.exists() else b""
    new_engine(fake_git).record_tool_call("search_text", {"pattern": "x"}, ok=True)
    assert (file.read_bytes() if file.exists() else b"") == before
    lock.file.unlink()


def test_no_checkpoint_no_journal(engine):
    engine.record_tool_call("search_text", {"pattern": "x"}, ok=True)  # no session anywhere: nothing to do
    assert not list(sessions(engine).glob(f"*{CALLS_SUFFIX}"))
