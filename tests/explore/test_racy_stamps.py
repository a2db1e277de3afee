"""A file written twice within one tick of the file system's clock keeps its mtime. The caches keyed by
(mtime, size) must not serve the first content after a same-size second write (code_intel.core.fsutil.trusted_mtime)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from code_intel.core import fsutil
from code_intel.core.fsutil import UNTRUSTED_MTIME, trusted_mtime
from code_intel.explore.service import Explorer
from code_intel.explore.syntax import ParseCache


@pytest.fixture(autouse=True)
def wide_racy_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests look at a file right after writing it; on a loaded machine that look can come later than the
    100 ms window, and the same-tick rewrite they fake would then be one no real clock produces. A 5 s window
    keeps the look inside it (a settled file below is 10 s old)."""
    monkeypatch.setattr(fsutil, "RACY_NS", 5_000_000_000)


def rewrite_in_the_same_tick(path: Path, text: str) -> None:
    """Write `text` (the same size as before) and give the file back its old mtime, as a write within the same
    clock tick would leave it."""
    before = path.stat()
    assert len(text.encode()) == before.st_size
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def settle(path: Path) -> None:
    stamp = time.time_ns() - 10_000_000_000
    os.utime(path, ns=(stamp, stamp))


def test_a_recent_or_future_mtime_is_not_trusted() -> None:
    now = time.time_ns()
    assert trusted_mtime(now - 10 * fsutil.RACY_NS) == now - 10 * fsutil.RACY_NS
    assert trusted_mtime(now) == UNTRUSTED_MTIME
    assert trusted_mtime(now + 3_600_000_000_000) == UNTRUSTED_MTIME  # a time in the future


def test_the_parse_cache_parses_again_a_file_rewritten_in_the_same_tick(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("def alpha():\n    pass\n", encoding="utf-8")
    cache = ParseCache()
    assert b"alpha" in cache.get(path).source
    rewrite_in_the_same_tick(path, "def omega():\n    pass\n")
    assert b"omega" in cache.get(path).source


def test_the_parse_cache_reuses_a_settled_file(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("def alpha():\n    pass\n", encoding="utf-8")
    settle(path)
    cache = ParseCache()
    first = cache.get(path)
    assert cache.get(path) is first


def test_outline_and_definitions_follow_a_rewrite_in_the_same_tick(
        project_dir: Path, make_explorer: Callable[..., Explorer]) -> None:
    path = project_dir / "mod.py"
    path.write_text("def alpha():\n    pass\n", encoding="utf-8")
    explorer = make_explorer(project_dir)
    assert [s.name for s in explorer.get_symbols("mod.py").symbols] == ["alpha"]
    assert [d.name for d in explorer.find_definitions("alpha").definitions] == ["alpha"]
    rewrite_in_the_same_tick(path, "def omega():\n    pass\n")
    assert [s.name for s in explorer.get_symbols("mod.py").symbols] == ["omega"]
    assert [d.name for d in explorer.find_definitions("omega").definitions] == ["omega"]
    assert explorer.find_definitions("alpha").definitions == []


def test_a_settings_file_rewritten_in_the_same_tick_is_read_again(tmp_path: Path) -> None:
    from code_intel.core.filecache import WatchedFile

    path = tmp_path / "config.json"
    path.write_text('{"a": 1}', encoding="utf-8")
    reads: list[str] = []

    def load(file: Path) -> str:
        reads.append(file.read_text(encoding="utf-8"))
        return reads[-1]

    watched = WatchedFile(path, load)
    assert watched.get() == '{"a": 1}'
    rewrite_in_the_same_tick(path, '{"a": 2}')
    assert watched.get() == '{"a": 2}'
    settle(path)
    watched.get()
    count = len(reads)
    assert watched.get() == '{"a": 2}' and len(reads) == count  # settled: read once more, then kept


def test_a_just_written_file_is_compared_not_parsed_again_while_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("def alpha():\n    pass\n", encoding="utf-8")
    cache = ParseCache()
    first = cache.get(path)
    assert cache.get(path) is first  # racy, but the same bytes: the same parse
    rewrite_in_the_same_tick(path, "def omega():\n    pass\n")
    second = cache.get(path)
    assert second is not first and b"omega" in second.source
    assert cache.get(path) is second


def test_lexical_maps_check_a_just_written_file_by_digest(
        project_dir: Path, make_explorer: Callable[..., Explorer]) -> None:
    """While a file is racy, each use of its lexical map compares its digest: no map is built again while the
    file is unchanged."""
    from code_intel.explore import comments as lexical

    path = project_dir / "mod.py"
    path.write_text("def alpha():\n    return 'alpha'  # alpha\n", encoding="utf-8")
    explorer = make_explorer(project_dir)
    builds: list[str] = []
    real = lexical.build_map

    def counting(parsed: object) -> object:
        if Path(parsed.path).resolve() == path.resolve():  # type: ignore[attr-defined]
            builds.append("x")  # only this file: threads left by earlier tests in this process may build others
        return real(parsed)  # type: ignore[arg-type]

    lexical.build_map = counting  # type: ignore[assignment]
    try:
        first = explorer.find_references("alpha")
        again = explorer.find_references("alpha")
    finally:
        lexical.build_map = real
    assert len(builds) == 1
    assert first.model_dump() == again.model_dump()
