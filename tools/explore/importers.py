"""Who imports a file: the files whose import statements, read from their syntax trees (explore/imports.py),
resolve to it as their language resolves them (explore/resolve.py).

Candidates are the files of the languages that can import it with a line that may import the word an import of it
must name (its name; a package's or a Go package's folder name), found by one ripgrep search per changed file
(_candidate_lines, a prefilter only). Each candidate is parsed up to a margin past its last such line and every
import it makes resolved: a line in a comment or a string is never a statement, a bare npm specifier never a
project file. A Java wildcard import (`import pkg.*;`) counts where the importer names the class; code in the
class's own package needs no import and is found by the symbols' references.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from code_intel.core.errors import CodeIntelError
from code_intel.explore import budget
from code_intel.explore.imports import ImportSpec, has_import_query, read_imports
from code_intel.explore.resolve import import_targets, jvm_class_of, module_parts, rust_module_path
from code_intel.explore.ripgrep import run_rg_json
from code_intel.explore.syntax import ParsedFile
from code_intel.languages.table import get_parser, language_for

if TYPE_CHECKING:
    from code_intel.explore.service import Explorer

# The files that may import a file of each family (a .vue or .svelte file is imported from JS and TS)
_JS = ["*.js", "*.mjs", "*.cjs", "*.jsx", "*.ts", "*.mts", "*.cts", "*.tsx"]
_C = ["*.c", "*.h", "*.cc", "*.cpp", "*.cxx", "*.hpp", "*.hh", "*.hxx", "*.inl", "*.ipp"]
_IMPORTED_FROM: dict[str, list[str]] = {
    "python": ["*.py", "*.pyi"], "javascript": _JS, "typescript": _JS, "tsx": _JS, "vue": _JS, "svelte": _JS,
    "go": ["*.go"], "rust": ["*.rs"], "java": ["*.java", "*.kt", "*.kts"], "kotlin": ["*.java", "*.kt", "*.kts"],
    "c": _C, "cpp": _C, "ruby": ["*.rb"], "lua": ["*.lua"],
}
# a file that stands for its folder
_FOLDER_STEMS = {"python": "__init__", "javascript": "index", "typescript": "index", "tsx": "index", "rust": "mod",
                 "lua": "init"}
PREFIX_MARGIN_LINES = 60  # an import list spread over more lines loses its tail
MAX_CANDIDATES = 150  # files parsed per changed file (a parse is the cost: about 5-10 ms for a large file)


def _candidate_lines(words: list[str]) -> str:
    """Lines an import of one of `words` may hold, whatever the language (the syntax tree decides): a line with an
    import keyword before the word, a line of a list or a Go import block that starts with it (`    basic,`,
    `    parse::{Error}`, `"example.com/pkg/util"`). A prefilter only: it keeps files from being parsed."""
    alternatives = "|".join(re.escape(w) for w in words)
    return (rf"\b(?:import|from|require\w*|load|include|use|mod|using|extern)\b.*\b(?:{alternatives})\b"
            rf"|^\s*(?:[\w.]+\s+)?[\"'`<]?(?:[\w./@~-]*(?:\.|::|/))?(?:{alternatives})\b"
            r"(?:\s+as\s+\w+)?\s*(?:[,)}\"'`>]|::|\.\w+[\"'`>]|$)")


def python_module_names(file: str) -> list[str]:
    """Dotted names a Python file may be imported or configured by (`pkg.mod`, `src.pkg.mod`)."""
    if language_for(file) != "python":
        return []
    parts = module_parts(file)
    return [".".join(parts[i:]) for i in range(len(parts) - 1) if len(parts) - i >= 2]


@dataclass(frozen=True)
class Importer:
    file: str  # the importing file
    line: int
    module: str  # the changed module as the importer names it (dotted for Python)
    target: str  # the changed file
    text: str  # the import line, stripped


def _family(file: str) -> str | None:
    suffix = PurePosixPath(file).suffix
    return suffix[1:] if suffix in (".vue", ".svelte") else language_for(file)


def _word(file: str, family: str) -> str | None:
    """The name an import of the file must hold: its stem, or its folder's for a Go package, a package's
    `__init__.py`, an `index.ts` or a Rust `mod.rs`; None for what nothing imports (a Rust crate root)."""
    path = PurePosixPath(file)
    if family == "rust" and not rust_module_path(file):
        return None
    if family == "go" or path.stem == _FOLDER_STEMS.get(family):
        return path.parent.name or None
    return path.stem


def _as_named(file: str, family: str, module: str, names: tuple[str, ...], root_class: str) -> str:
    """The changed module as the importer names it: a Python import's own words (`.mod` for `from . import mod`),
    Rust's `crate::` path, a Java class's qualified name, a C header's path, Lua's module, else the path without its
    suffix."""
    if family == "python":
        stem = module_parts(file)[-1:]
        named = next((n.split(" as ")[0].strip() for n in names if [n.split(" as ")[0].strip()] == stem), None)
        return module if named is None else module + ("" if module.endswith(".") else ".") + named
    if family == "rust":
        return "crate::" + "::".join(rust_module_path(file) or [])
    if family in ("java", "kotlin"):
        return root_class
    if family in ("c", "cpp"):
        return file
    if family == "lua":
        return module
    return str(PurePosixPath(file).with_suffix(""))


def importers_of(explorer: Explorer, file: str, notes: list[str]) -> list[Importer]:
    """The import statements in the project that name `file`, in file and line order."""
    family = _family(file)
    word = _word(file, family) if family else None
    if family is None or family not in _IMPORTED_FROM or word is None:
        return []
    words = [word, *([PurePosixPath(file).parent.name] if family in ("java", "kotlin") else [])]  # `import pkg.*`
    root = explorer.root.path
    try:
        found_lines = run_rg_json(root, [_candidate_lines(words)], explorer.filters(),
                                  flags=[f"--glob={g}" for g in _IMPORTED_FROM[family]],
                                  timeout=explorer.config.search_timeout_seconds)
    except CodeIntelError as err:
        notes.append(f"{file}: importers not searched ({err.message})")
        return []
    last: dict[str, int] = {}  # file -> byte offset of its last candidate line
    for hit in found_lines.lines:
        last[hit.file] = max(last.get(hit.file, 0), hit.offset)
    candidates = sorted(last)
    if found_lines.timed_out or len(candidates) > MAX_CANDIDATES:
        notes.append(f"{file}: many files mention {word!r}; the first {min(len(candidates), MAX_CANDIDATES)} "
                     "were checked for imports")
    # Go imports a package: its folder; files in the folder itself share the package and import nothing of it
    target = str(PurePosixPath(file).parent) if family == "go" else file
    package, name = jvm_class_of(root, file) if family in ("java", "kotlin") else ("", "")
    named = re.compile(rf"\b(?:{'|'.join(re.escape(w) for w in words)})\b")
    found: list[Importer] = []
    for importer in candidates[:MAX_CANDIDATES]:
        if budget.expired():
            notes.append(f"{file}: the time ran out while its importers were read; the list is incomplete")
            break
        language = language_for(importer)
        if importer == file or not has_import_query(language) or (family == "go" and
                                                                    str(PurePosixPath(importer).parent) == target):
            continue
        parsed = _parsed_prefix(root / importer, language, last[importer])
        if parsed is None:
            continue
        for spec in read_imports(parsed):
            if not _may_name(spec, named, language):
                continue  # only an import that writes the word (or a bare relative path) can name the file
            if "*" in spec.names and not re.search(rf"\b{re.escape(word)}\b".encode(), parsed.source):
                continue  # a wildcard import counts where the file names what it imports (Java's `pkg.*`)
            if spec.kind != "package" and target in import_targets(root, importer, language, spec.module,
                                                                   list(spec.names), spec.kind, known=(file,)):
                found.append(Importer(file=importer, line=spec.line, target=file, text=spec.text,
                                      module=_as_named(file, family, spec.module, spec.names, f"{package}.{name}")))
    return found


def _may_name(spec: ImportSpec, named: re.Pattern[str], language: str | None) -> bool:
    """Whether an import may name the changed file: it writes the file's word (in its module or one of its names;
    in Python as the module's last part or an imported name, since `pkg.core.add` names add.py, not core's
    `__init__.py`), or its module is only a relative path (`from . import x`, `from '..'`) that may stand for a
    package."""
    if not spec.module.strip("./"):
        return True
    if language == "python":
        return any(named.fullmatch(part) for part in [spec.module.rsplit(".", 1)[-1],
                                                      *(name.split(" as ")[0].strip() for name in spec.names)])
    return bool(named.search(spec.module)) or any(named.search(name) for name in spec.names)


def _parsed_prefix(path: Path, language: str | None, offset: int) -> ParsedFile | None:
    """The file parsed up to a few lines past its last candidate line: an import's meaning (in code, in a comment,
    in a string) depends only on what comes before it, and most of a large file comes after its imports."""
    try:
        source = path.read_bytes()
    except OSError:
        return None
    end = offset
    for _ in range(PREFIX_MARGIN_LINES):
        end = source.find(b"\n", end) + 1
        if end <= 0:
            end = len(source)
            break
    if language is None or b"\x00" in source[:8192]:
        return None
    return ParsedFile(path, language, source[:end], get_parser(language).parse(source[:end]))


def find_importers(explorer: Explorer, changed: list[str], notes: list[str]) -> list[Importer]:
    """Files that import a changed module (Python, JavaScript/TypeScript, Go package folders, Rust modules, Java and
    Kotlin classes, Ruby and Lua files) or include a changed C/C++ header."""
    return [item for file in changed for item in importers_of(explorer, file, notes)]
