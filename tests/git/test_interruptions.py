"""Every git step survives being cut short: a crash at any fault point, then the same step again
from the state the checkpoint had, ends exactly where an uninterrupted session ends.

A crash is simulated in process by raising a BaseException at the fault point (no `except` in the
git layer catches it, so nothing is rolled back, as with SIGKILL); tests/reliability kills a real
server at the same points.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from code_intel.core import faults
from code_intel.core.session_types import GitSessionInfo
from code_intel.git.service import GitService
from tests.git.conftest import TestRepo, dirty_user_tree


class SimulatedCrash(BaseException):
    pass


@contextmanager
def crash_at(monkeypatch: pytest.MonkeyPatch, point: str) -> Iterator[list[str]]:
    reached: list[str] = []

    def hit(name: str) -> None:
        reached.append(name)
        if name == point:
            raise SimulatedCrash(name)

    monkeypatch.setattr(faults, "hit", hit)
    try:
        with pytest.raises(SimulatedCrash):
            yield reached
    finally:
        monkeypatch.undo()


def _session_edit(repo: TestRepo) -> None:
    repo.write("app.py", repo.read("app.py").replace("return 1", "return 10"))
    repo.write("feature.py", "def feature():\n    return 3\n")


def _assert_finished(repo: TestRepo, user_status: str) -> None:
    assert repo.head_branch() == "main" and repo.branches() == ["main"]
    assert "return 10" in repo.show("main:app.py") and "def feature" in repo.show("main:feature.py")
    assert repo.status() == user_status, "the user's own work is exactly as it was"
    assert repo.read("notes/untracked.md") == "user notes\n"
    assert repo.git("for-each-ref", "refs/code-intel/") == ""


def _to_commit(service: GitService, repo: TestRepo) -> GitSessionInfo:
    info = service.create_task_branch("s1", service.begin_session("s1"))
    _session_edit(repo)
    return info


COMMIT = (["app.py", "feature.py"], [], "Return ten and add feature")


def test_branch_creation_interrupted_is_taken_up_again(repo: TestRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    user = dirty_user_tree(repo)
    info = repo.service().begin_session("s1")
    with crash_at(monkeypatch, "git.branch.after_create"):
        repo.service().create_task_branch("s1", info)
    assert repo.head_branch() == "llm_task_s1_from_main"  # created, but the checkpoint never heard of it
    service = repo.service()
    again = service.create_task_branch("s1", info)  # before the fix: "HEAD moved since the session started"
    assert again.task_branch == "llm_task_s1_from_main"
    _session_edit(repo)
    again, _ = service.commit(again, *COMMIT)
    service.merge(again)
    _assert_finished(repo, user)


@pytest.mark.parametrize("point", ["git.commit.after_discard", "git.commit.after_index", "git.commit.after_ref"])
def test_commit_interrupted_then_repeated(repo: TestRepo, monkeypatch: pytest.MonkeyPatch, point: str) -> None:
    user = dirty_user_tree(repo)
    info = _to_commit(repo.service(), repo)
    with crash_at(monkeypatch, point):
        repo.service().commit(info, *COMMIT)
    service = repo.service()
    after, report = service.commit(info, *COMMIT)
    assert report.committed is True and len(after.commits) == 1
    assert repo.git("log", "--format=%s", "main..HEAD").splitlines() == ["Return ten and add feature"]
    service.merge(after)
    _assert_finished(repo, user)


@pytest.mark.parametrize("point", ["git.merge.after_move", "git.merge.after_land", "git.merge.after_delete"])
@pytest.mark.parametrize("base_moved", [False, True], ids=["fast-forward", "merge-commit"])
def test_merge_interrupted_then_repeated(repo: TestRepo, monkeypatch: pytest.MonkeyPatch, point: str,
                                         base_moved: bool) -> None:
    user = dirty_user_tree(repo)
    service = repo.service()
    info = _to_commit(service, repo)
    info, _ = service.commit(info, *COMMIT)
    if base_moved:  # someone committed on main meanwhile: the merge makes a merge commit
        repo.git("update-ref", "refs/heads/main", repo.git("commit-tree", "-p", "main", "-m", "other",
                                                          repo.rev("main^{tree}")).strip())
    with crash_at(monkeypatch, point):
        repo.service().merge(info)
    # before the fix, after_delete answered "task branch ... no longer exists" on every retry
    after, report = repo.service().merge(info)
    assert report.merged is True and after.task_branch is None
    _assert_finished(repo, user)
    if base_moved:
        assert repo.git("log", "-1", "--format=%s", "main").startswith("Merge llm_task_s1_from_main")


@pytest.mark.parametrize("point", ["git.clean.after_leave", "git.branches.after_delete", "git.clean.after_snapshots"])
def test_clean_interrupted_then_repeated(repo: TestRepo, monkeypatch: pytest.MonkeyPatch, point: str) -> None:
    user = dirty_user_tree(repo)
    service = repo.service()
    info = _to_commit(service, repo)
    service.commit(info, *COMMIT)
    repo.git("branch", "llm_task_old_from_main", "main")
    with crash_at(monkeypatch, point):
        repo.service().cleanup()
    report = repo.service().cleanup()
    assert repo.head_branch() == "main" and repo.branches() == ["main"]
    assert repo.git("for-each-ref", "refs/code-intel/") == ""
    assert repo.status() == user
    assert isinstance(report.deleted_branches, list)


def test_interrupted_start_leaves_a_snapshot_that_is_pruned(repo: TestRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    with crash_at(monkeypatch, "git.snapshot.after_ref"):
        repo.service().begin_session("lost")
    assert "refs/code-intel/snapshots/lost" in repo.git("for-each-ref", "refs/code-intel/")
    service = repo.service()
    assert service.prune_snapshots(keep={"kept"}) == ["lost"]
    assert repo.git("for-each-ref", "refs/code-intel/") == ""


def test_reconcile_puts_head_back_on_the_task_branch_after_an_interrupted_clean(
        repo: TestRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    service = repo.service()
    info = _to_commit(service, repo)
    info, _ = service.commit(info, *COMMIT)
    repo.write("extra.py", "# more session work, uncommitted\n")
    with crash_at(monkeypatch, "git.clean.after_leave"):
        repo.service().cleanup()
    assert repo.head_branch() == "main"
    fixed, notes = repo.service().reconcile("s1", info, on_task_branch=True)
    assert repo.head_branch() == "llm_task_s1_from_main" and notes
    assert "more session work" in repo.read("extra.py") and "return 10" in repo.read("app.py")
    assert fixed.task_branch == "llm_task_s1_from_main"


def test_reconcile_recreates_a_deleted_task_branch_at_the_last_commit(repo: TestRepo) -> None:
    service = repo.service()
    info = _to_commit(service, repo)
    info, _ = service.commit(info, *COMMIT)
    service.cleanup()  # finished: the branch and the snapshot ref are gone, HEAD is on main
    fixed, notes = repo.service().reconcile("s1", info, on_task_branch=True)
    assert repo.head_branch() == "llm_task_s1_from_main"
    assert repo.rev("HEAD") == info.commits[-1]
    assert any("recreated" in n for n in notes) and any("snapshot" in n for n in notes)
    after, report = repo.service().merge(fixed)
    assert report.merged is True and "return 10" in repo.show("main:app.py")


def test_merge_of_a_branch_deleted_by_clean_is_merged_from_its_commits(repo: TestRepo) -> None:
    service = repo.service()
    info = _to_commit(service, repo)
    info, _ = service.commit(info, *COMMIT)
    repo.git("checkout", "-q", "main")
    repo.git("branch", "-D", "llm_task_s1_from_main")
    after, report = repo.service().merge(info)
    assert report.merged is True and "return 10" in repo.show("main:app.py")
    assert repo.branches() == ["main"]


def test_every_fault_point_is_reached_by_a_whole_session(repo: TestRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    reached: list[str] = []
    monkeypatch.setattr(faults, "hit", reached.append)
    service = repo.service()
    info = _to_commit(service, repo)
    info, _ = service.commit(info, *COMMIT)
    service.merge(info)
    repo.git("branch", "llm_task_old_from_main", "main")
    service.cleanup()
    expected = {"git.snapshot.after_ref", "git.branch.after_create", "git.commit.after_discard", "git.commit.after_index",
                "git.commit.after_ref", "git.merge.after_move", "git.merge.after_land", "git.merge.after_delete",
                "git.clean.after_leave", "git.branches.after_delete", "git.clean.after_snapshots"}
    assert expected <= set(reached)


