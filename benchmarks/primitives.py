"""sverklo's bench:primitives (180 code-navigation tasks) against code-intel's stdio server, beside raw rg/ctags.

The task data is in ../shared/benchmarks/sverklo/ (CC-BY-4.0; its README names the source, the pinned trees and
the known flaws of the truth). Five of the six datasets are declared there as symbol lists; their expected answers
are made here the way sverklo's generators make them (the same grep command lines, run on the pinned tree), and the
sixth (sverklo's own code) is a static file. Scoring follows sverklo's `benchmark/src/runner/score.ts`:

- P1 (definition): a hit when any predicted (file, line) is within 3 lines of the expected one; F1 is 1 or 0.
- P2 (references): bag of (file, line), deduplicated, 2 lines' tolerance; recall over the expected, precision over
  the predicted.
- P4 (file dependencies): two sets, imports and importers, paths normalised (leading ./ and .js/.ts dropped);
  recall and precision are the means of the two sides'.
- P5 (dead code): a set of names; an empty expected set scores 1.0 for an empty answer and 0.0 for anything else.

Tokens per task are ceil(chars / 3.5) of the tool payloads the agent reads (the benchmark's estimator).

code-intel is driven as an agent would drive it, through the `mcp` package's stdio client against
`code_intel_server.py --project <tree>`, with the fewest calls a careful agent makes per task:
P1 `find_definitions(symbol)`, P2 `find_references(symbol)`, P4 `analyze_structure(path, parts=["imports"])` (the
project files each import names) and `analyze_impact(files=[path])`
(the importers), P5 `get_symbols(".", unused=true)` when that option exists (otherwise no answer, which the
benchmark scores 1.0 on an empty truth). The same tasks are answered by raw `rg -w` / `ctags` in the same run and scored the same way.
code-intel is scored twice: on its whole answers (as sverklo's harness scores its own tool) and on the answers read
within the folders the truth covers (`in_scope`: hits in tests or docs are references, but not ones the truth counts).

Run: .venv/bin/python benchmarks/primitives.py [--corpora /work/corpora] [--only express,lodash] [--json out.json]
The pinned trees are expected under --corpora as sv-<dataset> (sv-sverklo-p5 for sverklo's P5 tree); the script
prints the git commands that make them when one is missing.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import dataclasses
import json
import math
import os
import posixpath
import re
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "benchmarks" / "sverklo"
if not DATA.exists():
    DATA = Path("/work/shared/benchmarks/sverklo")
CATEGORIES = ("P1", "P2", "P4", "P5")


# ----------------------------------------------------------------------------------------------- the tasks
@dataclass
class Task:
    id: str
    category: str
    dataset: str
    query: str
    expected: dict[str, Any]
    root: Path


def _grep_lines(root: Path, command: str) -> list[str]:
    """One of the generators' grep command lines, run by bash in the tree as they run it."""
    out = subprocess.run(["bash", "-c", command], cwd=root, capture_output=True, text=True, check=False).stdout
    return [line for line in out.split("\n") if line]


_HIT = re.compile(r"^(.+?):(\d+):(.*)$")


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _grep(root: Path, pattern: str, paths: list[str], include: str, excludes: list[str]) -> list[tuple[str, int, str]]:
    """The generators' grep(): `grep -rnE` per path; the `file:line:text` lines parsed with their regex (so a
    one-file grep, which prints no file name, mostly yields nothing: a known flaw of the truth, kept)."""
    hits = []
    for p in paths:
        if not (root / p).exists():
            continue
        excl = " ".join(f"--exclude-dir={d}" for d in excludes)
        for line in _grep_lines(root, f"grep -rnE --include='{include}' {excl} {_quote(pattern)} {_quote(p)} 2>/dev/null || true"):
            m = _HIT.match(line)
            if m:
                hits.append((m.group(1), int(m.group(2)), m.group(3)))
    return hits


def _escape(name: str) -> str:
    return re.sub(r"([.*+?^${}()|\[\]\\])", r"\\\1", name)


def _js_imports(content: str, file: str) -> list[str]:
    """naive-grep.ts extractImports: relative ES imports and requires, joined to the file's folder."""
    seen: list[str] = []
    for pattern in (r"(?:^|\n)\s*import\s+(?:[^'\"]*?from\s+)?['\"]([^'\"]+)['\"]", r"require\(\s*['\"]([^'\"]+)['\"]\s*\)"):
        for m in re.finditer(pattern, content):
            spec = m.group(1)
            if not spec.startswith("."):
                continue
            resolved = posixpath.normpath(posixpath.join(posixpath.dirname(file), spec))
            resolved = re.sub(r"\.ts$", "", re.sub(r"\.js$", "", resolved))
            if resolved not in seen:
                seen.append(resolved)
    return seen


