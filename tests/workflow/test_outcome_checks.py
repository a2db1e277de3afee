"""Outcome checks (#39), through the real WorkflowEngine, GitService and fingerprint on a temporary repository.

Each attack writes the way a tool the hook never sees would (plain file writes, git plumbing run
directly, forged session files), then the test asserts the secure outcome: the next transition is
refused naming what changed, and nothing reaches the task branch or the base branch. The honest
sessions (one running pytest before READY) must go through untouched.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from code_intel.core.config import Config, ContextSettings
from code_intel.core.errors import CheckpointCorrupt
from code_intel.core.project import ProjectRoot
from code_intel.git.service import GitService
from code_intel.workflow import write_log
from code_intel.workflow.engine import WorkflowEngine
from tests.git.conftest import TestRepo, init_repo
from tests.workflow.conftest import APP_CODE, Driver

TEST_CODE = "from src.app import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"


def _engine(path: Path, config: Config | None = None) -> WorkflowEngine:
    root = ProjectRoot.from_args(path)
    git = GitService(root)
    settings = config or Config()
    return WorkflowEngine(root, git=git, context=lambda: ContextSettings(), config=lambda: settings,
                          outcome=git.outcome())


@pytest.fixture
def repo(project_dir: Path) -> TestRepo:
    repo = init_repo(project_dir)
    repo.write("src/__init__.py", "")
    repo.write("src/app.py", APP_CODE)
    repo.write("src/victim.py", "SECRET = 1\n")
    repo.write("tests/test_app.py", TEST_CODE)
    repo.write(".gitignore", "build/\n__pycache__/\n.pytest_cache/\n")
    repo.commit_all("project layout")
    return repo


@pytest.fixture
def driver(repo: TestRepo) -> Iterator[Driver]:
    engine = _engine(repo.path)
    yield Driver(engine, engine.git, engine.root)  # type: ignore[arg-type]
    engine.close()


def _until(driver: Driver, phase: str, flags: list[str] | None = None) -> dict[str, Any]:
    resp = driver.start(flags=flags or ["--no-quality"])
    return driver.run(resp, until=phase)


def _refused(resp: dict[str, Any], *paths: str) -> None:
    assert resp["success"] is False, resp
    assert resp["error"] == "payload_mismatch", resp
    named = {c["path"] for c in resp["unexpected_changes"]}
    for path in paths:
        assert path in named, (path, resp["unexpected_changes"])


def _main_unchanged(repo: TestRepo, before: str) -> None:
    assert repo.rev("refs/heads/main") == before


# ------------------------------------------------------------------- honest sessions
def test_an_honest_session_that_runs_pytest_before_ready_is_not_bothered(driver: Driver, repo: TestRepo) -> None:
    resp = _until(driver, "EXPLORATION")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                    "tests"], cwd=repo.path, capture_output=True, check=False, env=env)
    subprocess.run([sys.executable, "-m", "pytest", "-q", "tests"], cwd=repo.path, capture_output=True, check=False,
                   env=env)
    assert list(repo.path.rglob("__pycache__")), "pytest left no cache: the test proves nothing"
    resp = driver.run(resp)
    assert resp["success"] and resp["phase"] == "SESSION_COMPLETE", resp
    assert "subtract_task_1" in repo.show("main:src/app.py")


def test_the_merge_lands_only_what_was_granted(driver: Driver, repo: TestRepo) -> None:
    resp = _until(driver, "SESSION_COMPLETE")
    assert resp["success"], resp
    assert repo.git("diff", "--name-only", "HEAD~1", "HEAD").split() == ["src/app.py"]


# ------------------------------------------------------------ writes the hook never saw
def test_a_write_before_ready_is_refused_at_the_next_submit_and_restore_puts_it_back(driver: Driver,
                                                                                      repo: TestRepo) -> None:
    resp = _until(driver, "EXPLORATION")
    (repo.path / "src" / "app.py").write_text(APP_CODE + "# node -e appendFileSync\n", encoding="utf-8")
    payload = driver.payload(resp)
    refused = driver.submit(payload)
    _refused(refused, "src/app.py")
    assert "src/app.py" in refused["restorable"]
    assert refused["current_phase"] == "EXPLORATION"
    again = driver.submit({**payload, "restore": ["src/app.py"]})
    assert again["success"], again
    assert repo.read("src/app.py") == APP_CODE


def test_a_new_file_before_ready_is_refused_and_restore_deletes_it(driver: Driver, repo: TestRepo) -> None:
    resp = _until(driver, "EXPLORATION")
    repo.write("src/new.py", "print('x')\n")
    payload = driver.payload(resp)
    _refused(driver.submit(payload), "src/new.py")
    assert driver.submit({**payload, "restore": ["src/new.py"]})["success"]
    assert not (repo.path / "src" / "new.py").exists()


def test_an_ignored_file_changed_before_ready_is_refused(driver: Driver, repo: TestRepo) -> None:
    resp = _until(driver, "EXPLORATION")
    repo.write("build/out.txt", "made by a shell command\n")
    _refused(driver.submit(driver.payload(resp)), "build/out.txt")


def test_a_write_in_ready_to_a_file_never_granted_is_refused(driver: Driver, repo: TestRepo) -> None:
    resp = _until(driver, "READY")
    resp = driver.submit(driver.payload(resp))  # the plan
    assert resp["success"], resp
    repo.write("src/victim.py", "SECRET = 2\n")
    refused = driver.submit(driver.payload(resp))
    _refused(refused, "src/victim.py")
    assert all(c["path"] != "src/app.py" for c in refused["unexpected_changes"])


def test_a_granted_file_changed_after_ready_is_refused_and_nothing_is_committed(driver: Driver, repo: TestRepo) -> None:
    main = repo.rev("refs/heads/main")
    resp = _until(driver, "POST_IMPL_VERIFY")
    app = repo.path / "src" / "app.py"
    app.write_text(app.read_text(encoding="utf-8") + "EVIL = 1\n", encoding="utf-8")
    _refused(driver.submit(driver.payload(resp)), "src/app.py")
    _main_unchanged(repo, main)
    assert "EVIL" not in repo.git("log", "--all", "-p")


def test_a_write_after_pre_commit_is_refused_and_nothing_is_merged(driver: Driver, repo: TestRepo) -> None:
    main = repo.rev("refs/heads/main")
    resp = _until(driver, "MERGE")
    repo.write("src/victim.py", "SECRET = 3\n")
    _refused(driver.submit(driver.payload(resp)), "src/victim.py")
    _main_unchanged(repo, main)


# ----------------------------------------------------------------------- git plumbing
def test_a_ref_moved_with_git_plumbing_is_refused_and_restore_moves_it_back(driver: Driver, repo: TestRepo) -> None:
    main = repo.rev("refs/heads/main")
    resp = _until(driver, "EXPLORATION")
    tree = repo.git("write-tree").strip()
    forged = repo.git("commit-tree", tree, "-p", main, "-m", "forged").strip()
    repo.git("update-ref", "refs/heads/main", forged)
    payload = driver.payload(resp)
    refused = driver.submit(payload)
    _refused(refused, "ref refs/heads/main")
    assert driver.submit({**payload, "restore": ["ref refs/heads/main"]})["success"]
    _main_unchanged(repo, main)


def test_the_base_branch_moved_before_merge_refuses_the_merge(driver: Driver, repo: TestRepo) -> None:
    resp = _until(driver, "MERGE")
    main = repo.rev("refs/heads/main")
    tree = repo.git("rev-parse", "main^{tree}").strip()
    repo.git("update-ref", "refs/heads/main", repo.git("commit-tree", tree, "-p", main, "-m", "moved").strip())
    moved = repo.rev("refs/heads/main")
    refused = driver.submit(driver.payload(resp))
    _refused(refused, "ref refs/heads/main")
    assert "base branch" in refused["message"]
    assert repo.rev("refs/heads/main") == moved  # nothing merged onto it


def test_skip_worktree_hiding_a_change_is_refused(driver: Driver, repo: TestRepo) -> None:
    resp = _until(driver, "EXPLORATION")
    repo.git("update-index", "--skip-worktree", "src/victim.py")
    repo.write("src/victim.py", "SECRET = 4\n")
    assert "victim" not in repo.status()  # git status no longer shows it
    _refused(driver.submit(driver.payload(resp)), "src/victim.py", "index-flag src/victim.py")


def test_a_hooks_path_set_by_the_agent_is_refused_and_never_run_by_the_server(driver: Driver, repo: TestRepo) -> None:
    resp = _until(driver, "EXPLORATION")
    hooks = repo.path / "evil-hooks"
    hooks.mkdir()
    marker = repo.path.parent / "hook-ran"
    script = hooks / "post-checkout"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n", encoding="utf-8")
    script.chmod(0o755)
    repo.git("config", "core.hooksPath", str(hooks))
    payload = driver.payload(resp)
    _refused(driver.submit(payload), ".git/config", "evil-hooks/post-checkout")
    # the server's own checkout (the task branch at READY) must not run it, even with the setting in place
    driver.engine.git.create_task_branch("s1", driver.engine.live.state.git)  # type: ignore[union-attr]
    assert not marker.exists()


def test_a_config_json_rewrite_is_refused_and_the_pinned_commands_stay(driver: Driver, repo: TestRepo) -> None:
    resp = _until(driver, "EXPLORATION")
    repo.write(".code-intel/config.json", json.dumps({"verify": {"commands": [{"name": "t", "command": "true"}]}}))
    _refused(driver.submit(driver.payload(resp)), ".code-intel/config.json")


# ---------------------------------------------------------------------- state forgery
def test_a_forged_write_log_line_grants_nothing(driver: Driver, repo: TestRepo) -> None:
    resp = _until(driver, "READY")
    resp = driver.submit(driver.payload(resp))
    state = driver.engine.live.state  # type: ignore[union-attr]
    log = write_log.log_file(repo.path / ".code-intel" / "sessions", state.session_id)
    line = {"time": "2026-11-27T00:00:00Z", "session_id": state.session_id, "phase": "READY", "step": 13,
            "tool": "Edit", "files": ["src/victim.py"]}
    with log.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
    repo.write("src/victim.py", "SECRET = 5\n")
    _refused(driver.submit(driver.payload(resp)), "src/victim.py")


def test_a_forged_checkpoint_is_void(driver: Driver, repo: TestRepo) -> None:
    _until(driver, "EXPLORATION")
    state = driver.engine.live.state  # type: ignore[union-attr]
    driver.engine.close()  # the server stops (writing its checkpoint); the agent edits the file it left
    file = repo.path / ".code-intel" / "sessions" / f"{state.session_id}.json"
    document = json.loads(file.read_text(encoding="utf-8"))
    document["orchestrator_state"]["explored_files"] = ["src/victim.py"]
    file.write_text(json.dumps(document), encoding="utf-8")
    from code_intel.hooks.session import find_session
    with pytest.raises(CheckpointCorrupt):
        find_session(driver.root)
    restarted = _engine(repo.path)
    try:
        with pytest.raises(CheckpointCorrupt):
            restarted.get_session_status()
    finally:
        restarted.close()


def test_a_forged_outcome_record_stops_the_session(driver: Driver, repo: TestRepo) -> None:
    _until(driver, "EXPLORATION")
    state = driver.engine.live.state  # type: ignore[union-attr]
    file = repo.path / ".code-intel" / "sessions" / f"{state.session_id}.outcome"
    record = json.loads(file.read_text(encoding="utf-8"))
    driver.engine.close()
    record["grants"]["src/victim.py"] = ["0" * 64]
    file.write_text(json.dumps(record), encoding="utf-8")
    restarted = _engine(repo.path)
    try:
        with pytest.raises(CheckpointCorrupt):
            restarted.submit_phase({"summary": "x"})
    finally:
        restarted.close()


# --------------------------------------------------------------------------- symlinks
def test_a_symlink_made_in_ready_can_be_discarded(driver: Driver, repo: TestRepo) -> None:
    resp = _until(driver, "READY")
    resp = driver.submit(driver.payload(resp))
    assert driver.engine.check_write_target("docs/link.md")["allowed"]
    (repo.path / "docs").mkdir()
    os.symlink("../src/victim.py", repo.path / "docs" / "link.md")
    resp = driver.run(resp, until="PRE_COMMIT")
    assert resp["phase"] == "PRE_COMMIT", resp
    payload = driver.payload(resp)
    payload["reviewed_files"] = [f for f in payload["reviewed_files"] if f != "docs/link.md"]
    payload["discarded_files"] = ["docs/link.md"]
    done = driver.submit(payload)
    assert done["success"], done
    assert not (repo.path / "docs" / "link.md").is_symlink()
    assert repo.read("src/victim.py") == "SECRET = 1\n"


def test_a_write_through_a_granted_symlink_is_refused(driver: Driver, repo: TestRepo) -> None:
    resp = _until(driver, "READY")
    resp = driver.submit(driver.payload(resp))
    (repo.path / "docs").mkdir()
    os.symlink("../src/victim.py", repo.path / "docs" / "link.md")
    driver.engine.check_write_target("docs/link.md")
    (repo.path / "docs" / "link.md").write_text("SECRET = 6\n", encoding="utf-8")  # follows the link
    _refused(driver.submit(driver.payload(resp)), "src/victim.py")


# ------------------------------------------------------------------ review and binaries
def test_review_changes_with_a_binary_file_fits_its_schema(driver: Driver, repo: TestRepo) -> None:
    from code_intel.workflow.response_models import SessionReview

    resp = _until(driver, "READY")
    driver.submit(driver.payload(resp))
    assert driver.engine.check_write_target("src/blob.gz")["allowed"]
    (repo.path / "src" / "blob.gz").write_bytes(gzip.compress(b"\x00\x01binary" * 50))
    review = SessionReview.model_validate(driver.engine.review_changes())
    wire = review.model_dump(mode="json", exclude_none=True)
    blob = next(f for f in wire["files"] if f["file"] == "src/blob.gz")
    assert blob["binary"] is True and "added" in blob and "removed" in blob
    schema = SessionReview.model_json_schema()
    required = schema["$defs"]["ReviewedFile"]["required"]
    assert {"added", "removed"} <= set(required)


def test_run_checks_is_refused_while_the_verify_commands_are_rewritten(repo: TestRepo) -> None:
    from code_intel.verify.service import CheckService

    root = ProjectRoot.from_args(repo.path)
    git = GitService(root)
    config = Config.model_validate({"verify": {"commands": [{"name": "tests", "run": ["false"]}]}})
    engine = WorkflowEngine(root, git=git, context=lambda: ContextSettings(), config=lambda: config,
                            checks=CheckService(root, lambda: config.verify), outcome=git.outcome())
    driver = Driver(engine, git, root)  # type: ignore[arg-type]
    driver.answers["Q2"] = True
    try:
        assert _until(driver, "VERIFICATION")["phase"] == "VERIFICATION"
        repo.write(".code-intel/config.json", json.dumps({"verify": {"commands": [{"name": "t", "run": ["true"]}]}}))
        with pytest.raises(Exception) as refused:
            engine.run_checks()
        assert ".code-intel/config.json" in str(getattr(refused.value, "details", {}).get("unexpected_changes"))
    finally:
        engine.close()


def test_a_write_racing_the_commit_is_withdrawn_and_never_merged(driver: Driver, repo: TestRepo,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    main = repo.rev("refs/heads/main")
    resp = _until(driver, "PRE_COMMIT")
    git = driver.engine.git
    real_commit = git.commit

    def racing(*args: Any, **kwargs: Any) -> Any:  # a background process writes after the check, before the commit
        app = repo.path / "src" / "app.py"
        app.write_text(app.read_text(encoding="utf-8") + "RACED = 1\n", encoding="utf-8")
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(git, "commit", racing)
    task_head = repo.rev("HEAD")
    refused = driver.submit(driver.payload(resp))
    assert refused["success"] is False and "never granted" in refused["message"], refused
    assert repo.rev("HEAD") == task_head  # the commit was withdrawn
    monkeypatch.setattr(git, "commit", real_commit)
    again = driver.submit({**driver.payload(resp), "restore": ["*"]})
    assert again["success"], again
    final = driver.run(again)
    assert final["phase"] == "SESSION_COMPLETE", final
    assert "RACED" not in repo.show("main:src/app.py") and repo.rev("refs/heads/main") != main
