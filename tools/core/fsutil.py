"""Atomic file writes: a temp file in the same folder, renamed over the target.

A reader (another server process, a crash-restart) sees either the old file or the new one, never a
half-written one. `fsync=True` also flushes the data to disk before the rename (checkpoints, locks).
The result has the permissions a plain `open()` would have given: an existing file keeps its mode,
a new one gets 0666 (0777 when executable) minus the umask, not the 0600 of a temp file.

`is_racy` (with `trusted_mtime`) is the one rule for the caches keyed by (mtime, size): see its comment.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterable
from pathlib import Path

from code_intel.core import faults

# A file written twice within one tick of the file system's clock keeps the same mtime, so a (mtime, size) stamp
# taken just after a write cannot tell the next same-size write from no write at all (git calls such an entry
# "racily clean"). A stamp of a file modified less than RACY_NS before it was looked at is therefore not trusted:
# a cache that holds the content (or its digest) compares it on the next use, until the file is old enough; the
# others keep UNTRUSTED_MTIME instead, which no file has, and look at the file again next time.
RACY_NS = 100_000_000
UNTRUSTED_MTIME = -1


def is_racy(mtime_ns: int) -> bool:
    """Whether a file with this mtime changed so recently (or carries a time in the future) that a same-size
    write in the same clock tick could still follow unseen."""
    return time.time_ns() - mtime_ns < RACY_NS


def trusted_mtime(mtime_ns: int) -> int:
    """The mtime a cache may keep as a stamp: the file's, or UNTRUSTED_MTIME when it is racy (is_racy)."""
    return UNTRUSTED_MTIME if is_racy(mtime_ns) else mtime_ns


def current_umask() -> int:
    """The process umask, read without changing it where the platform allows (threads may be writing)."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    current = os.umask(0o022)
    os.umask(current)
    return current


def write_atomic(target: Path, data: bytes | str | Iterable[bytes], *, fsync: bool = False,
                 executable: bool = False) -> int:
    """Write `data` (or its pieces, in order) to `target` atomically; returns the number of bytes written.

    The parent folder is created. The temp file is removed when anything fails, and the error is raised.
    """
    import tempfile  # here, not at import: the client hooks import this module and never write atomically

    raw = data.encode("utf-8") if isinstance(data, str) else data
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = (0o777 if executable else 0o666) & ~current_umask()
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            written = handle.write(raw) if isinstance(raw, bytes) else sum(map(handle.write, raw))
            if fsync:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(temp, mode)
        faults.hit(f"write_atomic.before_replace.{target.name}")
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return written
