"""The shape of exploration answers: what an agent most likely needs first, small by default, complete on request.

Every answer costs the agent context, so the exploration tools answer in a fixed order and within a budget.
The order: the project's own source first, then tests, then docs and examples, then generated or vendored code
(file roles, core/file_roles.py, read with the project's files: the `indexed` arguments); within a role, files
closer to an anchor (where the symbol is defined, or the `path` asked about) first, then by path; within a file, by
line. The budget: about DEFAULT_BUDGET_TOKENS of JSON per answer, counted as characters / 3.5, so the same tree and
arguments always give an answer of the same size.

What does not fit is never dropped silently: a cut answer counts what it left out per role and says how to ask
for it (`offset` pages on in the same order, `role` lists one role's hits line by line).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Literal, TypeVar

from code_intel.core.file_roles import Role, file_role
from code_intel.explore.models import (
    DefinitionResult,
    FileHits,
    MultiPatternResult,
    OutlineSymbol,
    PatternResult,
    QueryHit,
    Reference,
    ReferenceResult,
    RoleCount,
    StructureResult,
    SymbolsResult,
)

ROLE_ORDER: tuple[Role, ...] = ("implementation", "test", "doc", "generated")
Level = Literal["counts", "locations", "code"]
DEFAULT_BUDGET_TOKENS = 1500
CHARS_PER_TOKEN = 3.5
T = TypeVar("T")
H = TypeVar("H", dict[str, Any], QueryHit)


def budget_chars(tokens: int = DEFAULT_BUDGET_TOKENS) -> int:
    """The characters of compact JSON an answer of `tokens` may take."""
    return int(tokens * CHARS_PER_TOKEN)


def json_chars(value: Any) -> int:
    """The size of `value` as compact JSON (the server writes its answers so)."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str))


def role_rank(file: str, indexed: Container[str] = ()) -> int:
    """`indexed`: the project's files, for the roles a path alone does not tell (file_roles.file_role)."""
    return ROLE_ORDER.index(file_role(file, indexed))


def closeness(file: str, anchors: Sequence[str]) -> int:
    """Folders between `file` and the nearest anchor: 0 for an anchor itself, 1 for a file beside one, and one
    more for every folder up from the file to the folder they share and down again to the anchor."""
    if not anchors:
        return 0
    parts = PurePosixPath(file).parts
    best: int | None = None
    for anchor in anchors:
        if file == anchor:
            return 0
        other = PurePosixPath(anchor).parts
        shared = 0
        for a, b in zip(parts[:-1], other[:-1], strict=False):
            if a != b:
                break
            shared += 1
        distance = 1 + (len(parts) - 1 - shared) + (len(other) - 1 - shared)
        best = distance if best is None else min(best, distance)
    return best or 0


def file_order(files: Iterable[str], anchors: Sequence[str] = (), indexed: Container[str] = ()) -> list[str]:
    """Files in answer order: role, closeness to the anchors, path."""
    return sorted(set(files), key=lambda f: (role_rank(f, indexed), closeness(f, anchors), f))


def ranked(items: Iterable[T], file_of: Callable[[T], str], line_of: Callable[[T], int],
           anchors: Sequence[str] = (), indexed: Container[str] = ()) -> list[T]:
    """Items in answer order: their file's place in file_order, then line."""
    listed = list(items)
    order = {f: i for i, f in enumerate(file_order((file_of(i) for i in listed), anchors, indexed))}
    return sorted(listed, key=lambda i: (order[file_of(i)], line_of(i)))


class Fitter:
    """Adds pieces to an answer while they fit its budget, measuring each as compact JSON (the comma included)."""

    def __init__(self, chars: int) -> None:
        self.left = chars
        self.full = False

    def take(self, piece: Any) -> bool:
        size = json_chars(piece) + 1
        if self.full or size > self.left:
            self.full = True
            return False
        self.left -= size
        return True


# --------------------------------------------------------------------------- find_references
RESERVED_CHARS = 700  # what an answer says beside its list: totals per role, what was left out and how to ask


