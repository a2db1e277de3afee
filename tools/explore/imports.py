"""A file's import statements, read from its syntax tree by one generic reader over the query kept as data for
its language (code_intel/languages/queries/<language>/imports.scm).

A query names, per match: `@import` the statement (its line is the import's), `@module` the module as written
(the text from the first node to the last when the grammar writes it as several, Scala's `a.b.c`; `@module.<kind>`
for one the language resolves differently: a Rust `mod x;` is `submodule`, a C `<x.h>` is
`library`, a Ruby `require_relative` is `relative`), `@name` each name it imports and `@wildcard` a `*`. Matches
of one statement and module are one import. What is in a comment or a string is never a statement, so never an
import.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from code_intel.explore.syntax import ParsedFile
from code_intel.languages.table import compiled_query, language_for, read_tree


@dataclass(frozen=True)
class ImportSpec:
    line: int  # 1-based line of the statement
    module: str  # as written, quotes and brackets dropped (a Python relative module keeps its dots)
    names: tuple[str, ...] = ()  # as written (`x as y`); ("*",) for a wildcard
    kind: str = ""  # "" or the suffix of its @module.<kind> capture
    text: str = ""  # the source line the statement starts on, stripped


def _query(language: str) -> Any:
    return compiled_query(language, "imports.scm")


def has_import_query(language: str | None) -> bool:
    return language is not None and _query(language) is not None


def read_imports(parsed: ParsedFile) -> list[ImportSpec]:
    """The imports of a parsed file in the order they are written (none for a language without imports.scm)."""
    from tree_sitter import QueryCursor

    query = _query(parsed.language)
    if query is None:
        return []
    found: dict[tuple[int, int], dict[str, Any]] = {}
    for _, captures in QueryCursor(query).matches(parsed.root):
        modules = [(capture, nodes) for capture, nodes in captures.items() if capture.split(".")[0] == "module"]
        if not modules or "import" not in captures:
            continue
        (capture, module), statement = modules[0], captures["import"][0]
        entry = found.setdefault((statement.start_byte, module[0].start_byte), {
            "statement": statement, "module": module, "kind": capture.partition(".")[2], "names": {}})
        for node in captures.get("name", []):
            entry["names"][node.start_byte] = parsed.text(node)
        if "wildcard" in captures:
            entry["names"][captures["wildcard"][0].start_byte] = "*"
    out = []
    for _, entry in sorted(found.items()):
        statement = entry["statement"]
        begin = parsed.source.rfind(b"\n", 0, statement.start_byte) + 1
        end = parsed.source.find(b"\n", statement.start_byte)
        text = parsed.source[begin: end if end >= 0 else len(parsed.source)].decode("utf-8", errors="replace")
        out.append(ImportSpec(
            line=statement.start_point[0] + 1,
            module=parsed.source[entry["module"][0].start_byte : entry["module"][-1].end_byte].decode(
                "utf-8", errors="replace").strip().strip("\"'<>`"),
            names=tuple(name for _, name in sorted(entry["names"].items())),
            kind=entry["kind"],
            text=text.strip(),
        ))
    return out


def is_import_line(text: str, file: str) -> bool:
    """The line, read alone by its file's grammar, is an import its language's imports query captures (a package
    declaration is not): analyze_impact sees a reference's line, not its file's tree. A PHP line is code only after
    `<?php`. A line of an import spread over several lines is no statement alone, so it reads as a reference."""
    language = language_for(file)
    if language is None or not has_import_query(language):
        return False
    source = (b"<?php " if language == "php" else b"") + text.strip().encode("utf-8", "surrogatepass")
    grammar, tree = read_tree(language, source)
    return any(spec.kind != "package" for spec in read_imports(ParsedFile(Path(file), grammar, source, tree)))
