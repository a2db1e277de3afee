"""Real-question benchmark: developers' questions over public repositories, asked through the server's tools.

Each question file (benchmarks/questions/*.yml for the reported `test` set, benchmarks/questions/dev/*.yml
for the `dev` set used to choose levers and weights) names a public repository pinned by commit and lists
questions with the file and line spans that answer them (format: benchmarks/questions/README.md).

For every repository the harness
  1. checks the repository out at its commit into benchmarks/.corpus/questions/ (git-ignored): from the
     local mirror /work/.mirror/<owner>+<name>/repo (or $CODE_INTEL_MIRROR) when it is there, otherwise
     by `git clone` from the repository URL;
  2. indexes it through the server's own SemanticIndex sync (the code behind `sync_index`) with the
     project's default config, and again with the untuned model (`embedding_model: all-MiniLM-L6-v2`),
     each index kept in the checkout's .code-intel/ so a re-run only re-scans (keyed by commit and model);
  3. asks every question through the MCP server in memory (`build_server` + an MCP client): the
     `semantic_search` and `query` tools with the default model, `semantic_search` with the untuned model,
     passing a question's `keywords` / `code_hint` only to tools whose input schema accepts them;
  4. ranks the same chunks with BM25 (benchmarks/semantic.py's bm25_ranker) as the baseline.

A hit is a result in an answer's file whose line span overlaps the answer's span. Reported: MRR@10 and
recall@10 (share of questions with a hit in the top 10) per repository, per style and pooled, and, for
"how-it-works" questions, the share where an implementation file ranks above every test and doc result.

    .venv/bin/python benchmarks/questions.py [--set test|dev] [--questions FILE_OR_DIR ...] [--repo NAME]
        [--no-untuned] [--guesses FILE] [--json FILE] [--summary FILE] [--check] [--fetch-list]

--guesses adds `keywords` and `code_hint` to the questions from a file kept apart from the questions
(repository name -> question id -> {keywords, code_hint}), written as an agent would guess them before
reading any code (benchmarks/questions/guesses/dev.yml), so the questions' own figures stay as they are.

--check only checks out the repositories and verifies every answer span (the file exists at the commit,
the span lies inside it) and prints each span's first line, for reviewing a question file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import semantic  # noqa: E402

from code_intel.core.config import read_yaml

HERE = Path(__file__).resolve().parent
QUESTIONS_DIR = HERE / "questions"
SETS = {"test": QUESTIONS_DIR, "dev": QUESTIONS_DIR / "dev"}
CORPUS = HERE / ".corpus" / "questions"
MIRROR = Path(os.environ.get("CODE_INTEL_MIRROR", "/work/.mirror"))
UNTUNED_MODEL = "all-MiniLM-L6-v2"
CUTOFF = 10

STYLES = ("keyword", "sentence")
KINDS = ("how-it-works", "where-is", "what-happens-when", "how-to")
LANGUAGES = ("python", "typescript", "javascript", "go")
QUESTION_KEYS = {"id", "q", "style", "kind", "answers", "keywords", "code_hint", "note"}
FILE_KEYS = {"repo", "commit", "language", "description", "questions"}
_REPO_URL = re.compile(r"^https://github\.com/([A-Za-z0-9][\w.-]*)/([\w.-]+?)(?:\.git)?/?$")

# ---------------------------------------------------------------------------------------------- file roles
# The benchmark's own definition, kept apart from the server's so that changing the server cannot move it.
ROLES = ("implementation", "test", "doc", "generated")
_TEST_DIRS = {"test", "tests", "testing", "__tests__", "spec", "specs", "testdata", "fixtures", "benchmarks",
              "benchmark", "bench", "perf-measures", "runtime-tests", "e2e"}
_TEST_FILE = re.compile(r"(^test_.*\.py$|_test\.(py|go)$|^conftest\.py$|\.(test|spec|bench)\.[cm]?[jt]sx?$)")
_DOC_DIRS = {"docs", "doc", "examples", "example", "_examples", "demo", "demos", "website"}
_DOC_SUFFIXES = {".md", ".rst", ".txt", ".adoc", ".html"}
_GENERATED_FILE = re.compile(r"(\.pb\.go$|_gen\.go$|\.min\.js$|\.d\.ts$|\.lock$|^package-lock\.json$|"
                             r"^go\.sum$|_pb2\.py$|\.generated\.)")
_GENERATED_DIRS = {"vendor", "dist", "build", "node_modules", "third_party"}


def file_role(path: str) -> str:
    """implementation / test / doc / generated, from the path alone (first matching rule wins)."""
    parts = PurePosixPath(path).parts
    name, folders = parts[-1].lower(), {p.lower() for p in parts[:-1]}
    if _GENERATED_FILE.search(name) or folders & _GENERATED_DIRS:
        return "generated"
    if _TEST_FILE.search(name) or folders & _TEST_DIRS:
        return "test"
    if PurePosixPath(name).suffix in _DOC_SUFFIXES or folders & _DOC_DIRS or name.startswith(("readme", "changelog")):
        return "doc"
    return "implementation"


# ---------------------------------------------------------------------------------------------- question files
class QuestionFileError(ValueError):
    """A question file that does not follow the format (benchmarks/questions/README.md)."""


@dataclass(frozen=True)
class Answer:
    file: str
    start: int
    end: int


@dataclass
class Question:
    id: str
    q: str
    style: str
    kind: str
    answers: list[Answer]
    keywords: list[str] = field(default_factory=list)
    code_hint: str | None = None


@dataclass
class QuestionSet:
    path: Path
    repo: str  # https://github.com/owner/name
    owner: str
    name: str
    commit: str
    language: str
    questions: list[Question]

    @property
    def label(self) -> str:
        return self.name


def _fail(path: Path, where: str, message: str) -> QuestionFileError:
    return QuestionFileError(f"{path}: {where}: {message}")


def load_question_set(path: Path) -> QuestionSet:
    """Read and check one question file; any deviation from the format is refused with where and why."""
    import yaml

    try:
        data = read_yaml(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as err:
        raise QuestionFileError(f"{path}: cannot be read as YAML: {err}") from None
    if not isinstance(data, dict):
        raise _fail(path, "top level", "must be a mapping with repo, commit, language and questions")
    unknown = set(data) - FILE_KEYS
    missing = {"repo", "commit", "language", "questions"} - set(data)
    if unknown or missing:
        raise _fail(path, "top level", f"unknown keys {sorted(unknown)}, missing keys {sorted(missing)}")
    match = _REPO_URL.match(str(data["repo"]))
    if not match:
        raise _fail(path, "repo", f"{data['repo']!r} is not https://github.com/<owner>/<name>")
    commit = str(data["commit"])
    if not re.fullmatch(r"[0-9a-f]{40}", commit):
        raise _fail(path, "commit", f"{commit!r} is not a full 40-digit commit hash")
    if data["language"] not in LANGUAGES:
        raise _fail(path, "language", f"{data['language']!r} is not one of {LANGUAGES}")
    raw = data["questions"]
    if not isinstance(raw, list) or not raw:
        raise _fail(path, "questions", "must be a non-empty list")
    questions: list[Question] = []
    seen: set[str] = set()
    for n, item in enumerate(raw, 1):
        questions.append(_question(path, n, item, seen))
    return QuestionSet(path, f"https://github.com/{match.group(1)}/{match.group(2)}", match.group(1),
                       match.group(2), commit, data["language"], questions)


def _question(path: Path, n: int, item: Any, seen: set[str]) -> Question:
    where = f"question {n}"
    if not isinstance(item, dict):
        raise _fail(path, where, "must be a mapping with q, style, kind and answers")
    unknown = set(item) - QUESTION_KEYS
    missing = {"q", "style", "kind", "answers"} - set(item)
    if unknown or missing:
        raise _fail(path, where, f"unknown keys {sorted(unknown)}, missing keys {sorted(missing)}")
    text = item["q"]
    if not isinstance(text, str) or not text.strip():
        raise _fail(path, where, "q must be a non-empty string")
    qid = str(item.get("id") or n)
    if qid in seen:
        raise _fail(path, where, f"id {qid!r} is used twice")
    seen.add(qid)
    if item["style"] not in STYLES:
        raise _fail(path, where, f"style {item['style']!r} is not one of {STYLES}")
    if item["kind"] not in KINDS:
        raise _fail(path, where, f"kind {item['kind']!r} is not one of {KINDS}")
    answers = item["answers"]
    if not isinstance(answers, list) or not answers:
        raise _fail(path, where, "answers must be a non-empty list of {file, start, end}")
    spans = []
    for a in answers:
        if not isinstance(a, dict) or set(a) != {"file", "start", "end"}:
            raise _fail(path, where, f"answer {a!r} must have exactly file, start and end")
        file, start, end = a["file"], a["start"], a["end"]
        if not isinstance(file, str) or not file or file.startswith("/") or ".." in PurePosixPath(file).parts:
            raise _fail(path, where, f"answer file {file!r} must be a path relative to the repository root")
        if not (isinstance(start, int) and isinstance(end, int) and 1 <= start <= end):
            raise _fail(path, where, f"answer span {start!r}-{end!r} must be line numbers with 1 <= start <= end")
        spans.append(Answer(file, start, end))
    keywords = item.get("keywords") or []
    if not isinstance(keywords, list) or not all(isinstance(k, str) and k.strip() for k in keywords):
        raise _fail(path, where, "keywords must be a list of non-empty strings")
    hint = item.get("code_hint")
    if hint is not None and (not isinstance(hint, str) or not hint.strip()):
        raise _fail(path, where, "code_hint must be a non-empty string when given")
    return Question(qid, text.strip(), item["style"], item["kind"], spans, list(keywords), hint)


def add_guesses(sets: list[QuestionSet], path: Path) -> None:
    """Give each question the keywords and code_hint the guesses file holds for it; every entry must match."""
    data = read_yaml(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise _fail(path, "top level", "expected repository name -> question id -> {keywords, code_hint}")
    by_name = {s.name: s for s in sets}
    for name, entries in data.items():
        if name not in by_name or not isinstance(entries, dict):
            raise _fail(path, str(name), "no question file for this repository among the ones asked")
        questions = {q.id: q for q in by_name[name].questions}
        for qid, guess in entries.items():
            if qid not in questions or not isinstance(guess, dict):
                raise _fail(path, f"{name}.{qid}", "no such question")
            keywords = guess.get("keywords") or []
            if not isinstance(keywords, list) or not all(isinstance(k, str) and k.strip() for k in keywords):
                raise _fail(path, f"{name}.{qid}", "keywords must be a list of non-empty strings")
            hint = guess.get("code_hint")
            if hint is not None and not (isinstance(hint, str) and hint.strip()):
                raise _fail(path, f"{name}.{qid}", "code_hint must be a non-empty string when given")
            questions[qid].keywords, questions[qid].code_hint = list(keywords), hint


def question_files(paths: Iterable[Path]) -> list[Path]:
    """The .yml/.yaml files named, or directly inside the folders named (not their sub-folders)."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(p for p in path.iterdir() if p.suffix in (".yml", ".yaml") and p.is_file())
        elif path.is_file():
            found.append(path)
        else:
            raise QuestionFileError(f"{path}: no such file or folder")
    if not found:
        raise QuestionFileError(f"no question files (*.yml) in {[str(p) for p in paths]}")
    return found


