"""Unused definitions: the functions and types in a file or folder that nothing else in the project names.

A definition counts as used when its name is written anywhere in the project's searchable files more often than
it is defined: in code, tests, docs or configs alike (a config or a doc naming a function is how entry points,
plugins and templates reach it), so a name that is only ever written where it is defined is what is left. Only
module-level functions and types of the project's own source are judged: methods are reached through objects and
overrides, tests, docs and generated code are not dead for being unnamed, a named function expression is a value
(a callback) and a decorated Python function is registered by its decorator. What a package exports on purpose is
left out and counted: the names in a Python `__all__`, the public names (no leading underscore) of a distributed
Python package (pyproject.toml, setup.py or setup.cfg), and the definitions in a package's entry files (the files
package.json names as main, module, exports or bin, `index` modules and Python `__init__.py`) and in the files an
entry file re-exports whole (`export * from './x'`, `module.exports = require('./x')`).

Each item carries its evidence: how often the name is written in the project and how often it is defined.
"""

from __future__ import annotations

import ast
import json
import posixpath
import re
from collections import Counter
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from code_intel.core import processes
from code_intel.core.binaries import require_binary
from code_intel.core.errors import CodeIntelError, InvalidArgument
from code_intel.core.file_roles import file_role
from code_intel.explore import budget
from code_intel.explore.answers import DEFAULT_BUDGET_TOKENS, RESERVED_CHARS, Fitter, budget_chars, ranked
from code_intel.explore.models import Definition, UnusedItem, UnusedResult
from code_intel.explore.resolve import import_targets, read_tsconfig
from code_intel.explore.ripgrep import list_files
from code_intel.languages.table import language_for

if TYPE_CHECKING:
    from code_intel.explore.service import Explorer

JUDGED_KINDS = frozenset({"function", "class", "interface", "type", "enum", "struct", "trait"})
_ENTRY_STEMS = frozenset({"index", "__init__", "__main__", "main"})
_NEVER_DEAD = frozenset({"main", "setup", "teardown", "conftest"})
_USES_TOO = frozenset({"field", "property", "member"})


def find_unused(explorer: Explorer, path: str, *, offset: int = 0,
                budget_tokens: int = DEFAULT_BUDGET_TOKENS) -> UnusedResult:
    absolute = explorer.root.resolve(path, must_exist=True)
    scope = explorer.root.relative(absolute)
    scope = "" if scope in ("", ".") else scope
    if offset < 0:
        raise InvalidArgument("offset must be 0 or more", hint="send the next_offset of the previous answer")
    everything = explorer.definition_index.all_definitions()
    # where each name is introduced: one count per line (ctags may tag `exports.run = function run` twice), object
    # fields left out (`{ publicThing }` is a use, though ctags tags it)
    defined = Counter(name for name, _, _ in {(d.name, d.file, d.line) for d in everything if d.kind not in _USES_TOO})
    listed, _ = list_files(explorer.root.path, explorer.filters(), timeout=explorer.config.search_timeout_seconds)
    indexed = set(listed)  # the project's files: roles a path alone does not tell (file_roles.file_role)
    judged = [d for d in everything if d.kind in JUDGED_KINDS and not d.scope
              and (not scope or d.file == scope or d.file.startswith(scope + "/"))
              and file_role(d.file, indexed) == "implementation" and not _private_by_convention(d.name)]
    exported_names, entry_files = _deliberate_exports(explorer, sorted(listed))
    library = _python_library_folders(explorer, listed)
    exported = [d for d in judged if _exported(d, exported_names, entry_files, library)]
    candidates = [d for d in judged if not _exported(d, exported_names, entry_files, library)]
    written = _word_counts(explorer, sorted({d.name for d in candidates}))
    unused = [d for d in candidates if written.get(d.name, 0) <= defined[d.name] and _declared(explorer, d)]
    named = _named_by_configs(explorer, sorted({d.file for d in unused}))
    exported += [d for d in unused if d.file in named]
    unused = [d for d in unused if d.file not in named]
    unused = ranked(unused, lambda d: d.file, lambda d: d.line, indexed=indexed)
    fit = Fitter(budget_chars(budget_tokens) - RESERVED_CHARS)
    items: list[UnusedItem] = []
    for d in unused[offset:]:
        n = written.get(d.name, 0)
        item = UnusedItem(name=d.name, file=d.file, line=d.line, kind=d.kind,
                          evidence=f"written {n} time{'s' if n != 1 else ''} in the project, defined {defined[d.name]}")
        if not fit.take(item.model_dump()):
            break
        items.append(item)
    more = offset + len(items) < len(unused)
    return UnusedResult(path=scope or ".", unused=items, total=len(unused), judged=len(judged),
                        exported=len(exported), next_offset=offset + len(items) if more else None)


