from __future__ import annotations

from pathlib import Path

import pytest

from code_intel.core.errors import FileNotFound, InvalidArgument, PathOutsideProject
from code_intel.core.project import ENV_PROJECT, ProjectRoot, resolve_root


@pytest.fixture
def layout(tmp_path: Path) -> tuple[ProjectRoot, Path]:
    """A project with src/app.py, and a sibling folder outside it holding secret.txt."""
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("x = 1\n", encoding="utf-8")
    outside = tmp_path / "proj2"
    outside.mkdir()
    (outside / "secret.txt").write_text("s", encoding="utf-8")
    return ProjectRoot.from_args(root), outside


def test_root_precedence_flag_then_env_then_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    flag, env, cwd = (tmp_path / name for name in ("flag", "env", "cwd"))
    for folder in (flag, env, cwd):
        folder.mkdir()
    monkeypatch.chdir(cwd)
    assert resolve_root() == cwd.resolve()
    monkeypatch.setenv(ENV_PROJECT, str(env))
    assert resolve_root() == env.resolve()
    assert resolve_root(str(flag)) == flag.resolve()


def test_root_must_be_an_existing_folder(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgument, match="not a directory") as caught:
        resolve_root(tmp_path / "missing")
    assert "--project" in (caught.value.hint or "")
    (tmp_path / "file").write_text("", encoding="utf-8")
    with pytest.raises(InvalidArgument):
        resolve_root(tmp_path / "file")


def test_root_given_through_a_symlink_is_stored_resolved(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    root = ProjectRoot.from_args(tmp_path / "link")
    assert root.path == real.resolve()
    assert root.resolve("a.py") == real.resolve() / "a.py"
    assert root.relative(tmp_path / "link" / "a.py") == "a.py"


@pytest.mark.parametrize("path", ["src/app.py", "./src/../src/app.py", "src//app.py"])
def test_paths_inside_resolve_to_absolute(layout: tuple[ProjectRoot, Path], path: str) -> None:
    root, _ = layout
    resolved = root.resolve(path, must_exist=True)
    assert resolved == root.path / "src" / "app.py"
    assert root.relative(resolved) == "src/app.py"


def test_the_root_itself_and_absolute_paths_inside_are_allowed(layout: tuple[ProjectRoot, Path]) -> None:
    root, _ = layout
    assert root.resolve(".") == root.path
    assert root.resolve(str(root.path / "src")) == root.path / "src"
    assert root.resolve("new/file.py") == root.path / "new" / "file.py"  # may not exist yet


@pytest.mark.parametrize("path", ["../proj2/secret.txt", "src/../../proj2/secret.txt", "/etc/passwd", "~", ".."])
def test_paths_escaping_the_root_are_refused(layout: tuple[ProjectRoot, Path], path: str) -> None:
    root, _ = layout
    with pytest.raises(PathOutsideProject) as caught:
        root.resolve(path)
    assert caught.value.code == "path_outside_project"
    assert str(root.path) in caught.value.message and caught.value.hint


def test_sibling_with_a_shared_name_prefix_is_outside(layout: tuple[ProjectRoot, Path]) -> None:
    root, outside = layout
    assert not root.contains(outside / "secret.txt")  # /x/proj2 must not count as inside /x/proj
    with pytest.raises(PathOutsideProject):
        root.resolve(str(outside / "secret.txt"))


def test_symlink_leading_outside_is_refused(layout: tuple[ProjectRoot, Path]) -> None:
    root, outside = layout
    (root.path / "escape").symlink_to(outside)
    (root.path / "src" / "leak.txt").symlink_to(outside / "secret.txt")
    with pytest.raises(PathOutsideProject):
        root.resolve("escape/secret.txt")
    with pytest.raises(PathOutsideProject):
        root.resolve("src/leak.txt")
    with pytest.raises(PathOutsideProject):
        root.resolve("escape/not-yet-created.py")


def test_symlink_staying_inside_is_allowed(layout: tuple[ProjectRoot, Path]) -> None:
    root, _ = layout
    (root.path / "current").symlink_to(root.path / "src")
    assert root.resolve("current/app.py", must_exist=True) == root.path / "src" / "app.py"


def test_symlink_loop_is_refused_or_missing_not_a_crash(layout: tuple[ProjectRoot, Path]) -> None:
    root, _ = layout
    (root.path / "loop_a").symlink_to(root.path / "loop_b")
    (root.path / "loop_b").symlink_to(root.path / "loop_a")
    with pytest.raises((FileNotFound, PathOutsideProject)):
        root.resolve("loop_a", must_exist=True)


def test_missing_file_with_must_exist(layout: tuple[ProjectRoot, Path]) -> None:
    root, _ = layout
    with pytest.raises(FileNotFound) as caught:
        root.resolve("src/nope.py", must_exist=True, kind="file_path")
    assert caught.value.message.startswith("file_path 'src/nope.py'")
    assert "search_files" in (caught.value.hint or "")


@pytest.mark.parametrize(("value", "needle"), [("", "empty"), ("   ", "empty"), ("a\x00b", "NUL"),
                                              (None, "must be a string"), (5, "must be a string"),
                                              (b"src", "must be a string")])
def test_malformed_paths_are_invalid_arguments(layout: tuple[ProjectRoot, Path], value: object, needle: str) -> None:
    root, _ = layout
    with pytest.raises(InvalidArgument, match=needle):
        root.resolve(value)  # type: ignore[arg-type]


def test_runtime_dir_is_created_and_ignores_itself(project: ProjectRoot) -> None:
    folder = project.runtime_dir("logs")
    assert folder == project.path / ".code-intel" / "logs" and folder.is_dir()
    marker = folder / ".gitignore"
    assert marker.read_text(encoding="utf-8").splitlines()[-1] == "*"
    marker.write_text("custom\n", encoding="utf-8")
    project.runtime_dir("logs")
    assert marker.read_text(encoding="utf-8") == "custom\n"


def test_relative_of_a_relative_path_is_posix(project: ProjectRoot) -> None:
    assert project.relative(Path("a") / "b.py") == "a/b.py"
    assert project.relative(project.path / "a" / "b.py") == "a/b.py"
