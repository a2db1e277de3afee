"""Checkpoints: written after each accepted submit, atomic, layout, size limit, corrupt files."""

from __future__ import annotations

import json

import pytest

from code_intel.core.errors import CheckpointCorrupt
from code_intel.core.session_types import Phase
from code_intel.workflow import seal
from code_intel.workflow.checkpoint import CheckpointStore
from code_intel.workflow.flags import SessionFlags
from code_intel.workflow.state import SessionState


def _checkpoint(app_project, session_id):
    return json.loads((app_project.state_dir / "sessions" / f"{session_id}.json").read_text())


def test_written_at_start_and_after_each_accepted_submit(driver, app_project):
    resp = driver.start()
    sid = resp["session_id"]
    doc = _checkpoint(app_project, sid)
    assert doc["orchestrator_state"]["phase"] == "DOCUMENT_RESEARCH" and doc["phase_payloads"] == {}
    driver.submit(driver.payload(resp))
    doc = _checkpoint(app_project, sid)
    assert doc["orchestrator_state"]["phase"] == "QUERY_FRAME"
    assert doc["phase_payloads"] == {"step_03_DOCUMENT_RESEARCH": {"summary": "summary of DOCUMENT_RESEARCH step 3"}}
    driver.submit({"bogus": 1})
    assert _checkpoint(app_project, sid)["orchestrator_state"]["phase"] == "QUERY_FRAME"


def test_layout_keeps_only_summaries_and_orchestrator_state(driver, app_project):
    resp = driver.run(driver.start(), until="READY")
    driver.submit(driver.payload(resp))
    doc = _checkpoint(app_project, resp["session_id"])
    state = doc["orchestrator_state"]
    for key in ("session_id", "flags", "phase_state", "counters", "compaction_count", "branch_policy", "tasks", "git"):
        assert key in state
    assert state["phase_state"] == {"current_phase": "READY", "step": 13, "ready_substep": "implementation"}
    assert state["tasks"][0]["id"] == "task_1" and state["tasks"][0]["status"] == "pending"
    assert state["tasks"][0]["failure_count"] == 0 and "tasks" not in state["board"]  # the server adds failure_count
    assert set(state["counters"]) == {"verification_failure_count", "intervention_count", "quality_revert_count"}
    assert state["branch_policy"] is None and state["git"]["task_branch"]
    assert all(set(v) == {"summary"} for v in doc["phase_payloads"].values())
    assert "findings" not in json.dumps(doc["phase_payloads"])
    assert not list((app_project.state_dir / "sessions").glob("*.tmp"))


def test_memo_layout_loads_back_with_its_tasks(project):
    """tasks sit at the top level of orchestrator_state in the file and return to the board on load."""
    store = CheckpointStore(project)
    state = _state()
    state.board.plan([{"id": "t1", "description": "d", "checklist": [{"item": "i", "status": "pending"}]}])
    state.git.branch_policy = "continue"
    store.save(state, {})
    doc = json.loads(store.path_for("s1").read_text())["orchestrator_state"]
    assert doc["tasks"][0]["id"] == "t1" and doc["branch_policy"] == "continue"
    assert doc["phase_state"] == {"current_phase": "Q1", "step": 6, "ready_substep": None}
    loaded, _ = store.load(store.path_for("s1"))
    assert [t.id for t in loaded.board.tasks] == ["t1"] and loaded.git.branch_policy == "continue"


def test_a_checkpoint_with_tasks_on_the_board_still_loads(project):
    """Checkpoints written before the memo layout (tasks inside board) resume as they are."""
    store = CheckpointStore(project)
    state = _state()
    state.board.plan([{"id": "t1", "description": "d", "checklist": [{"item": "i", "status": "pending"}]}])
    old = {"version": 1, "orchestrator_state": state.model_dump(mode="json"), "phase_payloads": {}}
    store.path_for("s1").write_text(json.dumps(seal.seal(old, project.path)))
    loaded, _ = store.load(store.path_for("s1"))
    assert [t.id for t in loaded.board.tasks] == ["t1"]


def _state(session_id="s1") -> SessionState:
    return SessionState(session_id=session_id, intent="IMPLEMENT", query="q", flags=SessionFlags(), phase=Phase.Q1)


def test_size_limit_recompresses_old_summaries(project):
    store = CheckpointStore(project, max_bytes=20_000)
    summaries = {f"step_{i:02d}_X": {"summary": "x" * 5000} for i in range(3, 12)}
    size = store.save(_state(), summaries)
    assert size <= 20_000
    _, loaded = store.load(store.path_for("s1"))
    assert set(loaded) == set(summaries)
    assert len(loaded["step_03_X"]["summary"]) <= 400  # the oldest is shortened first
    assert loaded["step_11_X"]["summary"] == "x" * 5000  # the newest is kept whole while it fits