_JS_DECLARATION = re.compile(r"^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?"
                             r"(?:function\*?|class|interface|type|enum|const|let|var)\b")


def _declared(explorer: Explorer, definition: Definition) -> bool:
    """Whether the definition is a statement of its own: not a named function expression passed as a value
    (`router.use(path, function mounted_app(...) {...})`) and not a Python function a decorator registers."""
    try:
        lines = (explorer.root.path / definition.file).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False
    if definition.line > len(lines):
        return False
    text = lines[definition.line - 1].strip()
    language = language_for(definition.file)
    if language in ("javascript", "typescript", "tsx"):
        return bool(_JS_DECLARATION.match(text))
    if language == "python":
        above = next((line.strip() for line in reversed(lines[: definition.line - 1]) if line.strip()), "")
        return not above.startswith("@")
    return True


def _private_by_convention(name: str) -> bool:
    return (name.startswith("__") and name.endswith("__")) or name in _NEVER_DEAD or name.startswith("test")


def _exported(definition: Definition, names: set[str], entry_files: set[str], library: set[str]) -> bool:
    """Exported on purpose: named in `__all__`, defined in an entry file, or a public name (no leading underscore,
    PEP 8) of a distributed Python package."""
    if definition.name in names or definition.file in entry_files:
        return True
    folder = str(PurePosixPath(definition.file).parent)
    return not definition.name.startswith("_") and any(folder == f or folder.startswith(f + "/") for f in library)


def _python_library_folders(explorer: Explorer, files: list[str]) -> set[str]:
    """The top package folders of a project that is distributed as a Python library (it has pyproject.toml,
    setup.py or setup.cfg): every module of those packages can be imported by its users."""
    listed = set(files)
    if not listed & {"pyproject.toml", "setup.py", "setup.cfg"}:
        return set()
    packages = {str(PurePosixPath(f).parent) for f in listed if PurePosixPath(f).name == "__init__.py"}
    return {p for p in packages if str(PurePosixPath(p).parent) not in packages}


_CONFIG_GLOBS = ("*.yml", "*.yaml", "*.toml", "*.json", "*.cfg", "*.ini")


def _named_by_configs(explorer: Explorer, files: list[str]) -> set[str]:
    """The files a config names (mkdocs.yml's `hooks: - ../../scripts/mkdocs_hooks.py`): a tool loads them and
    calls their functions by convention, so they are entry files."""
    if not files:
        return set()
    names = {PurePosixPath(f).name: f for f in files}
    found = _occurrences(explorer, list(names), [arg for glob in _CONFIG_GLOBS for arg in ("--glob", glob)])
    if found is None:
        return set(files)  # not known: nothing of these files is called dead
    seen = set(found)
    return {f for f in files if PurePosixPath(f).name in seen}


def _word_counts(explorer: Explorer, names: list[str]) -> Counter[str]:
    """How often each name is written as a whole word in the project's searchable files (one rg run)."""
    if not names:
        return Counter()
    seen = _occurrences(explorer, names, ["--word-regexp"])
    if seen is None:
        budget.note_partial("counting the names' uses ran out of time: nothing is reported unused")
        return Counter({name: 1 << 30 for name in names})
    return Counter(seen)


def _occurrences(explorer: Explorer, strings: list[str], options: list[str]) -> list[str] | None:
    """Each occurrence of the strings in the project's searchable files, as written (one rg run with `options`
    after the project's filters), or None when the search ran out of time."""
    filters = explorer.filters()
    args = [require_binary("rg"), "--no-config", "--only-matching", "--fixed-strings", "--no-filename",
            "--no-line-number", "--no-heading", *filters.args(), *options]
    for string in strings:
        args += ["-e", string]
    args += ["--", *filters.roots]
    done = processes.run(args, cwd=explorer.root.path, timeout=budget.remaining(explorer.config.search_timeout_seconds))
    return None if done.timed_out else done.stdout.decode("utf-8", errors="surrogateescape").split()


