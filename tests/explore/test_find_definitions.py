from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from code_intel.core.errors import InvalidArgument, PathOutsideProject
from code_intel.explore.ctags import base_names
from code_intel.explore.service import Explorer


def _where(explorer: Explorer, symbol: str, **kwargs: object) -> set[tuple[str, int]]:
    result = explorer.find_definitions(symbol, max_results=500, **kwargs)  # type: ignore[arg-type]
    return {(d.file, d.line) for d in result.definitions}


def test_exact_match_across_languages_with_full_fields(explorer: Explorer) -> None:
    result = explorer.find_definitions("helper", max_results=500)
    assert {(d.file, d.language) for d in result.definitions} == {
        ("src/app/greeter.py", "python"), ("web/util.ts", "typescript"), ("web/view.tsx", "tsx"),
        ("go/greeter.go", "go"), ("rust/lib.rs", "rust"), ("java/Greeter.java", "java"), ("c/greeter.c", "c"),
        ("cpp/greeter.cpp", "cpp"), ("ruby/greeter.rb", "ruby"), ("php/Greeter.php", "php"),
        ("kotlin/Greeter.kt", "kotlin"),
    }
    assert "ignored/skip.py" not in {d.file for d in result.definitions}  # .gitignore
    (py,) = [d for d in result.definitions if d.file == "src/app/greeter.py"]
    assert (py.line, py.end_line, py.kind, py.signature) == (24, 25, "function", "helper(value)")
    (method,) = explorer.find_definitions("greet", language="python").definitions
    assert (method.kind, method.scope, method.line, method.end_line) == ("method", "Greeter", 12, 15)


def test_end_lines_come_from_the_syntax_tree_when_ctags_has_none(explorer: Explorer) -> None:
    (php,) = explorer.find_definitions("Greeter", language="php").definitions
    assert (php.line, php.end_line) == (6, 12)
    (kotlin,) = [d for d in explorer.find_definitions("Greeter", language="kotlin").definitions if d.kind == "class"]
    assert (kotlin.line, kotlin.end_line) == (5, 11)


def test_prefix_and_case_insensitive_matching(explorer: Explorer) -> None:
    prefix = explorer.find_definitions("Gree", match="prefix", max_results=500).definitions
    assert {d.name for d in prefix} >= {"Greeter", "Greeting", "Greet"}
    icase = explorer.find_definitions("GREET", match="icase", max_results=500).definitions
    assert {d.name for d in icase} == {"greet", "Greet"}
    assert explorer.find_definitions("GREET").total == 0


def test_path_language_and_scope_filters(explorer: Explorer) -> None:
    assert _where(explorer, "helper", path="web") == {("web/util.ts", 10), ("web/view.tsx", 4)}
    assert _where(explorer, "helper", language="typescript") == {("web/util.ts", 10), ("web/view.tsx", 4)}
    assert _where(explorer, "Greeter.greet", language="python") == {("src/app/greeter.py", 12)}
    assert _where(explorer, "demo::Greeter::greet") == {("cpp/greeter.cpp", 6), ("kotlin/Greeter.kt", 8)}
    assert _where(explorer, "eter.greet", language="python") == set()  # scopes match whole names


def test_types_rank_before_other_kinds_and_truncation(explorer: Explorer) -> None:
    result = explorer.find_definitions("Greeter", max_results=3)
    assert result.truncated is True and result.total > 3
    assert all(d.kind in ("class", "struct") for d in result.definitions)


def test_index_refreshes_only_changed_files_and_persists(polyglot: Path, make_explorer: Callable[..., Explorer]) -> None:
    explorer = make_explorer(polyglot)
    assert _where(explorer, "added_later") == set()
    index = explorer.definition_index
    assert index.last_refresh["reparsed"] > 10
    explorer.find_definitions("helper")
    assert index.last_refresh["reparsed"] == 0  # nothing changed
    target = polyglot / "src/app/uses.py"
    target.write_text(target.read_text(encoding="utf-8") + "\ndef added_later():\n    pass\n", encoding="utf-8")
    assert _where(explorer, "added_later") == {("src/app/uses.py", 6)}
    assert index.last_refresh["reparsed"] == 1
    # touching a file without changing it costs a hash, not a reparse
    stat = target.stat()
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    explorer.find_definitions("helper")
    assert index.last_refresh["reparsed"] == 0
    (polyglot / "src/app/uses.py").unlink()
    assert _where(explorer, "added_later") == set()
    # a new Explorer starts from the disk cache and reparses nothing
    index.flush()
    cache = json.loads(index.cache_path.read_text(encoding="utf-8"))
    assert "src/app/greeter.py" in cache["files"]
    fresh = make_explorer(polyglot)
    assert _where(fresh, "helper") == _where(explorer, "helper")
    assert fresh.definition_index.last_refresh["reparsed"] == 0


def test_damaged_cache_is_rebuilt(polyglot: Path, make_explorer: Callable[..., Explorer]) -> None:
    first = make_explorer(polyglot)
    first.find_definitions("helper")
    first.definition_index.flush()
    first.definition_index.cache_path.write_text("{not json", encoding="utf-8")
    again = make_explorer(polyglot)
    assert ("src/app/greeter.py", 24) in _where(again, "helper")


