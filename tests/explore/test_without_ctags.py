"""Universal Ctags is the one program the package cannot bring: without it the definition index reads
tree-sitter outlines, so find_definitions and find_references still answer (docs/install.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from code_intel.core import binaries
from code_intel.core.config import Config
from code_intel.core.project import ProjectRoot
from code_intel.explore.definitions import CACHE_VERSION, OUTLINES_ONLY
from code_intel.explore.service import Explorer


def _forget_binaries() -> None:
    binaries.ctags_probes.cache_clear()
    binaries.find_binary.cache_clear()


@pytest.fixture
def no_ctags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A PATH without ctags (rg is still found beside the interpreter, where the ripgrep wheel puts it)."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    _forget_binaries()
    assert binaries.find_binary("ctags") is None
    yield
    monkeypatch.undo()
    _forget_binaries()


def _files(explorer: Explorer, symbol: str) -> set[str]:
    return {d.file for d in explorer.find_definitions(symbol, max_results=500).definitions}


def test_definitions_and_references_answer_from_outlines(polyglot: Path, no_ctags: None) -> None:
    explorer = Explorer(ProjectRoot.from_args(polyglot), lambda: Config())
    assert _files(explorer, "helper") == {
        "src/app/greeter.py", "web/util.ts", "web/view.tsx", "go/greeter.go", "rust/lib.rs", "java/Greeter.java",
        "c/greeter.c", "cpp/greeter.cpp", "ruby/greeter.rb", "php/Greeter.php", "kotlin/Greeter.kt"}
    (method,) = explorer.find_definitions("greet", language="python").definitions
    assert (method.kind, method.scope, method.line, method.end_line) == ("method", "Greeter", 12, 15)
    references = explorer.find_references("helper")
    assert ("src/app/greeter.py", 24) in {(r.file, r.line) for r in references.references}
    explorer.close()
    cache = json.loads((polyglot / ".code-intel" / "cache" / "definitions.json").read_text(encoding="utf-8"))
    assert cache["version"] == OUTLINES_ONLY  # an index built without ctags is rebuilt once ctags is installed


def test_the_outline_index_is_rebuilt_when_ctags_appears(polyglot: Path, no_ctags: None,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    explorer = Explorer(ProjectRoot.from_args(polyglot), lambda: Config())
    assert "src/app/greeter.py" in _files(explorer, "helper")
    explorer.close()
    monkeypatch.undo()  # PATH back, with the machine's Universal Ctags on it
    _forget_binaries()
    if binaries.find_binary("ctags") is None:
        pytest.skip("no Universal Ctags on this machine")
    again = Explorer(ProjectRoot.from_args(polyglot), lambda: Config())
    (py,) = [d for d in again.find_definitions("helper").definitions if d.file == "src/app/greeter.py"]
    assert py.signature == "helper(value)"  # ctags' signature, not the outline's source line
    again.close()
    cache = json.loads((polyglot / ".code-intel" / "cache" / "definitions.json").read_text(encoding="utf-8"))
    assert cache["version"] == CACHE_VERSION


@pytest.mark.parametrize("ctags", [True, False])
def test_a_lua_module_tables_functions_are_found_by_their_own_name_in_the_tables_scope(
        tmp_path: Path, ctags: bool, request: pytest.FixtureRequest) -> None:
    # ctags names them `M.root_pattern`, the outline too: both index `root_pattern` in scope `M`
    from tests.explore.conftest import explorer_over

    if not ctags:
        request.getfixturevalue("no_ctags")
    elif binaries.find_binary("ctags") is None:
        pytest.skip("no Universal Ctags on this machine")

    explorer = explorer_over(tmp_path, {"lua/lspconfig/util.lua": (
        "local M = {}\n\nfunction M.root_pattern(...)\n  return ...\nend\n\nM.strip_archive_subpath = function(p)\n"
        "  return p\nend\n\nfunction M.path.is_dir(p)\n  return p\nend\n\nfunction M:attach(b)\n  return b\nend\n\n"
        "local function escape(p)\n  return p\nend\n\nreturn M\n")})

    def found(name: str) -> list[tuple[str, int, str | None]]:
        return [(d.name, d.line, d.scope) for d in explorer.find_definitions(name, max_results=10).definitions]

    assert found("root_pattern") == [("root_pattern", 3, "M")] == found("M.root_pattern")
    assert found("strip_archive_subpath") == [("strip_archive_subpath", 7, "M")]
    assert found("is_dir") == [("is_dir", 11, "M.path")]
    assert found("attach") == [("attach", 15, "M")]
    assert found("escape") == [("escape", 19, None)]