# ---------------------------------------------------------------------------------------------- checkouts
def _git(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)


def mirror_of(qset: QuestionSet, mirror: Path = MIRROR) -> Path | None:
    """The local bare mirror of the repository (/work/.mirror/<owner>+<name>/repo), when there is one."""
    for candidate in (mirror / f"{qset.owner}+{qset.name}" / "repo", mirror / f"{qset.owner}+{qset.name}"):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


def fetch_list(sets: list[QuestionSet], mirror: Path = MIRROR) -> list[str]:
    """`github:owner/name` once for each repository whose mirror is missing or lacks the pinned commit."""
    lines: list[str] = []
    for qset in sets:
        source = mirror_of(qset, mirror)
        held = source is not None and _git(f"--git-dir={source}", "cat-file", "-e",
                                           f"{qset.commit}^{{commit}}").returncode == 0
        line = f"github:{qset.owner}/{qset.name}"
        if not held and line not in lines:
            lines.append(line)
    return lines


def checkout(qset: QuestionSet, corpus: Path = CORPUS, mirror: Path = MIRROR) -> Path:
    """A work tree of the repository at its pinned commit, made once and reused (git-ignored cache)."""
    folder = corpus / f"{qset.owner}+{qset.name}@{qset.commit[:12]}"
    if (folder / ".git").exists():
        head = _git("rev-parse", "HEAD", cwd=folder).stdout.strip()
        if head == qset.commit:
            return folder
        done = _git("checkout", "--quiet", "--detach", qset.commit, cwd=folder)
        if done.returncode == 0:
            return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    source = mirror_of(qset, mirror)
    if not (folder / ".git").exists():
        done = _git("clone", "--quiet", "--no-checkout", str(source or qset.repo), str(folder))
        if done.returncode != 0:
            raise RuntimeError(f"git clone of {source or qset.repo} failed: {done.stderr.strip()}")
    if _git("cat-file", "-e", f"{qset.commit}^{{commit}}", cwd=folder).returncode != 0:
        fetched = _git("fetch", "--quiet", qset.repo, qset.commit, cwd=folder)
        if fetched.returncode != 0:
            raise RuntimeError(f"commit {qset.commit} is neither in {source or qset.repo} nor fetchable from "
                               f"{qset.repo}: {fetched.stderr.strip()}")
    done = _git("checkout", "--quiet", "--detach", qset.commit, cwd=folder)
    if done.returncode != 0:
        raise RuntimeError(f"git checkout {qset.commit} in {folder} failed: {done.stderr.strip()}")
    exclude = folder / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    with exclude.open("a", encoding="utf-8") as handle:
        handle.write("\n/.code-intel/\n")
    return folder


