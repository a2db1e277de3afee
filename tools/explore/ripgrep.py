"""ripgrep adapter: runs rg with a deadline and turns its output into matches.

search_text reads rg's `--heading` output and parses only the lines it answers (see search_lines);
find_references reads `rg --json`, which gives every submatch's byte span. Patterns
always follow `-e` and paths follow `--`, so user text can never become an rg option. A timeout kills rg and
reports the result as partial; it never looks like a complete answer."""

from __future__ import annotations

import base64
import dataclasses
import errno
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from pydantic_core import from_json

from code_intel.core import processes
from code_intel.core.binaries import require_binary
from code_intel.core.errors import InvalidArgument
from code_intel.core.project import RUNTIME_DIRS, STATE_DIR
from code_intel.explore import budget
from code_intel.explore.models import TextMatch

log = logging.getLogger(__name__)

# Keeps a pathological pattern from exhausting memory while rg compiles it.
REGEX_SIZE_LIMIT = "64M"


@dataclass(frozen=True)
class RgFilters:
    """What every rg run shares: excluded globs, file-size cap and the roots to search (relative)."""

    excludes: tuple[str, ...] = ()
    max_file_bytes: int | None = None
    roots: tuple[str, ...] = (".",)

    def args(self) -> list[str]:
        # dot-folders such as .github hold real project files; git's folder and our caches never do
        out: list[str] = ["--hidden", "--glob", "!.git/", "--glob", "!**/.git/**"]
        for runtime in RUNTIME_DIRS:
            out += ["--glob", f"!{STATE_DIR}/{runtime}/"]
        for pattern in self.excludes:
            out += ["--glob", "!" + pattern]
        if self.max_file_bytes:
            out += ["--max-filesize", str(self.max_file_bytes)]
        return out


@dataclass
class RgLine:
    file: str
    line: int
    text: str
    # (start, end) byte offsets of each submatch within the line
    spans: list[tuple[int, int]] = field(default_factory=list)
    offset: int = 0  # byte offset of the line's start in the file
    columns: list[int] = field(default_factory=list)  # 1-based character column of each submatch


@dataclass
class RgOutcome:
    lines: list[RgLine]  # every matching line, with each submatch
    timed_out: bool


@dataclass
class LineSearch:
    """search_text's rows: the first `limit` matching lines in (file, line) order, each a dict with file,
    line, column, text and, when context was asked for, context_before / context_after; and counts of all."""

    matches: list[TextMatch]
    total: int  # matching lines
    files: int  # files with a match
    timed_out: bool


class RgError(InvalidArgument):
    """rg refused the pattern or its arguments."""


def _raw(value: dict[str, str] | None) -> bytes:
    if not value:
        return b""
    if "text" in value:
        return value["text"].encode("utf-8")
    # non-UTF-8 content arrives base64-encoded
    return base64.b64decode(value.get("bytes", ""))


def _decode_path(value: dict[str, str] | None) -> str:
    """A path rg reported; a name that is not UTF-8 keeps its bytes as surrogate escapes (os.fsdecode)."""
    if value and "text" in value:
        return value["text"]
    return os.fsdecode(_raw(value))


