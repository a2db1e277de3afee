"""Which files an answer showed code of: the server's half of the session's read log.

EXPLORATION, add_explored_files and DOCUMENT_RESEARCH accept an existing file as explored (or reviewed)
only when the session saw it: the agent's own tools read it (the client hook logs that) or the answer of a
tool that shows code (declared on the tool, code_intel_server) showed a line of it, an outline of it, or a
chunk of it. Files a search skipped (`skipped_files`) are not shown.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

# fields naming files the tool did not look into, or only counted (no line of them shown)
_NOT_SHOWN = frozenset({"skipped_files", "skipped", "counted", "top_files"})
_NESTED = (BaseModel, list, dict)
MAX_SHOWN = 500


def shown_files(answer: BaseModel | dict[str, Any]) -> list[str]:
    """The files `answer` (a result model, or its JSON data) showed code of, in the order met, at most MAX_SHOWN."""
    found: dict[str, None] = {}
    _walk(answer, found)
    return list(found)[:MAX_SHOWN]


def _walk(value: Any, found: dict[str, None]) -> None:
    if len(found) >= MAX_SHOWN:
        return
    if isinstance(value, BaseModel):
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
            if name not in _NOT_SHOWN and name != "file" and isinstance(child, _NESTED):
                _walk(child, found)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, _NESTED):
                _walk(item, found)
            else:
                return  # a list of plain values (names, lines) holds no file