def check_spans(qset: QuestionSet, root: Path) -> list[str]:
    """Problems with the answer spans at the checkout: missing files, spans past the end of the file."""
    problems = []
    for q in qset.questions:
        for a in q.answers:
            file = root / a.file
            if not file.is_file():
                problems.append(f"{qset.label} question {q.id}: {a.file} does not exist at {qset.commit[:12]}")
                continue
            lines = file.read_text(encoding="utf-8", errors="replace").count("\n") + 1
            if a.end > lines:
                problems.append(f"{qset.label} question {q.id}: {a.file}:{a.start}-{a.end} ends after line {lines}")
    return problems


def span_warnings(qset: QuestionSet, root: Path) -> list[str]:
    """Answer spans that are not exactly one syntax node (a function, method, class or statement, decorators
    included) by tree-sitter: usually a start or end line that is off by a few lines."""
    from code_intel.languages.table import get_parser, language_for

    nodes: dict[str, set[tuple[int, int]]] = {}
    warnings = []
    for q in qset.questions:
        for a in q.answers:
            if a.file not in nodes:
                language = language_for(a.file)
                spans: set[tuple[int, int]] = set()
                if language and (root / a.file).is_file():
                    tree = get_parser(language).parse((root / a.file).read_bytes())
                    stack = [tree.root_node]
                    while stack:
                        node = stack.pop()
                        spans.add((node.start_point[0] + 1, node.end_point[0] + 1))
                        stack.extend(node.named_children)
                nodes[a.file] = spans
            if nodes[a.file] and (a.start, a.end) not in nodes[a.file]:
                warnings.append(f"{qset.label} question {q.id}: {a.file}:{a.start}-{a.end} is not one syntax node")
    return warnings


