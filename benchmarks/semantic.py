"""Semantic index benchmark: retrieval quality against BM25, index throughput, re-sync and query latency.

Corpus: Python standard-library modules copied into a temporary project with every docstring removed.
Queries: the first sentence of each removed function docstring; the right answer is the chunk that covers
that function. Prints figures (and writes JSON with --json); results go to docs/benchmarks.md.

    .venv/bin/python benchmarks/semantic.py [--set test|dev|dev2|dev3|held] [--lines 30000] [--queries 400] [--max-seq-length N]

Five splits of the standard library, no module in two: `test` (the reported modules); `dev`, `dev2` and `dev3`
(for choosing: a choice made on `dev` should carry to `dev2` and `dev3`); `held` (modules that no choice before the
thirty-ninth round looked at, old or new: the reported figure of before #41 was chosen on `test`, every later docstring
rule on `dev`). Run `held` only to judge a change, never to choose one.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import re
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from code_intel.core.config import Config
from code_intel.core.project import ProjectRoot
from code_intel.index import retrieval
from code_intel.index.bm25 import top
from code_intel.index.chunker import Chunk
from code_intel.index.service import SemanticIndex
from code_intel.index.store import FOREST
from code_intel.index.text import embedding_text, lexical_tokens

MODULES = ["json", "logging", "email", "http", "argparse.py", "csv.py", "shutil.py", "textwrap.py",
           "configparser.py", "pathlib.py", "tarfile.py", "zipfile.py", "urllib", "calendar.py", "difflib.py",
           "ftplib.py", "imaplib.py", "smtplib.py", "gettext.py", "pprint.py", "heapq.py", "bisect.py",
           "fractions.py", "statistics.py", "datetime.py", "ipaddress.py", "uuid.py", "tempfile.py",
           "mailbox.py", "inspect.py", "typing.py", "subprocess.py", "threading.py", "socketserver.py"]
# the development split (--set dev): other modules, for choosing weights without looking at the reported ones
DEV_MODULES = ["asyncio", "xml", "importlib", "concurrent", "wsgiref", "xmlrpc", "sqlite3", "collections",
               "optparse.py", "enum.py", "functools.py", "dataclasses.py", "codecs.py", "locale.py", "random.py",
               "gzip.py", "trace.py", "pdb.py", "cmd.py", "sched.py", "selectors.py", "platform.py", "plistlib.py",
               "netrc.py", "ast.py", "string.py", "shlex.py", "contextlib.py", "pickle.py", "tokenize.py"]
# the held split (--set held): modules in neither list above, fixed before any was measured; small modules first so
# that the 30,000-line budget reaches many of them
HELD_MODULES = ["traceback.py", "warnings.py", "weakref.py", "copy.py", "operator.py", "hmac.py", "base64.py",
                "mimetypes.py", "getopt.py", "queue.py", "code.py", "filecmp.py", "fileinput.py", "pstats.py",
                "timeit.py", "bdb.py", "runpy.py", "zipapp.py", "graphlib.py", "reprlib.py", "glob.py", "fnmatch.py",
                "linecache.py", "quopri.py", "wave.py", "numbers.py", "modulefinder.py", "pyclbr.py", "compileall.py",
                "dis.py", "sysconfig.py", "tomllib", "html", "pickletools.py", "doctest.py", "pydoc.py", "_pyio.py",
                "unittest", "_pydecimal.py", "multiprocessing"]
# a second development split (--set dev2): modules in none of the three lists above, fixed before any was measured,
# to check that a rule chosen on `dev` carries to modules nobody chose on; small modules first, as for `held`
DEV2_MODULES = ["secrets.py", "chunk.py", "imghdr.py", "genericpath.py", "colorsys.py", "codeop.py", "getpass.py",
                "cProfile.py", "stat.py", "py_compile.py", "uu.py", "pty.py", "rlcompleter.py", "copyreg.py",
                "shelve.py", "xdrlib.py", "pipes.py", "sndhdr.py", "mailcap.py", "types.py", "hashlib.py",
                "symtable.py", "tabnanny.py", "bz2.py", "lzma.py", "poplib.py", "dbm", "sunau.py", "posixpath.py",
                "_strptime.py", "curses", "profile.py", "site.py", "telnetlib.py", "pkgutil.py", "webbrowser.py",
                "ntpath.py", "smtpd.py", "socket.py", "aifc.py", "cgi.py", "nntplib.py", "os.py", "zoneinfo",
                "ssl.py", "ctypes", "re", "lib2to3", "tkinter", "distutils", "turtle.py"]
# a third development split (--set dev3, fortieth round): the Python 3.11 modules left out of the four lists above
# (re-export shims, toys, generated data and the encodings' codec tables aside), fixed before any was measured; small
# modules first, idlelib (its tests aside) last
DEV3_MODULES = ["tty.py", "keyword.py", "nturl2path.py", "_aix_support.py", "signal.py", "_bootsubprocess.py",
                "_sitebuiltins.py", "io.py", "crypt.py", "token.py", "__future__.py", "_py_abc.py", "_compression.py",
                "abc.py", "_weakrefset.py", "_threading_local.py", "_compat_pickle.py", "stringprep.py", "asynchat.py",
                "ensurepip", "cgitb.py", "imp.py", "_markupbase.py", "opcode.py", "tracemalloc.py", "venv",
                "_osx_support.py", "asyncore.py", "zipimport.py", "_collections_abc.py", "turtledemo", "idlelib"]
SPLITS = {"test": MODULES, "dev": DEV_MODULES, "held": HELD_MODULES, "dev2": DEV2_MODULES, "dev3": DEV3_MODULES}
TEST_FOLDERS = {"test", "idle_test"}  # a package's tests are not part of the corpus (idlelib keeps its in idle_test)


@dataclass
class Target:
    file: str
    name: str
    start: int  # lines in the stripped file
    end: int
    query: str
    code: str


def first_sentence(doc: str) -> str:
    text = " ".join(doc.strip().split("\n\n")[0].split())
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    return (match.group(1) if match else text)[:300]


def strip_docstrings(source: str) -> tuple[str, dict[tuple[int, str], str]]:
    """Source without docstrings, plus {(def line in the original, name): docstring} for functions."""
    tree = ast.parse(source)
    drop: list[tuple[int, int, bool]] = []  # (first line, last line, body becomes empty)
    docs: dict[tuple[int, str], str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                expr = body[0]
                drop.append((expr.lineno, expr.end_lineno or expr.lineno, len(body) == 1))
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    docs[(node.lineno, node.name)] = body[0].value.value
    lines = source.splitlines()
    for first, last, empty in sorted(drop, reverse=True):
        indent = re.match(r"\s*", lines[first - 1]).group(0)  # type: ignore[union-attr]
        lines[first - 1 : last] = [indent + "pass"] if empty else []
    return "\n".join(lines) + "\n", docs


def documented_functions(original: str) -> tuple[str, list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str, int]]] | None:
    """(source without docstrings, [(function node in it, first docstring sentence, first line with decorators)])
    for every function whose docstring's first sentence has at least 4 words; None when the source cannot be
    used (a syntax error, or functions that no longer pair up once docstrings are gone)."""
    try:
        stripped, docs = strip_docstrings(original)
        tree = ast.parse(stripped)
    except SyntaxError:
        return None
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    before = sorted((n for n in ast.walk(ast.parse(original)) if isinstance(n, functions)), key=lambda n: n.lineno)
    after = sorted((n for n in ast.walk(tree) if isinstance(n, functions)), key=lambda n: n.lineno)
    if len(before) != len(after):
        return None
    found = []
    # removing docstrings keeps the order of functions, so the k-th before is the k-th after
    for old, node in zip(before, after, strict=True):
        doc = docs.get((old.lineno, old.name))
        sentence = first_sentence(doc) if doc else ""
        if len(sentence.split()) < 4 or node.name != old.name:
            continue
        found.append((node, sentence, min([d.lineno for d in node.decorator_list] + [node.lineno])))
    return stripped, found


def build_corpus(folder: Path, max_lines: int, modules: list[str] = MODULES) -> list[Target]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    sources: list[Path] = []
    missing = [name for name in modules if not (stdlib / name).exists()]
    if missing:  # a split is a fixed list: a smaller one would be another benchmark
        raise SystemExit(f"this Python ({sys.version.split()[0]}) has no {', '.join(missing)} in its standard library: "
                         "the splits were fixed on Python 3.11 (dev2 and dev3 name modules that 3.12 and 3.13 removed); "
                         "run this split with a Python 3.11 virtualenv")
    for name in modules:
        path = stdlib / name
        sources += sorted(p for p in path.rglob("*.py") if not TEST_FOLDERS & set(p.parts)) if path.is_dir() else [path]
    targets: list[Target] = []
    total = 0
    for path in sources:
        documented = documented_functions(path.read_text(encoding="utf-8", errors="replace"))
        if documented is None:
            continue
        stripped, functions = documented
        rel = "lib/" + path.relative_to(stdlib).as_posix()
        out = folder / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(stripped, encoding="utf-8")
        stripped_lines = stripped.splitlines()
        for node, sentence, start in functions:
            end = node.end_lineno or node.lineno
            targets.append(Target(rel, node.name, start, end, sentence, "\n".join(stripped_lines[start - 1 : end])))
        total += len(stripped_lines)
        if total >= max_lines:
            break
    return targets


def mrr(ranks: list[int | None], cutoff: int = 10) -> float:
    return sum(1.0 / r for r in ranks if r is not None and r <= cutoff) / max(len(ranks), 1)


def bm25_ranker(documents: list[str], *, plain: bool = False) -> Callable[[str, int], list[int]]:
    """BM25 (rank_bm25) over `documents` with the tokens of our lexical side: identifier parts, stemmed, stop
    words dropped (`plain`: identifier parts as they are, the tokens of earlier runs). Returns
    rank(query, k): the indices of the k best documents, best first."""
    from rank_bm25 import BM25Okapi

    def tokens(text: str) -> list[str]:
        return lexical_tokens(text, stemmed=not plain, english=not plain)

    bm25 = BM25Okapi([tokens(d) or ["_"] for d in documents])

    def rank(query: str, k: int) -> list[int]:
        scores = bm25.get_scores(tokens(query))
        return sorted(range(len(documents)), key=lambda i: -scores[i])[:k]

    return rank


def bm25_baseline(targets: list[Target], queries: list[Target], *, plain: bool = False) -> float:
    """MRR@10 of BM25 over the documented functions only (see bm25_ranker for the tokens)."""
    rank = bm25_ranker([t.code for t in targets], plain=plain)
    index_of = {id(t): i for i, t in enumerate(targets)}
    ranks: list[int | None] = []
    for q in queries:
        order = rank(q.query, 10)
        want = index_of[id(q)]
        ranks.append(order.index(want) + 1 if want in order else None)
    return mrr(ranks)


def dense_baseline(index: SemanticIndex, targets: list[Target], queries: list[Target]) -> float:
    """Plain dense retrieval over whole-function text (no header, no fusion): the lead's reference point."""
    embedder = index._get_parts().embedder
    docs = np.array(embedder.embed_documents([t.code for t in targets]))
    qs = np.array(embedder.embed_queries([q.query for q in queries]))
    index_of = {id(t): i for i, t in enumerate(targets)}
    ranks: list[int | None] = []
    for q, vec in zip(queries, qs, strict=True):
        order = list(np.argsort(-(docs @ vec))[:10])
        want = index_of[id(q)]
        ranks.append(order.index(want) + 1 if want in order else None)
    return mrr(ranks)


