"""One session per project across processes: lock file with stale-lock detection."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest

from code_intel.core.errors import SessionActive
from code_intel.workflow.lock import ProjectLock


@pytest.fixture
def live_process():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield proc.pid
    proc.kill()
    proc.wait()


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _write_lock(project, pid, host=None, session_id="other"):
    lock = ProjectLock(project)
    lock.file.write_text(json.dumps({"pid": pid, "host": host or socket.gethostname(), "session_id": session_id}))
    return lock


def test_acquire_and_release(project):
    lock = ProjectLock(project)
    lock.acquire("s1")
    assert lock.held_by_us() and lock.owner()["session_id"] == "s1"
    lock.acquire("s2")  # re-entrant for the same process
    assert lock.owner()["session_id"] == "s2"
    lock.release()
    assert lock.owner() is None


def test_live_owner_refuses_second_session(project, live_process):
    lock = _write_lock(project, live_process)
    with pytest.raises(SessionActive):
        lock.acquire("mine")
    lock.release()  # never removes another live process's lock
    assert lock.owner()["pid"] == live_process


def test_stale_lock_of_dead_process_is_taken_over(project):
    lock = _write_lock(project, _dead_pid())
    lock.acquire("mine")
    assert lock.held_by_us()


def test_unreadable_lock_is_stale(project):
    lock = ProjectLock(project)
    lock.file.write_text("garbage")
    lock.acquire("mine")
    assert lock.held_by_us()


def test_lock_of_another_host_is_trusted(project):
    lock = _write_lock(project, 1, host="some-other-host")
    with pytest.raises(SessionActive):
        lock.acquire("mine")


def test_second_session_gets_session_active(driver, app_project, live_process):
    _write_lock(app_project, live_process)
    resp = driver.start()
    assert resp["success"] is False and resp["error"] == "session_active"
    assert "pid" in resp["message"]


def test_engine_takes_over_a_dead_owners_lock(driver, app_project):
    _write_lock(app_project, _dead_pid())
    assert driver.start()["success"] is True


def test_lock_is_held_during_the_session_and_released_at_the_end(driver, app_project):
    resp = driver.start(intent="QUESTION")
    lock = ProjectLock(app_project)
    assert lock.owner()["session_id"] == resp["session_id"]
    driver.run(resp)
    assert lock.owner() is None


def test_cleanup_refuses_while_another_process_holds_the_session(engine, app_project, live_process):
    _write_lock(app_project, live_process)
    with pytest.raises(SessionActive):
        engine.cleanup_stale_branches()
