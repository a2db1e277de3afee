"""Stale task branches, merge (fast-forward, merge commit, conflict), detached HEAD, --clean, no repository."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from code_intel.core.errors import GitError
from code_intel.core.project import ProjectRoot
from code_intel.core.session_types import GitSessionInfo
from code_intel.git.service import GitService
from tests.git.conftest import TestRepo


def _stale_setup(repo: TestRepo) -> dict[str, str]:
    """Two interrupted sessions: HEAD is left on the second one's branch with a commit on it."""
    repo.git("checkout", "-q", "-b", "llm_task_old1_from_main")
    repo.write("old1.py", "one\n")
    heads = {"llm_task_old1_from_main": repo.commit_all("old one")}
    repo.git("checkout", "-q", "main")
    repo.git("checkout", "-q", "-b", "llm_task_old2_from_main")
    repo.write("old2.py", "two\n")
    heads["llm_task_old2_from_main"] = repo.commit_all("old two")
    return heads


def test_stale_branches_are_reported_at_session_start(repo: TestRepo) -> None:
    _stale_setup(repo)
    info = repo.service().begin_session("new")
    assert info.stale_branches == ["llm_task_old1_from_main", "llm_task_old2_from_main"]
    assert info.current_task_branch == "llm_task_old2_from_main" and info.base_branch == "main"


def test_choice_delete_discards_every_task_branch(repo: TestRepo) -> None:
    heads = _stale_setup(repo)
    repo.write("mine.txt", "user work\n")  # uncommitted user file rides along
    service = repo.service()
    info, report = service.resolve_stale_branches("delete", service.begin_session("new"))
    assert repo.branches() == ["main"] and repo.head_branch() == "main"
    assert {d.branch: d.head for d in report.deleted_branches} == heads
    assert all(d.recover.startswith("git branch llm_task_") for d in report.deleted_branches)
    assert repo.read("mine.txt") == "user work\n"
    assert info.stale_branches == [] and info.current_task_branch is None and info.branch_policy == "delete"
    # old2.py vanished with the branch switch: that is not a session change
    assert service.changed_since_snapshot(info) == []
    info = service.create_task_branch("new", info)
    assert info.task_branch == "llm_task_new_from_main"


def test_choice_merge_merges_the_current_branch_and_deletes_the_others(repo: TestRepo) -> None:
    heads = _stale_setup(repo)
    service = repo.service()
    info, report = service.resolve_stale_branches("merge", service.begin_session("new"))
    assert report.merged.branch == "llm_task_old2_from_main" and report.merged.kind == "fast-forward"
    assert repo.rev("main") == heads["llm_task_old2_from_main"]
    assert repo.branches() == ["main"] and repo.head_branch() == "main"
    assert not (repo.path / "old1.py").exists() and repo.read("old2.py") == "two\n"
    assert info.base_commit == heads["llm_task_old2_from_main"] and info.stale_branches == []


def test_choice_continue_stays_on_the_current_branch_and_creates_none(repo: TestRepo) -> None:
    heads = _stale_setup(repo)
    service = repo.service()
    info, report = service.resolve_stale_branches("continue", service.begin_session("new"))
    assert info.task_branch == "llm_task_old2_from_main" and info.branch_policy == "continue"
    assert report.kept_branches == sorted(heads)
    info = service.create_task_branch("new", info)
    assert info.task_branch == "llm_task_old2_from_main"
    assert repo.branches() == ["llm_task_old1_from_main", "llm_task_old2_from_main", "main"]
    repo.write("app.py", "continued\n")
    info, _ = service.commit(info, ["app.py"], [], "Continue the old task")
    info, report = service.merge(info)
    assert report.merged and repo.show("main:app.py") == "continued\n" and repo.show("main:old2.py") == "two\n"
    assert repo.branches() == ["llm_task_old1_from_main", "main"]


def test_merge_choice_needs_one_branch_when_head_is_not_on_one(repo: TestRepo) -> None:
    _stale_setup(repo)
    repo.git("checkout", "-q", "main")
    service = repo.service()
    info = service.begin_session("new")
    with pytest.raises(GitError, match="merge needs one task branch"):
        service.resolve_stale_branches("merge", info)
    assert len(repo.branches()) == 3


