"""What the page must never do: show text as markup, or show a file from outside the project; and where its facts
come from when the session crashed, or is older than the session history."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import pytest

from code_intel.cli.status import run_status
from code_intel.core.project import ProjectRoot
from code_intel.learning.history import SessionHistory
from code_intel.report.facts import excerpt_for, gather
from code_intel.report.output import write_report
from tests.workflow.conftest import QUERY, Driver, FakeGit, make_engine

from .conftest import parse_page

HOSTILE = "</pre><script>alert('x')</script><img src=x onerror=alert(1)>"


@pytest.fixture
def driver(app_project: ProjectRoot):
    git = FakeGit(root=app_project.path)
    engine = make_engine(app_project, git)
    yield Driver(engine, git, app_project)
    engine.close()


def _no_markup_from_the_session(html: str) -> None:
    page = parse_page(html)
    tags = {node.tag for node in page.walk()}
    assert not tags & {"script", "img", "iframe", "object", "embed", "link"}, tags
    assert not [n for n in page.walk() if any(k.startswith("on") for k in n.attrs)]


def test_everything_the_session_sent_is_escaped(driver, app_project):
    resp = driver.run(driver.start(query=QUERY + " " + HOSTILE), until="READY")
    tasks = [{"id": "t<1>", "description": HOSTILE, "status": "pending",
              "checklist": [{"item": HOSTILE, "status": "pending"}]}]
    refused = driver.submit({"tasks": "<b>not a list</b>", "tools_used": [], "summary": HOSTILE})
    assert refused["success"] is False
    assert driver.submit({"tasks": tasks, "tools_used": [], "summary": "plan"})["success"]
    html = write_report(app_project).read_text(encoding="utf-8")
    _no_markup_from_the_session(html)
    page = parse_page(html)
    assert HOSTILE in page.by_id("summary").text  # shown as text, whole
    assert HOSTILE in page.by_id("tasks").text and "t<1>" in page.by_id("tasks").text
    [refusal] = page.by_id("refusals").find_all("div", "refusal")
    assert "<b>not a list</b>" in refusal.text and HOSTILE in refusal.find_all("pre", "sent")[0].text
    del resp


def test_evidence_outside_the_project_is_never_read(app_project, tmp_path: Path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the password\n", encoding="utf-8")
    os.symlink(secret, app_project.path / "src" / "link.txt")
    for ref in ("../secret.txt:1", f"{secret}:1", "src/link.txt:1", "src/../../secret.txt:1"):
        excerpt = excerpt_for(app_project, ref, None, "complete")
        assert excerpt.lines == [] and "outside the project" in excerpt.problem, ref
    inside = excerpt_for(app_project, "src/app.py:2", None, "running")
    assert [n for n, _ in inside.lines] == [1, 2, 3] and inside.source == "working tree (now)"


def test_an_interrupted_session_is_reported_from_its_checkpoint(driver, app_project, capsys):
    resp = driver.run(driver.start(), until="READY")
    driver.submit({"tasks": [], "tools_used": [], "summary": "no tasks"})  # refused: an empty list
    driver.submit(driver.payload(resp))  # planned
    session_id = resp["session_id"]
    driver.engine.close()  # the server goes away mid-session; the checkpoint stays
    facts = gather(app_project, session_id)
    assert facts.status == "interrupted" and facts.phase == "READY" and facts.step == 13
    assert [t["id"] for t in facts.tasks] == ["task_1"] and "checkpoint" in facts.sources
    page = parse_page(write_report(app_project).read_text(encoding="utf-8"))
    assert page.by_id("refusals").find_all("div", "refusal", phase="READY")
    assert [n for n in page.by_id("summary").find_all("dd") if n.attrs.get("data-fact") == "status"][0].text == "interrupted"
    # status shows the same session: a compact timeline and the last refusal
    assert run_status(argparse.Namespace(project=str(app_project.path))) == 0
    out = capsys.readouterr().out
    timeline = next(line for line in out.splitlines() if line.startswith("timeline"))
    assert "FRAME" in timeline and "READY/12" in timeline and "READY/13" in timeline
    refused = next(line for line in out.splitlines() if line.startswith("refused"))
    assert "READY" in refused
    # a new server takes the session over, and the agent lost its context once: both are on the page
    git = FakeGit(root=app_project.path)
    engine = make_engine(app_project, git)
    try:
        again = Driver(engine, git, app_project)
        status = again.status()
        assert status["phase"] == "READY"
        again.compaction_count = status["compaction_count"] + 1
        again.submit(again.payload(status))
    finally:
        engine.close()
    page = parse_page(write_report(app_project).read_text(encoding="utf-8"))
    valves = page.by_id("valves")
    assert len(valves.find_all("li", "resumed")) == 1 and len(valves.find_all("li", "compaction")) == 1
    assert "0 → 1" in valves.find_all("li", "compaction")[0].text


def test_a_session_older_than_the_history_comes_from_the_decision_log(driver, app_project):
    resp = driver.start()
    driver.submit({"nonsense": True})
    final = driver.run(resp)
    assert final["phase"] == "SESSION_COMPLETE"
    SessionHistory(app_project).file(final["session_id"]).unlink()
    page = parse_page(write_report(app_project).read_text(encoding="utf-8"))
    [refusal] = page.by_id("refusals").find_all("div", "refusal")
    assert refusal.attrs["data-error"] == "payload_mismatch" and "nonsense" in refusal.text  # the field names only
    assert "decision log" in page.by_id("sources").text
    assert [n.attrs["data-phase"] for n in page.by_id("timeline").find_all("tr", "visit")][-1] == "SESSION_COMPLETE"


def test_the_page_of_a_long_session_stays_small(app_project):
    """19 steps (a stale branch, every exploration step, an intervention) and ten tasks: under 1 MB."""
    git = FakeGit(root=app_project.path, stale=["llm_task_old_from_main"])
    engine = make_engine(app_project, git)
    try:
        driver = TenTasks(engine, git, app_project)
        driver.answers = {"Q1": True, "Q2": True, "Q3": True}
        driver.verify_results = [False, False, False]
        final = driver.run(driver.start(), limit=200)
        assert final["phase"] == "SESSION_COMPLETE"
        assert set(driver.steps) == set(range(2, 21))
    finally:
        engine.close()
    path = write_report(app_project)
    size = path.stat().st_size
    assert size < 1_000_000, size
    page = parse_page(path.read_text(encoding="utf-8"))
    assert len(page.by_id("tasks").find_all("div", "task")) >= 10
    [intervention] = page.by_id("timeline").find_all("tr", "visit", phase="VERIFY_INTERVENTION")
    assert "intervention: re-read the failure" in intervention.text
    skipped = [n.attrs["data-phase"] for n in page.by_id("timeline").find_all("tr", "skip")]
    assert skipped == []  # every step of the table ran
    history = SessionHistory(app_project).file(final["session_id"])
    assert history.stat().st_size < 2_000_000
    assert all(json.loads(line)["kind"] for line in history.read_text(encoding="utf-8").splitlines())


class TenTasks(Driver):
    """Plans ten tasks of three items each, with the longest summaries the server keeps."""

    def payload(self, resp):
        payload = super().payload(resp)
        if "summary" in payload:
            payload["summary"] = (payload["summary"] + " ") * 200
        return payload

    def task_list(self, resp):
        board = self.engine.live.state.board if self.engine.live else None
        if board and board.tasks:
            return super().task_list(resp)
        return [{"id": f"task_{n}", "description": f"step {n} of the change " * 10, "status": "pending",
                 "checklist": [{"item": f"part {k} of task {n} in src/app.py", "status": "pending"} for k in range(3)]}
                for n in range(1, 11)]


def test_what_an_outcome_check_refused_is_shown_as_caught(app_project):
    """A refusal of the outcome check at a transition (with the unexpected_changes it found), as the history records
    any refusal's details, for a session whose history is all there is."""
    history = SessionHistory(app_project)
    sid = "20261127_230000_abcd"
    history.append(sid, "start", intent="IMPLEMENT", query=QUERY, flags=[], phase="DOCUMENT_RESEARCH", step=3)
    history.append(sid, "submit", phase="QUERY_FRAME", step=4, accepted=False, error="payload_mismatch",
                   message="the project changed in ways this session did not grant: src/app.py: modified",
                   hint="send restore: [paths]", payload={"summary": "frame"},
                   details={"unexpected_changes": [{"path": "src/app.py", "change": "modified"}],
                            "restorable": ["src/app.py"]})
    page = parse_page(write_report(app_project, sid).read_text(encoding="utf-8"))
    [caught] = page.by_id("caught").find_all("tr", "caught")
    assert "QUERY_FRAME" in caught.text and "src/app.py: modified" in caught.text
    [refusal] = page.by_id("refusals").find_all("div", "refusal")
    assert [li.text for li in refusal.find_all("li", "change")] == ["src/app.py: modified"]
    assert [n.text.strip() for n in page.by_id("summary").find_all("dd") if n.attrs.get("data-fact") == "status"] == ["unfinished"]


