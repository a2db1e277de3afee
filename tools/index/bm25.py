"""BM25 (k1 1.2, b 0.75) over identifier-split, stemmed tokens, kept incrementally in memory beside the
dense index.

Postings are per term, so a query touches only the chunks that share a word with it; adding or removing a
file's chunks updates the index in place instead of rebuilding it.
"""

from __future__ import annotations

import heapq
import math
import threading
from collections import Counter

from code_intel.index.text import lexical_tokens


class LexicalIndex:
    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self._postings: dict[str, dict[str, int]] = {}
        self._lengths: dict[str, int] = {}
        self._terms: dict[str, list[str]] = {}  # per chunk, so removal touches only its own postings
        self._total_length = 0
        self._lock = threading.RLock()
        self.loaded = False

    def __len__(self) -> int:
        return len(self._lengths)

    def add(self, chunk_id: str, text: str) -> None:
        tokens = lexical_tokens(text)
        with self._lock:
            if chunk_id in self._lengths:
                self._remove_locked(chunk_id)
            counts = Counter(tokens)
            for term, tf in counts.items():
                self._postings.setdefault(term, {})[chunk_id] = tf
            self._terms[chunk_id] = list(counts)
            self._lengths[chunk_id] = len(tokens)
            self._total_length += len(tokens)

    def remove(self, chunk_ids: list[str]) -> None:
        with self._lock:
            for chunk_id in chunk_ids:
                if chunk_id in self._lengths:
                    self._remove_locked(chunk_id)

    def _remove_locked(self, chunk_id: str) -> None:
        for term in self._terms.pop(chunk_id, []):
            docs = self._postings.get(term)
            if docs is not None:
                docs.pop(chunk_id, None)
                if not docs:
                    del self._postings[term]
        self._total_length -= self._lengths.pop(chunk_id)

    def clear(self) -> None:
        with self._lock:
            self._postings.clear()
            self._lengths.clear()
            self._terms.clear()
            self._total_length = 0

    def scores(self, query: str) -> dict[str, float]:
        """BM25 score of every chunk sharing a word with the query (the fusion needs the scores of the
        dense candidates too, not only the lexical top)."""
        terms = set(lexical_tokens(query))
        with self._lock:
            n = len(self._lengths)
            if not n or not terms:
                return {}
            avg = self._total_length / n
            scores: dict[str, float] = {}
            for term in terms:
                docs = self._postings.get(term)
                if not docs:
                    continue
                idf = math.log(1 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
                for chunk_id, tf in docs.items():
                    norm = tf + self.k1 * (1 - self.b + self.b * self._lengths[chunk_id] / avg)
                    scores[chunk_id] = scores.get(chunk_id, 0.0) + idf * tf * (self.k1 + 1) / norm
        return scores

    def search(self, query: str, limit: int) -> list[tuple[str, float]]:
        """(chunk id, BM25 score), best first; empty when no query word occurs in the index."""
        return top(self.scores(query), limit)


def top(scores: dict[str, float], limit: int) -> list[tuple[str, float]]:
    return heapq.nlargest(limit, scores.items(), key=lambda item: item[1])
