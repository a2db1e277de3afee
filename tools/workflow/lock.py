"""One session per project, across processes: a lock file with stale-lock detection.

`.code-intel/sessions/session.lock` holds the owner's pid, host and session id. It is created
atomically (written to a temp file, then hard-linked into place, which fails if it exists). A lock
whose owner process is gone on this host is stale and is taken over; a lock held by a live process
refuses the second session with `session_active`.
"""

from __future__ import annotations

import functools
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from code_intel.core.errors import SessionActive
from code_intel.core.fsutil import write_atomic
from code_intel.core.project import ProjectRoot

if TYPE_CHECKING:
    import logging


def _log() -> logging.Logger:
    """The module's logger, imported on first use: the client hooks read this module and never log."""
    import logging

    return logging.getLogger(__name__)


LOCK_FILE = "session.lock"
STRAY_GRACE_SECONDS = 60.0  # a temp file younger than this may belong to a live writer


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


class ProjectLock:
    def __init__(self, root: ProjectRoot) -> None:
        self.root = root
        self.pid = os.getpid()

    @functools.cached_property
    def host(self) -> str:
        # imported here: the client hooks read the lock on every tool call and never need the host name
        import socket

        return socket.gethostname()

    @property
    def file(self) -> Path:
        return self.root.runtime_dir("sessions") / LOCK_FILE

    def owner(self) -> dict[str, Any] | None:
        """The lock's content, or None when there is no lock; an unreadable lock reads as {}."""
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def held_by_us(self) -> bool:
        owner = self.owner()
        return bool(owner) and owner.get("pid") == self.pid and owner.get("host") == self.host  # type: ignore[union-attr]

    def is_stale(self, owner: dict[str, Any]) -> bool:
        """Stale: unreadable, or its owner on this host is gone. Locks of other hosts are trusted."""
        pid = owner.get("pid")
        if not isinstance(pid, int):
            return True
        if owner.get("host") != self.host:
            return False
        return not pid_alive(pid)

    def held_by_other(self) -> dict[str, Any] | None:
        """The owner of a live lock held by another process, else None."""
        owner = self.owner()
        if owner is None or self.held_by_us():
            return None
        if self.is_stale(owner):
            return None
        return owner

    def acquire(self, session_id: str) -> None:
        """Take the lock for this session (taking over a stale one), or refuse with session_active."""
        for _ in range(3):
            owner = self.owner()
            if owner is not None:
                if self.held_by_us():
                    self._write_over(session_id)
                    return
                if not self.is_stale(owner):
                    raise SessionActive(
                        f"another code-intel process (pid {owner.get('pid')} on {owner.get('host')}) holds a session "
                        f"({owner.get('session_id')}) on this project",
                        hint="finish that session first; if that process is gone for good, call cleanup_stale_branches",
                    )
                _log().warning("taking over stale session lock of pid %s", owner.get("pid"))
                try:
                    self.file.unlink(missing_ok=True)
                except OSError as err:
                    raise self.root.unwritable(self.file.parent, err, "starting or resuming a session") from None
            if self._create(session_id):
                return
        raise SessionActive("could not take the session lock: another process keeps taking it",
                            hint="retry in a moment")

    def _content(self, session_id: str) -> bytes:
        return json.dumps({"pid": self.pid, "host": self.host, "session_id": session_id,
                           "since": time.time()}).encode("utf-8")

    def _create(self, session_id: str) -> bool:
        import tempfile

        folder = self.root.writable_dir("sessions", "starting or resuming a session")
        fd, temp = tempfile.mkstemp(prefix=".lock.", dir=folder)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(self._content(session_id))
                handle.flush()
                os.fsync(handle.fileno())
            os.link(temp, self.file)  # atomic: fails when another process created the lock first
            return True
        except FileExistsError:
            return False
        finally:
            Path(temp).unlink(missing_ok=True)

    def _write_over(self, session_id: str) -> None:
        try:
            write_atomic(self.file, self._content(session_id), fsync=True)
        except OSError as err:
            raise self.root.unwritable(self.file.parent, err, "starting or resuming a session") from None

    def release(self) -> None:
        """Remove the lock if this process holds it (or it is stale); never another live process's lock."""
        owner = self.owner()
        if owner is None:
            return
        if self.held_by_us() or self.is_stale(owner):
            try:
                self.file.unlink(missing_ok=True)
            except OSError as err:  # a read-only folder keeps a stale lock; the next start takes it over
                _log().warning("could not remove the session lock: %s", err)


def remove_stray_temp_files(root: ProjectRoot) -> list[str]:
    """Delete the temp files a killed process left in sessions/ (`.<checkpoint>.json.*.tmp`, `.lock.*`).

    Run at server start. While another live process holds the session lock, only files older than
    STRAY_GRACE_SECONDS go: a younger one may be that process's write in progress."""
    folder = root.state_dir / "sessions"
    removed: list[str] = []
    if not folder.is_dir():
        return removed
    live_writer = ProjectLock(root).held_by_other() is not None
    now = time.time()
    for path in [*folder.glob(".*.tmp"), *folder.glob(".lock.*")]:
        try:
            if live_writer and now - path.stat().st_mtime < STRAY_GRACE_SECONDS:
                continue
            path.unlink()
            removed.append(path.name)
        except OSError as err:
            _log().debug("cannot remove %s: %s", path, err)
    if removed:
        _log().info("removed %d temp files left in %s: %s", len(removed), folder, ", ".join(removed))
    return removed
