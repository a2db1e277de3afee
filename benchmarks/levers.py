"""Choose ranking levers on the question benchmark's dev set (never the test set): every variant is scored
on the same synced indexes, through the service layer behind `semantic_search` and `query`.

Each dev repository (benchmarks/questions/dev/*.yml) is checked out and synced as benchmarks/questions.py
does (the same checkout folder, so the index is shared with it); then every variant of the ranking settings
(`tools/index/retrieval.py` SIGNALS and fusion weights, `tools/explore/query.py` route scores) answers every
question. Printed per variant: pooled MRR@10 and recall@10 of semantic_search and query, and the share of
how-it-works questions whose implementation outranks tests and docs; BM25 over the same chunks beside.

    .venv/bin/python benchmarks/levers.py [--set dev] [--variants NAME ...] [--json FILE]
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import questions  # noqa: E402
import semantic  # noqa: E402

from code_intel.explore import query as query_module
from code_intel.index import retrieval, service
from code_intel.index.retrieval import Signals


@contextmanager
def settings(signals: Signals | None = None, dense_weight: float | None = None,
             query_overrides: dict[str, Any] | None = None) -> Iterator[None]:
    saved_signals, saved_weight = retrieval.SIGNALS, service.DENSE_WEIGHT
    saved_query = {k: getattr(query_module, k) for k in (query_overrides or {})}
    try:
        if signals is not None:
            retrieval.SIGNALS = signals
        if dense_weight is not None:
            service.DENSE_WEIGHT = dense_weight
        for k, v in (query_overrides or {}).items():
            setattr(query_module, k, v)
        yield
    finally:
        retrieval.SIGNALS, service.DENSE_WEIGHT = saved_signals, saved_weight
        for k, v in saved_query.items():
            setattr(query_module, k, v)


def _signals(**changes: Any) -> Signals:
    base = copy.deepcopy(retrieval.SIGNALS)
    for k, v in changes.items():
        setattr(base, k, v)
    return base


NONE = dict(role_penalty={}, module_penalty=0.0)
VARIANTS: dict[str, dict[str, Any]] = {
    "shipped": {},
    "no signals": {"signals": _signals(**NONE)},
    **{f"role {p}": {"signals": _signals(**{**NONE, "role_penalty": {"test": p, "doc": p, "generated": 2 * p}})}
       for p in (0.05, 0.1, 0.15, 0.2, 0.3)},
    **{f"module {p}": {"signals": _signals(**{**NONE, "module_penalty": p})} for p in (0.05, 0.1)},
    **{f"dense weight {w}": {"dense_weight": w} for w in (0.6, 0.7, 0.9)},
    **{f"role {p} dense {w}": {"signals": _signals(role_penalty={"test": p, "doc": p, "generated": max(2 * p, 0.3)}),
                                "dense_weight": w}
       for p in (0.3, 0.5, 1.0) for w in (0.5, 0.6, 0.7, 0.8)},
    "role 0.5 dense 0.6 module_penalty 0": {"signals": _signals(role_penalty={"test": 0.5, "doc": 0.5, "generated": 1.0},
                                                                module_penalty=0.0), "dense_weight": 0.6},
    **{f"shipped, dense weight {w}": {"dense_weight": w} for w in (0.6, 0.7, 0.75)},
    "query without the semantic lead": {"query_overrides": {"SEMANTIC_LEAD": query_module.SEMANTIC_TOP,
                                                            "LEAD_AGREEMENT_BONUS": query_module.AGREEMENT_BONUS}},
    **{f"query lead bonus {b}": {"query_overrides": {"LEAD_AGREEMENT_BONUS": b}} for b in (0.02, 0.05, 0.15)},
    **{f"query lead {t}": {"query_overrides": {"SEMANTIC_LEAD": t}} for t in (0.9, 1.2)},
}


def score(outcomes: list[list[questions.Span]], qs: list[questions.Question]) -> dict[str, Any]:
    wrapped = [questions.Outcome(q.id, semantic.first_hit(top, questions.answer_spans(q), questions.CUTOFF), top)
               for top, q in zip(outcomes, qs, strict=True)]
    return questions.summarize(wrapped, qs)


def ask_all(app: Any, qs: list[questions.Question], with_arguments: bool, tools: set[str]) -> tuple[list[Any], list[Any]]:
    semantic_tops, query_tops = [], []
    for q in qs:
        extra: dict[str, Any] = {"keywords": q.keywords, "code_hint": q.code_hint} if with_arguments else {}
        if "semantic_search" in tools:
            found = app.index.semantic_search(q.q, n_results=questions.CUTOFF, collection="forest", **extra)
            semantic_tops.append(questions.result_spans(found["results"])[: questions.CUTOFF])
        if "query" in tools:
            answered = app.query(q.q, **extra).model_dump()  # the QueryResult model the tool answers with
            query_tops.append(questions.result_spans(answered["results"])[: questions.CUTOFF])
    return semantic_tops, query_tops


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", choices=["dev"], default="dev", help="only the dev set: levers are never chosen on test")
    parser.add_argument("--variants", nargs="*", help="names from VARIANTS (default: all)")
    parser.add_argument("--arguments", action="store_true", help="pass each question's keywords and code_hint")
    parser.add_argument("--both", action="store_true", help="ask both tools for every variant")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    from code_intel.core.project import ProjectRoot
    from code_intel.index.store import FOREST
    from code_intel.server.app import CodeIntelApp

    sets = [questions.load_question_set(p) for p in questions.question_files([questions.SETS[args.set]])]
    apps, all_questions, bm25_tops = [], [], []
    for qset in sets:
        root = questions.checkout(qset)
        questions.write_config(root, None)
        app = CodeIntelApp(ProjectRoot.from_args(root))
        started = time.perf_counter()
        report = app.index.sync()
        print(f"{qset.label}: {report['chunks_total']} chunks, synced in {time.perf_counter() - started:.0f} s",
              flush=True)
        stored = app.index._get_parts().store.get(FOREST, include=("documents", "metadatas"))
        spans = [(str(m["file"]), int(m["start_line"]), int(m["end_line"])) for m in stored["metadatas"]]
        rank = semantic.bm25_ranker([d or "" for d in stored["documents"]])
        bm25_tops += [[spans[i] for i in rank(q.q, questions.CUTOFF)] for q in qset.questions]
        apps.append((app, qset.questions))
        all_questions += qset.questions
    figures: dict[str, Any] = {"bm25": score(bm25_tops, all_questions)}
    print(f"{'variant':<28} {'semantic MRR':>12} {'recall':>7} {'impl>test':>9} {'query MRR':>10} {'recall':>7}")
    print(f"{'bm25':<28} {figures['bm25']['mrr10']:>12.4f} {figures['bm25']['recall10']:>7.3f}")
    names = args.variants or list(VARIANTS)
    for name in names:
        options: dict[str, Any] = dict(VARIANTS[name])
        # a variant of the query route's scores leaves semantic_search as it is, and the other way round
        tools = {"query"} if "query_overrides" in options else {"semantic_search"}
        if name == "shipped" or args.both:
            tools = {"semantic_search", "query"}
        semantic_tops: list[Any] = []
        query_tops: list[Any] = []
        with settings(**options):
            for app, qs in apps:
                s_tops, q_tops = ask_all(app, qs, args.arguments, tools)
                semantic_tops += s_tops
                query_tops += q_tops
        s = score(semantic_tops, all_questions) if semantic_tops else None
        qy = score(query_tops, all_questions) if query_tops else None
        figures[name] = {"semantic_search": s, "query": qy}
        cells = (f"{s['mrr10']:>12.4f} {s['recall10']:>7.3f} {s['impl_outranks_tests_docs'] or 0:>9.3f}" if s
                 else " " * 30)
        cells += f" {qy['mrr10']:>10.4f} {qy['recall10']:>7.3f}" if qy else ""
        print(f"{name:<28} {cells}", flush=True)
    for app, _ in apps:
        app.close()
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
