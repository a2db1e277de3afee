"""Explorer: the exploration facade the MCP layer calls. Thread-safe; each engine sits behind an adapter.

Every path argument goes through ProjectRoot.resolve; every result path is project-relative POSIX.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, Unpack

from pydantic import BaseModel

from code_intel.core import faults
from code_intel.core.config import Config
from code_intel.core.errors import InvalidArgument
from code_intel.core.project import ProjectRoot
from code_intel.explore import budget, outline
from code_intel.explore.answers import (
    ROLE_ORDER,
    STRUCTURE_PARTS,
    TEXT_PAGE,
    Level,
    shape_definitions,
    shape_references,
    shape_structure,
    shape_symbols,
    shape_text,
)
from code_intel.explore.comments import LexicalIndex
from code_intel.explore.ctags import BASES_RECORDED, bare_name
from code_intel.explore.globbing import compile_glob, glob_matches, refuse_parent_parts
from code_intel.explore.models import (
    Definition,
    DefinitionResult,
    EnclosingFunction,
    FileHit,
    FileSearchResult,
    MatchMode,
    MultiPatternResult,
    PatternResult,
    ReferenceResult,
    SkippedFileInfo,
    Skipping,
    StructureResult,
    SymbolsResult,
)
from code_intel.explore.oversized import OversizedFiles
from code_intel.explore.references import (
    Qualified,
    find_references,
    find_references_many,
    normalise_symbol,
    split_symbol,
    takes_self,
)
from code_intel.explore.resolve import import_targets
from code_intel.explore.ripgrep import (
    LineSearch,
    RgFilters,
    SkippedFile,
    list_files,
    search_lines,
    too_big_reason,
)
from code_intel.explore.scope import language_globs, project_filters
from code_intel.explore.syntax import ParseCache, ParsedFile

if TYPE_CHECKING:
    from code_intel.explore.definitions import DefinitionIndex
    from code_intel.explore.models import UnusedResult

log = logging.getLogger(__name__)

MAX_PATTERNS = 16
# hits an answer is ranked from before its budget cuts it (a name used more often is counted, not ranked, past this)
MAX_REFERENCES_SHAPED = 5000
MAX_SKIPPED_LISTED = 20  # skipped files named in one answer; skipped_total counts them all
GLOB_CHECK_EVERY = 2000  # files matched between two looks at the clock

R = TypeVar("R")


def budgeted(method: Callable[..., R]) -> Callable[..., R]:
    """Run an exploration call inside its time budget and mark its result partial when anything stopped."""

    @functools.wraps(method)
    def wrapper(self: Explorer, *args: Any, **kwargs: Any) -> R:
        return self.run_budgeted(method.__name__, method, self, *args, **kwargs)

    return wrapper


def mark_partial(result: R, deadline: budget.Deadline) -> R:
    fields = budget.partial_fields(deadline)
    if not fields:
        return result
    if isinstance(result, BaseModel) and "partial" in type(result).model_fields:
        result.partial, result.partial_reason = True, fields["partial_reason"]  # type: ignore[attr-defined]
    elif isinstance(result, dict):
        result.update(fields)
    return result


def attach_skipped(result: Skipping, skipped: list[SkippedFile]) -> None:
    if skipped:
        result.skipped_files = [SkippedFileInfo(file=f.file, size=f.size, reason=f.reason) for f in skipped[:MAX_SKIPPED_LISTED]]
        result.skipped_total = len(skipped)


def _as_list(value: str | list[str] | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def _checked_patterns(pattern: str | list[str], context_lines: int, max_results: int) -> list[str]:
    """search_text's patterns as a list, or a refusal that says what to send instead."""
    patterns = _as_list(pattern)
    if not patterns or any(not isinstance(p, str) or p == "" for p in patterns):
        raise InvalidArgument("pattern is empty", hint="send a regex, or a list of them, e.g. 'def \\w+_config'")
    if len(patterns) > MAX_PATTERNS:
        raise InvalidArgument(f"{len(patterns)} patterns sent; at most {MAX_PATTERNS} run at once",
                              hint="split the search into several calls")
    if max_results < 1 or not 0 <= context_lines <= 50:
        raise InvalidArgument("max_results must be >= 1 and context_lines between 0 and 50")
    return patterns


