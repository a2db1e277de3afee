"""Tools run on worker threads: concurrent ledger writes, status reads and submits stay consistent."""

from __future__ import annotations

import threading


def test_concurrent_tool_calls_and_submits(driver, engine):
    resp = driver.run(driver.start(), until="EXPLORATION")
    errors: list[BaseException] = []
    stop = threading.Event()

    def hammer() -> None:
        try:
            while not stop.is_set():
                engine.record_tool_call("search_text", {"pattern": "x"}, ok=True)
                engine.record_tool_call("find_definitions", {"symbol": "add"}, ok=True)
                status = engine.get_session_status()
                assert status["phase"] in {"EXPLORATION", "Q1", "Q2", "Q3", "READY"}
        except BaseException as err:  # noqa: BLE001 - reported to the main thread
            errors.append(err)

    workers = [threading.Thread(target=hammer) for _ in range(4)]
    for w in workers:
        w.start()
    try:
        resp = driver.run(resp, until="READY")
    finally:
        stop.set()
        for w in workers:
            w.join()
    assert errors == []
    assert resp["phase"] == "READY" and driver.steps[-1] == 12
