"""Universal Ctags adapter: runs ctags with JSON output on a list of files and yields clean definitions.

Pseudo-tags, anonymous placeholders and import aliases are dropped: they are not definitions.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from code_intel.core import processes
from code_intel.core.binaries import require_binary
from code_intel.explore import budget
from code_intel.explore.models import Definition
from code_intel.languages.table import language_for

log = logging.getLogger(__name__)

# ctags language name -> tree-sitter-language-pack name (the names the rest of code-intel uses)
CTAGS_LANGUAGES: dict[str, str] = {
    "Python": "python", "JavaScript": "javascript", "TypeScript": "typescript", "Go": "go", "Rust": "rust",
    "Java": "java", "C": "c", "C++": "cpp", "C#": "csharp", "Ruby": "ruby", "PHP": "php", "Kotlin": "kotlin",
    "Sh": "bash", "Lua": "lua",
}
# File suffixes ctags reads (with the maps added below); other source files are indexed from tree-sitter
# outlines (.tsx, .swift, .scala, ...).
CTAGS_SUFFIXES = frozenset({
    ".py", ".pyi", ".pyw", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".go", ".rs", ".java",
    ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".cs", ".rb", ".php", ".kt", ".kts", ".sh", ".bash", ".lua",
})
# Not .ex, .exs or .hs: ctags' Elixir parser reads the `defmodule` examples of a @moduledoc as definitions and names a
# module by its last part only; its Haskell parser misses classes and instances. Not .bats: ctags' shell parser knows
# no `@test "title"` and takes a here-document's marker for a definition. Their outlines give the definitions.

_OPTIONS = [
    "--output-format=json", "--sort=no", "--fields=+neSlZi", "--extras=-p-{anonymous}",
    # import aliases (`from x import y as z`) are references to other modules, not definitions here
    "--kinds-Python=-xI",
    # PHP's `use Monolog\Logger;` lines are import aliases too (a quarter of monolog's tags named each class again)
    "--kinds-PHP=-a",
    "--langmap=Python:+.pyi.pyw", "--langmap=JavaScript:+.cjs", "--langmap=TypeScript:+.mts.cts",
    "--guess-language-eagerly",  # a script without a suffix: by its `#!` line (only files no name maps)
]
# ctags' kind names differ per parser; "member" is a method in Python but a struct field in C/C++/Go
_KIND_NAMES = {"func": "function", "var": "variable", "const": "constant"}
MIN_FILES_PER_RUN = 100


def _balanced(cwd: Path, files: list[str], count: int) -> list[list[str]]:
    """Split files into `count` lists of about equal total size, so parallel runs finish together."""
    def size(rel: str) -> int:
        try:
            return (cwd / rel).stat().st_size
        except OSError:
            return 0

    chunks: list[list[str]] = [[] for _ in range(count)]
    loads = [0] * count
    for rel, weight in sorted(((f, size(f)) for f in files), key=lambda item: -item[1]):
        lightest = loads.index(min(loads))
        chunks[lightest].append(rel)
        loads[lightest] += weight
    return [c for c in chunks if c]


# Languages whose type bases the index records: ctags' `inherits` field, and for Rust the trait of each
# `impl Trait for Type` and a trait's supertraits, read from the tag's source line (rust_bases). Kotlin, Go and
# Swift have none, so no claim about inheritance is made for them.
BASES_RECORDED = frozenset({"java", "python", "javascript", "typescript", "csharp", "cpp", "php", "ruby", "rust"})
# ctags' kinds of the Rust tags rust_bases reads: `impl` blocks and traits
RUST_BASE_KINDS = frozenset({"implementation", "interface"})
_ACCESS_WORDS = frozenset({"public", "protected", "private", "virtual", "internal"})


def bare_name(qualified: str) -> str:
    """The last part of a dotted or `::`-joined name: `pkg.Outer.Inner` and `ns::Type` give Inner and Type."""
    return re.split(r"\.|::", qualified)[-1]


def base_names(inherits: str) -> list[str]:
    """The bare names of the bases in ctags' `inherits` text: `mod.Base[T]` and `java.util.List<E>` give Base and
    List; keyword entries (`metaclass=M`) and access words (`public Base` in C++) are dropped."""
    names: list[str] = []
    for part in _top_level_split(inherits, ","):  # top-level commas only: `Map<K, V>` is one base
        entry = re.split(r"[<\[(]", part.strip(), maxsplit=1)[0].strip()  # `Iterator<Item = T>` keeps its name
        if not entry or "=" in entry:
            continue
        words = [w for w in entry.split() if w not in _ACCESS_WORDS]
        if words:
            name = bare_name(words[-1])
            if name.isidentifier() and name not in names:
                names.append(name)
    return names


def _top_level_split(text: str, separator: str) -> list[str]:
    """`text` split at `separator` where it is outside <...>, (...) and [...]."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        char = text[i]
        if char in "<([":
            depth += 1
        elif char in ">)]" and not (char == ">" and text[i - 1 : i] == "-"):  # `->` in `Fn(u8) -> u8` closes nothing
            depth = max(0, depth - 1)
        elif depth == 0 and text.startswith(separator, i):
            parts.append(text[start:i])
            i += len(separator)
            start = i
            continue
        i += 1
    parts.append(text[start:])
    return parts


