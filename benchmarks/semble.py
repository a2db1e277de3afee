"""semble's retrieval benchmark, run through code-intel's own stdio server.

Data: MinishLab/semble's benchmark (MIT), copied by hand into ../shared/benchmarks/semble/ (its README names
the pinned commits, the indexed subtree `benchmark_root` of each repository and the scoring protocol). Each
question lists the files (or file + line span) that answer it and a category: `semantic`, `architecture` or
`symbol`. Scoring, as semble scores its own tools: the top 10 chunks as returned (no de-duplication); a
target's rank is the first chunk whose path matches it (equal, or one ends with "/" + the other) and, for a
target with a line span, whose lines overlap it; binary relevance, NDCG@10 with IDCG over min(10, targets).

For every repository the script
  1. checks the pinned commit out of the local mirror (/work/.mirror/<owner>+<name>/repo, brought with the
     search tool's `fetch`) into $SEMBLE_CORPUS/<name> (default /work/corpora/semble), outside this repository;
  2. starts the real server (`code-intel serve --project <checkout>/<benchmark_root>`) over stdio, as an agent
     would, with `sync_on_start: false` so that the timed sync is the one `sync_index(force=true)` starts;
  3. times that call (the answer), then polls `semantic_search` until the index says every file is indexed
     ("every file searchable") and until it is complete ("full quality"); progress notifications are counted;
  4. reads the server's peak resident memory (VmHWM of its process) after indexing and after the questions;
  5. asks every question through `semantic_search(query, n_results=10)` and scores it;
  6. ranks the same chunks with BM25 (rank_bm25 over our lexical tokens), in the same run, as a baseline.

Printed beside semble's and CodeRankEmbed's published per-repository figures (results/*.subset.json) and
semble's published index times (results/speed-*.json, their machine): NDCG@10 per repository, category and
language, pooled over questions.

    .venv/bin/python benchmarks/semble.py [--set report|dev|symbols|symbols2|symbols3|symbols4|symbols5] [--repo NAME ...] [--json FILE]
    .venv/bin/python benchmarks/semble.py --set dev --fetch-list   # on a new machine: what to bring with `fetch`

`--set dev` runs the development split: other repositories of semble's benchmark, whose annotations a run writes to
$SEMBLE_DEV (default /work/corpora/semble-dev/annotations) from a fetch of a fork of semble's repository at a pinned
commit (ANNOTATIONS_SOURCE; two files are read by hand, READ_BY_HAND), and the repositories of
benchmarks/semble_dev/ (questions of our own in semble's format, on Ruby
repositories semble does not annotate; its repos.json gives their url, pinned revision, language and subtree, and
overrides a revision of semble's that the mirror lacks); weights and signals are chosen there, never on the
reported set. Checkouts go to $SEMBLE_DEV/<name>. `--set symbols` runs benchmarks/semble_dev/symbols/: symbol
questions of our own on the dev repositories (names written bare, qualified, in backticks or spelled as words),
checked out in the same place; `--set symbols2`, `--set symbols3` and `--set symbols4` run
benchmarks/semble_dev/symbols2/, symbols3/ and symbols4/, a second, third and fourth such set on repositories no other
benchmark here reads; `--set symbols5` runs benchmarks/semble_dev/symbols5/, a fifth, harder set back on the dev
repositories (common-word names defined in several files, nested classes, reopened modules, names in words).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DATA = Path(os.environ.get("SEMBLE_DATA", REPO.parent / "shared" / "benchmarks" / "semble"))
if not DATA.is_dir():
    DATA = Path("/work/shared/benchmarks/semble")
CORPUS = Path(os.environ.get("SEMBLE_CORPUS", "/work/corpora/semble"))
DEV = Path(os.environ.get("SEMBLE_DEV", "/work/corpora/semble-dev"))
DEV_LOCAL = HERE / "semble_dev"  # dev repositories and questions of our own (committed)
MIRROR = Path(os.environ.get("CODE_INTEL_MIRROR", "/work/.mirror"))
REPORTED = ("express", "model2vec", "fastapi", "aiohttp", "trpc", "chi", "gin", "axum", "gson", "rack", "sinatra",
            "ktor")
CATEGORIES = ("semantic", "architecture", "symbol")
CUTOFF = 10
POLL_S = 0.1  # the pause between two polls (each a search: its CPU slows the server's indexing, so not shorter)


# ------------------------------------------------------------------------------------------------ scoring
@dataclass
class Target:
    path: str
    start: int | None = None
    end: int | None = None


def targets_of(question: dict[str, Any]) -> list[Target]:
    out = []
    for item in question.get("relevant", []) + question.get("secondary", []):
        if isinstance(item, str):
            out.append(Target(item))
        else:
            out.append(Target(item["path"], item.get("start_line"), item.get("end_line")))
    return out


def path_matches(chunk_path: str, target: str) -> bool:
    return chunk_path == target or chunk_path.endswith("/" + target) or target.endswith("/" + chunk_path)


def ndcg10(results: list[tuple[str, int, int]], targets: list[Target]) -> float:
    """semble's NDCG@10: binary relevance at the first position that matches each target."""
    hit_positions: set[int] = set()
    for target in targets:
        for position, (path, start, end) in enumerate(results[:CUTOFF], 1):
            if not path_matches(path, target.path):
                continue
            if target.start is not None and target.end is not None and (end < target.start or start > target.end):
                continue
            hit_positions.add(position)
            break
    dcg = sum(1 / math.log2(p + 1) for p in hit_positions)
    ideal = sum(1 / math.log2(p + 1) for p in range(1, min(CUTOFF, len(targets)) + 1))
    return dcg / ideal if ideal else 0.0


