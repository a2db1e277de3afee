"""Who imports a file: import-line recognition and module resolution for Python, JS/TS, Go, Rust, Java and
Kotlin, and C/C++ includes.

Candidates come from one ripgrep search per changed file for import lines that mention its name;
each candidate line is then resolved (relative Python imports against the importer's package,
relative JS specifiers against the importer's folder, Go import paths against the package folder,
Rust `mod` declarations and `crate::`/`super::`/`self::` paths against the importer's module, Java and
Kotlin imports against the class the file declares in its package, a C/C++ `#include` against the
importer's folder and then as a path under an include directory) and kept only when it really names the
changed file. A Java wildcard import (`import pkg.*;`) counts when the importer names the class too; code
in the class's own package needs no import and is found by the symbols' references instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import takewhile
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from code_intel.core.errors import CodeIntelError
from code_intel.explore.models import as_dict
from code_intel.languages.table import language_for

if TYPE_CHECKING:
    from code_intel.explore.service import Explorer


_IMPORT_LINE = re.compile(
    r"^\s*(?:from\s+\S+\s+import\b|import\b|export\s.*\bfrom\s|#\s*include\b|using\s|use\s|require\b)"
    r"|\brequire\(\s*['\"]|\bimport\(\s*['\"]"
)
_PY_FROM = re.compile(r"^\s*from\s+(\.*)([\w.]*)\s+import\s+\(?([^#)]*)")
_PY_IMPORT = re.compile(r"^\s*import\s+([^#]+)")
_JS_SPECIFIER = re.compile(r"(?:\bfrom\s*|\brequire\(\s*|\bimport\(\s*|^\s*import\s+)['\"]([^'\"]+)['\"]")
_GO_IMPORT_LINE = re.compile(r"^\s*(?:import\s+)?(?:[\w.]+\s+)?\"([^\"]+)\"\s*\)?\s*$")
_JS_SUFFIX = re.compile(r"\.(?:[cm]?[jt]sx?|vue|svelte)$")
JS_GLOBS = ["*.js", "*.mjs", "*.cjs", "*.jsx", "*.ts", "*.mts", "*.cts", "*.tsx", "*.vue", "*.svelte"]


def is_import_line(text: str) -> bool:
    return bool(_IMPORT_LINE.search(text))


def _module_parts(file: str) -> list[str]:
    """`src/pkg/mod.py` -> [src, pkg, mod]; a package's `__init__.py` stands for the package."""
    parts = list(PurePosixPath(file).with_suffix("").parts)
    return parts[:-1] if parts and parts[-1] == "__init__" else parts


def python_module_names(file: str) -> list[str]:
    """Dotted names a Python file may be imported or configured by (`pkg.mod`, `src.pkg.mod`)."""
    if language_for(file) != "python":
        return []
    parts = _module_parts(file)
    return [".".join(parts[i:]) for i in range(len(parts) - 1) if len(parts) - i >= 2]


def _python_import_name(importer: str, text: str, target: list[str]) -> str | None:
    """The changed module as this import line names it (`packaging.tags` for `src/packaging/tags.py`, `.tags`
    for a relative import), or None when the line does not import it."""
    def ends_with(dotted: list[str]) -> bool:
        return bool(dotted) and len(dotted) <= len(target) and target[-len(dotted):] == dotted

    m = _PY_FROM.match(text)
    if m:
        dots, module, names = m.group(1), m.group(2), m.group(3)
        imported = [n.split(" as ")[0].strip() for n in names.split(",") if n.strip()]
        base = module.split(".") if module else []
        if dots:  # relative: resolved against the importer's package
            package = list(PurePosixPath(importer).parent.parts)
            package = package[: len(package) - (len(dots) - 1)] if len(dots) > 1 else package
            resolved = package + base
            if resolved == target:
                return dots + module
            named = next((n for n in imported if resolved + [n] == target), None)
            return None if named is None else dots + (f"{module}." if module else "") + named
        if ends_with(base):
            return module
        named = next((n for n in imported if ends_with(base + [n])), None)
        return None if named is None else ".".join([*base, named])
    m = _PY_IMPORT.match(text)
    if m:
        for part in m.group(1).split(","):
            dotted = part.split(" as ")[0].strip()
            if ends_with(dotted.split(".")):
                return dotted
    return None


