"""The server's own git runs nothing the repository's settings name: no hooks, no fsmonitor, no foreign filters.

An agent that can run `git config` could otherwise make the server's next `git checkout` or `git add`
run its script (#39). git-lfs's own filter commands are kept, so LFS files are still stored as pointers.
"""

from __future__ import annotations

from pathlib import Path

from code_intel.git.runner import GitRunner
from tests.git.conftest import TestRepo, init_repo


def _script(folder: Path, name: str, marker: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text(f"#!/bin/sh\ntouch {marker}\ncat\n", encoding="utf-8")
    script.chmod(0o755)
    return script


def test_hooks_set_by_the_agent_never_run_through_the_server(tmp_path: Path) -> None:
    repo: TestRepo = init_repo(tmp_path / "repo")
    marker = tmp_path / "hook-ran"
    hooks = tmp_path / "evil-hooks"
    for name in ("post-checkout", "pre-commit", "reference-transaction"):
        _script(hooks, name, marker)
    repo.git("config", "core.hooksPath", str(hooks))
    repo.git("checkout", "-q", "-b", "probe")  # git itself runs the hook: the setup works
    assert marker.exists()
    marker.unlink()
    runner = GitRunner(repo.path)
    runner.run(["checkout", "-q", "-b", "by-the-server"])
    runner.run(["update-ref", "refs/heads/other", "HEAD"])
    assert not marker.exists()


def test_a_clean_filter_set_during_the_session_is_switched_off_and_lfs_is_kept(tmp_path: Path) -> None:
    repo: TestRepo = init_repo(tmp_path / "repo")
    marker = tmp_path / "filter-ran"
    script = _script(tmp_path / "bin", "clean.sh", marker)
    repo.write(".gitattributes", "*.txt filter=evil\n")
    repo.git("config", "filter.evil.clean", str(script))
    repo.git("config", "filter.lfs.process", "git-lfs filter-process")
    repo.write("a.txt", "hello\n")
    runner = GitRunner(repo.path)
    blob = runner.text("hash-object", "--path", "a.txt", "--", str(repo.path / "a.txt"))
    runner.run(["add", "a.txt"])
    assert not marker.exists()
    assert runner.text("ls-files", "-s", "a.txt").split()[1] == blob
    guard = " ".join(runner.guard_args())
    assert "filter.evil.clean=" in guard and "filter.lfs" not in guard
    repo.write("a.txt", "hello again\n")  # changed content: git's own add cannot take the index entry as clean
    repo.git("add", "a.txt")  # git itself runs it: the setup works
    assert marker.exists()
