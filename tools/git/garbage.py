"""Garbage candidates in a session's changes, after review_prompts/garbage_detection.md.

Only what the session added is scanned (the `+` lines of its diff), so the user's existing code is
never reported. These are candidates: the agent decides, with the review prompt, what to remove.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from code_intel.core.session_types import GarbageCandidate

LARGE_FILE_BYTES = 1_000_000
COMMENTED_BLOCK_MIN_LINES = 3

_PY_LIKE = {".py", ".pyi"}
_JS_LIKE = {".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".vue", ".svelte"}
# (extensions, pattern, what it is); None means every file
_DEBUG_PATTERNS: list[tuple[set[str] | None, re.Pattern[str], str]] = [
    (_PY_LIKE, re.compile(r"^\s*print\s*\("), "print() call"),
    (_PY_LIKE, re.compile(r"\b(breakpoint\(\)|pdb\.set_trace\(\)|import i?pdb\b)"), "debugger hook"),
    (_JS_LIKE, re.compile(r"\bconsole\.(log|debug|trace|dir)\s*\("), "console output"),
    (_JS_LIKE, re.compile(r"^\s*debugger\s*;?\s*$"), "debugger statement"),
    ({".php"}, re.compile(r"\b(var_dump|print_r|var_export|dd|dump)\s*\("), "PHP debug dump"),
    ({".go"}, re.compile(r"\bfmt\.Print(ln|f)?\s*\("), "fmt.Print output"),
    ({".rs"}, re.compile(r"\bdbg!\s*\("), "dbg! macro"),
    ({".rb"}, re.compile(r"\b(binding\.pry|byebug)\b"), "debugger hook"),
    ({".java", ".kt"}, re.compile(r"\bSystem\.(out|err)\.print(ln)?\s*\(|\.printStackTrace\(\)"), "console output"),
    ({".c", ".cc", ".cpp", ".h", ".hpp"}, re.compile(r"\b(printf|fprintf)\s*\(.*\b(DEBUG|debug|XXX)\b"), "debug printf"),
]
_PLACEHOLDER = re.compile(r"\b(TODO|FIXME|XXX)\b|raise NotImplementedError")
_SECRET = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----|\bAKIA[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{30,}\b"
    r"|\b(password|passwd|secret|api[_-]?key|token)\s*[:=]\s*['\"][^'\"\s]{6,}['\"]",
    re.IGNORECASE,
)
_TEMP_NAMES = re.compile(r"(\.(tmp|temp|bak|orig|rej|swp|swo)|~)$|^(\.DS_Store|Thumbs\.db|tmp\..+|scratch\..+)$", re.IGNORECASE)
_LOCAL_PARTS = {"__pycache__", "node_modules", ".idea", ".vscode", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
_LOCAL_NAMES = re.compile(r"^(\.env(\..+)?|.*\.pyc|.*\.log)$")
_COMMENT_PREFIX = re.compile(r"^\s*(#|//|--|;)\s?(.*)$")
# text after a comment marker that reads like code rather than prose
_CODE_LIKE = re.compile(r"([;{}]\s*$|^\s*(def|class|if|for|while|return|import|from|function|const|let|var)\b|\w+\s*=[^=]|\w+\(.*\)\s*:?\s*$)")


@dataclass(frozen=True)
class ChangedFile:
    file: str
    status: str  # added, modified, deleted, type_changed
    binary: bool
    size: int | None  # bytes in the working tree, None when deleted
    patch: str  # this file's part of the unified diff ("" for binary files)


def added_lines(patch: str) -> Iterator[tuple[int, str]]:
    """(new-file line number, text) for each `+` line of a unified diff."""
    line_no = 0
    for raw in patch.splitlines():
        if raw.startswith("@@"):
            match = re.match(r"^@@ -\d+(?:,\d+)? \+(\d+)", raw)
            line_no = int(match.group(1)) if match else 0
        elif raw.startswith("+++") or raw.startswith("---"):
            continue
        elif raw.startswith("+"):
            yield line_no, raw[1:]
            line_no += 1
        elif raw.startswith(" "):
            line_no += 1


def _file_level(changed: ChangedFile) -> list[GarbageCandidate]:
    found: list[GarbageCandidate] = []
    path = PurePosixPath(changed.file)
    if changed.status != "added":
        return found if not (changed.size and changed.size > LARGE_FILE_BYTES) else [
            GarbageCandidate(file=changed.file, line=1, kind="large_file", detail=f"{changed.size} bytes after the change")
        ]
    if _TEMP_NAMES.search(path.name):
        found.append(GarbageCandidate(file=changed.file, line=1, kind="temp_file", detail="temporary or backup file name"))
    if _LOCAL_PARTS.intersection(path.parts) or _LOCAL_NAMES.match(path.name):
        found.append(GarbageCandidate(file=changed.file, line=1, kind="local_file", detail="machine-local or generated file"))
    if changed.size and changed.size > LARGE_FILE_BYTES:
        found.append(GarbageCandidate(file=changed.file, line=1, kind="large_file", detail=f"{changed.size} bytes added"))
    if changed.binary:
        found.append(GarbageCandidate(file=changed.file, line=1, kind="binary_file", detail="binary file added"))
    return found


def _line_level(changed: ChangedFile) -> list[GarbageCandidate]:
    found: list[GarbageCandidate] = []
    suffix = PurePosixPath(changed.file).suffix.lower()
    block: list[tuple[int, str]] = []

    def close_block() -> None:
        code_like = sum(1 for _, text in block if _CODE_LIKE.search(text))
        if len(block) >= COMMENTED_BLOCK_MIN_LINES and code_like * 2 >= len(block):
            found.append(GarbageCandidate(
                file=changed.file, line=block[0][0], end_line=block[-1][0], kind="commented_out_code",
                detail=f"{len(block)} commented lines that read like code",
            ))
        block.clear()

    previous = -1
    for line_no, text in added_lines(changed.patch):
        comment = _COMMENT_PREFIX.match(text)
        if comment and line_no == previous + 1 and block:
            block.append((line_no, comment.group(2)))
        else:
            close_block()
            if comment:
                block.append((line_no, comment.group(2)))
        previous = line_no
        for suffixes, pattern, what in _DEBUG_PATTERNS:
            if (suffixes is None or suffix in suffixes) and pattern.search(text):
                found.append(GarbageCandidate(file=changed.file, line=line_no, kind="debug_output", detail=f"{what}: {text.strip()[:120]}"))
                break
        if _SECRET.search(text):
            found.append(GarbageCandidate(file=changed.file, line=line_no, kind="secret", detail="looks like a credential; it must not be committed"))
        elif _PLACEHOLDER.search(text):
            found.append(GarbageCandidate(file=changed.file, line=line_no, kind="placeholder", detail=text.strip()[:120]))
    close_block()
    return found


def find_garbage(changes: list[ChangedFile]) -> list[GarbageCandidate]:
    """Every candidate in the changed files, ordered by file then line."""
    found: list[GarbageCandidate] = []
    for changed in changes:
        if changed.status == "deleted":
            continue
        found.extend(_file_level(changed))
        if not changed.binary:
            found.extend(_line_level(changed))
    return sorted(found, key=lambda c: (c.file, c.line))
