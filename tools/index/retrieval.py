"""Fusing the dense (embedding) ranking with the lexical (BM25) ranking.

The default is a convex combination of scores normalised per query: each side's scores are min-max
scaled to 0..1 over the candidates (the union of both top lists, every candidate scored by both sides),
then `dense_weight * dense + (1 - dense_weight) * lexical`. On benchmarks/semantic.py it ranked the
right function higher than weighted reciprocal rank fusion (`fuse_rrf`, kept for comparison): rank
fusion throws away how far ahead the best candidate of each side is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

DENSE_WEIGHT = 0.8  # share of the dense side in the convex fusion (benchmarks/semantic.py sweep, code-tuned model)
RRF_K = 60


def _min_max(scores: list[float]) -> list[float]:
    low, high = min(scores), max(scores)
    if high > low:
        return [(s - low) / (high - low) for s in scores]
    return [1.0 if high > 0 else 0.0 for _ in scores]


def fuse(
    dense: Mapping[str, float],
    lexical: Mapping[str, float],
    *,
    dense_weight: float = DENSE_WEIGHT,
) -> list[tuple[str, float]]:
    """(id, fused score in 0..1), best first.

    `dense` maps every candidate to its cosine similarity, `lexical` maps candidates to BM25 scores (a
    candidate missing there scores 0: it shares no word with the query). Candidates are the keys of
    `dense` plus those of `lexical`; one missing from `dense` is left out (the caller scores both sides).
    """
    ids = list(dense)
    if not ids:
        return []
    weight = min(max(dense_weight, 0.0), 1.0)
    dense_norm = _min_max([dense[i] for i in ids])
    lexical_raw = [lexical.get(i, 0.0) for i in ids]
    lexical_norm = _min_max(lexical_raw) if any(lexical_raw) else [0.0] * len(ids)
    fused = [weight * d + (1 - weight) * lx for d, lx in zip(dense_norm, lexical_norm, strict=True)]
    order = sorted(range(len(ids)), key=lambda k: (-fused[k], -dense[ids[k]]))
    return [(ids[k], round(fused[k], 4)) for k in order]


def fuse_rrf(
    dense: Sequence[tuple[str, float]],
    lexical: Sequence[tuple[str, float]],
    *,
    dense_weight: float = 1.0,
    lexical_weight: float = 1.0,
    k: int = RRF_K,
) -> list[tuple[str, float]]:
    """Weighted reciprocal rank fusion: (id, score in 0..1), best first; each input is (id, score) best first."""
    scores: dict[str, float] = {}
    for weight, ranking in ((dense_weight, dense), (lexical_weight, lexical)):
        if weight <= 0:
            continue
        for rank, (item, _score) in enumerate(ranking):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank + 1)
    best_possible = (max(dense_weight, 0) + max(lexical_weight, 0)) / (k + 1)
    ordered = sorted(scores.items(), key=lambda pair: pair[1], reverse=True)
    return [(item, round(score / best_possible, 4)) for item, score in ordered]