# ----------------------------------------------------------------------------------------------- corpora
@dataclass
class Repo:
    name: str
    language: str
    url: str
    revision: str
    root: str | None
    questions: list[dict[str, Any]] = field(default_factory=list)
    copy_symlinks: bool = False  # the subtree's files are symlinks (RxSwift's Sources/RxSwift): semble's walk reads
    # them as files, rg lists none, so the checkout holds copies of their targets

    @property
    def mirror(self) -> Path:
        owner, name = self.url.removeprefix("https://github.com/").removesuffix(".git").split("/")[:2]
        return MIRROR / f"{owner}+{name}" / "repo"


# semble's own annotations of its other repositories (the dev split): a fork of MinishLab/semble that the search tool's
# fetch brings holds them, pinned here (rails' seven questions at the fork's first benchmark commit). Two files are
# not in it (rxswift, nvim-lspconfig): those are read from MinishLab/semble with the search tool's read_file
# (docs/benchmarks.md, "t-corpus" and "The dev data rebuilt from a fetch"). zig (lib/std) is left out of the split.
ANNOTATIONS_SOURCE = "michalfedyna/semble"
ANNOTATIONS_COMMIT = "b8543c314c7e7c7a2ad1b90612f9561a77dd7288"
ANNOTATIONS_PINS = {"rails": "d2dbdd21054887cf597ac897d2edea8821fa56c5"}
READ_BY_HAND = ("rxswift", "nvim-lspconfig")
NOT_DEV = ("zig",)


def semble_dev_names() -> list[str]:
    """semble's repositories whose annotations the dev split takes from semble (none reported, none of our own)."""
    ours = {p.stem for p in (DEV_LOCAL / "annotations").glob("*.json")} | set(REPORTED) | set(NOT_DEV)
    names = {r["name"] for r in json.loads((DATA / "repos.json").read_text())} | set(READ_BY_HAND)
    return sorted(names - ours)


def annotations_mirror() -> Path:
    return MIRROR / ANNOTATIONS_SOURCE.replace("/", "+") / "repo"


def write_dev_annotations() -> list[str]:
    """Write each of semble's dev annotations that DEV/annotations lacks from the fork's mirror (through a temporary
    name and a rename); return the names still missing."""
    mirror = annotations_mirror()
    folder = DEV / "annotations"
    missing = []
    for name in semble_dev_names():
        target = folder / f"{name}.json"
        if target.is_file():
            continue
        commit = ANNOTATIONS_PINS.get(name, ANNOTATIONS_COMMIT)
        shown = subprocess.run(["git", f"--git-dir={mirror}", "show", f"{commit}:benchmarks/annotations/{name}.json"],
                               capture_output=True, check=False) if mirror.is_dir() else None
        if shown is None or shown.returncode != 0:
            missing.append(name)
            continue
        folder.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".json.part")
        partial.write_bytes(shown.stdout)
        partial.replace(target)
    return missing


