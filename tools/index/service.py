"""SemanticIndex: the service behind sync_index, semantic_search, fetch_chunk_detail and
validate_symbol_relevance. Thread-safe; a background sync never blocks a search (searches see what is
indexed so far and say the index is partial).
"""

from __future__ import annotations

import logging
import queue
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from code_intel.core.config import Config
from code_intel.core.errors import InvalidArgument
from code_intel.core.file_roles import file_role
from code_intel.core.project import ProjectRoot
from code_intel.index.agreements import MAP_SHORTCUT_SCORE, AgreementMap
from code_intel.index.bm25 import LexicalIndex, top
from code_intel.index.chunker import Chunk, _declaration
from code_intel.index.embedder import Embedder
from code_intel.index.manifest import (
    ChunkEntry,
    Manifest,
    load_manifest,
    manifest_path,
    save_manifest,
    sha256_file,
)
from code_intel.index.memory import MemoryIndex, listed
from code_intel.index.query_model import QueryModel
from code_intel.index.retrieval import (
    ForestQuery,
    Scored,
    check_code_hint,
    check_keywords,
    fuse,
    in_java,
    named_in_words,
    names_its_file,
    rank_code,
    rerank,
    word_starts,
)
from code_intel.index.static import STATIC_MODEL_NAME, StaticEmbedder
from code_intel.index.store import FOREST, MAP, VectorStore, store_description
from code_intel.index.sync import ForestSync, Progress, Spaces, SyncCounts, SyncState
from code_intel.index.text import embedding_text, lexical_text, member_names, readable_words

log = logging.getLogger(__name__)

CHUNKER_VERSION = "ast-v120"  # bump when chunks, their text or the default sequence length change: forces a rebuild
CANDIDATES = 40  # per side (dense, lexical) before rank_code; 50 gave function-level questions more near misses
# to outrank the answer (docs/benchmarks.md, branch funclevel)
FULL_MODEL_CANDIDATES = 50  # the same for an opt-in model's own space, ranked as #15 chose
MAP_EXTRA_SCORE = 0.5  # Map hits below the shortcut but above this are shown after the Forest results
# validate_symbol_relevance verdicts (cosine similarity): (relevant at or above, weak at or above) on the transformer
# models' scale, and on the static table's own scale, set on the question dev set (benchmarks/relevance.py) so that
# the fitted table (benchmarks/tokenlearn_static.py) calls as many answers relevant and unrelated as the table before
TRANSFORMER_THRESHOLDS = (0.40, 0.25)
STATIC_THRESHOLDS = (0.42, 0.24)
SNIPPET_LINES = 8
LOAD_PAGE = 2000  # chunks read from Chroma at a time when a process loads an existing index into memory
SYNC_ANSWER_S = 0.5  # sync_index waits this long for the sync, then answers, done or not (it goes on behind)
EARLY_QUESTION_MODEL_CHUNKS = 12_000  # up to this many chunks the question model loads while the index is stored
# (jackson-databind's 10,726: 370-378 MB at the peak with it, under the 400 MB target)
QUESTION_MODEL_WAIT_S = 2.0  # a search outside a sync waits this long at most for the question model loading
# (0.6 to 0.9 s of wall time at load 5, started at a sync's end or by the first search of a process)
DEFINITION_CANDIDATES = 20  # chunks defining a name the question writes, added to the candidates


def thresholds_for(model: str) -> tuple[float, float]:
    """validate_symbol_relevance's (relevant, weak) thresholds on this embedding model's similarity scale."""
    return STATIC_THRESHOLDS if model.strip().lower() == STATIC_MODEL_NAME else TRANSFORMER_THRESHOLDS


def make_embedder(cfg: Config) -> Embedder | StaticEmbedder:
    """The configured model: the static code model (the default, no torch) or a sentence-transformers model."""
    if cfg.embedding_model.strip().lower() == STATIC_MODEL_NAME:
        return StaticEmbedder()
    return Embedder(cfg.embedding_model, cfg.embedding_max_seq_length, cfg.embedding_batch_size)


@dataclass
class _Parts:
    key: tuple[Any, ...]
    embedder: Embedder | StaticEmbedder
    store: VectorStore  # the full model's collections (Forest and Map)
    static: StaticEmbedder | None  # the fast first pass's model, None when index_fast_pass is off
    fast_store: VectorStore | None  # the static model's Forest collection
    lexical: LexicalIndex
    agreements: AgreementMap
    manifest: Manifest
    manifest_file: Any
    memory: MemoryIndex  # every indexed chunk's first-pass vector, metadata and snippet: what searches read

    @property
    def spaces(self) -> Spaces:
        return Spaces(self.store, self.embedder, self.fast_store, self.static)

    @property
    def document_store(self) -> VectorStore:
        """The collection holding every indexed chunk's text and metadata (the fast one fills first)."""
        return self.spaces.first_store


