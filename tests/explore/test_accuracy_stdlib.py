"""Accuracy on real code: the tools against Python's own `ast` on a sample of CPython's standard library.

Targets: find_definitions recall >= 0.99; get_symbols (name, line) recall >= 0.99 with no junk;
find_references recall >= 0.98 over a name's uses and precision >= 0.97 against its uses, definitions
and imports (a hit in a comment or string counts against precision). Lines are the unit of comparison.
"""

from __future__ import annotations

import ast
import shutil
import sysconfig
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from code_intel.explore.models import OutlineSymbol
from code_intel.explore.service import Explorer

pytestmark = pytest.mark.slow  # indexes and searches a copy of the standard library

SAMPLE_FILES = 70
MAX_FILE_BYTES = 120_000
REFERENCE_NAMES = 40


def _stdlib_sample() -> list[Path]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    candidates = sorted(
        p for p in stdlib.rglob("*.py")
        if "site-packages" not in p.parts and "test" not in p.parts and "tests" not in p.parts
        and 2_000 < p.stat().st_size < MAX_FILE_BYTES
    )
    step = max(1, len(candidates) // SAMPLE_FILES)
    return candidates[::step][:SAMPLE_FILES]


def _parse(path: Path) -> ast.Module | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            return None


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, ast.Module]]:
    root = tmp_path_factory.mktemp("stdlib").resolve()
    trees: dict[str, ast.Module] = {}
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for source in _stdlib_sample():
        tree = _parse(source)
        if tree is None:
            continue
        rel = source.relative_to(stdlib).as_posix()
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, root / rel)
        trees[rel] = tree
    return root, trees


@pytest.fixture(scope="module")
def stdlib_explorer(corpus: tuple[Path, dict[str, ast.Module]]) -> Explorer:
    from code_intel.core.config import Config
    from code_intel.core.project import ProjectRoot

    settings = Config(search_timeout_seconds=60)
    return Explorer(ProjectRoot.from_args(corpus[0]), lambda: settings)


# ------------------------------------------------------------------ ground truth from ast
def _definitions(tree: ast.Module) -> Iterator[tuple[str, int]]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name, node.lineno


def _assigned_names(statement: ast.stmt, bare: bool) -> Iterator[tuple[str, int]]:
    """Assigned names; with `bare`, also annotations without a value (`x: int`, e.g. NamedTuple fields)."""
    targets: list[ast.expr] = []
    if isinstance(statement, ast.Assign):
        targets = list(statement.targets)
    elif isinstance(statement, ast.AnnAssign) and (statement.value is not None or bare):
        targets = [statement.target]
    stack = targets
    while stack:
        target = stack.pop()
        if isinstance(target, ast.Name):
            yield target.id, target.lineno
        elif isinstance(target, (ast.Tuple, ast.List)):
            stack.extend(target.elts)


def _module_variables(body: list[ast.stmt], bare: bool = False) -> Iterator[tuple[str, int]]:
    """Names assigned at module level, including inside if/try/with/for blocks (not in defs or classes)."""
    for statement in body:
        yield from _assigned_names(statement, bare)
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _module_variables(getattr(statement, field, []) or [], bare)
        for handler in getattr(statement, "handlers", []) or []:
            yield from _module_variables(handler.body, bare)


def _class_variables(tree: ast.Module) -> Iterator[tuple[str, int]]:
    yield from _module_variables(tree.body, bare=True)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            yield from _module_variables(node.body, bare=True)