def test_no_pseudo_tags_or_import_aliases(explorer: Explorer) -> None:
    names = {d.name for d in explorer.definition_index.all_definitions()}
    assert not any(n.startswith(("!_", "__anon", "Anonymous")) for n in names)
    assert "Opt" not in names and "os" not in names  # `from typing import Optional as Opt`, `import os`


def test_source_dirs_limit_the_index(polyglot: Path, make_explorer: Callable[..., Explorer]) -> None:
    explorer = make_explorer(polyglot, source_dirs=["go", "rust"])
    assert {f for f, _ in _where(explorer, "helper")} == {"go/greeter.go", "rust/lib.rs"}


def test_refusals(explorer: Explorer) -> None:
    for bad in ("", "  ", "two words"):
        with pytest.raises(InvalidArgument):
            explorer.find_definitions(bad)
    with pytest.raises(InvalidArgument):
        explorer.find_definitions("helper", match="regex")  # type: ignore[arg-type]
    with pytest.raises(PathOutsideProject):
        explorer.find_definitions("helper", path="../..")
    # an option-like name is just a name that is not defined anywhere
    assert explorer.find_definitions("--help").total == 0


def test_first_exploration_call_warms_the_index_in_the_background(explorer: Explorer) -> None:
    import threading

    explorer.search_files("*.py")
    for thread in threading.enumerate():
        if thread.name == "code-intel-index-warmup":
            thread.join(timeout=30)
    assert explorer.definition_index.last_refresh["files"] > 10
    explorer.find_definitions("helper")
    assert explorer.definition_index.last_refresh["reparsed"] == 0  # already indexed by the warm-up


def test_config_changes_apply_at_once(polyglot: Path) -> None:
    from code_intel.core.config import Config
    from code_intel.core.project import ProjectRoot

    settings = {"value": Config()}
    explorer = Explorer(ProjectRoot.from_args(polyglot), lambda: settings["value"])
    assert len({f for f, _ in _where(explorer, "helper")}) > 2
    settings["value"] = Config(source_dirs=["go"])
    assert {f for f, _ in _where(explorer, "helper")} == {"go/greeter.go"}


@pytest.mark.parametrize(("inherits", "names"), [
    ("Base, metaclass=ABCMeta", ["Base"]),  # Python keyword arguments are no bases
    ("mod.Shape", ["Shape"]),
    ("B,C,D", ["B", "C", "D"]),  # TypeScript, C#, PHP: extends and implements together
    ("Map<K, V>, java.io.Serializable", ["Map", "Serializable"]),  # a comma inside type arguments splits nothing
    ("Generic[T]", ["Generic"]),
    ("public Base, private virtual Other", ["Base", "Other"]),
    ("Iterator<Item = T>, 'a, ?Sized", ["Iterator"]),  # Rust bounds: an `=` inside type arguments is no keyword
    ("", []),
])
def test_base_names_from_ctags_inherits(inherits: str, names: list[str]) -> None:
    assert base_names(inherits) == names


@pytest.mark.parametrize(("kind", "line", "bases"), [
    ("implementation", "impl FromStr for Version {", "FromStr"),
    ("implementation", "impl<'a, T: Into<u8>> Shape for Square<'a, T> where T: Clone {", "Shape"),
    ("implementation", "unsafe impl<T: Send> Send for Wrapper<T> {}", "Send"),
    ("implementation", "impl<T> std::fmt::Display for Wrapper<T> {", "std::fmt::Display"),
    ("implementation", "impl<F: Fn(u8) -> u8> Call for F {", "Call"),  # `->` inside the generics closes nothing
    ("implementation", "impl Square {", None),  # inherent impl
    ("implementation", "impl !Send for Square {}", None),  # negative impl
    ("interface", "pub trait Shape: Clone + fmt::Debug + ?Sized {", "Clone, fmt::Debug, ?Sized"),
    ("interface", "pub(crate) trait Stream<'a, T>: Iterator<Item = T> + 'a where T: Copy {",
     "Iterator<Item = T>, 'a"),
    ("interface", "pub trait Empty {}", None),
    ("struct", "pub struct Square;", None),
])
def test_rust_bases_from_the_tag_line(kind: str, line: str, bases: str | None) -> None:
    from code_intel.explore.ctags import rust_bases

    assert rust_bases(kind, line) == bases


def test_the_index_knows_each_types_ancestors_and_keeps_them_across_a_restart(tmp_path: Path) -> None:
    from tests.explore.conftest import explorer_over

    files = {"a.py": "class A:\n    pass\n\n\nclass B(A):\n    pass\n", "c.py": "from a import B\n\n\nclass C(B):\n    pass\n"}
    explorer = explorer_over(tmp_path, files)
    explorer.find_definitions("C")  # builds the index
    assert explorer.definition_index.ancestors("C") == {"A", "B"}
    assert explorer.definition_index.ancestors("A") == set()
    explorer.definition_index.flush()
    again = explorer_over(tmp_path, {})
    again.find_definitions("C")
    assert again.definition_index.ancestors("C") == {"A", "B"}  # read back from the disk cache
