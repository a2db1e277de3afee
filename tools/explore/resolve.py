"""The project files an import names, resolved as the language resolves them. Only where a language's rule really
differs is there code of its own; what an import says is read from the syntax tree (explore/imports.py).

Python: a relative module (`from . import x`, `from ..pkg import y`) against the importing file's package; an
absolute one against the folders packages are laid out in (the project root, `src/`, `lib/`); `from pkg import mod`
names the submodule `pkg/mod.py` when there is one, else the package's `__init__.py`. JavaScript and TypeScript: a
relative specifier against the importing file's folder, tried with each source extension and as a folder's index
file; tsconfig.json's (or jsconfig.json's) `paths` aliases and `baseUrl` first; then the `@/`, `~/` and `#/`
aliases against `src/`, a path-like specifier (`components/Button`, a baseUrl import)
against the root and `src/`; any other bare specifier (`ignore`, `react`, `@scope/pkg`) is an npm package, not a
project file. Go: an import path under the module path of `go.mod` names that package's folder. Rust: `mod x;` and
the paths of a `use` tree (`crate::`, `self::`, `super::`, names in scope) against the importer's module in its crate
folder. Java and Kotlin: a class by its package and name. C and C++: a quoted include beside the importer first,
then (and an angle-bracket one always) under some include directory. Ruby: `require_relative` against the
requiring file's folder, `require` against `lib/` and the root. Lua: `require("a.b")` names `a/b.lua` or `a/b/init.lua`
under `lua/` (a Neovim plugin's runtime folder) or the root.

`known` lists files the caller asks about (analyze_impact's changed files): a module that names one of them by a
path suffix (a package under a deeper source folder, a header under an include directory, a class in another
module's source root) resolves to it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection
from itertools import takewhile
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

JS_EXTENSIONS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte")
_PYTHON_ROOTS: tuple[tuple[str, ...], ...] = ((), ("src",), ("lib",))
_JS_ALIASES = {"@/": "src/", "~/": "src/", "#/": "src/"}
_JS_ROOTS = ("", "src/")


def import_targets(root: Path, file: str, language: str | None, module: str, names: list[str], kind: str = "",
                   known: Collection[str] = ()) -> list[str]:
    """Project-relative files the import of `module` (with `names`, as analyze_structure reports them; `kind` from
    explore/imports.py) in `file` names; empty for a package from outside the project or an import that names no
    file here. A Go import names a folder."""
    if language == "python":
        return _python_targets(root, file, module, [n.split(" as ")[0].strip() for n in names], known)
    if language in ("javascript", "typescript", "tsx"):
        found = _js_target(root, file, module, known)
        return [found] if found else []
    if language == "go":
        return _go_targets(root, module, known)
    if language == "rust":
        return _rust_targets(root, file, module, kind)
    if language in ("java", "kotlin"):
        return _jvm_targets(root, module, "*" in names, known)
    if language in ("c", "cpp"):
        return _c_targets(root, file, module, kind, known)
    if language == "ruby":
        return _ruby_targets(root, file, module, kind, known)
    if language == "lua":
        return _lua_targets(root, module, known)
    return []


def _exists(root: Path, rel: str) -> bool:
    return (root / rel).is_file()


def _normalise(path: str | PurePosixPath) -> str | None:
    """A relative path with its `.` and `..` parts resolved, or None when it climbs above the project root."""
    parts: list[str] = []
    for part in PurePosixPath(path).parts:
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part not in (".", ""):
            parts.append(part)
    return "/".join(parts) if parts else None


def _by_suffix(known: Collection[str], suffix: str) -> list[str]:
    return [k for k in known if k == suffix or k.endswith("/" + suffix)]


# ------------------------------------------------------------------------------------------------------ Python
def module_parts(file: str) -> list[str]:
    """`src/pkg/mod.py` -> [src, pkg, mod]; a package's `__init__.py` stands for the package."""
    parts = list(PurePosixPath(file).with_suffix("").parts)
    return parts[:-1] if parts and parts[-1] == "__init__" else parts


def _python_module_file(root: Path, parts: list[str]) -> str | None:
    if not parts or any(not p.isidentifier() for p in parts):
        return None
    base = "/".join(parts)
    if _exists(root, f"{base}.py"):
        return f"{base}.py"
    if _exists(root, f"{base}/__init__.py"):
        return f"{base}/__init__.py"
    return None


