"""The `query` router: one natural-language question, answered by symbol, text and semantic search.

The question is mined for candidate identifiers (CamelCase, snake_case, dotted names, quoted text,
words that name a known definition). Each route runs on what suits it: definition lookups for
identifiers, ripgrep for identifiers and quoted phrases, the semantic index for the whole question
when it exists. Results that point at the same place are merged, and places found by several
routes rank higher. A missing or broken semantic index is noted, never fatal.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from code_intel.core.errors import CodeIntelError, InvalidArgument
from code_intel.core.file_roles import file_role, is_test_file
from code_intel.explore.models import MatchMode, QueryHit, QueryResult, as_dict
from code_intel.index.retrieval import check_code_hint, check_keywords
from code_intel.languages.table import EXTENSIONS

if TYPE_CHECKING:
    from code_intel.explore.service import Explorer

log = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 2000
MAX_IDENTIFIERS = 10
MAX_WORDS = 8
MAX_COMPOUNDS = 4
MAX_RESULTS = 30
DEFINITIONS_PER_NAME = 10
TEXT_PER_PATTERN = 15
SEMANTIC_RESULTS = 10
PAGE_PLACES = SEMANTIC_RESULTS  # places a page of the answer holds at least (server.app's query)
# The semantic route's score at rank 1 and the step down per rank (docs/semantic-index.md, "Levers tried")
SEMANTIC_TOP = 0.75
SEMANTIC_STEP = 0.03
# A question that names no existing definition exactly (nor passes keywords) is answered in the semantic
# route's order:
# its hits lead and the other routes' hits follow; on the question benchmark's dev set any agreement bonus
# or lower lead reordered the semantic answer for the worse (docs/semantic-index.md, "Levers tried")
SEMANTIC_LEAD = 2.0
LEAD_AGREEMENT_BONUS = 0.0
DOC_PENALTY = 0.1
# Definitions found from prose words (not identifiers): a word that equals a name, two words that form one,
# a word's stem as a name prefix
WORD_SCORE = 0.8
COMPOUND_SCORE = 0.9
PREFIX_SCORE = 0.55
SNIPPET_CHARS = 300
# Extra score for every further route that found the same place.
AGREEMENT_BONUS = 0.15
COVERAGE_BONUS = 0.1
TEST_PENALTY = 0.1
WEAK_KIND_PENALTY = 0.15
# a dotted word ending in one of these names a file (a phrase to search), not `object.attribute`
FILE_SUFFIXES = frozenset(EXTENSIONS) | {".txt", ".ini", ".cfg", ".env", ".lock", ".xml", ".sql", ".proto"}
_DATA_KINDS = frozenset({"variable", "constant", "field", "member", "property", "parameter", "local"})

_KIND_PRIORITY: dict[str, int] = {"definition": 0, "semantic": 1, "text": 2}

STOPWORDS = frozenset("""
a about above after all also an and any are as at be because been before being below between both but by
can could did do does doing done down during each few for from further get gets got had has have having he
her here hers him his how i if in into is it its itself just like make makes many me might more most much
must my no nor not now of off on once only or other our out over own same she should show shows so some
such than that the their them then there these they this those through to too under until up use used uses
using very via was way we were what when where which while who whom why will with within without would you
your code file files function functions method methods class classes find where's what's does work works
called call calls handle handles happen happens implemented implement implementation defined define project
""".split())

# Question words and glue: never part of a compound name.
_PROSE = frozenset("a an and are as at be by can could did do does for from how if in is it of on or the this to "
                   "was were what when where which who why will with would".split())
_QUOTED = re.compile(r"`([^`]+)`|\"([^\"]+)\"|'([^'\s][^']*[^'\s]|[^'\s])'")
_IDENT_TOKEN = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*(?:\(\))?")
_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*$")
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)+")
_CAMEL = re.compile(r"[a-z0-9][A-Z]|^[A-Z]{2,}[a-z]")


@dataclass
class Candidates:
    """What the question names: identifiers (sure), words (maybe names), phrases (literal text)."""

    identifiers: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    phrases: list[str] = field(default_factory=list)
    compounds: list[str] = field(default_factory=list)  # adjacent words that may form one name
    # lowercased names that, found as a definition by an exact lookup, mean the question names it: a name written
    # whole, the qualifier of a dotted one, the dotted form itself (`Parser.parse`), but not its last part alone
    # (`AbortSignal.timeout` does not name a `timeout` of another scope)
    naming: set[str] = field(default_factory=set)

    def add(self, bucket: list[str], value: str, cap: int) -> None:
        if value and value not in self.identifiers and value not in bucket and len(bucket) < cap:
            bucket.append(value)


def _is_file_name(token: str) -> bool:
    """`name.ext` with a source, markup or data extension of two letters or more (one-letter ones such as
    `.c` are too often an attribute: `p.c`)."""
    suffix = PurePath(token).suffix.lower()
    return len(suffix) > 2 and "::" not in token and "->" not in token and suffix in FILE_SUFFIXES


def _looks_like_identifier(token: str) -> bool:
    """CamelCase, snake_case or $-names: shapes people do not write in prose."""
    return "_" in token.strip("_") or "$" in token or bool(_CAMEL.search(token))


def extract_candidates(question: str) -> Candidates:
    """Split a question into identifiers, plain words worth checking, and quoted phrases."""
    found = Candidates()

    def take_identifier(token: str) -> None:
        token = token.removesuffix("()")
        if _is_file_name(token):  # `index.html`, `package.json`: a file, not an attribute named `html`
            found.add(found.phrases, token, MAX_IDENTIFIERS)
            return
        parts = [p for p in re.split(r"\.|::|->", token) if p]
        if len(parts) > 1:
            found.add(found.phrases, token, MAX_IDENTIFIERS)  # the dotted form as written, for text search
            found.naming.add(token.lower())
            for part in (parts[-1], parts[0]):
                if _IDENTIFIER.match(part) and part.lower() not in STOPWORDS:
                    found.add(found.identifiers, part, MAX_IDENTIFIERS)
            found.naming.add(parts[0].lower())
        elif parts:
            found.add(found.identifiers, parts[0], MAX_IDENTIFIERS)
            found.naming.add(parts[0].lower())

    rest = question
    for m in _QUOTED.finditer(question):
        text = next(g for g in m.groups() if g is not None).strip()
        rest = rest.replace(m.group(0), " ")
        if _IDENT_TOKEN.fullmatch(text):
            take_identifier(text)
        elif text:
            found.add(found.phrases, text, MAX_IDENTIFIERS)
    for m in _IDENT_TOKEN.finditer(rest):
        token = m.group(0)
        dotted = bool(re.search(r"\.|::|->", token))
        if dotted or token.endswith("()") or _looks_like_identifier(token.removesuffix("()")):
            take_identifier(token)
        elif len(token) >= 3 and token.lower() not in STOPWORDS and token.isalpha():
            found.add(found.words, token, MAX_WORDS)
    found.words = [w for w in found.words if w not in found.identifiers]
    # "config loader" may name ConfigLoader or config_loader
    tokens = list(re.finditer(r"\S+", rest))
    for left, right in zip(tokens, tokens[1:], strict=False):
        first, second = left.group(0), right.group(0).rstrip("?.,;:!")
        if not (first.isalpha() and second.isalpha()) or min(len(first), len(second)) < 3:
            continue  # identifiers and punctuation end a run of prose words
        lowered = (first.lower(), second.lower())
        if not set(lowered) & _PROSE and not all(w in STOPWORDS for w in lowered):
            found.add(found.compounds, f"{lowered[0]}_{lowered[1]}", MAX_COMPOUNDS)
    return found


def stem(word: str) -> str:
    """A crude stem for prefix lookups: 'resolved' -> 'resolv', 'authentication' -> 'authenticat'."""
    lowered = word.lower()
    for suffix in ("ations", "ation", "ions", "ion", "ing", "ers", "er", "ed", "es", "s"):
        if lowered.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


# --------------------------------------------------------------------------- routes
class _Lines:
    """Reads a file's lines once, for definition snippets."""

    def __init__(self, explorer: Explorer) -> None:
        self.explorer = explorer
        self.cache: dict[str, list[str]] = {}

    def line(self, file: str, line: int) -> str:
        if file not in self.cache:
            try:
                text = (self.explorer.root.path / file).read_text(encoding="utf-8", errors="replace")
                self.cache[file] = text.splitlines()
            except OSError:
                self.cache[file] = []
        lines = self.cache[file]
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _definition_lookups(found: Candidates) -> list[tuple[str, MatchMode, float, bool]]:
    """(name, match mode, score, from prose) in the order tried: the surest first."""
    lookups: list[tuple[str, MatchMode, float, bool]] = []
    for phrase in found.phrases:
        if _DOTTED.fullmatch(phrase):  # Class.method: a scoped exact lookup
            lookups.append((phrase, "exact", 1.05, False))
    for name in found.identifiers:
        lookups += [(name, "exact", 1.0, False), (name, "icase", 0.85, False)]
    for compound in found.compounds:
        lookups += [(compound, "icase", COMPOUND_SCORE, True), (compound.replace("_", ""), "icase", COMPOUND_SCORE, True)]
    for word in found.words:
        lookups.append((word, "icase", WORD_SCORE, True))
        root = stem(word)
        if len(root) >= 4:  # prefix lookups are case-sensitive: try the common spellings (json, Json, JSON)
            spellings = dict.fromkeys([root.lower(), root.capitalize(), *([root.upper()] if len(root) <= 5 else [])])
            lookups += [(spelling, "prefix", PREFIX_SCORE, True) for spelling in spellings]
    return lookups


