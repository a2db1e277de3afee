"""Evidence in a file changed before READY, through the real WorkflowEngine and GitService.

When the session first reaches READY the server records the content of every file changed before
it (when writing was forbidden). Lines written before that point are refused as evidence; lines
written during READY are accepted, in the same file. The same holds in a folder that is not a git
repository. A file git ignores is never evidence. Every snapshot is gone when the session ends.
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

EARLY = "\n\ndef sneaky(a, b):\n    product = a * b\n    return product\n"


def _engine(path: Path) -> WorkflowEngine:
    root = ProjectRoot.from_args(path)
    return make_engine(root, GitService(root))


@pytest.fixture
def repo_engine(project_dir: Path) -> Iterator[tuple[TestRepo, WorkflowEngine]]:
    repo = init_repo(project_dir)
    repo.write("src/app.py", APP_CODE)
    repo.write("src/other.py", "OTHER = 1\n")
    repo.write(".gitignore", "build/\n")
    repo.commit_all("project layout")
    eng = _engine(repo.path)
    yield repo, eng
    eng.close()


@pytest.fixture
def folder_engine(project_dir: Path) -> Iterator[WorkflowEngine]:
    (project_dir / "src").mkdir()
    (project_dir / "src" / "app.py").write_text(APP_CODE, encoding="utf-8")
    (project_dir / "src" / "other.py").write_text("OTHER = 1\n", encoding="utf-8")
    eng = _engine(project_dir)
    yield eng
    eng.close()


def _driver(engine: WorkflowEngine) -> Driver:
    return Driver(engine, engine.git, engine.root)  # type: ignore[arg-type]


def _write_before_ready(driver: Driver) -> dict[str, Any]:
    """Reach EXPLORATION (src/app.py and src/other.py explored), write both files, go on to READY."""
    resp = driver.start(flags=["--no-quality"])
    while resp["phase"] != "EXPLORATION":
        resp = driver.submit(driver.payload(resp))
    driver.read("src/app.py", "src/other.py")
    driver.engine.add_explored_files(["src/app.py", "src/other.py"])  # a plain folder records them now
    root = driver.root.path
    app = root / "src" / "app.py"
    app.write_text(app.read_text(encoding="utf-8") + EARLY, encoding="utf-8")
    (root / "src" / "other.py").write_text("OTHER = 2  # written before READY\n", encoding="utf-8")
    return driver.run(resp, until="READY")


def _span(path: Path, text: str) -> str:
    """`file:start-end` of the lines holding `text` (a run of whole lines)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    wanted = text.strip("\n").splitlines()
    for i in range(len(lines) - len(wanted) + 1):
        if lines[i:i + len(wanted)] == wanted:
            return f"{i + 1}-{i + len(wanted)}"
    raise AssertionError(f"{text!r} not in {path}")


def _evidence(payload: dict[str, Any], evidence: str) -> dict[str, Any]:
    return payload | {"checklist": [payload["checklist"][0] | {"evidence": evidence}]}


def _pre_ready_lines_refused_ready_lines_accepted(driver: Driver) -> dict[str, Any]:
    resp = _write_before_ready(driver)
    assert resp["phase"] == "READY" and resp["pre_ready_changes"] == ["src/app.py", "src/other.py"], resp
    assert "lines you change from here on are" in resp["warning"]
    session = resp["session_id"]
    assert (driver.root.state_dir / "sessions" / f"{session}.ready.baseline").is_dir()
    driver.submit(driver.payload(resp))  # planning

    payload = driver.implementation("task_1")  # appends subtract_task_1 during READY
    app = driver.root.path / "src" / "app.py"
    early = driver.submit(_evidence(payload, f"src/app.py:{_span(app, EARLY)}"))
    assert early["error"] == "task_validation_failed", early
    assert "before the session reached READY" in early["message"]
    assert "lines changed since READY" in early["message"] and "skipped" in early["message"]
    untouched = driver.submit(_evidence(payload, "src/other.py:1"))
    assert untouched["error"] == "task_validation_failed"
    assert "no line of it has changed since READY began" in untouched["message"]

    accepted = driver.submit(payload)  # the subtract lines written in READY, in the same early file
    assert accepted["success"], accepted
    return accepted


def _finish(driver: Driver, resp: dict[str, Any]) -> dict[str, Any]:
    resp = driver.run(resp, until="PRE_COMMIT")
    if resp["phase"] != "PRE_COMMIT":
        return resp
    driver.engine.grant_early_changes(["src/app.py"], by="terminal")  # the user's consent, as `code-intel allow` gives it
    commit = driver.payload(resp) | {"discarded_files": ["src/other.py"], "reallowed_files": ["src/app.py"]}
    commit["reviewed_files"] = ["src/app.py"]
    return driver.run(driver.submit(commit))


def test_git_repository_accepts_lines_written_in_ready_and_refuses_earlier_ones(repo_engine) -> None:
    repo, engine = repo_engine
    driver = _driver(engine)
    resp = _pre_ready_lines_refused_ready_lines_accepted(driver)
    session = resp["session_id"]

    final = _finish(driver, resp)
    assert final["phase"] == "SESSION_COMPLETE", final
    assert "def sneaky" in repo.show("main:src/app.py") and "def subtract_task_1" in repo.show("main:src/app.py")
    assert repo.read("src/other.py") == "OTHER = 1\n"  # discarded: back to its content at session start
    assert not list((engine.root.state_dir / "sessions").glob(f"{session}*"))


def test_plain_folder_accepts_lines_written_in_ready_and_refuses_earlier_ones(folder_engine) -> None:
    driver = _driver(folder_engine)
    resp = _pre_ready_lines_refused_ready_lines_accepted(driver)
    session = resp["session_id"]
    final = driver.run(resp)
    assert final["phase"] == "SESSION_COMPLETE", final
    assert not list((folder_engine.root.state_dir / "sessions").glob(f"{session}*"))


def test_ignored_files_are_never_evidence(repo_engine) -> None:
    repo, engine = repo_engine
    driver = _driver(engine)
    resp = driver.run(driver.start(), until="READY")
    driver.submit(driver.payload(resp))
    payload = driver.implementation("task_1")
    assert engine.check_write_target("build/gen.py")["allowed"] is False  # build/ was never explored
    repo.write("build/gen.py", "def generated():\n    return 42\n")  # written past the rules, ignored by git
    refused = driver.submit(_evidence(payload, "build/gen.py:1-2"))
    assert refused["error"] == "task_validation_failed"
    assert "ignored by git" in refused["message"] and "never committed" in refused["message"]
    assert "build/gen.py" not in engine.review_changes().get("outside_write_rules", [])  # git does not see it
    assert driver.submit(payload)["success"]


def test_a_session_from_before_the_ready_snapshot_refuses_the_whole_early_file(repo_engine) -> None:
    """A checkpoint written before READY snapshots existed names no record: the file is refused whole, as then."""
    _repo, engine = repo_engine
    driver = _driver(engine)
    resp = _write_before_ready(driver)
    driver.submit(driver.payload(resp))
    assert engine.live is not None
    engine.live.state.git.ready_snapshot = None
    payload = driver.implementation("task_1")
    refused = driver.submit(payload)
    assert refused["error"] == "task_validation_failed" and "holds no record of it" in refused["message"]