def _relative(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def _is_pattern_error(stderr: str) -> bool:
    lowered = stderr.lower()
    return "regex" in lowered or "parse error" in lowered or "pattern" in lowered


def describe_rg_error(stderr: str, pattern_hint: bool = True) -> RgError:
    text = stderr.strip() or "ripgrep failed without a message"
    hint = "fix the regular expression, or send fixed_strings=true to search the text literally" if pattern_hint else None
    if "size limit" in text.lower():
        return RgError(f"the regular expression is too large to run: {text}",
                       hint="use smaller repetition counts (e.g. \\w+ instead of \\w{500}), or fixed_strings=true")
    if "regex" in text.lower() or "parse error" in text.lower():
        return RgError(f"invalid regular expression: {text}", hint=hint)
    return RgError(f"ripgrep refused the search: {text}", hint=hint)


# the option before a user's text says what that text is, for a refusal that names it
_ARGUMENT_KINDS = {"-e": "pattern", "--glob": "glob", "-g": "glob", "--iglob": "glob"}


def _spawn_refusal(args: list[str], err: Exception) -> InvalidArgument | None:
    """The refusal for arguments the system cannot hand to rg at all, or None when `err` is something else: a NUL
    byte (no program argument can hold one) or an argument over the kernel's size limit (E2BIG)."""
    if isinstance(err, ValueError) and "null byte" in str(err):
        index = next((i for i, arg in enumerate(args) if "\x00" in arg), None)
        if index is None:
            return None
        kind = _ARGUMENT_KINDS.get(args[index - 1], "argument")
        hint = "remove the NUL byte; to find NUL bytes in files, search for the regex \\x00" if kind == "pattern" \
            else f"remove the NUL byte from the {kind}"
        return InvalidArgument(f"the {kind} {args[index][:80]!r} contains a NUL byte, which cannot be passed to ripgrep",
                               hint=hint)
    if isinstance(err, OSError) and err.errno == errno.E2BIG:
        index = max(range(1, len(args)), key=lambda i: len(args[i]))
        kind = _ARGUMENT_KINDS.get(args[index - 1], "argument")
        size = len(os.fsencode(args[index]))
        return InvalidArgument(f"the {kind} is too long to pass to ripgrep ({size:,} bytes; the system limit is about "
                               "128 KB per argument)",
                               hint=f"send a shorter {kind}; several short patterns can go in one call as a list")
    return None


def _run(args: list[str], cwd: Path, timeout: float) -> processes.Finished:
    """rg run to its end or to `timeout`; arguments the system cannot hand to rg are refused."""
    try:
        return processes.run(args, cwd=cwd, timeout=timeout)
    except (ValueError, OSError) as err:
        refusal = _spawn_refusal(args, err)
        if refusal is None:
            raise
        raise refusal from None


@dataclass
class _RgRun:
    stdout: bytes
    stderr: str
    returncode: int | None
    timed_out: bool


def _run_rg(cwd: Path, args: list[str], timeout: float) -> _RgRun:
    """Run rg to the end, or kill it at `timeout` (or when the call's time budget runs out first); what it
    wrote by then is kept, and the call is marked partial."""
    timeout = budget.remaining(timeout)
    done = _run(args, cwd, timeout)
    if done.timed_out:
        budget.note_partial(f"ripgrep stopped after {timeout:.3g} s: files not yet searched are missing")
    return _RgRun(done.stdout, done.err, done.returncode, done.timed_out)


def _check(run: _RgRun, found: int) -> None:
    """rg: 0 = matches, 1 = none, 2 = error (also used when some files were unreadable but others matched)."""
    if run.timed_out:
        return
    if run.returncode == 2 and found == 0 and _is_pattern_error(run.stderr):
        raise describe_rg_error(run.stderr)
    if run.returncode == 2:
        log.warning("rg reported problems: %s", run.stderr.strip()[:500])


def _base_args(flags: list[str] | None, filters: RgFilters) -> list[str]:
    return [require_binary("rg"), "--no-config", "--regex-size-limit", REGEX_SIZE_LIMIT, *(flags or []), *filters.args()]


def run_rg_json(
    cwd: Path,
    patterns: list[str],
    filters: RgFilters,
    *,
    flags: list[str] | None = None,
    timeout: float = 10.0,
) -> RgOutcome:
    """Every matching line with the byte span and column of each submatch (`rg --json`)."""
    args = [*_base_args(flags, filters), "--json"]
    for pattern in patterns:
        args += ["-e", pattern]
    run = _run_rg(cwd, [*args, "--", *filters.roots], timeout)
    # one JSON event per line, and a quote inside matched text is escaped, so this only ever starts a match event;
    # the match events are decoded in one go (a line cut short by a timeout is left out)
    events = [line for line in run.stdout.split(b"\n") if line.startswith(b'{"type":"match"') and line.endswith(b"}")]
    lines = [_line(event["data"]) for event in from_json(b"[" + b",".join(events) + b"]")] if events else []
    _check(run, len(lines))
    return RgOutcome(lines, run.timed_out)


def _line(data: dict[str, Any]) -> RgLine:
    raw_line = _raw(data.get("lines"))
    text = raw_line.decode("utf-8", errors="replace").rstrip("\r\n")
    spans = [(m["start"], m["end"]) for m in data.get("submatches", [])]
    # columns count characters, decoded the same way as the text shown
    if raw_line.isascii():
        columns = [start + 1 for start, _ in spans]
    else:
        columns = [len(raw_line[:start].decode("utf-8", errors="replace")) + 1 for start, _ in spans]
    return RgLine(_relative(_decode_path(data["path"])), data["line_number"], text, spans, data.get("absolute_offset", 0),
                  columns)


# search_text reads rg's --heading output with --null: each file is its path and a NUL, then its lines, and files
# are parted by an empty line. A match line is `number US column US text`, US being the unit separator (set by
# --field-match-separator); a context line is `number-text`. rg prints each file whole. When rg was given a binary
# file by name, it may also print a line `path: binary file matches (...)`, which is no row and is left out.
_US = b"\x1f"
_ROW = re.compile(rb"(\d+)(?:\x1f(\d+)\x1f|-)(.*)", re.DOTALL)
_Row = tuple[bytes, bytes | None, bytes]  # line number, column (None on a context line), text
_BINARY_NOTE = re.compile(rb'(?!\d+\x1f\d+\x1f).*: binary file matches \(found "\\0" byte around offset \d+\)')
MAX_TEXT_CHARS = 500  # a matching line's text is cut to this many characters


def _parse_rows(rows: list[bytes]) -> list[_Row]:
    return [cast(_Row, m.groups()) for m in map(_ROW.match, rows) if m]


# the match rows of a file, several at once: an ASCII block with no carriage return is parsed by one regex pass
# and needs no byte-to-character column conversion
_ASCII_ROWS = re.compile(r"^(\d+)\x1f(\d+)\x1f(.*)$", re.MULTILINE)


def _match_records(path: str, rows: list[bytes]) -> list[TextMatch]:
    """search_text's match records for match rows (no context lines) of one file."""
    block = b"\n".join(rows)
    if block.isascii() and b"\r" not in block:
        return [{"file": path, "line": int(number), "column": int(column), "text": text[:MAX_TEXT_CHARS]}
                for number, column, text in _ASCII_ROWS.findall(block.decode("ascii"))]
    return [_match_record(path, number, column, raw) for number, column, raw in _parse_rows(rows)]


def _match_record(path: str, number: bytes, column: bytes | None, raw: bytes) -> TextMatch:
    byte_column = int(column or 1)
    return {"file": path, "line": int(number),
            # columns count characters, decoded the same way as the text shown
            "column": byte_column if raw.isascii() else len(raw[: byte_column - 1].decode("utf-8", errors="replace")) + 1,
            "text": _text(raw)}


def search_lines(
    cwd: Path,
    pattern: str,
    filters: RgFilters,
    *,
    flags: list[str] | None = None,
    context_lines: int = 0,
    limit: int = 100,
    timeout: float = 10.0,
) -> LineSearch:
    """search_text on rg's output: the first `limit` matching lines in (file, line) order, whatever order rg's
    threads finished the files in (so the same call keeps the same lines), and every match counted. Without
    context lines, only the lines answered are parsed (the others are counted)."""
    args = [*_base_args(flags, filters), "--null", "--line-number", "--column", "--heading", "--with-filename",
            "--field-match-separator", _US.decode(), "--color", "never"]
    if context_lines:
        args += ["--context", str(context_lines), "--no-context-separator"]
    run = _run_rg(cwd, [*args, "-e", pattern, "--", *filters.roots], timeout)
    bodies = _file_bodies(run.stdout)
    if context_lines:
        return _with_context(bodies, context_lines, limit, run)
    total = sum(body.count(b"\n") + 1 for body in bodies.values())
    _check(run, total)
    matches: list[TextMatch] = []
    for path, raw_path in sorted((_relative(os.fsdecode(p)), p) for p in bodies):
        wanted = limit - len(matches)
        if wanted <= 0:
            break  # the rest are counted only
        matches += _match_records(path, bodies[raw_path].split(b"\n", wanted)[:wanted])
    return LineSearch(matches, total, len(bodies), run.timed_out)


def _with_context(bodies: dict[bytes, bytes], context_lines: int, limit: int, run: _RgRun) -> LineSearch:
    """search_text's records with context lines: match and context lines are told apart by what follows the
    line number."""
    parsed = {raw_path: _parse_rows(body.split(b"\n")) for raw_path, body in bodies.items()}
    total = sum(1 for rows in parsed.values() for row in rows if row[1] is not None)
    _check(run, total)
    matches: list[TextMatch] = []
    files = 0
    for path, raw_path in sorted((_relative(os.fsdecode(p)), p) for p in parsed):
        rows = parsed[raw_path]
        if not any(row[1] is not None for row in rows):
            continue
        files += 1
        wanted = limit - len(matches)
        if wanted <= 0:
            continue  # counted only
        texts = {int(number): text for number, _, text in rows}
        for number, column, raw in [row for row in rows if row[1] is not None][:wanted]:
            match = _match_record(path, number, column, raw)
            line = match["line"]
            match["context_before"] = [_text(texts[n]) for n in range(line - context_lines, line) if n in texts]
            match["context_after"] = [_text(texts[n]) for n in range(line + 1, line + context_lines + 1) if n in texts]
            matches.append(match)
    return LineSearch(matches, total, files, run.timed_out)


def _file_bodies(out: bytes) -> dict[bytes, bytes]:
    """rg's --heading output by file: raw path -> its lines, without the last newline. Only whole lines are kept:
    what comes after the last newline (a line cut short when rg was stopped) is dropped."""
    bodies: dict[bytes, bytes] = {}
    for block in out[:max(0, out.rfind(b"\n"))].split(b"\n\n"):
        raw_path, nul, body = block.partition(b"\0")
        if not nul or not body:
            continue  # no file: a note on a binary file rg was given by name
        if b"\n" in raw_path:  # such a note printed just before the file
            raw_path = raw_path.rpartition(b"\n")[2]
        if b": binary file matches (" in body:
            body = b"\n".join(row for row in body.split(b"\n") if not _BINARY_NOTE.fullmatch(row))
            if not body:
                continue
        # the same file twice (rg was given overlapping roots): one file, lines in order
        bodies[raw_path] = bodies[raw_path] + b"\n" + body if raw_path in bodies else body
    return bodies


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace").rstrip("\r")[:MAX_TEXT_CHARS]


def list_files(cwd: Path, filters: RgFilters, timeout: float = 10.0, extra: list[str] | None = None) -> tuple[list[str], bool]:
    """Project-relative files rg would search (gitignore and excludes applied); second item: timed out.

    `extra` adds rg options (e.g. --glob). Names that are not UTF-8 keep their bytes (os.fsdecode).
    """
    args = [require_binary("rg"), "--files", "--no-config", *(extra or []), *filters.args(), "--", *filters.roots]
    timeout = budget.remaining(timeout)
    done = _run(args, cwd, timeout)
    if done.timed_out:
        budget.note_partial(f"listing files stopped after {timeout:.3g} s: the list is incomplete")
        partial = done.stdout.split(b"\n")
        return [_relative(os.fsdecode(p)) for p in partial[:-1] if p], True
    if done.returncode == 2 and not done.stdout:
        raise describe_rg_error(done.err, pattern_hint=False)
    return [_relative(os.fsdecode(p)) for p in done.stdout.split(b"\n") if p], False


@dataclass(frozen=True)
class SkippedFile:
    file: str
    size: int
    reason: str


def oversized_files(cwd: Path, filters: RgFilters, timeout: float = 10.0) -> list[SkippedFile]:
    """Files under the filters' roots that exceed max_file_bytes (largest first): what rg skips."""
    limit = filters.max_file_bytes
    if not limit:
        return []
    everything, _ = list_files(cwd, dataclasses.replace(filters, max_file_bytes=None), timeout)
    found: list[SkippedFile] = []
    for rel in everything:
        try:
            size = os.stat(cwd / rel).st_size
        except OSError:
            continue
        if size > limit:
            found.append(SkippedFile(rel, size, too_big_reason(size, limit)))
    return sorted(found, key=lambda f: (-f.size, f.file))


def too_big_reason(size: int, limit: int) -> str:
    return (f"{size:,} bytes, over max_file_bytes ({limit:,}): not searched; raise max_file_bytes in "
            ".code-intel/config.json to include it")
