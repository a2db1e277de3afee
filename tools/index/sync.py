"""Incremental sync of the Forest: only files whose content changed are re-chunked and re-embedded.

A size+mtime match skips a file without reading it; otherwise its sha256 decides. Inside a changed file,
chunks whose text is unchanged keep their vectors (their ids hash the text) and only get new line
numbers. The manifest is saved after every batch, so a stop half way is recorded as a partial index.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tools.config import Config
from tools.errors import ToolUnavailable
from tools.index.chunker import Chunk, Chunker
from tools.index.embedder import Embedder
from tools.index.files import SourceFile, list_source_files
from tools.index.lexical import LexicalIndex
from tools.index.manifest import ChunkEntry, FileEntry, Manifest, save_manifest, sha256_file
from tools.index.store import FOREST, VectorStore
from tools.index.text import embedding_text, lexical_text
from tools.languages import language_for
from tools.project import ProjectRoot

log = logging.getLogger(__name__)

Progress = Callable[[float, float | None, str], None]
FILES_PER_BATCH = 32  # files embedded together: big enough for full model batches, small enough to save often


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


def chunk_metadata(chunk: Chunk, file_sha: str) -> dict[str, Any]:
    return {"file": chunk.file, "start_line": chunk.start_line, "end_line": chunk.end_line,
            "symbol": chunk.symbol, "symbols": ",".join(chunk.symbols), "kind": chunk.kind,
            "language": chunk.language, "content_hash": chunk.content_hash, "file_sha256": file_sha}


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


class ForestSync:
    """One sync run. `stop` is checked between batches (server shutdown)."""

    def __init__(self, root: ProjectRoot, config: Config, store: VectorStore, embedder: Embedder,
                 lexical: LexicalIndex, manifest: Manifest, manifest_file: Any, stop: threading.Event) -> None:
        self.root, self.config, self.store, self.embedder = root, config, store, embedder
        self.lexical, self.manifest, self.manifest_file, self.stop = lexical, manifest, manifest_file, stop
        self.chunker = Chunker(config.chunk_max_tokens, config.chunk_strategy)
        self.counts = SyncCounts()

    def run(self, progress: Progress | None = None) -> SyncCounts:
        notify = progress or (lambda done, total, message: None)
        files, too_big = list_source_files(self.root, self.config)
        self.counts.files_scanned = len(files)
        self.counts.files_skipped = too_big
        current = {f.path: f for f in files}
        self._remove([path for path in self.manifest.files if path not in current])
        todo = self._changed(files)
        total = len(todo)
        notify(0, total, f"{len(files)} files scanned, {total} to index")
        self.manifest.complete = False
        self.manifest.partial_reason = f"sync in progress: 0 of {total} changed files indexed"
        done = 0
        for start in range(0, total, FILES_PER_BATCH):
            if self.stop.is_set():
                self.manifest.partial_reason = f"sync stopped: {done} of {total} changed files indexed"
                save_manifest(self.manifest_file, self.manifest)
                return self.counts
            batch = todo[start : start + FILES_PER_BATCH]
            self._index_batch(batch)
            done += len(batch)
            self.manifest.partial_reason = f"sync in progress: {done} of {total} changed files indexed"
            save_manifest(self.manifest_file, self.manifest)
            notify(done, total, f"indexed {done}/{total} files")
        if self.counts.files_failed:
            failed = self.counts.files_failed
            self.manifest.partial_reason = f"{len(failed)} file(s) could not be indexed: {', '.join(failed[:5])}"
        else:
            self.manifest.complete, self.manifest.partial_reason = True, None
            self.manifest.last_complete_sync = time.time()
        save_manifest(self.manifest_file, self.manifest)
        return self.counts

    def _remove(self, paths: list[str]) -> None:
        for path in paths:
            entry = self.manifest.files.pop(path)
            ids = [c.id for c in entry.chunks]
            self.store.delete(FOREST, ids)
            self.lexical.remove(ids)
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
                    entry.mtime_ns, entry.size = source.mtime_ns, source.size
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
        chunks = self.chunker.chunk(source.path, text, language_for(source.path))
        seen: set[str] = set()
        texts = [embedding_text(c) for c in chunks]
        ids = [chunk_id(c, t, seen) for c, t in zip(chunks, texts, strict=True)]
        return _Prepared(source, sha, chunks, ids, texts)

    def _index_batch(self, batch: list[SourceFile]) -> None:
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
        # embed only chunks whose text is new; unchanged ones keep their stored vector
        new_ids, new_texts, new_docs, new_meta = [], [], [], []
        keep_ids, keep_meta = [], []
        for item in prepared:
            old = self.manifest.files.get(item.source.path)
            old_ids = {c.id for c in old.chunks} if old else set()
            for cid, chunk, text in zip(item.ids, item.chunks, item.texts, strict=True):
                meta = chunk_metadata(chunk, item.sha)
                if cid in old_ids:
                    keep_ids.append(cid)
                    keep_meta.append(meta)
                else:
                    new_ids.append(cid)
                    new_texts.append(text)
                    new_docs.append(chunk.content)
                    new_meta.append(meta)
        try:
            vectors = self.embedder.embed_documents(new_texts) if new_texts else []
        except ToolUnavailable:
            raise
        except Exception as err:  # one bad batch must not lose the rest of the sync
            log.exception("embedding failed for a batch of %d files", len(prepared))
            self.counts.files_failed.extend(p.source.path for p in prepared)
            self.manifest.partial_reason = f"embedding failed: {err}"
            return
        self.store.upsert(FOREST, new_ids, vectors, new_docs, new_meta)
        self.store.update_metadata(FOREST, keep_ids, keep_meta)
        for item in prepared:
            old = self.manifest.files.get(item.source.path)
            current_ids = set(item.ids)
            stale = [c.id for c in old.chunks if c.id not in current_ids] if old else []
            self.store.delete(FOREST, stale)
            self.lexical.remove(stale)
            for cid, chunk in zip(item.ids, item.chunks, strict=True):
                self.lexical.add(cid, lexical_text(chunk.file, chunk.symbol, chunk.content))
            self.manifest.files[item.source.path] = FileEntry(
                sha256=item.sha, size=item.source.size, mtime_ns=item.source.mtime_ns,
                language=item.chunks[0].language if item.chunks else (language_for(item.source.path) or "text"),
                chunks=[ChunkEntry(id=cid, start_line=c.start_line, end_line=c.end_line, symbol=c.symbol,
                                   symbols=c.symbols, kind=c.kind) for cid, c in zip(item.ids, item.chunks, strict=True)],
            )
            if old is None:
                self.counts.files_added += 1
            else:
                self.counts.files_changed += 1
            self.counts.chunks_removed += len(stale)
        self.counts.chunks_added += len(new_ids)
        self.counts.chunks_kept += len(keep_ids)