def _session_commit_then_main_moves(repo: TestRepo, session: str, ours: tuple[str, str], theirs: tuple[str, str]) -> tuple[GitService, GitSessionInfo]:
    """A session commits `ours` (file, text) on its task branch, then main commits `theirs`; back on the task branch."""
    service = repo.service()
    info = service.create_task_branch(session, service.begin_session(session))
    repo.write(*ours)
    info, _ = service.commit(info, [ours[0]], [], "Session edit")
    repo.git("checkout", "-q", "main")
    repo.write(*theirs)
    repo.commit_all("Main moved")
    repo.git("checkout", "-q", f"llm_task_{session}_from_main")
    return service, info


def test_merge_makes_a_merge_commit_when_the_base_moved(repo: TestRepo) -> None:
    service, info = _session_commit_then_main_moves(repo, "m1", ("feature.py", "feature\n"), ("other.py", "someone else\n"))
    info, report = service.merge(info)
    assert report.kind == "merge-commit" and repo.head_branch() == "main"
    assert repo.read("feature.py") == "feature\n" and repo.read("other.py") == "someone else\n"
    assert len(repo.git("rev-list", "--parents", "-n", "1", "main").split()) == 3


def test_merge_conflict_is_refused_and_the_repository_left_as_it_was(repo: TestRepo) -> None:
    service, info = _session_commit_then_main_moves(repo, "c1", ("app.py", "session version\n"), ("app.py", "main version\n"))
    repo.write("mine.txt", "user file\n")
    before = (repo.rev("main"), repo.rev("HEAD"), repo.head_branch(), repo.status(), repo.branches())
    with pytest.raises(GitError) as refused:
        service.merge(info)
    assert refused.value.details["files"] == ["app.py"]
    assert "git merge llm_task_c1_from_main" in (refused.value.hint or "")
    assert (repo.rev("main"), repo.rev("HEAD"), repo.head_branch(), repo.status(), repo.branches()) == before
    assert repo.read("app.py") == "session version\n"


def test_merge_refused_when_user_changes_stand_in_the_way_rolls_the_base_back(repo: TestRepo) -> None:
    service, info = _session_commit_then_main_moves(repo, "c2", ("feature.py", "feature\n"), ("README.md", "main moved\n"))
    repo.write("README.md", "user's uncommitted edit\n")  # switching to the merged main would overwrite it
    main_before = repo.rev("main")
    with pytest.raises(GitError) as refused:
        service.merge(info)
    assert refused.value.details["files"] == ["README.md"]
    assert repo.rev("main") == main_before and repo.head_branch() == "llm_task_c2_from_main"
    assert repo.read("README.md") == "user's uncommitted edit\n"


def test_detached_head_branches_from_the_commit_and_keeps_the_work_on_the_task_branch(repo: TestRepo) -> None:
    commit = repo.rev("HEAD")
    repo.git("checkout", "-q", "--detach", commit)
    service = repo.service()
    info = service.begin_session("d1")
    assert info.detached and info.base_branch is None and info.base_commit == commit and "detached" in info.note
    info = service.create_task_branch("d1", info)
    assert info.task_branch == f"llm_task_d1_from_{commit[:12]}"
    repo.write("app.py", "detached work\n")
    info, _ = service.commit(info, ["app.py"], [], "Work from a detached HEAD")
    info, report = service.merge(info)
    assert report.merged is False and "git merge llm_task_d1_from_" in report.note
    assert repo.head_branch() == info.task_branch and repo.rev("main") == commit
    assert repo.show(f"{info.task_branch}:app.py") == "detached work\n"


def test_cleanup_returns_to_base_and_deletes_every_task_branch(repo: TestRepo) -> None:
    heads = _stale_setup(repo)
    repo.write("mine.txt", "keep me\n")
    service = repo.service()
    service.begin_session("live")  # leaves a snapshot ref behind
    report = service.cleanup()
    assert report.returned_to == "main" and repo.head_branch() == "main"
    assert {d.branch: d.head for d in report.deleted_branches} == heads
    assert report.deleted_snapshots == 1 and repo.git("for-each-ref", "refs/code-intel/") == ""
    assert repo.branches() == ["main"] and repo.read("mine.txt") == "keep me\n"
    repo.git("branch", "restored", heads["llm_task_old1_from_main"])  # the reported head recovers the work
    assert repo.show("restored:old1.py") == "one\n"


