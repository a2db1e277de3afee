from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from code_intel.core.errors import InvalidArgument, PathOutsideProject
from code_intel.explore.models import MultiPatternResult, PatternResult
from code_intel.explore.service import Explorer


def test_single_pattern_finds_matches_with_file_line_column(explorer: Explorer) -> None:
    result = explorer.search_text(r"def greet\(self")
    assert isinstance(result, PatternResult)
    assert [(m["file"], m["line"], m["column"]) for m in result.matches] == [("src/app/greeter.py", 12, 5)]
    assert result.total_matches == 1 and result.truncated is False


def test_gitignore_and_configured_excludes_are_respected(explorer: Explorer) -> None:
    files = {m["file"] for m in explorer.search_text("helper", max_results=500).matches}
    assert "ignored/skip.py" not in files  # .gitignore
    assert "node_modules/dep/index.js" not in files  # default exclude_patterns
    assert "src/app/uses.py" in files


def test_list_of_patterns_is_grouped_per_pattern(explorer: Explorer) -> None:
    result = explorer.search_text(["class Greeter", "fn helper"])
    assert isinstance(result, MultiPatternResult)
    assert [r.pattern for r in result.results] == ["class Greeter", "fn helper"]
    assert {m["file"] for m in result.results[1].matches} == {"rust/lib.rs"}
    assert result.total_matches == sum(r.total_matches for r in result.results)


def test_max_results_reports_truncation_and_total(explorer: Explorer) -> None:
    full = explorer.search_text("helper", max_results=1000)
    cut = explorer.search_text("helper", max_results=3)
    assert isinstance(full, PatternResult) and isinstance(cut, PatternResult)
    assert len(cut.matches) == 3 and cut.truncated is True
    assert cut.total_matches == full.total_matches > 3


def test_path_glob_case_and_fixed_strings(explorer: Explorer) -> None:
    only_go = explorer.search_text("helper", path="go")
    assert {m["file"] for m in only_go.matches} == {"go/greeter.go"}  # type: ignore[union-attr]
    only_ts = explorer.search_text("helper", glob="*.ts")
    assert {m["file"] for m in only_ts.matches} == {"web/util.ts"}  # type: ignore[union-attr]
    excluded = explorer.search_text("helper", glob=["!*.py", "!*.md"])
    assert not any(m["file"].endswith((".py", ".md")) for m in excluded.matches)  # type: ignore[union-attr]
    assert explorer.search_text("GREETER").total_matches == 0  # type: ignore[union-attr]
    assert explorer.search_text("GREETER", case_sensitive=False).total_matches > 0  # type: ignore[union-attr]
    literal = explorer.search_text("helper(name)", fixed_strings=True)
    assert literal.total_matches >= 5  # type: ignore[union-attr]


def test_context_lines_come_before_and_after(explorer: Explorer) -> None:
    result = explorer.search_text("def helper", path="src/app/greeter.py", context_lines=1)
    (match,) = result.matches  # type: ignore[union-attr]
    assert match["context_before"] == [""] and match["context_after"] == ['    return os.path.join("helper", value)']


def test_option_like_pattern_is_searched_literally(project_dir: Path, make_explorer: Callable[..., Explorer]) -> None:
    (project_dir / "notes.txt").write_text("run with --files please\n-e is fine\n", encoding="utf-8")
    explorer = make_explorer(project_dir)
    assert [m["line"] for m in explorer.search_text("--files").matches] == [1]  # type: ignore[union-attr]
    assert [m["line"] for m in explorer.search_text("-e").matches] == [2]  # type: ignore[union-attr]


def test_invalid_regex_is_a_clear_refusal(explorer: Explorer) -> None:
    with pytest.raises(InvalidArgument, match="invalid regular expression") as caught:
        explorer.search_text("greet(")
    assert "fixed_strings" in (caught.value.hint or "")


