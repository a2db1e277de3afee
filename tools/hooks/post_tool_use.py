"""`code-intel hook post-tool-use`: which project files did the tool's answer show the agent?

A file counts as read only when its content came back: the client hands this hook the tool's response
(Claude Code's `Read` returns `{"file": {"content": ...}}`, a shell call `{"stdout": ..., "stderr": ...}`,
Codex's shell its output), and a file is logged to the session's read log when a line of it, one long
enough to say something (MIN_LINE_CHARS, or the longest the file has), is in that response. Output that was
discarded or empty shows nothing: `cat f > /dev/null`, `head -c 0 f`, `grep -l X f`, `true || cat f`, and a
`Read` with an offset past the end log nothing.

Which files to check: the `Read` tool's `file_path`; for a shell call, every word of the command that names
a project file, and every `path:` that starts a line of the output (grep -r, rg). Prefixes that grep, rg,
`cat -n`, `nl` and the Read tool put before a line are taken off before comparing.

Bounded: at most MAX_FILES files, the first MAX_FILE_BYTES of each, the first MAX_RESPONSE_CHARS of the
response. Standard library only, never blocks: this hook only records.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from code_intel.core.errors import CheckpointCorrupt
from code_intel.core.project import ProjectRoot
from code_intel.hooks.session import find_session
from code_intel.workflow import write_log

READ_TOOL = "Read"
SHELL_TOOL = "Bash"
MIN_LINE_CHARS = 8
MAX_FILES = 200
MAX_FILE_BYTES = 2_000_000
MAX_RESPONSE_CHARS = 4_000_000
# keys of a tool response that echo the call, not what it showed
ECHO_KEYS = frozenset({"filePath", "file_path", "command", "description", "cwd", "path", "notebook_path"})
# what grep/rg/cat -n/nl/Read put before a line: `path:12:`, `path-12-`, `12:`, `   12\t`, `12→`
_PREFIX = re.compile(r"^(?:[^\s:]+[:-])?\s*\d+(?:[:\-\t→|]|\s{2})|^[^\s:]+:")
_PATH_AT_START = re.compile(r"^([^\s:]+?)(?::|-\d+-)")


def response_text(response: Any, limit: int = MAX_RESPONSE_CHARS) -> str:
    """Every string the response holds (nested lists and objects too), minus the ones that echo the call."""
    pieces: list[str] = []
    size = 0
    stack: list[Any] = [response]
    while stack and size < limit:
        value = stack.pop()
        if isinstance(value, str):
            pieces.append(value[:limit - size])
            size += len(pieces[-1])
        elif isinstance(value, dict):
            stack.extend(v for k, v in reversed(list(value.items())) if k not in ECHO_KEYS)
        elif isinstance(value, list):
            stack.extend(reversed(value))
    return "\n".join(pieces)


def shown_lines(text: str) -> set[str]:
    """The response's lines, stripped, each also without the prefix a listing tool put before it."""
    lines: set[str] = set()
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        lines.add(stripped)
        bare = _PREFIX.sub("", line, count=1).strip()
        if bare and bare != stripped:
            lines.add(bare)
            again = _PREFIX.sub("", bare, count=1).strip()  # path:12: -> 12: -> the line
            if again:
                lines.add(again)
    return lines


def file_shown(path: Path, lines: set[str]) -> bool:
    """Whether `lines` (from shown_lines) hold a telling line of the file: one of MIN_LINE_CHARS or more, or the
    file's longest when all are shorter. (An empty file has nothing to show: record_reads counts it when the
    call named it.)"""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES)
    except OSError:
        return False
    own = {line.strip() for line in data.decode("utf-8", errors="replace").splitlines()}
    own.discard("")
    if not own:
        return False
    telling = {line for line in own if len(line) >= MIN_LINE_CHARS} or {max(own, key=len)}
    return not telling.isdisjoint(lines)


def candidates(words: list[str], output: str, cwd: Path, root: Path) -> list[Path]:
    """Project files a shell call may have shown: its words that name files, and `path:` line starts."""
    found: dict[Path, None] = {}
    named_in_output: list[str] = []
    for line in output.splitlines()[:20_000]:
        if match := _PATH_AT_START.match(line):
            named_in_output.append(match.group(1))  # grep -r, rg: `path:line:text`
        elif line and " " not in line and "\t" not in line:
            named_in_output.append(line)  # rg's heading: the path alone on its line
    for text in words + named_in_output:
        if len(found) >= MAX_FILES or not text or "\0" in text:
            continue
        path = Path(os.path.expanduser(text))
        path = path if path.is_absolute() else cwd / path
        try:
            real = Path(os.path.realpath(path))
        except (OSError, ValueError):
            continue
        if (real == root or root in real.parents) and real.is_file():
            found[real] = None
    return list(found)


def record_reads(event: dict[str, Any], root: ProjectRoot) -> tuple[str, ...]:
    """Append the project files the tool's answer showed to the session's read log; the files logged."""
    tool = event.get("tool_name")
    if tool not in (READ_TOOL, SHELL_TOOL):
        return ()
    try:
        session = find_session(root)
    except CheckpointCorrupt:
        return ()
    if session is None:
        return ()
    given = event.get("tool_input")
    tool_input: dict[str, Any] = given if isinstance(given, dict) else {}
    response = event.get("tool_response")
    if isinstance(response, str):  # some clients hand it over as JSON text
        try:
            response = json.loads(response)
        except ValueError:
            pass
    text = response_text(response)
    cwd_text = event.get("cwd")
    cwd = Path(cwd_text) if isinstance(cwd_text, str) and os.path.isabs(cwd_text) else root.path
    command = tool_input.get("command") if tool == SHELL_TOOL else None
    if tool == READ_TOOL:
        path = tool_input.get("file_path")
        named = candidates([path] if isinstance(path, str) else [], "", cwd, root.path)
        found = named
    else:
        if not isinstance(command, str):
            return ()
        named = candidates(_words(command), "", cwd, root.path)
        found = candidates(_words(command), text, cwd, root.path)
    lines = shown_lines(text)
    if command:  # a line the agent typed into its own command (echo, a grep for the whole line) proves nothing
        lines = {line for line in lines if line not in command}
    shown = [p for p in found if file_shown(p, lines) or (p in named and _empty(p))]
    files = tuple(dict.fromkeys(root.relative(p) for p in shown))
    if files:
        write_log.append(session.file.parent, write_log.LogEntry(
            session_id=session.session_id, phase=session.phase, step=session.step, tool=str(tool),
            files=files, command=command), reads=True)
    return files


def _words(command: str) -> list[str]:
    """The literal words of a shell command (no variables), with `<` sources; at most MAX_FILES of them."""
    from code_intel.hooks.bash import Word, tokenize

    tokens, _ = tokenize(command[:100_000])
    return [t.text for t in tokens if isinstance(t, Word) and not t.dynamic][:MAX_FILES * 4]


def _empty(path: Path) -> bool:
    try:
        return path.stat().st_size == 0
    except OSError:
        return False