# ---------------------------------------------------------------------------------------------- scoring
Span = tuple[str, int, int]


def result_spans(results: list[dict[str, Any]]) -> list[Span]:
    """(file, line, end_line) of tool results; a result without an end line covers its one line."""
    spans = []
    for r in results:
        if r.get("file") and r.get("line"):
            start = int(r["line"])
            spans.append((str(r["file"]), start, max(int(r.get("end_line") or start), start)))
    return spans


def answer_spans(q: Question) -> list[Span]:
    return [(a.file, a.start, a.end) for a in q.answers]


def implementation_outranks(spans: list[Span], cutoff: int = CUTOFF) -> bool:
    """The best implementation result ranks above every test and doc result in the top `cutoff`."""
    for file, _start, _end in spans[:cutoff]:
        role = file_role(file)
        if role == "implementation":
            return True
        if role in ("test", "doc"):
            return False
    return False


@dataclass
class Outcome:
    """One question asked of one method."""

    question: str
    rank: int | None
    top: list[Span]
    arguments: list[str] = field(default_factory=list)  # the optional arguments passed (keywords, code_hint)
    seconds: float = 0.0
    error: str | None = None


def summarize(outcomes: list[Outcome], questions: list[Question]) -> dict[str, Any]:
    """MRR@10, recall@10, and for how-it-works questions the share where implementation outranks tests/docs."""
    ranks = [o.rank for o in outcomes]
    how = [o for o, q in zip(outcomes, questions, strict=True) if q.kind == "how-it-works"]
    first_roles = [file_role(o.top[0][0]) if o.top else None for o in outcomes]
    return {
        "questions": len(outcomes),
        "mrr10": round(semantic.mrr(ranks, CUTOFF), 4),
        "recall10": round(sum(1 for r in ranks if r is not None and r <= CUTOFF) / max(len(ranks), 1), 4),
        "how_it_works": len(how),
        "impl_outranks_tests_docs": round(sum(implementation_outranks(o.top) for o in how) / len(how), 4) if how else None,
        "first_result_test_or_doc": round(sum(r in ("test", "doc") for r in first_roles) / max(len(first_roles), 1), 4),
        "errors": sum(1 for o in outcomes if o.error),
    }


