"""find_references: whole-word ripgrep hits, each judged by the file's syntax tree.

A hit counts as a reference when tree-sitter shows an identifier with exactly that name; words inside
comments and string literals are labelled as such and left out unless asked for. Hits in files that
hold no code (docs, markup, data) are prose: they count as comments.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from pathlib import Path

from tools.errors import InvalidArgument, SearchTimeout
from tools.explore.models import Reference, ReferenceResult
from tools.explore.ripgrep import RgFilters, RgLine, run_rg_json
from tools.explore.syntax import ParseCache, classify_word, is_definition_site
from tools.languages import CODE_LANGUAGES, language_for

log = logging.getLogger(__name__)

_SYMBOL = re.compile(r"[$@]?[\w$]+\Z")


def normalise_symbol(symbol: str) -> str:
    """The bare name to look for: `Foo.bar` and `Foo::bar` mean `bar`; surrounding space is ignored."""
    text = (symbol or "").strip()
    for sep in ("::", "->", "."):
        text = text.rsplit(sep, 1)[-1]
    text = text.removesuffix("()")
    if not text or not _SYMBOL.match(text):
        raise InvalidArgument(
            f"symbol {symbol!r} is not an identifier",
            hint="send one name such as 'parse_config' or 'UserService.save'; use search_text for other text",
        )
    return text


def find_references(
    root: Path,
    filters: RgFilters,
    cache: ParseCache,
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
        if line.is_match:
            by_file[line.file].append(line)

    references: list[Reference] = []
    for rel in sorted(by_file):
        references.extend(_judge_file(root / rel, rel, by_file[rel], name, cache, include_comments, include_strings))
    if outcome.timed_out:
        raise SearchTimeout(
            f"find_references for {name!r} stopped after {timeout:g} s; the {len(references)} references found are partial",
            hint="narrow the search with path or language, or raise search_timeout_seconds in .code-intel/config.json",
            partial=True,
            references=[r.model_dump() for r in references[:max_results]],
        )
    return ReferenceResult(
        references=references[:max_results],
        total=len(references),
        truncated=len(references) > max_results,
        files_with_matches=len({r.file for r in references}),
    )


def _judge_file(path: Path, rel: str, lines: list[RgLine], name: str, cache: ParseCache,
                include_comments: bool, include_strings: bool) -> list[Reference]:
    parsed = None
    if language_for(rel) in CODE_LANGUAGES:
        try:
            parsed = cache.get(path)
        except (InvalidArgument, OSError) as err:
            log.debug("cannot parse %s: %s", rel, err)
    out: list[Reference] = []
    for line in lines:
        for (start, end), column in zip(line.spans, line.columns, strict=True):
            if parsed is None:
                context: str | None = "comment"  # prose: documentation and text files
                definition = False
            else:
                begin = line.offset + start
                context = classify_word(parsed, begin, line.offset + end, name)
                definition = context == "code" and is_definition_site(parsed, begin, line.offset + end)
            if context is None:
                continue
            if (context == "comment" and not include_comments) or (context == "string" and not include_strings):
                continue
            out.append(Reference(file=rel, line=line.line, column=column,
                                 text=line.text.strip()[:300], is_definition=definition, context=context))  # type: ignore[arg-type]
    return out