def _py_imports(content: str, file: str) -> list[str]:
    """The Python generators' extractPythonImports: `from .x import` / `from .x.y import` only."""
    out: list[str] = []
    folder = re.sub(r"/[^/]+$", "", file)
    for m in re.finditer(r"^from\s+(\.[\w.]*)\s+import", content, re.M):
        dotted = m.group(1)
        rel = dotted[1:].replace(".", "/")
        if dotted == "." or not rel:
            continue
        resolved = f"{folder}/{rel}.py"
        if resolved not in out:
            out.append(resolved)
    return out


def _tasks_generated(name: str, spec: dict[str, Any], root: Path) -> list[Task]:
    prefix, lang, paths = spec["prefix"], spec["lang"], spec["gt_paths"]
    tasks: list[Task] = []

    def add(cat: str, i: int, query: str, expected: dict[str, Any]) -> None:
        tasks.append(Task(f"{prefix}-{cat.lower()}-{i:02d}", cat, name, query, expected, root))

    js_excludes = ["node_modules"] if name == "express" else ["node_modules", "test", "dist"]
    for i, p1 in enumerate(spec["p1"], 1):
        if len(p1) == 3:  # static (file, line)
            add("P1", i, p1[0], {"kind": "locations", "locations": [{"file": p1[1], "line": p1[2]}]})
            continue
        e = _escape(p1[0])
        patterns = [rf"^\s*function\s+{e}\s*\(", rf"^\s*exports\.{e}\s*=", rf"^\s*module\.exports\s*=\s*function\s+{e}\b",
                    rf"^\s*module\.exports\.{e}\s*=", rf"^\s*var\s+{e}\s*=\s*function", rf"^\s*{e}\s*:\s*function"]
        loc = next(([{"file": h[0], "line": h[1]}] for pat in patterns
                    for h in _grep(root, pat, paths, "*.js", js_excludes)[:1]), [])
        add("P1", i, p1[0], {"kind": "locations", "locations": loc})
    for i, sym in enumerate(spec["p2"], 1):
        e = _escape(sym)
        if lang == "py":
            hits = _grep(root, rf"\b{e}\b", paths[:1], "*.py", ["__pycache__"])
            def_re = re.compile(spec["p2_def_re"].replace("{n}", e))
            kept = [h for h in hits if not def_re.search(h[2])]
        else:
            hits = _grep(root, rf"\b{e}\b", paths, "*.js", js_excludes)
            if name == "lodash":
                def_re = re.compile(rf"(function\s+{e}\b|var\s+{e}\s*=|^{e}:)")
            else:
                def_re = re.compile(rf"(function\s+{e}\b|exports\.{e}\s*=|var\s+{e}\s*=)")
            kept = [h for h in hits if not def_re.search(h[2])]
        add("P2", i, sym, {"kind": "locations", "locations": [{"file": f, "line": n} for f, n, _ in kept]})
    for i, file in enumerate(spec["p4"], 1):
        content = (root / file).read_text(encoding="utf-8", errors="replace")
        base = re.sub(r"\.(js|ts|mjs|cjs|py)$", "", file).split("/")[-1]
        if lang == "py":
            imports = _py_imports(content, file)
            pattern = rf"from \.\.\?{base} import\|from \.\.\?[a-zA-Z_]\+\.{base} import"
            lines = _grep_lines(root, f"grep -rln --include='*.py' --exclude-dir=__pycache__ {_quote(pattern)} "
                                      f"{paths[0]}/ 2>/dev/null || true")
        else:
            imports = _js_imports(content, file)
            excl = " ".join(f"--exclude-dir={d}" for d in (["node_modules", "test"] if name == "express"
                                                           else ["node_modules", "test", "dist"]))
            lines = _grep_lines(root, f"grep -rln --include='*.js' {excl} {_quote('require.*' + base)} . "
                                      "2>/dev/null || true")
        importers = []
        for line in lines:
            p = re.sub(r"^\./", "", line).strip()
            if p and p != file and p not in importers:
                importers.append(p)
        add("P4", i, file, {"kind": "deps", "imports": imports, "importers": importers})
    for i in range(1, 6):
        add("P5", i, "", {"kind": "names", "names": list(spec["p5"])})
    return tasks


