"""Who imports a file: import-line recognition and module resolution for Python, JS/TS and Go.

Candidates come from one ripgrep search per changed file for import lines that mention its name;
each candidate line is then resolved (relative Python imports against the importer's package,
relative JS specifiers against the importer's folder, Go import paths against the package folder)
and kept only when it really names the changed file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from tools.errors import CodeIntelError
from tools.explore.models import as_dict
from tools.languages import language_for

if TYPE_CHECKING:
    from tools.explore.service import Explorer


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


def _python_imports_file(importer: str, text: str, target: list[str]) -> bool:
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
            return resolved == target or any(resolved + [n] == target for n in imported)
        return ends_with(base) or any(ends_with(base + [n]) for n in imported)
    m = _PY_IMPORT.match(text)
    if m:
        return any(ends_with(part.split(" as ")[0].strip().split(".")) for part in m.group(1).split(","))
    return False


def _js_imports_file(importer: str, text: str, target: str) -> bool:
    for m in _JS_SPECIFIER.finditer(text):
        spec = _JS_SUFFIX.sub("", m.group(1))
        if spec.startswith("."):
            joined = PurePosixPath(importer).parent / spec
            parts: list[str] = []
            for part in joined.parts:
                if part == "..":
                    if parts:
                        parts.pop()
                elif part != ".":
                    parts.append(part)
            resolved = "/".join(parts)
        else:
            resolved = re.sub(r"^(?:@|~|#)/", "", spec)
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


def _opens_import_list(text: str) -> bool:
    code = text.split("#", 1)[0]
    return "(" in code and ")" not in code


def _import_list_rest(explorer: Explorer, file: str, line: int, limit: int = 200) -> str:
    """The lines after an open `from x import (` up to its closing parenthesis, joined (comments dropped)."""
    try:
        lines = explorer.root.resolve(file, must_exist=True, kind="file").read_text(
            encoding="utf-8", errors="replace").splitlines()
    except (OSError, CodeIntelError):
        return ""
    rest: list[str] = []
    for text in lines[line:line + limit]:
        code = text.split("#", 1)[0]
        rest.append(code.strip())
        if ")" in code:
            break
    return " ".join(rest)


@dataclass(frozen=True)
class Importer:
    file: str  # the importing file
    line: int
    module: str  # the changed module as the importer names it (dotted for Python)
    target: str  # the changed file
    text: str  # the import line, stripped


def find_importers(explorer: Explorer, changed: list[str], notes: list[str], *, max_results: int = 150) -> list[Importer]:
    """Files that import a changed module (Python, JavaScript/TypeScript, Go package folders)."""
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
            globs, check = ["*.py", "*.pyi"], lambda imp, text, t=target: _python_imports_file(imp, text, t)
        elif language in ("javascript", "typescript", "tsx") or path.suffix in (".vue", ".svelte"):
            target_js = str(path.with_suffix(""))
            stem = path.parent.name if path.stem == "index" and path.parent.name else path.stem
            pattern = rf"(?:import|require|from)\b.*['\"][^'\"]*\b{re.escape(stem)}\b"
            globs, check = JS_GLOBS, lambda imp, text, t=target_js: _js_imports_file(imp, text, t)
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
        module = ".".join(_module_parts(file)) if language == "python" else str(path.with_suffix(""))
        for match in found.get("matches", []):
            importer = match["file"]
            if importer == file or (language == "go" and PurePosixPath(importer).parent == path.parent):
                continue
            text = match["text"]
            if language == "python" and _opens_import_list(text):
                text = text.rstrip() + _import_list_rest(explorer, importer, match["line"])
            if check(importer, text):
                items.append(Importer(file=importer, line=match["line"], module=module, target=file,
                                      text=match["text"].strip()))
    return items
