"""The definition index behind find_definitions: ctags tags (tree-sitter outlines where ctags has no
parser, and for every file when Universal Ctags is not installed), kept in memory and in
`.code-intel/cache/`, and refreshed only for files whose size, mtime or content hash changed since the
last call.
"""

from __future__ import annotations

import bisect
import dataclasses
import hashlib
import logging
import os
import re
import subprocess
import threading
import time
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from code_intel.core.binaries import find_binary
from code_intel.core.config import Config
from code_intel.core.errors import InvalidArgument
from code_intel.core.filecache import load_cache, save_cache
from code_intel.core.fsutil import UNTRUSTED_MTIME, is_racy, trusted_mtime
from code_intel.core.project import ProjectRoot
from code_intel.explore import budget
from code_intel.explore.answers import role_rank
from code_intel.explore.ctags import CTAGS_SUFFIXES, RUST_BASE_KINDS, Tag, base_names, run_ctags, split_dotted
from code_intel.explore.models import Definition, DefinitionResult, MatchMode
from code_intel.explore.outline import flatten, outline
from code_intel.explore.ripgrep import RgFilters, SkippedFile, list_files, too_big_reason
from code_intel.explore.scope import accepted_languages, project_filters
from code_intel.explore.syntax import ParseCache
from code_intel.languages.grammar import GRAMMARS, TYPE_KINDS, exunit_block
from code_intel.languages.table import language_for, script_file_language

log = logging.getLogger(__name__)

# Kinds of the tags that are types (and so may record bases): the outline's, and ctags' Rust impl blocks and traits.
_TYPE_TAG_KINDS = TYPE_KINDS | RUST_BASE_KINDS
CACHE_FILE = "definitions.json"
CACHE_VERSION = 17  # 2: a type's bases (inherits); 3: Rust impl traits and supertraits as bases; 4: JS trees;
# 5: variables of JS module-pattern wrappers; 6: Swift, Dart and Zig outlines, bats files, Lua's `M.f` as f in M;
# 7: no PHP import aliases, PHP enums from the tree; 8: ExUnit tests and describe blocks from the tree;
# 9: Swift properties, subscripts and deinit, Scala 3 givens and extensions, Scala names without backquotes;
# 10: Lua's `---@class` types; 11: Haskell instances for tuple, list and function types named by the type, not the class;
# 12: C functions written inside a macro call (`UV_UNUSED(static int f(...))`) named f, not after the macro
# 13: Lua's tables of functions, bats files from their outlines (tests by title), Scala 3's anonymous givens, ExUnit
# titles whole (`describe "phx.gen.json"`), Elixir implementations named as their modules (Phoenix.Param.Integer),
# the methods of a Scala val made of an anonymous class, a shell dispatcher's subcommands (nvm's `nvm install`);
# 14: Haskell operators defined infix (`p --> f = ...`); 17: a Haskell instance whose patterns' heads hold no name is
# named by its own name field, not by a name found deeper in its patterns
OUTLINES_ONLY = "17-outlines"  # 7: Lua's `M.f` as f in M, bats tests; 8: ExUnit tests; 9: Swift properties, Scala 3 givens; 10: Lua's `---@class` types; 11: Haskell instances; 13: anonymous givens, subcommands; 14: Haskell infix operators; 17: Haskell instances read by their heads only; the cache's version when no Universal Ctags was found: rebuilt once ctags is there
# A file listing is reused at most this long, and only while no known folder changed.
LISTING_TTL_SECONDS = 30.0
# How long find_references waits for an index that a background build holds before going around it.
BUSY_WAIT_SECONDS = 0.05
# Files parsed per step of a build; each step's definitions are visible to lookups as soon as it ends.
BUILD_BATCH_FILES = 1000
# Types and callables first: they are what an agent looking for a definition usually means.
_KIND_RANK = {"class": 0, "interface": 0, "struct": 0, "trait": 0, "enum": 0, "protocol": 0, "actor": 0,  # Swift's too
              "type": 1, "function": 1, "method": 1,
              "constructor": 1, "module": 2, "namespace": 2}
_SINGLE_LINE_KINDS = frozenset({"variable", "constant", "field", "property", "macro", "enumerator", "member",
                                "label", "parameter", "local", "alias", "typedef", "externvar", "prototype"})