class SemanticIndex:
    def __init__(self, root: ProjectRoot, config: Callable[[], Config]) -> None:
        self.root = root
        self._config = config
        self._lock = threading.RLock()  # guards _parts and thread bookkeeping (held briefly)
        self._sync_lock = threading.Lock()  # one sync at a time
        self._lexical_lock = threading.Lock()  # the first search or sync loads BM25 postings once
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._parts: _Parts | None = None
        self._syncing = False
        self._state = SyncState()
        self._run: ForestSync | None = None  # the sync running now (its counts answer sync_index meanwhile)

    # ------------------------------------------------------------ components
    def _key(self, cfg: Config) -> tuple[Any, ...]:
        return (cfg.embedding_model, cfg.embedding_max_seq_length, cfg.embedding_batch_size,
                cfg.chroma.model_dump_json(), cfg.chunk_strategy, cfg.chunk_max_tokens, cfg.index_fast_pass)

    def _get_parts(self) -> _Parts:
        cfg = self._config()
        key = self._key(cfg)
        with self._lock:
            if self._parts is None or self._parts.key != key:
                embedder = make_embedder(cfg)
                # a static model is its own fast pass: one pass, one space
                static = StaticEmbedder() if cfg.index_fast_pass and not isinstance(embedder, StaticEmbedder) else None
                # the manifest pairs one full model with one static model: either changing rebuilds both spaces
                identity = embedder.identity + (f"+{static.identity}" if static is not None else "")
                store = VectorStore(self.root, cfg.chroma, embedder.identity)
                fast_store = VectorStore(self.root, cfg.chroma, identity) if static is not None else None
                chunker = f"{CHUNKER_VERSION}|{cfg.chunk_strategy}|{cfg.chunk_max_tokens}"
                file = manifest_path(self.root.runtime_dir("cache"), store.description, embedder.identity)
                manifest = load_manifest(file, model=identity, store=store.description, chunker=chunker)
                self._parts = _Parts(key, embedder, store, static, fast_store, LexicalIndex(),
                                     AgreementMap(self.root, store, embedder), manifest, file,  # type: ignore[arg-type]
                                     MemoryIndex())
            return self._parts

    def _ensure_lexical(self, parts: _Parts) -> None:
        """Load an existing index into memory once per process (BM25 postings, first-pass vectors, metadata),
        LOAD_PAGE chunks at a time."""
        with self._lexical_lock:
            if parts.lexical.loaded:
                return
            if parts.manifest.files:
                store, offset = parts.document_store, 0
                while True:
                    page = store.get(FOREST, include=("documents", "metadatas", "embeddings"), limit=LOAD_PAGE,
                                     offset=offset)
                    if not page["ids"]:
                        break
                    metas = [dict(m or {}) for m in page["metadatas"]]
                    docs = [d or "" for d in page["documents"]]
                    for cid, doc, meta in zip(page["ids"], docs, metas, strict=True):
                        symbol = str(meta.get("symbol", ""))
                        members = member_names(symbol, listed(meta, "symbols"))
                        parts.lexical.add(cid, lexical_text(str(meta.get("file", "")), symbol, doc, members))
                    parts.memory.add(list(page["ids"]), page["embeddings"], docs, metas)
                    offset += len(page["ids"])
            parts.lexical.loaded = True
            parts.memory.loaded = True

    # ------------------------------------------------------------------ sync
    def sync(self, force: bool = False, progress: Progress | None = None, wait: bool = True) -> dict[str, Any]:
        """Bring the index up to date. With `wait=False` the call returns once every file is searchable (the
        fast pass) and the full model carries on in a background thread of this process."""
        started = time.perf_counter()
        with self._sync_lock:
            parts = self._get_parts()
            cfg = self._config()
            stores = parts.spaces.stores()
            self._state = SyncState()
            self._syncing = True
            try:
                fresh = self._clear_for_rebuild(parts, force)
                self._ensure_lexical(parts)
            except BaseException:
                self._syncing = False
                raise
            run = ForestSync(self.root, cfg, parts.spaces, parts.lexical, parts.manifest, parts.manifest_file,
                             self._stop, self._state, parts.memory,
                             reset_stores=[store for store in stores] if fresh else [],
                             on_searchable=lambda: self._load_question_model(parts, early=True))
            self._run = run
            try:
                self._run_passes(parts, run, progress, wait)
            finally:
                self._syncing = False
                self._run = None
        if not self._stop.is_set():
            if parts.static is None and isinstance(parts.embedder, StaticEmbedder):
                parts.store.release()  # written: searches read memory, and the question model loads in its place
            self._load_question_model(parts, early=False)
        report = self._report(parts, run.counts, started)
        pending = parts.manifest.chunk_count - parts.manifest.full_chunk_count
        if not wait and pending and not self._stop.is_set():
            self.start_background_sync(even_if_fresh=True)
            report["index"]["state"] = "syncing"
            report["note"] = (f"every file is searchable with the fast static model; the full model embeds the other "
                              f"{pending} chunks in the background (semantic_search says when it is done)")
        return report

    @staticmethod
    def _load_question_model(parts: _Parts, early: bool) -> None:
        """With the default static model, the question model starts loading once a sync's file pass is over (`early`:
        every file is searchable, the build's freed memory handed back; the storing takes seconds, and the searches
        that follow find it ready), unless the index is large: the storing of a large build holds the most memory,
        which the model must not add to (sympy, 44,506 chunks: 602 MB against 553 MB), so there it loads when the
        sync is over."""
        if not isinstance(parts.embedder, StaticEmbedder) or parts.static is not None:
            return
        if not early or len(parts.memory) <= EARLY_QUESTION_MODEL_CHUNKS:
            QueryModel.for_table(parts.embedder).start()

    def _clear_for_rebuild(self, parts: _Parts, force: bool) -> bool:
        """Empty the in-memory indexes when the sync rebuilds everything, and say so (True): the writer thread
        then empties the collections before its first batch, so a fresh index never waits for Chroma."""
        if force:
            parts.lexical.clear()
            parts.memory.clear()
            parts.manifest.files.clear()
            parts.manifest.complete, parts.manifest.last_complete_sync = False, None
            return True
        if parts.manifest.files and (parts.document_store.count(FOREST) == 0 or (
                parts.manifest.full_chunk_count and parts.store.count(FOREST) == 0)):
            log.warning("a Forest collection is empty but the manifest lists files; rebuilding")
            parts.manifest.files.clear()
            parts.lexical.clear()
            parts.memory.clear()
            return True
        if not parts.manifest.files:
            # no manifest (first sync, older format or chunking): whatever the collections hold is orphaned
            parts.lexical.clear()
            parts.memory.clear()
            return True
        return False

    @staticmethod
    def _run_passes(parts: _Parts, run: ForestSync, progress: Progress | None, wait: bool) -> None:
        """The file pass (which finishes the sync when the full model has nothing to do), then the full model's
        pass when the caller waits; a failure leaves the manifest marked incomplete."""
        try:
            finished = run.run_files(progress)
            if finished and wait:
                parts.agreements.restore_if_empty()
                run.run_full(progress)
        except BaseException:
            if not parts.manifest.partial_reason:
                parts.manifest.partial_reason = "the last sync failed before finishing"
            parts.manifest.complete = False
            save_manifest(parts.manifest_file, parts.manifest)
            raise

    def sync_answering(self, force: bool = False, progress: Progress | None = None, wait: bool = False,
                       answer_within: float = SYNC_ANSWER_S) -> dict[str, Any]:
        """sync_index: the sync runs in a thread of its own and the call answers within `answer_within` seconds,
        with the finished report or, while files are still being indexed, the state so far (searches answer
        from what is indexed meanwhile and say how complete it is). Progress is relayed from the calling
        thread while the call is open (the MCP request's own thread). `wait` holds the call to the end."""
        started = time.perf_counter()
        events: queue.SimpleQueue[tuple[float, float | None, str]] = queue.SimpleQueue()
        done = threading.Event()
        outcome: dict[str, Any] = {}

        def work() -> None:
            try:
                outcome["report"] = self.sync(force=force, progress=lambda *event: events.put(event), wait=wait)
            except BaseException as err:  # raised again in the caller's thread, or logged if it has answered
                outcome["error"] = err
                log.exception("index sync failed")
            finally:
                done.set()

        before = self._state
        threading.Thread(target=work, name="code-intel-index-sync-call", daemon=True).start()
        deadline = None if wait else started + answer_within
        while True:
            left = None if deadline is None else deadline - time.perf_counter()
            finished = done.wait(0.01 if left is None else max(0.0, min(0.01, left)))
            _relay(events, progress)
            if finished:
                if "error" in outcome:
                    raise outcome["error"]
                return dict(outcome["report"])
            # answer once the time is up, or as soon as this sync has every file searchable (storing goes on)
            searchable = self._state is not before and self._state.phase not in ("scan", "files")
            if left is not None and (left <= 0 or searchable):
                return self._report_so_far(started)

    def _report_so_far(self, started: float) -> dict[str, Any]:
        """sync_index's answer while the sync carries on: its counts so far, and how to follow it."""
        parts = self._get_parts()
        run = self._run
        report = self._report(parts, run.counts if run is not None else SyncCounts(), started)
        report["complete"] = False
        index = report["index"]
        if index.get("searchable"):  # the file pass is over: only storing (or the full model's pass) is left
            report["note"] = ("every file is searchable; the index is being stored (and, with a transformer model, "
                              "embedded at full quality) in the background; call sync_index again for the state")
        else:
            report["note"] = (f"indexing in the background ({index.get('files_indexed_this_sync', 0)} of "
                              f"{index.get('files_to_index', '?')} changed files so far); semantic_search answers "
                              "from what is indexed and says how complete it is; call sync_index again for the state")
        return report

    def _report(self, parts: _Parts, counts: SyncCounts, started: float) -> dict[str, Any]:
        report: dict[str, Any] = {
            "files_scanned": counts.files_scanned, "files_changed": counts.files_changed,
            "files_added": counts.files_added, "files_removed": counts.files_removed,
            "files_unchanged": counts.files_unchanged, "files_skipped": counts.files_skipped,
            "chunks_added": counts.chunks_added, "chunks_removed": counts.chunks_removed,
            "chunks_kept": counts.chunks_kept, "chunks_total": len(parts.memory) or parts.manifest.chunk_count,
            "chunks_full_embedded": counts.chunks_full_embedded,
            "duration_s": round(time.perf_counter() - started, 3), "complete": parts.manifest.complete,
            "model": parts.embedder.model_name, "store": parts.store.description,
        }
        if counts.files_failed:
            report["files_failed"] = counts.files_failed
        if not parts.manifest.complete:
            report["partial_reason"] = parts.manifest.partial_reason
        report["index"] = self._index_state(parts)
        return report

    def start_background_sync(self, even_if_fresh: bool = False) -> None:
        cfg = self._config()
        if not cfg.sync_on_start and not even_if_fresh:
            return
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            manifest = self._get_parts().manifest
            age = time.time() - (manifest.last_complete_sync or 0.0)
            if manifest.complete and manifest.last_complete_sync and age < cfg.sync_ttl_hours * 3600 \
                    and not even_if_fresh:
                log.debug("index synced %.0f s ago (ttl %s h); no background sync", age, cfg.sync_ttl_hours)
                return
            self._thread = threading.Thread(target=self._background_sync, name="code-intel-index-sync", daemon=True)
            self._thread.start()

    def _background_sync(self) -> None:
        try:
            report = self.sync()
            log.info("background index sync: %s", report)
        except Exception:  # logged, and the manifest says the index is partial
            log.exception("background index sync failed")

    def wait_for_background_sync(self, timeout: float | None = None) -> bool:
        """True when no background sync is running (after waiting up to `timeout`)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def is_available(self) -> bool:
        """An index with data exists: the manifest lists files, or a first sync has some in memory already
        (no model, no store query)."""
        try:
            parts = self._get_parts()
            return bool(parts.manifest.files) or len(parts.memory) > 0
        except Exception:  # a broken config means no semantic search, not a failed query
            log.debug("index unavailable", exc_info=True)
            return False

    def status(self) -> dict[str, Any]:
        parts = self._get_parts()
        return {"files": len(parts.manifest.files), "chunks": parts.manifest.chunk_count,
                "complete": parts.manifest.complete and not self._syncing, "syncing": self._syncing,
                "partial_reason": parts.manifest.partial_reason, "model": parts.embedder.model_name,
                "store": store_description(self.root, self._config().chroma), "index": self._index_state(parts)}

    def index_state(self) -> dict[str, Any]:
        """How complete the index is now (manifest and sync progress only: no model, no store query)."""
        return self._index_state(self._get_parts())

    def _quality(self, parts: _Parts) -> str:
        """Which space answers: the full model's once it holds every chunk, else the static model's."""
        manifest = parts.manifest
        if parts.fast_store is None:
            return "full"
        if self._syncing and self._state.phase in ("scan", "files", "persist"):
            return "fast"  # chunks in memory that the manifest does not list yet have no full-model vector
        return "full" if manifest.full_chunk_count == manifest.chunk_count else "fast"

    def _index_state(self, parts: _Parts) -> dict[str, Any]:
        """How complete the index is, for every answer: state, quality and counts."""
        manifest = parts.manifest
        # what searches read: the chunks in memory (filled before Chroma stores them), else the manifest's
        total = len(parts.memory) or manifest.chunk_count
        state = ("syncing" if self._syncing else "empty" if not manifest.files
                 else "complete" if manifest.complete else "partial")
        run = self._state
        indexing_files = self._syncing and run.phase in ("scan", "files")
        info: dict[str, Any] = {"state": state, "quality": self._quality(parts) if total else None,
                                "searchable": bool(total) and not indexing_files,
                                "indexed_chunks": total, "full_quality_chunks": manifest.full_chunk_count,
                                "indexed_files": len(manifest.files)}
        if indexing_files:
            info["total_chunks"] = None  # not known until every changed file is chunked
            info["files_to_index"], info["files_indexed_this_sync"] = run.files_total, run.files_done
        else:
            info["total_chunks"] = total
        return info

    # ---------------------------------------------------------------- search
    def semantic_search(self, query: str, n_results: int = 10, collection: str | None = None,
                        keywords: list[str] | None = None, code_hint: str | None = None) -> dict[str, Any]:
        """`keywords` (identifiers the caller expects) and `code_hint` (a sketch of the code it expects) are
        optional and fused with the question: both join the lexical query, the hint's vector joins the
        question's, and a chunk defining one of the keywords ranks higher."""
        keywords, code_hint = _checked_search(query, n_results, collection, keywords, code_hint)
        parts = self._get_parts()
        complete = parts.manifest.complete and not self._syncing
        index = self._index_state(parts)
        response: dict[str, Any] = {"query": query, "index_complete": complete, "map_shortcut": False,
                                    "index": index}
        # the Map lives in the full model's space: that model loads only when there are agreements to search
        full_vector: list[float] | None = None
        map_hits: list[tuple[Any, float]] = []
        if collection in (None, MAP) and parts.agreements.has_any():
            full_vector = parts.embedder.embed_queries([query])[0]
            map_hits = parts.agreements.search(full_vector, n_results)
        if collection == MAP or (collection is None and map_hits and map_hits[0][1] >= MAP_SHORTCUT_SCORE):
            shortcut = collection is None
            chosen = [(a, s) for a, s in map_hits if s >= MAP_SHORTCUT_SCORE] if shortcut else map_hits
            response.update(source="map", map_shortcut=shortcut,
                            results=self._map_results(parts, chosen, n_results))
            if shortcut:
                response["note"] = f"a past agreement matched with score >= {MAP_SHORTCUT_SCORE}; the Forest was skipped"
            return self._with_state_note(response, parts, complete)
        results: list[dict[str, Any]] = []
        if parts.manifest.files or len(parts.memory):
            results, response["query_model"] = self._search_forest(
                parts, ForestQuery(query, keywords, code_hint), index, full_vector, n_results)
        extras = [(a, s) for a, s in map_hits if s >= MAP_EXTRA_SCORE]
        source = FOREST
        if extras:
            results += self._map_results(parts, extras, 3)
            source = "map+forest"
        response.update(source=source, results=results)
        return self._with_state_note(response, parts, complete)

    def _search_forest(self, parts: _Parts, search: ForestQuery, index: dict[str, Any], full_vector: list[float] | None,
                       n_results: int) -> tuple[list[dict[str, Any]], str]:
        """Search the space that holds every chunk now: the full model's collection once it is complete, else
        the first pass's, held in memory (the default static model's, or the fast pass's). Returns the results
        and the model that embedded the question: with the default static model, the transformer once it has
        loaded (QueryModel; it loads from the end of a sync's file pass, or from a process's first search, which
        waits for it a bounded time outside a sync), the static model until then. An opt-in model's fast pass keeps
        the static vector (its own model takes over soon)."""
        if parts.fast_store is None or (index["quality"] == "fast" and parts.static is not None):
            model = parts.static if parts.static is not None else parts.embedder
            if model is not parts.embedder or not isinstance(model, StaticEmbedder):
                vector = search.vector(model.embed_queries, full_vector if model is parts.embedder else None)
                return self._forest_results(parts, None, search, vector, n_results), model.model_name
            questions = QueryModel.for_table(model)
            if index["state"] != "syncing":  # during a sync it starts with the file pass's end, and no search waits
                questions.start()
                questions.wait(QUESTION_MODEL_WAIT_S)
            embed, used = questions.current()
            vector = search.vector(embed, None)
            return self._forest_results(parts, None, search, vector, n_results), used
        vector = search.vector(parts.embedder.embed_queries, full_vector)
        return self._forest_results(parts, parts.store, search, vector, n_results), parts.embedder.model_name

    def _with_state_note(self, response: dict[str, Any], parts: _Parts, complete: bool) -> dict[str, Any]:
        index = response["index"]
        notes = [response["note"]] if response.get("note") else []
        if not parts.manifest.files and not len(parts.memory):
            notes.append("the semantic index is empty" + (" (a sync is running)" if self._syncing else "")
                         + "; run sync_index, or use search_text / find_definitions meanwhile")
        else:
            if index["state"] == "syncing" and index.get("total_chunks") is None:
                notes.append(f"a sync is indexing files ({index['files_indexed_this_sync']} of "
                             f"{index['files_to_index']} changed files done); results cover what is indexed so far")
            elif not complete:
                notes.append(f"the index is partial ({self._sync_state_reason(parts)})")
            if index["quality"] == "fast":
                notes.append(f"ranked with the fast static model until the full model has embedded every chunk "
                             f"({index['full_quality_chunks']} of {index['indexed_chunks']} so far)")
        if notes:
            response["note"] = "; ".join(notes)
        return response

    def _sync_state_reason(self, parts: _Parts) -> str:
        if self._syncing:
            return parts.manifest.partial_reason or "a sync is running"
        return parts.manifest.partial_reason or "the last sync did not finish"

    def _forest_results(self, parts: _Parts, store: VectorStore | None, search: ForestQuery, vector: list[float],
                        n: int) -> list[dict[str, Any]]:
        """Candidates from both sides (and the definitions of names the question writes), ranked. `store` None: the
        space held in memory (every indexed chunk, also while a sync runs), ranked by rank_code; else the opt-in
        full model's Chroma collection, once it holds every chunk, which keeps the ranking it was tuned with (#15):
        fusion, then Signals (rerank)."""
        limit = max(CANDIDATES if store is None else FULL_MODEL_CANDIDATES, n * 3)
        self._ensure_lexical(parts)
        lexical_scores = parts.lexical.scores(search.lexical_text)
        wanted = [i for i, _ in top(lexical_scores, limit)]
        wanted += self._definitions(parts, search)  # the lexical top may miss them: BM25 ranks every mention alike
        if store is None:
            known = _known_in_memory(parts.memory, vector, wanted, limit)
            # rank_code lets a split function's windows stand for its declaration: fetch it
            windows = [(str(meta.get("file", "")), str(meta.get("symbol") or ""), int(meta.get("decl_line") or 0))
                       for _sim, _doc, meta in known.values() if meta.get("kind") == "part" and meta.get("symbol")]
            extra = [cid for cid in parts.memory.declarations(windows) if cid not in known]
            for cid, similarity in parts.memory.similarity(vector, extra).items():
                entry = parts.memory.entry(cid)
                if entry is not None:
                    known[cid] = (similarity, entry.snippet, entry.meta)
        else:
            known = _known_in_store(store, vector, wanted, limit)
        candidates = [_scored(cid, similarity, lexical_scores.get(cid, 0.0), meta, parts.manifest)
                      for cid, (similarity, _doc, meta) in known.items()]
        if store is not None:
            fused = dict(fuse({c.id: c.dense for c in candidates}, {c.id: c.lexical for c in candidates}))
            ranked = rerank([replace(c, score=fused[c.id]) for c in candidates], search.query, search.keywords)
            return [_forest_result(c, *known[c.id]) for c in ranked[:n]]
        model = parts.static if parts.static is not None else parts.embedder
        read: dict[str, list[str] | None] = {}  # the candidates' files as they are now, each read once per search
        if isinstance(model, StaticEmbedder):
            _name_similarity(candidates, model, vector)
            _member_similarity(candidates, {cid: meta for cid, (_s, _d, meta) in known.items()}, model, vector,
                               self.root.path, read)
        _read_windows(candidates, parts.manifest, parts.memory, self.root.path, read, len(search.query.split()) == 1)
        root = self.root.path

        def file_text(file: str) -> str:  # the leading file as it is now (read once per search)
            return "\n".join(_file_lines(root, file, read) or [])

        ranked = rank_code(candidates, search.query, search.keywords, file_text=file_text)
        return [_forest_result(c, *known[c.id]) for c in ranked[:n]]

    def _definitions(self, parts: _Parts, search: ForestQuery) -> list[str]:
        """Chunks that define a name the question writes or the caller passed as a keyword (the definitions the
        index holds, by exact name, then in another case), so a name's definition is always a candidate."""
        from code_intel.index.retrieval import named_identifiers, spelled_names, used_names

        names = named_identifiers(search.query) + list(search.keywords)
        found = parts.memory.defining([n.rsplit(".", 1)[-1] for n in names], DEFINITION_CANDIDATES) if names else []
        spelled = spelled_names(search.query)  # the classes a sentence spells as words ("json object")
        for cid in parts.memory.defining(sorted(spelled), DEFINITION_CANDIDATES) if spelled else []:
            entry = parts.memory.entry(cid)
            meta = entry.meta if entry is not None else {}
            if meta.get("kind") == "class" and str(meta.get("symbol", "")).rsplit(".", 1)[-1].lower() in spelled:
                found.append(cid)
        used = used_names(search.query)  # "implementations of SeqAccess": the impl blocks, which define other names
        found += [cid for cid in parts.memory.implementing(used, DEFINITION_CANDIDATES) if cid not in found] if used else []
        return found + _types_named_in_words(parts.manifest, search.query)

    def _symbol_chunks(self, parts: _Parts, symbol: str) -> list[tuple[str, str, int, int, str]]:
        """(chunk id, file, start, end, qualified symbol) for chunks defining `symbol` (exact name first)."""
        exact, by_tail = [], []
        for path, entry in list(parts.manifest.files.items()):
            for c in entry.chunks:
                for name in c.symbols:
                    if name == symbol:
                        exact.append((c.id, path, c.start_line, c.end_line, name))
                    elif name.rsplit(".", 1)[-1] == symbol or name.endswith("." + symbol):
                        by_tail.append((c.id, path, c.start_line, c.end_line, name))
        return exact or by_tail

    def _map_results(self, parts: _Parts, hits: list[tuple[Any, float]], n: int) -> list[dict[str, Any]]:
        results: list[dict[str, Any]] = []
        for agreement, score in hits:
            located: set[str] = set()
            for symbol in agreement.symbols:
                for cid, path, start, end, name in self._symbol_chunks(parts, symbol)[:3]:
                    located.add(path)
                    results.append({"chunk_id": cid, "file": path, "line": start, "end_line": end, "symbol": name,
                                    "score": round(score, 4), "source": MAP, "agreement_id": agreement.agreement_id,
                                    "snippet": f"agreement: {agreement.request}"})
            for path in agreement.files:
                if path not in located:
                    results.append({"chunk_id": agreement.agreement_id, "file": path, "line": 1, "symbol": None,
                                    "score": round(score, 4), "source": MAP, "agreement_id": agreement.agreement_id,
                                    "snippet": f"agreement: {agreement.request}"})
        return results[: max(n, 1) * 3]

    # ---------------------------------------------------------------- detail
    def fetch_chunk_detail(self, chunk_id: str) -> dict[str, Any]:
        if not isinstance(chunk_id, str) or not chunk_id.strip():
            raise InvalidArgument("chunk_id is empty", hint="send a chunk_id from a semantic_search result")
        parts = self._get_parts()
        if chunk_id.startswith("map-"):
            agreement = parts.agreements.load(chunk_id)
            if agreement is not None:
                return {"chunk_id": chunk_id, "source": MAP, **agreement.model_dump(),
                        "file": agreement.files[0] if agreement.files else None, "line": 1 if agreement.files else None}
        got = parts.document_store.get(FOREST, ids=[chunk_id], include=("documents", "metadatas"))
        if not got["ids"]:
            raise InvalidArgument(f"no chunk with id {chunk_id!r}",
                                  hint="chunk ids change when their code changes; run semantic_search again")
        meta, content = dict(got["metadatas"][0] or {}), got["documents"][0] or ""
        file = meta.get("file", "")
        try:
            current = self.root.resolve(file, kind="chunk file")
            stale = not current.is_file() or sha256_file(current) != meta.get("file_sha256")
        except Exception:  # a vanished or unreadable file is stale, not an error
            stale = True
        return {"chunk_id": chunk_id, "file": file, "line": meta.get("start_line"), "end_line": meta.get("end_line"),
                "symbol": meta.get("symbol") or None, "symbols": listed(meta, "symbols"),
                "kind": meta.get("kind"), "language": meta.get("language"), "content": content,
                "content_hash": meta.get("content_hash"), "stale": stale}

    # ------------------------------------------------------------- relevance
    def validate_symbol_relevance(self, query: str, symbols: list[str]) -> dict[str, Any]:
        if not isinstance(query, str) or not query.strip():
            raise InvalidArgument("query is empty", hint="send the request text the symbols should serve")
        names = [s.strip() for s in symbols if isinstance(s, str) and s.strip()] if isinstance(symbols, list) else []
        if not names:
            raise InvalidArgument("symbols is empty", hint="send a list of symbol names, e.g. ['UserService.create']")
        if len(names) > 200:
            raise InvalidArgument(f"{len(names)} symbols sent; at most 200 per call", hint="split the list")
        parts = self._get_parts()
        relevant, weak = thresholds_for(self._config().embedding_model)
        located = {name: self._symbol_chunks(parts, name)[:3] for name in names}
        vectors = parts.embedder.embed_queries([query] + [readable_words([n]) for n in names])
        query_vec, name_vecs = vectors[0], vectors[1:]
        chunk_ids = sorted({c[0] for found in located.values() for c in found})
        chunk_vecs: dict[str, list[float]] = {}
        if chunk_ids:
            got = parts.store.get(FOREST, ids=chunk_ids, include=("embeddings",))
            chunk_vecs = {i: list(e) for i, e in zip(got["ids"], got["embeddings"], strict=True)}
        results = []
        for name, name_vec in zip(names, name_vecs, strict=True):
            scores = [_dot(query_vec, name_vec)] + [_dot(query_vec, chunk_vecs[c[0]]) for c in located[name]
                                                    if c[0] in chunk_vecs]
            similarity = max(scores)
            verdict = "relevant" if similarity >= relevant else "weak" if similarity >= weak else "unrelated"
            item: dict[str, Any] = {"symbol": name, "similarity": round(similarity, 4), "verdict": verdict,
                                    "found_in_index": bool(located[name])}
            if located[name]:
                item.update(file=located[name][0][1], line=located[name][0][2], end_line=located[name][0][3])
            results.append(item)
        return {"query": query, "results": results,
                "thresholds": {"relevant": relevant, "weak": weak}}

    # ------------------------------------------------------------------- map
    def add_agreement(self, request: str, symbols: list[str], files: list[str], session_id: str | None) -> dict[str, Any]:
        agreement = self._get_parts().agreements.add(request, list(symbols or []), list(files or []), session_id)
        return {"stored": True, **agreement.model_dump()}

    def close(self) -> None:
        self._stop.set()
        thread = self._thread
        if thread is not None and thread.is_alive():
            thread.join(timeout=10)
        with self._lock:
            if self._parts is not None:
                self._parts.store.close()
            self._parts = None