# ---------------------------------------------------------------------------------------------- asking
def _data(result: Any) -> dict[str, Any]:
    data = result.structured_content
    if data is None:
        data = json.loads(result.content[0].text)
    return data if isinstance(data, dict) else {}


def optional_arguments(schema: dict[str, Any], q: Question) -> dict[str, Any]:
    """The question's keywords / code_hint, for the ones the tool's input schema accepts."""
    accepted = set((schema or {}).get("properties", {}))
    extra: dict[str, Any] = {}
    if q.keywords and "keywords" in accepted:
        extra["keywords"] = list(q.keywords)
    if q.code_hint and "code_hint" in accepted:
        extra["code_hint"] = q.code_hint
    return extra


def write_config(root: Path, model: str | None) -> None:
    """.code-intel/config.json of the checkout: the defaults, or the defaults with another embedding model."""
    state = root / ".code-intel"
    state.mkdir(exist_ok=True)
    (state / "config.json").write_text(json.dumps({"embedding_model": model} if model else {}) + "\n", encoding="utf-8")


async def ask(root: Path, questions: list[Question], tools: list[str]) -> tuple[dict[str, list[Outcome]], dict[str, Any]]:
    """Sync the index of `root` with its current config, then ask every question of each tool in turn."""
    from mcp import Client

    from code_intel.core.project import ProjectRoot
    from code_intel.server.app import CodeIntelApp
    from code_intel_server import build_server

    app = CodeIntelApp(ProjectRoot.from_args(root))
    info: dict[str, Any] = {}
    try:
        started = time.perf_counter()
        app.index._get_parts().embedder.embed_queries(["warm up"])  # the model load is not indexing time
        info["model_load_s"] = round(time.perf_counter() - started, 1)
        report = app.index.sync()
        if not report.get("complete"):
            raise RuntimeError(f"the index of {root} is incomplete: {report.get('partial_reason')}")
        info.update(sync_s=report["duration_s"], chunks=report["chunks_total"], chunks_embedded=report["chunks_added"],
                    files=report["files_scanned"], model=report["model"])
        outcomes: dict[str, list[Outcome]] = {}
        async with Client(build_server(app), read_timeout_seconds=600) as client:
            schemas = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            info["optional_arguments"] = {t: sorted({"keywords", "code_hint"} & set(schemas[t].get("properties", {})))
                                          for t in tools}
            for tool in tools:
                outcomes[tool] = []
                started = time.perf_counter()
                for q in questions:
                    extra = optional_arguments(schemas[tool], q)
                    args: dict[str, Any] = ({"query": q.q, "n_results": CUTOFF} if tool == "semantic_search"
                                            else {"question": q.q})
                    began = time.perf_counter()
                    data = _data(await client.call_tool(tool, {**args, **extra}))
                    seconds = time.perf_counter() - began
                    error = None if data.get("success", True) else f"{data.get('error')}: {data.get('message')}"
                    top = result_spans(data.get("results") or [])[:CUTOFF]
                    outcomes[tool].append(Outcome(q.id, semantic.first_hit(top, answer_spans(q), CUTOFF), top,
                                                  sorted(extra), round(seconds, 3), error))
                info[f"{tool}_s"] = round(time.perf_counter() - started, 1)
        return outcomes, info
    finally:
        app.close()