def _definition_hits(explorer: Explorer, found: Candidates, lines: _Lines,
                     notes: list[str]) -> tuple[list[QueryHit], list[str], set[str]]:
    """Definition hits, the names prose words turned out to be, and the (lowercased) names an exact lookup found
    outside the tests."""
    hits: list[QueryHit] = []
    confirmed_words: list[str] = []
    done: set[str] = set()
    exact: set[str] = set()
    for name, mode, score, is_word in _definition_lookups(found):
        if name.lower() in done:
            continue  # a stronger mode already found it
        wanted = DEFINITIONS_PER_NAME if mode == "exact" else DEFINITIONS_PER_NAME * 5
        try:
            items = as_dict(explorer.find_definitions(name, match=mode, max_results=wanted)).get("definitions", [])
        except CodeIntelError as err:  # e.g. ctags missing or the index timed out: other routes still answer
            notes.append(f"definition lookup failed, answered without it: {err.message}")
            break
        if not items:
            continue
        done.add(name.lower())
        indexed = explorer.definition_index.files
        if mode == "exact":
            # a name defined only in tests (a test's local `next`) is not a part of the project the question names
            if any(not is_test_file(d["file"], indexed) for d in items):
                exact.add(name.lower())
        else:  # the closest names first, code before tests
            items = sorted(items, key=lambda d: (is_test_file(d["file"], indexed), len(d["name"])))[:DEFINITIONS_PER_NAME]
        # a word or compound that names a definition becomes that name, for the text route
        if is_word and items[0]["name"] not in confirmed_words:
            confirmed_words.append(items[0]["name"])
        for rank, d in enumerate(items):
            snippet = lines.line(d["file"], d["line"]) or d.get("signature") or d["name"]
            # a prose word that merely equals a variable's name is weaker evidence than a function or class
            weak = is_word and d.get("kind") in _DATA_KINDS
            hits.append(QueryHit(file=d["file"], line=d["line"], end_line=d.get("end_line"), kind="definition",
                                 name=d["name"], snippet=snippet[:SNIPPET_CHARS],
                                 score=round(score - 0.01 * rank - (WEAK_KIND_PENALTY if weak else 0), 4),
                                 sources=[f"definition:{mode}"]))
    return hits, confirmed_words, exact