def _dot(a: list[float], b: list[float]) -> float:
    return float(sum(x * y for x, y in zip(a, b, strict=False)))


_Known = dict[str, tuple[float, str, dict[str, Any]]]  # chunk id -> (similarity, document, metadata)


def _known_in_memory(memory: MemoryIndex, vector: list[float], wanted: list[str], limit: int) -> _Known:
    """The nearest chunks held in memory, plus the lexical side's and the definitions' with their similarity."""
    known: _Known = {}
    dense = memory.nearest(vector, limit)
    missing = [i for i in dict.fromkeys(wanted) if i not in dict(dense)]
    for cid, similarity in dense + list(memory.similarity(vector, missing).items()):
        entry = memory.entry(cid)
        if entry is not None:
            known[cid] = (similarity, entry.snippet, entry.meta)
    return known


def _known_in_store(store: VectorStore, vector: list[float], wanted: list[str], limit: int) -> _Known:
    """The same from a Chroma collection: the chunks it did not return are fetched and scored here."""
    known: _Known = {}
    for i, sim, doc, meta in store.query(FOREST, vector, limit):
        known[i] = (sim, doc, meta)
    missing = [i for i in dict.fromkeys(wanted) if i not in known]
    if missing:
        got = store.get(FOREST, ids=missing, include=("documents", "metadatas", "embeddings"))
        for i, doc, meta, emb in zip(got["ids"], got["documents"], got["metadatas"], got["embeddings"],
                                     strict=True):
            known[i] = (_dot(vector, emb), doc or "", dict(meta or {}))
    return known