def _js_imports_file(importer: str, text: str, target: str) -> bool:
    for m in _JS_SPECIFIER.finditer(text):
        spec = _JS_SUFFIX.sub("", m.group(1))
        if spec.startswith("."):
            resolved = _normalise(PurePosixPath(importer).parent / spec)
        elif re.match(r"^(?:@|~|#)/", spec) or ("/" in spec and not spec.startswith("@")):
            resolved = re.sub(r"^(?:@|~|#)/", "", spec)
        else:
            continue  # a bare name (`ignore`, `react`) or a scoped one (`@scope/pkg`) is an npm package
        candidates = {target}
        if target.endswith("/index"):
            candidates.add(target[: -len("/index")])
        if spec.startswith("."):
            if resolved in candidates:
                return True
        elif any(c == resolved or c.endswith("/" + resolved) for c in candidates):
            return True
    return False


def _go_imports_dir(text: str, folder: list[str]) -> bool:
    m = _GO_IMPORT_LINE.match(text)
    if not m or not folder:
        return False
    path = m.group(1).split("/")
    depth = min(len(path), len(folder))
    return path[-depth:] == folder[-depth:]


_RUST_CRATE_DIRS = ("src", "tests", "benches", "examples")
_RUST_ROOTS = frozenset({"lib", "main"})
_RUST_MOD = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;")
_RUST_USE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+)")


def rust_module_path(file: str) -> list[str] | None:
    """The module path of a Rust file within its crate: `src/a/b.rs` and `src/a/b/mod.rs` give [a, b], a crate
    root (src/lib.rs, src/main.rs, tests/x.rs) gives []; None for a file under no src/, tests/, benches/ or
    examples/ folder. Files under src/bin/ are crate roots of their own."""
    place = _rust_place(file)
    return place[1] if place else None


def _rust_place(file: str) -> tuple[str, list[str]] | None:
    """(the crate folder the file's module path starts from, such as `crates/x/src` or `tests`, the path)."""
    parts = list(PurePosixPath(file).with_suffix("").parts)
    roots = [i for i, part in enumerate(parts[:-1]) if part in _RUST_CRATE_DIRS]
    if not roots:
        return None
    crate_dir = roots[-1]
    folder = "/".join(parts[: crate_dir + 1])
    inner = parts[crate_dir + 1:]
    if parts[crate_dir] == "src" and inner[:1] == ["bin"]:
        inner = inner[1:] if len(inner) > 2 else []  # src/bin/tool.rs is a root; src/bin/tool/x.rs is module x
        inner = inner[1:] if inner else []
    elif parts[crate_dir] != "src" and len(inner) == 1:
        inner = []  # tests/x.rs is a crate root; tests/util/mod.rs is its module util
    if inner and inner[-1] == "mod":
        inner = inner[:-1]
    if parts[crate_dir] == "src" and inner in (["lib"], ["main"]):
        inner = []
    return folder, inner


def _rust_paths(tree: str) -> list[list[str]]:
    """Every path a `use` tree names: `crate::a::{b, c::D}` gives crate::a::b and crate::a::c::D (a `self` in
    braces names the prefix itself)."""
    tree = re.sub(r"\s+as\s+\w+", "", tree.split("//", 1)[0])  # `x as y` names x
    tree = re.sub(r"\s+", "", tree)
    brace = tree.find("{")
    if brace < 0 or not tree.endswith("}"):
        return [[p for p in tree.split("::") if p]]
    prefix = [p for p in tree[:brace].split("::") if p]
    paths: list[list[str]] = []
    depth, start, inner = 0, 0, tree[brace + 1:-1]
    for i, char in enumerate(inner + ","):
        depth += char == "{"
        depth -= char == "}"
        if char == "," and depth == 0:
            item = inner[start:i]
            start = i + 1
            for path in _rust_paths(item) if item else []:
                paths.append(prefix if path == ["self"] else prefix + path)
    return paths


