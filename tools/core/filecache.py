"""Files the server reads back: versioned JSON caches and settings files re-read when they change.

A damaged or outdated cache is never an error: it is logged and rebuilt. A settings file is loaded
again only when its mtime or size changes, so every tool call sees the current settings without
parsing them each time.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

from code_intel.core.fsutil import trusted_mtime, write_atomic

log = logging.getLogger(__name__)
T = TypeVar("T")


def load_cache(path: Path, version: int | str, decode: Callable[[dict[str, Any]], T], what: str) -> T | None:
    """A cache written by `save_cache`, decoded; None when it is absent or of another version (a format number,
    or a fingerprint of what the cache was built from). A damaged
    cache (unreadable, not JSON, or failing `decode`) is logged and ignored: it only costs a rebuild."""
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("version") != version:
            return None
        return decode(data)
    except (OSError, ValueError, KeyError, TypeError) as err:
        log.warning("ignoring unreadable %s cache %s: %s", what, path, err)
        return None


def save_cache(path: Path, version: int | str, payload: dict[str, Any], what: str) -> None:
    """Write a versioned cache compactly; a failure (e.g. a read-only project) is logged, never raised."""
    try:
        write_atomic(path, json.dumps({"version": version, **payload}, separators=(",", ":")))
    except OSError as err:
        log.warning("could not write the %s cache %s: %s", what, path, err)


class WatchedFile(Generic[T]):
    """A settings file loaded again only when it changes (by mtime and size); thread-safe."""

    def __init__(self, file: Path, load: Callable[[Path], T]) -> None:
        self.file, self._load = file, load
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._value: T | None = None
        self._loaded = False

    def get(self) -> T:
        with self._lock:
            try:
                info = self.file.stat()
                stamp: tuple[int, int] | None = (info.st_mtime_ns, info.st_size)
            except OSError:
                stamp = None
            if not self._loaded or stamp != self._stamp:
                self._value = self._load(self.file)
                self._loaded = True
                self._stamp = (trusted_mtime(stamp[0]), stamp[1]) if stamp is not None else None
            return self._value  # type: ignore[return-value]
