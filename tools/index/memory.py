"""The searchable part of the index, held in the process: each chunk's static vector, its metadata and the first
lines of its text, beside the BM25 postings (`lexical.py`).

A sync fills it file batch by file batch, before anything is written to Chroma, so every file is searchable as
soon as it is chunked and embedded (a few hundred milliseconds for a median repository), while Chroma, whose
import alone takes seconds, persists the same chunks once every file is searchable, reading their vectors and
metadata from here. A process that starts on an existing index loads it back from Chroma page by page. Vectors
live in one float32 matrix that grows by doubling; a removed chunk's row is reused, so memory follows the number
of chunks, not the number of edits.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from code_intel.index.text import written_name

SNIPPET_CHARS = 600  # of each chunk's text kept in memory, for the answer's snippet


@dataclass
class Entry:
    row: int
    meta: dict[str, Any]
    snippet: str


def listed(meta: dict[str, Any], key: str) -> list[str]:
    """A list chunk_metadata stores comma-joined (`symbols`, `implements`), read back; [] when absent."""
    return [x for x in str(meta.get(key, "")).split(",") if x]


class MemoryIndex:
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._entries: dict[str, Entry] = {}
        self._free: list[int] = []
        self._matrix: Any = None  # float32 (capacity x dimension), allocated with the first vectors
        self._ids: list[str | None] = []  # row -> chunk id (None: free row)
        self._names: dict[str, set[str]] = {}  # lower-cased last part of a defined name -> ids of its chunks
        self._traits: dict[str, set[str]] = {}  # a type as written -> ids of the chunks extending or implementing it
        self.loaded = False

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, ids: list[str], vectors: Any, documents: list[str], metadatas: list[dict[str, Any]]) -> None:
        """Add or replace chunks (vectors: any (n x d) array-like of unit vectors). The metadata dicts are kept as
        given, not copied: the sync writes the same dicts to Chroma."""
        import numpy as np

        if not ids:
            return
        block = np.asarray(vectors, dtype=np.float32)
        with self._lock:
            if self._matrix is None:
                self._matrix = np.zeros((max(256, len(ids)), block.shape[1]), dtype=np.float32)
            for k, (cid, doc, meta) in enumerate(zip(ids, documents, metadatas, strict=True)):
                entry = self._entries.get(cid)
                row = entry.row if entry is not None else self._take_row()
                self._matrix[row] = block[k]
                self._ids[row] = cid
                if entry is not None:
                    self._unname(cid, entry.meta)
                self._entries[cid] = Entry(row, meta, (doc or "")[:SNIPPET_CHARS])
                self._name(cid, meta)

    def update_metadata(self, ids: Iterable[str], metadatas: Iterable[dict[str, Any]]) -> None:
        with self._lock:
            for cid, meta in zip(ids, metadatas, strict=True):
                entry = self._entries.get(cid)
                if entry is not None:
                    self._unname(cid, entry.meta)
                    entry.meta = meta
                    self._name(cid, meta)

    def remove(self, ids: Iterable[str]) -> None:
        with self._lock:
            for cid in ids:
                entry = self._entries.pop(cid, None)
                if entry is not None:
                    self._unname(cid, entry.meta)
                    self._ids[entry.row] = None
                    self._matrix[entry.row] = 0.0
                    self._free.append(entry.row)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._free.clear()
            self._ids.clear()
            self._names.clear()
            self._matrix = None
            self.loaded = False

    @staticmethod
    def _defined_as_written(meta: dict[str, Any]) -> set[str]:
        """The last part of every name the chunk defines or lists, as a question writes it (text.written_name)."""
        names = listed(meta, "symbols") + [str(meta.get("symbol") or "")]
        return {written_name(n) for n in names if n}

    @classmethod
    def _defined(cls, meta: dict[str, Any]) -> set[str]:
        return {n.lower() for n in cls._defined_as_written(meta)}

    def _name(self, cid: str, meta: dict[str, Any]) -> None:
        for name in self._defined(meta):
            self._names.setdefault(name, set()).add(cid)
        for trait in listed(meta, "implements"):
            self._traits.setdefault(trait, set()).add(cid)

    def _unname(self, cid: str, meta: dict[str, Any]) -> None:
        for index, names in ((self._names, self._defined(meta)), (self._traits, listed(meta, "implements"))):
            for name in names:
                ids = index.get(name)
                if ids is not None:
                    ids.discard(cid)
                    if not ids:
                        del index[name]

    def implementing(self, traits: Collection[str], limit: int) -> list[str]:
        """Ids of the chunks implementing or extending one of `traits` (as written: Chunk.implements): for a question
        asking for them."""
        with self._lock:
            return sorted({cid for t in traits for cid in self._traits.get(t, ())})[:limit]

    def defining(self, names: list[str], limit: int) -> list[str]:
        """Ids of chunks that define one of `names` (the last part of a qualified name): the chunks whose own symbol
        it is first (a definition before the later parts of a split one), then chunks that list it (a class and its
        members). Another case (`router` for `Router`) only when nothing defines the name as written (`deserialize`
        functions are not the `Deserialize` trait)."""
        with self._lock:
            found: dict[str, tuple[bool, bool, bool, bool, str]] = {}
            for name in names:
                low = name.lower()
                keys = {}
                for cid in self._names.get(low, ()):
                    meta = self._entries[cid].meta
                    own = written_name(str(meta.get("symbol") or ""))
                    exact = name in self._defined_as_written(meta)
                    keys[cid] = (not exact, own.lower() != low, meta.get("kind") == "part", bool(meta.get("addition")),
                                 cid)  # a type's definition before the impl blocks named after it (serde_json's `Value`
                    # has 33 of them, more than the limit: which of them came first was their ids' order)
                if any(not key[0] for key in keys.values()):
                    keys = {cid: key for cid, key in keys.items() if not key[0]}
                for cid, key in keys.items():
                    found[cid] = min(found.get(cid, key), key)
            return sorted(found, key=found.__getitem__)[:limit]

    def declarations(self, windows: Iterable[tuple[str, str, int]]) -> list[str]:
        """Ids of the declaration windows (kind `function`) of functions split into windows, given (file, symbol,
        declaration line) of their other windows: the chunk that holds the `def` line, which the later windows stand
        for. Line 0 (not known): every declaration of that name in the file."""
        out: list[str] = []
        with self._lock:
            for file, symbol, line in dict.fromkeys(windows):
                for cid in self._names.get(written_name(symbol).lower(), ()):
                    meta = self._entries[cid].meta
                    if meta.get("kind") == "function" and meta.get("symbol") == symbol and meta.get("file") == file \
                            and (not line or int(meta.get("start_line") or 0) <= line <= int(meta.get("end_line") or 0)):
                        out.append(cid)
        return out

    def _take_row(self) -> int:
        import numpy as np

        if self._free:
            return self._free.pop()
        row = len(self._ids)
        if row >= self._matrix.shape[0]:
            grown = np.zeros((self._matrix.shape[0] * 2, self._matrix.shape[1]), dtype=np.float32)
            grown[: self._matrix.shape[0]] = self._matrix
            self._matrix = grown
        self._ids.append(None)
        return row

    def nearest(self, vector: Any, limit: int) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity), best first: an exact scan (a matrix-vector product)."""
        import numpy as np

        with self._lock:
            if not self._entries:
                return []
            used = len(self._ids)
            scores = self._matrix[:used] @ np.asarray(vector, dtype=np.float32)
            for row in self._free:
                scores[row] = -np.inf
            k = min(limit, len(self._entries))
            best = np.argpartition(-scores, k - 1)[:k]
            best = best[np.argsort(-scores[best])]
            return [(self._ids[r], float(scores[r])) for r in best if self._ids[r] is not None]  # type: ignore[misc]

    def similarity(self, vector: Any, ids: list[str]) -> dict[str, float]:
        import numpy as np

        with self._lock:
            rows = [self._entries[i].row for i in ids if i in self._entries]
            known = [i for i in ids if i in self._entries]
            if not rows:
                return {}
            scores = self._matrix[rows] @ np.asarray(vector, dtype=np.float32)
            return {i: float(s) for i, s in zip(known, scores, strict=True)}

    def records(self, ids: list[str]) -> tuple[list[str], Any, list[dict[str, Any]]]:
        """(the ids held, their vectors as one float32 array, their metadata): what the sync writes to Chroma."""
        with self._lock:
            held = [i for i in ids if i in self._entries]
            vectors = self._matrix[[self._entries[i].row for i in held]] if held else []
            return held, vectors, [self._entries[i].meta for i in held]

    def entry(self, chunk_id: str) -> Entry | None:
        return self._entries.get(chunk_id)
