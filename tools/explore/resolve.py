"""The project files an import names, resolved as the language resolves them.

Python: a relative module (`from . import x`, `from ..pkg import y`) against the importing file's package; an
absolute one against the folders packages are laid out in (the project root, `src/`, `lib/`); `from pkg import mod`
names the submodule `pkg/mod.py` when there is one, else the package's `__init__.py`. JavaScript and TypeScript: a
relative specifier against the importing file's folder, tried with each source extension and as a folder's index
file; the `@/` and `~/` aliases against `src/`; any other bare specifier (`ignore`, `react`, `@scope/pkg`) is an
npm package, not a project file. Go: an import path under the module path of `go.mod` names that package's
folder.
"""

from __future__ import annotations

import functools
from pathlib import Path, PurePosixPath

JS_EXTENSIONS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte")
_PYTHON_ROOTS: tuple[tuple[str, ...], ...] = ((), ("src",), ("lib",))
_JS_ALIASES = {"@/": "src/", "~/": "src/"}


def import_targets(root: Path, file: str, language: str | None, module: str, names: list[str]) -> list[str]:
    """Project-relative files the import of `module` (with `names`, as analyze_structure reports them) in `file`
    names; empty for a package from outside the project or an import that names no file here."""
    if language == "python":
        return _python_targets(root, file, module, [n.split(" as ")[0].strip() for n in names])
    if language in ("javascript", "typescript", "tsx"):
        found = _js_target(root, file, module)
        return [found] if found else []
    if language == "go":
        return _go_targets(root, module)
    return []


def _python_module_file(root: Path, parts: list[str]) -> str | None:
    if not parts or any(not p.isidentifier() for p in parts):
        return None
    base = "/".join(parts)
    if (root / f"{base}.py").is_file():
        return f"{base}.py"
    if (root / base / "__init__.py").is_file():
        return f"{base}/__init__.py"
    return None


def _python_targets(root: Path, file: str, module: str, names: list[str]) -> list[str]:
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
    return []


def _js_target(root: Path, file: str, spec: str) -> str | None:
    spec = spec.split("?", 1)[0]
    for alias, folder in _JS_ALIASES.items():
        if spec.startswith(alias):
            base = folder + spec[len(alias):]
            break
    else:
        if not spec.startswith((".", "/")):
            return None  # a bare specifier is an npm package (`ignore` is not src/utils/ignore.ts)
        base = str(PurePosixPath(file).parent / spec) if spec.startswith(".") else spec.lstrip("/")
    normal = _normalise(base)
    if normal is None:
        return None
    base = normal
    stem, suffix = base, PurePosixPath(base).suffix
    if suffix in JS_EXTENSIONS or suffix == ".json":
        if (root / base).is_file():
            return base
        stem = base[: -len(suffix)]  # TypeScript's ESM style: './x.js' names x.ts
    for ext in JS_EXTENSIONS:
        if (root / f"{stem}{ext}").is_file():
            return f"{stem}{ext}"
    for ext in JS_EXTENSIONS:
        if (root / stem / f"index{ext}").is_file():
            return f"{stem}/index{ext}"
    return None


def _normalise(path: str) -> str | None:
    parts: list[str] = []
    for part in PurePosixPath(path).parts:
        if part == "..":
            if not parts:
                return None  # above the project root
            parts.pop()
        elif part not in (".", ""):
            parts.append(part)
    return "/".join(parts) if parts else None


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


def _go_targets(root: Path, path: str) -> list[str]:
    """A Go import names a package: its folder under the module path."""
    module = _go_module(root)
    if not module or not (path == module or path.startswith(module + "/")):
        return []
    folder = path[len(module):].lstrip("/") or "."
    return [folder] if (root / folder).is_dir() else []
