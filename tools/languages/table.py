"""File extension -> language name, and cached tree-sitter parsers (tree-sitter-language-pack, offline).

Shared by the exploration tools and the semantic chunker so both agree on what a file's language is.
"""

from __future__ import annotations

import functools
import re
import threading
from pathlib import Path, PurePath
from typing import Any

# Language names are tree-sitter-language-pack's; ctags names differ and are mapped where needed.
EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java", ".kt": "kotlin", ".kts": "kotlin",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
    ".cs": "csharp", ".rb": "ruby", ".php": "php", ".swift": "swift", ".scala": "scala", ".lua": "lua",
    ".sh": "bash", ".bash": "bash", ".bats": "bash", ".zig": "zig", ".dart": "dart",
    ".ex": "elixir", ".exs": "elixir", ".hs": "haskell",
    ".html": "html", ".htm": "html", ".vue": "vue", ".css": "css", ".scss": "scss",
    ".json": "json", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".md": "markdown",
}

# A script without a suffix (bin/ tools, git hooks, bash-it's vendored completions) names its interpreter on its
# first line, `#!/bin/bash` or `#!/usr/bin/env python3`: the interpreter's name without its version -> language
INTERPRETERS: dict[str, str] = {
    "sh": "bash", "bash": "bash", "dash": "bash", "ksh": "bash", "zsh": "bash", "bats": "bash",
    "python": "python", "node": "javascript", "ruby": "ruby", "lua": "lua", "luajit": "lua", "php": "php",
}
_SHEBANG = re.compile(r"#!\s*\S*?([A-Za-z]+)[0-9.]*(?:\s|$)(?:\s*(?:-\S+\s+)*([A-Za-z]+)[0-9.]*)?")

# Languages whose files hold code (functions, classes) rather than data or markup.
CODE_LANGUAGES = frozenset({
    "python", "javascript", "typescript", "tsx", "go", "rust", "java", "kotlin", "c", "cpp",
    "csharp", "ruby", "php", "swift", "scala", "lua", "bash", "zig", "dart", "elixir", "haskell",
})

# Pure markup: the write rules relax exploration for these (.blade.php, .vue, .jsx, .tsx hold logic).
MARKUP_SUFFIXES = frozenset({".html", ".htm", ".css", ".scss", ".sass", ".less", ".md"})

_lock = threading.Lock()


def language_for(path: str | PurePath) -> str | None:
    """The language of a file from its name, or None when we do not parse it."""
    name = PurePath(path).name.lower()
    if name.endswith(".blade.php"):
        return "php"
    return EXTENSIONS.get(PurePath(name).suffix)


def script_language(path: str | PurePath, text: str) -> str | None:
    """The language of a file without a suffix from its `#!` line (`#!/usr/bin/env bash` -> bash), else None."""
    if PurePath(path).suffix or not text.startswith("#!"):
        return None
    match = _SHEBANG.match(text.split("\n", 1)[0])
    if match is None:
        return None
    program = match.group(2) if match.group(1) == "env" else match.group(1)
    return INTERPRETERS.get(program or "")


def script_file_language(absolute: Path) -> str | None:
    """script_language of a file on disk, from its first bytes; None without reading for a file with a suffix, and
    for what is no regular file (a named pipe nobody writes to would block the read)."""
    if absolute.suffix or not absolute.is_file():
        return None
    try:
        with absolute.open("rb") as handle:
            head = handle.read(128)
    except OSError:
        return None
    return script_language(absolute.name, head.decode("utf-8", "replace"))


def is_markup(path: str | PurePath) -> bool:
    name = PurePath(path).name.lower()
    return not name.endswith(".blade.php") and PurePath(name).suffix in MARKUP_SUFFIXES


@functools.cache
def _language(name: str) -> Any:
    from tree_sitter_language_pack import get_language

    return get_language(name)  # type: ignore[arg-type]