def _scored(cid: str, similarity: float, lexical: float, meta: dict[str, Any], manifest: Manifest) -> Scored:
    file = str(meta.get("file", ""))
    return Scored(cid, similarity, lexical, file, str(meta.get("symbol") or ""),
                  listed(meta, "symbols"),
                  str(meta.get("kind", "")), "doc" if meta.get("documentation") else file_role(file, manifest.files),
                  deprecated=bool(meta.get("deprecated")), addition=bool(meta.get("addition")),
                  bodiless=bool(meta.get("bodiless")), accessor=bool(meta.get("accessor")),
                  valueless=bool(meta.get("valueless")), body_words=frozenset(listed(meta, "body_words")),
                  lines=(int(meta.get("start_line") or 0), int(meta.get("end_line") or 0)),
                  decl_line=int(meta.get("decl_line") or 0),
                  implements=listed(meta, "implements"), command=str(meta.get("command") or ""))


def _name_similarity(candidates: list[Scored], model: StaticEmbedder, vector: list[float]) -> None:
    """Scored.name_similarity: the question's cosine with each chunk's qualified name as words (`Future.set_exception`
    -> "future set exception"); a class chunk that holds its methods takes the best of its own name and theirs."""
    import numpy as np

    names = {c.id: [c.symbol] + ([s for s in c.symbols if s != c.symbol] if c.kind == "class" else [])
             for c in candidates if c.symbol}
    words = {name: readable_words([name]) for listed_names in names.values() for name in listed_names}
    texts = list(dict.fromkeys(words.values()))
    if not texts:
        return
    similarity = dict(zip(texts, (model.embed(texts) @ np.asarray(vector, dtype=np.float32)).tolist(), strict=True))
    for c in candidates:
        if c.id in names:
            c.name_similarity = max(similarity[words[name]] for name in names[c.id])


