"""find_references: whole-word ripgrep hits, each judged against the file's syntax.

A hit is code, a comment or a string according to the file's lexical map (built from its tree-sitter
tree, see lexical.py); comments and strings are left out unless asked for. A code hit is a definition
when the definition index has that name on that line. Files that hold no code (docs, markup, data)
are prose: their hits count as comments.

Java keeps methods apart from fields and variables: a method is named only where it is called
(`name(`), referenced (`::name`) or declared, or as an annotation element (`@Tag(name = ...)`). When
every definition of the name in the Java files that mention it is a method, a Java hit of another
shape is a field or variable that happens to share the name; it is counted, not listed.
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
# Languages where a method's name cannot stand for a variable or field (see the module docstring).
_METHODS_APART = frozenset({"java"})
_ANNOTATION_ARGS = re.compile(rb"@[\w.]+\s*\([^()]*\Z")  # the hit sits inside `@Tag(...`


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
    definition_sites: Callable[[str, list[str]], dict[tuple[str, int], str]],
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
    sites = definition_sites(name, [f for f in code_files if f in maps])
    definitions = set(sites)
    methods_only = _methods_only(sites)
    references: list[Reference] = []
    left_out = {"comment": 0, "string": 0, "other_name": 0}
    for rel in sorted(by_file):
        if rel in unjudged:
            continue
        refs, others = _judge_file(rel, by_file[rel], name, maps.get(rel), rel in maps, definitions, methods_only)
        left_out["other_name"] += others
        for ref in refs:
            if _wanted(ref, include_comments, include_strings):
                references.append(ref)
            else:
                left_out[ref.context] += 1
    return ReferenceResult(
        references=references[:max_results],
        total=len(references),
        truncated=len(references) > max_results,
        files_with_matches=len({r.file for r in references}),
        left_out=_left_out(name, left_out["comment"], left_out["string"], left_out["other_name"]),
    )


def _methods_only(sites: dict[tuple[str, int], str]) -> frozenset[str]:
    """The languages of _METHODS_APART in which every definition of the name (in the files that mention it) is a
    method: there a hit that is not shaped like a method's use is another thing of the same name."""
    kinds: dict[str, set[str]] = defaultdict(set)
    for (rel, _line), kind in sites.items():
        language = language_for(rel)
        if language in _METHODS_APART:
            kinds[language].add(kind)
    return frozenset(lang for lang, found in kinds.items() if found == {"method"})


def _names_the_method(raw: bytes, start: int, end: int) -> bool:
    """Whether the hit at raw[start:end] is shaped like a Java method's use: a call or declaration (`name(`),
    a method reference (`::name`) or an annotation element (`@Tag(name = ...)`)."""
    return (raw[end:].lstrip().startswith(b"(") or raw[:start].rstrip().endswith(b"::")
            or _ANNOTATION_ARGS.search(raw[:start]) is not None)


def _left_out(name: str, comments: int, strings: int, other_names: int = 0) -> LeftOut | None:
    """What the answer says of the hits it did not list: a name in `__all__`, a docstring or a doc file matters
    when renaming, and the agent should know those hits exist."""
    if not comments and not strings and not other_names:
        return None
    hints = []
    asks = [arg for arg, n in (("include_comments=true", comments), ("include_strings=true", strings)) if n]
    if asks:
        hints.append(f"hits in comments, docs and strings (such as __all__ entries and docstrings) are not listed; "
                     f"send {' and '.join(asks)} to see them")
    if other_names:
        hints.append(f"{other_names} Java hits where {name} is a field or variable, not the method (a method is "
                     f"named only as `{name}(`, `::{name}` or an annotation element), are not listed; search_text "
                     "shows every hit")
    return LeftOut(comments=comments, strings=strings, other_names=other_names, hint="; ".join(hints))


def _wanted(ref: Reference, include_comments: bool, include_strings: bool) -> bool:
    if ref.context == "comment":
        return include_comments
    if ref.context == "string":
        return include_strings
    return True


def _judge_file(rel: str, lines: list[RgLine], name: str, lexical_map: LexicalMap | None, is_code_file: bool,
                definitions: set[tuple[str, int]], methods_only: frozenset[str] = frozenset()) -> tuple[list[Reference], int]:
    """The file's hits as references, and how many were left out as other things sharing a method's name."""
    language = language_for(rel)
    dollar = language in _DOLLAR_IN_NAMES
    method = language in methods_only
    out: list[Reference] = []
    others = 0
    for line in lines:
        raw = line.text.encode("utf-8") if dollar or method else b""
        for (start, end), column in zip(line.spans, line.columns, strict=True):
            if not is_code_file:
                context = "comment"  # prose: documentation and text files
            elif lexical_map is None:
                context = "code"  # unparsable source: keep the hit rather than lose a real use
            else:
                context = lexical_map.category(line.offset + start)
            if context == "code" and dollar and (raw[start - 1 : start] == b"$" or raw[end : end + 1] == b"$"):
                continue  # `$name` is another identifier in these languages
            if context == "code" and method and not _names_the_method(raw, start, end):
                others += 1
                continue
            definition = context == "code" and (rel, line.line) in definitions
            out.append(Reference(file=rel, line=line.line, column=column, text=line.text.strip()[:300],
                                 is_definition=definition, context=context))  # type: ignore[arg-type]
    return out, others
