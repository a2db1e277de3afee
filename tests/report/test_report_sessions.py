"""The report page after whole sessions driven through the engine (real git, pytest as the check command), read
back by structure: its sections, and the facts of that session in them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from code_intel.core.project import ProjectRoot
from code_intel.report.output import write_report

from .conftest import Node, git, parse_page

pytestmark = pytest.mark.slow  # runs pytest as the project's check command, and git

SECTIONS = ("summary", "timeline", "refusals", "tasks", "checks", "files", "valves", "caught", "sources")


def _page(root: ProjectRoot, session_id: str | None = None) -> Node:
    path = write_report(root, session_id)
    page = parse_page(path.read_text(encoding="utf-8"))
    for section in SECTIONS:
        page.by_id(section)
    return page


def _visits(page: Node) -> list[tuple[str, int]]:
    return [(n.attrs["data-phase"], int(n.attrs["data-step"])) for n in page.by_id("timeline").find_all("tr", "visit")]


def _fact(page: Node, name: str) -> str:
    [node] = [n for n in page.by_id("summary").find_all("dd") if n.attrs.get("data-fact") == name]
    return node.text.strip()


def _break(root: Path) -> None:
    app = root / "src" / "app.py"
    app.write_text(app.read_text(encoding="utf-8").replace("return a - b", "return a + b"), encoding="utf-8")


def _mend(root: Path) -> None:
    app = root / "src" / "app.py"
    app.write_text(app.read_text(encoding="utf-8").replace("return a + b", "return a - b"), encoding="utf-8")


def _verify(passed: bool, details: str) -> dict[str, Any]:
    return {"verifier_used": "backend.md", "passed": passed, "details": details, "tools_used": ["Bash"],
            "summary": "verification"}


def test_full_session_with_a_verification_failure_and_a_revert(session, repo):
    driver = session()
    resp = driver.run(driver.start(flags=["--no-quality"]), until="READY")
    resp = driver.submit(driver.payload(resp))  # planned
    resp = driver.submit(driver.payload(resp))  # task_1 implemented
    assert resp["step"] == 14
    _break(repo.path)  # still in READY, in a file the write rules allowed: a bug, not a rule broken
    driver.run(resp, until="POST_IMPL_VERIFY")
    claimed = driver.submit(_verify(True, "all good"))  # the server's run fails: refused
    assert claimed["error"] == "payload_mismatch" and "server's own run failed" in claimed["message"]
    reverted = driver.submit(_verify(False, "test_subtract fails"))
    assert reverted["phase"] == "READY" and reverted["reverted"] is True
    _mend(repo.path)  # back in READY: the fix
    final = driver.run(reverted)
    assert final["phase"] == "SESSION_COMPLETE"
    session_id = final["session_id"]
    assert final["report"]["path"].endswith(f"{session_id}.html")

    page = _page(repo)
    assert _fact(page, "status") == "complete" and _fact(page, "session") == session_id
    visits = _visits(page)
    assert visits.count(("POST_IMPL_VERIFY", 15)) == 2 and visits.count(("READY", 12)) == 2
    assert visits[-1] == ("SESSION_COMPLETE", 20)
    [revert] = [n for n in page.by_id("timeline").find_all("tr", "visit") if "reverted to planning" in n.text]
    assert revert.attrs["data-phase"] == "POST_IMPL_VERIFY" and revert.attrs["data-refusals"] == "1"
    skipped = {n.attrs["data-phase"]: n.text for n in page.by_id("timeline").find_all("tr", "skip")}
    assert "--no-quality" in skipped["QUALITY_REVIEW"] and "Q1 answered no" in skipped["SEMANTIC"]

    [refusal] = page.by_id("refusals").find_all("div", "refusal")
    assert refusal.attrs["data-error"] == "payload_mismatch" and refusal.attrs["data-phase"] == "POST_IMPL_VERIFY"
    assert "server's own run failed" in refusal.text
    [sent] = refusal.find_all("pre", "sent")
    assert '"passed": true' in sent.text and '"details": "all good"' in sent.text

    checks = page.by_id("checks").find_all("div", "check")
    verdicts = [(c.attrs["data-where"], c.attrs["data-passed"]) for c in checks]
    assert ("POST_IMPL_VERIFY (refused)", "False") in verdicts and ("POST_IMPL_VERIFY (accepted)", "True") in verdicts
    failed = next(c for c in checks if c.attrs["data-where"] == "POST_IMPL_VERIFY (refused)")
    assert "test_app.py::test_subtract" in failed.find_all("code", "failing-tests")[0].text
    [command] = failed.find_all("tr", "command")
    assert "pytest" in command.text and command.attrs["data-verdict"] == "failed"

    tasks = {n.attrs["data-task"]: n for n in page.by_id("tasks").find_all("div", "task")}
    assert set(tasks) == {"task_1", "fix_1"} and all(t.attrs["data-status"] == "completed" for t in tasks.values())
    assert "failed verification 1x" in tasks["task_1"].text
    link = tasks["task_1"].find_all("a", "evidence")[0]
    figure = page.by_id(link.attrs["href"].removeprefix("#"))
    files = page.by_id("files")
    [made] = files.find_all("div", "commit")
    commit = made.attrs["data-commit"]
    assert git(repo.path, "merge-base", "--is-ancestor", commit, "main") == ""  # merged into main
    assert figure.attrs["data-source"] == f"commit {commit[:10]}"
    assert "def subtract_task_1" in figure.text
    assert [c.text for c in files.find_all("code", "reviewed")] == ["src/app.py"]
    assert "src/app.py" in made.find_all("tr", "change")[0].text
    [merge] = files.find_all("p", "merge")
    assert merge.attrs["data-merged"] == "true" and "main" in merge.text

    counters = {n.attrs["data-counter"]: n.attrs["data-value"] for n in page.by_id("valves").find_all("tr", "counter")}
    assert counters["verification_failure_count"] == "1" and counters["quality_revert_count"] == "0"


def test_quality_review_revert(session, repo):
    driver = session(checks=False)
    driver.quality_issues = [["subtract_task_1 has no docstring"]]
    final = driver.run(driver.start())
    assert final["phase"] == "SESSION_COMPLETE"
    page = _page(repo)
    visits = _visits(page)
    assert visits.count(("QUALITY_REVIEW", 18)) == 2 and visits.count(("PRE_COMMIT", 17)) == 2
    [revert] = [n for n in page.by_id("timeline").find_all("tr", "visit") if n.attrs["data-phase"] == "QUALITY_REVIEW"
                and "reverted" in n.text]
    assert revert.attrs["data-step"] == "18"
    tasks = [n.attrs["data-task"] for n in page.by_id("tasks").find_all("div", "task")]
    assert tasks == ["task_1", "fix_1"]
    assert len(page.by_id("files").find_all("div", "commit")) == 2  # one commit per PRE_COMMIT
    counters = {n.attrs["data-counter"]: n.attrs["data-value"] for n in page.by_id("valves").find_all("tr", "counter")}
    assert counters["quality_revert_count"] == "1"
    assert "no checks" in page.by_id("checks").text


def test_investigation_ends_at_impact_analysis(session, repo):
    driver = session(checks=False)
    driver.answers["Q3"] = True
    final = driver.run(driver.start(intent="INVESTIGATE"))
    assert final["phase"] == "SESSION_COMPLETE"
    page = _page(repo)
    assert [p for p, _ in _visits(page)][-2:] == ["IMPACT_ANALYSIS", "SESSION_COMPLETE"]
    skipped = {n.attrs["data-phase"]: n.text for n in page.by_id("timeline").find_all("tr", "skip")}
    assert "INVESTIGATE sessions explore only" in skipped["READY"] and "MERGE" in skipped
    assert "did not plan" in page.by_id("tasks").text and not page.by_id("files").find_all("div", "commit")
    assert _fact(page, "intent") == "INVESTIGATE"


def test_quick_session_shows_the_working_tree(session, repo):
    driver = session()
    final = driver.run(driver.start(flags=["--quick"]))
    assert final["phase"] == "SESSION_COMPLETE"
    page = _page(repo)
    skipped = {n.attrs["data-phase"]: n.text for n in page.by_id("timeline").find_all("tr", "skip")}
    for phase in ("EXPLORATION", "PRE_COMMIT", "MERGE"):
        assert "--quick" in skipped[phase], phase
    [figure] = page.by_id("tasks").find_all("figure", "excerpt")
    assert figure.attrs["data-source"] == "working tree (not committed)" and "subtract_task_1" in figure.text
    assert not page.by_id("files").find_all("div", "commit")
    assert _fact(page, "flags") == "--quick"


def test_a_change_outside_the_rules_is_shown_as_caught(session, repo):
    """The outcome check refuses the submit after a file changed before READY; the page lists it under caught."""
    driver = session(checks=False)
    resp = driver.run(driver.start(), until="Q1")
    (repo.path / "README.md").write_text("# sample\nchanged behind the server's back\n", encoding="utf-8")
    refused = driver.submit(driver.payload(resp))
    assert refused["success"] is False and refused["unexpected_changes"], refused
    restored = driver.submit(driver.payload(resp) | {"restore": ["README.md"]})
    assert restored["success"], restored
    final = driver.run(restored)
    assert final["phase"] == "SESSION_COMPLETE"
    page = _page(repo)
    [caught] = page.by_id("caught").find_all("tr", "caught")
    assert "README.md" in caught.text and "Q1" in caught.text
    [refusal] = page.by_id("refusals").find_all("div", "refusal")
    assert any("README.md" in li.text for li in refusal.find_all("li", "change"))