def get_language(name: str) -> Any:
    """The tree-sitter Language object for a language name (raises LookupError when unknown)."""
    with _lock:
        return _language(name)


_QUERIES = Path(__file__).resolve().parent / "queries"
_QUERIES_OF = {"tsx": "typescript"}  # TSX's grammar is TypeScript's with JSX: TypeScript's queries hold for it


@functools.cache
def query_source(language: str, name: str) -> str | None:
    """The text of a tree-sitter query kept as data (queries/<language>/<name>), or None when the language has none."""
    file = _QUERIES / _QUERIES_OF.get(language, language) / name
    if not file.is_file():
        return None
    text = file.read_text(encoding="utf-8")
    # `; inherits: javascript` on the first line: that language's query of the same name comes first (TypeScript's
    # grammar holds JavaScript's nodes), as tree-sitter's editors spell it
    first = text.split("\n", 1)[0]
    if first.startswith("; inherits:"):
        bases = [query_source(base.strip(), name) or "" for base in first.removeprefix("; inherits:").split(",")]
        text = "\n".join([*bases, text])
    return text


@functools.cache
def compiled_query(language: str, name: str) -> Any:
    """queries/<language>/<name> compiled for the language's grammar, once per process (a Query is only read, so
    threads share it), or None when the language has no such query."""
    source = query_source(language, name)
    if not source:
        return None
    from tree_sitter import Query

    return Query(get_language(language), source)


def get_parser(name: str) -> Any:
    """A new tree-sitter Parser for the language. Parsers are not thread-safe, so each caller gets its own."""
    from tree_sitter import Parser

    return Parser(get_language(name))


def error_count(root: Any) -> int:
    """How many ERROR or missing nodes a tree holds (only subtrees with an error are walked)."""
    count, stack = 0, [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            count += 1
        stack.extend(c for c in node.children if c.has_error or c.is_missing)
    return count


# C#: directive lines between a type's name and the brace opening its body (newtonsoft's `public abstract partial class
# JsonWriter` / `#if HAVE_ASYNC_DISPOSABLE` / `: IAsyncDisposable` / `#endif` / `{`), where the grammar reads the
# directive's symbol as the type's name (the outline showed a class `HAVE_ASYNC_DISPOSABLE` and the chunks named every
# member of JsonWriter.Async.cs `HAVE_ASYNC_DISPOSABLE.X`): the parser reads them as spaces, every position unchanged
_CSHARP_TYPE_HEAD = re.compile(rb"^[ \t]*(?:\[[^\]\n]*\][ \t]*)*(?:\w+[ \t]+)*(?:class|struct|interface|record)[ \t]+"
                               rb"[A-Za-z_]\w*[^{};\n]*\n(?:[^{};\n]*\n)*?(?=[ \t]*\{)", re.M)
_DIRECTIVE_LINE = re.compile(rb"^[ \t]*#[^\n]*", re.M)


def _blank_directives(match: re.Match[bytes]) -> bytes:
    return _DIRECTIVE_LINE.sub(lambda line: b" " * len(line.group()), match.group())


def read_tree(language: str, source: bytes, header: bool = False) -> tuple[str, Any]:
    """(the grammar that read the source, its tree). `.h` is C's suffix and C++'s: a header (`header`) is read as
    C++, whose grammar reads nearly all C, a `.c` file as C; when the first grammar meets errors the other is tried
    and the one that reads more is kept (fmt's and abseil's headers are C++, libuv's test-list.h reads only as C)."""
    if language == "csharp" and b"#" in source:
        source = _CSHARP_TYPE_HEAD.sub(_blank_directives, source)
    first, other = ("cpp", "c") if language == "c" and header else (language, "cpp")
    tree = get_parser(first).parse(source)
    if language == "c" and tree.root_node.has_error:
        second = get_parser(other).parse(source)
        if error_count(second.root_node) < error_count(tree.root_node):
            return other, second
    return first, tree
