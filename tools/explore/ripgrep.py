"""ripgrep adapter: runs `rg --json` with a deadline and turns its event stream into matches.

Patterns always follow `-e` and paths follow `--`, so user text can never become an rg option.
A timeout kills rg and reports the result as partial; it never looks like a complete answer.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import logging
import os
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

from tools.binaries import require_binary
from tools.errors import InvalidArgument
from tools.explore import budget
from tools.project import RUNTIME_DIRS, STATE_DIR

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
    is_match: bool
    # (start, end) byte offsets of each submatch within the line
    spans: list[tuple[int, int]] = field(default_factory=list)
    offset: int = 0  # byte offset of the line's start in the file
    columns: list[int] = field(default_factory=list)  # 1-based character column of each submatch


@dataclass
class RgOutcome:
    lines: list[RgLine]
    total_matches: int
    files_with_matches: int
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


def run_rg_json(
    cwd: Path,
    patterns: list[str],
    filters: RgFilters,
    *,
    flags: list[str] | None = None,
    context_lines: int = 0,
    keep_matches: int | None = None,
    timeout: float = 10.0,
) -> RgOutcome:
    """Run one rg search; keep the first `keep_matches` match lines (all when None) but count every one."""
    args = [require_binary("rg"), "--json", "--no-config", "--regex-size-limit", REGEX_SIZE_LIMIT]
    args += flags or []
    if context_lines:
        args += ["--context", str(context_lines)]
    args += filters.args()
    for pattern in patterns:
        args += ["-e", pattern]
    args += ["--", *filters.roots]
    timeout = budget.remaining(timeout)

    proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    timed_out = threading.Event()

    def expire() -> None:
        timed_out.set()
        proc.kill()

    timer = threading.Timer(timeout, expire)
    timer.daemon = True
    stderr_chunks: list[bytes] = []
    # stderr is drained on its own thread so a chatty rg never blocks on a full pipe
    drain = threading.Thread(target=lambda: stderr_chunks.append(proc.stderr.read() if proc.stderr else b""), daemon=True)
    drain.start()
    timer.start()
    lines: list[RgLine] = []
    total = 0
    files_with_matches = 0
    kept = 0
    try:
        assert proc.stdout is not None
        for raw in proc.stdout:
            full = keep_matches is not None and kept >= keep_matches
            if raw.startswith(b'{"type":"match"'):
                total += 1
                if full:
                    break  # the rest is only counted, below
                kept += 1
            elif raw.startswith(b'{"type":"context"'):
                pass  # context after the last kept match still belongs to it
            elif raw.startswith(b'{"type":"begin"'):
                files_with_matches += 1  # rg --json's own summary undercounts searched files
                if full:
                    break
                continue
            else:
                continue
            event = json.loads(raw)
            data = event["data"]
            raw_line = _raw(data.get("lines"))
            text = raw_line.decode("utf-8", errors="replace").rstrip("\r\n")
            spans = [(m["start"], m["end"]) for m in data.get("submatches", [])]
            # columns count characters, decoded the same way as the text shown
            columns = [len(raw_line[:start].decode("utf-8", errors="replace")) + 1 for start, _ in spans]
            lines.append(RgLine(_relative(_decode_path(data["path"])), data["line_number"], text, event["type"] == "match",
                                spans, data.get("absolute_offset", 0), columns))
        # past max_results, events are counted in bulk: one JSON event per line, and a quote inside
        # matched text is escaped, so these byte strings only ever start an event
        rest = proc.stdout.read()
        total += rest.count(b'{"type":"match"')
        files_with_matches += rest.count(b'{"type":"begin"')
        proc.wait()
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        drain.join(timeout=2)
    stderr = b"".join(stderr_chunks).decode("utf-8", errors="replace")
    if timed_out.is_set():
        budget.note_partial(f"ripgrep stopped after {timeout:.3g} s: files not yet searched are missing")
        return RgOutcome(lines, total, files_with_matches, timed_out=True)
    # rg: 0 = matches, 1 = none, 2 = error (also used when some files were unreadable but others matched)
    if proc.returncode == 2 and total == 0 and _is_pattern_error(stderr):
        raise describe_rg_error(stderr)
    if proc.returncode == 2:
        log.warning("rg reported problems: %s", stderr.strip()[:500])
    return RgOutcome(lines, total, files_with_matches, timed_out=False)


def list_files(cwd: Path, filters: RgFilters, timeout: float = 10.0, extra: list[str] | None = None) -> tuple[list[str], bool]:
    """Project-relative files rg would search (gitignore and excludes applied); second item: timed out.

    `extra` adds rg options (e.g. --glob). Names that are not UTF-8 keep their bytes (os.fsdecode).
    """
    args = [require_binary("rg"), "--files", "--no-config", *(extra or []), *filters.args(), "--", *filters.roots]
    timeout = budget.remaining(timeout)
    try:
        done = subprocess.run(args, cwd=cwd, capture_output=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as err:
        budget.note_partial(f"listing files stopped after {timeout:.3g} s: the list is incomplete")
        partial = (err.stdout or b"").split(b"\n")
        return [_relative(os.fsdecode(p)) for p in partial[:-1] if p], True
    if done.returncode == 2 and not done.stdout:
        raise describe_rg_error(done.stderr.decode("utf-8", errors="replace"), pattern_hint=False)
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
