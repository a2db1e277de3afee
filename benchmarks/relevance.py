"""Calibrating validate_symbol_relevance's verdict thresholds for the configured model, on the question dev set.

For every question of `benchmarks/questions/dev/` (repositories no reported benchmark uses): the symbols defined
by the chunks that overlap its answer spans are *answers*; as many symbols drawn at random from other files of
the same repository are *others*. Both are scored by the real `validate_symbol_relevance` (the question against
each name), first with the reference model (the transformer, whose scale the thresholds 0.40 / 0.25 were set on),
then with the model to calibrate; the script prints both distributions and the thresholds under which the
calibrated model calls as many answers `relevant` and as few `unrelated` as the reference does.

    .venv/bin/python benchmarks/relevance.py [--model code-static] [--reference all-MiniLM-L6-v2-code]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import questions  # noqa: E402

from code_intel.core.config import Config  # noqa: E402
from code_intel.core.project import ProjectRoot  # noqa: E402
from code_intel.index import service  # noqa: E402
from code_intel.index.service import SemanticIndex  # noqa: E402


def pairs(index: SemanticIndex, qset: questions.QuestionSet, rng: random.Random) -> list[tuple[str, list[str], list[str]]]:
    """(question, answer symbols, other symbols) per question that has answer symbols."""
    files = index._get_parts().manifest.files
    out = []
    for q in qset.questions:
        answer_files = {a.file for a in q.answers}
        answers = sorted({s for a in q.answers if a.file in files for c in files[a.file].chunks
                          if c.start_line <= a.end and c.end_line >= a.start for s in c.symbols})[:5]
        if not answers:
            continue
        others = sorted({s for path, entry in files.items() if path not in answer_files
                         and questions.file_role(path) == "implementation" for c in entry.chunks for s in c.symbols})
        out.append((q.q, answers, rng.sample(others, min(len(answers), len(others)))))
    return out


def share_at_least(values: list[float], threshold: float) -> float:
    return sum(v >= threshold for v in values) / max(len(values), 1)


def similarities(model: str | None, repos: list[str] | None) -> tuple[list[float], list[float]]:
    """validate_symbol_relevance's similarity of every answer symbol and every other symbol, over the dev set."""
    rng = random.Random(11)
    answers: list[float] = []
    others: list[float] = []
    for path in sorted(questions.SETS["dev"].glob("*.yml")):
        qset = questions.load_question_set(path)
        if repos and qset.name not in repos:
            continue
        root = questions.checkout(qset)
        config = Config(sync_on_start=False, **({"embedding_model": model} if model else {}))
        index = SemanticIndex(ProjectRoot.from_args(root), lambda config=config: config)
        index.sync()
        for query, good, bad in pairs(index, qset, rng):
            verdicts = index.validate_symbol_relevance(query, good + bad)["results"]
            answers += [r["similarity"] for r in verdicts[: len(good)]]
            others += [r["similarity"] for r in verdicts[len(good):]]
        index.close()
    return answers, others


def describe(label: str, answers: list[float], others: list[float], relevant: float, weak: float) -> None:
    for name, values in (("answers", answers), ("others", others)):
        q = statistics.quantiles(values, n=20)
        print(f"{label} {name}: n={len(values)} median {statistics.median(values):.3f}; 5th/25th/75th/95th "
              f"percentiles {q[0]:.3f} / {q[4]:.3f} / {q[14]:.3f} / {q[18]:.3f}")
    print(f"{label} at relevant {relevant:.2f} / weak {weak:.2f}: answers relevant {share_at_least(answers, relevant):.0%}, "
          f"unrelated {1 - share_at_least(answers, weak):.0%}; others relevant {share_at_least(others, relevant):.0%}, "
          f"unrelated {1 - share_at_least(others, weak):.0%}", flush=True)


def threshold_keeping(values: list[float], share: float) -> float:
    """The similarity at or above which `share` of the values lie."""
    ordered = sorted(values)
    return ordered[min(max(int(round(len(ordered) * (1 - share))), 0), len(ordered) - 1)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="code-static", help="the model to calibrate (default code-static)")
    parser.add_argument("--reference", default="all-MiniLM-L6-v2-code",
                        help="the model whose scale the transformer thresholds were set on (default %(default)s)")
    parser.add_argument("--repo", action="append", help="only these dev repositories (repeatable)")
    args = parser.parse_args(argv)
    relevant, weak = service.TRANSFORMER_THRESHOLDS
    ref_answers, ref_others = similarities(args.reference, args.repo)
    describe(args.reference, ref_answers, ref_others, relevant, weak)
    answers, others = similarities(args.model, args.repo)
    current = service.thresholds_for(args.model)
    describe(f"{args.model} (shipped thresholds)", answers, others, *current)
    # the same verdicts on both scales: as many answers called relevant, as few called unrelated
    new_relevant = threshold_keeping(answers, share_at_least(ref_answers, relevant))
    new_weak = threshold_keeping(answers, share_at_least(ref_answers, weak))
    describe(f"{args.model} (matched to {args.reference})", answers, others, new_relevant, new_weak)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
