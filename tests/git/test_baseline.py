"""What a file held when the session started, in a real repository and in a plain folder, and the
changed-line ranges evidence is judged against."""

from __future__ import annotations

from pathlib import Path

from code_intel.core.project import ProjectRoot
from code_intel.git.service import GitService
from code_intel.workflow.changes import changed_ranges, removed_after

from .conftest import APP, TestRepo


def test_repository_baseline_is_the_snapshot_not_head(repo: TestRepo) -> None:
    repo.write("app.py", APP + "\n# user's own uncommitted edit\n")
    service = repo.service()
    info = service.begin_session("s1")
    repo.write("app.py", APP + "\n# user's own uncommitted edit\n\ndef session():\n    return 3\n")
    repo.write("new.py", "X = 1\n")
    base = service.baseline(info, "app.py")
    assert base.known and base.text is not None and "user's own uncommitted edit" in base.text
    lines = repo.read("app.py").splitlines()
    assert changed_ranges(base.text, lines) == [(len(lines) - 2, len(lines))]  # the user's edit is not the session's
    new = service.baseline(info, "new.py")
    assert new.known and new.text is None
    service.remember_baseline(info, ["app.py"])  # nothing to do in a repository
    assert not (repo.path / ".code-intel" / "sessions" / "s1.baseline").exists()


def test_snapshot_when_the_repository_ignores_code_intel(repo: TestRepo) -> None:
    """`.code-intel/` in .gitignore: naming it in an exclude pathspec would make `git add` fail."""
    repo.write(".gitignore", ".code-intel/\n*.log\n")
    repo.commit_all("ignore the state folder")
    repo.write(".code-intel/config.json", "{}\n")
    service = repo.service()
    info = service.begin_session("s3")
    repo.write("app.py", APP + "\n\ndef added():\n    return 3\n")
    repo.write(".code-intel/notes.md", "state, never a change\n")
    repo.write("run.log", "ignored\n")
    assert service.changed_since_snapshot(info) == ["app.py"]
    assert service.working_changes() == ["app.py"]
    ignored = service.baseline(info, "run.log")
    assert ignored.known and ignored.text is None and ignored.ignored
    assert not service.baseline(info, "app.py").ignored


def test_ready_snapshot_keeps_the_content_at_ready_in_a_repository(repo: TestRepo) -> None:
    service = repo.service()
    info = service.begin_session("s4")
    repo.write("app.py", APP + "\n# before READY\n")
    info = service.snapshot_at_ready("s4", info, ["app.py", "gone.py"])
    assert info.ready_snapshot == "s4"
    repo.write("app.py", APP + "\n# before READY\n# in READY\n")
    assert service.ready_baseline(info, "app.py").text == APP + "\n# before READY\n"
    gone = service.ready_baseline(info, "gone.py")
    assert gone.known and gone.text is None  # did not exist at READY
    assert not service.ready_baseline(info, "other.py").known
    info = service.snapshot_at_ready("s4", info, ["other.py"])  # taken again: replaces the earlier record
    assert not service.ready_baseline(info, "app.py").known
    service.end_session(info)
    assert not (repo.path / ".code-intel" / "sessions" / "s4.ready.baseline").exists()


def test_plain_folder_content_snapshot(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "a.py").write_text("def a():\n    return 1\n", encoding="utf-8")
    service = GitService(ProjectRoot.from_args(folder))
    info = service.begin_session("s2")
    assert not info.is_repo and info.content_baseline == "s2"
    assert not service.baseline(info, "a.py").known  # never explored or asked about
    service.remember_baseline(info, ["a.py", "b.py"])
    (folder / "a.py").write_text("def a():\n    return 1\n\n\ndef b():\n    return 2\n", encoding="utf-8")
    (folder / "b.py").write_text("B = 1\n", encoding="utf-8")
    service.remember_baseline(info, ["a.py"])  # already recorded: the later content does not replace it
    assert service.baseline(info, "a.py").text == "def a():\n    return 1\n"
    assert service.baseline(info, "b.py") == service.baseline(info, "b.py") and service.baseline(info, "b.py").text is None
    assert service.changed_since_snapshot(info) == ["a.py", "b.py"]
    service.end_session(info)
    assert not (folder / ".code-intel" / "sessions" / "s2.baseline").exists()


def test_changed_ranges() -> None:
    old = "a\nb\nc\n"
    assert changed_ranges(old, ["a", "b", "c"]) == []
    assert changed_ranges(old, ["a", "B", "c", "d", "e"]) == [(2, 2), (4, 5)]
    assert changed_ranges(None, ["x", "y"]) == [(1, 2)]
    assert changed_ranges(old, ["a", "c"]) == []  # a pure deletion leaves no new line to point at ...
    assert removed_after(old, ["a", "c"]) == [1]  # ... but where it was: after new line 1
    assert removed_after(old, ["b", "c"]) == [0] and removed_after(old, ["a", "B", "c"]) == []  # a top; a replacement
    assert removed_after(None, ["x"]) == []
