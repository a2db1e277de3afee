"""Who imports a file: the files whose import statements, read from their syntax trees (explore/imports.py),
resolve to it as their language resolves them (explore/resolve.py).

Candidates are the files of the languages that can import it which hold the word an import of it must name (its
name; a package's or a Go package's folder name), found by one ripgrep search per changed file. Each candidate is
parsed and every import it makes resolved: a line in a comment or a string is never a statement, a bare npm
specifier never a project file. A Java wildcard import (`import pkg.*;`) counts because the importer, holding the
class's name, uses it; code in the class's own package needs no import and is found by the symbols' references.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from code_intel.core.errors import CodeIntelError
from code_intel.explore.imports import has_import_query, read_imports
from code_intel.explore.resolve import import_targets, jvm_class_of, module_parts, rust_module_path
from code_intel.explore.ripgrep import files_matching
from code_intel.languages.table import language_for

if TYPE_CHECKING:
    from code_intel.explore.service import Explorer

# A reference's line, told apart as an import without parsing its file (analyze_impact's reasons read only the text).
_IMPORT_LINE = re.compile(
    r"^\s*(?:from\s+\S+\s+import\b|import\b|export\s.*\bfrom\s|#\s*include\b|using\s|use\s|require\b)"
    r"|\brequire\(\s*['\"]|\bimport\(\s*['\"]"
)
# The files that may import a file of each family (a .vue or .svelte file is imported from JS and TS)
_JS = ["*.js", "*.mjs", "*.cjs", "*.jsx", "*.ts", "*.mts", "*.cts", "*.tsx"]
_C = ["*.c", "*.h", "*.cc", "*.cpp", "*.cxx", "*.hpp", "*.hh", "*.hxx", "*.inl", "*.ipp"]
_IMPORTED_FROM: dict[str, list[str]] = {
    "python": ["*.py", "*.pyi"], "javascript": _JS, "typescript": _JS, "tsx": _JS, "vue": _JS, "svelte": _JS,
    "go": ["*.go"], "rust": ["*.rs"], "java": ["*.java", "*.kt", "*.kts"], "kotlin": ["*.java", "*.kt", "*.kts"],
    "c": _C, "cpp": _C, "ruby": ["*.rb"],
}
# a file that stands for its folder
_FOLDER_STEMS = {"python": "__init__", "javascript": "index", "typescript": "index", "tsx": "index", "rust": "mod"}
MAX_CANDIDATES = 400  # files parsed per changed file


def is_import_line(text: str) -> bool:
    return bool(_IMPORT_LINE.search(text))


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
    Rust's `crate::` path, a Java class's qualified name, a C header's path, else the path without its suffix."""
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
    return str(PurePosixPath(file).with_suffix(""))


def importers_of(explorer: Explorer, file: str, notes: list[str]) -> list[Importer]:
    """The import statements in the project that name `file`, in file and line order."""
    family = _family(file)
    word = _word(file, family) if family else None
    if family is None or family not in _IMPORTED_FROM or word is None:
        return []
    root = explorer.root.path
    try:
        candidates, partial = files_matching(root, rf"\b{re.escape(word)}\b", explorer.filters(),
                                             flags=[f"--glob={g}" for g in _IMPORTED_FROM[family]],
                                             timeout=explorer.config.search_timeout_seconds)
    except CodeIntelError as err:
        notes.append(f"{file}: importers not searched ({err.message})")
        return []
    if partial or len(candidates) > MAX_CANDIDATES:
        notes.append(f"{file}: many files mention {word!r}; the first {min(len(candidates), MAX_CANDIDATES)} "
                     "were checked for imports")
    # Go imports a package: its folder; files in the folder itself share the package and import nothing of it
    target = str(PurePosixPath(file).parent) if family == "go" else file
    package, name = jvm_class_of(root, file) if family in ("java", "kotlin") else ("", "")
    found: list[Importer] = []
    for importer in candidates[:MAX_CANDIDATES]:
        language = language_for(importer)
        if importer == file or not has_import_query(language) or (family == "go" and
                                                                    str(PurePosixPath(importer).parent) == target):
            continue
        try:
            parsed = explorer.parse_cache.get(root / importer)
        except (OSError, CodeIntelError):
            continue
        for spec in read_imports(parsed):
            if spec.kind != "package" and target in import_targets(root, importer, language, spec.module,
                                                                   list(spec.names), spec.kind, known=(file,)):
                found.append(Importer(file=importer, line=spec.line, target=file, text=spec.text,
                                      module=_as_named(file, family, spec.module, spec.names, f"{package}.{name}")))
    return found


def find_importers(explorer: Explorer, changed: list[str], notes: list[str]) -> list[Importer]:
    """Files that import a changed module (Python, JavaScript/TypeScript, Go package folders, Rust modules, Java and
    Kotlin classes, Ruby files) or include a changed C/C++ header."""
    return [item for file in changed for item in importers_of(explorer, file, notes)]