def shape_references(result: ReferenceResult, *, level: Level = "locations", role: str | None = None,
                     offset: int = 0, budget_tokens: int = DEFAULT_BUDGET_TOKENS, limit: int | None = None,
                     anchors: Sequence[str] = (), indexed: Container[str] = ()) -> ReferenceResult:
    """find_references' answer for an agent: hits ranked (own source, tests, docs, generated; near the definition
    first), within the budget. `level` "locations" (the default) groups the listed hits by file, one line number
    per hit; "code" lists each hit with its line's text; "counts" gives files with hit counts only. Every role is
    listed hit by hit while the whole answer fits; when it does not, own source (and the first other role that
    uses the name) is listed and the other roles' files come with counts. `role` chooses one role, or "all".
    `offset` skips that many listed hits (paging); `limit` lists up to that many hits whatever their size (the
    budget then applies to nothing). `indexed`: the project's files (file_roles.file_role)."""
    hits = _Hits.of(result.references, anchors, indexed)
    listed_roles = set() if level == "counts" else {role} if role not in (None, "all") else set(hits.roles)
    chars = budget_chars(budget_tokens) - RESERVED_CHARS if limit is None else 1 << 40
    page = None
    if role is None and level != "counts":
        # decided on the first page, so that offsets page alike
        first = _page(hits, listed_roles, 0, level, Fitter(chars), limit)
        if first.shown < first.listable:
            listed_roles = hits.roles_when_cut()
        elif offset == 0:
            page = first  # the first page that fitted is the answer: not listed a second time
    page = page or _page(hits, listed_roles, offset, level, Fitter(chars), limit)
    _answer_references(result, hits, page, listed_roles, level, offset)
    return result


@dataclass
class _Hits:
    """A symbol's hits by file, the files in answer order and their roles, and the roles that have hits (in
    ROLE_ORDER)."""

    by_file: dict[str, list[Reference]]
    order: list[str]
    role: dict[str, Role]
    roles: list[str]

    @classmethod
    def of(cls, refs: list[Reference], anchors: Sequence[str], indexed: Container[str]) -> _Hits:
        anchors = list(dict.fromkeys([*anchors, *(r.file for r in refs if r.is_definition)]))
        by_file: dict[str, list[Reference]] = defaultdict(list)
        for ref in refs:
            by_file[ref.file].append(ref)
        order = file_order(by_file, anchors, indexed)
        role = {f: file_role(f, indexed) for f in order}
        return cls(by_file, order, role, [r for r in ROLE_ORDER if r in role.values()])

    def of_roles(self, roles: set[str]) -> list[str]:
        return [f for f in self.order if self.role[f] in roles]

    def sorted_hits(self, file: str) -> list[Reference]:
        return sorted(self.by_file[file], key=_hit_key)

    def roles_when_cut(self) -> set[str]:
        """Own source, and the first other role that uses the name (more than defines it)."""
        using = next((r for r in self.roles if any(not ref.is_definition for f in self.of_roles({r})
                                                   for ref in self.by_file[f])), None)
        return {r for r in self.roles if r == "implementation" or r == using}


@dataclass
class _Page:
    refs: list[Reference]  # level "code": the hits listed with their text
    files: list[FileHits]  # level "locations": the hits listed by file
    counted: list[FileHits]  # the files of the roles not listed, with their counts
    shown: int  # hits listed
    listable: int  # hits of the listed roles


def _page(hits: _Hits, roles: set[str], offset: int, level: Level, fit: Fitter, limit: int | None) -> _Page:
    listable = [ref for f in hits.of_roles(roles) for ref in hits.sorted_hits(f)]
    refs: list[Reference] = []
    files: list[FileHits] = []
    if level == "code":
        for ref in listable[offset:]:
            if len(refs) == limit or not fit.take(ref.model_dump(exclude_none=True)):
                break
            refs.append(ref)
        shown = len(refs)
    else:
        files, shown = _by_file_page(hits, roles, offset, fit, limit)
    return _Page(refs, files, _counted(hits, roles, fit), shown, len(listable))


def _by_file_page(hits: _Hits, roles: set[str], offset: int, fit: Fitter,
                  limit: int | None) -> tuple[list[FileHits], int]:
    """The listed hits from `offset` on, grouped by file (one line number each), while they fit."""
    files: list[FileHits] = []
    shown = position = 0
    for f in hits.of_roles(roles):
        in_file = hits.sorted_hits(f)
        take = in_file[max(0, offset - position):]
        position += len(in_file)
        if not take or fit.full:
            continue
        entry = FileHits(file=f, line=take[0].line, role=hits.role[f], count=len(in_file), lines=[])
        if not fit.take(entry.model_dump(exclude_none=True)):
            break
        for ref in take:
            if shown == limit or not fit.take(ref.line):
                fit.full = True
                break
            assert entry.lines is not None
            entry.lines.append(ref.line)
            if ref.is_definition:
                entry.definitions = [*(entry.definitions or []), ref.line]
            shown += 1
        if entry.lines:
            files.append(entry)
    return files, shown


def _counted(hits: _Hits, roles: set[str], fit: Fitter) -> list[FileHits]:
    """The files of the roles not listed, each with its hit count, while the budget lasts."""
    counted: list[FileHits] = []
    for f in hits.order:
        if hits.role[f] in roles or fit.full:
            continue
        entry = FileHits(file=f, line=hits.by_file[f][0].line, role=hits.role[f], count=len(hits.by_file[f]))
        if not fit.take(entry.model_dump(exclude_none=True)):
            break
        counted.append(entry)
    return counted


