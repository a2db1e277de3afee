"""Incremental sync of the Forest in two passes: fast static vectors for every chunk first, then the full model.

The **file pass** lists the project and re-chunks only files whose content changed (a size+mtime match
skips a file without reading it; otherwise its sha256 decides). Chunks whose text is unchanged keep their
vectors (their ids hash the text) and only get new line numbers; new chunks get a vector from the static
model (`tools/index/static.py`, thousands of chunks a second), so the whole project is searchable within
seconds of the pass ending. The **full pass** then embeds, batch by batch, every chunk that has no
full-model vector yet, in the full model's own collection. The two models' vectors never share a
collection. The manifest records, per chunk, whether its full vector exists, and it is saved after every
batch of either pass, so a process that stops half way (a one-shot client, a kill) leaves an accurate
record and the next sync carries on where it stopped.

Without a static model (`index_fast_pass: false`) the file pass embeds with the full model directly.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from code_intel.core.config import Config
from code_intel.core.errors import ToolUnavailable
from code_intel.core.fsutil import trusted_mtime
from code_intel.core.heap import trim_heap
from code_intel.core.project import ProjectRoot
from code_intel.index.bm25 import LexicalIndex
from code_intel.index.chunker import (
    Chunk,
    Chunker,
    accessor,
    addition,
    bodiless,
    command_line,
    deprecated,
    deprecated_types,
    in_deprecated_type,
    valueless,
)
from code_intel.index.embedder import Embedder
from code_intel.index.files import SourceFile, list_source_files
from code_intel.index.manifest import ChunkEntry, FileEntry, Manifest, save_manifest, sha256_file
from code_intel.index.memory import MemoryIndex, listed
from code_intel.index.static import StaticEmbedder
from code_intel.index.store import FOREST, VectorStore
from code_intel.index.text import body_words, embedding_text, indexed_texts
from code_intel.languages.table import language_for, script_language

log = logging.getLogger(__name__)

Progress = Callable[[float, float | None, str], None]
FILES_PER_BATCH = 32  # files chunked and stored together in the file pass, then the manifest is saved
FULL_CHUNKS_PER_BATCH = 128  # chunks embedded by the full model between two saves (a few seconds on 2 cores)
# Characters of chunk text searchable in memory but not yet written to Chroma. Below this the writer waits for the
# end of the file pass (so Chroma takes no CPU before every file is searchable); past it the writer starts and
# the file pass waits for it (so the text held for Chroma stays bounded on any project).
PERSIST_BACKLOG_CHARS = 64_000_000
# A file pass that added this many chunks frees enough (tens of megabytes on sympy's 44,576) to be worth handing back
# before Chroma stores; below it the collection (about 0.06 s of CPU holding the interpreter, whatever the project's
# size) would only delay the first answers of a project that has just become searchable.
RELEASE_AFTER_CHUNKS = 10_000
MANIFEST_SAVE_S = 2.0  # the manifest (one JSON file) is rewritten at most this often during a sync, and at its end


@dataclass
class SyncCounts:
    files_scanned: int = 0
    files_changed: int = 0
    files_added: int = 0
    files_removed: int = 0
    files_unchanged: int = 0
    files_skipped: int = 0
    files_failed: list[str] = field(default_factory=list)
    chunks_added: int = 0
    chunks_removed: int = 0
    chunks_kept: int = 0
    chunks_full_embedded: int = 0  # chunks the full model embedded in this run


@dataclass
class SyncState:
    """What a running sync has done so far, read by searches while it runs (plain ints: no lock needed)."""

    phase: str = "scan"  # scan | files | persist | full | done (searchable once past files)
    files_total: int = 0
    files_done: int = 0
    full_total: int = 0
    full_done: int = 0


def chunk_id(chunk: Chunk, text: str, seen: set[str]) -> str:
    """Stable id from file and chunk text: unchanged chunks keep their id (and vector) across edits."""
    base = hashlib.sha1(chunk.file.encode()).hexdigest()[:10] + "-" + hashlib.sha1(
        text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    candidate, n = base, 1
    while candidate in seen:  # identical chunks in one file (rare: repeated boilerplate)
        n += 1
        candidate = f"{base}-{n}"
    seen.add(candidate)
    return candidate


def chunk_metadata(chunk: Chunk, file_sha: str, retired: frozenset[str] = frozenset()) -> dict[str, Any]:
    """What the index stores beside a chunk's text; `retired`: its file's deprecated_types."""
    meta = {"file": chunk.file, "start_line": chunk.start_line, "end_line": chunk.end_line,
            "symbol": chunk.symbol, "symbols": ",".join(chunk.symbols), "kind": chunk.kind,
            "language": chunk.language, "content_hash": chunk.content_hash, "file_sha256": file_sha}
    if deprecated(chunk) or in_deprecated_type(chunk, retired):
        meta["deprecated"] = True  # only where true: most chunks are not
    if addition(chunk):
        meta["addition"] = True  # a Rust impl block: its type's definition is elsewhere (rank_code)
    if bodiless(chunk):
        meta["bodiless"] = True  # an interface's or abstract method: no part in file support (rank_code)
    if accessor(chunk):
        meta["accessor"] = True  # a getter, setter, or Ruby method of one line or a straight body: ranks lower (_idle)
    if valueless(chunk):
        meta["valueless"] = True  # a function that returns no value: after its file's others for "Return ..." (rank_code)
    if chunk.kind == "function" and (written := body_words(chunk.content, chunk.language, chunk.symbol)):
        meta["body_words"] = ",".join(sorted(written))  # what its code writes in calls and strings (rank_code's subject)
    if chunk.documentation:
        meta["documentation"] = True  # ranked with the doc role (service._scored)
    if command := command_line(chunk):
        meta["command"] = command
    if chunk.decl_line:
        meta["decl_line"] = chunk.decl_line
    if chunk.implements:
        meta["implements"] = ",".join(chunk.implements)
    if chunk.members:  # a class kept whole: where its methods are (service._member_similarity)
        meta["members"] = ",".join(f"{name}@{start}-{end}" for name, start, end in chunk.members)
    return meta


def stored_chunk(document: str, meta: dict[str, Any]) -> Chunk:
    """The Chunk a stored document and its metadata came from (for re-embedding without re-reading files)."""
    return Chunk(str(meta.get("file", "")), int(meta.get("start_line") or 1), int(meta.get("end_line") or 1),
                 str(meta.get("symbol", "")), str(meta.get("kind", "")), str(meta.get("language", "")),
                 document, listed(meta, "symbols"), int(meta.get("decl_line") or 0), listed(meta, "implements"),
                 bool(meta.get("documentation")))


def release_freed_memory() -> None:
    """Collect garbage and hand the C heap's free pages back to the system (trim_heap). The file pass frees tens
    of megabytes that other threads' heaps could not reuse."""
    import gc

    gc.collect()
    trim_heap()


