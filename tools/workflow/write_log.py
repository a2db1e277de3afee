"""The session's write log and read log: one JSON object per line each.

The write log holds every write the client hook allowed during a session; the read log every file
the session saw (below).

`code-intel hook pre-tool-use` runs before the agent's own Edit/Write/MultiEdit/NotebookEdit,
Codex's apply_patch and Bash. When a session is active and the write rules allow the write, the
hook appends one entry to `.code-intel/sessions/<session_id>.writes.jsonl`:

    {"time": "2026-11-23T20:41:07Z", "session_id": "20261123_204012_ab12", "phase": "READY",
     "step": 13, "tool": "Edit", "files": ["src/app.py"]}

- `time`: UTC, ISO 8601, seconds.
- `session_id`: the code-intel session (not the client's conversation id); also the file's name.
- `phase` and `step`: where the session stood when the write was allowed (writes are allowed only
  in READY, so `phase` is "READY"; the field is kept so a reader never has to assume it).
- `tool`: the client's tool name as the hook saw it (`Edit`, `Write`, `MultiEdit`, `NotebookEdit`,
  `apply_patch`, `Bash`).
- `files`: the files written, relative to the project root, POSIX separators, never empty.
- `command` (Bash only, optional): the command, cut to 500 characters.

Only allowed writes are logged, so a file changed in the session but named by no entry was
changed behind the hook's back (a tool the hook does not see, an editor, a Bash form it cannot
parse). The commit gate and review_changes read the log through `allowed_writes`.

The read log, `.code-intel/sessions/<session_id>.reads.jsonl`, has entries of the same shape in any
phase: the PostToolUse hook appends the files whose content the agent's own tools showed it
(Claude Code's `Read`, shell output such as `cat`, `sed -n`, `grep FILE`), and the server appends the files its answers showed code of
(a search hit, a definition, an outline, the rules file start_session hands over). `files_read`
gives them back: EXPLORATION, add_explored_files and DOCUMENT_RESEARCH accept an existing file as
explored (or reviewed) only when it is there. Every line carries `mac`, its seal (tools/workflow/seal.py):
a line the agent's shell appends without the key is skipped by every reader, never read as permission.

The checkpoint store deletes both logs together with the session's checkpoint.

This module is imported by the hook on every tool call: standard library only.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import NamedTuple

from code_intel.workflow import seal

LOG_SUFFIX = ".writes.jsonl"
READS_SUFFIX = ".reads.jsonl"
MAX_LOG_BYTES = 20_000_000  # a reader refuses (reads nothing from) a log grown past this
MAX_COMMAND_CHARS = 500
MAX_READ_FILES = 500  # files named by one read entry (a search showing more lists its first ones)


def log_file(sessions_dir: Path, session_id: str) -> Path:
    """`.code-intel/sessions/<session_id>.writes.jsonl`."""
    return sessions_dir / f"{session_id}{LOG_SUFFIX}"


def reads_file(sessions_dir: Path, session_id: str) -> Path:
    """`.code-intel/sessions/<session_id>.reads.jsonl`."""
    return sessions_dir / f"{session_id}{READS_SUFFIX}"


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class LogEntry(NamedTuple):
    session_id: str
    phase: str
    tool: str
    files: tuple[str, ...]
    step: int | None = None
    command: str | None = None
    time: str = ""  # filled in by append when empty

    def to_json(self, root: Path | None = None) -> str:
        """The entry as one JSON object; sealed (tools/workflow/seal.py) with the key of the project at `root`."""
        data: dict[str, object] = {"time": self.time or now(), "session_id": self.session_id, "phase": self.phase}
        if self.step is not None:
            data["step"] = self.step
        data["tool"] = self.tool
        data["files"] = list(self.files)
        if self.command is not None:
            data["command"] = self.command[:MAX_COMMAND_CHARS]
        return json.dumps(seal.seal(data, root) if root is not None else data, ensure_ascii=False)

    @classmethod
    def from_json(cls, line: str, root: Path | None = None) -> LogEntry | None:
        """The entry on one line, or None for a line that is not a well-formed entry (or, with `root`, whose seal
        fails under that project's key)."""
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            return None
        if not isinstance(data, dict):
            return None
        if root is not None and not seal.verified(data, root):
            return None
        files = data.get("files")
        texts = (data.get("session_id"), data.get("phase"), data.get("tool"), data.get("time"))
        if not all(isinstance(t, str) and t for t in texts):
            return None
        if not isinstance(files, list) or not files or not all(isinstance(f, str) and f for f in files):
            return None
        step = data.get("step")
        command = data.get("command")
        return cls(session_id=data["session_id"], phase=data["phase"], tool=data["tool"], files=tuple(files),
                   step=step if isinstance(step, int) and not isinstance(step, bool) else None,
                   command=command if isinstance(command, str) else None, time=data["time"])


def append(sessions_dir: Path, entry: LogEntry, *, reads: bool = False) -> Path:
    """Append one entry to the write log (to the read log with `reads`). A single write() of one line in
    append mode, so concurrent hooks never interleave."""
    if not entry.files:
        raise ValueError("a log entry names at least one file")
    if reads:
        entry = entry._replace(files=entry.files[:MAX_READ_FILES])
    target = (reads_file if reads else log_file)(sessions_dir, entry.session_id)
    root = sessions_dir.parent.parent  # .code-intel/sessions -> the project
    data = (entry._replace(time=entry.time or now()).to_json(root) + "\n").encode("utf-8")
    fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    return target


def read_entries(file: Path) -> list[LogEntry]:
    """Every well-formed, sealed entry of a log; malformed lines and lines whose seal fails (written by anything
    but code-intel) are skipped: never read as permission."""
    try:
        if not file.is_file() or file.stat().st_size > MAX_LOG_BYTES:
            return []
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    root = file.parent.parent.parent  # .code-intel/sessions/<log> -> the project
    entries = (LogEntry.from_json(line, root) for line in text.splitlines() if line.strip())
    return [e for e in entries if e is not None]


def allowed_writes(file: Path) -> set[str]:
    """The files the hook allowed to be written in READY, as logged (project-relative POSIX paths)."""
    return {f for e in read_entries(file) if e.phase == "READY" for f in e.files}


def files_read(file: Path) -> set[str]:
    """The files a read log names (project-relative POSIX paths), whichever tool saw them."""
    return {f for e in read_entries(file) for f in e.files}


def remove(sessions_dir: Path, session_id: str) -> None:
    log_file(sessions_dir, session_id).unlink(missing_ok=True)
    reads_file(sessions_dir, session_id).unlink(missing_ok=True)
