"""File selection: .gitignore, exclude patterns, source_dirs and size limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_intel.core.config import Config
from code_intel.core.errors import InvalidArgument, PathOutsideProject
from code_intel.core.project import ProjectRoot
from code_intel.index.files import list_source_files
from tests.conftest import write_files


def _write(root: Path, rel: str, text: str = "x = 1\n") -> None:
    write_files(root, {rel: text})


def test_gitignore_excludes_and_size_limit_are_respected(git_project: Path) -> None:
    _write(git_project, "src/app.py")
    _write(git_project, "src/ignored_by_git.py")
    _write(git_project, "node_modules/lib/index.js")
    _write(git_project, "src/data.bin")
    _write(git_project, "src/big.py", "x = 1\n" * 400)
    _write(git_project, ".gitignore", "src/ignored_by_git.py\n")
    root = ProjectRoot.from_args(git_project)
    files, too_big = list_source_files(root, Config(max_file_bytes=1024))
    paths = [f.path for f in files]
    assert "src/app.py" in paths and "README.md" in paths
    assert "src/ignored_by_git.py" not in paths
    assert not any(p.startswith("node_modules/") for p in paths)
    assert "src/data.bin" not in paths  # unknown suffix
    assert "src/big.py" not in paths and too_big == 1


def test_source_dirs_limit_the_scan_and_are_confined(project: ProjectRoot) -> None:
    _write(project.path, "src/a.py")
    _write(project.path, "scripts/b.py")
    files, _ = list_source_files(project, Config(source_dirs=["src"]))
    assert [f.path for f in files] == ["src/a.py"]
    with pytest.raises(PathOutsideProject):
        list_source_files(project, Config(source_dirs=["../elsewhere"]))
    with pytest.raises(InvalidArgument):
        list_source_files(project, Config(source_dirs=["missing"]))