def _answer_references(result: ReferenceResult, hits: _Hits, page: _Page, listed_roles: set[str], level: Level,
                       offset: int) -> None:
    """The page into the answer, with the totals per role and what was left out."""
    listed_per_role: dict[str, int] = defaultdict(int)
    for entry in page.files:
        listed_per_role[entry.role] += len(entry.lines or [])
    for ref in page.refs:
        listed_per_role[hits.role[ref.file]] += 1
    result.references, result.files, result.counted = page.refs, page.files, page.counted
    per_role: dict[str, dict[str, int]] = defaultdict(lambda: {"files": 0, "hits": 0})
    for f in hits.order:
        per_role[hits.role[f]]["files"] += 1
        per_role[hits.role[f]]["hits"] += len(hits.by_file[f])
    result.by_role = {r: RoleCount(files=per_role[r]["files"], hits=per_role[r]["hits"],
                                   listed=listed_per_role.get(r, 0)) for r in hits.roles}
    more = offset + page.shown < page.listable
    result.next_offset = offset + page.shown if more else None
    result.truncated = more or len(page.counted) < sum(1 for f in hits.order if hits.role[f] not in listed_roles)
    result.more = _references_more(result, listed_roles, level, offset + page.shown, more) or None


def _hit_key(ref: Reference) -> tuple[int, int]:
    return ref.line, ref.column


def _references_more(result: ReferenceResult, listed_roles: set[str], level: Level, next_offset: int,
                     more: bool) -> str:
    notes = []
    if more:
        notes.append(f"more hits of {', '.join(r for r in ROLE_ORDER if r in listed_roles)}: offset={next_offset}")
    others = [f"{r} ({c.hits} in {c.files} files)" for r, c in (result.by_role or {}).items() if r not in listed_roles]
    if others and level != "counts":
        notes.append("counted per file, not listed: " + ", ".join(others) + "; role=<role> or role='all' lists them")
    if level == "locations" and (result.files or []) and any(f.lines for f in result.files or []):
        notes.append("level='code' adds each line's text")
    return "; ".join(notes)


# --------------------------------------------------------------------------- lists in rank order
def fit_page(items: Sequence[T], as_json: Callable[[T], Any], *, offset: int = 0, limit: int | None = None,
             budget_tokens: int = DEFAULT_BUDGET_TOKENS) -> tuple[list[T], int | None]:
    """The items from `offset` on that fit the budget, in their order (or the first `limit` of them whatever their
    size), and the offset of the next page (None when none is left). A page holds at least one item, so paging
    always moves on."""
    fit = Fitter(budget_chars(budget_tokens) - RESERVED_CHARS if limit is None else 1 << 40)
    kept: list[T] = []
    for item in items[offset:]:
        if len(kept) == limit or (not fit.take(as_json(item)) and kept):
            break
        kept.append(item)
    end = offset + len(kept)
    return kept, end if end < len(items) else None


def _model_json(item: Any) -> Any:
    return item.model_dump(exclude_none=True) if hasattr(item, "model_dump") else item


# --------------------------------------------------------------------------- find_definitions
def shape_definitions(result: DefinitionResult, *, offset: int = 0,
                      budget_tokens: int = DEFAULT_BUDGET_TOKENS) -> DefinitionResult:
    """find_definitions' answer within the budget, in the index's order (exact names, own source, types and
    callables first), from `offset` on."""
    result.definitions, result.next_offset = fit_page(result.definitions, _model_json, offset=offset,
                                                      budget_tokens=budget_tokens)
    if result.next_offset is not None:
        result.truncated = True
    return result


# --------------------------------------------------------------------------- search_text
TEXT_PAGE = 100  # matches read per page when no max_results is given; the budget usually stops sooner