# ----------------------------------------------------------------------------------------------- corrected truth
def _py_files(root: Path, package: str) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in (root / package).rglob("*.py") if "__pycache__" not in p.parts)


def _py_module_file(root: Path, parts: list[str]) -> str | None:
    """The file a dotted module names in the tree (module.py, or the package's __init__.py), tried at the root
    and under src/."""
    for top in ([], ["src"]):
        base = "/".join(top + parts)
        if base and (root / f"{base}.py").is_file():
            return f"{base}.py"
        if base and (root / base / "__init__.py").is_file():
            return f"{base}/__init__.py"
    return None


def _py_imported_files(root: Path, file: str, tree: ast.Module) -> list[str]:
    """The project files `file` imports, resolved as Python resolves them: relative imports against the
    package, absolute ones against the tree, `from pkg import mod` to the submodule when mod is one."""
    package = file.split("/")[:-1]
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bases = [alias.name.split(".") for alias in node.names]
            names: list[str] = []
        elif isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".") if node.module else []
            if node.level:
                up = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                parts = up + parts
            bases = [parts]
            names = [alias.name for alias in node.names]
        else:
            continue
        for base in bases:
            subs = [_py_module_file(root, [*base, name]) if base else None for name in names]
            # `from pkg import mod` imports the submodule; the package itself only for the names that are not one
            wanted = [*(s for s in subs if s), *([_py_module_file(root, base)] if base and not all(subs) else [])]
            for target in wanted:
                if target and target != file and target not in out:
                    out.append(target)
    return out


def _js_code_references(task: Task, spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The benchmark's JS reference grep with its two flaws taken out, by plain text rules (no parser of ours):
    a one-file path (lodash.js, index.js) is grepped with its file name (-H), and a hit counts only where the name
    is written outside comments and quoted strings on its line (a line opening with `*`, `//` or `/*` is a
    comment; `'merge-descriptors'` is a string)."""
    name = _escape(task.query)
    excludes = "--exclude-dir=node_modules" + ("" if task.dataset == "express" else " --exclude-dir=test --exclude-dir=dist")
    defs = (rf"(function\s+{name}\b|var\s+{name}\s*=|^{name}:)" if task.dataset == "lodash"
            else rf"(function\s+{name}\b|exports\.{name}\s*=|var\s+{name}\s*=)")
    word = re.compile(rf"(?<![\w$]){name}(?![\w$])")
    pattern = _quote(rf"\b{name}\b")
    out = []
    for p in spec["gt_paths"]:
        if not (task.root / p).exists():
            continue
        for line in _grep_lines(task.root, f"grep -rnHE --include='*.js' {excludes} {pattern} "
                                           f"{_quote(p)} 2>/dev/null || true"):
            m = _HIT.match(line)
            if not m or re.search(defs, m.group(3)) or re.match(r"\s*(\*|//|/\*)", m.group(3)):
                continue
            code = re.sub(r"//.*$", "", re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "''", m.group(3)))
            if word.search(code):
                out.append({"file": m.group(1), "line": int(m.group(2))})
    return out


# Dead code in the pinned trees that the benchmark's empty P5 truth leaves out, each checked by hand: `rg -w NAME`
# over the whole tree prints its definition line and nothing else.
DEAD_BY_HAND = {
    "flask": ["_path_is_ancestor"],  # src/flask/cli.py:680, a private helper nothing calls
    "lodash": ["isHostType"],  # perf/perf.js:167, a function of the perf script nothing calls
    # sverklo's P5 tree (132e858): `rg -w NAME --glob '!node_modules'` prints the definition only (for
    # truncateToTokenBudget, also an older copy of the benchmark's own task file naming it as an answer). Left out of
    # the curated six: importGitLog, defaultEdgeKindFor and detectCycles, exported but called in their own file (an
    # export nothing imports is not dead code); left out of these: `deactivate`, which VS Code calls on an extension.
    "sverklo": ["truncateToTokenBudget", "diffCommandWorks", "classifyVerify", "hashFile", "displayPurpose",
                "installSkills", "FileWithChunks", "crossIndex"],
}


def corrected_truth(tasks: list[Task], corpora: Path) -> dict[str, dict[str, Any]]:
    """Where the benchmark's truth is wrong by construction, a second truth in the benchmark's own scope, made
    without code-intel's parsers. Python (with Python's own `ast`): P2 counts the name where code uses it (names,
    attributes, imports; not docstrings or comments), definitions left out; P4 resolves every import as Python
    does (relative and absolute, `from . import x`). JavaScript: P2 as _js_code_references. P5: DEAD_BY_HAND.
    P1 and P4 of JS keep the benchmark's truth."""
    declared = json.loads((DATA / "tasks.json").read_text(encoding="utf-8"))
    out: dict[str, dict[str, Any]] = {}
    parsed: dict[tuple[Path, str], ast.Module] = {}

    def tree_of(root: Path, rel: str) -> ast.Module:
        if (root, rel) not in parsed:
            parsed[(root, rel)] = ast.parse((root / rel).read_text(encoding="utf-8", errors="replace"))
        return parsed[(root, rel)]

    for t in tasks:
        spec = declared.get(t.dataset, {})
        if t.category == "P5" and t.dataset in DEAD_BY_HAND:
            out[t.id] = {"kind": "names", "names": DEAD_BY_HAND[t.dataset]}
            continue
        if spec.get("lang") == "js" and t.category == "P2":
            out[t.id] = {"kind": "locations", "locations": _js_code_references(t, spec)}
            continue
        if spec.get("lang") != "py" or t.category not in ("P2", "P4"):
            continue
        package = spec["gt_paths"][0]
        files = _py_files(t.root, package)
        if t.category == "P2":
            locs: list[dict[str, Any]] = []
            for rel in files:
                for node in ast.walk(tree_of(t.root, rel)):
                    line = None
                    if isinstance(node, ast.Name) and node.id == t.query:
                        line = node.lineno
                    elif isinstance(node, ast.Attribute) and node.attr == t.query:
                        line = node.end_lineno
                    elif isinstance(node, ast.alias) and (node.asname == t.query or
                                                          node.name.split(".")[-1] == t.query):
                        line = node.lineno
                    if line is not None and {"file": rel, "line": line} not in locs:
                        locs.append({"file": rel, "line": line})
            out[t.id] = {"kind": "locations", "locations": locs}
        else:
            imports = _py_imported_files(t.root, t.query, tree_of(t.root, t.query))
            importers = [rel for rel in files if rel != t.query
                         and t.query in _py_imported_files(t.root, rel, tree_of(t.root, rel))]
            out[t.id] = {"kind": "deps", "imports": imports, "importers": importers}
    return out