def _deliberate_exports(explorer: Explorer, files: list[str]) -> tuple[set[str], set[str]]:
    """(names a Python `__all__` lists, files whose definitions a package exports on purpose)."""
    root = explorer.root.path
    names: set[str] = set()
    entries = {f for f in files if PurePosixPath(f).stem in _ENTRY_STEMS}
    for manifest in (f for f in files if PurePosixPath(f).name == "package.json"):
        entries |= _package_entries(explorer, manifest)
    for file in (f for f in files if f.endswith(".py")):
        try:
            source = (root / file).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if "__all__" in source:
            names |= _python_all(source)
    # one hop: what an entry file re-exports is public too (express's index.js -> lib/express.js): a file it
    # re-exports whole, or the names it re-exports; what it only imports to use (a command line's dynamic
    # `import("../src/x.js")`) is not
    for entry in sorted(entries):
        if language_for(entry) in ("javascript", "typescript", "tsx"):
            whole, reexported = _reexports(explorer, entry)
            entries |= whole
            names |= reexported
    return names, entries


def _reexports(explorer: Explorer, entry: str) -> tuple[set[str], set[str]]:
    """What a JS/TS file re-exports, from its syntax tree: (the files it re-exports whole: `export * from './x'`,
    `module.exports = require('./x')`; the names it re-exports from others: `export { a, b as c } from './y'`)."""
    try:
        _, parsed = explorer.parse_file(entry)
    except (CodeIntelError, OSError):  # an entry file that cannot be parsed exports nothing we can see
        return set(), set()
    whole: set[str] = set()
    names: set[str] = set()

    def targets(spec: str) -> set[str]:
        return set(import_targets(explorer.root.path, entry, parsed.language, spec, []))

    for node in parsed.root.named_children:
        source = node.child_by_field_name("source") if node.type == "export_statement" else None
        if source is not None:
            clause = next((c for c in node.named_children if c.type == "export_clause"), None)
            if clause is None:  # `export * from` and `export * as ns from`
                whole |= targets(parsed.text(source).strip("'\"`"))
            for specifier in (c for c in clause.named_children if c.type == "export_specifier") if clause else ():
                name = specifier.child_by_field_name("name")
                if name is not None:
                    names.add(parsed.text(name))
        elif node.type == "expression_statement" and (spec := _module_exports_require(parsed, node)) is not None:
            whole |= targets(spec)
    return whole, names


def _module_exports_require(parsed: Any, statement: Any) -> str | None:
    """The module of `module.exports = require('./x')` (also `exports = module.exports = require(...)`)."""
    value = statement.named_children[0] if statement.named_child_count else None
    assigned = False
    while value is not None and value.type == "assignment_expression":
        assigned = assigned or parsed.text(value.child_by_field_name("left")) == "module.exports"
        value = value.child_by_field_name("right")
    if not assigned or value is None or value.type != "call_expression":
        return None
    function, arguments = value.child_by_field_name("function"), value.child_by_field_name("arguments")
    if function is None or parsed.text(function) != "require" or arguments is None or arguments.named_child_count != 1:
        return None
    argument = arguments.named_children[0]
    return parsed.text(argument).strip("'\"`") if argument.type == "string" else None


def _package_entries(explorer: Explorer, manifest: str) -> set[str]:
    try:
        data = json.loads((explorer.root.path / manifest).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    folder = PurePosixPath(manifest).parent
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            spec = value if value.startswith(".") else "./" + value
            target = import_targets(explorer.root.path, str(folder / "package.json"), "javascript", spec, [])
            if not target and (source := _compiled_from(explorer, folder, spec)) is not None:
                target = import_targets(explorer.root.path, str(folder / "package.json"), "typescript", source, [])
            found.update(target)
        elif isinstance(value, dict):
            for inner in value.values():
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    if isinstance(data, dict):
        for key in ("main", "module", "exports", "bin", "types"):
            walk(data.get(key))
    return found


def _compiled_from(explorer: Explorer, folder: PurePosixPath, spec: str) -> str | None:
    """The source a package's build output is compiled from, by the tsconfig.json beside its package.json:
    `./out/extension.js` under outDir `out` and rootDir `src` is `./src/extension` (a VS Code extension's main,
    whose `activate` and `deactivate` the editor calls). None when nothing maps it."""
    options = read_tsconfig(explorer.root.path / folder / "tsconfig.json")
    out_dir, root_dir = options.out_dir, options.root_dir
    if not out_dir or not root_dir:
        return None
    built, out = posixpath.normpath(spec), posixpath.normpath(out_dir)
    if not built.startswith(out + "/"):
        return None
    source = posixpath.join(posixpath.normpath(root_dir), built[len(out) + 1:])
    return "./" + re.sub(r"\.[cm]?js$", "", source)


def _python_all(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            names |= {c.value for c in ast.walk(value) if isinstance(c, ast.Constant) and isinstance(c.value, str)}
    return names