def first_hit(results: list[tuple[str, int, int]], answers: Iterable[tuple[str, int, int]],
              cutoff: int = 10) -> int | None:
    """The 1-based rank of the first result (file, start, end) in the right file overlapping an answer span."""
    wanted = list(answers)
    for rank, (file, start, end) in enumerate(results[:cutoff], 1):
        if any(file == a_file and start <= a_end and end >= a_start for a_file, a_start, a_end in wanted):
            return rank
    return None


def hit_rank(results: list[tuple[str, int, int]], q: Target) -> int | None:
    return first_hit(results, [(q.file, q.start, q.end)])


def fuse_rrf(
    dense: Sequence[tuple[str, float]],
    lexical: Sequence[tuple[str, float]],
    *,
    dense_weight: float = 1.0,
    lexical_weight: float = 1.0,
    k: int = 60,
) -> list[tuple[str, float]]:
    """Weighted reciprocal rank fusion (the fusion sweep's comparison; the index fuses scores, retrieval.fuse): (id, score in 0..1), best first; each input is (id, score) best first."""
    scores: dict[str, float] = {}
    for weight, ranking in ((dense_weight, dense), (lexical_weight, lexical)):
        if weight <= 0:
            continue
        for rank, (item, _score) in enumerate(ranking):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank + 1)
    best_possible = (max(dense_weight, 0) + max(lexical_weight, 0)) / (k + 1)
    ordered = sorted(scores.items(), key=lambda pair: pair[1], reverse=True)
    return [(item, round(score / best_possible, 4)) for item, score in ordered]


