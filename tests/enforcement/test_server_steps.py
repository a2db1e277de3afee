"""The server's own steps (its run of the checks, PRE_COMMIT's discards and commit) take in what they changed and
nothing else: a write that lands while a step runs, from the checks' own command or a process racing the commit,
is judged at the next submit like any other. Through the real WorkflowEngine, GitService, CheckService and git."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from code_intel.core.config import Config, ContextSettings
from code_intel.core.project import ProjectRoot
from code_intel.git.service import GitService
from code_intel.verify.service import CheckService
from code_intel.workflow.engine import WorkflowEngine
from tests.git.conftest import TestRepo, init_repo
from tests.workflow.conftest import APP_CODE, Driver

pytestmark = pytest.mark.slow  # real git sessions and real check runs

# the project's check: passes, writes its declared report, and (once the change is in) a file nobody declared,
# standing for any process that writes while the server's run is under way
CHECK = ("echo '<testsuite/>' > coverage.xml; "
         "if grep -q subtract src/app.py; then mkdir -p build && echo 'import os' > build/steer.py; fi; true")


@pytest.fixture
def repo(project_dir: Path) -> TestRepo:
    repo = init_repo(project_dir)
    repo.write("src/__init__.py", "")
    repo.write("src/app.py", APP_CODE)
    repo.write(".gitignore", "build/\ncoverage.xml\n__pycache__/\n")
    repo.commit_all("project layout")
    return repo


def _driver(repo: TestRepo, check: str) -> Driver:
    root = ProjectRoot.from_args(repo.path)
    git = GitService(root)
    config = Config.model_validate({"verify": {"commands": [{"name": "tests", "run": check}]}})
    engine = WorkflowEngine(root, git=git, context=lambda: ContextSettings(), config=lambda: config,
                            checks=CheckService(root, lambda: config.verify), outcome=git.outcome())
    return Driver(engine, git, root)  # type: ignore[arg-type]


@pytest.fixture
def driver(repo: TestRepo) -> Iterator[Driver]:
    driver = _driver(repo, CHECK)
    yield driver
    driver.engine.close()


@pytest.fixture
def plain(repo: TestRepo) -> Iterator[Driver]:
    driver = _driver(repo, "true")
    yield driver
    driver.engine.close()


def _refused_naming(resp: dict[str, Any], path: str) -> None:
    assert resp["success"] is False and resp["error"] == "payload_mismatch", resp
    assert [c["path"] for c in resp["unexpected_changes"]] == [path], resp["unexpected_changes"]
    assert resp["restorable"] == [path]


def test_a_file_written_during_the_servers_check_run_is_judged_at_the_next_submit(driver: Driver,
                                                                                   repo: TestRepo) -> None:
    resp = driver.run(driver.start(flags=["--no-quality"]), until="POST_IMPL_VERIFY")
    assert resp["phase"] == "POST_IMPL_VERIFY", resp
    verified = driver.submit(driver.payload(resp))
    assert verified["success"] and verified["phase"] == "PRE_COMMIT", verified
    assert "build/steer.py" in verified.get("warning", ""), verified  # said at once, not taken as the run's own
    assert "coverage.xml" not in verified.get("warning", "")  # a declared output (outcome_check.outputs)
    payload = driver.payload(verified)
    _refused_naming(driver.submit(payload), "build/steer.py")
    again = driver.submit({**payload, "restore": ["build/steer.py"]})
    assert again["success"], again
    assert not (repo.path / "build" / "steer.py").exists()
    assert driver.run(again)["phase"] == "SESSION_COMPLETE"


def test_a_write_racing_pre_commit_is_not_taken_with_its_discards(plain: Driver, repo: TestRepo,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    driver = plain
    resp = driver.run(driver.start(flags=["--no-quality"]), until="READY")
    resp = driver.submit(driver.payload(resp))  # the plan
    assert resp["success"], resp
    assert driver.engine.check_write_target("src/extra.py")["allowed"]
    driver.tool("check_write_target", file_path="src/extra.py")
    repo.write("src/extra.py", "EXTRA = 1\n")
    resp = driver.run(resp, until="PRE_COMMIT")
    assert resp["phase"] == "PRE_COMMIT", resp
    git = driver.engine.git
    real_commit = git.commit

    def racing(*args: Any, **kwargs: Any) -> Any:  # a background process writes while the server commits
        (repo.path / "build").mkdir(exist_ok=True)
        (repo.path / "build" / "raced.txt").write_text("written during the commit\n", encoding="utf-8")
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(git, "commit", racing)
    payload = driver.payload(resp)
    payload["reviewed_files"] = [f for f in payload["reviewed_files"] if f != "src/extra.py"]
    payload["discarded_files"] = ["src/extra.py"]
    committed = driver.submit(payload)
    assert committed["success"] and committed["phase"] == "MERGE", committed
    assert not (repo.path / "src" / "extra.py").exists()  # the discard is the server's own: taken in
    monkeypatch.setattr(git, "commit", real_commit)
    merge = driver.payload(committed)
    _refused_naming(driver.submit(merge), "build/raced.txt")
    done = driver.submit({**merge, "restore": ["*"]})
    assert done["success"] and done["phase"] == "SESSION_COMPLETE", done
    assert not (repo.path / "build" / "raced.txt").exists()