def shape_text(result: PatternResult | MultiPatternResult, *, offset: int = 0, limit: int | None = None,
               budget_tokens: int = DEFAULT_BUDGET_TOKENS) -> PatternResult | MultiPatternResult:
    """search_text's answer: each pattern's matches in (file, line) order from `offset` on, within the budget
    (shared evenly by the patterns), or `limit` matches whatever their size. `left_out` counts the matches past
    the page, `next_offset` pages on."""
    patterns = result.results if isinstance(result, MultiPatternResult) else [result]
    for one in patterns:
        seen = one.matches  # the search read offset + a page of them; total_matches counts all
        one.matches, _ = fit_page(seen, _model_json, offset=offset, limit=limit,
                                  budget_tokens=budget_tokens // len(patterns))
        end = offset + len(one.matches)
        one.left_out = max(0, one.total_matches - end) or None
        one.next_offset = end if one.left_out else None
        one.truncated = one.left_out is not None
    if isinstance(result, MultiPatternResult):
        result.truncated = any(one.truncated for one in patterns)
    return result


# --------------------------------------------------------------------------- query and semantic_search
def shape_hits(hits: Sequence[T], *, offset: int = 0,
               budget_tokens: int = DEFAULT_BUDGET_TOKENS) -> tuple[list[T], int | None, int | None]:
    """query's and semantic_search's hits in rank order from `offset` on, within the budget: the page, the next
    offset and how many hits were left out past the page (None for none)."""
    page, next_offset = fit_page(hits, _model_json, offset=offset, budget_tokens=budget_tokens)
    left_out = len(hits) - offset - len(page)
    return page, next_offset, left_out if left_out > 0 else None


SNIPPET_LINE_CHARS = 160  # a cut snippet's one line: a signature, not a wrapped body


def shorten_snippets(hits: list[H], *, budget_tokens: int = DEFAULT_BUDGET_TOKENS) -> list[H]:
    """semantic_search's hits (dicts) or query's (QueryHit) with the snippets of the lowest-ranked cut to their first
    line, from the bottom up, until every hit given fits the budget: ten places asked for are ten places answered (a
    cut snippet's whole chunk is one fetch_chunk_detail away). The first hit keeps its snippet."""
    excess = sum(json_chars(_model_json(h)) + 1 for h in hits) - (budget_chars(budget_tokens) - RESERVED_CHARS)
    out = list(hits)
    for i in range(len(out) - 1, 0, -1):
        if excess <= 0:
            break
        hit = out[i]
        snippet = hit.get("snippet") if isinstance(hit, dict) else getattr(hit, "snippet", None)
        if not isinstance(snippet, str) or "\n" not in snippet.strip():
            continue
        line = snippet.strip().split("\n", 1)[0][:SNIPPET_LINE_CHARS]
        short = {**hit, "snippet": line} if isinstance(hit, dict) else hit.model_copy(update={"snippet": line})
        excess -= json_chars(_model_json(hit)) - json_chars(_model_json(short))
        out[i] = short
    return out


# --------------------------------------------------------------------------- analyze_structure
STRUCTURE_PARTS = ("imports", "classes", "functions")


def shape_structure(result: StructureResult, *, parts: Sequence[str] = STRUCTURE_PARTS, offset: int = 0,
                    budget_tokens: int = DEFAULT_BUDGET_TOKENS) -> StructureResult:
    """analyze_structure's answer: the parts asked for; the imports whole (they are what a file depends on), then
    classes and functions in file order while the budget lasts, from `offset` on (counted over both)."""
    fit = Fitter(budget_chars(budget_tokens) - RESERVED_CHARS)
    result.imports = result.imports if "imports" in parts else []
    for info in result.imports:
        fit.take(info.model_dump(exclude_none=True))
    members: list[tuple[str, Any]] = [*(("classes", c) for c in result.classes if "classes" in parts),
                                      *(("functions", f) for f in result.functions if "functions" in parts)]
    kept: dict[str, list[Any]] = {"classes": [], "functions": []}
    shown = 0
    for part, item in members[offset:]:
        if not fit.take(item.model_dump(exclude_none=True)):
            break
        kept[part].append(item)
        shown += 1
    left = {part: sum(1 for p, _ in members[offset + shown:] if p == part) for part in ("classes", "functions")}
    result.classes, result.functions = kept["classes"], kept["functions"]
    result.left_out = {part: n for part, n in left.items() if n} or None
    result.next_offset = offset + shown if offset + shown < len(members) else None
    return result


# --------------------------------------------------------------------------- get_symbols
def shape_symbols(result: SymbolsResult, *, offset: int = 0, budget_tokens: int = DEFAULT_BUDGET_TOKENS) -> SymbolsResult:
    """get_symbols' answer: top-level symbols in file order from `offset`, each with as many of its nested symbols
    as the budget leaves room for; what does not fit is counted (left_out) and next_offset pages on."""
    fit = Fitter(budget_chars(budget_tokens) - RESERVED_CHARS)
    everything = result.symbols
    kept = _fitted(everything[offset:], fit)
    shown = sum(_count(s) for s in kept)
    total = sum(_count(s) for s in everything[offset:])
    result.symbols = kept
    result.left_out = total - shown or None
    result.next_offset = offset + len(kept) if offset + len(kept) < len(everything) else None
    return result


def _fitted(symbols: list[OutlineSymbol], fit: Fitter) -> list[OutlineSymbol]:
    """The symbols, each with its children, in order while the budget takes them."""
    kept = []
    for symbol in symbols:
        bare = symbol.model_copy(update={"children": []})
        if not fit.take(bare.model_dump(exclude_none=True)):
            break
        bare.children = _fitted(symbol.children, fit)
        kept.append(bare)
    return kept


def _count(symbol: OutlineSymbol) -> int:
    return 1 + sum(_count(c) for c in symbol.children)