def in_scope(task: Task, answer: Answer) -> Answer:
    """The answer as read within the scope the benchmark's truth covers: its reference hits (P2) and importers (P4)
    in the folders the generators grep (`gt_paths`; P4 importers of JS: the tree less node_modules, test, dist),
    the rest dropped. sverklo's harness scores the whole answer; an agent told the question is about the library's
    own code reads only these (find_references marks each file's role; `path` or `role` asks for them alone)."""
    spec = json.loads((DATA / "tasks.json").read_text(encoding="utf-8")).get(task.dataset, {})
    paths = spec.get("gt_paths", [])
    if spec.get("lang") == "py":
        paths = paths[:1]

    def inside(file: str) -> bool:
        return any(file == p or file.startswith(p.rstrip("/") + "/") for p in paths)

    predicted = dict(answer.predicted)
    if task.category == "P2":
        predicted["locations"] = [x for x in predicted.get("locations", []) if inside(x["file"])]
    elif task.category == "P4":
        if spec.get("lang") == "js":
            skip = ("node_modules", "test") if task.dataset == "express" else ("node_modules", "test", "dist")
            predicted["importers"] = [f for f in predicted.get("importers", []) if f.split("/")[0] not in skip]
        elif spec.get("lang") == "py":
            predicted["importers"] = [f for f in predicted.get("importers", []) if inside(f)]
    return dataclasses.replace(answer, predicted=predicted)


def load_tasks(corpora: Path, only: set[str] | None) -> list[Task]:
    declared = json.loads((DATA / "tasks.json").read_text(encoding="utf-8"))
    tasks: list[Task] = []
    for name, spec in declared.items():
        if name.startswith("_") or (only and name not in only):
            continue
        if name == "sverklo":
            for line in (DATA / spec["jsonl"]).read_text(encoding="utf-8").splitlines():
                raw = json.loads(line)
                root = corpora / ("sv-sverklo-p5" if raw["category"] == "P5" else "sv-sverklo")
                tasks.append(Task(raw["id"], raw["category"], name, raw["query"], raw["expected"], root))
        else:
            tasks.extend(_tasks_generated(name, spec, corpora / f"sv-{name}"))
    return tasks


