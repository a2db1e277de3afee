"""Learn which code words go with the words of a description: the table tools/index/code_words.py adds to a
question's BM25 query.

A description says "Return the number of seconds"; the code writes `secs`, `total`, `count`. The pairs are
tune_model.py's (the first sentence of a docstring, the function's chunk with the docstring removed) from the
virtualenv's third-party packages: never the standard library (the docstring benchmark's corpus), never a
package a benchmark reads (tokenlearn_static.BENCHMARK_PACKAGES), never a benchmark's sentence. Both sides are
made into the index's own lexical tokens (`lexical_tokens`); the chunk's header keeps its symbol and loses its
path. For each question word seen in enough pairs, the code tokens that co-occur with it most, by normalised
pointwise mutual information over the pairs, are kept with that score.

    nice -n 10 .venv/bin/python benchmarks/code_words.py [--per-word 3] [--min-pairs 20] [--min-joint 8]
        [--out tools/index/weights/code-words.json] [--dump PAIRS.jsonl]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import sysconfig
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import tokenlearn_static  # noqa: E402
import tune_model  # noqa: E402

from code_intel.index.code_words import TABLE
from code_intel.index.text import lexical_tokens


def code_side(document: str) -> set[str]:
    """The lexical tokens of a pair's chunk text (tune_model: header line, then the spelled-out code), the header's
    path left out: it names the package, not what the function does."""
    header, _, code = document.partition("\n")
    return set(lexical_tokens(header.partition(": ")[2] + "\n" + code))


def learn(queries: list[str], documents: list[str], packages: list[str], per_word: int, min_pairs: int,
          min_joint: int, min_packages: int) -> dict[str, list[list]]:
    """{question token: [[code token, npmi], ...] best first} over the pairs; a word and a code token count together
    only when at least `min_packages` packages pair them (one library's own vocabulary is not the language's)."""
    n = len(queries)
    words: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    joint: Counter[tuple[str, str]] = Counter()
    spread: Counter[tuple[str, str]] = Counter()
    seen: dict[str, set[tuple[str, str]]] = {}
    for query, document, package in zip(queries, documents, packages, strict=True):
        q = set(lexical_tokens(query))
        d = code_side(document)
        words.update(q)
        codes.update(d)
        both = [(a, b) for a in q for b in d if a != b]
        joint.update(both)
        seen.setdefault(package, set()).update(both)
    for both in seen.values():
        spread.update(both)
    by_word: dict[str, list[tuple[float, str]]] = {}
    for (a, b), c in joint.items():
        if c < min_joint or words[a] < min_pairs or spread[(a, b)] < min_packages:
            continue
        p = c / n
        npmi = math.log(p / (words[a] / n * codes[b] / n)) / -math.log(p)
        if npmi > 0:
            by_word.setdefault(a, []).append((npmi, b))
    return {a: [[b, round(s, 3)] for s, b in sorted(found, reverse=True)[:per_word]]
            for a, found in sorted(by_word.items())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-word", type=int, default=3, help="code tokens kept per question word")
    parser.add_argument("--min-pairs", type=int, default=20, help="pairs a question word must appear in")
    parser.add_argument("--min-joint", type=int, default=8, help="pairs a word and a code token must share")
    parser.add_argument("--min-packages", type=int, default=5, help="packages that must pair a word and a code token")
    parser.add_argument("--per-package", type=int, default=600, help="pairs from one package at most (tune_model)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pairs", type=Path, help="read the pairs from this JSON-lines file (written by --dump) "
                        "instead of mining them again")
    parser.add_argument("--dump", type=Path, help="also write the mined pairs here (JSON lines)")
    parser.add_argument("--out", type=Path, default=TABLE)
    args = parser.parse_args()
    started = time.perf_counter()
    if args.pairs:
        rows = [json.loads(line) for line in args.pairs.read_text().splitlines()]
        queries, documents = [r["query"] for r in rows], [r["document"] for r in rows]
        packages = [r["package"] for r in rows]
    else:
        site = Path(sysconfig.get_paths()["purelib"])
        data = tune_model.build_pairs(site, args.per_package, tokenlearn_static.banned_sentences(), args.seed,
                                      skip=tokenlearn_static.BENCHMARK_PACKAGES)
        queries, documents, packages = data["queries"], data["documents"], data["packages"]
        if args.dump:
            with args.dump.open("w") as out:
                for q, d, p in zip(queries, documents, packages, strict=True):
                    out.write(json.dumps({"query": q, "document": d, "package": p}) + "\n")
    print(f"{len(queries)} pairs from {len(set(packages))} packages; {time.perf_counter() - started:.0f} s", flush=True)
    table = learn(queries, documents, packages, args.per_word, args.min_pairs, args.min_joint, args.min_packages)
    card = {"pairs": len(queries), "packages": len(set(packages)), "per_word": args.per_word,
            "min_pairs": args.min_pairs, "min_joint": args.min_joint, "min_packages": args.min_packages, "per_package": args.per_package, "seed": args.seed, "score": "npmi"}
    args.out.write_text(json.dumps({"card": card, "words": table}, separators=(",", ":")) + "\n")
    print(f"{len(table)} words, {sum(map(len, table.values()))} code tokens; wrote {args.out} "
          f"({args.out.stat().st_size / 1e3:.0f} kB) in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
