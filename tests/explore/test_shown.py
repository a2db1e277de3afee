"""Which files an exploration answer showed code of (tools/explore/shown.py), on real answers over the polyglot
project, as result models and as the JSON data the server answers: what the session's read log gets from the
server's own tools. Which tools show code at all is declared on each tool (code_intel_server)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from code_intel.explore.service import Explorer
from code_intel.explore.shown import shown_files


def test_search_text_shows_the_files_of_its_matches(explorer: Explorer) -> None:
    result = explorer.search_text("helper", glob="*.py")
    assert shown_files(result) == sorted({m["file"] for m in result.matches})
    assert shown_files(result) == ["src/app/greeter.py", "src/app/uses.py"]
    assert shown_files(result.model_dump(mode="json", exclude_none=True)) == shown_files(result)


def test_search_text_with_context_lines_and_several_patterns(explorer: Explorer) -> None:
    with_context = explorer.search_text("helper", glob="*.py", context_lines=1)
    assert shown_files(with_context) == ["src/app/greeter.py", "src/app/uses.py"]
    several = explorer.search_text(["GREETING", "const LIMIT"])
    files = {m["file"] for group in several.results for m in group.matches}  # type: ignore[union-attr]
    assert "src/app/greeter.py" in files and "php/Greeter.php" in files
    assert set(shown_files(several)) == files


def test_definitions_references_and_outlines(explorer: Explorer) -> None:
    definitions = explorer.find_definitions("Greeter")
    assert set(shown_files(definitions)) == {d.file for d in definitions.definitions}
    references = explorer.find_references("helper")
    assert set(shown_files(references)) == {r.file for r in references.references}
    data = references.model_dump(mode="json", exclude_none=True)
    assert set(shown_files(data)) == {r.file for r in references.references}
    assert shown_files(explorer.get_symbols("web/util.ts")) == ["web/util.ts"]


def test_file_names_alone_and_skipped_files_are_not_shown(project_dir: Path,
                                                          make_explorer: Callable[..., Explorer]) -> None:
    from code_intel.core.tool_facts import TOOL_FACTS as TOOLS

    assert not TOOLS["search_files"].shows_code  # a list of names shows no code
    (project_dir / "big.py").write_text("needle_function = 1\n" * 400, encoding="utf-8")
    small = make_explorer(project_dir, max_file_bytes=2048)
    result = small.search_text("needle_function")
    assert result.skipped_files and result.skipped_files[0].file == "big.py"  # type: ignore[union-attr]
    assert shown_files(result) == []
