from __future__ import annotations

import json
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


def test_lines_read_while_ripgrep_runs_give_the_same_records_however_they_are_cut() -> None:
    """rg's output is read piece by piece as it is written; a piece may end inside a path, a line or the empty
    line between two files, and records are written early only up to the limit. Every cut and limit gives the
    records of one whole read."""
    from pydantic_core import from_json

    from code_intel.explore.ripgrep import _FileBlocks

    output = b"".join([
        b"./b.py\x0012\x1f5\x1f    return x\n14\x1f9\x1f        return y\r\n",
        b"\n./a.py\x003\x1f1\x1fcaf\xc3\xa9 return\n7\x1f2\x1f return\t\"q\"\n",
        b'bin.dat: binary file matches (found "\\0" byte around offset 4)\n',
        b"\n./c/d.py\x001\x1f1\x1freturn \xff\n",
        b"\n./e%s.py\x002\x1f4\x1fa\\b = \"%d\" return\n9\x1f1\x1freturn 1\n",
    ])

    def answered(pieces: list[bytes], limit: int) -> list[tuple[str, list[object]]]:
        arriving = _FileBlocks(limit)
        for piece in pieces:
            arriving.take(piece)
        arriving.finish()
        out = []
        for raw in sorted(arriving.bodies):
            part, escaped = arriving.part(raw.decode()[2:], raw, limit)
            if escaped is not None:  # made while rg ran: the records' JSON as the inside of a JSON string
                assert isinstance(part, bytes) and json.loads(b'"' + escaped + b'"') == part.decode()
            out.append((raw.decode(), from_json(b"[" + part + b"]") if isinstance(part, bytes) else part))
        return out

    whole = answered([output], 99)
    assert [path for path, _ in whole] == ["./a.py", "./b.py", "./c/d.py", "./e%s.py"]
    assert [m["line"] for _, records in whole for m in records] == [3, 7, 12, 14, 1, 2, 9]
    assert [m["text"] for m in whole[0][1]] == ["café return", ' return\t"q"']
    assert whole[1][1][1]["text"] == "        return y" and whole[2][1][0]["text"] == "return \ufffd"
    assert whole[3][1][0] == {"file": "e%s.py", "line": 2, "column": 4, "text": 'a\\b = "%d" return'}
    for limit in [1, 2, 3, 99]:
        expected = [(path, records[:limit]) for path, records in whole]
        for cut in range(1, len(output)):
            assert answered([output[:cut], output[cut:]], limit) == expected, (limit, cut)
            for second in range(cut + 1, len(output), 7):
                assert answered([output[:cut], output[cut:second], output[second:]], limit) == expected, (cut, second)
        assert answered([output[i:i + 1] for i in range(len(output))], limit) == expected, limit


def test_a_line_cut_short_when_ripgrep_is_stopped_is_left_out() -> None:
    from code_intel.explore.ripgrep import _FileBlocks

    arriving = _FileBlocks(99)
    arriving.take(b"./a.py\x001\x1f1\x1freturn 1\n2\x1f1\x1fret")
    arriving.finish()
    assert arriving.rows == {b"./a.py": 1}
    assert arriving.part("a.py", b"./a.py", 99)[0] == b'{"file":"a.py","line":1,"column":1,"text":"return 1"}'


def test_a_file_printed_twice_is_one_file_with_its_lines_in_order() -> None:
    from pydantic_core import from_json

    from code_intel.explore.ripgrep import _FileBlocks

    arriving = _FileBlocks(99)
    arriving.take(b"./a.py\x001\x1f1\x1fx\n\n./b.py\x002\x1f1\x1fz\n\n./a.py\x005\x1f1\x1fy\n")
    arriving.finish()
    assert arriving.rows == {b"./a.py": 2, b"./b.py": 1}
    part, _ = arriving.part("a.py", b"./a.py", 99)
    assert isinstance(part, bytes) and [m["line"] for m in from_json(b"[" + part + b"]")] == [1, 5]