# chunk_metadata's `members`: "name@first-last" joined by commas; a name may hold a comma itself (Rust's
# `impl ToListener for (String, u16)` defines `(String, u16).to_listener`), a span never does
_MEMBER_LINES = re.compile(r"(.+?)@(\d+)-(\d+)(?:,|$)", re.DOTALL)


def _file_lines(root: Path, file: str, read: dict[str, list[str] | None]) -> list[str] | None:
    """A file's lines as it is now, None when it cannot be read; each file is read once per search (`read` holds
    those already read)."""
    if file not in read:
        try:
            read[file] = (root / file).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            read[file] = None
    return read[file]


def _indexed_lines(root: Path, meta: dict[str, Any], read: dict[str, list[str] | None]) -> list[str] | None:
    """A chunk's lines read from its file as it is now, when they are still the text the index holds (its
    `content_hash`); None when the file changed since it was indexed or cannot be read (_file_lines)."""
    file = str(meta.get("file", ""))
    lines = _file_lines(root, file, read)
    first, last = int(meta.get("start_line") or 0), int(meta.get("end_line") or 0)
    held = lines[first - 1 : last] if lines is not None and first else None
    if held is None or Chunk(file, first, last, "", "", "", "\n".join(held)).content_hash != meta.get("content_hash"):
        return None
    return held