def annotation_dirs(dev: bool, symbols: str = "") -> list[Path]:
    """symbols: the folder of benchmarks/semble_dev/ holding a symbol set ("symbols", "symbols2", ...), or ""."""
    if symbols:
        return [DEV_LOCAL / symbols]
    return [DEV / "annotations", DEV_LOCAL / "annotations"] if dev else [DATA / "annotations"]


def load_repos(names: list[str], dev: bool, symbols: str = "") -> list[Repo]:
    table = {r["name"]: r for r in json.loads((DATA / "repos.json").read_text())}
    if dev:  # our own dev repositories, and revisions of semble's that the mirror has
        table.update({r["name"]: r for r in json.loads((DEV_LOCAL / "repos.json").read_text())})
    out = []
    for name in names:
        if name not in table:
            raise SystemExit(f"{name}: not a repository of the {'dev' if dev else 'reported'} set")
        r = table[name]
        repo = Repo(name, r["language"], r["url"], r["revision"], r.get("benchmark_root"),
                    copy_symlinks=r.get("copy_symlinks", False))
        found = [d / f"{name}.json" for d in annotation_dirs(dev, symbols) if (d / f"{name}.json").is_file()]
        if not found:
            raise SystemExit(f"{name}: no annotations in {', '.join(map(str, annotation_dirs(dev, symbols)))}")
        repo.questions = json.loads(found[0].read_text())
        out.append(repo)
    return out


def fetch_list(names: list[str], dev: bool, symbols: str = "") -> list[str]:
    """What a new machine lacks for these repositories: `github:owner/name` for each mirror that is missing or does
    not hold the pinned revision (one line per mirror), and, for the dev split, the fork that holds semble's
    annotations (when a file is missing and the mirror lacks the pinned commit) and a line naming the files read by
    hand that are missing (docs/benchmarks.md, "t-corpus")."""
    lines = []
    lacking = [n for n in semble_dev_names() if not (DEV / "annotations" / f"{n}.json").is_file()] \
        if dev and not symbols else []
    if lacking:
        mirror = annotations_mirror()
        held = mirror.is_dir() and subprocess.run(["git", f"--git-dir={mirror}", "cat-file", "-e", ANNOTATIONS_COMMIT],
                                                  capture_output=True, check=False).returncode == 0
        if not held and set(lacking) - set(READ_BY_HAND):
            lines.append(f"github:{ANNOTATIONS_SOURCE}")
            lines.append("# once that fork is here, run --fetch-list again: the annotations it holds name more "
                         "repositories to fetch")
        by_hand = sorted(set(lacking) & set(READ_BY_HAND))
        if by_hand:
            lines.append(f"# {DEV / 'annotations'} lacks {', '.join(by_hand)}: read them from MinishLab/semble with the "
                         "search tool's read_file (docs/benchmarks.md, section t-corpus); until then the others run")
    for repo in load_repos(names, dev, symbols):
        held = repo.mirror.is_dir() and subprocess.run(
            ["git", f"--git-dir={repo.mirror}", "cat-file", "-e", f"{repo.revision}^{{commit}}"],
            capture_output=True, check=False).returncode == 0
        source = "github:" + repo.url.removeprefix("https://github.com/").removesuffix(".git")
        if not held and source not in lines:
            lines.append(source)
    return lines