def evaluate_search(index: SemanticIndex, queries: list[Target], weights: list[float]) -> dict[str, float]:
    """MRR@10 of the production candidates fused with other dense weights, and with rank fusion (RRF)."""
    parts = index._get_parts()
    spans = {c.id: (path, c.start_line, c.end_line) for path, e in parts.manifest.files.items() for c in e.chunks}
    stored = parts.store.get(FOREST, include=("embeddings",))
    vectors_of = {i: np.asarray(e) for i, e in zip(stored["ids"], stored["embeddings"], strict=True)}
    vectors = parts.embedder.embed_queries([q.query for q in queries])
    limit = retrieval_candidates()
    ranks: dict[str, list[int | None]] = {f"dense_weight={w}": [] for w in weights}
    ranks.update({"rrf 1:1": [], "rrf 1:0.5": []})
    for q, vec in zip(queries, vectors, strict=True):
        dense = [(i, s) for i, s, _d, _m in parts.store.query(FOREST, vec, limit)]
        scores = parts.lexical.scores(q.query)
        lexical = top(scores, limit)
        similarity = dict(dense)
        for i, _ in lexical:
            similarity.setdefault(i, float(vectors_of[i] @ np.asarray(vec)))
        for w in weights:
            fused = retrieval.fuse(similarity, scores, dense_weight=w)[:10]
            ranks[f"dense_weight={w}"].append(hit_rank([spans[i] for i, _ in fused if i in spans], q))
        for name, lw in (("rrf 1:1", 1.0), ("rrf 1:0.5", 0.5)):
            fused = fuse_rrf(dense, lexical, lexical_weight=lw)[:10]
            ranks[name].append(hit_rank([spans[i] for i, _ in fused if i in spans], q))
    return {name: round(mrr(r), 4) for name, r in ranks.items()}