def _rg_flags(case_sensitive: bool, fixed_strings: bool, globs: list[str]) -> list[str]:
    """rg's flags for a text search; a glob reaching above the project is refused before rg runs."""
    flags = ["--case-sensitive" if case_sensitive else "--ignore-case"]
    if fixed_strings:
        flags.append("--fixed-strings")
    for g in globs:
        refuse_parent_parts(g)
        flags += ["--glob", g]
    return flags


def _text_result(outcomes: list[tuple[str, LineSearch]], *, many: bool) -> PatternResult | MultiPatternResult:
    """One pattern's result, or the list's results with their totals when a list was sent."""
    # built, not validated: the match records come from our own parsing of rg's lines, thousands at a time
    results = [PatternResult.model_construct(pattern=p, matches=o.matches, total_matches=o.total,
                                             truncated=o.total > len(o.matches), files_with_matches=o.files)
               for p, o in outcomes]
    if not many:
        return results[0]
    return MultiPatternResult(results=results, total_matches=sum(r.total_matches for r in results),
                              truncated=any(r.truncated for r in results))


class ReferenceScope(TypedDict, total=False):
    """Where find_references looks and what it counts (references_answer passes them on)."""

    path: str | None
    language: str | None
    include_comments: bool
    include_strings: bool


class Explorer:
    def __init__(self, root: ProjectRoot, config: Callable[[], Config]) -> None:
        self.root = root
        self._config = config
        self.parse_cache = ParseCache()
        self.lexical = LexicalIndex(root, self.parse_cache)
        self.oversized = OversizedFiles(root.path)
        self._side_work = ThreadPoolExecutor(max_workers=2, thread_name_prefix="code-intel-explore-side")
        self._lock = threading.RLock()
        self._definitions: Any = None  # the ctags index, built on first use
        self._warm_up_started = False

    # ------------------------------------------------------------ shared helpers
    @property
    def config(self) -> Config:
        return self._config()

    def filters(self, path: str | None = None) -> RgFilters:
        """Excludes and size cap from config; roots: the given path, else the source_dirs, else the root."""
        return project_filters(self.root, self.config, path)

    def warm_up(self) -> None:
        """Build the definition index (and, after it, the lexical maps) in the background, once.
        The first exploration call starts it, so find_definitions and find_references rarely wait."""
        with self._lock:
            if self._warm_up_started:
                return
            self._warm_up_started = True
        threading.Thread(target=self._warm_up, daemon=True, name="code-intel-index-warmup").start()

    def _warm_up(self) -> None:
        try:
            self.definition_index.refresh()
        except Exception:  # warming is an optimisation: any failure shows up again, in context, on real use
            log.warning("background index warm-up failed", exc_info=True)

    def parse_file(self, path: str) -> tuple[str, ParsedFile]:
        """Resolve a file argument and parse it; refuses folders, unknown languages and oversized files."""
        self.warm_up()
        absolute = self.root.resolve(path, must_exist=True, kind="file")
        if not absolute.is_file():
            raise InvalidArgument(f"{path!r} is a folder, not a file", hint="send one source file; use search_files to list a folder")
        limit = self.config.max_file_bytes
        size = absolute.stat().st_size
        if size > limit:
            raise InvalidArgument(
                f"{path!r} is {size:,} bytes, larger than max_file_bytes ({limit:,}): it is not parsed, indexed or searched",
                hint="raise max_file_bytes in .code-intel/config.json to include it, or read the part you need directly",
            )
        return self.root.relative(absolute), self.parse_cache.get(absolute)

    # ------------------------------------------------------------ search_text
    @budgeted
    def search_text(
        self,
        pattern: str | list[str],
        path: str | None = None,
        glob: str | list[str] | None = None,
        case_sensitive: bool = True,
        fixed_strings: bool = False,
        context_lines: int = 0,
        max_results: int = 100,
    ) -> PatternResult | MultiPatternResult:
        self.warm_up()
        patterns = _checked_patterns(pattern, context_lines, max_results)
        filters = self.filters(path)
        flags = _rg_flags(case_sensitive, fixed_strings, _as_list(glob))
        timeout = self.config.search_timeout_seconds
        skipped = self._skipped(filters, _as_list(glob), timeout)

        def one(p: str) -> tuple[str, LineSearch]:
            return p, search_lines(self.root.path, p, filters, flags=flags, context_lines=context_lines,
                                   limit=max_results, timeout=timeout)

        if len(patterns) == 1:
            outcomes = [one(patterns[0])]
        else:
            with ThreadPoolExecutor(max_workers=min(4, len(patterns))) as pool:
                outcomes = list(pool.map(budget.carry(one), patterns))
        answer = _text_result(outcomes, many=not isinstance(pattern, str))
        attach_skipped(answer, skipped())
        return answer

    def text_answer(self, pattern: str | list[str], path: str | None = None, glob: str | list[str] | None = None,
                    case_sensitive: bool = True, fixed_strings: bool = False, context_lines: int = 0, *,
                    offset: int = 0, max_results: int | None = None) -> PatternResult | MultiPatternResult:
        """search_text as the tool answers it: each pattern's matches from `offset` on within the answer's budget,
        or max_results of them when given (answers.shape_text)."""
        if offset < 0:
            raise InvalidArgument("offset must be 0 or more", hint="send the next_offset of the previous answer")
        found = self.search_text(pattern, path=path, glob=glob, case_sensitive=case_sensitive,
                                 fixed_strings=fixed_strings, context_lines=context_lines,
                                 max_results=offset + (max_results or TEXT_PAGE))
        return shape_text(found, offset=offset, limit=max_results)

    # ------------------------------------------------------------ search_files
    @budgeted
    def search_files(self, pattern: str, path: str | None = None, max_results: int = 200) -> FileSearchResult:
        """Every file matching the glob, big ones included (they carry a note saying searches skip them)."""
        self.warm_up()
        if not isinstance(pattern, str) or not pattern.strip():
            raise InvalidArgument("pattern is empty", hint="send a glob such as '**/*.py' or 'test_*.py'")
        if max_results < 1:
            raise InvalidArgument("max_results must be at least 1")
        compile_glob(pattern)  # refuses a malformed glob before any work
        refuse_parent_parts(pattern)
        filters = self.filters(path)
        files, _ = list_files(self.root.path, dataclasses.replace(filters, max_file_bytes=None),
                              timeout=self.config.search_timeout_seconds)
        base = filters.roots[0] if path else None
        found: list[str] = []
        for count, f in enumerate(files, 1):
            if count % GLOB_CHECK_EVERY == 0 and budget.expired():
                budget.note_partial(f"glob matching stopped after {count - 1} of {len(files)} files")
                break
            if glob_matches(pattern, f, base):
                found.append(f)
        found.sort()
        hits = [FileHit(file=f, note=self._size_note(f, filters.max_file_bytes)) for f in found[:max_results]]
        return FileSearchResult(files=hits, total=len(found), truncated=len(found) > max_results)

    def _skipped(self, filters: RgFilters, globs: list[str], timeout: float) -> Callable[[], list[SkippedFile]]:
        """Start finding the files over max_file_bytes this search would have looked into (beside the
        search itself); the returned call gives them, or nothing if that failed: it never fails the search."""
        future = self._side_work.submit(budget.carry(self.oversized.in_scope), filters, globs, timeout)

        def result() -> list[SkippedFile]:
            try:
                return future.result()
            except Exception:
                log.warning("could not list the files a search skipped", exc_info=True)
                return []

        return result

    def _size_note(self, rel: str, limit: int | None) -> str | None:
        if not limit:
            return None
        try:
            size = os.stat(self.root.path / rel).st_size
        except OSError:
            return None
        return too_big_reason(size, limit) if size > limit else None

    # ------------------------------------------------------------ definitions and references
    @budgeted
    def find_references(
        self,
        symbol: str,
        path: str | None = None,
        language: str | None = None,
        include_comments: bool = False,
        include_strings: bool = False,
        max_results: int = 200,
    ) -> ReferenceResult:
        filters = self.filters(path)
        timeout = self.config.search_timeout_seconds
        skipped = self._skipped(filters, language_globs(language), timeout)
        qualified, namesakes = self._qualified(symbol)
        result = find_references(
            self.root.path, filters, self.lexical, self.definition_index.definition_sites, symbol,
            language_globs=language_globs(language), include_comments=include_comments,
            include_strings=include_strings, max_results=max_results, timeout=timeout, qualified=qualified,
            indexed=self.definition_index.files,
        )
        attach_skipped(result, skipped())
        result.namesakes = _namesake_sites(namesakes)
        return result

    @budgeted
    def find_references_many(self, symbols: list[str], max_results: int = 200) -> dict[str, ReferenceResult]:
        """find_references (code hits) of each of `symbols` through one search of the tree, by symbol."""
        qualified = {symbol: self._qualified(symbol) for symbol in dict.fromkeys(symbols)}
        found = find_references_many(
            self.root.path, self.filters(None), self.lexical, self.definition_index.definition_sites,
            [(symbol, q) for symbol, (q, _) in qualified.items()], max_results=max_results,
            timeout=self.config.search_timeout_seconds, indexed=self.definition_index.files)
        for symbol, result in found.items():
            result.namesakes = _namesake_sites(qualified[symbol][1])
        return found

    def references_answer(self, symbol: str, *, level: Level = "locations", role: str | None = None, offset: int = 0,
                          max_results: int | None = None, **scope: Unpack[ReferenceScope]) -> ReferenceResult:
        """find_references as the tool answers it: every hit, ranked and cut to the answer's budget (or to
        max_results hits when given), see answers.shape_references. `scope` is find_references' own."""
        if role is not None and role != "all" and role not in ROLE_ORDER:
            raise InvalidArgument(f"role {role!r} is not known", hint=f"use one of {', '.join(ROLE_ORDER)} or 'all'")
        if offset < 0:
            raise InvalidArgument("offset must be 0 or more", hint="send the next_offset of the previous answer")
        found = self.find_references(symbol, max_results=MAX_REFERENCES_SHAPED, **scope)
        path = scope.get("path")
        anchors = [self.root.relative(self.root.resolve(path))] if path else []
        return shape_references(found, level=level, role=role, offset=offset, limit=max_results, anchors=anchors,
                                indexed=self.definition_index.files)

    def definitions_answer(self, symbol: str, path: str | None = None, language: str | None = None,
                           match: MatchMode = "exact", *, offset: int = 0,
                           max_results: int | None = None) -> DefinitionResult:
        """find_definitions as the tool answers it: ranked by the index, cut to the answer's budget (or to
        max_results definitions when given)."""
        if offset < 0:
            raise InvalidArgument("offset must be 0 or more", hint="send the next_offset of the previous answer")
        if max_results is not None:
            found = self.find_definitions(symbol, path=path, language=language, match=match,
                                          max_results=offset + max_results)
            found.definitions = found.definitions[offset:]
            if found.total > offset + len(found.definitions):
                found.next_offset = offset + len(found.definitions)
            return found
        found = self.find_definitions(symbol, path=path, language=language, match=match,
                                      max_results=MAX_REFERENCES_SHAPED)
        return shape_definitions(found, offset=offset)

    def _qualified(self, symbol: str) -> tuple[Qualified | None, list[Definition]]:
        """For `Type.name`: whether Type is a type, and the definitions of `name` in types that neither are Type
        nor inherit from or are a base of it (namesakes). find_references matches by name, so the uses of those
        namesakes are among its hits unless written through their type."""
        normalise_symbol(symbol)  # a symbol find_references refuses is refused before the index is asked
        owner, name = split_symbol(symbol)
        if owner is None:
            return None, []
        index = self.definition_index
        found = index.find(name, max_results=200).definitions  # first: it brings the index up to date
        related = {owner} | index.ancestors(owner)

        @functools.lru_cache(maxsize=256)
        def unrelated(other: str) -> bool:
            """Neither Type nor one of its bases, nor a type that has Type among its bases."""
            return other not in related and owner not in index.ancestors(other)

        namesakes = [d for d in found if d.scope and d.language in BASES_RECORDED and unrelated(bare_name(d.scope))]
        member = index.is_type(owner)
        own = [d for d in found if d.scope and bare_name(d.scope) == owner]
        qualified = Qualified(member=member,
                              other_types=frozenset(bare_name(d.scope or "") for d in namesakes),
                              other_sites=frozenset((d.file, d.line) for d in namesakes),
                              foreign_path=unrelated if member else None,
                              receiverless=bool(own) and all(d.language == "rust" and not takes_self(d.signature)
                                                             for d in own))
        return qualified, namesakes

    @budgeted
    def find_definitions(
        self,
        symbol: str,
        path: str | None = None,
        language: str | None = None,
        match: MatchMode = "exact",
        max_results: int = 50,
    ) -> DefinitionResult:
        index = self.definition_index
        result = index.find(symbol, path=path, language=language, match=match, max_results=max_results)
        attach_skipped(result, index.oversized)
        return result

    @property
    def definition_index(self) -> DefinitionIndex:
        """The ctags-backed index, created on first use (it loads its disk cache lazily too)."""
        from code_intel.explore.definitions import DefinitionIndex

        with self._lock:
            if self._definitions is None:
                self._definitions = DefinitionIndex(self.root, self._config, self.parse_cache, companion=self.lexical.update)
            index: DefinitionIndex = self._definitions
        return index

    # ------------------------------------------------------------ single-file views
    @budgeted
    def get_symbols(self, path: str) -> SymbolsResult:
        rel, parsed = self.parse_file(path)
        symbols = [symbol.data(rel) for symbol in outline.outline(parsed)]
        return SymbolsResult.model_validate({"file": rel, "language": parsed.language, "symbols": symbols})

    def symbols_answer(self, path: str, *, offset: int = 0) -> SymbolsResult:
        """get_symbols as the tool answers it: within the answer's budget (answers.shape_symbols)."""
        if offset < 0:
            raise InvalidArgument("offset must be 0 or more", hint="send the next_offset of the previous answer")
        return shape_symbols(self.get_symbols(path), offset=offset)

    @budgeted
    def unused_answer(self, path: str, *, offset: int = 0) -> UnusedResult:
        """The module-level functions and types under `path` that nothing else in the project names (unused.py)."""
        from code_intel.explore.unused import find_unused

        return find_unused(self, path, offset=offset)

    @budgeted
    def analyze_structure(self, path: str) -> StructureResult:
        rel, parsed = self.parse_file(path)
        imports, classes, functions = outline.structure(parsed, rel)
        for info in imports:
            info.targets = import_targets(self.root.path, rel, parsed.language, info.module, info.names) or None
        return StructureResult(file=rel, language=parsed.language, imports=imports, classes=classes, functions=functions)

    def structure_answer(self, path: str, *, parts: list[str] | None = None, offset: int = 0) -> StructureResult:
        """analyze_structure as the tool answers it: the parts asked for (imports, classes, functions), the imports
        whole, then classes and functions while the answer's budget lasts (answers.shape_structure)."""
        unknown = sorted(set(parts or []) - set(STRUCTURE_PARTS))
        if unknown:
            raise InvalidArgument(f"parts {unknown} are not known", hint=f"use some of {', '.join(STRUCTURE_PARTS)}")
        if offset < 0:
            raise InvalidArgument("offset must be 0 or more", hint="send the next_offset of the previous answer")
        return shape_structure(self.analyze_structure(path), parts=parts or list(STRUCTURE_PARTS), offset=offset)

    @budgeted
    def get_function_at_line(self, path: str, line: int) -> EnclosingFunction:
        rel, parsed = self.parse_file(path)
        total_lines = parsed.source.count(b"\n") + (0 if parsed.source.endswith(b"\n") else 1)
        if line < 1 or line > max(total_lines, 1):
            raise InvalidArgument(f"line {line} is outside {rel} (1..{total_lines})", hint="send a line number inside the file")
        found = outline.enclosing_function(parsed, line)
        if found is None:
            raise InvalidArgument(
                f"no function or method encloses line {line} of {rel}",
                hint="the line is at module or class level; use get_symbols to see the file's outline",
            )
        code = parsed.text(found.full_node)
        if found.end_line > found.full_node.end_point[0] + 1:  # a bats `@test` line, a Dart signature: with the body
            rows = found.end_line - found.full_node.start_point[0]
            code = b"\n".join(parsed.source[found.full_node.start_byte:].split(b"\n", rows)[:rows]).decode(
                "utf-8", "replace")
        return EnclosingFunction(file=rel, name=found.name, kind=found.kind, line=found.line, end_line=found.end_line,
                                 code=code, scope=found.scope)

    def run_budgeted(self, name: str, analysis: Callable[..., R], *args: Any, **kwargs: Any) -> R:
        """Run an exploration call, or an analysis built on this explorer (analyze_impact, query), inside the
        call's time budget, marking its result partial when anything stopped."""
        faults.hit(f"explore.{name}")
        with budget.budget(self.config.search_timeout_seconds) as deadline:
            return mark_partial(analysis(*args, **kwargs), deadline)

    def close(self) -> None:
        self._side_work.shutdown(wait=False, cancel_futures=True)
        if self._definitions is not None:
            self._definitions.flush()
        self.parse_cache.clear()


def _namesake_sites(namesakes: list[Definition]) -> list[str] | None:
    """Where the other types' definitions of a qualified symbol's name are (`file:line Type.name`), the first 20."""
    return [f"{d.file}:{d.line} {bare_name(d.scope or '')}.{d.name}" for d in namesakes[:20]] or None
