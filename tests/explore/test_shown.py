"""Which files an exploration answer showed code of (tools/explore/shown.py), on real answers over the polyglot
project: what the session's read log gets from the server's own tools."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from code_intel.explore.service import Explorer
from code_intel.explore.shown import shown_files
from code_intel.server.written import WrittenList


def test_search_text_shows_the_files_of_its_matches(explorer: Explorer) -> None:
    result = explorer.search_text("helper", glob="*.py")
    assert isinstance(result.matches, WrittenList)  # read from the written JSON, not decoded records
    assert shown_files("search_text", result) == sorted({m["file"] for m in result.matches})
    assert shown_files("search_text", result) == ["src/app/greeter.py", "src/app/uses.py"]


def test_search_text_with_context_lines_and_several_patterns(explorer: Explorer) -> None:
    with_context = explorer.search_text("helper", glob="*.py", context_lines=1)
    assert not isinstance(with_context.matches, WrittenList)
    assert shown_files("search_text", with_context) == ["src/app/greeter.py", "src/app/uses.py"]
    several = explorer.search_text(["GREETING", "const LIMIT"])
    files = {m["file"] for group in several.results for m in group.matches}  # type: ignore[union-attr]
    assert "src/app/greeter.py" in files and "php/Greeter.php" in files
    assert set(shown_files("search_text", several)) == files


def test_definitions_references_and_outlines(explorer: Explorer) -> None:
    definitions = explorer.find_definitions("Greeter")
    assert set(shown_files("find_definitions", definitions)) == {d.file for d in definitions.definitions}
    references = explorer.find_references("helper")
    assert set(shown_files("find_references", references)) == {r.file for r in references.references}
    assert shown_files("get_symbols", explorer.get_symbols("web/util.ts")) == ["web/util.ts"]


def test_file_names_alone_and_skipped_files_are_not_shown(explorer: Explorer, project_dir: Path,
                                                          make_explorer: Callable[..., Explorer]) -> None:
    listing = explorer.search_files("**/*.py")
    assert listing.files and shown_files("search_files", listing) == []
    (project_dir / "big.py").write_text("needle_function = 1\n" * 400, encoding="utf-8")
    small = make_explorer(project_dir, max_file_bytes=2048)
    result = small.search_text("needle_function")
    assert result.skipped_files and result.skipped_files[0].file == "big.py"  # type: ignore[union-attr]
    assert shown_files("search_text", result) == []
