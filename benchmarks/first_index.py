"""First index of a 100k-line repository: time to the first semantic answer, throughput, warm search latency.

Corpus: Caddy (Go, about 105,000 lines of .go files) pinned at commit CADDY_COMMIT, exported from the
local mirror (`/work/.mirror/caddyserver+caddy/repo`, made by the search tool's fetch, or
$CODE_INTEL_MIRROR) into benchmarks/.corpus/first-index/ (git-ignored); `--corpus DIR` uses any other folder.
Nobody here wrote it and no benchmark or tuning data uses it.

A fresh index (empty .code-intel/) is synced in a background thread, the way a session start does, while
the main thread asks `semantic_search` once a second. Printed, each from the sync's start:

- first answer: the first search that returns results (from the part indexed so far);
- every file searchable: the file pass has chunked every file and given each chunk a static vector;
- full quality: the full model has embedded every chunk and searches switch to its vectors.

Beside them, measured in the same run: the old path (`index_fast_pass: false`, every chunk embedded by
the full model before the sync ends) on the same corpus (skip with --no-baseline), raw encode throughput
of both models on the same chunk texts, and warm `semantic_search` latency at each quality.

    .venv/bin/python benchmarks/first_index.py [--corpus DIR] [--no-baseline] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from code_intel.core.config import Config
from code_intel.core.project import ProjectRoot
from code_intel.index.chunker import Chunker
from code_intel.index.service import SemanticIndex
from code_intel.index.static import StaticEmbedder
from code_intel.index.text import embedding_text
from code_intel.languages.table import language_for

CADDY_COMMIT = "0cf03d32f7d99cf160d5375e8a40fbe3d910d515"
MIRROR = Path(os.environ.get("CODE_INTEL_MIRROR", "/work/.mirror")) / "caddyserver+caddy" / "repo"
CORPUS = Path(__file__).resolve().parent / ".corpus" / "first-index"
QUERIES = ["where are TLS certificates renewed before they expire", "reverse proxy picks a healthy upstream",
           "parse the Caddyfile into tokens", "how are request headers rewritten", "gzip response encoding",
           "load the configuration from a JSON file", "rate of failed health checks", "serve static files"]


def export_caddy() -> Path:
    target = CORPUS / f"caddy@{CADDY_COMMIT[:12]}"
    if (target / "go.mod").is_file():
        return target
    if not MIRROR.is_dir():
        raise SystemExit(f"no mirror at {MIRROR}: fetch caddyserver/caddy first, or pass --corpus DIR")
    target.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "--git-dir", str(MIRROR), "archive", CADDY_COMMIT], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def count_lines(folder: Path) -> dict[str, int]:
    lines: dict[str, int] = {}
    for path in folder.rglob("*"):
        language = language_for(path.name) if path.is_file() and ".code-intel" not in path.parts else None
        if language:
            lines[language] = lines.get(language, 0) + len(path.read_bytes().splitlines())
    return lines


def fresh_index(folder: Path, label: str, **config: Any) -> SemanticIndex:
    shutil.rmtree(folder / ".code-intel", ignore_errors=True)
    # A Chroma folder of its own per index: chromadb keeps a process-wide client per path, and a second
    # index at a path whose files were deleted under that client gets "attempt to write a readonly database".
    chroma = {"path": str(folder / ".code-intel" / f"chroma-{label}")}
    cfg = Config(sync_on_start=False, chroma=chroma, **config)
    return SemanticIndex(ProjectRoot.from_args(folder), lambda: cfg)


def timed_sync(index: SemanticIndex, poll: float = 1.0) -> dict[str, Any]:
    """Sync in a thread, search once every `poll` seconds; times of first answer, fast and full quality."""
    marks: dict[str, Any] = {}
    report: dict[str, Any] = {}
    started = time.perf_counter()

    def progress(done: float, total: float | None, message: str) -> None:
        now = round(time.perf_counter() - started, 1)
        if message.startswith("full model") and "files_searchable_s" not in marks:
            marks["files_searchable_s"] = now

    def work() -> None:
        report.update(index.sync(progress=progress))

    worker = threading.Thread(target=work)
    worker.start()
    asked = 0
    latencies: dict[str, list[float]] = {"fast": [], "full": []}
    while worker.is_alive():
        query = QUERIES[asked % len(QUERIES)]
        began = time.perf_counter()
        found = index.semantic_search(query, n_results=10, collection="forest")
        took = (time.perf_counter() - began) * 1000
        asked += 1
        now = round(time.perf_counter() - started, 1)
        if found["results"] and "first_answer_s" not in marks:
            marks["first_answer_s"] = now
            marks["first_answer_index"] = found["index"]
        if found["index"]["quality"] in latencies and found["results"]:
            latencies[found["index"]["quality"]].append(took)
        worker.join(poll)
    marks["sync_s"] = round(time.perf_counter() - started, 1)
    marks["report"] = {k: report.get(k) for k in ("chunks_total", "chunks_full_embedded", "complete", "files_scanned")}
    marks["searches_during_sync"] = asked
    marks["latency_during_sync_ms"] = {q: _percentiles(v) for q, v in latencies.items() if v}
    return marks


def _percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return {"n": len(values), "p50": round(statistics.median(ordered), 1), "p95": round(p95, 1)}


def warm_latency(index: SemanticIndex, rounds: int = 5) -> dict[str, float]:
    index.semantic_search(QUERIES[0], n_results=10, collection="forest")
    took = []
    for _ in range(rounds):
        for query in QUERIES:
            began = time.perf_counter()
            index.semantic_search(query, n_results=10, collection="forest")
            took.append((time.perf_counter() - began) * 1000)
    return _percentiles(took)


def raw_throughput(folder: Path, sample: int = 600) -> dict[str, float]:
    chunker = Chunker(512)
    texts: list[str] = []
    for path in sorted(folder.rglob("*.go")):
        rel = path.relative_to(folder).as_posix()
        texts += [embedding_text(c) for c in chunker.chunk(rel, path.read_text(errors="replace"), "go")]
    static = StaticEmbedder()
    static.embed(texts[:10])
    began = time.perf_counter()
    static.embed(texts)
    static_rate = len(texts) / (time.perf_counter() - began)
    from code_intel.index.embedder import Embedder

    full = Embedder("all-MiniLM-L6-v2-code")
    full.embed_documents(texts[:8])
    began = time.perf_counter()
    full.embed_documents(texts[:sample])
    full_rate = sample / (time.perf_counter() - began)
    return {"chunks": len(texts), "static_chunks_per_s": round(static_rate), "full_chunks_per_s": round(full_rate, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, help="index this folder instead of the pinned Caddy checkout")
    parser.add_argument("--no-baseline", action="store_true", help="skip the full-model-only sync")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    folder = args.corpus.resolve() if args.corpus else export_caddy()
    figures: dict[str, Any] = {"corpus": str(folder), "lines": count_lines(folder), "load_average": os.getloadavg()}
    print(f"corpus {folder}: {figures['lines']} lines; load average {figures['load_average']}", flush=True)

    index = fresh_index(folder, "two-pass")
    figures["two_pass"] = timed_sync(index)
    figures["two_pass"]["warm_latency_full_ms"] = warm_latency(index)
    index.close()
    print(f"two passes: {json.dumps(figures['two_pass'])}", flush=True)

    if not args.no_baseline:
        baseline = fresh_index(folder, "full-only", index_fast_pass=False)
        figures["full_only"] = timed_sync(baseline)
        baseline.close()
        print(f"full model only: {json.dumps(figures['full_only'])}", flush=True)
    figures["raw"] = raw_throughput(folder)
    figures["load_average_end"] = os.getloadavg()
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    shutil.rmtree(folder / ".code-intel", ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
