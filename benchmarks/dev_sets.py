"""Which of #41's data a ranking change may be chosen on, and one command to run a build on it and compare two runs.

Every rule of the retrieval is chosen on dev data and judged once on sets nobody chose on (docs/benchmarks.md, the
#41 section). The split lived in notes outside the repository and was lost with a machine, so it is written here:

- `HELD`: semble-manner sets written blind (benchmarks/semble_dev/annotations) and developer-question sets
  (benchmarks/questions/devN) kept for judging. The judges of the coming round are `JUDGES`; the rest wait for later
  rounds. No rule is chosen on a held set, and a helper that writes or tunes rules never runs one.
- Everything else of `semble.py --set dev` is dev data: the eight languages of the reported set ("eight") and the
  other languages ("other"), the symbol sets symbols..symbols5, the docstring split (`semantic.py --set dev`) and
  the developer questions benchmarks/questions/dev..devN that are not held ("questions"); the "docstrings" group runs
  `semantic.py --set dev`, `--set dev2` and `--set dev3`, two more splits of other modules (since the thirty-ninth
  and fortieth rounds).
- The docstring benchmark's `held` split (`semantic.py --set held`, since the thirty-ninth round) is a judge too: the
  "judges" group runs it, and no rule is chosen on it.
- A held set becomes dev data the round after it judged: move its name out of `HELD` then.

    python benchmarks/dev_sets.py list                        # the groups and what each runs
    python benchmarks/dev_sets.py run OUT [--build DIR] [--corpus DIR] [GROUP ...]
    python benchmarks/dev_sets.py compare OLD NEW             # per group: summed change, questions up and down

`run` writes OUT/<group>.json with the build at DIR (a folder holding `code_intel`, as `git archive` of a commit with
tools/ renamed; default: this checkout) and checkouts under --corpus (default $SEMBLE_DEV or
/work/corpora/semble-dev; semble's own dev annotations are read from /work/corpora/semble-dev/annotations and linked
into another corpus folder). Two builds run at once need two corpus folders. Groups: eight, other, symbols,
docstrings, questions, judges (the semble-manner judges and the question judges of `JUDGES`, and the docstring
benchmark's held split).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEMBLE_DEV_DEFAULT = Path("/work/corpora/semble-dev")
EIGHT = ("python", "javascript", "typescript", "go", "rust", "java", "kotlin", "ruby")  # the reported set's languages
SYMBOL_SETS = ("symbols", "symbols2", "symbols3", "symbols4", "symbols5")

# Held sets: name -> semble-manner repositories (annotations/<name>.json) or a question folder (questions/<name>).
# blind32 and dev9 judged the thirty-second round, blind33 and dev10 the thirty-third, blind34 and dev11 the
# thirty-fourth, blind35 and dev12 the thirty-sixth, blind36 and dev13 the thirty-seventh; all ten are dev data since.
# dev14 is dev data too: written in the thirty-sixth round, it was asked and scored by mistake before any round judged
# with it (docs, t-qfresh14).
HELD: dict[str, tuple[str, ...]] = {
    "blind37": ("pf4j", "committee", "rouille", "graphql-modules"),  # written by t-blind37 (thirty-sixth round)
    "blind38": ("unirest-java", "asynq", "kombu", "msw"),  # written by t-blind38 (thirty-seventh round)
    "dev15": (),  # written by t-qfresh15 (thirty-seventh round): wakaq, kaito, web (hoisie/web)
}
JUDGES = ("blind37", "dev15")  # the coming round's judges: run once per branch that asks to merge, nobody tunes on them
GROUPS = ("eight", "other", "symbols", "docstrings", "questions", "judges")


def _languages() -> dict[str, str]:
    sys.path.insert(0, str(HERE))
    import semble

    table = {r["name"]: r["language"] for r in json.loads((semble.DATA / "repos.json").read_text())}
    table.update({r["name"]: r["language"] for r in json.loads((semble.DEV_LOCAL / "repos.json").read_text())})
    return table


def dev_repositories(corpus: Path) -> tuple[list[str], list[str]]:
    """The eight-language and the other-language dev repositories: every dev annotation that is not held."""
    held = {name for names in HELD.values() for name in names}
    folders = [corpus / "annotations", HERE / "semble_dev" / "annotations"]
    names = sorted({p.stem for d in folders if d.is_dir() for p in d.glob("*.json")} - held)
    language = _languages()
    return [n for n in names if language.get(n) in EIGHT], [n for n in names if language.get(n) not in EIGHT]


def question_folders(held: bool) -> list[Path]:
    folders = sorted((p for p in (HERE / "questions").glob("dev*") if p.is_dir()),
                     key=lambda p: int(p.name[3:] or 1))
    return [p for p in folders if (p.name in HELD) == held and (not held or p.name in JUDGES)]


def commands(group: str, out: Path, corpus: Path) -> list[tuple[str, list[str]]]:
    """(json file, argv) for each run of a group."""
    py = [sys.executable]

    def semble(name: str, *args: str) -> tuple[str, list[str]]:
        return name, py + [str(HERE / "semble.py"), "--wait-question-model", *args, "--json", str(out / f"{name}.json")]

    def semble_dev(name: str, repos: list[str]) -> tuple[str, list[str]]:
        return semble(name, "--set", "dev", *[a for r in repos for a in ("--repo", r)])

    def questions(name: str, folders: list[Path]) -> tuple[str, list[str]]:
        return name, py + [str(HERE / "questions.py"), "--questions", *map(str, folders), "--no-untuned", "--json",
                           str(out / f"{name}.json")]

    def docstrings(name: str, split: str) -> tuple[str, list[str]]:
        return name, py + [str(HERE / "semantic.py"), "--set", split, "--no-dense-baseline", "--json",
                           str(out / f"{name}.json")]

    if group in ("eight", "other"):
        eight, other = dev_repositories(corpus)
        return [semble_dev(group, eight if group == "eight" else other)]
    if group == "symbols":
        return [semble(s, "--set", s) for s in SYMBOL_SETS]
    if group == "docstrings":
        return [docstrings("docstrings", "dev"), docstrings("docstrings-dev2", "dev2"),
                docstrings("docstrings-dev3", "dev3")]
    if group == "questions":
        return [questions("questions", question_folders(False))]
    if group == "judges":
        repos = [r for name in JUDGES for r in HELD[name]]
        folders = question_folders(True)
        return ([semble_dev("judges", repos)] if repos else []) + (
            [questions("judge-questions", folders)] if folders else []) + [docstrings("docstrings-held", "held")]
    raise SystemExit(f"unknown group {group!r}: send one of {', '.join(GROUPS)}")


def link_annotations(corpus: Path) -> None:
    """Make `corpus` (created if missing) read semble's dev annotations from the shared folder."""
    corpus.mkdir(parents=True, exist_ok=True)
    shared = SEMBLE_DEV_DEFAULT / "annotations"
    if corpus != SEMBLE_DEV_DEFAULT and shared.is_dir() and not (corpus / "annotations").exists():
        (corpus / "annotations").symlink_to(shared)


