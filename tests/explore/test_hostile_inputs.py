"""Hostile exploration inputs: each answers (a result, a partial result or a refusal) within a few seconds.

The budget figures here are generous ceilings for a loaded CI machine, not benchmarks: the point is
that nothing runs for minutes. Before the linear glob matcher, the first test ran for minutes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from code_intel.core.errors import CodeIntelError
from code_intel.core.pathnames import client_safe
from code_intel.explore.globbing import compile_glob, glob_matches
from code_intel.explore.impact import analyze_impact
from code_intel.explore.query import run_query
from code_intel.explore.service import Explorer

FEW_SECONDS = 5.0
LONG_NAME = "a" * 200 + ".py"
HOSTILE_GLOBS = ["*a*a*a*a*a*a*a*a*a*a*a*a*b", "**/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b",
                 "{a,a}{a,a}{a,a}{a,a}{a,a}{a,a}{a,a}{a,a}*b", "*" * 300 + "b", "**/" * 100 + "*b",
                 "**/a/**/a/**/a/**/a/**/a/**/b"]
HOSTILE_REGEXES = [r"(a+)+$", r"(a|aa)*b", r"(.*){20}x", r"(\w+\s?)*$", r"(a*)*b", r"(?:a?){200}a{200}",
                   r"^(([a-z])+.)+[A-Z]([a-z])+$", r"(x+x+)+y"]
HOSTILE_SYMBOLS = ["a" * 20_000, "(a+)+$", "a." * 5000 + "b", "::" * 3000, "\u202e" * 100 + "x", "é" * 5000]


@pytest.fixture
def hostile(project_dir: Path) -> Path:
    (project_dir / "src").mkdir()
    (project_dir / "src" / LONG_NAME).write_text("a" * 50_000 + "\n", encoding="utf-8")
    (project_dir / "src" / "lines.txt").write_text(("a" * 3000 + "\n") * 300, encoding="utf-8")
    (project_dir / "src" / "ok.py").write_text("def helper():\n    return 1\n", encoding="utf-8")
    return project_dir


def timed(call: Callable[[], object]) -> tuple[float, object]:
    started = time.monotonic()
    try:
        result: object = call()
    except CodeIntelError as err:  # a clear refusal is an answer too
        result = err
    return time.monotonic() - started, result


@pytest.mark.parametrize("glob", HOSTILE_GLOBS)
def test_hostile_globs_match_in_linear_time(glob: str) -> None:
    started = time.monotonic()
    for length in (50, 150, 250):
        assert glob_matches(glob, "x/" + "a" * length + ".py") is False
    assert time.monotonic() - started < 1.0


@pytest.mark.parametrize("glob", HOSTILE_GLOBS)
def test_search_files_with_a_hostile_glob_answers_quickly(hostile: Path, make_explorer: Callable[..., Explorer],
                                                          glob: str) -> None:
    explorer = make_explorer(hostile)
    elapsed, result = timed(lambda: explorer.search_files(glob))
    assert elapsed < FEW_SECONDS, f"{glob!r} took {elapsed:.1f} s"
    assert not isinstance(result, CodeIntelError) or result.code == "invalid_argument"


@pytest.mark.parametrize("regex", HOSTILE_REGEXES)
def test_catastrophic_regexes_answer_within_the_budget(hostile: Path, make_explorer: Callable[..., Explorer],
                                                       regex: str) -> None:
    explorer = make_explorer(hostile, search_timeout_seconds=3)
    elapsed, result = timed(lambda: explorer.search_text(regex))
    assert elapsed < FEW_SECONDS, f"{regex!r} took {elapsed:.1f} s"
    if not isinstance(result, CodeIntelError):
        assert result.partial is None or result.partial_reason  # type: ignore[attr-defined]


@pytest.mark.parametrize("symbol", HOSTILE_SYMBOLS)
def test_hostile_symbol_names_answer_quickly(hostile: Path, make_explorer: Callable[..., Explorer], symbol: str) -> None:
    explorer = make_explorer(hostile, search_timeout_seconds=3)
    for call in (lambda: explorer.find_definitions(symbol), lambda: explorer.find_definitions(symbol, match="prefix"),
                 lambda: explorer.find_references(symbol),
                 lambda: explorer.run_budgeted("query", run_query, explorer, symbol, None)):
        elapsed, _ = timed(call)
        assert elapsed < FEW_SECONDS, f"{symbol[:30]!r} took {elapsed:.1f} s"


def test_a_budget_that_runs_out_gives_a_partial_result_that_says_so(hostile: Path, make_explorer: Callable[..., Explorer],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(30):
        (hostile / f"big{i}.txt").write_text(("a" * 200 + "\n") * 3000, encoding="utf-8")
    explorer = make_explorer(hostile, search_timeout_seconds=0.01)
    elapsed, result = timed(lambda: explorer.search_text([r"(a|aa)+(b|a{2,}c)+$", r"\w+\s\w+$"]))
    assert elapsed < FEW_SECONDS
    assert result.partial is True and "stopped after" in result.partial_reason  # type: ignore[attr-defined]
    # a composite call shares one deadline: once an early step uses it up, the later steps are skipped
    monkeypatch.setenv("CODE_INTEL_FAULTS", "explore.get_symbols=sleep:0.1")
    later = make_explorer(hostile, search_timeout_seconds=0.05)
    impact = later.run_budgeted("analyze_impact", analyze_impact, later, ["src/ok.py"], None)
    assert impact.partial is True and "ran out before references" in (impact.partial_reason or "")


def test_glob_refusals_are_clear() -> None:
    for bad in ["src/[abc", "{a,b", "", "x" * 2000]:
        with pytest.raises(CodeIntelError) as caught:
            compile_glob(bad)
        assert caught.value.code == "invalid_argument" and caught.value.hint


# ---------------------------------------------------------------- files too big to search
@pytest.fixture
def with_big_file(project_dir: Path) -> Path:
    (project_dir / "src").mkdir()
    body = "".join(f"def helper_{i}():\n    return helper({i})\n" for i in range(200))
    (project_dir / "src" / "huge.py").write_text(body + "def needle_function():\n    pass\n", encoding="utf-8")
    (project_dir / "src" / "small.py").write_text("def helper(x):\n    return needle_function\n", encoding="utf-8")
    return project_dir


def test_searches_name_the_files_they_skip_and_why(with_big_file: Path, make_explorer: Callable[..., Explorer]) -> None:
    explorer = make_explorer(with_big_file, max_file_bytes=2048)
    for result in (explorer.search_text("needle_function"), explorer.find_references("needle_function"),
                   explorer.find_definitions("needle_function")):
        assert result.skipped_total == 1, result  # type: ignore[union-attr]
        skipped = result.skipped_files[0]  # type: ignore[union-attr]
        assert skipped.file == "src/huge.py" and skipped.size > 2048
        assert "max_file_bytes" in skipped.reason
    text = explorer.search_text("needle_function", glob="small.py")
    assert text.skipped_files is None  # a glob that leaves the big file out skips nothing  # type: ignore[union-attr]


def test_search_files_lists_every_matching_file_and_marks_the_big_one(with_big_file: Path,
                                                                      make_explorer: Callable[..., Explorer]) -> None:
    explorer = make_explorer(with_big_file, max_file_bytes=2048)
    result = explorer.search_files("**/*.py")
    assert [f.file for f in result.files] == ["src/huge.py", "src/small.py"]
    assert result.files[0].note and "max_file_bytes" in result.files[0].note and result.files[1].note is None


def test_get_symbols_on_a_big_file_does_not_send_the_agent_to_a_search_that_skips_it(
        with_big_file: Path, make_explorer: Callable[..., Explorer]) -> None:
    explorer = make_explorer(with_big_file, max_file_bytes=2048)
    with pytest.raises(CodeIntelError) as caught:
        explorer.get_symbols("src/huge.py")
    assert "max_file_bytes" in caught.value.message and "search_text" not in (caught.value.hint or "")


# ---------------------------------------------------------------- file names that are not UTF-8
@pytest.mark.skipif(os.uname().sysname == "Darwin", reason="macOS file systems refuse names that are not UTF-8")
def test_a_name_that_is_not_utf8_comes_back_in_a_form_that_can_be_sent_back(project_dir: Path,
                                                                            make_explorer: Callable[..., Explorer]) -> None:
    raw = os.fsencode(project_dir) + b"/caf\xe9.py"
    with open(raw, "wb") as handle:
        handle.write(b"def latin_helper():\n    return 1\n")
    explorer = make_explorer(project_dir)
    names = {client_safe(f.file) for f in explorer.search_files("*.py").files}
    assert names == {"caf\\xe9.py"}
    text = explorer.search_text("latin_helper")
    shown = client_safe(text.model_dump())  # type: ignore[union-attr]
    assert shown["matches"][0]["file"] == "caf\\xe9.py"
    symbols = explorer.get_symbols("caf\\xe9.py")  # the escaped form is accepted back
    assert [s.name for s in symbols.symbols] == ["latin_helper"]
    assert client_safe(symbols.model_dump())["file"] == "caf\\xe9.py"
