"""Which files an exploration tool's answer showed code of: the server's half of the session's read log.

EXPLORATION, add_explored_files and DOCUMENT_RESEARCH accept an existing file as explored (or reviewed)
only when the session saw it: the agent's own tools read it (the client hook logs that) or one of these
answers showed a line of it, an outline of it, or a chunk of it. A file named only by search_files (a name, no code) is not shown.
Files a search skipped (`skipped_files`) are not shown either.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from code_intel.server.written import WrittenList

# the tools whose answers show code; every item pointing into code names its `file` (CONTRACT.md)
SHOWING_TOOLS = frozenset({
    "search_text", "find_definitions", "find_references", "get_symbols", "analyze_structure",
    "get_function_at_line", "analyze_impact", "query", "semantic_search", "fetch_chunk_detail",
})
# fields naming files the tool did not look into, or only counted (no line of them shown)
_NOT_SHOWN = frozenset({"skipped_files", "skipped", "counted", "top_files"})
_NESTED = (BaseModel, list, dict, WrittenList)
MAX_SHOWN = 500


def shown_files(tool: str, result: BaseModel) -> list[str]:
    """The files `result` (the answer of `tool`) showed code of, in the order met, at most MAX_SHOWN."""
    if tool not in SHOWING_TOOLS:
        return []
    found: dict[str, None] = {}
    _walk(result, found)
    return list(found)[:MAX_SHOWN]


def _walk(value: Any, found: dict[str, None]) -> None:
    if len(found) >= MAX_SHOWN:
        return
    if isinstance(value, WrittenList):
        from code_intel.explore.ripgrep import written_files

        found.update(dict.fromkeys(written_files(value)))
    elif isinstance(value, BaseModel):
        file = getattr(value, "file", None)
        if isinstance(file, str) and file:
            found[file] = None
        for name in type(value).model_fields:
            if name not in _NOT_SHOWN and name != "file":
                child = getattr(value, name)
                if isinstance(child, _NESTED):
                    _walk(child, found)
    elif isinstance(value, dict):
        file = value.get("file")
        if isinstance(file, str) and file:
            found[file] = None
        for name, child in value.items():
            if name not in _NOT_SHOWN and isinstance(child, _NESTED):
                _walk(child, found)
    elif isinstance(value, list):
        if value and isinstance(value[0], dict) and "file" in value[0]:  # match records: the file is all they name
            found.update(dict.fromkeys(r["file"] for r in value if isinstance(r, dict) and isinstance(r.get("file"), str)))
            return
        for item in value:
            if isinstance(item, _NESTED):
                _walk(item, found)
            else:
                return  # a list of plain values (names, lines) holds no file
