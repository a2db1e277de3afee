"""Tuning pairs beyond the virtualenv's Python docstrings, for benchmarks/tune_model.py.

- JavaScript/TypeScript: packages installed by npm into a scratch folder outside the repository
  (`--npm DIR`, the folder holding package.json and node_modules; only the packages its package.json names
  as dependencies are read, never their transitive dependencies).
- Go: repositories brought as bare git directories (`--go GITDIR@COMMIT`), read at the pinned commit.

Each function whose doc comment (JSDoc/TSDoc `/** */`, Go `//` lines) touches it gives one pair: the
comment's first sentence, and the function's chunk with the comment removed, made into text exactly as the
index does (the index's own chunker, which joins a doc comment to the function it documents).

`question_forms` derives the question-like and keyword-like variants of a doc sentence that
`--queries mixed` trains on, deterministically.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import semantic  # noqa: E402

from code_intel.core.file_roles import file_role
from code_intel.index.chunker import Chunker
from code_intel.index.text import embedding_text
from code_intel.languages.table import language_for

# The question benchmark's repositories (benchmarks/questions/) and their direct ecosystems: never tuned on.
BENCHMARK_SOURCES = ("benoitc/gunicorn", "honojs/", "gin-gonic/", "gin-contrib/", "tornadoweb/", "expressjs/",
                     "pillarjs/", "jshttp/", "go-resty/", "rq/", "sindresorhus/got", "gorilla/")
BENCHMARK_PACKAGES = frozenset({"gunicorn", "hono", "gin", "tornado", "express", "resty", "rq", "got"})
CODE_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".go")
MAX_FILE_BYTES = 300_000  # larger files are bundles of code that also ships unbundled
_NOT_DOC = re.compile(r"^(?:eslint|istanbul|prettier|@ts-|ts-|jshint|global |nolint|go:|\+build|TODO|FIXME|XXX|"
                      r"Deprecated|Copyright|SPDX|Code generated|#__PURE__|c8 |webpack)", re.I)


def refuse_benchmark_source(name: str, repository: str) -> None:
    """Stops the run when a source is one of the question benchmark's repositories or their ecosystem, or a
    repository (by owner/name, or by name alone) that any benchmark here reads."""
    lowered = repository.lower()
    if name.lower().split("/")[-1] in BENCHMARK_PACKAGES or any(b in lowered for b in BENCHMARK_SOURCES):
        raise SystemExit(f"refusing tuning source {name} ({repository}): it belongs to the question benchmark "
                         "(benchmarks/questions/README.md); leave it out")
    import tokenlearn_static  # the benchmarks' own data lists their repositories

    read = tokenlearn_static.benchmark_repositories()
    full = re.sub(r"^(?:git\+)?(?:https?://)?(?:www\.)?github\.com/", "", lowered).removesuffix(".git").strip("/")
    if full in read or name.lower().split("/")[-1] in {b.split("/")[1] for b in read}:
        raise SystemExit(f"refusing tuning source {name} ({repository}): a benchmark here reads it; tune only on "
                         "code that no benchmark uses")


def _doc_split(content: str) -> tuple[list[str], list[str]] | None:
    """(doc comment lines, code lines) of a chunk that opens with a doc comment, else None."""
    lines = content.split("\n")
    first = lines[0].lstrip()
    i = 0
    if first.startswith("/**"):
        while i < len(lines) and "*/" not in lines[i]:
            i += 1
        i += 1
    elif first.startswith("//"):
        while i < len(lines) and lines[i].lstrip().startswith("//"):
            i += 1
    else:
        return None
    code = lines[i:]
    while code and not code[0].strip():
        code.pop(0)
    if i > len(lines) or not code:
        return None
    return lines[:i], code


def comment_sentence(comment: list[str], name: str) -> str:
    """The first sentence of a doc comment's description (JSDoc tags and inline markup dropped); a Go comment's
    leading name ("Get returns ...") is left out, since developers ask without knowing the name."""
    out: list[str] = []
    summary = ""
    for line in comment:
        text = re.sub(r"^\s*(?:/\*\*+|\*/|\*+|//+)", "", line).strip()
        text = text.removesuffix("*/").strip()
        if text.startswith("@summary ") and not summary:
            summary = text.removeprefix("@summary ")
        if text.startswith("@"):
            if out and any(out):
                break
            continue  # tags before the description (date-fns: @name, @category, @summary)
        out.append(text)
    description = "\n".join(out).strip() or summary
    if not description or _NOT_DOC.match(description):
        return ""
    description = re.sub(r"\{@(?:link|linkcode|linkplain) ([^}|\s]+)[^}]*\}", r"\1", description)
    description = description.replace("`", "")
    sentence = semantic.first_sentence(description)
    words = sentence.split()
    if len(words) > 1 and words[0].strip(".,:()") == name:
        words = words[1:]
        if words[0] in ("is", "are"):  # "Foo is a ..." keeps its sense only with a subject
            words = ["This", *words]
        sentence = " ".join(words)
        sentence = sentence[0].upper() + sentence[1:]
    return sentence if len(sentence.split()) >= 4 and "<" not in sentence[:1] else ""


def code_file_pairs(rel: str, text: str, chunker: Chunker) -> list[tuple[str, str, str]]:
    """[(doc sentence, the documented function's chunk text without the comment, and with it as the index makes
    it)] of one JS/TS/Go file."""
    language = language_for(rel)
    if language not in ("javascript", "typescript", "tsx", "go"):
        return []
    pairs = []
    for chunk in chunker.chunk(rel, text, language):
        if chunk.kind != "function":
            continue
        split = _doc_split(chunk.content)
        if split is None:
            continue
        comment, code = split
        sentence = comment_sentence(comment, chunk.symbol.split(".")[-1])
        if not sentence:
            continue
        bare = dataclasses.replace(chunk, content="\n".join(code),
                                   start_line=chunk.start_line + chunk.content.count("\n") - len(code) + 1)
        pairs.append((sentence, embedding_text(bare), embedding_text(chunk)))
    return pairs


def _usable(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return (name.endswith(CODE_SUFFIXES) and not name.endswith((".d.ts", ".d.mts", ".d.cts", ".min.js"))
            and file_role(rel.replace("dist/", "").replace("build/", "")) == "implementation")


def npm_sources(folder: Path) -> list[tuple[str, str, Path]]:
    """[(package, version, package folder)] for the dependencies named in folder/package.json."""
    names = sorted(json.loads((folder / "package.json").read_text())["dependencies"])
    out = []
    for name in names:
        root = folder / "node_modules" / name
        meta = json.loads((root / "package.json").read_text())
        repository = meta.get("repository") or ""
        refuse_benchmark_source(name, repository if isinstance(repository, str) else repository.get("url", ""))
        out.append((name, meta.get("version", "?"), root))
    return out


def npm_files(root: Path) -> Iterator[tuple[str, str]]:
    """(path as package/relative path, text) of a package's own code files; its dist/ and build/ copies only
    when it ships nothing else (they repeat the source, bundled or transpiled)."""
    paths = [(path, path.relative_to(root).as_posix()) for path in sorted(root.rglob("*"))]
    paths = [(path, rel) for path, rel in paths if "node_modules" not in rel.split("/") and _usable(rel)
             and path.is_file() and path.stat().st_size <= MAX_FILE_BYTES]
    source = [(path, rel) for path, rel in paths if not {"dist", "build"} & set(rel.split("/"))]
    for path, rel in source or paths:
        try:
            yield f"{root.name}/{rel}", path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue


def go_files(gitdir: Path, commit: str) -> Iterator[tuple[str, str]]:
    """(path, text) of a repository's Go files at a commit, read from its git directory (no checkout)."""
    listing = subprocess.run(["git", "-C", str(gitdir), "ls-tree", "-r", "-l", commit], check=True,
                             capture_output=True, text=True).stdout
    for line in listing.splitlines():
        meta, rel = line.split("\t", 1)
        size = meta.split()[3]
        if not rel.endswith(".go") or not _usable(rel) or size == "-" or int(size) > MAX_FILE_BYTES:
            continue
        blob = subprocess.run(["git", "-C", str(gitdir), "show", f"{commit}:{rel}"], check=True,
                              capture_output=True).stdout
        try:
            yield rel, blob.decode("utf-8")
        except UnicodeDecodeError:
            continue