def read_text(source: SourceFile) -> tuple[str, str] | None:
    """(text, sha256 of the bytes), or None for binary content."""
    data = source.absolute.read_bytes()
    if b"\x00" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace"), hashlib.sha256(data).hexdigest()


@dataclass
class _Prepared:
    source: SourceFile
    sha: str
    chunks: list[Chunk]
    ids: list[str]
    texts: list[str]
    tokens: list[list[str]]  # each chunk's BM25 tokens


@dataclass
class _Batch:
    """One file batch, searchable in memory, waiting to be written to Chroma and the manifest. Its new chunks'
    vectors and metadata are read from the memory index when it is written: that index holds the only copy."""

    new_ids: list[str]
    documents: list[str]
    keep: dict[str, tuple[ChunkEntry, dict[str, Any]]]
    stale: list[str]
    entries: dict[str, FileEntry]

    @property
    def chars(self) -> int:
        return sum(map(len, self.documents))


@dataclass
class Spaces:
    """The collections a sync writes: the full model's, and the static model's when the fast pass is on."""

    full_store: VectorStore
    full: Embedder | StaticEmbedder  # the configured model (the static one by default: then it is the only pass)
    fast_store: VectorStore | None = None
    fast: StaticEmbedder | None = None

    def stores(self) -> list[VectorStore]:
        return [self.full_store] + ([self.fast_store] if self.fast_store is not None else [])

    @property
    def first_store(self) -> VectorStore:
        """The collection the file pass fills: it holds every indexed chunk's text and metadata."""
        return self.fast_store if self.fast_store is not None else self.full_store

    @property
    def first_embedder(self) -> StaticEmbedder | Embedder:
        """The model the file pass embeds new chunks with."""
        return self.fast if self.fast is not None else self.full


