"""compaction_count as the v1.13 memo: always in responses; a mismatch returns the summaries once."""

from __future__ import annotations


def test_always_in_responses(driver):
    resp = driver.start()
    assert resp["compaction_count"] == 0
    assert driver.submit(driver.payload(resp))["compaction_count"] == 0
    assert driver.status()["compaction_count"] == 0


def test_mismatch_returns_summaries_once_and_adopts_the_value(driver):
    resp = driver.run(driver.start(), until="EXPLORATION")
    assert "phase_summaries" not in resp
    driver.compaction_count = 1  # the agent lost its context: last known + 1
    resp = driver.submit(driver.payload(resp))
    assert resp["compaction_count"] == 1 and resp["phase"] == "Q1"
    assert set(resp["phase_summaries"]) == {"step_03_DOCUMENT_RESEARCH", "step_04_QUERY_FRAME"}
    assert resp["phase_summaries"]["step_04_QUERY_FRAME"] == "summary of QUERY_FRAME step 4"
    nxt = driver.submit(driver.payload(resp))  # echoing the value: no summaries again
    assert "phase_summaries" not in nxt and nxt["compaction_count"] == 1


def test_second_compaction_detected(driver):
    resp = driver.run(driver.start(), until="QUERY_FRAME")
    driver.compaction_count = 1
    resp = driver.submit(driver.payload(resp))
    driver.compaction_count = 2
    resp = driver.submit(driver.payload(resp))
    assert resp["compaction_count"] == 2 and "phase_summaries" in resp


def test_mismatch_handled_even_when_submit_is_refused(driver, engine):
    resp = driver.run(driver.start(), until="QUERY_FRAME")
    driver.compaction_count = 3
    refused = driver.submit({"wrong": True})
    assert refused["error"] == "payload_mismatch"
    assert refused["compaction_count"] == 3 and "step_03_DOCUMENT_RESEARCH" in refused["phase_summaries"]
    assert engine.live.state.compaction_count == 3
    ok = driver.submit(driver.payload(resp))
    assert "phase_summaries" not in ok


def test_compaction_count_is_not_part_of_the_payload(driver):
    resp = driver.start()
    ok = driver.submit(driver.payload(resp))  # the driver adds compaction_count to every payload
    assert ok["success"]


def test_invalid_compaction_count_is_refused(driver):
    resp = driver.start()
    bad = driver.submit(driver.payload(resp) | {"compaction_count": "one"}, echo=False)
    assert bad["error"] == "payload_mismatch" and "compaction_count" in bad["message"]


def test_compaction_count_survives_a_restart(driver, fake_git, new_engine, new_driver):
    resp = driver.run(driver.start(), until="QUERY_FRAME")
    driver.compaction_count = 2
    driver.submit(driver.payload(resp))
    driver.engine.close()
    again = new_driver(new_engine(fake_git), fake_git)
    status = again.status()
    assert status["compaction_count"] == 2
    again.compaction_count = 0  # a fresh agent after --resume starts at 0: mismatch -> summaries
    resp = again.submit(again.payload(status))
    assert "phase_summaries" in resp and resp["compaction_count"] == 0


def test_the_protocol_ends_every_instruction_until_the_session_completes(driver):
    from code_intel.workflow.responses import COMPACTION_PROTOCOL

    resp = driver.start()
    seen = [resp, driver.status(), driver.submit({"wrong": True})]
    for _ in range(4):
        resp = driver.submit(driver.payload(resp))
        seen.append(resp)
    assert all(r["instruction"].endswith(COMPACTION_PROTOCOL) for r in seen), [r["instruction"][-80:] for r in seen]