def bm25_outcomes(root: Path, questions: list[Question]) -> tuple[list[Outcome], dict[str, Any]]:
    """BM25 over the chunks the default index holds (the same candidates semantic_search ranks)."""
    from code_intel.core.project import ProjectRoot
    from code_intel.index.store import FOREST
    from code_intel.server.app import CodeIntelApp

    app = CodeIntelApp(ProjectRoot.from_args(root))
    try:
        started = time.perf_counter()
        stored = app.index._get_parts().store.get(FOREST, include=("documents", "metadatas"))
        spans = [(str(m["file"]), int(m["start_line"]), int(m["end_line"])) for m in stored["metadatas"]]
        rank = semantic.bm25_ranker([d or "" for d in stored["documents"]])
        outcomes = []
        for q in questions:
            top = [spans[i] for i in rank(q.q, CUTOFF)]
            outcomes.append(Outcome(q.id, semantic.first_hit(top, answer_spans(q), CUTOFF), top))
        return outcomes, {"bm25_s": round(time.perf_counter() - started, 1), "chunks": len(spans)}
    finally:
        app.close()


METHODS = ("semantic_search", "query", "semantic_search_untuned", "bm25")


def run_set(qset: QuestionSet, root: Path, untuned: bool,
            model: str | None = None) -> tuple[dict[str, list[Outcome]], dict[str, Any]]:
    timings: dict[str, Any] = {}
    write_config(root, model)
    outcomes, timings["default"] = asyncio.run(ask(root, qset.questions, ["semantic_search", "query"]))
    outcomes["bm25"], timings["bm25"] = bm25_outcomes(root, qset.questions)
    if untuned:
        try:
            write_config(root, UNTUNED_MODEL)
            extra, timings["untuned"] = asyncio.run(ask(root, qset.questions, ["semantic_search"]))
            outcomes["semantic_search_untuned"] = extra["semantic_search"]
        finally:
            write_config(root, model)
    return outcomes, timings


# ---------------------------------------------------------------------------------------------- report
def report(sets: list[QuestionSet], outcomes: dict[str, dict[str, list[Outcome]]]) -> dict[str, Any]:
    """Figures per method: per repository, per repository and style, per style pooled, pooled."""
    methods = [m for m in METHODS if any(m in outcomes[s.label] for s in sets)]
    figures: dict[str, Any] = {}
    for method in methods:
        entry: dict[str, Any] = {"repositories": {}, "styles": {}, "kinds": {}}
        pooled: list[tuple[Outcome, Question]] = []
        for s in sets:
            got = outcomes[s.label].get(method)
            if got is None:
                continue
            pairs = list(zip(got, s.questions, strict=True))
            pooled += pairs
            entry["repositories"][s.label] = summarize(got, s.questions)
            entry["repositories"][s.label]["styles"] = {
                style: summarize(*_split([p for p in pairs if p[1].style == style])) for style in STYLES
                if any(p[1].style == style for p in pairs)}
        entry["pooled"] = summarize(*_split(pooled))
        for style in STYLES:
            chosen = [p for p in pooled if p[1].style == style]
            if chosen:
                entry["styles"][style] = summarize(*_split(chosen))
        for kind in KINDS:
            chosen = [p for p in pooled if p[1].kind == kind]
            if chosen:
                entry["kinds"][kind] = summarize(*_split(chosen))
        figures[method] = entry
    if "bm25" in figures:
        base = figures["bm25"]["pooled"]["mrr10"]
        for entry in figures.values():
            entry["pooled"]["ratio_to_bm25"] = round(entry["pooled"]["mrr10"] / base, 2) if base else None
    return figures


def _split(pairs: list[tuple[Outcome, Question]]) -> tuple[list[Outcome], list[Question]]:
    return [o for o, _ in pairs], [q for _, q in pairs]


