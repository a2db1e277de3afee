"""The code words a description's words go with, added to a question's BM25 query at a lower weight.

A docstring says "Return the number of seconds"; the code it describes writes `secs`, `total`, `count`. The
table (weights/code-words.json, learned by benchmarks/code_words.py from docstring/code pairs of third-party
packages) maps a question's lexical token to a few code tokens, each with its association score (0..1).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from code_intel.index.text import lexical_tokens

TABLE = Path(__file__).resolve().parent / "weights" / "code-words.json"
WEIGHT = 0.3  # an added code word counts this share of a question word, times its association score
PER_WORD = 3  # code words added per question word at most


@functools.cache
def _table() -> dict[str, list[tuple[str, float]]]:
    """Loaded at the first question: a few hundred kilobytes of JSON nobody else needs."""
    if not TABLE.is_file():
        return {}
    words = json.loads(TABLE.read_text())["words"]
    return {word: [(code, float(score)) for code, score in found] for word, found in words.items()}


def expansion(query: str, weight: float | None = None, per_word: int | None = None) -> dict[str, float]:
    """{code token: weight below 1} to add to the question's BM25 terms; none the question already writes."""
    weight = WEIGHT if weight is None else weight
    per_word = PER_WORD if per_word is None else per_word
    if weight <= 0:
        return {}
    table = _table()
    terms = set(lexical_tokens(query))
    added: dict[str, float] = {}
    for term in terms:
        for code, score in table.get(term, ())[:per_word]:
            if code not in terms:
                added[code] = max(added.get(code, 0.0), weight * score)
    return added