def checkout(repo: Repo, corpus: Path) -> Path:
    """The pinned tree under corpus/<name> (git archive of the mirror's commit: no .git, nothing of ours)."""
    dest = corpus / repo.name
    if not dest.is_dir():
        if not repo.mirror.is_dir():
            raise SystemExit(f"{repo.name}: no mirror at {repo.mirror}; bring it with the search tool's "
                             f"fetch (github:{repo.url.removeprefix('https://github.com/').removesuffix('.git')})")
        dest.mkdir(parents=True)
        archive = subprocess.run(["git", f"--git-dir={repo.mirror}", "archive", repo.revision],
                                 capture_output=True, check=False)
        if archive.returncode != 0 and repo.root:  # a blob the mirror lacks outside the root (redux's website/ images)
            archive = subprocess.run(["git", f"--git-dir={repo.mirror}", "archive", repo.revision, repo.root],
                                     capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
        if repo.copy_symlinks:
            for link in sorted(p for p in (dest / (repo.root or "")).rglob("*") if p.is_symlink() and p.is_file()):
                target = link.resolve()
                link.unlink()
                shutil.copyfile(target, link)
    project = dest / repo.root if repo.root else dest
    if not project.is_dir():
        raise SystemExit(f"{repo.name}: {project} is missing from the checkout")
    return project


# ------------------------------------------------------------------------------------------------ server
def server_pid(parent: int, project: Path) -> int | None:
    """The pid of the `code-intel serve` process serving `project` (a child of this process or of its shell)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"serve" in cmdline and str(project).encode() in cmdline:
            return int(entry.name)
    return None


def peak_mb(pid: int | None) -> float | None:
    if pid is None:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def cpu_s(pid: int | None) -> float | None:
    """User + system CPU seconds the process has used (a figure the machine's load does not inflate)."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _data(result: Any) -> dict[str, Any]:
    data = result.structured_content
    if data is None:
        data = json.loads(result.content[0].text)
    return data if isinstance(data, dict) else {}


def server_parameters(exe: str | None, project: Path) -> Any:
    """How to start the server for `project`: `exe` (default $SEMBLE_SERVE, else this venv's code-intel) over stdio.
    The MCP client hands the server only HOME, PATH and a few more of this process's variables, so a build chosen
    with PYTHONPATH (`dev_sets.py run --build`) is passed on, or the server would import the installed code_intel."""
    from mcp.client.stdio import StdioServerParameters

    exe = exe or os.environ.get("SEMBLE_SERVE") or str(Path(sys.executable).parent / "code-intel")  # another build
    build = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else None
    return StdioServerParameters(command="/bin/sh", args=["-c", f"exec {exe} serve --project {project} "
                                                                f"--log-level WARNING 2>/dev/null"],
                                 cwd=str(project), env=build)


def fresh_state(project: Path, config: dict[str, Any]) -> None:
    """An empty .code-intel/ for `project` holding only this config, so that every run indexes from nothing."""
    state = project / ".code-intel"
    if state.exists():
        shutil.rmtree(state)
    state.mkdir()
    (state / "config.json").write_text(json.dumps(config) + "\n")


async def run_repo(repo: Repo, project: Path, wait_full: bool = True, exe: str | None = None,
                   model: str | None = None, wait_question_model: bool = False) -> dict[str, Any]:
    from mcp import Client

    fresh_state(project, {"sync_on_start": False, **({"embedding_model": model} if model else {})})
    params = server_parameters(exe, project)
    out: dict[str, Any] = {"repo": repo.name, "language": repo.language}
    notes: list[tuple[float, float, float | None]] = []
    async with Client(params, read_timeout_seconds=900) as client:
        await client.list_tools()
        await _warm_client_checks(client, ("sync_index", "semantic_search"))
        pid = server_pid(os.getpid(), project)
        out["rss_start_mb"] = peak_mb(pid)
        cpu_before = cpu_s(pid) or 0.0
        began = time.perf_counter()

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            notes.append((round(time.perf_counter() - began, 3), progress, total))

        sync = _data(await client.call_tool("sync_index", {"force": True}, progress_callback=on_progress))
        answered = time.perf_counter() - began
        out["sync_answer_s"] = round(answered, 3)
        out["sync_answer_state"] = (sync.get("index") or {}).get("state")
        index = sync.get("index") or {}
        searchable = answered if _searchable(index) else None
        if searchable is not None:
            out["searchable_cpu_s"] = round((cpu_s(pid) or 0.0) - cpu_before, 2)
        full = answered if (sync.get("index") or {}).get("state") == "complete" else None
        while full is None and not (searchable is not None and not wait_full):
            # every poll is a search: often at first, then once a second so that polling costs a large index little
            await asyncio.sleep(POLL_S if time.perf_counter() - began < 10 else 1.0)
            index = _data(await client.call_tool("semantic_search", {"query": "index state", "n_results": 1}))["index"]
            now = time.perf_counter() - began
            if searchable is None and _searchable(index):
                searchable = now
                out["searchable_cpu_s"] = round((cpu_s(pid) or 0.0) - cpu_before, 2)
            if index.get("state") == "complete":
                full = now
            elif index.get("state") == "partial" and now > 900:
                raise SystemExit(f"{repo.name}: the index stayed partial")
        out["searchable_s"] = round(searchable if searchable is not None else full, 3)  # type: ignore[arg-type]
        out["full_s"] = round(full, 3) if full is not None else None
        out["progress_notifications"] = len(notes)
        out["full_cpu_s"] = round((cpu_s(pid) or 0.0) - cpu_before, 2)
        out["rss_index_mb"] = peak_mb(pid)
        out["chunks"] = index.get("indexed_chunks")
        out["files"] = index.get("indexed_files")
        waited = time.perf_counter()
        while wait_question_model and time.perf_counter() - waited < 60:  # every question by the same model
            probe = _data(await client.call_tool("semantic_search", {"query": "index state", "n_results": 1}))
            if probe.get("query_model") == "all-MiniLM-L6-v2-code":
                break
            await asyncio.sleep(0.2)
        per_question = []
        latencies = []
        for q in repo.questions:
            started = time.perf_counter()
            data = _data(await client.call_tool("semantic_search", {"query": q["query"], "n_results": CUTOFF}))
            latencies.append(time.perf_counter() - started)
            results = [(str(r["file"]), int(r.get("line") or 1), int(r.get("end_line") or r.get("line") or 1))
                       for r in data.get("results", [])]
            per_question.append({"query": q["query"], "category": q["category"],
                                 "quality": (data.get("index") or {}).get("quality"),
                                 "query_model": data.get("query_model"),
                                 "ndcg10": ndcg10(results, targets_of(q)), "top": results[:CUTOFF]})
        out["rss_peak_mb"] = peak_mb(pid)
        latencies.sort()
        out["search_p50_ms"] = round(latencies[len(latencies) // 2] * 1000, 1) if latencies else None
    out["questions"] = per_question
    out["bm25"] = bm25_scores(project, repo.questions) if repo.questions else []
    return out


async def _warm_client_checks(client: Any, tools: tuple[str, ...]) -> None:
    """The SDK client checks each answer against its tool's output schema; its first check of a tool imports
    jsonschema and compiles that schema (0.1 to 0.2 s of this process's CPU at load 7), which is the benchmark's cost,
    not the server's: done here, before the clock, by checking an empty answer (refused, but compiled and kept)."""
    from mcp_types import CallToolResult

    for name in tools:
        with contextlib.suppress(RuntimeError):
            await client.session.validate_tool_result(name, CallToolResult(content=[], structured_content={}))


def _searchable(index: dict[str, Any]) -> bool:
    """Every file of the sync is indexed (chunked, stored, with vectors): the file pass is over."""
    if not index or index.get("state") in (None, "empty"):
        return False
    if "searchable" in index:
        return bool(index["searchable"])
    return index.get("total_chunks") is not None


def bm25_scores(project: Path, questions: list[dict[str, Any]]) -> list[float]:
    """BM25 (rank_bm25, our lexical tokens) over the chunks the server stored, ranked the same way."""
    sys.path.insert(0, str(HERE))
    import semantic

    chunks = stored_chunks(project)
    rank = semantic.bm25_ranker([text for _, _, _, text in chunks])
    scores = []
    for q in questions:
        top = [chunks[i][:3] for i in rank(q["query"], CUTOFF)]
        scores.append(ndcg10(top, targets_of(q)))
    return scores


def stored_chunks(project: Path) -> list[tuple[str, int, int, str]]:
    """(file, start, end, text) of every chunk in the project's index (read in-process after the server stopped)."""
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(path=str(project / ".code-intel" / "chroma"),
                                       settings=Settings(anonymized_telemetry=False))
    best: list[tuple[str, int, int, str]] = []
    for collection in client.list_collections():
        name = collection if isinstance(collection, str) else collection.name
        if "_forest_" not in name:
            continue
        col = client.get_collection(name)
        got = col.get(include=["documents", "metadatas"])
        rows = [(str(m["file"]), int(str(m["start_line"])), int(str(m["end_line"])), d or "")
                for d, m in zip(got["documents"] or [], got["metadatas"] or [], strict=True)]
        if len(rows) > len(best):
            best = rows
    return best


# ------------------------------------------------------------------------------------------------ report
def published() -> dict[str, dict[str, Any]]:
    """repo -> {semble, cre_hybrid, cre, semble_ms, by_category...} from the copied result files."""
    out: dict[str, dict[str, Any]] = {}
    semble = json.loads(next(DATA.glob("results/semble-hybrid-*.json")).read_text())
    for r in semble["repos"]:
        out.setdefault(r["repo"], {})["semble"] = r
    cre = json.loads(next(DATA.glob("results/coderankembed-*.json")).read_text())
    for r in cre["repos"]:
        out.setdefault(r["repo"], {})[f"cre_{r['mode']}"] = r
    # semble's published figures for dev repositories outside the copied subset (semble_dev/published.json)
    for name, entry in json.loads((DEV_LOCAL / "published.json").read_text())["repos"].items():
        out.setdefault(name, {}).setdefault("semble", entry)
    speed = json.loads(next(DATA.glob("results/speed-*.json")).read_text())
    for row in _speed_rows(speed):
        out.setdefault(row["repo"], {})["semble_index_ms"] = row["index_ms"]
    return out


def _speed_rows(speed: Any) -> list[dict[str, Any]]:
    return [item for item in speed["results"] if item["tool"] == "semble"]


def mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def fmt(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def report(runs: list[dict[str, Any]], repos: list[Repo]) -> dict[str, Any]:
    pub = published()
    lines = ["| repo | language | questions | code-intel | BM25 (same run) | semble | CRE hybrid | CRE |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    pooled: dict[str, list[float]] = {"ours": [], "bm25": [], "semble": [], "cre_hybrid": [], "cre": []}
    # older annotation files have other categories (`api`, `keyword`): pooled always, and listed after the three
    categories = [*CATEGORIES, *sorted({q["category"] for run in runs for q in run["questions"]} - set(CATEGORIES))]
    by_category: dict[str, dict[str, list[float]]] = {c: {"ours": [], "bm25": []} for c in categories}
    by_language: dict[str, dict[str, list[float]]] = {}
    pub_category: dict[str, dict[str, list[float]]] = {c: {"semble": [], "cre_hybrid": []} for c in categories}
    for run in runs:
        scores = [q["ndcg10"] for q in run["questions"]]
        n = len(scores)
        p = pub.get(run["repo"], {})
        semble = p.get("semble", {}).get("ndcg10")
        cre_h = p.get("cre_hybrid", {}).get("ndcg10")
        cre = p.get("cre_semantic", {}).get("ndcg10")
        lines.append(f"| {run['repo']} | {run['language']} | {n} | {fmt(mean(scores))} | {fmt(mean(run['bm25']))} | "
                     f"{fmt(semble)} | {fmt(cre_h)} | {fmt(cre)} |")
        pooled["ours"] += scores
        pooled["bm25"] += run["bm25"]
        lang = by_language.setdefault(run["language"], {"ours": [], "bm25": [], "semble": []})
        lang["ours"] += scores
        lang["bm25"] += run["bm25"]
        # published figures are per-repo means: weight each by its question count to pool over questions
        for key, value in (("semble", semble), ("cre_hybrid", cre_h), ("cre", cre)):
            if value is not None:
                pooled[key] += [value] * n
        if semble is not None:
            lang["semble"] += [semble] * n
        for c in categories:
            qs = [q for q in run["questions"] if q["category"] == c]
            by_category[c]["ours"] += [q["ndcg10"] for q in qs]
            by_category[c]["bm25"] += [b for q, b in zip(run["questions"], run["bm25"], strict=True)
                                       if q["category"] == c]
            for key, name in (("semble", "semble"), ("cre_hybrid", "cre_hybrid")):
                value = p.get(name, {}).get("by_category", {}).get(c)
                if value is not None:
                    pub_category[c][key] += [value] * len(qs)
    lines.append(f"| **pooled** | | {len(pooled['ours'])} | **{fmt(mean(pooled['ours']))}** | "
                 f"{fmt(mean(pooled['bm25']))} | {fmt(mean(pooled['semble']))} | {fmt(mean(pooled['cre_hybrid']))} | "
                 f"{fmt(mean(pooled['cre']))} |")
    print("\n".join(lines))
    print("\n| category | questions | code-intel | BM25 | semble | CRE hybrid |\n| --- | --- | --- | --- | --- | --- |")
    for c in categories:
        b = by_category[c]
        print(f"| {c} | {len(b['ours'])} | {fmt(mean(b['ours']))} | {fmt(mean(b['bm25']))} | "
              f"{fmt(mean(pub_category[c]['semble']))} | {fmt(mean(pub_category[c]['cre_hybrid']))} |")
    print("\n| language | questions | code-intel | BM25 | semble | gap to semble |\n| --- | --- | --- | --- | --- | --- |")
    for language, b in sorted(by_language.items()):
        ours, sem = mean(b["ours"]), mean(b["semble"])
        gap = None if ours is None or sem is None else ours - sem
        print(f"| {language} | {len(b['ours'])} | {fmt(ours)} | {fmt(mean(b['bm25']))} | {fmt(sem)} | "
              f"{'—' if gap is None else f'{gap:+.3f}'} |")
    print("\n| repo | files | chunks | sync_index answered (s) | every file searchable (s; server CPU s) | "
          "full quality (s; server CPU s) | semble index (ms, their machine) | server peak RSS indexing / after "
          "questions (MB) | progress notes | search p50 (ms) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for run in runs:
        ms = pub.get(run["repo"], {}).get("semble_index_ms") or pub.get(run["repo"], {}).get("semble", {}).get("index_ms")
        print(f"| {run['repo']} | {run['files']} | {run['chunks']} | {run['sync_answer_s']} | {run['searchable_s']}; "
              f"{run.get('searchable_cpu_s')} | {run['full_s']}; {run.get('full_cpu_s')} | {fmt(ms, 0)} | "
              f"{run['rss_index_mb']} / {run['rss_peak_mb']} | "
              f"{run['progress_notifications']} | {run['search_p50_ms']} |")
    searchable = sorted(r["searchable_s"] for r in runs)
    if searchable:
        print(f"\nevery file searchable: median {searchable[len(searchable) // 2]:.3f} s (upper median), "
              f"slowest {searchable[-1]:.3f} s; server peak RSS while indexing: max "
              f"{max(r['rss_index_mb'] or 0 for r in runs)} MB; load average {os.getloadavg()[0]:.1f}")
    return {"pooled": mean(pooled["ours"]), "bm25": mean(pooled["bm25"]),
            "by_category": {c: mean(by_category[c]["ours"]) for c in categories},
            "by_language": {name: mean(b["ours"]) for name, b in by_language.items()}}


INDEX_FIGURES = ("sync_answer_s", "searchable_s", "searchable_cpu_s", "full_s", "full_cpu_s", "rss_index_mb",
                 "progress_notifications", "chunks")


def index_only(folders: list[Path], baseline: str | None, out: Path | None, model: str | None = None) -> None:
    """First-index time and memory of each folder through the real server, this build beside `baseline`."""
    builds = ([("baseline", baseline)] if baseline else []) + [("this build", None)]
    rows = []
    for folder in folders:
        for name, exe in builds:
            load = os.getloadavg()[0]
            run = asyncio.run(run_repo(Repo(folder.name, "", "", "", None), folder.resolve(), exe=exe, model=model))
            del run["questions"], run["bm25"]
            run.update(build=name, load_start=round(load, 1), load_end=round(os.getloadavg()[0], 1))
            print(json.dumps(run), file=sys.stderr)
            rows.append(run)
    print("| folder | build | " + " | ".join(INDEX_FIGURES) + " | load (start, end) |")
    print("| --- " * (len(INDEX_FIGURES) + 3) + "|")
    for run in rows:
        print(f"| {run['repo']} | {run['build']} | " + " | ".join(str(run.get(k)) for k in INDEX_FIGURES)
              + f" | {run['load_start']}, {run['load_end']} |")
    if out:
        out.write_text(json.dumps(rows, indent=1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=("report", "dev", "symbols", "symbols2", "symbols3", "symbols4", "symbols5"), default="report")
    parser.add_argument("--repo", action="append", help="only these repositories (repeatable)")
    parser.add_argument("--json", type=Path, help="write every run (per question) to this file")
    parser.add_argument("--index-only", type=Path, nargs="+", metavar="DIR",
                        help="only time the first index of each DIR (e.g. a sympy checkout) and the server's memory")
    parser.add_argument("--index-times", action="store_true",
                        help="only time the first index of each repository of the set (its benchmark_root), as "
                             "--index-only does")
    parser.add_argument("--baseline", metavar="EXE",
                        help="with --index-only: also index each DIR with this `code-intel` (e.g. main's "
                             "/work/main/.venv/bin/code-intel), before this build's run, and print both")
    parser.add_argument("--searchable-only", action="store_true",
                        help="ask the questions as soon as every file is searchable (do not wait for full quality)")
    parser.add_argument("--model", help="embedding_model for the server's config (default: the server's default)")
    parser.add_argument("--fetch-list", action="store_true",
                        help="run nothing: print what a new machine must bring for the set (the search tool's fetch "
                             "source of every repository whose mirror lacks its pinned revision, and a missing folder "
                             "of semble's dev annotations)")
    parser.add_argument("--wait-question-model", action="store_true",
                        help="ask the questions once the question model has loaded (otherwise the first few of each "
                             "repository are embedded by the static model while it loads, which varies run to run)")
    args = parser.parse_args(argv)
    if args.index_only:
        index_only(args.index_only, args.baseline, args.json, args.model)
        return 0
    symbols = args.set if args.set.startswith("symbols") else ""
    dev = args.set == "dev" or bool(symbols)  # the symbol sets ask dev repositories
    if dev and not symbols:  # before --fetch-list too, so that it names the repositories these annotations ask
        write_dev_annotations()
    if dev:
        available = sorted({p.stem for d in annotation_dirs(dev, symbols) for p in d.glob("*.json")})
    else:
        available = list(REPORTED)
    names = args.repo or available
    if args.fetch_list:
        for line in fetch_list(names, dev, symbols):
            print(line)
        return 0
    repos = load_repos(names, dev, symbols)
    corpus = DEV if dev else CORPUS
    if args.index_times:
        index_only([checkout(repo, corpus) for repo in repos], args.baseline, args.json, args.model)
        return 0
    runs = []
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}", file=sys.stderr)
    for repo in repos:
        project = checkout(repo, corpus)
        run = asyncio.run(run_repo(repo, project, wait_full=not args.searchable_only, model=args.model,
                                   wait_question_model=args.wait_question_model))
        print(f"{repo.name}: ndcg10 {mean([q['ndcg10'] for q in run['questions']]):.3f} "
              f"(bm25 {mean(run['bm25']):.3f}) searchable {run['searchable_s']} s, full {run['full_s']} s, "
              f"rss {run['rss_index_mb']} MB (peak {run['rss_peak_mb']} MB), search p50 {run['search_p50_ms']} ms, "
              f"questions embedded by the transformer {sum(q['query_model'] == 'all-MiniLM-L6-v2-code' for q in run['questions'])}"
              f"/{len(run['questions'])}", file=sys.stderr)
        runs.append(run)
    summary = report(runs, repos)
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "runs": runs}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
