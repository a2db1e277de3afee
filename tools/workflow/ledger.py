"""The ledger of tool calls: which server tools really ran, in which phase, since which submit.

Every tool call is recorded with the phase (and READY sub-step) it happened in, the submit window
it belongs to (the number of accepted submits so far) and a digest of its arguments. Evidence
checks look only at successful calls in the current window and phase, so a call made in an
earlier phase, or before the previous accepted submit, never counts twice.

Each entry is also appended, as it is recorded, to the session's journal
`.code-intel/sessions/<session_id>.calls.jsonl` (`LedgerJournal`): one short JSON line, written with
one write() in append mode and no fsync, so a tool call pays a few microseconds, not a disk flush.
A process that is killed leaves its lines in the kernel's page cache, where the next process reads
them; only a crash of the machine itself can lose the last ones (the agent then calls those tools
again). After a restart `ToolLedger.restore` reads back the entries of the checkpoint's window:
the calls made since the last accepted submit count again, older ones never do. The engine empties
the journal once the checkpoint of an accepted submit is written, and the checkpoint store deletes
it with the checkpoint. Per-phase counts are kept in the checkpoint (`tool_counts`, up to entry
`ledger_seq`); entries numbered after it are counted when they are read back.

Standard library only, imported by the checkpoint store (which the client hooks read).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from code_intel.workflow import seal

if TYPE_CHECKING:
    import logging

CALLS_SUFFIX = ".calls.jsonl"
# A journal holds one window's calls (it is emptied at each accepted submit); past this size it is
# rewritten with the newest calls of the window that fit in half of it (the ledger keeps MAX_ENTRIES,
# about 0.7 MB), and a reader reads only this much of its end.
MAX_JOURNAL_BYTES = 2_000_000


def _log() -> logging.Logger:
    import logging

    return logging.getLogger(__name__)


def normalise_tool_name(name: str) -> str:
    """'mcp__code-intel__search_text' -> 'search_text'; client tools keep their name."""
    return name.strip().rsplit("__", 1)[-1]


def digest_arguments(arguments: dict[str, Any]) -> str:
    text = json.dumps(arguments, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def journal_file(sessions_dir: Path, session_id: str) -> Path:
    """`.code-intel/sessions/<session_id>.calls.jsonl`."""
    return sessions_dir / f"{session_id}{CALLS_SUFFIX}"


@dataclass(frozen=True)
class LedgerEntry:
    tool: str
    phase: str  # contract id, e.g. EXPLORATION or READY_IMPLEMENTATION
    window: int
    ok: bool
    digest: str
    at: float
    seq: int = 0  # the entry's number in its session (1, 2, ...): the checkpoint's counts include 1..ledger_seq


class LedgerJournal:
    """One session's ledger entries on disk, one JSON line each (see the module docstring).

    A write that fails (read-only folder, disk full) is logged once and never fails the tool call:
    the entry is still in memory, only a restart would forget it."""

    def __init__(self, sessions_dir: Path, session_id: str) -> None:
        self.session_id = session_id
        self.file = journal_file(sessions_dir, session_id)
        self._root = sessions_dir.parent.parent  # .code-intel/sessions -> the project, whose key seals each line
        self.size = 0  # bytes written since the file was emptied (or found when it was read back)
        self._torn = False  # the file may end inside a line: the next append starts a new one
        self._warned = False

    def line(self, entry: LedgerEntry) -> bytes:
        """One compact JSON object and a newline, sealed: its last member `m` is the HMAC of the line without it
        (tools/workflow/seal.py)."""
        record = {"s": self.session_id, "n": entry.seq, "w": entry.window, "p": entry.phase, "t": entry.tool,
                  "ok": entry.ok, "d": entry.digest, "at": round(entry.at, 3)}
        body = json.dumps(record, separators=(",", ":"))[:-1].encode()  # without its closing brace
        return body + b',"m":"' + self._mac(body) + b'"}\n'

    def _mac(self, body: bytes) -> bytes:
        return hmac.new(seal.key(self._root), body, hashlib.sha256).hexdigest().encode()

    def _sealed(self, line: bytes) -> bool:
        """Whether a line ends in the seal of what comes before it."""
        body, marker, rest = line.rpartition(b',"m":"')
        if not marker or not rest.endswith(b'"}'):
            return False
        try:
            return hmac.compare_digest(rest[:-2], self._mac(body))
        except OSError:
            return False

    def append(self, entry: LedgerEntry) -> None:
        data = self.line(entry)
        if self._torn:
            data = b"\n" + data
        try:
            fd = os.open(self.file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
            try:
                written = os.write(fd, data)
            finally:
                os.close(fd)
        except OSError as err:
            self._failed(err)
            self._torn = True  # a failed write may have left part of the line
            return
        self._torn = written < len(data)
        self.size += written

    def rewrite(self, entries: list[LedgerEntry]) -> None:
        """Replace the file with the newest of these entries that fit in half of MAX_JOURNAL_BYTES (atomically,
        no fsync), so the next rewrite is far off. The ledger keeps too few entries to reach that in practice."""
        from code_intel.core.fsutil import write_atomic

        kept: list[bytes] = []
        room = MAX_JOURNAL_BYTES // 2
        for entry in reversed(entries):
            line = self.line(entry)
            room -= len(line)
            if room < 0:
                break
            kept.append(line)
        data = b"".join(reversed(kept))
        try:
            write_atomic(self.file, data)
        except OSError as err:
            self._failed(err)
            return
        self.size, self._torn = len(data), False

    def reset(self) -> None:
        """Forget every entry on disk (the checkpoint of an accepted submit now holds what they proved)."""
        try:
            self.file.unlink(missing_ok=True)
        except OSError as err:
            self._failed(err)
            return
        self.size, self._torn = 0, False

    def read(self) -> list[LedgerEntry]:
        """The well-formed entries of this session in the file, oldest first. A line cut short by a kill, a
        line of another session and anything else malformed is skipped; a file over MAX_JOURNAL_BYTES is
        read from its last MAX_JOURNAL_BYTES (whose first, partial, line is skipped)."""
        try:
            with open(self.file, "rb") as handle:
                end = handle.seek(0, os.SEEK_END)
                start = max(0, end - MAX_JOURNAL_BYTES)
                handle.seek(start)
                data = handle.read()
        except FileNotFoundError:
            return []
        except OSError as err:
            self._failed(err)
            return []
        self.size, self._torn = len(data), bool(data) and not data.endswith(b"\n")
        lines = data.split(b"\n")
        if start:
            lines = lines[1:]
        entries = (self._parse(line) for line in lines if line.strip())
        return [entry for entry in entries if entry is not None]

    def _parse(self, line: bytes) -> LedgerEntry | None:
        if not self._sealed(line.strip()):
            return None
        try:
            data = json.loads(line)
        except (UnicodeDecodeError, json.JSONDecodeError):
            return None
        if not isinstance(data, dict) or data.get("s") != self.session_id:
            return None
        seq, window, at = data.get("n"), data.get("w"), data.get("at")
        phase, tool, ok, digest = data.get("p"), data.get("t"), data.get("ok"), data.get("d")
        if not (all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (seq, window))
                and all(isinstance(v, str) and v for v in (phase, tool, digest))
                and isinstance(ok, bool) and isinstance(at, int | float) and not isinstance(at, bool)):
            return None
        return LedgerEntry(tool, phase, window, ok, digest, float(at), seq)  # type: ignore[arg-type]

    def _failed(self, err: OSError) -> None:
        if not self._warned:
            self._warned = True
            _log().warning("ledger journal %s not written (%s): a restart would forget the calls since the "
                           "last accepted submit", self.file, err)


class ToolLedger:
    """Record of tool calls for one session (the engine holds the lock), journaled when given a journal."""

    MAX_ENTRIES = 5000  # a long session must not grow memory without bound

    def __init__(self, counts: dict[str, dict[str, int]] | None = None, journal: LedgerJournal | None = None,
                 *, seq: int = 0) -> None:
        self.entries: list[LedgerEntry] = []
        self.counts: dict[str, dict[str, int]] = {k: dict(v) for k, v in (counts or {}).items()}
        self.journal = journal
        self.seq = seq  # entries recorded in the session so far; `counts` includes all of them

    def record(self, tool: str, arguments: dict[str, Any], *, phase: str, window: int, ok: bool) -> LedgerEntry:
        self.seq += 1
        entry = LedgerEntry(normalise_tool_name(tool), phase, window, ok, digest_arguments(arguments), time.time(),
                            self.seq)
        self.entries.append(entry)
        if len(self.entries) > self.MAX_ENTRIES:
            del self.entries[: len(self.entries) - self.MAX_ENTRIES]
        if ok:
            self._count(entry)
        if self.journal is not None:
            if self.journal.size > MAX_JOURNAL_BYTES:
                self.journal.rewrite([e for e in self.entries if e.window == window])
            else:
                self.journal.append(entry)
        return entry

    def restore(self, *, window: int, counted: int) -> int:
        """Take back the journal's entries after a restart: those of `window` (the checkpoint's: the calls
        made since its last accepted submit) join the evidence, and those numbered after `counted` (the
        checkpoint's ledger_seq) join the counts. Returns how many came back as evidence."""
        if self.journal is None:
            return 0
        back = 0
        self.seq = max(self.seq, counted)
        for entry in self.journal.read():
            fresh = entry.seq > self.seq  # not in the checkpoint's counts yet
            if fresh:
                self.seq = entry.seq
            if entry.window == window:
                self.entries.append(entry)
                back += 1
            if fresh and entry.ok:
                self._count(entry)
        del self.entries[: max(0, len(self.entries) - self.MAX_ENTRIES)]
        return back

    def _count(self, entry: LedgerEntry) -> None:
        per_phase = self.counts.setdefault(entry.phase, {})
        per_phase[entry.tool] = per_phase.get(entry.tool, 0) + 1

    def reset_journal(self) -> None:
        if self.journal is not None:
            self.journal.reset()

    def called(self, *, phase: str, window: int) -> set[str]:
        """Names of the tools successfully called in this phase within this submit window."""
        return {e.tool for e in self.entries if e.ok and e.window == window and e.phase == phase}