def check_trees(corpora: Path, only: set[str] | None) -> list[str]:
    declared = json.loads((DATA / "tasks.json").read_text(encoding="utf-8"))
    missing = []
    for name, spec in declared.items():
        if name.startswith("_") or (only and name not in only):
            continue
        trees = ({"sv-sverklo": spec["ref_by_category"]["P1"], "sv-sverklo-p5": spec["ref_by_category"]["P5"]}
                 if name == "sverklo" else {f"sv-{name}": spec["commit"]})
        for folder, commit in trees.items():
            if not (corpora / folder).is_dir():
                owner = spec["repo"].replace("/", "+")
                missing.append(f"mkdir -p {corpora / folder} && git --git-dir=/work/.mirror/{owner}/repo archive "
                               f"{commit} | tar -x -C {corpora / folder}   # after fetch github:{spec['repo']}")
    return missing


# ----------------------------------------------------------------------------------------------- scoring
def norm_path(p: str) -> str:
    p = re.sub(r"^\./", "", p)
    p = re.sub(r"^/+", "", p).replace("\\", "/")
    return re.sub(r"\.(ts|tsx|js|jsx|mjs|cjs)$", "", p)


def _set_score(pred: set[str], exp: set[str]) -> tuple[float, float]:
    if not exp and not pred:
        return 1.0, 1.0
    if not exp:
        return 1.0, 0.0
    if not pred:
        return 0.0, 0.0
    tp = len(pred & exp)
    return tp / len(exp), tp / len(pred)


def score(task: Task, predicted: dict[str, Any]) -> float:
    exp = task.expected
    recall = precision = 0.0
    if exp["kind"] == "locations":
        tol = 3 if task.category == "P1" else 2
        exp_locs = [(norm_path(x["file"]), x["line"]) for x in exp["locations"]]
        pred_locs = list(dict.fromkeys((norm_path(x["file"]), x["line"]) for x in predicted.get("locations", [])))

        def same(a: tuple[str, int], b: tuple[str, int]) -> bool:
            return a[0] == b[0] and abs(a[1] - b[1]) <= tol

        if task.category == "P1":
            hit = any(same(p, e) for p in pred_locs for e in exp_locs)
            recall = 1.0 if hit else 0.0
            precision = 0.0 if not pred_locs else (1.0 if hit else 0.0)
        else:
            matched = sum(1 for e in exp_locs if any(same(p, e) for p in pred_locs))
            correct = sum(1 for p in pred_locs if any(same(p, e) for e in exp_locs))
            recall = 1.0 if not exp_locs else matched / len(exp_locs)
            precision = 0.0 if not pred_locs else correct / len(pred_locs)
    elif exp["kind"] == "deps":
        r1, p1 = _set_score({norm_path(x) for x in predicted.get("imports", [])}, {norm_path(x) for x in exp["imports"]})
        r2, p2 = _set_score({norm_path(x) for x in predicted.get("importers", [])},
                            {norm_path(x) for x in exp["importers"]})
        recall, precision = (r1 + r2) / 2, (p1 + p2) / 2
    else:
        recall, precision = _set_score(set(predicted.get("names", [])), set(exp["names"]))
    return 0.0 if recall + precision == 0 else 2 * recall * precision / (recall + precision)


def tokens(payload: str) -> int:
    return math.ceil(len(payload) / 3.5) if payload else 0


@dataclass
class Answer:
    predicted: dict[str, Any]
    payload: str
    calls: int
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


# ----------------------------------------------------------------------------------------------- code-intel
def _resolve_spec(file: str, module: str, root: Path) -> str | None:
    """What an agent reading an import line concludes it names in the project: a relative JS specifier joined to
    the file's folder; a relative Python module to the package; an absolute Python module to its file in the tree."""
    if file.endswith(".py"):
        m = re.match(r"^(\.*)([\w.]*)$", module)
        if not m:
            return None
        dots, dotted = m.group(1), m.group(2)
        if dots:
            base = PurePosixPath(file).parent
            for _ in range(len(dots) - 1):
                base = base.parent
            target = base.joinpath(*dotted.split(".")) if dotted else base
        else:
            target = None
            for top in ("", "src/"):
                cand = PurePosixPath(top + dotted.replace(".", "/"))
                if (root / cand).with_suffix(".py").exists() or (root / cand / "__init__.py").exists():
                    target = cand
                    break
            if target is None:
                return None
        t = str(target)
        if (root / (t + ".py")).exists():
            return t + ".py"
        if (root / t / "__init__.py").exists():
            return t + "/__init__.py"
        return None
    if not module.startswith("."):
        return None
    return posixpath.normpath(posixpath.join(posixpath.dirname(file), module))