def test_size_limit_never_fails_the_save(project):
    store = CheckpointStore(project, max_bytes=100)
    assert store.save(_state(), {"step_03_X": {"summary": "y" * 1000}}) > 100
    state, summaries = store.load(store.path_for("s1"))
    assert state.session_id == "s1" and state.phase is Phase.Q1
    assert summaries.get("step_03_X", {"summary": "(dropped"})["summary"].startswith("(dropped")


def test_big_session_stays_under_256_kb(driver, app_project):
    resp = driver.start()
    resp = driver.submit(driver.payload(resp) | {"summary": "z" * 200_000})
    driver.submit(driver.payload(resp) | {"summary": "w" * 200_000})
    file = app_project.state_dir / "sessions" / f"{resp['session_id']}.json"
    assert file.stat().st_size <= 256 * 1024


@pytest.mark.parametrize("content", ["{not json", "[]", '{"orchestrator_state": {"session_id": 5}}', "\xff\xfe"])
def test_corrupt_checkpoint_is_reported_with_cleanup_steps(project, content):
    store = CheckpointStore(project)
    file = store.path_for("broken")
    file.write_text(content, encoding="latin-1")
    with pytest.raises(CheckpointCorrupt) as err:
        store.load(file)
    assert "broken.json" in err.value.message and "cleanup_stale_branches" in err.value.hint


def test_corrupt_checkpoint_through_the_engine(engine, app_project, driver):
    sessions = app_project.state_dir / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "20260101_000000_dead.json").write_text("{truncated")
    status = driver.status()
    assert status["error"] == "checkpoint_corrupt"
    start = driver.start()
    assert start["error"] == "checkpoint_corrupt"
    engine.cleanup_stale_branches()
    assert driver.start()["success"] is True


def test_deleted_at_session_complete(driver, app_project):
    resp = driver.start(intent="QUESTION")
    sid = resp["session_id"]
    assert (app_project.state_dir / "sessions" / f"{sid}.json").exists()
    driver.run(resp)
    assert not (app_project.state_dir / "sessions" / f"{sid}.json").exists()


# ------------------------------------------------------------------ bounded whatever the agent sends
def test_a_huge_state_is_cut_to_fit_and_still_loads(project):
    store = CheckpointStore(project)
    state = _state("huge")
    state.query = "q" * 900_000
    state.explored_files = [f"src/file_{i}.py" for i in range(30_000)]
    state.target_symbols = ["s" * 50_000] * 10
    summaries = {f"step_{i:02d}": {"summary": "x" * 200_000} for i in range(5)}
    size = store.save(state, summaries)
    assert size <= store.max_bytes
    file = store.path_for("huge")
    assert file.stat().st_size <= 256 * 1024
    document = json.loads(file.read_text(encoding="utf-8"))
    assert document["cut"], "the checkpoint lists what was cut"
    loaded, _ = store.load(file)
    assert loaded.session_id == "huge" and loaded.phase is Phase.Q1
    assert len(loaded.query) < 900_000 and "[cut:" in loaded.query


def test_disk_full_while_writing_leaves_the_old_checkpoint_and_says_so(project, monkeypatch):
    import errno
    import os

    store = CheckpointStore(project)
    state = _state("full")
    store.save(state, {})
    before = store.path_for("full").read_bytes()
    real_fdopen = os.fdopen

    class FullDisk:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("code_intel.core.fsutil.os.fdopen", lambda fd, mode: FullDisk(real_fdopen(fd, mode)))
    state.phase = Phase.Q2
    from code_intel.workflow.checkpoint import CheckpointNotSaved

    with pytest.raises(CheckpointNotSaved) as caught:
        store.save(state, {"step_06_Q1": {"summary": "new"}})
    assert "previous checkpoint is unchanged" in str(caught.value) and caught.value.errno == errno.ENOSPC
    assert store.path_for("full").read_bytes() == before
    assert not list(store.folder.glob(".*.tmp")), "the temp file is removed"


def test_disk_full_during_a_submit_is_a_warning_and_the_phase_still_moves(driver, app_project, monkeypatch):
    import errno

    resp = driver.start()
    sid = resp["session_id"]
    saved = _checkpoint(app_project, sid)

    def full(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("code_intel.workflow.checkpoint.write_atomic", full)
    after = driver.submit(driver.payload(resp))
    assert after["success"] and after["phase"] == "QUERY_FRAME"
    assert "previous checkpoint is unchanged" in after["warning"]
    assert _checkpoint(app_project, sid) == saved


def test_stray_temp_files_are_removed(project):
    from code_intel.workflow.lock import remove_stray_temp_files

    sessions = project.runtime_dir("sessions")
    (sessions / ".s1.json.abc123.tmp").write_text("{half", encoding="utf-8")
    (sessions / ".lock.xyz").write_text("{}", encoding="utf-8")
    (sessions / "s1.json").write_text("{}", encoding="utf-8")
    assert sorted(remove_stray_temp_files(project)) == [".lock.xyz", ".s1.json.abc123.tmp"]
    assert [p.name for p in sessions.iterdir() if p.name != ".gitignore"] == ["s1.json"]