def _uses(tree: ast.Module) -> Iterator[tuple[str, int]]:
    """Where names are used: Name nodes and attribute accesses (on the line of the attribute)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            yield node.id, node.lineno
        elif isinstance(node, ast.Attribute):
            yield node.attr, node.end_lineno or node.lineno


def _other_sites(tree: ast.Module) -> Iterator[tuple[str, int]]:
    """Definitions, parameters, keywords and imports: legitimate places for the name besides uses."""
    yield from _definitions(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            yield node.arg, node.lineno
        elif isinstance(node, ast.keyword) and node.arg:
            yield node.arg, node.value.lineno
        elif isinstance(node, ast.alias):
            for part in [*node.name.split("."), node.asname or ""]:
                yield part, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module:
            for part in node.module.split("."):
                yield part, node.lineno
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                yield name, node.lineno
        elif isinstance(node, ast.ExceptHandler) and node.name:
            yield node.name, node.lineno
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            yield node.name, node.lineno


# ------------------------------------------------------------------ the measurements
def test_find_definitions_recall(corpus: tuple[Path, dict[str, ast.Module]], stdlib_explorer: Explorer) -> None:
    _, trees = corpus
    index = {(d.file, d.name, d.line) for d in stdlib_explorer.definition_index.all_definitions()}
    truth = {(rel, name, line) for rel, tree in trees.items() for name, line in _definitions(tree)}
    missed = truth - index
    recall = 1 - len(missed) / len(truth)
    print(f"find_definitions recall {recall:.4f} over {len(truth)} definitions in {len(trees)} files")
    assert len(truth) > 1500
    assert recall >= 0.99, f"recall {recall:.4f}; missed e.g. {sorted(missed)[:10]}"
    # the public lookup agrees with the index for a sample of names
    names = Counter(name for _, name, _ in truth)
    for name, count in names.most_common(15):
        found = stdlib_explorer.find_definitions(name, max_results=1000)
        got = {(d.file, d.line) for d in found.definitions}
        expected = {(rel, line) for rel, n, line in truth if n == name}
        assert len(expected - got) <= max(1, count // 100), name


def _flat(symbols: list[OutlineSymbol]) -> Iterator[OutlineSymbol]:
    for s in symbols:
        yield s
        yield from _flat(s.children)


def test_get_symbols_recall_and_no_junk(corpus: tuple[Path, dict[str, ast.Module]], stdlib_explorer: Explorer) -> None:
    _, trees = corpus
    expected = found_expected = emitted = junk = 0
    missed: list[tuple[str, str, int]] = []
    junk_examples: list[tuple[str, str, int]] = []
    for rel, tree in trees.items():
        truth = set(_definitions(tree)) | set(_module_variables(tree.body))
        allowed = truth | set(_class_variables(tree))
        symbols = list(_flat(stdlib_explorer.get_symbols(rel).symbols))
        got = {(s.name, s.line) for s in symbols}
        expected += len(truth)
        found_expected += len(truth & got)
        missed.extend((rel, n, line) for n, line in truth - got)
        for s in symbols:
            emitted += 1
            if (s.name, s.line) not in allowed or not s.name.isidentifier() or s.end_line < s.line:
                junk += 1
                junk_examples.append((rel, s.name, s.line))
    recall = found_expected / expected
    print(f"get_symbols recall {recall:.4f} over {expected} symbols; junk {junk} of {emitted}")
    assert expected > 2000
    assert recall >= 0.99, f"recall {recall:.4f}; missed e.g. {missed[:10]}"
    assert junk == 0, f"{junk} of {emitted} symbols are not definitions: {junk_examples[:10]}"


def test_find_references_recall_and_precision(corpus: tuple[Path, dict[str, ast.Module]],
                                              stdlib_explorer: Explorer) -> None:
    _, trees = corpus
    uses: dict[str, set[tuple[str, int]]] = defaultdict(set)
    valid: dict[str, set[tuple[str, int]]] = defaultdict(set)
    for rel, tree in trees.items():
        for name, line in _uses(tree):
            uses[name].add((rel, line))
            valid[name].add((rel, line))
        for name, line in _other_sites(tree):
            valid[name].add((rel, line))
    # the most used names that are not builtins-by-keyword; they appear in comments and strings too
    names = [n for n, _ in Counter({n: len(s) for n, s in uses.items() if len(n) > 2}).most_common(REFERENCE_NAMES)]
    hits_total = hits_valid = uses_total = uses_found = 0
    wrong: list[tuple[str, str, int]] = []
    for name in names:
        result = stdlib_explorer.find_references(name, max_results=50_000)
        assert not result.truncated
        got = {(r.file, r.line) for r in result.references}
        hits_total += len(got)
        hits_valid += len(got & valid[name])
        wrong.extend((name, f, line) for f, line in got - valid[name])
        uses_total += len(uses[name])
        uses_found += len(uses[name] & got)
    recall, precision = uses_found / uses_total, hits_valid / hits_total
    print(f"find_references recall {recall:.4f} over {uses_total} uses, precision {precision:.4f} over {hits_total} hits")
    assert uses_total > 5000
    assert recall >= 0.98, f"recall {recall:.4f}"
    assert precision >= 0.97, f"precision {precision:.4f}; wrong e.g. {wrong[:10]}"


def test_comment_and_string_hits_are_labelled(corpus: tuple[Path, dict[str, ast.Module]],
                                              stdlib_explorer: Explorer,
                                              make_explorer: Callable[..., Explorer]) -> None:
    """With comments and strings included, every extra hit is labelled as one or the other."""
    plain = stdlib_explorer.find_references("name", max_results=50_000)
    everything = stdlib_explorer.find_references("name", include_comments=True, include_strings=True, max_results=50_000)
    extra = {r.context for r in everything.references} - {"code"}
    assert everything.total > plain.total and extra <= {"comment", "string"} and extra
