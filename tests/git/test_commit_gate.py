"""The PRE_COMMIT gate through the real WorkflowEngine on a real repository.

A file changed during the session that the write rules never allowed (a write that got past the
hook) refuses the submit, naming it; once it is discarded the submit is accepted and the commit
holds only the reviewed files. The user's own edits from before the session never count.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from code_intel.core.project import ProjectRoot
from code_intel.git.service import GitService
from code_intel.workflow.engine import WorkflowEngine
from tests.git.conftest import TestRepo, init_repo
from tests.workflow.conftest import APP_CODE, Driver, make_engine


@pytest.fixture
def project_repo(project_dir: Path) -> TestRepo:
    repo = init_repo(project_dir)
    repo.write("src/app.py", APP_CODE)
    repo.write("lib/other.py", "OTHER = 1\n")
    repo.write("lib/util.py", "UTIL = 1\n")
    repo.commit_all("project layout")
    return repo


@pytest.fixture
def engine(project_repo: TestRepo) -> Iterator[WorkflowEngine]:
    root = ProjectRoot.from_args(project_repo.path)
    eng = make_engine(root, GitService(root))
    yield eng
    eng.close()


def _pre_commit(driver: Driver, reviewed: list[str], discarded: list[str]) -> dict[str, Any]:
    driver.engine.review_changes()
    driver.tool("review_changes")
    return driver.submit({
        "review_prompt_used": ".code-intel/review_prompts/garbage_detection.md",
        "reviewed_files": reviewed, "discarded_files": discarded, "commit_message": "Add subtract",
        "tools_used": ["review_changes"], "summary": "reviewed the session's files",
    })


def test_commit_gate_refuses_an_unexplored_file_until_it_is_discarded(project_repo: TestRepo, engine: WorkflowEngine) -> None:
    repo = project_repo
    repo.write("lib/util.py", "UTIL = 'user edit before the session'\n")  # the user's own, never counted
    repo.write("scratch_user.txt", "user's untracked file\n")
    user_state = repo.status()
    driver = Driver(engine, engine.git, ProjectRoot.from_args(repo.path))  # type: ignore[arg-type]

    resp = driver.run(driver.start(flags=["--no-verify", "--no-quality"]), until="PRE_COMMIT")
    assert resp["phase"] == "PRE_COMMIT", resp
    assert repo.head_branch().startswith("llm_task_") and repo.head_branch().endswith("_from_main")
    repo.write("lib/other.py", "OTHER = 2  # written past the hook\n")

    review = engine.review_changes()
    assert {f["file"] for f in review["files"]} == {"src/app.py", "lib/other.py"}
    assert review["outside_write_rules"] == ["lib/other.py"]

    refused = _pre_commit(driver, ["src/app.py", "lib/other.py"], [])
    assert refused["success"] is False and refused["error"] == "payload_mismatch"
    assert "lib/other.py" in refused["message"] and "lib/util.py" not in refused["message"]
    assert refused["current_phase"] == "PRE_COMMIT"
    assert repo.git("log", "--format=%s", "-n", "1") == "project layout\n"  # nothing committed

    accepted = _pre_commit(driver, ["src/app.py"], ["lib/other.py"])
    assert accepted["success"] is True, accepted
    assert accepted["commit"]["committed_files"] == ["src/app.py"]
    assert repo.git("show", "--name-only", "--format=", "HEAD").split() == ["src/app.py"]
    assert repo.read("lib/other.py") == "OTHER = 1\n"  # back to how it was when the session started

    final = driver.run(accepted)
    assert final["phase"] == "SESSION_COMPLETE" and final["merge"]["merged"] is True
    assert repo.head_branch() == "main" and repo.branches() == ["main"]
    assert "def subtract_" in repo.show("main:src/app.py")
    assert repo.status() == user_state  # the user's edit and untracked file, exactly as before
    assert repo.read("lib/util.py") == "UTIL = 'user edit before the session'\n"
