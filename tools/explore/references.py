"""find_references: whole-word ripgrep hits, each judged against the file's syntax.

A hit is code, a comment or a string according to the file's lexical map (built from its tree-sitter
tree, see lexical.py); comments and strings are left out unless asked for. A code hit is a definition
when the definition index has that name on that line. Files that hold no code (docs, markup, data)
are prose: their hits count as comments.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from tools.errors import InvalidArgument
from tools.explore import budget
from tools.explore.lexical import LexicalIndex, LexicalMap
from tools.explore.models import LeftOut, Reference, ReferenceResult
from tools.explore.ripgrep import RgFilters, RgLine, run_rg_json
from tools.languages import language_for

log = logging.getLogger(__name__)

_SYMBOL = re.compile(r"[$@]?[\w$]+\Z")
# Languages where `$` is part of an identifier: `$foo` and `foo$` are other names than `foo`.
_DOLLAR_IN_NAMES = frozenset({"javascript", "typescript", "tsx", "kotlin", "java", "scala"})


def normalise_symbol(symbol: str) -> str:
    """The bare name to look for: `Foo.bar` and `Foo::bar` mean `bar`; surrounding space is ignored."""
    text = (symbol or "").strip()
    for sep in ("::", "->", "."):
        text = text.rsplit(sep, 1)[-1]
    text = text.removesuffix("()").lstrip("$@")
    if not text or not _SYMBOL.match(text):
        raise InvalidArgument(
            f"symbol {symbol!r} is not an identifier",
            hint="send one name such as 'parse_config' or 'UserService.save'; use search_text for other text",
        )
    return text


def find_references(
    root: Path,
    filters: RgFilters,
    lexical: LexicalIndex,
    definition_lines: Callable[[str, list[str]], set[tuple[str, int]]],
    symbol: str,
    *,
    language_globs: list[str] | None = None,
    include_comments: bool = False,
    include_strings: bool = False,
    max_results: int = 200,
    timeout: float = 10.0,
) -> ReferenceResult:
    if max_results < 1:
        raise InvalidArgument("max_results must be at least 1")
    name = normalise_symbol(symbol)
    flags = ["--fixed-strings", "--word-regexp", "--case-sensitive"]
    for glob in language_globs or []:
        flags += ["--glob", glob]
    outcome = run_rg_json(root, [name], filters, flags=flags, timeout=timeout)
    by_file: dict[str, list[RgLine]] = defaultdict(list)
    for line in outcome.lines:
        by_file[line.file].append(line)

    code_files = [f for f in by_file if lexical.handles(f)]
    maps = lexical.maps_for(code_files)
    unjudged = [f for f in code_files if f not in maps]  # the time budget ran out before their maps were built
    if unjudged:
        budget.note_partial(f"{len(unjudged)} files with hits were not checked for code, comments and strings "
                            "in time and are left out")
    definitions = definition_lines(name, [f for f in code_files if f in maps])
    references: list[Reference] = []
    left_out = {"comment": 0, "string": 0}
    for rel in sorted(by_file):
        if rel in unjudged:
            continue
        for ref in _judge_file(rel, by_file[rel], name, maps.get(rel), rel in maps, definitions):
            if _wanted(ref, include_comments, include_strings):
                references.append(ref)
            else:
                left_out[ref.context] += 1
    return ReferenceResult(
        references=references[:max_results],
        total=len(references),
        truncated=len(references) > max_results,
        files_with_matches=len({r.file for r in references}),
        left_out=_left_out(left_out["comment"], left_out["string"]),
    )


def _left_out(comments: int, strings: int) -> LeftOut | None:
    """What the answer says of the hits it did not list: a name in `__all__`, a docstring or a doc file matters
    when renaming, and the agent should know those hits exist."""
    if not comments and not strings:
        return None
    asks = [arg for arg, n in (("include_comments=true", comments), ("include_strings=true", strings)) if n]
    return LeftOut(comments=comments, strings=strings,
                   hint=f"hits in comments, docs and strings (such as __all__ entries and docstrings) are not listed; "
                        f"send {' and '.join(asks)} to see them")


def _wanted(ref: Reference, include_comments: bool, include_strings: bool) -> bool:
    if ref.context == "comment":
        return include_comments
    if ref.context == "string":
        return include_strings
    return True


def _judge_file(rel: str, lines: list[RgLine], name: str, lexical_map: LexicalMap | None, is_code_file: bool,
                definitions: set[tuple[str, int]]) -> list[Reference]:
    dollar = language_for(rel) in _DOLLAR_IN_NAMES
    out: list[Reference] = []
    for line in lines:
        raw = line.text.encode("utf-8") if dollar else b""
        for (start, end), column in zip(line.spans, line.columns, strict=True):
            if not is_code_file:
                context = "comment"  # prose: documentation and text files
            elif lexical_map is None:
                context = "code"  # unparsable source: keep the hit rather than lose a real use
            else:
                context = lexical_map.category(line.offset + start)
            if context == "code" and dollar and (raw[start - 1 : start] == b"$" or raw[end : end + 1] == b"$"):
                continue  # `$name` is another identifier in these languages
            definition = context == "code" and (rel, line.line) in definitions
            out.append(Reference(file=rel, line=line.line, column=column, text=line.text.strip()[:300],
                                 is_definition=definition, context=context))  # type: ignore[arg-type]
    return out
