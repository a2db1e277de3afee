"""Chroma collections for the Forest (code chunks) and the Map (agreements), local or on a server.

Embeddings are always computed by us and passed in: Chroma's own default embedding function would
download a model. Collection names carry a short hash of the model identity, so switching models
starts a fresh space instead of mixing vectors of different models.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from pathlib import Path
from typing import Any

from code_intel.core.config import ChromaSettings
from code_intel.core.errors import ToolUnavailable
from code_intel.core.project import ProjectRoot

log = logging.getLogger(__name__)

FOREST, MAP = "forest", "map"
# Chunks per Chroma upsert call: Chroma's memory while it stores grows with the size of each call (about 40% less
# on a 44,000-chunk project at 128 than at the ~950 of a file batch), for little more CPU.
UPSERT_CHUNKS = 128


def store_description(root: ProjectRoot, settings: ChromaSettings) -> str:
    if settings.mode == "http":
        scheme = "https" if settings.ssl else "http"
        return f"chroma {scheme}://{settings.host}:{settings.port}"
    return f"chroma persistent {persistent_path(root, settings)}"


def persistent_path(root: ProjectRoot, settings: ChromaSettings) -> Path:
    if settings.path:
        return root.resolve(settings.path, kind="chroma.path")
    return root.runtime_dir("chroma")


def collection_name(kind: str, project: Path, model_identity: str) -> str:
    """forest_<8 hex of project+model>: one Chroma server can hold many projects side by side."""
    digest = hashlib.sha1(f"{project}|{model_identity}".encode()).hexdigest()[:12]
    return f"code_intel_{kind}_{digest}"


class VectorStore:
    """Thread-safe access to the two collections; every call takes the lock briefly."""

    def __init__(self, root: ProjectRoot, settings: ChromaSettings, model_identity: str) -> None:
        self.root, self.settings, self.model_identity = root, settings, model_identity
        self.description = store_description(root, settings)
        self._lock = threading.RLock()
        self._client: Any = None
        self._collections: dict[str, Any] = {}

    def _connect(self) -> Any:
        if self._client is not None:
            return self._client
        import chromadb
        from chromadb.config import Settings

        chroma_settings = Settings(anonymized_telemetry=False)
        try:
            if self.settings.mode == "http":
                self._client = chromadb.HttpClient(
                    host=self.settings.host, port=self.settings.port, ssl=self.settings.ssl, settings=chroma_settings
                )
                self._client.heartbeat()
            else:
                path = persistent_path(self.root, self.settings)
                self._client = chromadb.PersistentClient(path=str(path), settings=chroma_settings)
        except Exception as err:
            self._client = None
            raise ToolUnavailable(
                f"cannot open {self.description}: {type(err).__name__}: {err}",
                hint="for chroma.mode 'http' start the server (`chroma run --path DIR --port N`) and check "
                "chroma.host/port in .code-intel/config.json; for the default mode check the folder is writable",
            ) from None
        return self._client

    def collection(self, kind: str) -> Any:
        with self._lock:
            if kind not in self._collections:
                client = self._connect()
                name = collection_name(kind, self.root.path, self.model_identity)
                self._collections[kind] = client.get_or_create_collection(
                    name, metadata={"hnsw:space": "cosine", "model": self.model_identity}, embedding_function=None
                )
            return self._collections[kind]

    def count(self, kind: str) -> int:
        with self._lock:
            return int(self.collection(kind).count())

    def upsert(self, kind: str, ids: list[str], embeddings: Any, documents: list[str],
               metadatas: list[dict[str, Any]]) -> None:
        """Store chunks UPSERT_CHUNKS at a time (see there)."""
        with self._lock:
            for start in range(0, len(ids), UPSERT_CHUNKS):
                end = start + UPSERT_CHUNKS
                self.collection(kind).upsert(ids=ids[start:end], embeddings=embeddings[start:end],
                                             documents=documents[start:end], metadatas=metadatas[start:end])

    def update_metadata(self, kind: str, ids: list[str], metadatas: list[dict[str, Any]]) -> None:
        if ids:
            with self._lock:
                self.collection(kind).update(ids=ids, metadatas=metadatas)

    def delete(self, kind: str, ids: list[str]) -> None:
        if ids:
            with self._lock:
                self.collection(kind).delete(ids=ids)

    def get(self, kind: str, ids: list[str] | None = None, include: tuple[str, ...] = ("documents", "metadatas"),
            where: dict[str, Any] | None = None, limit: int | None = None, offset: int | None = None) -> dict[str, Any]:
        with self._lock:
            result: dict[str, Any] = self.collection(kind).get(ids=ids, where=where, include=list(include),
                                                               limit=limit, offset=offset)
            return result

    def query(self, kind: str, embedding: list[float], n_results: int) -> list[tuple[str, float, str, dict[str, Any]]]:
        """(id, cosine similarity, document, metadata), best first."""
        with self._lock:
            col = self.collection(kind)
            total = col.count()
            if total == 0:
                return []
            found = col.query(query_embeddings=[embedding], n_results=min(n_results, total),
                              include=["distances", "documents", "metadatas"])
        ids, distances = found["ids"][0], found["distances"][0]
        documents, metadatas = found["documents"][0], found["metadatas"][0]
        return [(i, 1.0 - float(d), doc or "", dict(meta or {})) for i, d, doc, meta in zip(
            ids, distances, documents, metadatas, strict=True)]

    def reset(self, kind: str) -> None:
        """Drop and recreate a collection (a forced rebuild)."""
        with self._lock:
            client = self._connect()
            name = collection_name(kind, self.root.path, self.model_identity)
            try:
                client.delete_collection(name)
            except Exception:  # absent already
                log.debug("collection %s did not exist", name)
            self._collections.pop(kind, None)

    def close(self) -> None:
        with self._lock:
            self._collections.clear()
            self._client = None

    def release(self) -> None:
        """Close the local client and let Chroma free what it holds for it (16,000 stored chunks: 39 MB); the next
        call opens it again from disk. Chroma shares one local system per process, so only for the process's one
        store; nothing to do for a server's."""
        with self._lock:
            if self._client is None or self.settings.mode == "http":
                return
            from chromadb.api.client import SharedSystemClient

            self.close()
            SharedSystemClient.clear_system_cache()