def _adjust_scores(hits: list[QueryHit], found: Candidates, indexed: Container[str]) -> None:
    """Tests and docs rank below code (roles read with the project's files, `indexed`); a definition whose name holds
    several of the question's words ranks higher."""
    roots = {stem(w).lower() for w in [*found.words, *found.identifiers] if len(w) >= 3}
    for hit in hits:
        hit.role = file_role(hit.file, indexed)
        if hit.role == "test":
            hit.score -= TEST_PENALTY
        elif hit.role == "doc":
            hit.score -= DOC_PENALTY
        if hit.kind == "definition" and hit.name:
            covered = sum(1 for r in roots if r in hit.name.lower())
            hit.score += COVERAGE_BONUS * max(covered - 1, 0)
        hit.score = round(hit.score, 4)


def _text_hits(explorer: Explorer, patterns: list[tuple[str, str]], base_score: float) -> list[QueryHit]:
    """`patterns` are (label, regex) pairs, searched in one parallel ripgrep call."""
    if not patterns:
        return []
    found = as_dict(explorer.search_text([regex for _, regex in patterns], max_results=TEXT_PER_PATTERN))
    groups = found.get("results") or [found]
    hits: list[QueryHit] = []
    for (label, _), group in zip(patterns, groups, strict=False):
        for rank, m in enumerate(group.get("matches", [])):
            hits.append(QueryHit(file=m["file"], line=m["line"], kind="text", name=label,
                                 snippet=m.get("text", "").strip()[:SNIPPET_CHARS],
                                 score=round(max(base_score - 0.01 * rank, base_score / 2), 4), sources=["text"]))
    return hits