def _json_of(result: Any) -> tuple[str, dict[str, Any]]:
    import mcp_types as types

    text = "".join(part.text for part in result.content if isinstance(part, types.TextContent))
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = {}
    return text, data


def _locations(items: Any) -> list[dict[str, Any]]:
    """The (file, line) pairs of an answer, in the flat shape (items with file and line) or grouped by file
    ({"file": f, "lines": [...]} / {"file": f, "hits": [{"line": n}]})."""
    out: list[dict[str, Any]] = []
    for item in items or []:
        if not isinstance(item, dict) or "file" not in item:
            continue
        if "line" in item:
            out.append({"file": item["file"], "line": item["line"]})
        for n in item.get("lines") or []:
            out.append({"file": item["file"], "line": n if isinstance(n, int) else n.get("line")})
        for hit in item.get("hits") or []:
            out.append({"file": item["file"], "line": hit if isinstance(hit, int) else hit.get("line")})
    return out


async def code_intel_answers(tasks: list[Task], python: str) -> dict[str, Answer]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    answers: dict[str, Answer] = {}
    by_root: dict[Path, list[Task]] = defaultdict(list)
    for t in tasks:
        by_root[t.root].append(t)
    for root, group in by_root.items():
        params = StdioServerParameters(command=python, args=[str(REPO / "code_intel_server.py"), "--project", str(root)],
                                       cwd=str(root), env={**os.environ, "CODE_INTEL_QUIET": "1"})
        async with Client(params, read_timeout_seconds=300) as client:
            listing = await client.list_tools()
            schemas = {t.name: t.input_schema for t in listing.tools}

            async def call(tool: str, args: dict[str, Any], known: dict[str, Any] = schemas) -> tuple[str, dict[str, Any]]:
                accepted = set(known[tool].get("properties", {}))
                return _json_of(await client.call_tool(tool, {k: v for k, v in args.items() if k in accepted}))

            for t in group:
                started = time.perf_counter()
                if t.category == "P1":
                    text, data = await call("find_definitions", {"symbol": t.query})
                    ans = Answer({"locations": _locations(data.get("definitions"))}, text, 1)
                elif t.category == "P2":
                    text, data = await call("find_references", {"symbol": t.query})
                    refs = [r for r in (data.get("references") or []) if not r.get("is_definition")]
                    # grouped by file: the listed lines, less those that define the name
                    refs += [{"file": f["file"], "line": n} for f in data.get("files") or []
                             for n in f.get("lines") or [] if n not in (f.get("definitions") or [])]
                    ans = Answer({"locations": _locations(refs)}, text, 1)
                elif t.category == "P4":
                    text1, data1 = await call("analyze_structure", {"path": t.query, "parts": ["imports"]})
                    imports = []
                    for imp in data1.get("imports") or []:
                        # the server's resolution when it gives one, else the agent's reading of the specifier
                        resolved = (imp["targets"] if "targets" in imp else
                                    [r] if (r := _resolve_spec(t.query, imp.get("module", ""), root)) else [])
                        for target in resolved:
                            if target not in imports and norm_path(target) != norm_path(t.query):
                                imports.append(target)
                    text2, data2 = await call("analyze_impact", {"files": [t.query]})
                    if "importers" in data2:
                        importers = [i["file"] for i in (data2.get("importers") or [])]
                    else:  # the older answer: importers are the dependents and tests whose reason is "imports ..."
                        importers = [d["file"] for g in ("dependents", "tests") for d in (data2.get(g) or [])
                                     if str(d.get("reason", "")).startswith("imports ")]
                    importers = list(dict.fromkeys(importers))
                    ans = Answer({"imports": imports, "importers": importers}, text1 + text2, 2)
                else:
                    if "unused" in schemas["get_symbols"].get("properties", {}):
                        text, data = await call("get_symbols", {"path": ".", "unused": True})
                        ans = Answer({"names": [u["name"] for u in data.get("unused") or []]}, text, 1)
                    else:
                        ans = Answer({"names": []}, "", 0, notes=["no dead-code tool: no answer"])
                ans.seconds = time.perf_counter() - started
                answers[t.id] = ans
    return answers