def go_source(spec: str) -> tuple[str, str, Path]:
    """`GITDIR@COMMIT` -> (owner/name, commit, git dir); the name comes from the mirror's folder (owner+name)."""
    gitdir, _, commit = spec.rpartition("@")
    if not gitdir or not re.fullmatch(r"[0-9a-f]{40}", commit):
        raise SystemExit(f"--go {spec}: give GITDIR@COMMIT with the full 40-digit commit")
    path = Path(gitdir)
    folder = path.parent.name if path.name == "repo" else path.name
    name = folder.replace("+", "/")
    refuse_benchmark_source(name, f"github.com/{name}")
    return name, commit, path


SOURCES = Path(__file__).resolve().parent / "tune_sources.json"
MIRROR = Path(os.environ.get("CODE_INTEL_MIRROR", "/work/.mirror"))


def listed_sources(file: Path, npm: Path | None, mirror: Path = MIRROR) -> list[str]:
    """The Go sources of a sources file ({"npm": {name: version}, "go": {owner/name: commit}}) as `--go` specs
    in the local mirror; the npm folder, when given, must hold exactly the listed packages and versions."""
    listed = json.loads(file.read_text())
    if npm is not None:
        installed = {name: version for name, version, _ in npm_sources(npm)}
        if installed != listed["npm"]:
            differ = sorted(set(installed.items()) ^ set(listed["npm"].items()))
            raise SystemExit(f"{npm} does not hold the packages {file.name} lists: {differ}; install them with "
                             "npm install --ignore-scripts name@version ...")
    return [f"{mirror / name.replace('/', '+') / 'repo'}@{commit}" for name, commit in listed["go"].items()]


