"""Capture what `rank_code` is handed on the dev data once, then rank it again in process for each variant.

DEV DATA ONLY. Point this at the groups of `benchmarks/dev_sets.py` (eight, other, symbols, questions) and nothing
else: it asks every question of the sets it is given, so it must never see a held set, a judge or a reported set.
It refuses the held names of `dev_sets.HELD` and the reported repositories, and takes its lists from dev_sets.

    PYTHONPATH=BUILD python benchmarks/replay.py capture OUT GROUP... --corpus DIR   # once per build of the index
    PYTHONPATH=BUILD python benchmarks/replay.py score OUT [GROUP...] [--variant FILE] [--json DIR] [--base DIR]

`capture` checks each repository out under --corpus (as semble.py and questions.py do; semble-manner checkouts
at DIR/<name>, developer-question ones under DIR/questions), builds its index in this process through the server's
own code (`CodeIntelApp`, a forced sync with semble.py's config), waits for the question model as
`--wait-question-model` does, and asks every question through `CodeIntelApp.semantic_search(query, n_results=10)`,
the tool's path. `rank_code` is wrapped for the call: the candidates it is handed (copies), the query and keywords,
the files its `file_text` read, and each candidate's line span are written to OUT/<group>.pkl (symbols: one file per
symbol set), with the question's targets and the live top ten.

`score` ranks the captured candidates again with the `rank_code` of the code on PYTHONPATH and scores each top ten
the way the benchmarks do: semble's NDCG@10 (semble.ndcg10) for eight, other and symbols..symbols5, the reciprocal
rank of `semantic_search` (semantic.first_hit) for the developer questions. `--variant FILE` runs a Python file
first, which may patch `code_intel.index.retrieval` (a rule switched off, a new one). `--json DIR` writes
DIR/<group>.json in the shape `dev_sets.py run` writes, so `dev_sets.py compare BASE DIR` reads it; `--base DIR`
prints, per group, how many questions equal a `dev_sets.py run` folder's within 1e-4 and the summed change, with
eight's folds (the sorted names, A the even indices). A capture is only valid for the index it was made with: a
change to the chunker, the candidates or what is read before `rank_code` needs a new capture.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import pickle
import runpy
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import dev_sets  # noqa: E402

SEMBLE_GROUPS = ("eight", "other", *dev_sets.SYMBOL_SETS)
CUTOFF = 10
TOLERANCE = 1e-4


# ------------------------------------------------------------------------------------------------ capture
def _sets(group: str, corpus: Path, only: list[str]) -> list[tuple[str, Any, list[dict[str, Any]]]]:
    """(label, semble Repo or question set, questions as records) of a group; never a held or reported set."""
    import questions as q_bench
    import semble

    held = {n for names in dev_sets.HELD.values() for n in names} | set(dev_sets.HELD) | set(semble.REPORTED)
    if group in ("eight", "other"):
        eight, other = dev_sets.dev_repositories(corpus)
        names, symbols = (eight if group == "eight" else other), ""
    elif group in dev_sets.SYMBOL_SETS:
        names, symbols = sorted(p.stem for p in (semble.DEV_LOCAL / group).glob("*.json")), group
    elif group == "questions":
        out = []
        for qset in [q_bench.load_question_set(p) for p in q_bench.question_files(dev_sets.question_folders(False))]:
            if qset.path.parent.name in held or (only and qset.label not in only):
                continue
            records = [{"key": f"semantic_search:{q.id}", "query": q.q, "keywords": list(q.keywords),
                        "code_hint": q.code_hint, "answers": q_bench.answer_spans(q)} for q in qset.questions]
            out.append((qset.label, qset, records))
        return out
    else:
        raise SystemExit(f"replay groups: {', '.join((*SEMBLE_GROUPS, 'questions'))}")
    names = [n for n in names if n not in held and (not only or n in only)]
    return [(r.name, r, [{"key": f"{i}:{q['query']}", "query": q["query"], "keywords": [], "code_hint": None,
                          "category": q.get("category"), "targets": semble.targets_of(q),
                          "relevant": q.get("relevant", []), "secondary": q.get("secondary", [])}
                         for i, q in enumerate(r.questions)])
            for r in semble.load_repos(names, True, symbols)]


def _ask_all(root: Path, records: list[dict[str, Any]], config: dict[str, Any]) -> None:
    """Index `root` in process and ask each record's question, keeping what rank_code is handed."""
    import semble

    from code_intel.core.project import ProjectRoot
    from code_intel.index import service
    from code_intel.server.app import CodeIntelApp

    semble.fresh_state(root, config)
    app = CodeIntelApp(ProjectRoot.from_args(root))
    original = service.rank_code
    seen: dict[str, Any] = {}

    def wrapped(candidates: list[Any], query: str, keywords: Any = (), weights: Any = None,
                file_text: Callable[[str], str] | None = None) -> list[Any]:
        read: dict[str, str] = {}

        def recording(file: str) -> str:
            read[file] = file_text(file) if file_text is not None else ""
            return read[file]

        seen.update(candidates=copy.deepcopy(candidates), query=query, keywords=list(keywords), read=read,
                    file_text=file_text is not None)
        return original(candidates, query, keywords, weights, recording if file_text is not None else None)

    try:
        report = app.index.sync(force=True)
        if not report.get("complete"):
            raise RuntimeError(f"the index of {root} is incomplete: {report.get('partial_reason')}")
        waited = time.perf_counter()
        while time.perf_counter() - waited < 60:  # every question by the question model, as --wait-question-model
            if app.semantic_search("index state", n_results=1).get("query_model") == "all-MiniLM-L6-v2-code":
                break
            time.sleep(0.2)
        service.rank_code = wrapped
        for record in records:
            seen.clear()
            answer = app.semantic_search(record["query"], n_results=CUTOFF, keywords=record["keywords"] or None,
                                         code_hint=record["code_hint"])
            if "candidates" not in seen:
                raise RuntimeError(f"{root}: rank_code was not called for {record['query']!r}")
            spans = {}
            for c in seen["candidates"]:
                entry = app.index._get_parts().memory.entry(c.id)
                meta = entry.meta if entry is not None else {}
                spans[c.id] = (str(meta.get("file")), int(meta.get("start_line") or 0), int(meta.get("end_line") or 0))
            record.update(candidates=seen["candidates"], ranked_query=seen["query"], ranked_keywords=seen["keywords"],
                          read=seen["read"], file_text=seen["file_text"], spans=spans,
                          query_model=answer.get("query_model"), root=str(root),
                          live=[(str(r["file"]), int(r.get("line") or 1), int(r.get("end_line") or r.get("line") or 1))
                                for r in answer.get("results") or []][:CUTOFF])
    finally:
        service.rank_code = original
        app.close()