def test_path_outside_root_is_refused_including_symlinks(explorer: Explorer, project_dir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("helper = 1\n", encoding="utf-8")
    (project_dir / "link").symlink_to(outside)
    with pytest.raises(PathOutsideProject):
        explorer.search_text("helper", path="../outside")
    with pytest.raises(PathOutsideProject):
        explorer.search_text("helper", path="link")
    # a recursive search never follows the link out of the project either
    assert not any("secret" in m["file"] for m in explorer.search_text("helper", max_results=500).matches)  # type: ignore[union-attr]


def test_binary_and_non_utf8_files(project_dir: Path, make_explorer: Callable[..., Explorer]) -> None:
    (project_dir / "blob.bin").write_bytes(b"\x00\x01needle\x00" * 10)
    (project_dir / "latin.txt").write_bytes("caf\xe9 needle\n".encode("latin-1"))
    explorer = make_explorer(project_dir)
    result = explorer.search_text("needle")
    assert [m["file"] for m in result.matches] == ["latin.txt"]  # type: ignore[union-attr]
    assert result.matches[0]["text"] == "caf\ufffd needle" and result.matches[0]["column"] == 6  # type: ignore[union-attr]


def test_a_binary_file_named_as_the_path_gives_no_match_and_no_stray_record(
        project_dir: Path, make_explorer: Callable[..., Explorer]) -> None:
    """Given a binary file by name, rg prints a note about it among the files' lines; the note is no match."""
    (project_dir / "blob.bin").write_bytes(b"needle\x00\x01" * 10)
    (project_dir / "12-blob.bin").write_bytes(b"needle\x00" * 3)
    (project_dir / "z.txt").write_text("needle one\nneedle two\n", encoding="utf-8")
    explorer = make_explorer(project_dir)
    for path in ["blob.bin", "12-blob.bin"]:
        result = explorer.search_text("needle", path=path)
        assert isinstance(result, PatternResult)
        assert result.matches == [] and result.total_matches == 0
    result = explorer.search_text("needle", max_results=1)
    assert isinstance(result, PatternResult) and result.total_matches == 2 and result.files_with_matches == 1
    assert [(m["file"], m["line"]) for m in result.matches] == [("z.txt", 1)]
    assert len(result.matches) == 1 and result.truncated is True


def test_timeout_reports_a_partial_result(project_dir: Path, make_explorer: Callable[..., Explorer]) -> None:
    # enough text that a backtracking-heavy pattern cannot finish inside a 10 ms budget
    line = "a" * 200 + "\n"
    for i in range(40):
        (project_dir / f"big{i}.txt").write_text(line * 2000, encoding="utf-8")
    explorer = make_explorer(project_dir, search_timeout_seconds=0.01)
    result = explorer.search_text(r"(a|aa)+(b|a{2,}c)+$")
    assert result.partial is True
    assert result.partial_reason and "stopped after" in result.partial_reason


def test_empty_and_oversized_requests_are_refused(explorer: Explorer) -> None:
    with pytest.raises(InvalidArgument):
        explorer.search_text("")
    with pytest.raises(InvalidArgument):
        explorer.search_text([f"p{i}" for i in range(40)])


def test_regex_too_large_to_compile_is_refused(explorer: Explorer) -> None:
    with pytest.raises(InvalidArgument, match="too large") as caught:
        explorer.search_text(r"(\w{500}){500}")
    assert "repetition" in (caught.value.hint or "")


# Once flaky (a 1 ms timer raced ripgrep); the full suite runs it 50 times, each on a fresh project, to show
# it no longer is (`make test-fast` runs it once).
@pytest.mark.parametrize("attempt", [0, *(pytest.param(n, marks=pytest.mark.slow) for n in range(1, 50))])
def test_references_timeout_is_partial(polyglot: Path, make_explorer: Callable[..., Explorer], attempt: int) -> None:
    # rg blocks on a named pipe nobody writes to, so the deadline always comes first (no race with a
    # fast machine): every real file is searched before it, and what was found comes back as partial
    os.mkfifo(polyglot / "never_written")
    explorer = make_explorer(polyglot, search_timeout_seconds=0.2, source_dirs=["src", "never_written"])
    result = explorer.find_references("helper")
    assert result.partial is True and result.partial_reason and "stopped after" in result.partial_reason


def test_a_truncated_result_is_the_first_matches_in_file_and_line_order(tmp_path: Path,
                                                                          make_explorer: Callable[..., Explorer]) -> None:
    root = (tmp_path / "many").resolve()
    for i in range(60):  # enough files for rg's threads to finish them in varying order
        folder = root / f"pkg{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i:02d}.py").write_text("".join(f"value_{n} = {n}  # needle\n" for n in range(i % 5 + 1)))
    explorer = make_explorer(root)
    everything = explorer.search_text("needle", max_results=5000)
    assert isinstance(everything, PatternResult) and not everything.truncated
    ordered = [(m["file"], m["line"]) for m in everything.matches]
    assert ordered == sorted(ordered)
    for limit in (1, 7, 40):
        answers = [explorer.search_text("needle", max_results=limit, context_lines=1) for _ in range(5)]
        first = answers[0]
        assert isinstance(first, PatternResult) and first.truncated and first.total_matches == len(ordered)
        assert [(m["file"], m["line"]) for m in first.matches] == ordered[:limit]
        assert all(answer == first for answer in answers[1:])


