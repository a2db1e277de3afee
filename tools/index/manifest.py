"""What the index holds, per file: content hash, size, mtime and the ids of its chunks.

Kept as JSON under `.code-intel/cache/` (one file per store and model), written atomically after every
batch, so a sync that stops half way leaves an accurate record of what is indexed and says so.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError
from pydantic_core import to_json

from code_intel.core.fsutil import write_atomic

log = logging.getLogger(__name__)

MANIFEST_VERSION = 3


@dataclasses.dataclass(slots=True)
class ChunkEntry:
    """One chunk's record: a slotted dataclass, not a BaseModel (a sync holds one per chunk; about 0.25 KB each
    instead of 1.3 KB). Pydantic still validates it, and writes the same JSON, as part of the Manifest."""

    id: str
    start_line: int
    end_line: int
    symbol: str = ""
    symbols: list[str] = dataclasses.field(default_factory=list)
    kind: str = ""
    full: bool = False  # the full model's vector exists (until then only the static model's does)


class FileEntry(BaseModel):
    sha256: str
    size: int
    mtime_ns: int
    language: str
    chunks: list[ChunkEntry] = Field(default_factory=list)


class Manifest(BaseModel):
    version: int = MANIFEST_VERSION
    model: str = ""
    store: str = ""
    chunker: str = ""
    complete: bool = False
    partial_reason: str | None = None
    last_complete_sync: float | None = None  # epoch seconds of the last sync that finished
    files: dict[str, FileEntry] = Field(default_factory=dict)

    @property
    def chunk_count(self) -> int:
        return sum(len(entry.chunks) for entry in list(self.files.values()))  # list(): a sync may add files

    @property
    def full_chunk_count(self) -> int:
        return sum(1 for entry in list(self.files.values()) for c in entry.chunks if c.full)


def manifest_path(cache_dir: Path, store: str, model: str) -> Path:
    digest = hashlib.sha1(f"{store}|{model}".encode()).hexdigest()[:12]
    return cache_dir / f"index-manifest-{digest}.json"


def load_manifest(file: Path, *, model: str, store: str, chunker: str) -> Manifest:
    """The saved manifest, or an empty one when absent, unreadable or built with other settings."""
    fresh = Manifest(model=model, store=store, chunker=chunker)
    if not file.exists():
        return fresh
    try:
        loaded = Manifest.model_validate_json(file.read_text(encoding="utf-8"))
    except (OSError, ValidationError, ValueError) as err:
        log.warning("index manifest %s unreadable (%s); the index will be rebuilt", file, err)
        return fresh
    if loaded.version != MANIFEST_VERSION or loaded.model != model or loaded.chunker != chunker:
        log.info("index settings changed (model, chunking or format); the index will be rebuilt")
        return fresh
    return loaded


def save_manifest(file: Path, manifest: Manifest) -> None:
    """The same JSON as `manifest.model_dump_json()`, written a file's entry at a time: sympy's manifest is 8 MB,
    and as one string plus its bytes it raised a large sync's peak by 16 to 24 MB when saved at the sync's end."""
    head = manifest.model_dump_json(exclude={"files"})  # `files` is the last field

    def pieces() -> Iterator[bytes]:
        yield head[:-1].encode() + b',"files":{'
        for n, (path, entry) in enumerate(list(manifest.files.items())):  # list(): a sync's writer may add files
            yield (b"," if n else b"") + to_json(path) + b":" + to_json(entry)
        yield b"}}"

    write_atomic(file, pieces())


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