def _member_similarity(candidates: list[Scored], metas: dict[str, dict[str, Any]], model: StaticEmbedder,
                       vector: list[float], root: Path, read: dict[str, list[str] | None]) -> None:
    """A class kept whole (a short class is one chunk, chunk_max_tokens) takes the question's cosine with the best of
    its methods, each embedded as the chunk it would be were the class split, when that is above the cosine of the
    whole: the mean of every method's tokens is near none of them (asyncio's `Event` chunk for "Return True if and
    only if the internal flag is true", which `Event.is_set` answers). The methods' lines are read from the file;
    a class whose file no longer holds its indexed text keeps its own cosine. `read`: the files read so far in this
    search (_indexed_lines)."""
    import numpy as np

    texts: list[str] = []
    owners: list[Scored] = []
    for c in candidates:
        meta = metas.get(c.id, {})
        members = _MEMBER_LINES.findall(str(meta.get("members") or "")) if c.kind == "class" else []
        if not members:
            continue
        held = _indexed_lines(root, meta, read)
        if held is None:
            continue  # the file changed since it was indexed: its lines no longer say where the methods are
        first, language = int(meta["start_line"]), str(meta.get("language"))
        for name, start, end in members:
            code = "\n".join(held[int(start) - first : int(end) - first + 1])
            texts.append(embedding_text(Chunk(c.file, int(start), int(end), name, "function", language, code)))
            owners.append(c)
    if not texts:
        return
    for c, similarity in zip(owners, (model.embed(texts) @ np.asarray(vector, dtype=np.float32)).tolist(), strict=True):
        c.dense = max(c.dense, similarity)


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*[?!]?")
# a Java call on the method's own object: a name opening a call, written bare or after `this.` (not after another
# object's name and a dot, nor after `new`)
_SELF_CALL = re.compile(r"(?:(?<![\w.$])(?<!new )|(?<![\w.$])this\.)([A-Za-z_$][\w$]*)\s*\(")