def _semantic_hits(semantic: Callable[..., Any], question: str, extra: dict[str, Any],
                   top: float = SEMANTIC_TOP) -> list[QueryHit]:
    raw = semantic(query=question, n_results=SEMANTIC_RESULTS, **extra)
    data = raw.model_dump() if isinstance(raw, BaseModel) else raw  # may also be a plain list
    items = data.get("results", []) if isinstance(data, dict) else list(data or [])
    hits: list[QueryHit] = []
    for rank, item in enumerate(items):
        item = as_dict(item)
        if not item.get("file") or not item.get("line"):
            continue
        origin = item.get("source") or "index"
        snippet = item.get("snippet") or item.get("content") or item.get("text") or ""
        # Index scores differ in scale (fused ranks, cosine); the rank is what they agree on.
        hits.append(QueryHit(file=item["file"], line=int(item["line"]), end_line=item.get("end_line"), kind="semantic",
                             name=item.get("symbol") or item.get("name"), snippet=str(snippet)[:SNIPPET_CHARS],
                             score=round(top - SEMANTIC_STEP * rank, 4), sources=[f"semantic:{origin}"],
                             chunk_id=item.get("chunk_id")))
    return hits


# --------------------------------------------------------------------------- merge
def _span(hit: QueryHit) -> tuple[int, int]:
    return hit.line, max(hit.end_line or hit.line, hit.line)


def _same_place(a: QueryHit, b: QueryHit) -> bool:
    """Text inside a definition or chunk is the same place; a chunk and a definition are the same place
    when the chunk starts at the definition (a chunk spanning a whole class must not swallow its methods)."""
    if a.file != b.file:
        return False
    (a1, a2), (b1, b2) = _span(a), _span(b)
    if a.kind == b.kind:
        return a.line == b.line
    if "text" in (a.kind, b.kind):
        other = b if a.kind == "text" else a
        line = a.line if a.kind == "text" else b.line
        lo, hi = _span(other)
        return lo <= line <= hi
    return abs(a1 - b1) <= 3 and a1 <= b2 and b1 <= a2


def merge_hits(hits: list[QueryHit], bonus: float | None = None) -> list[QueryHit]:
    """Fold hits on the same place into one, keeping the most telling kind and rewarding agreement."""
    merged: list[QueryHit] = []
    for hit in sorted(hits, key=lambda h: (_KIND_PRIORITY[h.kind], -h.score)):
        for kept in merged:
            if _same_place(kept, hit):
                new_sources = [s for s in hit.sources if s not in kept.sources]
                new_routes = {s.split(":")[0] for s in new_sources} - {s.split(":")[0] for s in kept.sources}
                kept.sources += new_sources
                agreement = AGREEMENT_BONUS if bonus is None else bonus
                kept.score = round(max(kept.score, hit.score) + agreement * len(new_routes), 4)
                kept.chunk_id = kept.chunk_id or hit.chunk_id
                if hit.kind == "text" and kept.kind != "text":
                    kept.lines = sorted({*(kept.lines or []), hit.line})
                break
        else:
            merged.append(hit.model_copy(deep=True))
    merged.sort(key=lambda h: (-h.score, h.file, h.line))
    return merged