def _python_targets(root: Path, file: str, module: str, names: list[str], known: Collection[str]) -> list[str]:
    dots = len(module) - len(module.lstrip("."))
    dotted = module[dots:]
    parts = dotted.split(".") if dotted else []
    if dots:
        package = list(PurePosixPath(file).parent.parts)
        if dots - 1 > len(package):
            return []
        bases = [package[: len(package) - (dots - 1)] + parts]
    else:
        bases = [list(prefix) + parts for prefix in _PYTHON_ROOTS]
    for base in bases:
        subs = [found for name in names if name != "*" and (found := _python_module_file(root, [*base, name]))]
        own = _python_module_file(root, base)
        if own or subs:
            # `from pkg import mod` loads pkg too, but what it names is the submodule; the package counts for the
            # names that are not submodules (classes, functions, `*`)
            wanted = subs + ([own] if own and len(subs) < len(names or [""]) else [])
            return [f for f in dict.fromkeys(wanted) if f != file]
    if dots:
        return []
    # a package laid out under a deeper source folder (`src/app/pkg`): the known files whose module path ends so
    wanted_paths = [parts + [name] for name in names if name != "*"] + [parts]
    return [k for k in known if k.endswith((".py", ".pyi")) and k != file
            and any(path and module_parts(k)[-len(path):] == path for path in wanted_paths)]


# ------------------------------------------------------------------------------------------ JavaScript, TypeScript
class TsConfig(NamedTuple):
    """What a tsconfig.json (or jsconfig.json) says of module resolution and of its build."""
    base_url: str = ""  # baseUrl as a folder relative to the config's, "" for none
    paths: tuple[tuple[str, tuple[str, ...]], ...] = ()  # each `paths` alias with its targets, under baseUrl
    out_dir: str = ""
    root_dir: str = ""


def read_tsconfig(path: Path) -> TsConfig:
    """A tsconfig's compilerOptions, read from its syntax tree (queries/json/tsconfig.scm; tsconfig files may hold
    comments and trailing commas, which JSON does not allow); empty when there is no such file."""
    try:
        stat = path.stat()
    except OSError:
        return TsConfig()
    return _read_tsconfig(path, stat.st_mtime_ns, stat.st_size)


def _tsconfig(root: Path) -> TsConfig:
    """The project's tsconfig.json, else its jsconfig.json."""
    for name in ("tsconfig.json", "jsconfig.json"):
        if (root / name).is_file():
            return read_tsconfig(root / name)
    return TsConfig()


@functools.lru_cache(maxsize=16)
def _read_tsconfig(path: Path, _mtime_ns: int, _size: int) -> TsConfig:
    from tree_sitter import QueryCursor

    from code_intel.languages.table import compiled_query, get_parser

    try:
        source = path.read_bytes()
    except OSError:
        return TsConfig()
    query = compiled_query("json", "tsconfig.scm")
    options: dict[str, str] = {}
    paths: dict[str, list[str]] = {}

    def text(node: Any) -> str:
        return source[node.start_byte:node.end_byte].decode("utf-8", errors="replace")

    for _, captures in QueryCursor(query).matches(get_parser("json").parse(source).root_node):
        if "alias" in captures:
            paths.setdefault(text(captures["alias"][0]), []).append(text(captures["target"][0]))
        for name in ("base_url", "out_dir", "root_dir"):
            if name in captures:
                options[name] = text(captures[name][0])
    return TsConfig(base_url=_normalise(options.get("base_url", "")) or "",
                    paths=tuple((alias, tuple(targets)) for alias, targets in paths.items()),
                    out_dir=options.get("out_dir", ""), root_dir=options.get("root_dir", ""))


def _tsconfig_bases(root: Path, spec: str) -> list[str]:
    """Where a specifier may point by tsconfig: each `paths` alias it matches (`@app/*` -> `src/app/*`, the `*` kept),
    then baseUrl's folder (a bare specifier may name a file under it)."""
    config = _tsconfig(root)
    base, paths = config.base_url, config.paths
    bases = []
    for alias, targets in paths:
        head, star, tail = alias.partition("*")
        if star and spec.startswith(head) and spec.endswith(tail) and len(spec) >= len(head) + len(tail):
            middle = spec[len(head): len(spec) - len(tail)]
            bases += [str(PurePosixPath(base or ".") / target.replace("*", middle, 1)) for target in targets]
        elif not star and spec == alias:
            bases += [str(PurePosixPath(base or ".") / target) for target in targets]
    return bases + ([f"{base}/{spec}"] if base else [])