# ----------------------------------------------------------------------------------------------- rg -w / ctags
def _tool(name: str) -> str:
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else (shutil.which(name) or name)


_CTAGS_CACHE: dict[Path, dict[str, list[str]]] = {}


def _ctags(root: Path) -> dict[str, list[str]]:
    if root not in _CTAGS_CACHE:
        out = subprocess.run([_tool("ctags"), "-R", "-n", "-f", "-", "--exclude=node_modules", "--exclude=.git",
                              "--exclude=.code-intel", "."], cwd=root, capture_output=True, text=True, check=False).stdout
        tags: dict[str, list[str]] = defaultdict(list)
        for line in out.splitlines():
            tags[line.split("\t", 1)[0]].append(line)
        _CTAGS_CACHE[root] = tags
    return _CTAGS_CACHE[root]


def raw_answers(tasks: list[Task]) -> dict[str, Answer]:
    """What an agent gets from the raw tools: ctags' tag lines of the name (P1); `rg -w -n` over the tree (P2); the
    file's import lines and `rg -l -w` of its base name (P4); nothing for P5."""
    rg = _tool("rg")
    answers: dict[str, Answer] = {}
    for t in tasks:
        started = time.perf_counter()
        if t.category == "P1":
            lines = _ctags(t.root).get(t.query, [])
            locs = []
            for line in lines:
                parts = line.split("\t")
                m = re.match(r"(\d+)", parts[2]) if len(parts) > 2 else None
                if m:
                    locs.append({"file": re.sub(r"^\./", "", parts[1]), "line": int(m.group(1))})
            ans = Answer({"locations": locs}, "\n".join(lines), 1)
        elif t.category == "P2":
            out = subprocess.run([rg, "-w", "-n", "--no-heading", "--", t.query, "."], cwd=t.root, capture_output=True,
                                 text=True, check=False).stdout
            locs = []
            for line in out.splitlines():
                m = _HIT.match(line)
                if m:
                    locs.append({"file": re.sub(r"^\./", "", m.group(1)), "line": int(m.group(2))})
            ans = Answer({"locations": locs}, out, 1)
        elif t.category == "P4":
            src = subprocess.run([rg, "-n", r"^\s*(import|from)\s|require\(", t.query], cwd=t.root,
                                 capture_output=True, text=True, check=False).stdout
            imports = []
            for line in src.splitlines():
                m = (re.search(r"require\(\s*['\"]([^'\"]+)['\"]", line) or re.search(r"from\s+['\"]([^'\"]+)['\"]", line)
                     or re.search(r"^\d+:\s*from\s+([\w.]+)\s+import", line) or re.search(r"^\d+:\s*import\s+([\w.]+)", line))
                if m:
                    resolved = _resolve_spec(t.query, m.group(1), t.root)
                    if resolved and resolved not in imports:
                        imports.append(resolved)
            base = Path(t.query).stem
            if base == "__init__":
                base = Path(t.query).parent.name
            found = subprocess.run([rg, "-l", "-w", "--", base, "."], cwd=t.root, capture_output=True, text=True,
                                   check=False).stdout
            importers = [re.sub(r"^\./", "", f) for f in found.splitlines() if re.sub(r"^\./", "", f) != t.query]
            ans = Answer({"imports": imports, "importers": importers}, src + found, 2)
        else:
            ans = Answer({"names": []}, "", 0)
        ans.seconds = time.perf_counter() - started
        answers[t.id] = ans
    return answers


# ----------------------------------------------------------------------------------------------- report
def summarise(tasks: list[Task], answers: dict[str, Answer]) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    groups: dict[tuple[str, str], list[tuple[float, int, int]]] = defaultdict(list)
    per_task = {}
    for t in tasks:
        a = answers[t.id]
        f1, tok = score(t, a.predicted), tokens(a.payload)
        per_task[t.id] = {"f1": round(f1, 3), "tokens": tok, "calls": a.calls, "s": round(a.seconds, 3)}
        for key in ((t.dataset, t.category), (t.dataset, "all"), ("all", t.category), ("all", "all")):
            groups[key].append((f1, tok, a.calls))
    for (ds, cat), vals in groups.items():
        rows.setdefault(ds, {})[cat] = {"F1": round(sum(v[0] for v in vals) / len(vals), 2),
                                        "tokens": round(sum(v[1] for v in vals) / len(vals)),
                                        "calls": round(sum(v[2] for v in vals) / len(vals), 1), "n": len(vals)}
    return {"summary": rows, "tasks": per_task}


