"""Fusing the dense (embedding) ranking with the lexical (BM25) ranking.

Weighted reciprocal rank fusion: each list contributes weight / (k + rank). Rank fusion needs no score
calibration between cosine similarity and BM25; the weights come from benchmarks/semantic.py.
"""

from __future__ import annotations

from collections.abc import Sequence

RRF_K = 60
DENSE_WEIGHT = 1.0
LEXICAL_WEIGHT = 1.0


def fuse(
    dense: Sequence[tuple[str, float]],
    lexical: Sequence[tuple[str, float]],
    *,
    dense_weight: float = DENSE_WEIGHT,
    lexical_weight: float = LEXICAL_WEIGHT,
    k: int = RRF_K,
) -> list[tuple[str, float]]:
    """(id, fused score in 0..1), best first. Each input is (id, score) best first."""
    scores: dict[str, float] = {}
    for weight, ranking in ((dense_weight, dense), (lexical_weight, lexical)):
        if weight <= 0:
            continue
        for rank, (item, _score) in enumerate(ranking):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank + 1)
    best_possible = (max(dense_weight, 0) + max(lexical_weight, 0)) / (k + 1)
    ordered = sorted(scores.items(), key=lambda pair: pair[1], reverse=True)
    return [(item, round(score / best_possible, 4)) for item, score in ordered]