def ctags_suffixes() -> frozenset[str]:
    """The suffixes ctags indexes; none when Universal Ctags is not installed (tree-sitter outlines stand in)."""
    return CTAGS_SUFFIXES if find_binary("ctags") else frozenset()


def _read_by_ctags(rel: str) -> bool:
    """ctags reads the file: by its suffix, or, for a file without one that the listing kept (a `#!` script), by
    the interpreter its first line names (ctags guesses it)."""
    suffix = PurePosixPath(rel).suffix.lower()
    return suffix in ctags_suffixes() if suffix else bool(ctags_suffixes())


# Files whose ctags tags are checked against their length, and filled from the syntax tree when the tags stop
# before this share of the file (ctags' JavaScript parser can lose its way partway through a large file).
_TREE_CHECKED = frozenset({"javascript", "typescript", "tsx"})
# Files whose types are checked against the syntax tree's: Universal Ctags 5.9 knows no PHP enum (PHP 8.1), so
# monolog's `enum Level` was no definition and its methods were scoped to the namespace, not to `Level`.
_TYPES_CHECKED = frozenset({"php"})
_TREE_CHECK_BYTES = 32 * 1024
_TAGS_COVER = 0.6


@dataclass
class FileStamp:
    size: int
    mtime_ns: int
    digest: str


def _digest(path: Path) -> str:
    return hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()


def _fields(d: Tag) -> list[object]:
    return [d.name, d.line, d.end_line, d.kind, d.scope, d.language, d.signature, d.inherits]


def _from_fields(file: str, row: list[object]) -> Tag:
    name, line, end_line, kind, scope, language, signature, inherits = row
    return Tag(file, name, line, end_line, kind, scope, language, signature, inherits)  # type: ignore[arg-type]


@dataclass
class _RefreshRun:
    done: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None