def code_pairs(npm: Path | None, go: list[str], per_package: int, banned: set[str],
               seed: int) -> tuple[dict[str, list[str]], list[str]]:
    """Pairs from the npm packages and Go repositories, at most `per_package` from each (files in a seeded
    random order, one pair per distinct chunk text), plus a line per source saying what it is and gave."""
    rng = random.Random(seed)
    chunker = Chunker(512)
    sources: list[tuple[str, str, Iterator[tuple[str, str]]]] = []
    if npm is not None:
        sources += [(f"npm:{name}", version, npm_files(root)) for name, version, root in npm_sources(npm)]
    for spec in go:
        name, commit, gitdir = go_source(spec)
        sources.append((f"go:{name}", commit, go_files(gitdir, commit)))
    data: dict[str, list[str]] = {"queries": [], "documents": [], "packages": [], "files": [], "documented": []}
    report = []
    for package, version, files in sources:
        listed = list(files)
        rng.shuffle(listed)
        seen: set[str] = set()
        taken = 0
        for rel, text in listed:
            if taken >= per_package:
                break
            for sentence, document, documented in code_file_pairs(rel, text, chunker):
                if taken >= per_package or sentence.lower() in banned or document in seen:
                    continue
                seen.add(document)
                data["queries"].append(sentence)
                data["documents"].append(document)
                data["documented"].append(documented)
                data["packages"].append(package)
                data["files"].append(rel)
                taken += 1
        report.append(f"{package} {version}: {taken} pairs from {len(listed)} files")
    return data, report


