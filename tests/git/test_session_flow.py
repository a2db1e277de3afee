"""A whole session on a real repository: the user's own uncommitted work is never touched."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from code_intel.core.errors import GitError, InvalidArgument, PathOutsideProject
from tests.git.conftest import TestRepo, dirty_user_tree


def test_dirty_tree_survives_a_whole_session(repo: TestRepo) -> None:
    before = dirty_user_tree(repo)
    staged_diff = repo.git("diff", "--cached")
    service = repo.service()

    info = service.begin_session("s1")
    assert info.is_repo and info.base_branch == "main" and info.stale_branches == []
    info = service.create_task_branch("s1", info)
    assert info.task_branch == "llm_task_s1_from_main"
    assert repo.head_branch() == "llm_task_s1_from_main"
    assert repo.status() == before  # switching to the task branch carried everything along

    repo.write("app.py", repo.read("app.py").replace("return 1", "return 10"))
    repo.write("feature.py", "def feature():\n    return 3\n")
    assert sorted(service.changed_since_snapshot(info)) == ["app.py", "feature.py"]
    # what the user had changed when the session began: staged, unstaged and untracked, not the session's edits
    assert sorted(service.changed_at_start(info)) == ["README.md", "notes/untracked.md", "staged.txt"]

    review = service.review(info)
    assert [(f.file, f.status) for f in review.files] == [("app.py", "modified"), ("feature.py", "added")]
    assert "return 10" in review.diff and "user edit" not in review.diff

    info, report = service.commit(info, ["app.py", "feature.py"], [], "Return ten and add feature")
    assert report.committed and report.committed_files == ["app.py", "feature.py"]
    committed = repo.git("show", "--name-only", "--format=", "HEAD").split()
    assert committed == ["app.py", "feature.py"]
    assert repo.status() == before  # session files are committed; the user's are as they were
    assert repo.git("diff", "--cached") == staged_diff

    info, report = service.merge(info)
    assert report.merged and report.kind == "fast-forward"
    assert repo.head_branch() == "main" and repo.branches() == ["main"]
    assert "return 10" in repo.show("main:app.py")
    assert repo.status() == before
    assert repo.git("diff", "--cached") == staged_diff
    assert repo.read("notes/untracked.md") == "user notes\n"
    assert repo.git("for-each-ref", "refs/code-intel/") == ""  # the snapshot ref is gone with the session


def test_base_branch_not_named_main(make_repo: Callable[..., TestRepo]) -> None:
    repo = make_repo(branch="trunk")
    service = repo.service()
    info = service.create_task_branch("t9", service.begin_session("t9"))
    assert info.task_branch == "llm_task_t9_from_trunk"
    repo.write("app.py", "changed\n")
    info, _ = service.commit(info, ["app.py"], [], "Change app")
    info, report = service.merge(info)
    assert report.base_branch == "trunk" and repo.head_branch() == "trunk"
    assert repo.read("app.py") == "changed\n" and repo.show("trunk:app.py") == "changed\n"


def test_code_intel_folder_never_counts_nor_is_committed(repo: TestRepo) -> None:
    service = repo.service()
    info = service.create_task_branch("s2", service.begin_session("s2"))
    repo.write(".code-intel/sessions/s2.json", "{}")
    repo.write(".code-intel/config.json", "{}")
    assert service.changed_since_snapshot(info) == []
    with pytest.raises(InvalidArgument):
        service.commit(info, [".code-intel/config.json"], [], "Sneak state in")


def test_discarded_files_go_back_to_how_they_were_at_session_start(repo: TestRepo) -> None:
    repo.write("README.md", "# sample\nuser edit before the session\n")
    service = repo.service()
    info = service.create_task_branch("s3", service.begin_session("s3"))
    repo.write("README.md", "session scribbles\n")
    repo.write("scratch.tmp", "junk\n")
    repo.write("app.py", "kept\n")
    repo.git("add", "scratch.tmp")  # the agent staged its scratch file

    info, report = service.commit(info, ["app.py"], ["README.md", "scratch.tmp"], "Keep app change")
    assert sorted(report.discarded_files) == ["README.md", "scratch.tmp"]
    assert repo.read("README.md") == "# sample\nuser edit before the session\n"  # the user's edit, not the base
    assert not (repo.path / "scratch.tmp").exists()
    assert repo.git("ls-files", "scratch.tmp") == ""  # unstaged again
    assert service.changed_since_snapshot(info) == ["app.py"]


def test_user_edit_in_a_file_the_session_also_edits_stays_uncommitted(repo: TestRepo) -> None:
    repo.write("app.py", repo.read("app.py").replace("return 2", "return 2  # user's note"))
    service = repo.service()
    info = service.create_task_branch("s4", service.begin_session("s4"))
    repo.write("app.py", repo.read("app.py").replace("return 1", "return 100"))

    info, report = service.commit(info, ["app.py"], [], "Return a hundred")
    assert report.kept_user_edits == ["app.py"]
    committed = repo.show("HEAD:app.py")
    assert "return 100" in committed and "user's note" not in committed
    assert "user's note" in repo.read("app.py") and "return 100" in repo.read("app.py")
    assert repo.git("diff", "--cached") == ""  # the index follows the commit, the user's edit stays unstaged
    assert "+    return 2  # user's note" in repo.git("diff")


def test_overlapping_user_and_session_edits_are_refused_not_committed(repo: TestRepo) -> None:
    repo.write("app.py", repo.read("app.py").replace("return 1", "return 'user'"))
    service = repo.service()
    info = service.create_task_branch("s5", service.begin_session("s5"))
    repo.write("app.py", repo.read("app.py").replace("return 'user'", "return 'session'"))
    head = repo.rev("HEAD")
    before = repo.status()
    with pytest.raises(GitError) as refused:
        service.commit(info, ["app.py"], [], "Mixed change")
    assert refused.value.details["files"] == ["app.py"]
    assert repo.rev("HEAD") == head and repo.status() == before
    assert "return 'session'" in repo.read("app.py")


def test_commit_refuses_paths_outside_the_project(repo: TestRepo) -> None:
    service = repo.service()
    info = service.create_task_branch("s6", service.begin_session("s6"))
    with pytest.raises(PathOutsideProject):
        service.commit(info, ["../elsewhere.py"], [], "Escape")


def test_commit_refuses_when_head_left_the_task_branch(repo: TestRepo) -> None:
    service = repo.service()
    info = service.create_task_branch("s7", service.begin_session("s7"))
    repo.git("checkout", "-q", "main")
    repo.write("app.py", "x\n")
    with pytest.raises(GitError, match="llm_task_s7_from_main"):
        service.commit(info, ["app.py"], [], "Wrong branch")
    assert repo.git("log", "--format=%s", "main") == "initial\n"


def test_follow_up_commits_after_a_quality_revert(repo: TestRepo) -> None:
    service = repo.service()
    info = service.create_task_branch("s8", service.begin_session("s8"))
    repo.write("app.py", "first\n")
    info, _ = service.commit(info, ["app.py"], [], "First pass")
    info = service.create_task_branch("s8", info)  # READY again after QUALITY_REVIEW sent it back
    assert info.task_branch == "llm_task_s8_from_main"
    repo.write("app.py", "second\n")
    review = service.review(info)
    assert review.files[0].in_branch_commits is True
    info, report = service.commit(info, ["app.py"], [], "Fix review findings")
    assert len(info.commits) == 2
    assert repo.git("log", "--format=%s", "main..HEAD").split("\n")[:2] == ["Fix review findings", "First pass"]
    info, report = service.merge(info)
    assert repo.show("main:app.py") == "second\n"


def test_user_staged_edit_in_a_file_the_session_commits_stays_staged(repo: TestRepo) -> None:
    repo.write("app.py", repo.read("app.py").replace("return 2", "return 22"))
    repo.git("add", "app.py")
    service = repo.service()
    info = service.create_task_branch("s9", service.begin_session("s9"))
    repo.write("app.py", repo.read("app.py").replace("return 1", "return 100"))
    info, report = service.commit(info, ["app.py"], [], "Return a hundred")
    assert report.kept_user_edits == ["app.py"] and report.warnings == []
    assert "return 22" not in repo.show("HEAD:app.py")
    staged = repo.git("diff", "--cached")
    assert "+    return 22" in staged and "return 100" not in staged  # still staged: only the user's change
    assert repo.git("diff") == ""  # and nothing of the session is left unstaged


def test_session_deletes_and_renames_are_committed_as_such(repo: TestRepo) -> None:
    service = repo.service()
    info = service.create_task_branch("s10", service.begin_session("s10"))
    (repo.path / "README.md").unlink()
    (repo.path / "app.py").rename(repo.path / "main_app.py")
    assert sorted(service.changed_since_snapshot(info)) == ["README.md", "app.py", "main_app.py"]
    statuses = {f.file: f.status for f in service.review(info).files}
    assert statuses == {"README.md": "deleted", "app.py": "deleted", "main_app.py": "added"}
    info, report = service.commit(info, ["README.md", "app.py", "main_app.py"], [], "Rename app, drop readme")
    assert repo.git("ls-tree", "--name-only", "HEAD").split() == ["main_app.py"]
    assert repo.status() == ""


def test_a_repository_without_a_commit_identity_is_told_at_start(repo: TestRepo) -> None:
    """git needs user.name and user.email to commit: without them, PRE_COMMIT's commit would fail after all the
    work. The session's start says so; the snapshot (code-intel's own identity) still works."""
    assert "git does not know who commits" not in repo.service().begin_session("s1").note
    repo.git("config", "--unset", "user.name")
    repo.git("config", "--unset", "user.email")
    repo.git("config", "user.useConfigOnly", "true")  # no guessing from the host name either
    info = repo.service().begin_session("s2")
    assert info.snapshot and "git does not know who commits here" in info.note and "user.email" in info.note