class DefinitionIndex:
    """Lookups read the tables under a short lock; builds run under `_refresh_lock`, one at a time,
    and publish their definitions batch by batch, so a lookup never waits for a whole build."""

    def __init__(self, root: ProjectRoot, config: Callable[[], Config], parse_cache: ParseCache,
                 companion: Callable[[list[str]], None] | None = None) -> None:
        self.root = root
        self._companion = companion
        self._listed: set[str] | None = None
        self._listed_filters: RgFilters | None = None
        self._listed_at = 0.0
        self._folder_stamps: dict[str, int] = {}
        self._racy: set[str] = set()  # files indexed just after an edit: their digest is compared on each refresh
        self._lookup_dirty = False
        self._save_seq = 0
        self._write_lock = threading.Lock()
        self._writers: list[threading.Thread] = []
        self._config = config
        self._parse_cache = parse_cache
        self._lock = threading.RLock()  # the tables below
        self._refresh_lock = threading.RLock()  # one build at a time
        self._runs_lock = threading.Lock()
        self._queued: _RefreshRun | None = None
        self.oversized: list[SkippedFile] = []
        self._stamps: dict[str, FileStamp] = {}
        self._tags: dict[str, list[Tag]] = {}
        self._by_name: dict[str, list[Tag]] = {}
        self._by_lower: dict[str, list[Tag]] = {}
        self._sorted_names: list[str] = []
        self._loaded = False
        self.last_refresh: dict[str, int] = {}

    # ------------------------------------------------------------ refresh
    def _filters(self) -> RgFilters:
        return project_filters(self.root, self._config())

    def _holds_definitions(self, rel: str) -> bool:
        """A file the index reads: a grammar's or ctags' suffix, or a `#!` script without a suffix."""
        if language_for(rel) in GRAMMARS or PurePosixPath(rel).suffix.lower() in CTAGS_SUFFIXES:
            return True
        return not PurePosixPath(rel).suffix and script_file_language(self.root.path / rel) is not None

    def _listing(self) -> set[str]:
        """The indexable files. Listing costs a subprocess, so a listing is reused while every folder
        holding (or above) a known file keeps its mtime: adding or deleting a file changes its folder's."""
        now = time.monotonic()
        filters = self._filters()
        if (self._listed is not None and filters == self._listed_filters
                and now - self._listed_at < LISTING_TTL_SECONDS and self._folders_unchanged()):
            return self._listed
        # listed without the size cap, so the files too big to index can be named
        listed, _ = list_files(self.root.path, dataclasses.replace(filters, max_file_bytes=None),
                               timeout=self._config().search_timeout_seconds * 6)
        self._listed_filters = filters
        indexable = [f for f in listed if self._holds_definitions(f)]
        wanted, oversized = self._split_by_size(indexable, filters.max_file_bytes)
        self.oversized = oversized
        folders = {str(PurePosixPath(f).parent) for f in wanted}
        for folder in list(folders):
            folders.update(str(p) for p in PurePosixPath(folder).parents)
        self._folder_stamps = {}
        for folder in folders:
            try:
                self._folder_stamps[folder] = trusted_mtime(os.stat(self.root.path / folder).st_mtime_ns)
            except OSError:
                continue
        self._listed, self._listed_at = wanted, now
        return wanted

    @property
    def files(self) -> Container[str]:
        """The project's indexable files as last listed (file roles read them: a Ruby namespace folder named `test`
        is known by the file beside it); listed here if no refresh has listed them yet and none is running."""
        if self._listed is None and self._refresh_lock.acquire(timeout=BUSY_WAIT_SECONDS):
            try:
                self._listing()
            finally:
                self._refresh_lock.release()
        return self._listed or frozenset()

    def _split_by_size(self, files: list[str], limit: int | None) -> tuple[set[str], list[SkippedFile]]:
        if not limit:
            return set(files), []
        kept: set[str] = set()
        big: list[SkippedFile] = []
        for rel in files:
            try:
                size = os.stat(self.root.path / rel).st_size
            except OSError:
                continue
            if size > limit:
                big.append(SkippedFile(rel, size, too_big_reason(size, limit).replace("not searched", "not indexed")))
            else:
                kept.add(rel)
        return kept, sorted(big, key=lambda f: (-f.size, f.file))

    def _folders_unchanged(self) -> bool:
        for folder, stamp in self._folder_stamps.items():
            try:
                if os.stat(self.root.path / folder).st_mtime_ns != stamp:
                    return False
            except OSError:
                return False
        return True

    def refresh(self) -> dict[str, int]:
        """Bring the index up to date; returns how many files were reparsed and removed."""
        with self._refresh_lock:
            self._ensure_loaded()
            wanted = self._listing()
            removed = [f for f in self._stamps if f not in wanted]
            with self._lock:
                for rel in removed:
                    self._stamps.pop(rel, None)
                    self._tags.pop(rel, None)
                if removed:
                    self._lookup_dirty = True
            reparsed = self._update(sorted(wanted))
            if removed:
                self._save_cache()
            self.last_refresh = {"reparsed": reparsed, "removed": len(removed), "files": len(self._stamps)}
            return self.last_refresh

    def refresh_within(self, timeout: float) -> bool:
        """Refresh on a background thread and wait at most `timeout`; False when the build is still running.

        Callers arriving while a build runs share the one queued behind it, so a burst of lookups
        during a long first build starts one more refresh, not one each."""
        with self._runs_lock:
            run = self._queued
            if run is None:
                run = self._queued = _RefreshRun()
                threading.Thread(target=self._execute, args=(run,), daemon=True, name="code-intel-definitions").start()
        if not run.done.wait(timeout):
            return False
        if run.error is not None:
            raise run.error
        return True

    def _execute(self, run: _RefreshRun) -> None:
        with self._refresh_lock:
            with self._runs_lock:
                if self._queued is run:
                    self._queued = None  # running now: later callers queue the next refresh
            try:
                self.refresh()
            except BaseException as err:  # handed to the waiting caller
                run.error = err
            finally:
                run.done.set()

    def _update(self, files: list[str]) -> int:
        """Reindex the given files whose size or mtime changed and whose content hash differs.
        Called with the refresh lock held; definitions are published batch by batch."""
        to_parse: list[tuple[str, FileStamp]] = []
        touched = 0
        for rel in files:
            try:
                st = os.stat(self.root.path / rel)
            except OSError:
                continue
            old = self._stamps.get(rel)
            same_stamp = old is not None and old.size == st.st_size and old.mtime_ns == st.st_mtime_ns
            if same_stamp and rel not in self._racy:
                continue
            try:
                digest = _digest(self.root.path / rel)
            except OSError:
                continue
            # a file modified just before it was read is checked by its digest until it is old enough for its stamp
            # to be trusted (code_intel.core.fsutil.is_racy)
            if is_racy(st.st_mtime_ns):
                self._racy.add(rel)
            else:
                self._racy.discard(rel)
            if same_stamp and old is not None and old.digest == digest:
                continue
            touched += 1
            stamp = FileStamp(st.st_size, st.st_mtime_ns, digest)
            if old is None or old.digest != digest:
                to_parse.append((rel, stamp))
            else:
                self._stamps[rel] = stamp  # touched, same content: its tags stand
        for start in range(0, len(to_parse), BUILD_BATCH_FILES):
            batch = to_parse[start:start + BUILD_BATCH_FILES]
            tags = self._collect_tags([rel for rel, _ in batch])
            with self._lock:
                for rel, stamp in batch:
                    self._tags[rel] = tags.get(rel, [])
                    self._stamps[rel] = stamp
                self._lookup_dirty = True
        if to_parse:
            self._start_companion([rel for rel, _ in to_parse])
        if touched:
            self._save_cache()
        return len(to_parse)

    def definition_sites(self, name: str, files: list[str]) -> dict[tuple[str, int], str]:
        """(file, line) -> kind of every definition of `name` in these files, refreshing just those files.
        While a background build holds the index, ctags is asked about these files directly instead
        of waiting for the whole project."""
        indexable = [f for f in files if self._holds_definitions(f)]
        if self._refresh_lock.acquire(timeout=BUSY_WAIT_SECONDS):
            try:
                self._ensure_loaded()
                try:
                    self._update(indexable)
                except subprocess.TimeoutExpired:  # the call's deadline came first: mark what the index holds
                    budget.note_partial("ctags ran out of time: definition sites are not marked in every file")
                with self._lock:
                    return {(rel, d.line): d.kind for rel in indexable for d in self._tags.get(rel, []) if d.name == name}
            finally:
                self._refresh_lock.release()
        ctags_files = [f for f in indexable if _read_by_ctags(f)]
        try:
            tags = list(run_ctags(self.root.path, ctags_files))
        except subprocess.TimeoutExpired:
            budget.note_partial("ctags ran out of time: definition sites are not marked in every file")
            tags = []
        for rel in indexable:
            if rel not in set(ctags_files):
                tags.extend(self._outline_definitions(rel))
        return {(t.file, t.line): t.kind for t in tags if t.name == name}

    def _ensure_loaded(self) -> None:
        with self._lock:
            if not self._loaded:
                self._load_cache()
                self._loaded = True

    def _collect_tags(self, files: list[str]) -> dict[str, list[Tag]]:
        ctags_files = [f for f in files if _read_by_ctags(f)]
        chosen = set(ctags_files)
        tags: dict[str, list[Tag]] = {rel: [] for rel in files}
        for definition in run_ctags(self.root.path, ctags_files):
            tags.setdefault(definition.file, []).append(definition)
        for rel in files:
            language = language_for(rel)
            if rel not in chosen:
                tags[rel] = self._outline_definitions(rel)
            # a shell file's always: ctags knows no dispatcher's subcommands (nvm's `nvm install`)
            elif language == "bash" or (language in _TREE_CHECKED and self._ctags_gave_up(rel, tags[rel])):
                known = {(t.name, t.line) for t in tags[rel]}
                tags[rel] += [t for t in self._outline_definitions(rel) if (t.name, t.line) not in known]
            elif language in _TYPES_CHECKED:
                tags[rel] = self._with_outline_types(rel, tags[rel])
            elif language == "lua":
                tags[rel] = self._with_tree_types(rel, tags[rel])
        return tags

    def _with_tree_types(self, rel: str, found: list[Tag]) -> list[Tag]:
        """A Lua file's ctags tags with the outline's types and the functions written inside them: ctags reads no
        LuaLS `---@class` comment (`LazyPlugin` had no definition), takes a table of functions for a function or for
        nothing, and tags the table's functions without it (`prefix`, not `filters.prefix`)."""
        outlined = self._outline_definitions(rel)
        types = [t for t in outlined if t.kind in TYPE_KINDS]
        tree = types + [t for t in outlined if t.kind in ("function", "method")
                        and any(k.line < t.line <= k.end_line for k in types)]
        keys = {(t.name, t.line) for t in tree}
        return [t for t in found if (t.name, t.line) not in keys] + tree

    def _with_outline_types(self, rel: str, found: list[Tag]) -> list[Tag]:
        """ctags' tags of a file, or, when the syntax tree has a type ctags did not tag, the tree's definitions with
        ctags' tags of the names the tree does not give (class constants), so the type's methods are scoped to it."""
        outlined = self._outline_definitions(rel)
        tagged = {t.name for t in found if t.kind in TYPE_KINDS}
        if all(t.name in tagged for t in outlined if t.kind in TYPE_KINDS):
            return found
        names = {t.name for t in outlined}
        return outlined + [t for t in found if t.name not in names]

    def _ctags_gave_up(self, rel: str, found: list[Tag]) -> bool:
        """Whether ctags' tags of a large file stop well before its end (its JavaScript parser loses its way in
        some files: lodash.js has no tag after line 6,212 of 17,102)."""
        try:
            size = (self.root.path / rel).stat().st_size
            if size < _TREE_CHECK_BYTES:
                return False
            lines = (self.root.path / rel).read_bytes().count(b"\n") + 1
        except OSError:
            return False
        last = max((t.end_line for t in found), default=0)
        return last < lines * _TAGS_COVER

    def _start_companion(self, files: list[str]) -> None:
        if self._companion is not None:
            # the companion (lexical maps for find_references) parses in the background once ctags is
            # done: this call does not wait for it, and find_references builds any map it lacks itself
            threading.Thread(target=self._run_companion, args=(list(files),), daemon=True,
                             name="code-intel-lexical-warmup").start()

    def _run_companion(self, files: list[str]) -> None:
        _lower_thread_priority()
        try:
            if self._companion is not None:
                self._companion(files)
        except Exception:  # a warm-up failure must never surface: the maps are rebuilt on demand
            log.exception("background warm-up of lexical maps failed")

    def _outline_definitions(self, rel: str) -> list[Tag]:
        try:
            parsed = self._parse_cache.get(self.root.path / rel)
        except (InvalidArgument, OSError) as err:
            log.debug("no outline for %s: %s", rel, err)
            return []
        lines = parsed.source.split(b"\n")
        out = []
        for symbol in flatten(outline(parsed)):
            first = lines[symbol.line - 1].decode("utf-8", errors="replace").strip()[:200] if symbol.line <= len(lines) else None
            name, scope = symbol.name, symbol.scope
            # a name written with its owner (ctags.DOTTED_NAMES) is indexed by its last part, the rest its scope, so
            # `Router` and `Phoenix.Router` both find it (as ctags' Lua tags are read); an ExUnit title stays whole
            titled = parsed.language == "elixir" and exunit_block(symbol.node) is not None
            prefix, short = ("", name) if titled else split_dotted(name, parsed.language)
            if prefix:
                name, scope = short, f"{scope}.{prefix}" if scope else prefix
            out.append(Tag(rel, name, symbol.line, symbol.end_line, symbol.kind, scope, parsed.language, first))
        return out

    def _fresh_lookup(self) -> None:
        """Rebuild the name tables if the tags changed since they were built (call with `_lock` held)."""
        if self._lookup_dirty:
            self._rebuild_lookup()
            self._lookup_dirty = False

    def _rebuild_lookup(self) -> None:
        by_name: dict[str, list[Tag]] = {}
        for rel in sorted(self._tags):
            for d in self._tags[rel]:
                by_name.setdefault(d.name, []).append(d)
        by_lower: dict[str, list[Tag]] = {}
        for name, items in by_name.items():
            by_lower.setdefault(name.lower(), []).extend(items)
        self._by_name, self._by_lower, self._sorted_names = by_name, by_lower, sorted(by_name)

    # ------------------------------------------------------------ disk cache
    @property
    def cache_path(self) -> Path:
        return self.root.runtime_dir("cache") / CACHE_FILE

    @staticmethod
    def _cache_version() -> int | str:
        return CACHE_VERSION if ctags_suffixes() else OUTLINES_ONLY

    def _load_cache(self) -> None:
        def decode(data: dict[str, Any]) -> tuple[dict[str, FileStamp], dict[str, list[Tag]]]:
            return ({f: FileStamp(*v) for f, v in data["files"].items()},
                    {f: [_from_fields(f, row) for row in rows] for f, rows in data["tags"].items()})

        loaded = load_cache(self.cache_path, self._cache_version(), decode, "definition")
        if loaded is not None:
            self._stamps, self._tags = loaded
            self._rebuild_lookup()

    def _save_cache(self) -> None:
        """Write the cache from a snapshot on a background thread: the caller does not wait for disk."""
        with self._lock:
            stamps, tags = dict(self._stamps), dict(self._tags)  # shallow: reindexing replaces lists, never edits them
            for rel in self._racy & stamps.keys():  # still to be checked: after a restart, its digest is compared
                stamps[rel] = dataclasses.replace(stamps[rel], mtime_ns=UNTRUSTED_MTIME)
        self._save_seq += 1
        seq = self._save_seq
        writer = threading.Thread(target=self._write_cache, args=(seq, stamps, tags), daemon=True,
                                  name="code-intel-cache-writer")
        self._writers = [w for w in self._writers if w.is_alive()] + [writer]
        writer.start()

    def _write_cache(self, seq: int, stamps: dict[str, FileStamp], tags: dict[str, list[Tag]]) -> None:
        with self._write_lock:
            if seq != self._save_seq:
                return  # a newer snapshot is queued behind this one
            save_cache(self.cache_path, self._cache_version(), {
                "files": {f: [s.size, s.mtime_ns, s.digest] for f, s in stamps.items()},
                "tags": {f: [_fields(d) for d in items] for f, items in tags.items()},
            }, "definition")

    def flush(self) -> None:
        """Wait until the cache on disk matches memory (tests, benchmarks and shutdown)."""
        for writer in list(self._writers):
            writer.join()

    # ------------------------------------------------------------ lookup
    def all_definitions(self) -> list[Definition]:
        """Every definition in the index, fresh (for audits and benchmarks)."""
        self.refresh()
        with self._lock:
            return [d.to_definition() for rel in sorted(self._tags) for d in self._tags[rel]]

    def scopes(self, name: str) -> dict[tuple[str, int], str]:
        """(file, line) -> enclosing scope of each definition of `name` that has one, as the index holds them now
        (no refresh: for callers that just looked the name up)."""
        with self._lock:
            self._fresh_lookup()
            return {(t.file, t.line): t.scope for t in self._by_name.get(name, []) if t.scope}

    def is_type(self, name: str) -> bool:
        """Whether the index holds a class, struct, trait, impl block or other type named `name` (a module is
        not counted: `a::b` may name a module's submodule)."""
        with self._lock:
            self._fresh_lookup()
            return any(t.kind != "module" and t.kind in _TYPE_TAG_KINDS for t in self._by_name.get(name, []))

    def ancestors(self, type_name: str, limit: int = 100) -> set[str]:
        """Every type that a type named `type_name` extends or implements, directly or further up, by bare name
        (from the bases ctags records for each class, interface, struct or trait of that name). Names are not
        resolved across packages: two types that share a name share their bases here."""
        with self._lock:
            self._fresh_lookup()
            found: set[str] = set()
            todo = [type_name]
            while todo and len(found) < limit:
                for tag in self._by_name.get(todo.pop(), []):
                    if tag.inherits and tag.kind in _TYPE_TAG_KINDS:
                        for base in base_names(tag.inherits):
                            if base not in found and base != type_name:
                                found.add(base)
                                todo.append(base)
            return found

    def _candidates(self, name: str, match: MatchMode) -> list[Tag]:
        if match == "exact":
            return list(self._by_name.get(name, []))
        if match == "icase":
            return list(self._by_lower.get(name.lower(), []))
        start = bisect.bisect_left(self._sorted_names, name)
        found: list[Tag] = []
        for candidate in self._sorted_names[start:]:
            if not candidate.startswith(name):
                break
            found.extend(self._by_name[candidate])
        return found

    def find(self, symbol: str, path: str | None = None, language: str | None = None, match: MatchMode = "exact",
             max_results: int = 50) -> DefinitionResult:
        title = _test_title((symbol or "").strip())  # a test's title may hold spaces and dots: it is looked up whole
        text = (symbol or "").strip() if title is None else title
        if not text:
            raise InvalidArgument(f"symbol {symbol!r} is empty", hint=_SEND_A_NAME)
        if match not in ("exact", "prefix", "icase"):
            raise InvalidArgument(f"match {match!r} is not known", hint="use 'exact', 'prefix' or 'icase'")
        if max_results < 1:
            raise InvalidArgument("max_results must be at least 1")
        scope_filter: str | None = None
        normalised = text.replace("::", ".").replace("->", ".")
        if "." in normalised.strip(".") and title is None:
            scope_filter, text = normalised.strip(".").rsplit(".", 1)
        prefix = None
        if path:
            prefix = self.root.relative(self.root.resolve(path, must_exist=True))
            prefix = None if prefix in ("", ".") else prefix
        accept = accepted_languages(language) if language else None
        waited = budget.remaining(self._config().search_timeout_seconds)
        complete = self.refresh_within(waited)
        if not complete:
            budget.note_partial(
                f"the definition index was still being built after {waited:.3g} s ({len(self._tags)} files indexed "
                "so far): definitions in files not yet indexed are missing; the build goes on, ask again shortly")
        with self._lock:
            self._fresh_lookup()
            found = self._candidates(text, match)
            if scope_filter:
                found = [d for d in found if d.scope and _scope_matches(d.scope, scope_filter)]
                if not found:  # a name that holds its dots: ExUnit's `describe "phx.gen.json"`
                    found, text = self._candidates(f"{scope_filter}.{text}", match), f"{scope_filter}.{text}"
        if title is not None and not found and complete:
            raise InvalidArgument(f"no test or describe block is titled {title!r}", hint=_SEND_A_NAME)
        if prefix:
            found = [d for d in found if d.file == prefix or d.file.startswith(prefix + "/")]
        if accept:
            found = [d for d in found if d.language in accept]
        # own source before tests, docs and generated code (answers.role_rank), then types and callables
        indexed = self.files
        found.sort(key=lambda d: (d.name != text, role_rank(d.file, indexed), _KIND_RANK.get(d.kind, 3), d.file,
                                  d.line))
        shown = found[:max_results]
        self._complete_spans(shown)
        return DefinitionResult(definitions=[t.to_definition() for t in shown], total=len(found),
                                truncated=len(found) > max_results)

    def _complete_spans(self, definitions: list[Tag]) -> None:
        """Some ctags parsers give no end line; take it from the syntax tree (and remember it)."""
        missing: dict[str, list[Tag]] = {}
        for d in definitions:
            if d.end_line == d.line and d.kind not in _SINGLE_LINE_KINDS:
                missing.setdefault(d.file, []).append(d)
        for rel, items in missing.items():
            try:
                parsed = self._parse_cache.get(self.root.path / rel)
            except (InvalidArgument, OSError):
                continue
            spans = {(s.name, s.line): s.end_line for s in flatten(outline(parsed))}
            for d in items:
                end = spans.get((d.name.rsplit("::", 1)[-1], d.line)) or spans.get((d.name, d.line))
                if end and end > d.line:
                    with self._lock:
                        d.end_line = end


_SEND_A_NAME = "send one name such as 'load_config' ('Config.load' for a member), or a test's title as written"
# A test's title as an agent may copy it: `@test "title"` (bats), `test "title"` or `describe "title"` (ExUnit)
_TITLE = re.compile(r"""(?:(?:@test|test|describe)\s+)?(["'])(.*)\1|(.*\s.*)""", re.DOTALL)


def _test_title(text: str) -> str | None:
    """The title `text` names when it is quoted or holds a space (without its quotes); None for a name."""
    found = _TITLE.fullmatch(text)
    if found is None:
        return None
    return (found.group(2) if found.group(1) else found.group(3)).strip()


def _lower_thread_priority() -> None:
    """Background warm-up yields the CPU to the tools a client is waiting for (Linux: per-thread nice)."""
    if hasattr(os, "setpriority") and hasattr(threading, "get_native_id"):
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 15)
        except OSError:
            pass


def _scope_matches(scope: str, wanted: str) -> bool:
    """`Greeter` matches the scopes Greeter, demo.Greeter and demo::Greeter, but not MyGreeter."""
    normalised = scope.replace("::", ".").replace("\\", ".").replace("/", ".")
    return normalised == wanted or normalised.endswith("." + wanted)
