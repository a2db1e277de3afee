"""Whether this checkout gives the same outline answers as another commit, byte for byte.

For every source file of each corpus, get_symbols, analyze_structure and get_function_at_line (at 15 lines spread
over the file) are called through an Explorer, and each answer is taken as the server writes it (`code_intel.server.answers.answered`),
or the refusal's message. The other commit's code is extracted with `git archive` to a temporary folder; each side
runs in its own process with its own code first on sys.path. A change meant to make these tools faster, not
different, must print "identical" for every corpus.

Corpora: the benchmark corpus (standard-library files, benchmarks/.corpus/stdlib, as explore.py) and any folder given
with --corpus (read only: no index is built and nothing is written there; site-packages folders are skipped).

    .venv/bin/python benchmarks/same_answers.py [--base main] [--files 175] [--corpus DIR ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SAMPLED_LINES = 15
SKIPPED_PARTS = {".code-intel", "site-packages", ".git", "node_modules"}


def dump(code: Path, corpus: Path, out: Path) -> None:
    """One side: every answer for every file of `corpus`, with the code of `code`, as JSON lines in `out`."""
    sys.path.insert(0, str(code))
    from code_intel.core.config import Config
    from code_intel.core.errors import CodeIntelError
    from code_intel.core.project import ProjectRoot
    from code_intel.explore.service import Explorer
    from code_intel.languages.grammar import GRAMMARS
    from code_intel.languages.table import language_for
    from code_intel.server.answers import answered

    if not Path(sys.modules["code_intel"].__file__ or "").is_relative_to(code):
        raise SystemExit(f"code_intel was not imported from {code}")
    explorer = Explorer(ProjectRoot.from_args(corpus), lambda: Config(sync_on_start=False))
    explorer._warm_up_started = True  # no definition index built in the background: nothing is written to the corpus

    def answer(call: object, *args: object) -> str:
        try:
            return answered(call(*args)).content[0].text  # type: ignore[operator,union-attr]
        except CodeIntelError as err:
            return f"refused: {err}"

    files = sorted(p for p in corpus.rglob("*") if p.is_file() and not SKIPPED_PARTS & set(p.relative_to(corpus).parts)
                   and language_for(p) in GRAMMARS)
    with out.open("w", encoding="utf-8") as sink:
        for path in files:
            rel = path.relative_to(corpus).as_posix()
            lines = path.read_bytes().count(b"\n") + 1
            row = {"file": rel, "get_symbols": answer(explorer.get_symbols, rel),
                   "analyze_structure": answer(explorer.analyze_structure, rel),
                   "get_function_at_line": [answer(explorer.get_function_at_line, rel, line)
                                            for line in range(1, lines + 1, max(1, lines // SAMPLED_LINES))]}
            sink.write(json.dumps(row) + "\n")
    explorer.close()


def compare(base: Path, corpus: Path, work: Path) -> str:
    """Both sides' answers for one corpus: 'identical' or the files whose answers differ."""
    outputs = []
    for side, code in (("base", base), ("this", REPO)):
        out = work / f"{side}-{len(list(work.iterdir()))}.jsonl"
        subprocess.run([sys.executable, __file__, "--dump", str(code), str(corpus), str(out)], check=True)
        outputs.append([json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()])
    return verdict(*outputs)


Row = dict[str, Any]


def verdict(before: list[Row], after: list[Row]) -> str:
    """'identical: ...', or which files (and which of their answers) differ."""
    if [row["file"] for row in before] != [row["file"] for row in after]:
        return "DIFFERENT: the two sides listed different files"
    differing = [(old["file"], [key for key in old if old[key] != new[key]]) for old, new in zip(before, after, strict=True)
                 if old != new]
    if not differing:
        return f"identical: {len(before)} files, {sum(2 + len(row['get_function_at_line']) for row in before)} answers"
    return f"DIFFERENT in {len(differing)} of {len(before)} files, e.g. " + "; ".join(
        f"{file} ({', '.join(keys)})" for file, keys in differing[:10])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="main", help="commit to compare with (default: %(default)s)")
    parser.add_argument("--files", type=int, default=175, help="standard-library files in the benchmark corpus")
    parser.add_argument("--corpus", type=Path, action="append", default=[], help="another folder of sources, repeatable")
    parser.add_argument("--dump", nargs=3, metavar=("CODE", "CORPUS", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.dump:
        code, corpus, out = (Path(value).resolve() for value in args.dump)
        dump(code, corpus, out)
        return 0

    sys.path.insert(0, str(HERE))
    from explore import build_corpus

    corpora = [build_corpus(args.files), *(path.resolve() for path in args.corpus)]
    with tempfile.TemporaryDirectory(prefix="same-answers-") as temp:
        work = Path(temp)
        base = work / "base"
        base.mkdir()
        archive = subprocess.run(["git", "-C", str(REPO), "archive", args.base], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", args.base], capture_output=True,
                                text=True, check=True).stdout.strip()
        print(f"base: {args.base} ({commit}); this: {REPO} (with its uncommitted changes)")
        for corpus in corpora:
            print(f"{corpus}: {compare(base, corpus, work)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