def test_not_a_repository_runs_without_branches(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "a.py").write_text("x = 1\n", encoding="utf-8")
    service = GitService(ProjectRoot.from_args(folder))
    assert service.is_repo() is False
    info = service.begin_session("n1")
    assert info.is_repo is False and "not a git repository" in info.note
    info = service.create_task_branch("n1", info)
    assert info.task_branch is None
    assert service.changed_since_snapshot(info) == []
    assert service.review(info).is_repo is False
    assert service.commit(info, ["a.py"], [], "msg")[1].committed is False
    assert service.merge(info)[1].merged is False
    assert service.cleanup().deleted_branches == []
    assert not (folder / ".git").exists()


def test_project_in_a_subfolder_of_the_repository(repo: TestRepo) -> None:
    repo.write("pkg/mod.py", "a = 1\n")
    repo.commit_all("add pkg")
    service = repo.service(repo.path / "pkg")
    info = service.create_task_branch("sub", service.begin_session("sub"))
    repo.write("pkg/mod.py", "a = 2\n")
    repo.write("app.py", "outside the project\n")
    assert service.changed_since_snapshot(info) == ["mod.py"]
    info, report = service.commit(info, ["mod.py"], [], "Change mod")
    assert repo.git("show", "--name-only", "--format=", "HEAD").split() == ["pkg/mod.py"]


def test_a_same_size_edit_in_the_second_its_entry_was_recorded_is_seen(repo: TestRepo) -> None:
    # git compares whole seconds and trusts an entry's stat only when the file is older than the index file
    # ("racy git"). The throw-away index our snapshots use is a copy of the real one: stamped with the time of
    # copying, it made an edit of the same size, within the entry's second, look unchanged (seen as a flaky
    # test under load). Built here on purpose: same size, same mtime, the index stamped in that second.
    repo.git("config", "core.trustctime", "false")  # a rewrite changes ctime, which git would otherwise see
    repo.write("pkg/mod.py", "a = 1\n")
    target = repo.path / "pkg" / "mod.py"
    recorded = target.stat().st_mtime_ns - 10 * 10**9  # seconds before any index file written below
    os.utime(target, ns=(recorded, recorded))
    repo.commit_all("add pkg")  # the entry records that mtime and size
    service = repo.service(repo.path / "pkg")
    info = service.create_task_branch("racy", service.begin_session("racy"))
    target.write_text("a = 2\n", encoding="utf-8")  # same size, same inode
    os.utime(target, ns=(recorded, recorded))  # same second as recorded (git ignores nanoseconds)
    index = repo.path / ".git" / "index"
    os.utime(index, ns=(recorded, recorded))  # the real index written in that second too: the entry is racy
    assert service.changed_since_snapshot(info) == ["mod.py"]


def test_no_commit_yet_is_refused_at_branch_creation(tmp_path: Path) -> None:
    folder = tmp_path / "fresh"
    folder.mkdir()
    TestRepo(folder).git("init", "-q", "-b", "main")
    service = GitService(ProjectRoot.from_args(folder))
    info = service.begin_session("e1")
    assert info.base_commit is None and "no commit yet" in info.note
    with pytest.raises(GitError, match="no commit yet"):
        service.create_task_branch("e1", info)


def test_an_unfinished_merge_is_noted_at_session_start(repo: TestRepo) -> None:
    repo.git("checkout", "-q", "-b", "side")
    repo.write("app.py", "side\n")
    repo.commit_all("side edit")
    repo.git("checkout", "-q", "main")
    repo.write("app.py", "main\n")
    repo.commit_all("main edit")
    repo.git("merge", "side", check=False)  # conflicts: MERGE_HEAD is left behind
    info = repo.service().begin_session("u1")
    assert "MERGE_HEAD" in info.note and info.snapshot
