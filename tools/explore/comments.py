"""Lexical maps: where a file's comments and string literals are, taken from its syntax tree.

find_references asks one question per hit, "is this word in code, a comment or a string?". Parsing a
file answers it, but parsing is the slow step; so each file's answer is kept as a short list of byte
segments (code embedded in strings, like f-string fields, is cut back out as code), refreshed by
size and mtime, and saved under `.code-intel/cache/` so a new server starts warm.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from code_intel.core.errors import InvalidArgument
from code_intel.core.filecache import load_cache, save_cache
from code_intel.core.fsutil import UNTRUSTED_MTIME, is_racy
from code_intel.core.project import ProjectRoot
from code_intel.explore import budget
from code_intel.explore.syntax import ParseCache, ParsedFile
from code_intel.languages.grammar import node_category
from code_intel.languages.table import CODE_LANGUAGES, get_language, language_for

log = logging.getLogger(__name__)

CACHE_FILE = "lexical.json"
CACHE_VERSION = 1
_CODE = "x"  # segment kind for code inside a string (an interpolation)


@dataclass
class LexicalMap:
    """Sorted, non-overlapping byte segments that are comments ('c') or strings ('s'); the rest is code."""

    starts: list[int]
    ends: list[int]
    kinds: str

    def category(self, start: int) -> str:
        i = bisect.bisect_right(self.starts, start) - 1
        if i >= 0 and start < self.ends[i]:
            return "comment" if self.kinds[i] == "c" else "string"
        return "code"


@functools.cache
def _query(language: str) -> Any:
    """One query capturing every comment, string and interpolation node type the grammar has."""
    from tree_sitter import Query

    lang = get_language(language)
    kinds = sorted({
        lang.node_kind_for_id(i) for i in range(lang.node_kind_count)
        if lang.node_kind_is_named(i) and lang.node_kind_is_visible(i)
        and node_category(lang.node_kind_for_id(i) or "") is not None
    })
    if not kinds:
        return None
    return Query(lang, "[" + " ".join(f"({k})" for k in kinds) + "] @region")


def build_map(parsed: ParsedFile) -> LexicalMap:
    from tree_sitter import QueryCursor

    query = _query(parsed.language)
    if query is None:
        return LexicalMap([], [], "")
    nodes = QueryCursor(query).captures(parsed.root).get("region", [])
    spans = sorted(
        ((n.start_byte, n.end_byte, _kind(n.type)) for n in nodes if n.end_byte > n.start_byte),
        key=lambda s: (s[0], -s[1]),
    )
    starts: list[int] = []
    ends: list[int] = []
    kinds: list[str] = []

    def emit(begin: int, end: int, kind: str) -> None:
        if end <= begin or kind == _CODE:
            return
        if kinds and kinds[-1] == kind and ends[-1] == begin:
            ends[-1] = end  # merge touching segments of the same kind
            return
        starts.append(begin)
        ends.append(end)
        kinds.append(kind)

    # spans come from one tree, so they nest; the innermost one decides what each byte is
    stack: list[tuple[int, str]] = []
    position = 0
    for begin, end, kind in spans:
        while stack and stack[-1][0] <= begin:
            top_end, top_kind = stack.pop()
            emit(position, top_end, top_kind)
            position = top_end
        if stack:
            emit(position, begin, stack[-1][1])
        position = begin
        stack.append((end, kind))
    while stack:
        top_end, top_kind = stack.pop()
        emit(position, top_end, top_kind)
        position = max(position, top_end)
    return LexicalMap(starts, ends, "".join(kinds))


def _kind(node_type: str) -> str:
    category = node_category(node_type)
    return {"comment": "c", "string": "s"}.get(category or "", _CODE)


class LexicalIndex:
    """Lexical maps per project file, thread-safe, persisted in the runtime cache folder."""

    def __init__(self, root: ProjectRoot, parse_cache: ParseCache) -> None:
        self.root = root
        self._parse_cache = parse_cache
        self._lock = threading.RLock()
        self._maps: dict[str, tuple[tuple[int, int], LexicalMap]] = {}
        self._racy: dict[str, bytes] = {}  # rel -> digest of the source a map was built from just after an edit
        self._loaded = False
        self._dirty = False

    @staticmethod
    def handles(rel: str) -> bool:
        return language_for(rel) in CODE_LANGUAGES

    def maps_for(self, files: list[str]) -> dict[str, LexicalMap | None]:
        """Fresh maps for these project-relative files (None when a file cannot be parsed).

        Inside a time budget, files whose maps were not built before the deadline are left out of the
        answer (their builds finish in the background and are kept for the next call)."""
        self._ensure_loaded()
        out: dict[str, LexicalMap | None] = {}
        stale: list[tuple[str, tuple[int, int]]] = []
        for rel in files:
            try:
                st = os.stat(self.root.path / rel)
            except OSError:
                out[rel] = None
                continue
            stamp = (st.st_mtime_ns, st.st_size)
            with self._lock:
                known = self._maps.get(rel)
                digest = self._racy.get(rel)
            if known and known[0] == stamp and (digest is None or self._unchanged(rel, digest, st.st_mtime_ns)):
                out[rel] = known[1]
            else:
                stale.append((rel, stamp))
        if stale:
            # tree-sitter releases the GIL while parsing, so two workers overlap usefully
            pool = ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1, len(stale)))
            futures = {pool.submit(self._build, rel, stamp): rel for rel, stamp in stale}
            deadline = budget.current()
            done, _ = wait(futures, timeout=deadline.remaining() if deadline else None)
            pool.shutdown(wait=False, cancel_futures=True)
            for future in done:
                out[futures[future]] = future.result()
            self.save()
        return out

    def update(self, files: list[str]) -> None:
        """Build maps for files known to have changed (called while the definition index reindexes)."""
        self.maps_for([f for f in files if self.handles(f)])

    def _build(self, rel: str, stamp: tuple[int, int]) -> LexicalMap | None:
        try:
            parsed = self._parse_cache.get(self.root.path / rel, store=False)
        except (InvalidArgument, OSError, LookupError) as err:
            log.debug("no lexical map for %s: %s", rel, err)
            return None
        built = build_map(parsed)
        # a file modified just before it was read: its content is compared on the next use (code_intel.core.fsutil.is_racy)
        digest = hashlib.sha1(parsed.source).digest() if is_racy(stamp[0]) else None
        with self._lock:
            self._maps[rel] = (stamp, built)
            if digest is None:
                self._racy.pop(rel, None)
            else:
                self._racy[rel] = digest
            self._dirty = True
        return built

    def _unchanged(self, rel: str, digest: bytes, mtime_ns: int) -> bool:
        """Whether a file whose map was built just after it was modified still holds what the map was built from;
        once it is old enough, its stamp is trusted again."""
        try:
            same = hashlib.sha1((self.root.path / rel).read_bytes()).digest() == digest
        except OSError:
            return False
        if same and not is_racy(mtime_ns):
            with self._lock:
                if self._racy.get(rel) == digest:
                    del self._racy[rel]
        return same

    # ------------------------------------------------------------ disk cache
    @property
    def cache_path(self) -> Path:
        return self.root.runtime_dir("cache") / CACHE_FILE

    def _ensure_loaded(self) -> None:
        with self._lock:
            if self._loaded:
                return
            self._loaded = True

            def decode(data: dict[str, Any]) -> dict[str, tuple[tuple[int, int], LexicalMap]]:
                return {rel: ((mtime_ns, size), LexicalMap(starts, ends, kinds))
                        for rel, (mtime_ns, size, starts, ends, kinds) in data["files"].items()}

            self._maps.update(load_cache(self.cache_path, CACHE_VERSION, decode, "lexical") or {})

    def save(self) -> None:
        with self._lock:
            if not self._dirty:
                return
            # a map still waiting for its content check is saved with no mtime a file can have: rebuilt after a restart
            files = {rel: [UNTRUSTED_MTIME if rel in self._racy else stamp[0], stamp[1], m.starts, m.ends, m.kinds]
                     for rel, (stamp, m) in self._maps.items()}
            self._dirty = False
        save_cache(self.cache_path, CACHE_VERSION, {"files": files}, "lexical")
