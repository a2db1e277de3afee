"""Glob patterns with `**`, `{a,b}` and character classes, matched against project-relative POSIX paths.

A pattern without a slash matches a file's name in any folder (as in .gitignore); a pattern with a slash
matches the whole relative path, where `**` stands for any number of folders, including none. Braces are
expanded by bracex, each glob becomes a regular expression by pathspec's gitignore translation, and RE2
runs them: its matching time is linear in the path, whatever the pattern (`*a*a*a*a*b` on a long name).
"""

from __future__ import annotations

import functools
from typing import Any

from code_intel.core.errors import InvalidArgument

MAX_GLOB_CHARS = 1000
MAX_EXPANSIONS = 1000  # globs a pattern's braces may expand to
_DIRECTORY_GROUP = "(?P<ps_d>/)"  # pathspec's mark of a match that ends at a folder


def _refuse_unclosed(glob: str) -> None:
    depth = 0
    i = 0
    while i < len(glob):
        ch = glob[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            close = glob.find("]", i + 2 if glob[i + 1:i + 2] in ("!", "^", "]") else i + 1)
            if close < 0:
                raise InvalidArgument(f"glob {glob!r} has an unclosed '['", hint="close the character class or escape it as [[]")
            i = close
        elif ch == "{":
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        i += 1
    if depth:
        raise InvalidArgument(f"glob {glob!r} has an unclosed '{{'", hint="close the group, e.g. '*.{js,ts}'")


def _regex(glob: str) -> str:
    """One brace-free glob as a regular expression matching a whole path."""
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    if glob[:1] in ("#", "!"):
        glob = "\\" + glob  # a literal first character here, not a comment or a negation as in .gitignore
    regex, _include = GitIgnoreSpecPattern.pattern_to_regex(glob)
    if regex is None:
        return "(?!)"
    if _DIRECTORY_GROUP not in regex:
        return regex + ".*"  # `x/**`: everything inside the folder
    return regex.replace(f"(?:{_DIRECTORY_GROUP}|$)", "$").replace(_DIRECTORY_GROUP, "/")


@functools.lru_cache(maxsize=256)
def compile_glob(glob: str) -> tuple[Any, bool]:
    """The compiled pattern for a glob (its `fullmatch` tests a path) and whether it applies to the whole path
    (True) or the file name only."""
    import bracex
    import re2

    if not isinstance(glob, str):
        raise InvalidArgument(f"the glob must be a string, got {type(glob).__name__}", hint="send e.g. '**/*.py'")
    text = glob.strip()
    if not text:
        raise InvalidArgument("the glob pattern is empty", hint="send e.g. '**/*.py' or 'test_*.py'")
    if len(text) > MAX_GLOB_CHARS:
        raise InvalidArgument(f"the glob is {len(text)} characters long; at most {MAX_GLOB_CHARS} are accepted",
                              hint="send a shorter pattern")
    _refuse_unclosed(text)
    if text.startswith("./"):
        text = text[2:]
    text = text.lstrip("/")
    whole_path = "/" in text
    if text.endswith("/"):
        text += "**"  # a folder pattern means everything inside it
    try:
        globs = bracex.expand(text, limit=MAX_EXPANSIONS)
    except bracex.ExpansionLimitException:
        raise InvalidArgument(f"the glob's braces expand to more than {MAX_EXPANSIONS} patterns",
                              hint="send fewer alternatives") from None
    options = re2.Options()
    options.max_mem = 64 << 20
    # matched on bytes: RE2's wrapper maps every offset back to characters for a str, at three times the cost
    return re2.compile("|".join(f"(?:{_regex(g)})" for g in dict.fromkeys(globs)).encode(), options), whole_path


def refuse_parent_parts(glob: str) -> None:
    """Refuse a glob with a `..` part: it would match nothing and read as "no such files", since paths are matched
    inside the project."""
    if ".." in glob.strip().lstrip("!").split("/"):
        raise InvalidArgument(f"the glob {glob!r} has a '..' part, which no path inside the project has",
                              hint="globs are matched against paths inside the project (or inside `path`); "
                                   "send a pattern without '..', e.g. 'src/**/*.py'")


def _utf8(path: str) -> bytes:
    """The path as UTF-8; a byte of a name that is not UTF-8 (a surrogate escape) becomes U+FFFD."""
    try:
        return path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace").encode("utf-8")


def glob_matches(glob: str, relative_path: str, base: str | None = None) -> bool:
    """True when the glob matches the path (or, with `base`, the path relative to that folder)."""
    matcher, whole_path = compile_glob(glob)
    if not whole_path:
        return matcher.fullmatch(_utf8(relative_path.rsplit("/", 1)[-1])) is not None
    if matcher.fullmatch(_utf8(relative_path)) is not None:
        return True
    if base and base not in (".", "") and relative_path.startswith(base.rstrip("/") + "/"):
        return matcher.fullmatch(_utf8(relative_path[len(base.rstrip("/")) + 1 :])) is not None
    return False