def _js_target(root: Path, file: str, spec: str, known: Collection[str] = ()) -> str | None:
    spec = spec.split("?", 1)[0]
    if not spec.startswith((".", "/")):  # tsconfig's paths and baseUrl first, then the conventions
        found = _first_file(root, _tsconfig_bases(root, spec))
        if found:
            return found
    for alias, folder in _JS_ALIASES.items():
        if spec.startswith(alias):
            bases = [folder + spec[len(alias):], spec[len(alias):]]
            break
    else:
        if spec.startswith("."):
            bases = [str(PurePosixPath(file).parent / spec)]
        elif spec.startswith("/"):
            bases = [spec.lstrip("/")]
        elif "/" in spec and not spec.startswith("@"):
            bases = [folder + spec for folder in _JS_ROOTS]  # a baseUrl import; `lodash/fp` finds no file here
        else:
            return None  # a bare specifier is an npm package (`ignore` is not src/utils/ignore.ts)
    found = _first_file(root, bases)
    if found or spec.startswith((".", "/")):
        return found
    tail = spec.split("/", 1)[1] if spec[:2] in _JS_ALIASES else spec  # `@/web/util` under another source folder
    stem = re.sub(r"\.(?:[cm]?[jt]sx?|vue|svelte)$", "", tail)
    return next((k for k in known if re.sub(r"\.[^./]*$", "", k).removesuffix("/index").endswith("/" + stem)), None)


def _first_file(root: Path, bases: list[str]) -> str | None:
    for base in bases:
        normal = _normalise(base)
        found = _js_file(root, normal) if normal else None
        if found:
            return found
    return None


def _js_file(root: Path, base: str) -> str | None:
    stem, suffix = base, PurePosixPath(base).suffix
    if suffix in JS_EXTENSIONS or suffix == ".json":
        if _exists(root, base):
            return base
        stem = base[: -len(suffix)]  # TypeScript's ESM style: './x.js' names x.ts
    for ext in JS_EXTENSIONS:
        if _exists(root, f"{stem}{ext}"):
            return f"{stem}{ext}"
    for ext in JS_EXTENSIONS:
        if _exists(root, f"{stem}/index{ext}"):
            return f"{stem}/index{ext}"
    return None


# ---------------------------------------------------------------------------------------------------------- Go
@functools.lru_cache(maxsize=64)
def _go_module(root: Path) -> str | None:
    try:
        text = (root / "go.mod").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("module "):
            return line.split()[1].strip('"')
    return None


def _go_targets(root: Path, path: str, known: Collection[str]) -> list[str]:
    """A Go import names a package: its folder under the module path; without a go.mod, a known file's folder that
    the path ends with (a one-part path is the standard library's)."""
    module = _go_module(root)
    if module and (path == module or path.startswith(module + "/")):
        folder = path[len(module):].lstrip("/") or "."
        return [folder] if (root / folder).is_dir() else []
    if module or "/" not in path:
        return []
    folders = {str(PurePosixPath(k).parent) for k in known if k.endswith(".go")}
    parts = path.split("/")
    return sorted(f for f in folders if f != "." and parts[-len(f.split("/")):] == f.split("/")[-len(parts):])


# -------------------------------------------------------------------------------------------------------- Rust
_RUST_CRATE_DIRS = ("src", "tests", "benches", "examples")


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
    tree = re.sub(r"\s+as\s+\w+", "", re.sub(r"//[^\n]*|/\*.*?\*/", "", tree, flags=re.S))  # `x as y` names x
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


