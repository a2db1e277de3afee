"""Which files a search skips because they are over max_file_bytes, without a second rg run per search.

rg skips such files silently (`--max-filesize`). To name them, the project's oversized files are
listed once (all files, then a stat each) and the list is reused for OVERSIZED_TTL_SECONDS; each
search then only filters that short list by its own folder and globs. A file that grew over the
limit in the last few seconds may be missing from the list until it is refreshed.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from code_intel.explore.globbing import glob_matches
from code_intel.explore.ripgrep import RgFilters, SkippedFile, oversized_files

OVERSIZED_TTL_SECONDS = 5.0


class OversizedFiles:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._key: tuple[tuple[str, ...], int | None] | None = None
        self._files: list[SkippedFile] = []
        self._at = 0.0

    def _project_wide(self, filters: RgFilters, timeout: float) -> list[SkippedFile]:
        key = (filters.excludes, filters.max_file_bytes)
        with self._lock:
            if self._key == key and time.monotonic() - self._at < OVERSIZED_TTL_SECONDS:
                return self._files
        found = oversized_files(self.root, RgFilters(excludes=filters.excludes, max_file_bytes=filters.max_file_bytes),
                                timeout)
        with self._lock:
            self._key, self._files, self._at = key, found, time.monotonic()
        return found

    def in_scope(self, filters: RgFilters, globs: list[str], timeout: float) -> list[SkippedFile]:
        """The oversized files a search with these roots and rg globs (`!` excludes) would have searched."""
        if not filters.max_file_bytes:
            return []
        files = self._project_wide(filters, timeout)
        if not files:
            return []
        roots = [r.rstrip("/") for r in filters.roots]
        includes = [g for g in globs if not g.startswith("!")]
        excludes = [g[1:] for g in globs if g.startswith("!")]
        return [f for f in files
                if any(r in (".", "") or f.file == r or f.file.startswith(r + "/") for r in roots)
                and (not includes or any(glob_matches(g, f.file) for g in includes))
                and not any(glob_matches(g, f.file) for g in excludes)]
