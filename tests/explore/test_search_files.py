from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from code_intel.core.errors import InvalidArgument, PathOutsideProject
from code_intel.explore.globbing import glob_matches
from code_intel.explore.service import Explorer


def test_double_star_crosses_folders(explorer: Explorer) -> None:
    result = explorer.search_files("src/**/*.py")
    assert [f.file for f in result.files] == ["src/app/greeter.py", "src/app/uses.py"]
    assert result.total == 2 and result.truncated is False


def test_name_only_pattern_matches_in_any_folder_and_respects_ignores(explorer: Explorer) -> None:
    files = [f.file for f in explorer.search_files("*.py").files]
    assert files == ["src/app/greeter.py", "src/app/uses.py"]  # ignored/skip.py is git-ignored


def test_path_limits_the_folder_and_patterns_may_be_relative_to_it(explorer: Explorer) -> None:
    assert [f.file for f in explorer.search_files("*.{ts,tsx}", path="web").files] == ["web/util.ts", "web/view.tsx"]
    assert [f.file for f in explorer.search_files("app/*.py", path="src").files] == ["src/app/greeter.py", "src/app/uses.py"]


def test_truncation(explorer: Explorer) -> None:
    result = explorer.search_files("**/*", max_results=2)
    assert len(result.files) == 2 and result.truncated is True and result.total > 2


def test_refusals(explorer: Explorer) -> None:
    with pytest.raises(InvalidArgument):
        explorer.search_files("")
    with pytest.raises(InvalidArgument):
        explorer.search_files("src/[abc")
    with pytest.raises(PathOutsideProject):
        explorer.search_files("*.py", path="/etc")
    with pytest.raises(InvalidArgument, match="'..' part"):  # not an empty list that reads as "no such files"
        explorer.search_files("../../etc/*")
    with pytest.raises(InvalidArgument, match="'..' part"):
        explorer.search_text("x", glob="src/../*.py")


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        ("**/*.py", "a.py", True),
        ("**/*.py", "x/y/a.py", True),
        ("x/**", "x/y/a.py", True),
        ("x/**/a.py", "x/a.py", True),
        ("x/*.py", "x/y/a.py", False),
        ("test_?.py", "t/test_1.py", True),
        ("[!a]*.py", "b.py", True),
        ("[!a]*.py", "a.py", False),
        ("*.{js,ts}", "w/a.ts", True),
        ("src/*", "src/a/b.py", False),  # a folder the star matches does not bring its files
        ("src/", "src/a/b.py", True),
        ("a/{b,c}/*.py", "a/c/x.py", True),
        ("#notes.md", "#notes.md", True),  # not a comment, as in .gitignore
        ("!x.py", "!x.py", True),  # nor a negation
    ],
)
def test_glob_semantics(glob: str, path: str, expected: bool) -> None:
    assert glob_matches(glob, path) is expected


def test_dot_folders_are_searched_but_never_git(polyglot: Path, make_explorer: Callable[..., Explorer]) -> None:
    (polyglot / ".github/workflows").mkdir(parents=True)
    (polyglot / ".github/workflows/ci.yml").write_text("run: pytest\n", encoding="utf-8")
    (polyglot / ".git/config").write_text("[core]\n", encoding="utf-8")
    explorer = make_explorer(polyglot, exclude_patterns=[])  # even with no configured excludes
    files = [f.file for f in explorer.search_files("**/*").files]
    assert ".github/workflows/ci.yml" in files
    assert not any(f.startswith(".git/") for f in files)
    assert explorer.search_text("core").total_matches == 0  # type: ignore[union-attr]
    explorer.find_definitions("helper")  # writes the index cache under .code-intel/cache
    explorer.definition_index.flush()
    assert not any(f.startswith(".code-intel/cache") for f in [f.file for f in explorer.search_files("**/*").files])