def capture(out: Path, groups: list[str], corpus: Path, only: list[str]) -> None:
    import questions as q_bench
    import semble

    out.mkdir(parents=True, exist_ok=True)
    dev_sets.link_annotations(corpus)
    groups = [g for group in groups for g in (dev_sets.SYMBOL_SETS if group == "symbols" else (group,))]
    # Every group's sets are listed before the first question: a held set merged while a capture runs (HELD was read
    # at start, its folder appears later) must not be taken for dev data, as dev14 was in the thirty-sixth round.
    planned = [(group, _sets(group, corpus, only)) for group in groups]
    for group, sets in planned:
        started = time.perf_counter()
        captured = []
        for label, source, records in sets:
            began = time.perf_counter()
            if group == "questions":
                root = q_bench.checkout(source, corpus / "questions")
                _ask_all(root, records, {})
            else:
                root = semble.checkout(source, corpus)
                _ask_all(root, records, {"sync_on_start": False})
            captured.append({"label": label, "records": records})
            print(f"{group} {label}: {len(records)} questions, {time.perf_counter() - began:.1f} s", flush=True)
        with (out / f"{group}.pkl").open("wb") as handle:
            pickle.dump({"group": group, "sets": captured}, handle)
        print(f"{group}: {sum(len(s['records']) for s in captured)} questions in {len(captured)} sets, "
              f"{time.perf_counter() - started:.0f} s", flush=True)


# -------------------------------------------------------------------------------------------------- score
def load(out: Path, group: str) -> dict[str, Any]:
    with (out / f"{group}.pkl").open("rb") as handle:
        data: dict[str, Any] = pickle.load(handle)
    return data


def ranked_spans(record: dict[str, Any], rank: Callable[..., list[Any]] | None = None) -> list[tuple[str, int, int]]:
    """The top ten of `rank_code` (default: the one imported now) on copies of a record's candidates."""
    if rank is None:
        from code_intel.index.retrieval import rank_code as rank
    root = Path(record["root"])
    read: dict[str, str] = dict(record["read"])

    def file_text(file: str) -> str:
        if file not in read:
            try:
                read[file] = "\n".join((root / file).read_text(encoding="utf-8", errors="replace").splitlines())
            except OSError:
                read[file] = ""
        return read[file]

    ranked = rank(copy.deepcopy(record["candidates"]), record["ranked_query"], record["ranked_keywords"],
                  file_text=file_text if record["file_text"] else None)
    out = []
    for c in ranked[:CUTOFF]:
        file, start, end = record["spans"][c.id]
        start, end = c.lines[0] or start, c.lines[1] or end
        out.append((file, int(start or 1), int(end or start or 1)))
    return out


def score_of(group: str, record: dict[str, Any], top: list[tuple[str, int, int]]) -> float:
    """semble's NDCG@10 for a semble-manner group, the reciprocal rank (0 outside the ten) for the questions."""
    if group == "questions":
        import semantic

        rank = semantic.first_hit(top, record["answers"], CUTOFF)
        return 1 / rank if rank else 0.0
    import semble

    return semble.ndcg10(top, record["targets"])


