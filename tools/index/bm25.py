"""BM25 (k1 1.2, b 0.75) over identifier-split, stemmed tokens, kept incrementally in memory beside the
dense index.

Postings are per term, so a query touches only the chunks that share a word with it; adding or removing a
file's chunks updates the index in place instead of rebuilding it (a removal marks the chunk; the postings
are compacted once a quarter of what they name is gone).
"""

from __future__ import annotations

import heapq
import math
import threading
from array import array
from collections import Counter

from code_intel.index.text import lexical_tokens


class LexicalIndex:
    """Postings are compact: per term, an array of chunk numbers and an array of term counts (about 6 bytes a
    posting instead of a dict entry's hundred), so a 40,000-chunk project keeps its postings in tens of
    megabytes. A removed chunk is only marked (its length set to 0) and skipped when scoring; the postings are
    compacted when a quarter of the chunks they name are gone."""

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self._lock = threading.RLock()
        self.loaded = False
        self._postings: dict[str, tuple[array[int], array[int]]] = {}  # term -> (chunk numbers, counts)
        self._ids: list[str | None] = []  # chunk number -> id (None: removed)
        self._number: dict[str, int] = {}
        self._lengths = array("I")  # chunk number -> tokens (0: removed)
        self._total_length = 0
        self._dead = 0

    def __len__(self) -> int:
        return len(self._number)

    def add(self, chunk_id: str, text: str) -> None:
        self.add_tokens(chunk_id, lexical_tokens(text))

    def add_tokens(self, chunk_id: str, tokens: list[str]) -> None:
        """Index a chunk by its tokens (`lexical_tokens` of its text, or `text.indexed_texts`'s)."""
        with self._lock:
            if chunk_id in self._number:
                self._remove_locked(chunk_id)
            number = len(self._ids)
            self._ids.append(chunk_id)
            self._number[chunk_id] = number
            self._lengths.append(len(tokens))
            self._total_length += len(tokens)
            postings = self._postings
            for term, tf in Counter(tokens).items():
                docs = postings.get(term)
                if docs is None:
                    docs = postings[term] = (array("I"), array("H"))
                docs[0].append(number)
                docs[1].append(tf if tf < 65535 else 65535)

    def remove(self, chunk_ids: list[str]) -> None:
        with self._lock:
            for chunk_id in chunk_ids:
                if chunk_id in self._number:
                    self._remove_locked(chunk_id)
            if self._dead > 64 and self._dead * 4 > len(self._ids):
                self._compact()

    def _remove_locked(self, chunk_id: str) -> None:
        number = self._number.pop(chunk_id)
        self._total_length -= self._lengths[number]
        self._lengths[number] = 0
        self._ids[number] = None
        self._dead += 1

    def _compact(self) -> None:
        """Renumber the live chunks and drop the removed ones from every posting list."""
        renumber = array("i", [-1]) * len(self._ids)
        ids: list[str | None] = []
        lengths = array("I")
        for old, chunk_id in enumerate(self._ids):
            if chunk_id is not None:
                renumber[old] = len(ids)
                ids.append(chunk_id)
                lengths.append(self._lengths[old])
        postings: dict[str, tuple[array[int], array[int]]] = {}
        for term, (docs, tfs) in self._postings.items():
            kept = [(renumber[d], tf) for d, tf in zip(docs, tfs, strict=True) if renumber[d] >= 0]
            if kept:
                postings[term] = (array("I", [d for d, _ in kept]), array("H", [tf for _, tf in kept]))
        self._ids, self._lengths, self._postings = ids, lengths, postings
        self._number = {chunk_id: n for n, chunk_id in enumerate(ids) if chunk_id is not None}
        self._dead = 0

    def clear(self) -> None:
        with self._lock:
            self._postings = {}
            self._ids = []
            self._number = {}
            self._lengths = array("I")
            self._total_length = 0
            self._dead = 0

    def scores(self, query: str) -> dict[str, float]:
        """BM25 score of every chunk sharing a word with the query (the fusion needs the scores of the
        dense candidates too, not only the lexical top)."""
        terms = set(lexical_tokens(query))
        with self._lock:
            n = len(self._number)
            if not n or not terms:
                return {}
            avg = self._total_length / n
            k1, b = self.k1, self.b
            lengths, ids = self._lengths, self._ids
            scores: dict[str, float] = {}
            for term in terms:
                docs = self._postings.get(term)
                if not docs:
                    continue
                live = len(docs[0]) if not self._dead else sum(1 for d in docs[0] if lengths[d])
                if not live:
                    continue
                idf = math.log(1 + (n - live + 0.5) / (live + 0.5))
                for number, tf in zip(docs[0], docs[1], strict=True):
                    length = lengths[number]
                    if not length:
                        continue
                    chunk_id = ids[number] or ""
                    norm = tf + k1 * (1 - b + b * length / avg)
                    scores[chunk_id] = scores.get(chunk_id, 0.0) + idf * tf * (k1 + 1) / norm
        return scores


def top(scores: dict[str, float], limit: int) -> list[tuple[str, float]]:
    return heapq.nlargest(limit, scores.items(), key=lambda item: item[1])
