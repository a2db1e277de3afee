from __future__ import annotations

import pytest

from code_intel.core.errors import InvalidArgument
from code_intel.core.project import ProjectRoot
from code_intel.explore.write_rules import evaluate_write


@pytest.fixture
def tree(project: ProjectRoot) -> ProjectRoot:
    for rel in ("src/auth.py", "src/util.py", "web/index.html", "web/site.css", "web/app.tsx", "docs/guide.md"):
        file = project.path / rel
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text("x = 1\n", encoding="utf-8")
    (project.path / ".git").mkdir()
    (project.path / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    return project


def _write(root: ProjectRoot, path: str, *, in_ready: bool = True, explored: set[str] | None = None, relaxed: bool = False) -> tuple[bool, str, str]:
    decision = evaluate_write(root, path, in_ready=in_ready, explored=explored or set(), relaxed=relaxed)
    return decision.allowed, decision.reason, decision.file


def test_explored_file_is_allowed_in_ready(tree: ProjectRoot) -> None:
    allowed, reason, file = _write(tree, "src/auth.py", explored={"src/auth.py"})
    assert allowed and file == "src/auth.py" and "explored" in reason
    # explored entries written as './x', absolute paths or with backslashes still count
    assert _write(tree, "src/auth.py", explored={"./src/auth.py"})[0]
    assert _write(tree, "src/auth.py", explored={str(tree.path / "src" / "auth.py")})[0]
    assert _write(tree, str(tree.path / "src" / "auth.py"), explored={"src\\auth.py"})[0]


def test_unexplored_file_is_refused_with_what_to_do(tree: ProjectRoot) -> None:
    allowed, reason, _ = _write(tree, "src/util.py", explored={"src/auth.py"})
    assert not allowed
    assert "add_explored_files(['src/util.py'])" in reason


def test_writes_outside_ready_are_refused(tree: ProjectRoot) -> None:
    allowed, reason, _ = _write(tree, "src/auth.py", in_ready=False, explored={"src/auth.py"}, relaxed=True)
    assert not allowed and "READY" in reason


def test_new_file_beside_explored_files_is_allowed(tree: ProjectRoot) -> None:
    assert _write(tree, "src/session.py", explored={"src/auth.py"})[0]
    assert _write(tree, "src/sub/new/mod.py", explored={"src/auth.py"})[0]  # folders not created yet
    allowed, reason, _ = _write(tree, "lib/new.py", explored={"src/auth.py"})
    assert not allowed and "add_explored_files" in reason


def test_pure_markup_is_relaxed_but_logic_templates_are_not(tree: ProjectRoot) -> None:
    for markup in ("web/index.html", "web/site.css", "docs/guide.md", "web/new.scss"):
        allowed, reason, _ = _write(tree, markup)
        assert allowed, markup
        assert "markup" in reason
    for logic in ("web/app.tsx", "web/view.vue", "resources/page.blade.php", "web/comp.jsx"):
        assert not _write(tree, logic)[0], logic


def test_relaxed_sessions_may_write_any_project_file(tree: ProjectRoot) -> None:
    allowed, reason, _ = _write(tree, "lib/brand_new.py", relaxed=True)
    assert allowed and "--fast" in reason


@pytest.mark.parametrize("path", ["../elsewhere.py", "/etc/passwd", "src/../../x.py"])
def test_paths_outside_the_project_are_refused(tree: ProjectRoot, path: str) -> None:
    allowed, reason, _ = _write(tree, path, relaxed=True)
    assert not allowed and "outside the project" in reason


def test_symlinks_out_of_the_project_are_refused(tree: ProjectRoot) -> None:
    outside = tree.path.parent / "outside"
    outside.mkdir()
    (outside / "target.py").write_text("x = 1\n", encoding="utf-8")
    (tree.path / "src" / "link.py").symlink_to(outside / "target.py")
    (tree.path / "linked_dir").symlink_to(outside)
    assert not _write(tree, "src/link.py", explored={"src/link.py"}, relaxed=True)[0]
    assert not _write(tree, "linked_dir/new.py", relaxed=True)[0]


@pytest.mark.parametrize("path", [".git/config", ".git/hooks/pre-commit", ".code-intel/config.json", "sub/.git/HEAD"])
def test_git_and_state_folders_are_never_writable(tree: ProjectRoot, path: str) -> None:
    allowed, reason, _ = _write(tree, path, explored={path}, relaxed=True)
    assert not allowed and "edit project files only" in reason


def test_folders_and_empty_paths(tree: ProjectRoot) -> None:
    allowed, reason, _ = _write(tree, "src", relaxed=True)
    assert not allowed and "folder" in reason
    with pytest.raises(InvalidArgument):
        _write(tree, "  ")
