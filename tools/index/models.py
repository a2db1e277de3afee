"""Result models of the semantic-index tools (what `outputSchema` in tools/list says they return).

Every hit that points into code carries `file` and a 1-based `line`. Models allow extra keys: the
index answers plain dicts that may carry more than a field listed here, and nothing is dropped.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class SemanticHit(_Open):
    chunk_id: str
    file: str | None = None
    line: int | None = None
    end_line: int | None = None
    symbol: str | None = None
    language: str | None = None
    kind: str | None = None
    role: Literal["implementation", "test", "doc", "generated"] | None = Field(
        default=None, description="what the file is for, from its path")
    score: float
    similarity: float | None = None
    source: Literal["forest", "map"]
    agreement_id: str | None = None
    snippet: str = ""


class IndexState(_Open):
    """How complete the index is when it answers."""

    state: Literal["empty", "syncing", "partial", "complete"]
    quality: Literal["fast", "full"] | None = Field(
        default=None, description="which model ranked: the fast static one until the full model embedded every chunk")
    searchable: bool | None = Field(default=None, description="every file is searchable (no sync is still "
                                                               "indexing files)")
    indexed_chunks: int = Field(description="chunks searchable now")
    full_quality_chunks: int = Field(description="chunks the full model has embedded")
    indexed_files: int
    total_chunks: int | None = Field(default=None, description="null while a sync is still chunking files")
    files_to_index: int | None = None
    files_indexed_this_sync: int | None = None


class SemanticSearchResult(_Open):
    query: str
    index_complete: bool
    index: IndexState
    map_shortcut: bool = False
    source: str = Field(description="forest, map, or map+forest")
    results: list[SemanticHit]
    note: str | None = None
    left_out: int | None = Field(default=None, description="hits past this page (the answer's budget)")
    next_offset: int | None = Field(default=None, description="send as offset for the hits left out")


class ChunkDetail(_Open):
    chunk_id: str
    source: str | None = None
    file: str | None = None
    line: int | None = None
    end_line: int | None = None
    symbol: str | None = None
    symbols: list[str] = Field(default_factory=list)
    kind: str | None = None
    language: str | None = None
    content: str | None = None
    content_hash: str | None = None
    stale: bool | None = None
    request: str | None = Field(default=None, description="Map agreements: the request that was agreed")


class SymbolRelevance(_Open):
    symbol: str
    similarity: float
    verdict: Literal["relevant", "weak", "unrelated"]
    found_in_index: bool
    file: str | None = None
    line: int | None = None
    end_line: int | None = None


class RelevanceResult(_Open):
    query: str
    results: list[SymbolRelevance]
    thresholds: dict[str, float]


class SyncReport(_Open):
    files_scanned: int
    files_changed: int
    files_added: int
    files_removed: int
    files_unchanged: int
    files_skipped: int
    chunks_added: int
    chunks_removed: int
    chunks_kept: int
    chunks_total: int
    duration_s: float
    complete: bool
    model: str
    store: str
    chunks_full_embedded: int = Field(default=0, description="chunks the full model embedded in this run")
    index: IndexState | None = None
    files_failed: list[str] | int | None = None
    partial_reason: str | None = None
    note: str | None = None