def _rust_modules(here: list[str], module: str, kind: str) -> list[tuple[list[str], list[str]]]:
    """The module paths (within the crate) an item names, each as (the module it starts from, the path written
    after it): `mod b;` in module a declares a::b; a `use` path starts from `crate::`, `self::`, `super::` or here
    (a name in scope: 2018 uniform paths; at the crate root, 2015 paths too)."""
    if kind == "submodule":
        return [(here, [module])]
    out: list[tuple[list[str], list[str]]] = []
    for path in _rust_paths(module):
        head = path[:1]
        if head == ["crate"]:
            out.append(([], path[1:]))
        elif head == ["self"]:
            out.append((here, path[1:]))
        elif head == ["super"]:
            ups = len(list(takewhile(lambda part: part == "super", path)))
            if ups <= len(here):
                out.append((here[: len(here) - ups], path[ups:]))
        else:
            out.append((here, path))
    return out


def _rust_targets(root: Path, file: str, module: str, kind: str) -> list[str]:
    place = _rust_place(file)
    if place is None:
        return []
    folder, here = place
    found: list[str] = []
    for base, path in _rust_modules(here, module, kind):
        # `crate::a::b::Item` names a::b when it has a file, else a (the item is declared in a's file)
        for end in range(len(path), 0, -1):
            stem = "/".join([folder, *base, *path[:end]])
            hit = next((f for f in (f"{stem}.rs", f"{stem}/mod.rs") if _exists(root, f)), None)
            if hit:
                found.append(hit)
                break
    return [f for f in dict.fromkeys(found) if f != file]


# ------------------------------------------------------------------------------------------------ Java, Kotlin
def jvm_class_of(root: Path, file: str) -> tuple[str, str]:
    """(package, class) of a Java or Kotlin file: its package declaration (empty for the default package, read from
    its syntax tree) and the class its file is named after."""
    from code_intel.core.errors import CodeIntelError
    from code_intel.explore.imports import read_imports
    from code_intel.explore.syntax import ParseCache

    try:
        parsed = ParseCache().get(root / file, store=False)
    except (OSError, CodeIntelError):
        return "", PurePosixPath(file).stem
    package = next((s.module for s in read_imports(parsed) if s.kind == "package"), "")
    return package, PurePosixPath(file).stem


def _jvm_targets(root: Path, module: str, wildcard: bool, known: Collection[str]) -> list[str]:
    """A class import (`a.b.C`, a member or nested class `a.b.C.x`) names C's file; a wildcard (`a.b.*`) every
    class of the package (a caller that needs the class to be used checks that)."""
    found = []
    for file in known:
        if not file.endswith((".java", ".kt", ".kts")):
            continue
        package, name = jvm_class_of(root, file)
        qualified = f"{package}.{name}"
        if package and (module == qualified or module.startswith(qualified + ".") or (wildcard and module == package)):
            found.append(file)
    return found


# ---------------------------------------------------------------------------------------------------- C, C++
def _c_targets(root: Path, file: str, spec: str, kind: str, known: Collection[str]) -> list[str]:
    """`#include "x.h"` looks beside the importer first; then, like `<dir/x.h>`, under some include directory: the
    project's own path, or a known header whose path ends with it."""
    if kind != "library":
        local = _normalise(PurePosixPath(file).parent / spec)
        if local and _exists(root, local):
            return [local]
    own = [spec] if _normalise(spec) == spec and _exists(root, spec) else []
    return list(dict.fromkeys(own + _by_suffix(known, spec)))


# -------------------------------------------------------------------------------------------------------- Ruby
def _ruby_targets(root: Path, file: str, spec: str, kind: str, known: Collection[str]) -> list[str]:
    name = spec if spec.endswith(".rb") else spec + ".rb"
    if kind == "relative":
        local = _normalise(PurePosixPath(file).parent / name)
        return [local] if local and _exists(root, local) else []
    for folder in ("lib/", ""):
        if _exists(root, folder + name):
            return [folder + name]
    return [k for k in known if f"/{k}".endswith(f"/lib/{name}")]  # a lib/ folder deeper down (a monorepo's gem)


# --------------------------------------------------------------------------------------------------------- Lua
def _lua_targets(root: Path, module: str, known: Collection[str]) -> list[str]:
    path = module.replace(".", "/")
    names = (f"{path}.lua", f"{path}/init.lua")
    for folder in ("lua/", ""):
        for name in names:
            if _exists(root, folder + name):
                return [folder + name]
    return [k for k in known if any(f"/{k}".endswith(f"/{name}") for name in names)]  # a plugin deeper down