def table(rows: list[tuple[str, list[str]]], header: list[str]) -> str:
    widths = [max(len(header[i]), *(len(r[1][i - 1]) if i else len(r[0]) for r in rows)) for i in range(len(header))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    for name, cells in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip([name, *cells], widths, strict=True)))
    return "\n".join(lines)


def _cell(summary: dict[str, Any] | None) -> str:
    return "—" if not summary else f"{summary['mrr10']:.3f} / {summary['recall10']:.2f}"


def print_report(sets: list[QuestionSet], figures: dict[str, Any]) -> None:
    labels = [s.label for s in sets]
    print("\nMRR@10 / recall@10 per repository and pooled")
    print(table([(m, [_cell(f["repositories"].get(label)) for label in labels] + [_cell(f["pooled"])])
                 for m, f in figures.items()], ["method", *labels, "pooled"]))
    print("\nMRR@10 / recall@10 per question style (pooled over the repositories)")
    print(table([(m, [_cell(f["styles"].get(s)) for s in STYLES] + [_cell(f["pooled"])]) for m, f in figures.items()],
                ["method", *STYLES, "all"]))
    print("\nMRR@10 / recall@10 per repository and question style")
    print(table([(m, [_cell(f["repositories"].get(label, {}).get("styles", {}).get(style))
                      for label in labels for style in STYLES]) for m, f in figures.items()],
                ["method", *[f"{label} {style}" for label in labels for style in STYLES]]))
    print("\nMRR@10 / recall@10 per kind of question (pooled)")
    print(table([(m, [_cell(f["kinds"].get(k)) for k in KINDS]) for m, f in figures.items()], ["method", *KINDS]))
    print("\nhow-it-works: share where an implementation result ranks above every test/doc result; "
          "all questions: share whose first result is a test or doc")
    rows = []
    for m, f in figures.items():
        cells = [_share(f["repositories"].get(label, {}).get("impl_outranks_tests_docs")) for label in labels]
        rows.append((m, cells + [_share(f["pooled"]["impl_outranks_tests_docs"]),
                                 _share(f["pooled"]["first_result_test_or_doc"])]))
    print(table(rows, ["method", *[f"{label} impl first" for label in labels], "pooled impl first",
                       "pooled test/doc first"]))
    if "bm25" in figures:
        print("\npooled MRR@10 over BM25: " + ", ".join(
            f"{m} {f['pooled']['ratio_to_bm25']}x" for m, f in figures.items() if m != "bm25"))