# ---------------------------------------------------------------- question-like queries
_VERBS = set("""
abort accept acquire add adjust allocate allow append apply assert assign attach attempt await bind build cache
calculate call cancel capture change check clean cleanup clear clone close collect combine compare compile compose
compute configure connect construct consume convert copy count create decode decrement define delete deserialize
destroy detach detect determine disable dispatch display drain draw drop emit enable encode end ensure enqueue
escape evaluate execute expand export extend extract fetch fill filter finalize find finish flatten flush format
generate get handle hash hide ignore implement import increment initialize init insert install intercept invoke
iterate join keep limit list listen load lock log look lookup make map mark match measure merge mount move
normalize notify open order parse pass patch perform pick pipe poll pop populate prepare prepend print process
produce publish push put query queue raise read receive record redirect reduce refresh register reject release
reload remove rename render replace report request reset resolve restore retrieve retry return reuse run sanitize
save scan schedule search select send serialize serve set setup show sign skip sort split start stop store
stream strip subscribe swap sync take terminate test throw toggle track transform translate traverse trigger trim
truncate try unescape unlock unmount unregister unsubscribe unwrap update upload use validate verify visit wait
walk watch wrap write yield
""".split())
_STOP = set("""
a an the of to for in on and or is are be been being by with from this that these those it its as at if when
whether which into onto given specified provided any all each every some such than then there their our your
not no only also so do does can could may might should would will shall must has have had was were
""".split())
_QUESTION_TEMPLATES = ("how does it {v} {r}", "how to {v} {r}", "where is the code that {v3} {r}",
                       "which function {v3} {r}")
_RETURN_TEMPLATES = ("how is {r} computed", "where does {r} come from", "which function returns {r}",
                     "how do I get {r}")


def _base(word: str) -> str | None:
    """The bare verb of `word` ("Returns" -> "return", "Applies" -> "apply") when it is one we know."""
    w = word.lower()
    candidates = [w]
    if w.endswith("ies"):
        candidates.append(w[:-3] + "y")
    if w.endswith("es"):
        candidates.append(w[:-2])
    if w.endswith("s") and not w.endswith("ss"):
        candidates.append(w[:-1])
    return next((c for c in candidates if c in _VERBS), None)


def _third(verb: str) -> str:
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    return verb + "s"


def question_forms(sentence: str) -> dict[str, str]:
    """Keyword-like and question-like variants of a doc sentence, deterministic for a given sentence:
    "Returns the charset of the response." -> keywords "charset response", question e.g. "how is the charset
    of the response computed". A sentence that opens with no verb we know gets only the keyword form."""
    text = sentence.strip().rstrip(".!?:;").strip()
    words = text.split()
    forms: dict[str, str] = {}
    if len(words) < 2:
        return forms
    verb = _base(words[0].strip(",:"))
    rest_words = words[1:] if verb else words
    rest = " ".join(rest_words)
    if rest and rest.split()[0][1:].islower():  # "The ..." -> "the ...", but "HTTP", "ValuesExtractors" stay
        rest = rest[0].lower() + rest[1:]
    keep = [re.sub(r"[^\w.-]", "", w).lower() for w in rest_words]
    keep = [w for w in keep if w and w not in _STOP]
    if verb and verb not in ("return", "get"):
        keep.insert(0, verb)
    keywords = " ".join(dict.fromkeys(keep).keys()).split()[:8]
    if len(keywords) >= 2:
        forms["keywords"] = " ".join(keywords)
    if verb:
        pick = random.Random(text.lower()).randrange(4)
        templates = _RETURN_TEMPLATES if verb in ("return", "get") else _QUESTION_TEMPLATES
        forms["question"] = templates[pick].format(v=verb, v3=_third(verb), r=rest)
    return forms


def mix_queries(sentences: list[str], shares: tuple[float, float], seed: int) -> tuple[list[str], list[str]]:
    """Each sentence replaced by its keyword form with probability shares[0], by its question form with
    shares[1] (when it has that form), else kept; seeded, so a run is repeatable. Returns the queries and
    which form each one is ("sentence", "keywords" or "question")."""
    rng = random.Random(seed)
    queries, kinds = [], []
    for sentence in sentences:
        forms = question_forms(sentence)
        draw = rng.random()
        kind = "sentence"
        if draw < shares[0] and "keywords" in forms:
            kind = "keywords"
        elif shares[0] <= draw < shares[0] + shares[1] and "question" in forms:
            kind = "question"
        queries.append(forms.get(kind, sentence))
        kinds.append(kind)
    return queries, kinds