def rust_imports_file(importer: str, text: str, target: str) -> bool:
    """Whether a `mod x;` or `use ...;` line in `importer` names the Rust module of the file `target` (in the same
    crate folder: `crate::` in src/ and in tests/ are different crates)."""
    mine, theirs = _rust_place(importer), _rust_place(target)
    if mine is None or theirs is None or mine[0] != theirs[0] or not theirs[1]:
        return False
    here, target_path = mine[1], theirs[1]
    return _rust_names(here, text, target_path)


def _rust_names(here: list[str], text: str, target: list[str]) -> bool:
    """Whether the line, in module `here`, declares or uses module `target` (module paths within one crate)."""
    m = _RUST_MOD.match(text)
    if m:  # `mod b;` in module a declares a::b (a file's submodules live in its own module path)
        return here + [m.group(1)] == target
    m = _RUST_USE.match(text)
    if not m:
        return False
    for path in _rust_paths(m.group(1).rstrip().rstrip(";")):
        head, resolved = path[:1], None
        if head == ["crate"]:
            resolved = path[1:]
        elif head == ["self"]:
            resolved = here + path[1:]
        elif head == ["super"]:
            ups = len(list(takewhile(lambda part: part == "super", path)))
            resolved = here[: max(0, len(here) - ups)] + path[ups:] if ups <= len(here) else None
        else:  # a name in scope here (2018 uniform paths; from the crate root, 2015 paths too)
            resolved = here + path
        if resolved is not None and resolved[: len(target)] == target:
            return True
    return False


_JVM_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;?\s*$", re.MULTILINE)
_JVM_IMPORT = re.compile(r"^\s*import\s+(?:static\s+)?([\w.]+(?:\.\*)?)\s*(?:;|\bas\b|$)")
JVM_GLOBS = ["*.java", "*.kt", "*.kts"]


def jvm_class_of(source: str, file: str) -> tuple[str, str]:
    """(package, class) of a Java or Kotlin file: its `package` line (empty for the default package) and the
    class its file is named after."""
    m = _JVM_PACKAGE.search(source[:20000])
    return (m.group(1) if m else ""), PurePosixPath(file).stem


def jvm_imports_class(text: str, package: str, name: str) -> str | None:
    """"class" when an import line names the class or one of its members or nested classes, "package" when it
    imports the class's whole package (`pkg.*`), else None."""
    m = _JVM_IMPORT.match(text)
    if not m or not package:  # a class in the default package cannot be imported
        return None
    path, qualified = m.group(1), f"{package}.{name}"
    if path == qualified or path.startswith(qualified + "."):
        return "class"
    return "package" if path == package + ".*" else None


_C_INCLUDE = re.compile(r"^\s*#\s*(?:include|import)\s*[<\"]([^>\"]+)[>\"]")
C_GLOBS = ["*.c", "*.h", "*.cc", "*.cpp", "*.cxx", "*.hpp", "*.hh", "*.hxx", "*.inl", "*.ipp", "*.m", "*.mm"]
C_HEADERS = frozenset({".h", ".hpp", ".hh", ".hxx", ".inl", ".ipp", ".tpp"})


def c_includes_file(importer: str, text: str, target: str, exists: Callable[[str], bool]) -> bool:
    """Whether an `#include "x.h"` / `<dir/x.h>` line names the header `target`: as a path from the importer's
    folder (a quoted include, when that file exists), else as a path under some include directory (the target
    ends with it), unless the importer's folder has a header of that path of its own."""
    m = _C_INCLUDE.match(text)
    if not m:
        return False
    spec = m.group(1).strip()
    local = _normalise(PurePosixPath(importer).parent / spec)
    if text[m.start(1) - 1] == '"' and exists(local):  # a quoted include looks beside the importer first
        return local == target
    return target == spec or target.endswith("/" + spec)