class ForestSync:
    """One sync run. `stop` is checked between batches (server shutdown)."""

    def __init__(self, root: ProjectRoot, config: Config, spaces: Spaces, lexical: LexicalIndex, manifest: Manifest,
                 manifest_file: Any, stop: threading.Event, state: SyncState | None = None,
                 memory: MemoryIndex | None = None, reset_stores: list[VectorStore] | None = None,
                 on_searchable: Callable[[], None] | None = None) -> None:
        self.root, self.config, self.spaces = root, config, spaces
        self.on_searchable = on_searchable  # called once the file pass is over, before the stores are written
        self.lexical, self.manifest, self.manifest_file, self.stop = lexical, manifest, manifest_file, stop
        self.memory = memory if memory is not None else MemoryIndex()
        self.reset_stores = list(reset_stores or [])  # emptied by the writer before it stores anything
        self.chunker = Chunker(config.chunk_max_tokens, config.chunk_strategy)
        self.counts = SyncCounts()
        self.state = state or SyncState()
        self._saved_at = 0.0

    def _save(self, force: bool = False) -> None:
        """Write the manifest, at most every MANIFEST_SAVE_S (it grows with the project) unless `force`."""
        now = time.monotonic()
        if force or now - self._saved_at >= MANIFEST_SAVE_S:
            save_manifest(self.manifest_file, self.manifest)
            self._saved_at = now

    # ------------------------------------------------------------ file pass
    def run_files(self, progress: Progress | None = None) -> bool:
        """Bring every file's chunks up to date (static vectors for new chunks); False when stopped."""
        notify = progress or (lambda done, total, message: None)
        files, todo = self._scan()
        total = len(todo)
        self.state.phase, self.state.files_total, self.state.files_done = "files", total, 0
        notify(0, total, f"{len(files)} files scanned, {total} to index")
        self.manifest.complete = False
        self.manifest.partial_reason = f"sync in progress: 0 of {total} changed files indexed"
        self._index_files(todo, notify)
        if self.stop.is_set():
            self.manifest.partial_reason = f"sync stopped: {self.state.files_done} of {total} changed files indexed"
            self._save(force=True)
            return False
        pending_full = self.manifest.chunk_count - self.manifest.full_chunk_count
        if not pending_full:
            self._finish()  # nothing for the full model to do: the sync is over, and this is its one last save
            return True
        self.manifest.partial_reason = (f"{pending_full} chunks await the full model; the fast static vectors "
                                        "answer meanwhile")
        self._save(force=True)
        return True

    def _scan(self) -> tuple[list[SourceFile], list[SourceFile]]:
        """List the project's files, forget the deleted ones; returns every file and the changed ones."""
        files, too_big = list_source_files(self.root, self.config)
        self.counts.files_scanned = len(files)
        self.counts.files_skipped = too_big
        current = {f.path: f for f in files}
        self._remove([path for path in self.manifest.files if path not in current])
        return files, self._changed(files)

    def _index_files(self, todo: list[SourceFile], notify: Progress) -> None:
        """Index the changed files in batches until done or stopped. Chroma writes run in a thread of their own
        (see PERSIST_BACKLOG_CHARS): the files are searchable from memory before Chroma (seconds to import, more
        to store) has them."""
        # numpy is imported here first: two threads importing it at once (Chroma's import, the embedder's) can fail
        import numpy  # noqa: F401

        total = len(todo)
        writer = _Writer(self)
        try:
            for start in range(0, total, FILES_PER_BATCH):
                if self.stop.is_set():
                    break
                batch = todo[start : start + FILES_PER_BATCH]
                pending = self._index_batch(batch)
                self.state.files_done += len(batch)
                if pending is not None:
                    writer.put(pending)
                notify(self.state.files_done, total, f"indexed {self.state.files_done}/{total} files")
            self.state.phase = "persist"
            if self.counts.chunks_added >= RELEASE_AFTER_CHUNKS:
                release_freed_memory()  # before Chroma, whose threads allocate from other heaps, stores anything
            if self.on_searchable is not None and not self.stop.is_set():
                self.on_searchable()
        finally:
            writer.close(discard=self.stop.is_set())  # a stopped sync leaves the unwritten files to the next one

    # ------------------------------------------------------------ full pass
    def run_full(self, progress: Progress | None = None) -> bool:
        """Embed every chunk that has no full-model vector yet; False when stopped. Progress carries on from the
        file pass's count (files, then chunks), so it only ever grows, as MCP progress must."""
        report = progress or (lambda done, total, message: None)
        offset = self.state.files_total

        def notify(done: float, total: float | None, message: str) -> None:
            report(offset + done, offset + (total or 0), message)
        pending = [(path, c) for path, entry in self.manifest.files.items() for c in entry.chunks if not c.full]
        if not pending:
            return True  # run_files finished the sync
        self.state.phase, self.state.full_total, self.state.full_done = "full", len(pending), 0
        notify(0, len(pending), f"full model: {len(pending)} chunks to embed")
        for start in range(0, len(pending), FULL_CHUNKS_PER_BATCH):
            if self.stop.is_set():
                self.manifest.partial_reason = (f"sync stopped: {self.state.full_done} of {len(pending)} chunks "
                                                "embedded by the full model; the fast vectors answer meanwhile")
                save_manifest(self.manifest_file, self.manifest)
                return False
            if not self._embed_full(pending[start : start + FULL_CHUNKS_PER_BATCH], len(pending)):
                return False
            notify(self.state.full_done, len(pending), f"full model: {self.state.full_done}/{len(pending)} chunks")
        self._finish()
        return True

    def _embed_full(self, batch: list[tuple[str, ChunkEntry]], pending: int) -> bool:
        """Re-embed one batch of stored chunks with the full model and save the progress; False when the model
        failed (the fast vectors keep answering; the next sync retries)."""
        got = self.spaces.first_store.get(FOREST, ids=[c.id for _, c in batch], include=("documents", "metadatas"))
        found = {i: (d or "", dict(m or {})) for i, d, m in zip(got["ids"], got["documents"], got["metadatas"],
                                                                 strict=True)}
        ids = [c.id for _, c in batch if c.id in found]
        texts = [embedding_text(stored_chunk(*found[i])) for i in ids]
        try:
            vectors = self.spaces.full.embed_documents(texts) if texts else []
        except ToolUnavailable:
            raise
        except Exception as err:
            log.exception("full-model embedding failed for %d chunks", len(texts))
            self.manifest.partial_reason = f"full-model embedding failed: {err}"
            save_manifest(self.manifest_file, self.manifest)
            return False
        self.spaces.full_store.upsert(FOREST, ids, vectors, [found[i][0] for i in ids], [found[i][1] for i in ids])
        for _, entry in batch:
            entry.full = True
        if len(ids) < len(batch):  # listed but not stored (a store wiped under us): the next sync rebuilds
            log.warning("%d chunks listed in the manifest are missing from the store", len(batch) - len(ids))
        self.counts.chunks_full_embedded += len(ids)
        self.state.full_done += len(batch)
        self.manifest.partial_reason = (f"full model: {self.state.full_done} of {pending} chunks embedded; "
                                        "the fast vectors answer until it is done")
        self._save()
        return True

    def _finish(self) -> None:
        """Mark the manifest complete, or say which files could not be indexed."""
        self.state.phase = "done"
        if self.counts.files_failed:
            failed = self.counts.files_failed
            self.manifest.partial_reason = f"{len(failed)} file(s) could not be indexed: {', '.join(failed[:5])}"
        else:
            self.manifest.complete, self.manifest.partial_reason = True, None
            self.manifest.last_complete_sync = time.time()
        save_manifest(self.manifest_file, self.manifest)

    # -------------------------------------------------------------- helpers
    def _remove(self, paths: list[str]) -> None:
        for path in paths:
            entry = self.manifest.files.pop(path)
            ids = [c.id for c in entry.chunks]
            for store in self.spaces.stores():
                store.delete(FOREST, ids)
            self.lexical.remove(ids)
            self.memory.remove(ids)
            self.counts.files_removed += 1
            self.counts.chunks_removed += len(ids)

    def _changed(self, files: list[SourceFile]) -> list[SourceFile]:
        todo: list[SourceFile] = []
        for source in files:
            entry = self.manifest.files.get(source.path)
            if entry is not None and entry.size == source.size and entry.mtime_ns == source.mtime_ns:
                self.counts.files_unchanged += 1
                continue
            if entry is not None:
                try:
                    same = sha256_file(source.absolute) == entry.sha256
                except OSError:
                    same = False
                if same:  # touched, not edited: remember the new mtime so the next scan skips the read
                    entry.mtime_ns, entry.size = trusted_mtime(source.mtime_ns), source.size
                    self.counts.files_unchanged += 1
                    continue
            todo.append(source)
        return todo

    def _prepare(self, source: SourceFile) -> _Prepared | None:
        read = read_text(source)
        if read is None:
            self.counts.files_skipped += 1
            return None
        text, sha = read
        chunks = self.chunker.chunk(source.path, text, language_for(source.path) or script_language(source.path, text))
        seen: set[str] = set()
        indexed = [indexed_texts(c) for c in chunks]
        texts = [text for text, _ in indexed]
        ids = [chunk_id(c, t, seen) for c, t in zip(chunks, texts, strict=True)]
        return _Prepared(source, sha, chunks, ids, texts, [tokens for _, tokens in indexed])

    def _index_batch(self, batch: list[SourceFile]) -> _Batch | None:
        """Chunk and embed a batch of files into memory (searchable from here on); the returned batch is what
        Chroma and the manifest still have to record (`persist`)."""
        prepared = self._prepare_all(batch)
        new_ids, new_texts, new_docs, new_meta, keep = self._split_new(prepared)
        try:
            vectors = self._embed_first(new_texts)
        except ToolUnavailable:
            raise
        except Exception as err:  # one bad batch must not lose the rest of the sync
            log.exception("embedding failed for a batch of %d files", len(prepared))
            self.counts.files_failed.extend(p.source.path for p in prepared)
            self.manifest.partial_reason = f"embedding failed: {err}"
            return None
        self.memory.add(new_ids, vectors, new_docs, new_meta)
        del vectors  # the memory index holds them; Chroma reads them from there
        self.memory.update_metadata(list(keep), [m for _, m in keep.values()])
        stale: list[str] = []
        entries: dict[str, FileEntry] = {}
        for item in prepared:
            stale.extend(self._drop_gone(item))
            entries[item.source.path] = self._file_entry(item, keep)
        self.counts.chunks_removed += len(stale)
        self.counts.chunks_added += len(new_ids)
        self.counts.chunks_kept += len(keep)
        return _Batch(new_ids, new_docs, keep, stale, entries)

    def _prepare_all(self, batch: list[SourceFile]) -> list[_Prepared]:
        """Chunk each file; one unreadable file is counted as failed and does not stop the batch."""
        prepared: list[_Prepared] = []
        for source in batch:
            try:
                item = self._prepare(source)
            except OSError as err:
                log.warning("cannot read %s: %s", source.path, err)
                self.counts.files_failed.append(source.path)
                continue
            if item is not None:
                prepared.append(item)
        return prepared

    def _split_new(self, prepared: list[_Prepared]) -> tuple[
            list[str], list[str], list[str], list[dict[str, Any]], dict[str, tuple[ChunkEntry, dict[str, Any]]]]:
        """Embed only chunks whose text is new (ids, texts, documents, metadata); unchanged ones keep their
        stored vectors and only get fresh metadata (`keep`)."""
        new_ids, new_texts, new_docs, new_meta = [], [], [], []
        keep: dict[str, tuple[ChunkEntry, dict[str, Any]]] = {}
        for item in prepared:
            old = self.manifest.files.get(item.source.path)
            old_chunks = {c.id: c for c in old.chunks} if old else {}
            retired = deprecated_types(item.chunks)
            for cid, chunk, text in zip(item.ids, item.chunks, item.texts, strict=True):
                meta = chunk_metadata(chunk, item.sha, retired)
                if cid in old_chunks:
                    keep[cid] = (old_chunks[cid], meta)
                else:
                    new_ids.append(cid)
                    new_texts.append(text)
                    new_docs.append(chunk.content)
                    new_meta.append(meta)
        return new_ids, new_texts, new_docs, new_meta, keep

    def _embed_first(self, texts: list[str]) -> Any:
        """Vectors of the first pass's model (the static model embeds documents and queries alike)."""
        embedder = self.spaces.first_embedder
        return embedder.embed(texts) if isinstance(embedder, StaticEmbedder) else (
            embedder.embed_documents(texts) if texts else [])

    def _drop_gone(self, item: _Prepared) -> list[str]:
        """Forget the file's chunks that no longer exist and index its current ones lexically; returns the gone ids."""
        old = self.manifest.files.get(item.source.path)
        current_ids = set(item.ids)
        gone = [c.id for c in old.chunks if c.id not in current_ids] if old else []
        self.lexical.remove(gone)
        self.memory.remove(gone)
        for cid, tokens in zip(item.ids, item.tokens, strict=True):
            self.lexical.add_tokens(cid, tokens)
        return gone

    def _file_entry(self, item: _Prepared, keep: dict[str, tuple[ChunkEntry, dict[str, Any]]]) -> FileEntry:
        """The file's manifest entry; a kept chunk keeps its full-model mark, a new one has it only without a
        fast pass."""
        if item.source.path in self.manifest.files:
            self.counts.files_changed += 1
        else:
            self.counts.files_added += 1
        return FileEntry(
            sha256=item.sha, size=item.source.size, mtime_ns=trusted_mtime(item.source.mtime_ns),
            language=item.chunks[0].language if item.chunks else (language_for(item.source.path) or "text"),
            chunks=[ChunkEntry(id=cid, start_line=c.start_line, end_line=c.end_line, symbol=c.symbol,
                               symbols=c.symbols, kind=c.kind,
                               full=keep[cid][0].full if cid in keep else self.spaces.fast is None)
                    for cid, c in zip(item.ids, item.chunks, strict=True)],
        )

    def persist(self, batch: _Batch) -> None:
        """Write one searchable batch to Chroma, then record its files in the manifest."""
        ids, vectors, metadatas = self.memory.records(batch.new_ids)
        documents = dict(zip(batch.new_ids, batch.documents, strict=True))
        self.spaces.first_store.upsert(FOREST, ids, vectors, [documents[i] for i in ids], metadatas)
        if self.spaces.fast_store is not None:
            self.spaces.fast_store.update_metadata(FOREST, list(batch.keep), [m for _, m in batch.keep.values()])
        in_full = [cid for cid, (entry, _) in batch.keep.items() if entry.full]
        self.spaces.full_store.update_metadata(FOREST, in_full, [batch.keep[cid][1] for cid in in_full])
        for store in self.spaces.stores():
            store.delete(FOREST, batch.stale)
        self.manifest.files.update(batch.entries)
        self.manifest.partial_reason = (f"sync in progress: {self.state.files_done} of {self.state.files_total} "
                                        "changed files indexed")
        self._save()


