"""File names that are not valid UTF-8, in a form a client can read, keep and send back.

Linux allows any bytes in a file name. Inside the server such a name is a Python string holding
surrogate escapes (what `os.fsdecode` gives), which every `os` call understands but JSON cannot
carry. Towards the client each undecodable byte is written `\\xNN` (and, in those names only, a
real backslash as `\\\\`), so `caf\\xe9.py` names the Latin-1 file `café.py`. A path the client
sends back in that form is turned into the real name by `from_client` when no file has the literal
name, so the escaped form is accepted by every tool that takes a path.
"""

from __future__ import annotations

import os
import re
from typing import Any

_SURROGATE = re.compile("[\udc80-\udcff]")  # what surrogateescape makes of an undecodable byte
_ANY_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPE = re.compile(r"\\(\\|x[0-9a-fA-F]{2})")


def has_undecodable(text: str) -> bool:
    return _SURROGATE.search(text) is not None


def to_client(name: str | bytes) -> str:
    """A name (bytes, or a str with surrogate escapes) as printable text; valid UTF-8 names are unchanged."""
    if isinstance(name, str):
        if not has_undecodable(name):
            return name
        raw = name.encode("utf-8", errors="surrogateescape")
    else:
        raw = name
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    out: list[str] = []
    for ch in raw.decode("utf-8", errors="surrogateescape"):
        if "\udc80" <= ch <= "\udcff":
            out.append(f"\\x{ord(ch) - 0xDC00:02x}")
        elif ch == "\\":
            out.append("\\\\")
        else:
            out.append(ch)
    return "".join(out)


def from_client(text: str) -> str:
    """The real name (surrogate-escaped str) for a client's `\\xNN` form; other text is returned unchanged."""
    if "\\x" not in text:
        return text

    def unescape(match: re.Match[str]) -> str:
        token = match.group(1)
        if token == "\\":
            return "\\"
        return os.fsdecode(bytes([int(token[1:], 16)]))

    return _ESCAPE.sub(unescape, text)


def client_safe(value: Any) -> Any:
    """A JSON-ready value with every string that holds surrogates replaced by its client form.

    Used on every response: a lone surrogate cannot be encoded as UTF-8, and an answer that fails
    to encode is an answer the client never gets.
    """
    if isinstance(value, str):
        return value if _ANY_SURROGATE.search(value) is None else _printable(value)
    if isinstance(value, dict):
        return {client_safe(k) if isinstance(k, str) else k: client_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [client_safe(v) for v in value]
    return value


def _printable(text: str) -> str:
    """Surrogate escapes as `\\xNN`; any other lone surrogate as U+FFFD."""
    escaped = to_client(text) if has_undecodable(text) else text
    return _ANY_SURROGATE.sub("\ufffd", escaped)