def run(out: Path, build: Path | None, corpus: Path, groups: list[str]) -> int:
    out.mkdir(parents=True, exist_ok=True)
    link_annotations(corpus)
    env = {**os.environ, "SEMBLE_DEV": str(corpus)}
    if build is not None:
        if not (build / "code_intel").is_dir():
            raise SystemExit(f"{build} holds no code_intel/: make it with `git archive COMMIT tools .claude "
                             "code_intel_server.py templates | tar -x -C DIR && mv DIR/tools DIR/code_intel`")
        env["PYTHONPATH"] = str(build)  # semble.py hands it on to the server it starts (semble.server_parameters)
    failed = 0
    # Every run is listed before the first starts, with the HELD read at start (see replay.capture).
    planned = [command for group in groups for command in commands(group, out, corpus)]
    for name, argv in planned:
        with (out / f"{name}.log").open("w") as log:
            code = subprocess.run(argv, env=env, stdout=log, stderr=subprocess.STDOUT, check=False).returncode
        print(f"{name}: exit {code}, {out / (name + '.json')}", flush=True)
        failed += code != 0
    return 1 if failed else 0


def scores(path: Path) -> dict[tuple[str, str], float]:
    """(repository, question) -> the question's score: NDCG@10 for semble-manner runs, the reciprocal rank of
    semantic_search (and of query, as a second key) for developer questions."""
    data = json.loads(path.read_text())
    out: dict[tuple[str, str], float] = {}
    if "runs" in data:
        for run_ in data["runs"]:
            for i, q in enumerate(run_["questions"]):
                out[(run_["repo"], f"{i}:{q['query']}")] = q["ndcg10"]
    elif "questions" in data and isinstance(data["questions"], dict):
        for label, questions in data["questions"].items():
            for q in questions:
                for method in ("semantic_search", "query"):
                    rank = (q["results"].get(method) or {}).get("rank")
                    out[(label, f"{method}:{q['id']}")] = 1 / rank if rank else 0.0
    return out