def _share(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


# ---------------------------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", choices=sorted(SETS), default="test",
                        help="test: the reported repositories (default); dev: the ones for choosing levers")
    parser.add_argument("--questions", nargs="+", type=Path,
                        help="question files or folders to run instead of --set (e.g. another set of repositories)")
    parser.add_argument("--repo", action="append", help="only the repositories with this name (repeatable)")
    parser.add_argument("--no-untuned", action="store_true", help="skip the untuned model (saves its indexing)")
    parser.add_argument("--json", type=Path, help="write figures and per-question results here "
                        "(default benchmarks/.corpus/questions/results-<set>.json)")
    parser.add_argument("--summary", type=Path, help="also write the figures and timings alone (no per-question "
                        "results) here, e.g. for docs/")
    parser.add_argument("--check", action="store_true", help="only check out and verify the answer spans")
    parser.add_argument("--fetch-list", action="store_true",
                        help="run nothing: print the search tool's fetch source (github:owner/name) of every "
                             "repository whose local mirror is missing or lacks its pinned commit")
    parser.add_argument("--guesses", type=Path, help="keywords and code_hint per question (repository name -> "
                        "question id -> {keywords, code_hint}) to pass along with the questions")
    parser.add_argument("--model", help="embedding_model for the default runs (default: the configured default, "
                        "code-static; e.g. all-MiniLM-L6-v2-code for the transformer's two passes)")
    parser.add_argument("--weights", type=Path, help="measure these tuned layers (benchmarks/tune_model.py --out) "
                        "as the default model instead of the shipped file; they get indexes of their own")
    args = parser.parse_args(argv)
    if args.weights:
        semantic.use_candidate_weights(args.weights)

    try:
        sets = [load_question_set(p) for p in question_files(args.questions or [SETS[args.set]])]
    except QuestionFileError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.guesses:
        try:
            add_guesses(sets, args.guesses)
        except QuestionFileError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    if args.repo:
        sets = [s for s in sets if s.name in args.repo or f"{s.owner}/{s.name}" in args.repo]
        if not sets:
            print(f"error: no question file for {args.repo}", file=sys.stderr)
            return 2
    labels = [s.label for s in sets]
    if len(set(labels)) != len(labels):
        print(f"error: two question files for the same repository name: {labels}", file=sys.stderr)
        return 2

    if args.fetch_list:
        for line in fetch_list(sets):
            print(line)
        return 0

    total_started = time.perf_counter()
    roots: dict[str, Path] = {}
    for s in sets:
        started = time.perf_counter()
        roots[s.label] = checkout(s)
        print(f"{s.label}: {s.repo} @ {s.commit[:12]}, {len(s.questions)} questions "
              f"(checkout {time.perf_counter() - started:.1f} s)", flush=True)
    problems = [p for s in sets for p in check_spans(s, roots[s.label])]
    if args.check:
        for s in sets:
            for q in s.questions:
                print(f"\n[{s.label} {q.id}] ({q.style}, {q.kind}) {q.q}")
                for a in q.answers:
                    lines = (roots[s.label] / a.file).read_text(errors="replace").splitlines()
                    first = lines[a.start - 1].strip() if a.start <= len(lines) else "?"
                    print(f"    {a.file}:{a.start}-{a.end}  {first[:100]}")
        warnings = [w for s in sets for w in span_warnings(s, roots[s.label])]
        print("\n" + ("\n".join(problems) if problems else "all answer spans lie inside their files"))
        print("\n".join(warnings) if warnings else "every answer span is one syntax node")
        return 1 if problems else 0
    if problems:
        print("error: answer spans do not fit the checkouts:\n" + "\n".join(problems), file=sys.stderr)
        return 2

    outcomes: dict[str, dict[str, list[Outcome]]] = {}
    timings: dict[str, Any] = {}
    for s in sets:
        started = time.perf_counter()
        print(f"{s.label}: indexing and asking {len(s.questions)} questions …", flush=True)
        outcomes[s.label], timings[s.label] = run_set(s, roots[s.label], not args.no_untuned, args.model)
        timings[s.label]["total_s"] = round(time.perf_counter() - started, 1)
        print(f"{s.label}: {_timing_line(timings[s.label])}", flush=True)
    figures = report(sets, outcomes)
    print_report(sets, figures)
    elapsed = time.perf_counter() - total_started
    print(f"\ntime: {elapsed:.0f} s in all")

    summary = {
        "set": "custom" if args.questions else args.set,
        "repositories": [{"name": s.label, "repo": s.repo, "commit": s.commit, "language": s.language,
                          "questions": len(s.questions), "file": str(s.path.relative_to(HERE.parent))
                          if s.path.is_relative_to(HERE.parent) else str(s.path)} for s in sets],
        "figures": figures, "timings": timings, "seconds": round(elapsed, 1),
    }
    details = {s.label: [{**asdict(q), "results": {m: asdict(o[i]) for m, o in outcomes[s.label].items()}}
                         for i, q in enumerate(s.questions)] for s in sets}
    out = args.json or CORPUS / f"results-{summary['set']}.json"
    for path, data in ((out, {**summary, "questions": details}), (args.summary, summary)):
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
            print(f"results: {path}")
    return 0


def _timing_line(t: dict[str, Any]) -> str:
    d = t["default"]
    parts = [f"{d['chunks']} chunks ({d['chunks_embedded']} embedded now), sync {d['sync_s']:.1f} s",
             f"semantic_search {d['semantic_search_s']:.1f} s", f"query {d['query_s']:.1f} s",
             f"bm25 {t['bm25']['bm25_s']:.1f} s"]
    if "untuned" in t:
        u = t["untuned"]
        parts.append(f"untuned sync {u['sync_s']:.1f} s ({u['chunks_embedded']} embedded), "
                     f"search {u['semantic_search_s']:.1f} s")
    return "; ".join(parts) + f"; {t['total_s']:.0f} s in all"


if __name__ == "__main__":
    sys.exit(main())
