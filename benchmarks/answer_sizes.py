"""What search_text, query and semantic_search answers cost an agent by default, before and after their token budget
(issue #40), on real trees.

"before" is each call as it answered before the budget, made in the same run: search_text's first 100 matches
(`max_results=100`, its old default, still lists past the budget), query's merged hits (up to 30) and
semantic_search's n_results hits, whole. "after" is the tool's default answer. Sizes are the compact JSON the
server sends (null fields left out) and tokens ceil(chars / 3.5); they are deterministic for a tree and arguments.
semantic_search needs the tree's semantic index: with --sync the script brings it up to date first (the first time
this takes minutes); without an index, query answers from its other routes and semantic_search is left out.

Run: .venv/bin/python benchmarks/answer_sizes.py [--sync] [--tree /work/corpora/sv-fastapi] [--tree ...]
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from code_intel.explore.query import run_query
from code_intel.server.app import CodeIntelApp

BUDGET_TOKENS = 1500
SLACK_TOKENS = 200  # the budget bounds the listed part; totals and hints come on top
SEARCHES = ["def ", "import", "self"]  # common text: many matches
QUESTIONS = ["where are request parameters validated?", "how is a dependency resolved and cached?"]


def _chars(answer: Any) -> int:
    data = answer if isinstance(answer, dict) else answer.model_dump(mode="json", exclude_none=True)
    return len(json.dumps(data, separators=(",", ":"), ensure_ascii=False, default=str))


def _row(call: str, before: int, after: int) -> dict[str, Any]:
    tokens = math.ceil(after / 3.5)
    return {"call": call, "before_tokens": math.ceil(before / 3.5), "after_tokens": tokens,
            "within": tokens <= BUDGET_TOKENS + SLACK_TOKENS}


def measure(tree: Path, sync: bool) -> list[dict[str, Any]]:
    app = CodeIntelApp.for_path(tree)
    rows = []
    try:
        for pattern in SEARCHES:
            before = app.explorer.search_text(pattern, max_results=100)
            rows.append(_row(f"search_text {pattern!r}", _chars(before), _chars(app.explorer.text_answer(pattern))))
        if sync:
            app.index.sync(wait=True)
        indexed = app.index.is_available()
        for question in QUESTIONS:
            semantic = app._semantic_hits if indexed else None
            before_q = app.explorer.run_budgeted("query", run_query, app.explorer, question, semantic)
            rows.append(_row(f"query {question!r}", _chars(before_q), _chars(app.query(question))))
            if indexed:
                for n in (10, 30):
                    before_s = app._semantic_hits(question, n_results=n)
                    rows.append(_row(f"semantic_search n_results={n} {question!r}", _chars(before_s),
                                     _chars(app.semantic_search(question, n_results=n))))
    finally:
        app.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", type=Path, action="append")
    parser.add_argument("--sync", action="store_true", help="bring each tree's semantic index up to date first")
    args = parser.parse_args()
    for tree in args.tree or [Path("/work/corpora/sv-fastapi")]:
        print(f"tree: {tree}")
        print(f"{'call':72} {'before tok':>10} {'after tok':>10}  within")
        for row in measure(tree, args.sync):
            print(f"{row['call'][:72]:72} {row['before_tokens']:>10} {row['after_tokens']:>10}  "
                  f"{'yes' if row['within'] else 'NO'}")


if __name__ == "__main__":
    main()