def tally(diff: list[float]) -> tuple[float, int, int]:
    """The summed change of per-question differences, and how many questions went up and down."""
    return sum(diff), sum(d > 1e-9 for d in diff), sum(d < -1e-9 for d in diff)


def compare(old: Path, new: Path) -> int:
    for path in sorted(new.glob("*.json")):
        before_path = old / path.name
        if not before_path.is_file():
            print(f"{path.stem}: no {before_path}")
            continue
        if path.stem.startswith("docstrings"):
            a, b = json.loads(before_path.read_text()), json.loads(path.read_text())
            print(f"{path.stem}: MRR@10 {a.get('mrr10_semantic_search')} -> {b.get('mrr10_semantic_search')}")
            continue
        a_scores, b_scores = scores(before_path), scores(path)
        common = a_scores.keys() & b_scores.keys()
        for method in ("", "semantic_search:", "query:") if path.stem.endswith("questions") else ("",):
            keys = [k for k in common if k[1].startswith(method)]
            summed, up, down = tally([b_scores[k] - a_scores[k] for k in keys])
            mean_a = sum(a_scores[k] for k in keys) / len(keys) if keys else 0.0
            mean_b = sum(b_scores[k] for k in keys) / len(keys) if keys else 0.0
            label = f"{path.stem}{' ' + method.rstrip(':') if method else ''}"
            before = sum(k[1].startswith(method) for k in a_scores)
            after = sum(k[1].startswith(method) for k in b_scores)
            print(f"{label}: {len(keys)} questions, {mean_a:.4f} -> {mean_b:.4f}, summed {summed:+.3f} "
                  f"({up} up, {down} down)" + (f"; {before - len(keys)} only before, {after - len(keys)} only after"
                                               if len(keys) != max(before, after) else ""))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="print the groups and their repositories")
    r = sub.add_parser("run", help="run a build on groups of the dev data (or the judges)")
    r.add_argument("out", type=Path)
    r.add_argument("groups", nargs="*", default=["eight", "other", "symbols", "docstrings", "questions"])
    r.add_argument("--build", type=Path)
    r.add_argument("--corpus", type=Path, default=Path(os.environ.get("SEMBLE_DEV", SEMBLE_DEV_DEFAULT)))
    c = sub.add_parser("compare", help="compare two `run` folders question by question")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    args = parser.parse_args(argv)
    if args.command == "list":
        eight, other = dev_repositories(SEMBLE_DEV_DEFAULT)
        print(f"eight ({len(eight)}): {' '.join(eight)}\nother ({len(other)}): {' '.join(other)}")
        print(f"questions: {' '.join(p.name for p in question_folders(False))}")
        print(f"held: {json.dumps(HELD)}\njudges: {' '.join(JUDGES)}")
        return 0
    if args.command == "run":
        unknown = [g for g in args.groups if g not in GROUPS]
        if unknown:
            raise SystemExit(f"unknown group(s) {', '.join(unknown)}: send some of {', '.join(GROUPS)}")
        return run(args.out, args.build, args.corpus, args.groups)
    return compare(args.old, args.new)


if __name__ == "__main__":
    sys.exit(main())