def test_the_command_writes_the_latest_session_or_the_one_named(driver, app_project, tmp_path, capsys):
    from code_intel.cli.main import main

    first = driver.run(driver.start(intent="QUESTION"))
    second = driver.run(driver.start(intent="QUESTION"))
    assert main(["report", "--project", str(app_project.path)]) == 0
    latest = Path(capsys.readouterr().out.strip())
    assert latest == app_project.state_dir / "reports" / f"{second['session_id']}.html" and latest.is_file()
    target = tmp_path / "out" / "first.html"
    assert main(["report", first["session_id"], "--project", str(app_project.path), "-o", str(target)]) == 0
    assert Path(capsys.readouterr().out.strip()) == target
    assert first["session_id"] in parse_page(target.read_text(encoding="utf-8")).by_id("summary").text
    assert main(["report", "20990101_000000_beef", "--project", str(app_project.path)]) == 2
    err = capsys.readouterr().err
    assert "no record of session" in err and second["session_id"] in err  # names the sessions it knows
    assert run_status(argparse.Namespace(project=str(app_project.path))) == 1  # no active session: the latest one is named
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("no active session") and out[1].startswith(f"last        {second['session_id']} (complete")
    assert out[2].startswith("timeline    DOCS") and out[2].endswith("DONE")