def _normalise(path: PurePosixPath) -> str:
    """A relative path with its `.` and `..` parts resolved (`src/a/../b.h` -> `src/b.h`)."""
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def _source(explorer: Explorer, file: str) -> str | None:
    """A project file's text, or None when it cannot be read."""
    try:
        return explorer.root.resolve(file, must_exist=True, kind="file").read_text(encoding="utf-8", errors="replace")
    except (OSError, CodeIntelError):
        return None


def _names_class(explorer: Explorer, file: str, name: str) -> bool:
    """Whether a file names the class outside its import lines (for a wildcard import)."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    lines = (_source(explorer, file) or "").splitlines()
    return any(word.search(line) for line in lines if not _JVM_IMPORT.match(line))


def _opens_import_list(text: str) -> bool:
    code = text.split("#", 1)[0]
    return "(" in code and ")" not in code


def _opens_use_tree(text: str) -> bool:
    code = text.split("//", 1)[0]
    return code.count("{") > code.count("}")


def _import_list_rest(explorer: Explorer, file: str, line: int, limit: int = 200, *, comment: str = "#",
                      closer: str = ")") -> str:
    """The lines after an open `from x import (` (or a Rust `use a::{`) up to its closing parenthesis (or
    semicolon), joined (comments dropped)."""
    rest: list[str] = []
    for text in (_source(explorer, file) or "").splitlines()[line:line + limit]:
        code = text.split(comment, 1)[0]
        rest.append(code.strip())
        if closer in code:
            break
    return " ".join(rest)


@dataclass(frozen=True)
class Importer:
    file: str  # the importing file
    line: int
    module: str  # the changed module as the importer names it (dotted for Python)
    target: str  # the changed file
    text: str  # the import line, stripped


def _in_code(explorer: Explorer, matches: list[dict[str, Any]]) -> set[tuple[str, int]]:
    """The (file, line) of the matched lines whose statement starts in code, not in a comment or a string, by the
    file's syntax tree (a file with no tree keeps its lines)."""
    files = sorted({m["file"] for m in matches})
    maps = explorer.lexical.maps_for([f for f in files if explorer.lexical.handles(f)])
    kept: set[tuple[str, int]] = set()
    for file in files:
        wanted = sorted({m["line"] for m in matches if m["file"] == file})
        lexical_map = maps.get(file)
        if lexical_map is None:
            kept.update((file, n) for n in wanted)
            continue
        try:
            source = (explorer.root.path / file).read_bytes()
        except OSError:
            continue
        starts = [0, *(m.end() for m in re.finditer(rb"\n", source))]
        for n in wanted:
            if n > len(starts):
                continue
            start = starts[n - 1]
            end = source.find(b"\n", start)
            text = source[start: end if end >= 0 else len(source)]
            first = start + len(text) - len(text.lstrip())
            if lexical_map.category(first) == "code":
                kept.add((file, n))
    return kept