def _max_seq_length(embedder: object) -> int | None:
    """The model's input limit without loading torch for it (the packaged models run in numpy)."""
    if getattr(embedder, "packaged", False):
        return int(embedder.numpy_model.max_seq_length)  # type: ignore[attr-defined]
    return getattr(getattr(embedder, "model", None), "max_seq_length", None)


def retrieval_candidates() -> int:
    from code_intel.index.service import CANDIDATES

    return CANDIDATES


def use_candidate_weights(path: Path) -> None:
    """Lay these tuned layers under the name all-MiniLM-L6-v2-code instead of the shipped weights file, in this
    process only: a candidate from benchmarks/tune_model.py is measured before it replaces the shipped one. The
    index identity carries the file's fingerprint, so the candidate gets indexes of its own."""
    from code_intel.index import embedder

    if not path.is_file():
        raise SystemExit(f"--weights {path}: no such file")
    embedder.CODE_TUNED_WEIGHTS = path.resolve()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", choices=tuple(SPLITS), default="test",
                        help="the reported modules (default), the development splits dev, dev2 and dev3, or the held "
                             "split that judges (see the module's docstring)")
    parser.add_argument("--lines", type=int, default=30000, help="corpus size in lines (default 30000)")
    parser.add_argument("--weights", type=Path, help="measure these tuned layers (benchmarks/tune_model.py --out) "
                        "as all-MiniLM-L6-v2-code instead of the shipped file")
    parser.add_argument("--queries", type=int, default=400, help="queries sampled from the functions")
    parser.add_argument("--max-seq-length", type=int, default=None)
    parser.add_argument("--model", help="embedding_model to index with (default: the configured default, code-static; "
                        "all-MiniLM-L6-v2-code is the opt-in transformer)")
    parser.add_argument("--no-dense-baseline", action="store_true")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary project")
    args = parser.parse_args()
    if args.weights:
        use_candidate_weights(args.weights)

    folder = Path(tempfile.mkdtemp(prefix="ci-bench-semantic-"))
    figures: dict[str, object] = {}
    try:
        targets = build_corpus(folder, args.lines, SPLITS[args.set])
        lines = sum(len(p.read_text().splitlines()) for p in folder.rglob("*.py"))
        queries = random.Random(7).sample(targets, min(args.queries, len(targets)))
        figures.update(corpus_lines=lines, corpus_functions=len(targets), queries=len(queries))
        print(f"corpus: {lines} lines, {len(targets)} documented functions, {len(queries)} queries", flush=True)

        config = Config(embedding_max_seq_length=args.max_seq_length, sync_on_start=False,
                        **({"embedding_model": args.model} if args.model else {}))
        index = SemanticIndex(ProjectRoot.from_args(folder), lambda: config)
        parts = index._get_parts()
        parts.embedder.embed_queries(["warm up"])  # model load is not indexing time
        report = index.sync()
        chunks = report["chunks_added"]
        throughput = chunks / report["duration_s"]
        figures.update(chunks=chunks, index_seconds=report["duration_s"], index_chunks_per_s=round(throughput, 1),
                       model=config.embedding_model,
                       max_seq_length=_max_seq_length(parts.embedder))
        print(f"index: {chunks} chunks in {report['duration_s']:.1f} s = {throughput:.1f} chunks/s", flush=True)

        stored = parts.store.get(FOREST, include=("documents", "metadatas"))
        sample = [embedding_text(Chunk(m["file"], m["start_line"], m["end_line"], m["symbol"], m["kind"], m["language"], d))
                  for d, m in zip(stored["documents"], stored["metadatas"], strict=True)][:300]
        started = time.perf_counter()
        parts.embedder.embed_documents(sample)
        raw = len(sample) / (time.perf_counter() - started)
        figures.update(raw_chunks_per_s=round(raw, 1), raw_over_index=round(raw / throughput, 2))
        print(f"raw embedding: {raw:.1f} chunks/s; raw/index = {raw / throughput:.2f}", flush=True)

        bm25 = bm25_baseline(targets, queries)
        plain = bm25_baseline(targets, queries, plain=True)
        figures.update(mrr10_bm25_baseline=round(bm25, 4), mrr10_bm25_plain_tokens=round(plain, 4))
        print(f"MRR@10 BM25 baseline (whole functions, stemmed tokens): {bm25:.4f}; "
              f"plain identifier tokens: {plain:.4f}", flush=True)
        if not args.no_dense_baseline:
            dense = dense_baseline(index, targets, queries)
            figures["mrr10_dense_whole_function"] = round(dense, 4)
            print(f"MRR@10 plain dense (whole functions): {dense:.4f} ({dense / bm25:.2f}x BM25)", flush=True)

        latencies, ranks = [], []
        for q in queries:
            started = time.perf_counter()
            found = index.semantic_search(q.query, n_results=10, collection="forest")
            latencies.append((time.perf_counter() - started) * 1000)
            ranks.append(hit_rank([(r["file"], r["line"], r["end_line"]) for r in found["results"]], q))
        semantic = mrr(ranks)
        p95 = statistics.quantiles(latencies, n=20)[18]
        figures.update(mrr10_semantic_search=round(semantic, 4), ratio_to_bm25=round(semantic / bm25, 2),
                       ratio_to_bm25_plain_tokens=round(semantic / plain, 2),
                       query_p50_ms=round(statistics.median(latencies), 1), query_p95_ms=round(p95, 1))
        print(f"MRR@10 semantic_search: {semantic:.4f} = {semantic / bm25:.2f}x BM25", flush=True)
        print(f"warm query latency: p50 {statistics.median(latencies):.1f} ms, p95 {p95:.1f} ms", flush=True)

        sweep = evaluate_search(index, queries, [0.0, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 1.0])
        figures["fusion_sweep"] = sweep
        print(f"fusion sweep: {sweep}", flush=True)

        victim = folder / targets[len(targets) // 2].file
        victim.write_text(victim.read_text() + "\n\ndef added_for_benchmark(x):\n    return x * 2\n")
        resync = index.sync()
        figures.update(resync_seconds=resync["duration_s"], resync_chunks_added=resync["chunks_added"])
        print(f"re-sync after a one-file change: {resync['duration_s']:.2f} s "
              f"({resync['chunks_added']} chunks embedded, {resync['chunks_kept']} kept)", flush=True)
        index.close()
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