def _read_windows(candidates: list[Scored], manifest: Manifest, memory: MemoryIndex, root: Path,
                  read: dict[str, list[str] | None], one_name: bool) -> None:
    """What rank_code reads of a function candidate beyond its own chunk, when the function was too long for one: the
    windows below it, the parts of its file cut from the definition it declares (their declaration line lies in its
    chunk; a name alone is not enough, a Python property's getter and setter share one, as overloads do). A function
    flagged as returning no value is not when it has any: chunker.valueless did not see their lines (importlib's
    `spec_from_file_location`). For a question that is one name, whose definition rank_code follows with the
    methods it calls, Scored.calls: the words of its body below its declaration, its chunk's and its windows' (the
    calls that hand its work on often close it), read from its file while it holds the indexed text (`read`: the
    files read so far in this search); for a Java method in any question, Scored.self_calls from the same lines (a
    file's leading method is followed by the methods of its class it calls on itself: retrieval._called_by)."""
    parts: dict[tuple[str, str], list[ChunkEntry]] = {}  # each file's windows cut from a definition, read once
    for file in {c.file for c in candidates if c.kind == "function"}:
        indexed = manifest.files.get(file)
        for e in indexed.chunks if indexed else []:
            if e.kind == "part":
                parts.setdefault((file, e.symbol), []).append(e)
    # a Java method with no other method of its class among the candidates is followed by none (_called_by)
    methods = Counter((c.file, c.symbol.rpartition(".")[0]) for c in candidates if c.kind == "function")
    for c in candidates:
        java = methods[c.file, c.symbol.rpartition(".")[0]] > 1 and in_java(c)
        if c.kind != "function" or not c.lines[0] or not (c.valueless or one_name or java):
            continue
        below = sorted((entry.meta for e in parts.get((c.file, c.symbol), [])
                        if e.start_line > c.lines[1] and (entry := memory.entry(e.id)) is not None
                        and c.lines[0] <= int(entry.meta.get("decl_line") or 0) <= c.lines[1]),
                       key=lambda meta: int(meta.get("start_line") or 0))
        c.valueless = c.valueless and not below
        if not (one_name or java) or (own := memory.entry(c.id)) is None:
            continue
        held = [_indexed_lines(root, meta, read) for meta in [own.meta, *below]]
        if all(lines is not None for lines in held):  # the file as indexed: a changed one may hold other code there
            code = "\n".join(line for lines in held for line in lines or [])
            # below its declaration, as the chunker finds it (its name written outside a doc comment)
            body, declared = _declaration(Chunk(c.file, c.lines[0], c.lines[1], c.symbol, "function", "", code))
            below_declaration = "\n".join(body[declared + 1 :])
            if one_name:
                c.calls = frozenset(_WORD.findall(below_declaration)) - {c.symbol.rpartition(".")[2]}
            if java:
                c.self_calls = frozenset(_SELF_CALL.findall(below_declaration)) - {c.symbol.rpartition(".")[2]}