def _skip_generics(text: str) -> str:
    """`text` without a leading `<...>` (balanced)."""
    if not text.startswith("<"):
        return text
    depth = 0
    for i, char in enumerate(text):
        depth += char == "<"
        depth -= char == ">" and text[i - 1 : i] != "-"
        if depth == 0:
            return text[i + 1 :]
    return ""


_RUST_IMPL = re.compile(r"^\s*(?:(?:pub(?:\([^)]*\))?|unsafe|default)\s+)*impl\b\s*")
_RUST_TRAIT = re.compile(r"^\s*(?:(?:pub(?:\([^)]*\))?|unsafe|auto)\s+)*trait\s+[A-Za-z_]\w*\s*")


def rust_bases(kind: str, line: str) -> str | None:
    """A Rust tag's bases, in ctags' `inherits` form ("A, B"), from its source line: the trait of
    `impl<T> fmt::Display for Wrapper<T>` (negative impls, `impl !Send for X`, implement nothing) and the
    supertraits of `trait Shape: Clone + fmt::Debug`. None for an inherent impl or a trait without supertraits;
    only what the first line says is read (an impl header split over lines gives nothing)."""
    if kind == "implementation" and (m := _RUST_IMPL.match(line)):
        head = _top_level_split(_skip_generics(line[m.end():].lstrip()), " for ")
        trait = head[0].strip() if len(head) > 1 else ""
        return trait if trait and not trait.startswith("!") else None
    if kind == "interface" and (m := _RUST_TRAIT.match(line)):
        rest = _skip_generics(line[m.end():]).lstrip()
        if not rest.startswith(":"):
            return None
        bounds = _top_level_split(_top_level_split(rest[1:], "{")[0], " where ")[0]
        names = [b.strip() for b in _top_level_split(bounds, "+") if b.strip()]
        return ", ".join(names) or None
    return None


def _signature(tag: dict[str, object]) -> str | None:
    name = str(tag.get("name", ""))
    sig = tag.get("signature")
    if isinstance(sig, str):
        text = name + sig
        typeref = tag.get("typeref")
        if isinstance(typeref, str) and typeref.startswith("typename:"):
            text += " -> " + typeref.removeprefix("typename:")
        return text
    pattern = tag.get("pattern")
    if isinstance(pattern, str) and pattern.startswith("/^"):
        return _pattern_line(pattern).strip()[:200] or None
    return None


def _pattern_line(pattern: str) -> str:
    """The tag's source line, as ctags quoted it in its `/^...$/` pattern."""
    return pattern[2:].removesuffix("/").removesuffix("$").replace("\\/", "/").replace("\\\\", "\\")


@dataclass(slots=True)
class Tag:
    """One definition as the index holds it: a slotted record, turned into a Definition only when shown."""

    file: str
    name: str
    line: int
    end_line: int
    kind: str
    scope: str | None
    language: str | None
    signature: str | None
    inherits: str | None = None  # a type's bases as ctags writes them ("Base, metaclass=M", "B,C,D")

    def to_definition(self) -> Definition:
        return Definition(file=self.file, name=self.name, line=self.line, end_line=self.end_line, kind=self.kind,
                          scope=self.scope, language=self.language, signature=self.signature)


_JS_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})
_JS_DECLARATION = re.compile(r"(?<![\w$.])(?:const|let|var)\s")


def _js_not_declared(name: str, line: str) -> bool:
    """Whether ctags took a name on a JS/TS declaration line for a variable the line only uses: `foo` in
    `const b = a ?? foo(2)` (ctags' TypeScript parser reads `??`, `?.` and `!` so). On that line the name comes
    after a declarator's `=`, outside brackets; `const a = 1, foo = 2` and `const {x = 1, foo} = o` declare it."""
    declaration = _JS_DECLARATION.search(line)
    if declaration is None:
        return False  # not a line this check can read (a class field, an enum member ...): keep the tag
    at = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", line[declaration.end():])
    if at is None:
        return False
    depth, assigned = 0, False
    for char in line[declaration.end(): declaration.end() + at.start()]:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "=" and depth == 0:
            assigned = True
        elif char == "," and depth == 0:
            assigned = False  # the next declarator starts
    return assigned


# Languages that write a definition's owner into its name (Elixir's `defmodule Phoenix.Router`, Lua's `function
# M.f()` and `M:f()`) -> the characters that separate them
DOTTED_NAMES = {"elixir": ".", "lua": ".:"}


def split_dotted(name: str, language: str | None) -> tuple[str, str]:
    """(owner, name) of a definition named with its owner, cut at the last separator DOTTED_NAMES gives its language
    (`M.root_pattern` -> `M`, `root_pattern`); ("", name) when it has none."""
    cut = max((name.rfind(c) for c in DOTTED_NAMES.get(language or "", "")), default=-1)
    return (name[:cut], name[cut + 1:]) if cut > 0 else ("", name)