def print_table(results: dict[str, dict[str, Any]], published: dict[str, Any]) -> None:
    names = list(results)
    datasets = [d for d in ("express", "lodash", "requests", "flask", "fastapi", "sverklo", "all")
                if d in results[names[0]]["summary"]]
    print(f"{'dataset':9} {'cat':4} " + " ".join(f"{n + ' F1':>22} {'tok':>6}" for n in names))
    for ds in datasets:
        for cat in (*CATEGORIES, "all"):
            cells = []
            for n in names:
                row = results[n]["summary"].get(ds, {}).get(cat)
                cells.append(f"{row['F1']:>22.2f} {row['tokens']:>6}" if row else f"{'':>22} {'':>6}")
            print(f"{ds:9} {cat:4} " + " ".join(cells))
    pub = published["runs"]["may180"]["baselines"]
    print("\npublished (sverklo v0.20.21, 180 tasks, 2026-05-13): " +
          ", ".join(f"{k} F1 {v['F1']:.2f} / {v['tokens']} tok" for k, v in pub.items()))
    per = published["per_dataset"]["requests"]["sverklo"]
    print(f"published sverklo on requests: F1 {per['F1']:.2f} (P1 {per['P1']}, P2 {per['P2']}, P4 {per['P4']}, "
          f"P5 {per['P5']}), {per['tokens']} tok")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", type=Path, default=Path("/work/corpora"))
    parser.add_argument("--only", help="comma-separated datasets (express, lodash, requests, flask, fastapi, sverklo)")
    parser.add_argument("--json", type=Path, help="write per-task figures here")
    parser.add_argument("--show", help="print code-intel's payload and prediction for these task ids (comma-separated)")
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else None
    missing = check_trees(args.corpora, only)
    if missing:
        sys.exit("missing pinned trees; make them with:\n" + "\n".join(missing))
    tasks = load_tasks(args.corpora, only)
    results = {}
    ci = asyncio.run(code_intel_answers(tasks, sys.executable))
    scoped = {t.id: in_scope(t, ci[t.id]) for t in tasks}
    results["code-intel"] = summarise(tasks, ci)
    results["code-intel in scope"] = summarise(tasks, scoped)
    raw = raw_answers(tasks)
    results["rg/ctags"] = summarise(tasks, raw)
    published = json.loads((DATA / "published.json").read_text(encoding="utf-8"))
    print("scored against the benchmark's truth (whole answers; 'in scope': read within the truth's folders):")
    print_table(results, published)
    fixed = corrected_truth(tasks, args.corpora)
    if fixed:
        again = [dataclasses.replace(t, expected=fixed.get(t.id, t.expected)) for t in tasks]
        results["code-intel (corrected truth)"] = summarise(again, ci)
        results["code-intel in scope (corrected truth)"] = summarise(again, scoped)
        results["rg/ctags (corrected truth)"] = summarise(again, raw)
        print(f"\nscored against the corrected truth ({len(fixed)} tasks re-made, see corrected_truth):")
        print_table({"code-intel": results["code-intel (corrected truth)"],
                     "code-intel in scope": results["code-intel in scope (corrected truth)"],
                     "rg/ctags": results["rg/ctags (corrected truth)"]}, published)
    slow = sorted(((a.seconds, tid) for tid, a in ci.items()), reverse=True)[:3]
    print("slowest code-intel tasks: " + ", ".join(f"{tid} {s:.2f}s" for s, tid in slow))
    if args.show:
        by_id = {t.id: t for t in tasks}
        for tid in args.show.split(","):
            a = ci[tid]
            print(f"--- {tid} {by_id[tid].query!r} F1 {score(by_id[tid], a.predicted):.2f}\nexpected: "
                  f"{json.dumps(by_id[tid].expected)[:1500]}\npredicted: {json.dumps(a.predicted)[:1500]}\n"
                  f"payload ({tokens(a.payload)} tok): {a.payload[:1500]}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