def _types_named_in_words(manifest: Manifest, query: str) -> list[str]:
    """The headers of the Java types whose names a sentence writes as words, anywhere and in any order
    (named_in_words): msgpack-java's `NumberValue` and `RawValue` for "... numbers, raw strings and binaries ...", whose
    chunks say "value" and "number" no more than a hundred others do. In Java a file is named after its type, and the
    header of that type (names_its_file) stands for the file. Not for a question of one word, which is a name (a
    definition is a candidate anyway), nor in languages whose files are modules named by topic (measured: serde's
    `ser.rs` and okio's Kotlin files lost answers to the files they brought in)."""
    from code_intel.index.chunker import BODILESS_LANGUAGES
    from code_intel.index.text import lexical_tokens

    if len(query.split()) < 2:
        return []
    terms = set(lexical_tokens(query))
    starts = word_starts(terms)
    return [c.id for file, entry in list(manifest.files.items())
            if entry.language in BODILESS_LANGUAGES and named_in_words(terms, starts, file)
            for c in entry.chunks if names_its_file(c.kind, c.symbol, file)]


def _forest_result(c: Scored, similarity: float, document: str, meta: dict[str, Any]) -> dict[str, Any]:
    return {
        "chunk_id": c.id, "file": meta.get("file"), "line": c.lines[0] or meta.get("start_line"),
        "end_line": c.lines[1] or meta.get("end_line"), "symbol": meta.get("symbol") or None,
        "language": meta.get("language"), "kind": meta.get("kind"), "role": c.role,
        "score": round(c.score, 4), "similarity": round(similarity, 4), "source": FOREST,
        "snippet": "\n".join(document.splitlines()[:SNIPPET_LINES])[:600],
    }


def _checked_search(query: str, n_results: int, collection: str | None, keywords: list[str] | None,
                    code_hint: str | None) -> tuple[list[str], str | None]:
    """semantic_search's arguments checked, with the keywords and hint as the search reads them."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidArgument("query is empty", hint="describe what you are looking for in a few words")
    checked_keywords = check_keywords(keywords)
    checked_hint = check_code_hint(code_hint)
    if not isinstance(n_results, int) or not 1 <= n_results <= 100:
        raise InvalidArgument(f"n_results must be between 1 and 100, got {n_results!r}", hint="send e.g. 10")
    if collection not in (None, FOREST, MAP):
        raise InvalidArgument(f"unknown collection {collection!r}",
                              hint="send 'forest', 'map', or omit it to search the Map first, then the Forest")
    return checked_keywords, checked_hint


def _relay(events: queue.SimpleQueue[tuple[float, float | None, str]], progress: Progress | None) -> None:
    """Pass the sync thread's progress on from the calling thread (the MCP request's own)."""
    while not events.empty():
        event = events.get()
        if progress is not None:
            progress(*event)
