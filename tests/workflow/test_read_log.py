"""Files listed as read must have been read: documents_reviewed, explored_files and add_explored_files are checked
against the session's read log (the client hook's reads, the server's answers, the rules start_session showed)."""

from __future__ import annotations

from typing import Any

from code_intel.core.project import ProjectRoot
from code_intel.workflow import write_log
from tests.workflow.conftest import Driver


def _reads(root: ProjectRoot, session_id: str) -> list[write_log.LogEntry]:
    return write_log.read_entries(write_log.reads_file(root.state_dir / "sessions", session_id))


def test_documents_reviewed_must_have_been_read(driver: Driver, app_project: ProjectRoot) -> None:
    (app_project.path / "docs").mkdir()
    (app_project.path / "docs" / "design.md").write_text("# Design\n\nAll operations are pure.\n", encoding="utf-8")
    resp = driver.start()
    assert resp["phase"] == "DOCUMENT_RESEARCH"
    payload: dict[str, Any] = {"documents_reviewed": ["docs/design.md", "README.md", "https://peps.python.org/pep-0008/",
                                                      "the team's wiki page"], "tools_used": [], "summary": "rules"}
    refused = driver.submit(payload)
    assert refused["error"] == "payload_mismatch" and refused["current_phase"] == "DOCUMENT_RESEARCH"
    assert "documents_reviewed names 2 file(s) this session never read or was shown: docs/design.md, README.md" \
        in refused["message"]  # entries that name no project file (a URL, a title) are not judged

    driver.read("README.md")
    driver.tool("search_text", pattern="pure", path="docs", shown=["docs/design.md"])
    assert driver.submit(payload | {"tools_used": ["search_text"]})["phase"] == "QUERY_FRAME"


def test_the_rules_file_start_session_showed_counts_as_read(driver: Driver, app_project: ProjectRoot) -> None:
    (app_project.path / "CLAUDE.md").write_text("# Rules\n\n- Keep functions pure.\n", encoding="utf-8")
    resp = driver.start()
    assert resp["project_rules"]["source"] == "CLAUDE.md" and "Keep functions pure" in resp["project_rules"]["content"]
    assert [(e.tool, e.files) for e in _reads(app_project, resp["session_id"])] == [("start_session", ("CLAUDE.md",))]
    ok = driver.submit({"documents_reviewed": ["CLAUDE.md"], "tools_used": [], "summary": "rules read"})
    assert ok["phase"] == "QUERY_FRAME", ok


def test_explored_files_must_have_been_read(driver: Driver, app_project: ProjectRoot) -> None:
    (app_project.path / "src" / "util.py").write_text("def helper():\n    return 1\n", encoding="utf-8")
    resp = driver.run(driver.start(flags=["--no-doc-research"]), until="EXPLORATION")
    driver.tool("search_text", pattern="def add", shown=["src/app.py"])
    driver.tool("search_files", pattern="src/*.py")  # names files, shows no code: nothing for the read log
    payload = {"explored_files": ["src/app.py", "src/util.py", "src/new_module.py", "src"],
               "findings": ["add in src/app.py"], "tools_used": ["search_text", "search_files"], "summary": "s"}
    refused = driver.submit(payload)
    assert refused["error"] == "payload_mismatch" and "never read or was shown: src/util.py" in refused["message"]
    assert "Read tool" in refused["hint"] and refused["current_phase"] == "EXPLORATION"
    assert [e.files for e in _reads(app_project, resp["session_id"])] == [("src/app.py",)]

    driver.read("src/util.py")
    accepted = driver.submit(payload)
    assert accepted["phase"] == "Q1", accepted
    assert driver.engine.live is not None
    assert driver.engine.live.state.explored_files == ["src/app.py", "src/util.py", "src/new_module.py", "src"]


def test_the_server_logs_each_file_it_showed_once(driver: Driver, app_project: ProjectRoot) -> None:
    resp = driver.start()
    driver.read("src/app.py")  # the agent's own read, logged by the hook
    for _ in range(3):
        driver.tool("search_text", pattern="add", shown=["src/app.py", "README.md"])
    driver.tool("find_references", symbol="add", shown=["README.md", "docs/new.md"])
    assert [(e.tool, e.files) for e in _reads(app_project, resp["session_id"])] == [
        ("Read", ("src/app.py",)), ("search_text", ("README.md",)), ("find_references", ("docs/new.md",))]