def test_columns_count_characters_not_bytes(project_dir: Path, make_explorer: Callable[..., Explorer]) -> None:
    (project_dir / "greek.txt").write_text("αβγ δ needle and needle\n", encoding="utf-8")
    result = make_explorer(project_dir).search_text("needle")
    assert isinstance(result, PatternResult)
    assert [(m["line"], m["column"], m["text"]) for m in result.matches] == [(1, 7, "αβγ δ needle and needle")]


def test_ripgreps_heading_output_gives_each_file_s_records() -> None:
    """rg's --heading output is parted by file (a note on a binary file left out), and each file's match rows give
    records with columns in characters, texts decoded as shown and carriage returns dropped."""
    from code_intel.explore.ripgrep import _file_bodies, _match_records

    output = b"".join([
        b"./b.py\x0012\x1f5\x1f    return x\n14\x1f9\x1f        return y\r\n",
        b"\n./a.py\x003\x1f1\x1fcaf\xc3\xa9 return\n7\x1f2\x1f return\t\"q\"\n",
        b'bin.dat: binary file matches (found "\\0" byte around offset 4)\n',
        b"\n./c/d.py\x001\x1f1\x1freturn \xff\n",
        b"\n./e%s.py\x002\x1f4\x1fa\\b = \"%d\" return\n9\x1f1\x1freturn 1\n",
    ])
    bodies = _file_bodies(output)
    assert sorted(bodies) == [b"./a.py", b"./b.py", b"./c/d.py", b"./e%s.py"]
    records = {raw: _match_records(raw.decode()[2:], bodies[raw].split(b"\n")) for raw in bodies}
    assert [m["text"] for m in records[b"./a.py"]] == ["caf\u00e9 return", ' return\t"q"']
    assert records[b"./b.py"][1]["text"] == "        return y" and records[b"./c/d.py"][0]["text"] == "return \ufffd"
    assert records[b"./e%s.py"][0] == {"file": "e%s.py", "line": 2, "column": 4, "text": 'a\\b = "%d" return'}
    accented = _match_records("a.py", ["5\x1f8\x1f\u00e9\u00e9\t\u00e9 return\r".encode()])
    assert accented == [{"file": "a.py", "line": 5, "column": 5, "text": "\u00e9\u00e9\t\u00e9 return"}]


def test_a_line_cut_short_when_ripgrep_is_stopped_is_left_out() -> None:
    from code_intel.explore.ripgrep import _file_bodies

    assert _file_bodies(b"./a.py\x001\x1f1\x1freturn 1\n2\x1f1\x1fret") == {b"./a.py": b"1\x1f1\x1freturn 1"}


def test_a_file_printed_twice_is_one_file_with_its_lines_in_order() -> None:
    from code_intel.explore.ripgrep import _file_bodies

    bodies = _file_bodies(b"./a.py\x001\x1f1\x1fx\n\n./b.py\x002\x1f1\x1fz\n\n./a.py\x005\x1f1\x1fy\n")
    assert bodies == {b"./a.py": b"1\x1f1\x1fx\n5\x1f1\x1fy", b"./b.py": b"2\x1f1\x1fz"}


def test_a_run_reads_a_flood_on_stderr_and_keeps_its_deadline(tmp_path: Path) -> None:
    """stdout and stderr are read in one loop: a process that fills the stderr pipe before writing stdout does
    not block, and one that outlives the deadline is killed with what it wrote kept."""
    import time

    from code_intel.explore.ripgrep import _run_rg

    run = _run_rg(tmp_path, ["sh", "-c", "head -c 300000 /dev/zero | tr '\\0' e >&2; echo out"], timeout=10)
    assert (run.stdout, len(run.stderr), run.returncode, run.timed_out) == (b"out\n", 300000, 0, False)
    started = time.monotonic()
    run = _run_rg(tmp_path, ["sh", "-c", "echo early; exec sleep 30"], timeout=0.3)
    assert time.monotonic() - started < 5
    assert run.timed_out and run.stdout == b"early\n"