# ctags' signature of a C function written inside a macro call, `UV_UNUSED(static int uv__stat(const char* path))`,
# which it names after the macro: "(static int uv__stat (const char * path))" -> the inner name and its parameters
_MACRO_WRAPPED_SIGNATURE = re.compile(r"^\(\s*[A-Za-z_][^()]*?\b([A-Za-z_]\w*)\s*(\(.*\))\s*\)$")


def macro_wrapped_tag(name: str, signature: object) -> tuple[str, str] | None:
    """(name, signature) of a C/C++ function that ctags named after the macro wrapping its declaration (as
    grammar.macro_wrapped does for the tree); None when the tag is not such a function."""
    if not (name.isupper() and isinstance(signature, str)):
        return None
    match = _MACRO_WRAPPED_SIGNATURE.match(signature)
    return (match.group(1), match.group(1) + match.group(2)) if match else None


def tag_to_definition(tag: dict[str, object], languages: dict[str, str | None] | None = None) -> Tag | None:
    if tag.get("_type") != "tag":
        return None  # pseudo-tags (!_TAG_...) and anything else ctags emits about itself
    name = tag.get("name")
    line = tag.get("line")
    if not isinstance(name, str) or not isinstance(line, int) or not name or name.startswith("__anon"):
        return None
    kind = str(tag.get("kind", "unknown"))
    end = tag.get("end")
    file = str(tag.get("path", "")).removeprefix("./")
    # the shared extension table decides the language, so ctags' C++-for-.h agrees with the other tools
    cache = languages if languages is not None else {}
    if file not in cache:
        cache[file] = language_for(file) or CTAGS_LANGUAGES.get(str(tag.get("language", "")))
    language = cache[file]
    scope = tag.get("scope")
    kind = _KIND_NAMES.get(kind, kind)
    if kind == "member":
        kind = "method" if language == "python" else "field"
    inherits = tag.get("inherits")
    pattern = tag.get("pattern")
    if (language in _JS_LANGUAGES and kind in ("constant", "variable") and isinstance(pattern, str)
            and _js_not_declared(name, _pattern_line(pattern))):
        return None
    if language == "rust" and kind in RUST_BASE_KINDS and isinstance(pattern, str) and pattern.startswith("/^"):
        inherits = rust_bases(kind, _pattern_line(pattern))
    if language == "lua" and not scope:
        # ctags names a module table's function `M.root_pattern` (`function M.f()`, `M.f = function`, `M:f()`):
        # the function is `root_pattern` of scope `M`, as a question and find_definitions write it
        owner, short = split_dotted(name, language)
        scope, name = (owner, short) if owner else (scope, name)
    signature = _signature(tag)
    if language in ("c", "cpp") and kind == "function" and (wrapped := macro_wrapped_tag(name, tag.get("signature"))):
        name, signature = wrapped  # `UV_UNUSED(static void uv__update_time(uv_loop_t* loop)) {`: uv__update_time
    return Tag(file, name, line, end if isinstance(end, int) and end >= line else line, kind,
               scope if isinstance(scope, str) else None, language, signature,
               inherits if isinstance(inherits, str) and inherits else None)


def _run(cwd: Path, files: list[str], timeout: float) -> list[Tag]:
    args = [require_binary("ctags"), *_OPTIONS, "-L", "-", "-f", "-"]
    # names that are not UTF-8 travel as their own bytes both ways (surrogate escapes in Python)
    timeout = budget.remaining(timeout)
    done = processes.run(args, cwd=cwd, input="\n".join(files).encode("utf-8", errors="surrogateescape"),
                         timeout=timeout)
    if done.timed_out:  # its callers mark their answer partial (the time budget ran out first)
        raise subprocess.TimeoutExpired(args, timeout)
    if done.returncode != 0:
        log.warning("ctags exited %s: %s", done.returncode, done.err[:500])
    lines = done.stdout.decode("utf-8", errors="surrogateescape").splitlines()
    try:
        tags = json.loads("[" + ",".join(lines) + "]")  # one decoder call instead of one per tag
    except json.JSONDecodeError:
        tags = []
        for raw in lines:
            try:
                tags.append(json.loads(raw))
            except json.JSONDecodeError:
                continue  # a tag line broken by odd bytes in a file name: skip it, keep the rest
    found: list[Tag] = []
    languages: dict[str, str | None] = {}
    for tag in tags:
        definition = tag_to_definition(tag, languages)
        if definition is not None:
            found.append(definition)
    return found


def run_ctags(cwd: Path, files: list[str], timeout: float = 120.0) -> Iterator[Tag]:
    """Definitions in the given project-relative files; large lists run as parallel ctags processes."""
    if not files:
        return iter(())
    workers = max(1, min(os.cpu_count() or 1, 4, -(-len(files) // MIN_FILES_PER_RUN)))
    if workers == 1:
        return iter(_run(cwd, files, timeout))
    chunks = _balanced(cwd, files, workers)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(lambda chunk: _run(cwd, chunk, timeout), chunks))
    return (d for batch in results for d in batch)