# --------------------------------------------------------------------------- entry point
def run_query(explorer: Explorer, question: str, semantic: Callable[..., Any] | None,
              keywords: list[str] | None = None, code_hint: str | None = None) -> QueryResult:
    """Answer a natural-language question with ranked places in the code, each with file and line.

    `keywords` (identifiers the caller expects) are looked up as definitions and searched as text like the
    identifiers the question names; they and `code_hint` are also passed to the semantic route."""
    keywords, code_hint = check_keywords(keywords), check_code_hint(code_hint)
    question = _checked_question(question)
    found = extract_candidates(question)
    for name in keywords:
        if _IDENTIFIER.match(name) or _DOTTED.fullmatch(name):
            found.add(found.identifiers, name, MAX_IDENTIFIERS + len(keywords))
    result = QueryResult(question=question, results=[], routes_used=[])

    definition_hits, confirmed, exact = _definition_hits(explorer, found, _Lines(explorer), result.notes)
    if found.identifiers or found.words:
        result.routes_used.append("definitions")
    hits = list(definition_hits)
    # a name the question itself writes (Candidates.naming) is an existing definition: keep the name-first
    # scores. The caller's keywords are guesses: they feed every route, but the semantic route still leads (dev
    # set with guessed keywords and hints: query MRR@10 0.674 name-first, 0.831 semantic-led;
    # docs/semantic-index.md)
    named = bool(exact & found.naming)
    hits += _text_route(explorer, found, confirmed, bool(definition_hits), result)
    hits += _semantic_route(semantic, question, keywords, code_hint, named, result)

    _adjust_scores(hits, found, explorer.definition_index.files)
    merged = merge_hits(hits, None if named or semantic is None else LEAD_AGREEMENT_BONUS)
    result.truncated = len(merged) > MAX_RESULTS
    result.results = merged[:MAX_RESULTS]
    result.candidates = list(dict.fromkeys([*found.identifiers, *confirmed, *found.phrases]))
    if not result.results:
        result.notes.append("nothing found: name a function or class, quote exact text, or use search_text")
    return result


def _checked_question(question: str) -> str:
    """The question stripped, or a refusal that says what to ask instead."""
    if not isinstance(question, str) or not question.strip():
        raise InvalidArgument("question is empty", hint="ask in words, e.g. 'where is the config file parsed?'")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidArgument(f"question is {len(question)} characters (at most {MAX_QUESTION_CHARS})",
                              hint="ask a shorter question; use search_text for long literal text")
    return question.strip()


def _text_route(explorer: Explorer, found: Candidates, confirmed: list[str], has_definitions: bool,
                result: QueryResult) -> list[QueryHit]:
    """Text hits for the names and phrases the question holds; a failed search is noted, the other routes answer."""
    patterns = [(n, rf"\b{re.escape(n)}\b") for n in found.identifiers]
    patterns += [(p, re.escape(p)) for p in found.phrases]
    patterns += [(w, rf"\b{re.escape(w)}\b") for w in confirmed[:3]]
    base_score = 0.5
    if not patterns and not has_definitions:
        # Nothing named a symbol: fall back on the longest plain words as text.
        patterns = [(w, rf"(?i)\b{re.escape(w)}") for w in sorted(found.words, key=len, reverse=True)[:3]]
        base_score = 0.35
    if not patterns:
        return []
    try:
        hits = _text_hits(explorer, patterns, base_score)
    except CodeIntelError as err:  # e.g. rg missing: the other routes still answer
        result.notes.append(f"text search failed: {err.message}")
        return []
    result.routes_used.append("text")
    return hits


def _semantic_route(semantic: Callable[..., Any] | None, question: str, keywords: list[str], code_hint: str | None,
                    named: bool, result: QueryResult) -> list[QueryHit]:
    """Semantic hits when an index exists; any index failure is noted and the other routes answer alone."""
    if semantic is None:
        result.notes.append("semantic search unavailable (no index yet): run sync_index to add it")
        return []
    try:
        extra: dict[str, Any] = {"keywords": keywords} if keywords else {}
        if code_hint:
            extra["code_hint"] = code_hint
        hits = _semantic_hits(semantic, question, extra, SEMANTIC_TOP if named else SEMANTIC_LEAD)
    except Exception as err:  # any index failure degrades to the other routes
        log.warning("semantic route failed for query %r: %s", question, err)
        message = err.message if isinstance(err, CodeIntelError) else f"{type(err).__name__}: {err}"
        result.notes.append(f"semantic search failed, answered without it: {message}")
        return []
    result.routes_used.append("semantic")
    return hits
