"""Glob patterns with `**`, `{a,b}` and character classes, matched against project-relative POSIX paths.

A pattern without a slash matches a file's name in any folder (as in .gitignore); a pattern with a
slash matches the whole relative path, where `**` stands for any number of folders, including none.
"""

from __future__ import annotations

import functools
import re

from tools.errors import InvalidArgument

GLOB_CHARS = frozenset("*?[{")


def _translate(glob: str) -> str:
    out: list[str] = []
    i, n = 0, len(glob)
    depth = 0  # open `{` groups
    while i < n:
        c = glob[i]
        if glob.startswith("**/", i) and (i == 0 or glob[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = glob.find("]", i + 2 if glob.startswith("[!", i) or glob.startswith("[^", i) else i + 1)
            if end == -1:
                raise InvalidArgument(f"glob {glob!r} has an unclosed '['", hint="close the character class or escape it as [[]")
            body = glob[i + 1 : end]
            if body[:1] in ("!", "^"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        elif c == "{":
            depth += 1
            out.append("(?:")
            i += 1
        elif c == "}" and depth:
            depth -= 1
            out.append(")")
            i += 1
        elif c == "," and depth:
            out.append("|")
            i += 1
        else:
            out.append(re.escape(c))
            i += 1
    if depth:
        raise InvalidArgument(f"glob {glob!r} has an unclosed '{{'", hint="close the group, e.g. '*.{py,pyi}'")
    return "".join(out)


@functools.lru_cache(maxsize=256)
def compile_glob(glob: str) -> tuple[re.Pattern[str], bool]:
    """The regex for a glob and whether it applies to the whole path (True) or the file name only."""
    text = glob.strip()
    if not text:
        raise InvalidArgument("the glob pattern is empty", hint="send e.g. '**/*.py' or 'test_*.py'")
    if text.startswith("./"):
        text = text[2:]
    text = text.lstrip("/")
    whole_path = "/" in text
    if text.endswith("/"):
        text += "**"  # a folder pattern means everything inside it
    try:
        return re.compile(_translate(text) + r"\Z"), whole_path
    except re.error as err:
        raise InvalidArgument(f"glob {glob!r} is not valid: {err}", hint="use *, **, ?, [abc] and {a,b}") from None


def glob_matches(glob: str, relative_path: str, base: str | None = None) -> bool:
    """True when the glob matches the path (or, with `base`, the path relative to that folder)."""
    regex, whole_path = compile_glob(glob)
    if not whole_path:
        return regex.match(relative_path.rsplit("/", 1)[-1]) is not None
    if regex.match(relative_path):
        return True
    if base and base not in (".", "") and relative_path.startswith(base.rstrip("/") + "/"):
        return regex.match(relative_path[len(base.rstrip("/")) + 1 :]) is not None
    return False


def has_glob_chars(text: str) -> bool:
    return any(c in GLOB_CHARS for c in text)