class _Writer:
    """Writes file batches to Chroma in a thread of its own, in order; the first failure is raised by close().

    The thread starts at close(), once every file is searchable, or earlier when the batches waiting hold more than
    PERSIST_BACKLOG_CHARS of text; then put() waits until the writer has brought them back under it."""

    def __init__(self, run: ForestSync) -> None:
        self.run = run
        self.pending: deque[_Batch] = deque()
        self.pending_chars = 0
        self.closed = False
        self.changed = threading.Condition()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._loop, name="code-intel-index-writer", daemon=True)
        self.started = False

    def _start(self) -> None:
        if not self.started:
            self.started = True
            self.thread.start()

    def put(self, batch: _Batch) -> None:
        with self.changed:
            self.pending.append(batch)
            self.pending_chars += batch.chars
            self.changed.notify_all()
            if self.pending_chars > PERSIST_BACKLOG_CHARS:
                self._start()
                while self.pending_chars > PERSIST_BACKLOG_CHARS and self.error is None:
                    self.changed.wait()
            if self.error is not None:
                raise self.error

    def _loop(self) -> None:
        try:
            for store in self.run.reset_stores:
                store.reset(FOREST)
        except BaseException as err:  # re-raised in the sync's own thread
            self.error = err
        while True:
            with self.changed:
                while not self.pending and not self.closed:
                    self.changed.wait()
                if not self.pending or self.error is not None:
                    self.changed.notify_all()
                    return  # closed and drained, or failed: the sync reports the failure
                batch = self.pending[0]
            try:
                self.run.persist(batch)
            except BaseException as err:  # re-raised in the sync's own thread
                self.error = err
            with self.changed:
                self.pending.popleft()
                self.pending_chars -= batch.chars
                self.changed.notify_all()

    def close(self, discard: bool = False) -> None:
        with self.changed:
            if discard:
                self.pending.clear()
                self.pending_chars = 0
            self.closed = True
            self.changed.notify_all()
        if self.started or not discard:
            self._start()
            self.thread.join()
        if self.error is not None:
            raise self.error