def replay(data: dict[str, Any], rank: Callable[..., list[Any]] | None = None
           ) -> dict[tuple[str, str], tuple[float, list[tuple[str, int, int]]]]:
    """(set, key) -> (score, top ten) of every captured question of a group, ranked again."""
    group = data["group"]
    out = {}
    for s in data["sets"]:
        for record in s["records"]:
            top = ranked_spans(record, rank)
            out[(s["label"], record["key"])] = (score_of(group, record, top), top)
    return out


def as_run(group: str, data: dict[str, Any], scored: dict[tuple[str, str], tuple[float, Any]]) -> dict[str, Any]:
    """The shape `dev_sets.scores` reads of a `dev_sets.py run` file."""
    if group == "questions":
        return {"questions": {s["label"]: [{"id": r["key"].split(":", 1)[1], "results": {"semantic_search": {
            "rank": round(1 / scored[(s["label"], r["key"])][0]) if scored[(s["label"], r["key"])][0] else None}}}
            for r in s["records"]] for s in data["sets"]}}
    return {"runs": [{"repo": s["label"], "questions": [
        {"query": r["query"], "category": r.get("category"), "ndcg10": scored[(s["label"], r["key"])][0],
         "top": scored[(s["label"], r["key"])][1]} for r in s["records"]]} for s in data["sets"]]}


def fold(label: str, names: list[str]) -> str:
    return "A" if sorted(names).index(label) % 2 == 0 else "B"


def against(base: dict[tuple[str, str], float], scored: dict[tuple[str, str], tuple[float, Any]]) -> dict[str, Any]:
    """How many questions equal the base within TOLERANCE, the summed change, up and down."""
    keys = [k for k in scored if (k[0], k[1]) in base]
    diff = [scored[k][0] - base[k] for k in keys]
    summed, up, down = dev_sets.tally(diff)
    return {"questions": len(scored), "in_base": len(keys), "equal": sum(abs(d) <= TOLERANCE for d in diff),
            "summed": summed, "up": up, "down": down}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("capture", help="index each dev set in process and keep what rank_code is handed")
    c.add_argument("out", type=Path)
    c.add_argument("groups", nargs="+", choices=(*SEMBLE_GROUPS, "symbols", "questions"))
    c.add_argument("--corpus", type=Path, required=True, help="a corpus folder of your own (checkouts, indexes)")
    c.add_argument("--repo", action="append", default=[], help="only these sets (repeatable)")
    s = sub.add_parser("score", help="rank the captured candidates again and score them")
    s.add_argument("out", type=Path)
    s.add_argument("groups", nargs="*")
    s.add_argument("--variant", type=Path, help="a Python file run first (it may patch code_intel.index.retrieval)")
    s.add_argument("--json", type=Path, help="write DIR/<group>.json as `dev_sets.py run` does")
    s.add_argument("--base", type=Path, help="a `dev_sets.py run` folder to check against, question by question")
    args = parser.parse_args(argv)
    if args.command == "capture":
        if "SEMBLE_DEV" not in os.environ:
            os.environ["SEMBLE_DEV"] = str(args.corpus)
        import semble

        semble.DEV = args.corpus
        capture(args.out, args.groups, args.corpus, args.repo)
        return 0
    if args.variant:
        runpy.run_path(str(args.variant))
    groups = args.groups or sorted(p.stem for p in args.out.glob("*.pkl"))
    for group in groups:
        data = load(args.out, group)
        started = time.process_time()
        scored = replay(data)
        cpu = time.process_time() - started
        mean = sum(v[0] for v in scored.values()) / max(len(scored), 1)
        line = f"{group}: {len(scored)} questions, mean {mean:.4f}, {cpu:.1f} s CPU"
        if args.json:
            args.json.mkdir(parents=True, exist_ok=True)
            (args.json / f"{group}.json").write_text(json.dumps(as_run(group, data, scored)))
        if args.base and (args.base / f"{group}.json").is_file():
            base = dev_sets.scores(args.base / f"{group}.json")
            figures = against(base, scored)
            line += (f"; against {args.base.name}: {figures['equal']} of {figures['in_base']} equal within "
                     f"{TOLERANCE:g} ({figures['questions'] - figures['in_base']} not in it), summed "
                     f"{figures['summed']:+.3f} ({figures['up']} up, {figures['down']} down)")
            if group == "eight":
                names = [s["label"] for s in data["sets"]]
                for half in "AB":
                    part = {k: v for k, v in scored.items() if fold(k[0], names) == half}
                    f = against(base, part)
                    line += f"; fold {half} {f['summed']:+.3f} ({f['up']} / {f['down']})"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
