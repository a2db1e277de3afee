"""File selection: .gitignore, exclude patterns, source_dirs and size limits."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from code_intel.core.config import Config
from code_intel.core.errors import InvalidArgument, PathOutsideProject
from code_intel.core.project import ProjectRoot
from code_intel.index.files import list_source_files
from code_intel.languages.table import script_file_language, script_language
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


def test_scripts_without_a_suffix_are_indexed_when_their_first_line_names_an_interpreter(project: ProjectRoot) -> None:
    _write(project.path, "bin/setup", "#!/usr/bin/env bash\nset -e\n")
    _write(project.path, "hooks/pre-commit", "#!/bin/sh\nexit 0\n")
    _write(project.path, "tools/release", "#!/usr/bin/env -S python3 -u\nprint(1)\n")
    _write(project.path, "LICENSE", "MIT License\n")
    _write(project.path, "bin/legacy", "#!/usr/bin/perl\nprint 1;\n")  # no grammar for it
    _write(project.path, "test/helpers.bats", "setup() {\n  true\n}\n")
    paths = [f.path for f in list_source_files(project, Config())[0]]
    assert {"bin/setup", "hooks/pre-commit", "tools/release", "test/helpers.bats"} <= set(paths)
    assert "LICENSE" not in paths and "bin/legacy" not in paths
    assert script_language("bin/setup", "#!/usr/bin/env bash\n") == "bash"
    assert script_language("tools/release", "#!/usr/bin/python3.11\n") == "python"
    assert script_language("notes.txt", "#!/bin/bash\n") is None  # a suffix decides, never the first line
    assert script_language("README", "# Title\n") is None


def test_a_suffixless_file_that_is_no_regular_file_is_not_opened_for_its_first_line(tmp_path: Path) -> None:
    # a named pipe nobody writes to blocks a read forever: listing a project that holds one hung the server's first
    # find_references (which lists the project's files for their roles) and the background warm-up
    fifo = tmp_path / "events"
    os.mkfifo(fifo)
    script = tmp_path / "run"
    script.write_text("#!/bin/sh\nexit 0\n")
    answers: list[str | None] = []
    reader = threading.Thread(target=lambda: answers.append(script_file_language(fifo)), daemon=True)
    reader.start()
    reader.join(5)
    assert not reader.is_alive() and answers == [None]
    assert script_file_language(script) == "bash"