def find_importers(explorer: Explorer, changed: list[str], notes: list[str], *, max_results: int = 150) -> list[Importer]:
    """Files that import a changed module (Python, JavaScript/TypeScript, Go package folders, Rust modules, Java and
    Kotlin classes) or include a changed C/C++ header."""
    items: list[Importer] = []
    for file in changed:
        language = language_for(file)
        path = PurePosixPath(file)
        if language == "python":
            target = _module_parts(file)
            if not target:
                continue
            # `from pkg import (` opens a list over several lines that may name the module further down
            opener = rf"from\s+(?:\S*\b{re.escape(target[-2])}|\.+)\s+import\s*\(" if len(target) > 1 else None
            pattern = rf"^\s*(?:(?:from|import)\s.*\b{re.escape(target[-1])}\b" + (f"|{opener}" if opener else "") + ")"
            globs = ["*.py", "*.pyi"]  # checked by _python_import_name, which also says how the line names the module
        elif language in ("javascript", "typescript", "tsx") or path.suffix in (".vue", ".svelte"):
            target_js = str(path.with_suffix(""))
            stem = path.parent.name if path.stem == "index" and path.parent.name else path.stem
            pattern = rf"(?:import|require|from)\b.*['\"][^'\"]*\b{re.escape(stem)}\b"
            globs, check = JS_GLOBS, lambda imp, text, t=target_js: _js_imports_file(imp, text, t)
        elif language == "rust":
            rust_target = rust_module_path(file)
            if not rust_target:  # a crate root, or no crate folder to place it in
                continue
            # a `use a::{` whose tree goes on over the next lines may name the module further down
            pattern = (rf"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:mod|use)\b.*\b{re.escape(rust_target[-1])}\b"
                       r"|use\s[^;{}]*\{[^;}]*$)")
            globs, check = ["*.rs"], lambda imp, text, t=file: rust_imports_file(imp, text, t)
        elif language in ("java", "kotlin"):
            source = _source(explorer, file)
            if source is None:
                continue
            package, name = jvm_class_of(source, file)
            if not package:
                continue
            pattern = (rf"^\s*import\s+(?:static\s+)?(?:{re.escape(package)}\.\*|[\w.]*\b{re.escape(name)}\b)")
            globs = JVM_GLOBS

            def check(imp: str, text: str, pkg: str = package, cls: str = name) -> bool:
                found = jvm_imports_class(text, pkg, cls)
                return found == "class" or (found == "package" and _names_class(explorer, imp, cls))
        elif language in ("c", "cpp") and path.suffix.lower() in C_HEADERS:
            pattern = rf"^\s*#\s*(?:include|import)\s*[<\"](?:[^>\"]*/)?{re.escape(path.name)}[>\"]"
            globs = C_GLOBS

            def check(imp: str, text: str, target: str = file) -> bool:
                return c_includes_file(imp, text, target, lambda rel: (explorer.root.path / rel).is_file())
        elif language == "go":
            folder = list(path.parent.parts)
            if not folder:
                continue
            pattern = rf"\"[^\"]*\b{re.escape(folder[-1])}\""
            globs, check = ["*.go"], lambda imp, text, f=folder: _go_imports_dir(text, f)
        else:
            continue
        try:
            found = as_dict(explorer.search_text(pattern, glob=globs, max_results=max_results))
        except CodeIntelError as err:
            notes.append(f"{file}: importers not searched ({err.message})")
            continue
        if found.get("truncated"):
            notes.append(f"{file}: many import lines mention its name; the first ones were checked")
        # the module as importers name it (Python's comes from each import line: _python_import_name)
        module = ("crate::" + "::".join(rust_module_path(file) or []) if language == "rust"
                  else f"{package}.{name}" if language in ("java", "kotlin")
                  else file if language in ("c", "cpp")
                  else str(path.with_suffix("")))
        matches = found.get("matches", [])
        in_code = _in_code(explorer, matches)
        for match in matches:
            if (match["file"], match["line"]) not in in_code:
                continue  # a commented-out require, an import in a docstring's example
            importer = match["file"]
            if importer == file or (language == "go" and PurePosixPath(importer).parent == path.parent):
                continue
            text = match["text"]
            if language == "python" and _opens_import_list(text):
                text = text.rstrip() + _import_list_rest(explorer, importer, match["line"])
            elif language == "rust" and _opens_use_tree(text):
                text = text.split("//", 1)[0].rstrip() + _import_list_rest(explorer, importer, match["line"],
                                                                            comment="//", closer=";")
            named = _python_import_name(importer, text, target) if language == "python" else \
                module if check(importer, text) else None
            if named is not None:
                items.append(Importer(file=importer, line=match["line"], module=named, target=file,
                                      text=match["text"].strip()))
    return items