@pytest.mark.parametrize(("text", "fast"), [
    (b"plain return", True), (b"", True), (b'quote " and \\ backslash', True), (b"tab\there", True),
    (b"percent %s %d %% here", True), (b"x" * 500, True), (b"del \x7f char", True),
    (b"x" * 499 + b'"', False), (b"x" * 501, False), (b"\\" * 300, False),  # longer than 500 once escaped
    (b"cr\r", True), (b"caf\xc3\xa9", True), (b"\xc3\xa9\xc3\xa9\xc3\xa9 return \xe2\x80\x94 \xf0\x9f\x98\x80", True),
    (b"\xc3\xa9" * 250, True), (b"\xc3\xa9" * 251, False),  # 500 characters are 1,000 bytes: cut or not, careful
    (b"bell \x07", False), (b"nul \x00", False), (b"cr\r\r", False), (b"mid\rline", False),
    (b"unit \x1f separator", False), (b"bad \xff byte", False), (b"cut \xc3", False), (b"form \x0c feed", False),
    (b"esc \x1b[0m", False),
])
def test_records_written_from_ripgrep_lines_are_the_records_built_from_them(text: bytes, fast: bool) -> None:
    """The fast writer (straight from rg's bytes) and the careful one (a dict per record) give the same
    records, whatever a line holds; where the fast one cannot be sure, it declines."""
    from pydantic_core import from_json, to_json

    from code_intel.explore.ripgrep import _match_records, _written_records

    body = b"3\x1f1\x1fbefore\n17\x1f4\x1f" + text + b"\n20\x1f2\x1f\tafter"
    rows = body.split(b"\n")
    for path in ["a.py", 'we"ird\\pa%th.py', "dir/é.py"]:
        for limit in [1, 2, 3, 10]:
            expected = _match_records(path, rows[:limit])
            written = _written_records(to_json(path), body, limit)
            if written is not None:
                assert from_json(b"[" + written + b"]") == expected, (path, limit)
    assert (_written_records(b'"a.py"', body, 3) is not None) == fast


def test_a_run_reads_a_flood_on_stderr_and_keeps_its_deadline(tmp_path: Path) -> None:
    """stdout and stderr are read in one loop: a process that fills the stderr pipe before writing stdout does
    not block, and one that outlives the deadline is killed with what it wrote kept."""
    import time

    from code_intel.explore.ripgrep import _run_rg

    run = _run_rg(tmp_path, ["sh", "-c", "head -c 300000 /dev/zero | tr '\\0' e >&2; echo out"], timeout=10)
    assert (run.stdout, len(run.stderr), run.returncode, run.timed_out) == (b"out\n", 300000, 0, False)
    pieces: list[bytes] = []
    started = time.monotonic()
    run = _run_rg(tmp_path, ["sh", "-c", "echo early; exec sleep 30"], timeout=0.3, take=pieces.append)
    assert time.monotonic() - started < 5
    assert run.timed_out and b"".join(pieces) == b"early\n" and run.stdout == b""


def test_written_records_count_columns_in_characters_and_drop_carriage_returns() -> None:
    from pydantic_core import from_json

    from code_intel.explore.ripgrep import _written_records

    body = "5\x1f8\x1féé\té return\r\n6\x1f3\x1f  return\r".encode()
    written = _written_records(b'"a.py"', body, 9)
    assert written is not None
    assert from_json(b"[" + written + b"]") == [
        {"file": "a.py", "line": 5, "column": 5, "text": "éé\té return"},
        {"file": "a.py", "line": 6, "column": 3, "text": "  return"},
    ]


def test_ripgreps_output_pipe_is_widened_where_the_system_allows() -> None:
    """rg keeps writing while a piece of its output is being turned into records (no stall on a full pipe)."""
    import fcntl
    import subprocess

    from code_intel.explore.ripgrep import PIPE_BYTES, _widen

    if not hasattr(fcntl, "F_GETPIPE_SZ"):
        pytest.skip("no pipe sizes on this system")
    proc = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        _widen(proc.stdout.fileno())
        assert fcntl.fcntl(proc.stdout.fileno(), fcntl.F_GETPIPE_SZ) == PIPE_BYTES
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()
        proc.stdout.close()  # type: ignore[union-attr]