def test_a_forced_completion_is_shown_with_its_open_issues(driver, app_project):
    """Three quality reverts force the session on to MERGE: the timeline says so and the valves list the issues."""
    driver.quality_issues = [["names are unclear"], ["still unclear"], ["a docstring is missing"]]
    final = driver.run(driver.start(), limit=120)
    assert final["phase"] == "SESSION_COMPLETE" and final.get("forced_completion") is True
    page = parse_page(write_report(app_project).read_text(encoding="utf-8"))
    forced = [n for n in page.by_id("timeline").find_all("tr", "visit", phase="QUALITY_REVIEW") if "forced" in n.text]
    assert len(forced) == 1 and forced[0].attrs["data-step"] == "18"
    [issues] = page.by_id("valves").find_all("p", "forced")
    assert "a docstring is missing" in issues.text
    counters = {n.attrs["data-counter"]: n.attrs["data-value"] for n in page.by_id("valves").find_all("tr", "counter")}
    assert counters["quality_revert_count"] == "3"


def test_each_phase_keeps_the_summary_the_agent_sent(driver, app_project):
    driver.run(driver.start(intent="QUESTION"))
    page = parse_page(write_report(app_project).read_text(encoding="utf-8"))
    [frame] = page.by_id("timeline").find_all("tr", "visit", phase="QUERY_FRAME")
    [summary] = frame.find_all("details", "summary")
    assert "summary of QUERY_FRAME step 4" in summary.text
