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
    score: float
    similarity: float | None = None
    source: Literal["forest", "map"]
    agreement_id: str | None = None
    snippet: str = ""


class SemanticSearchResult(_Open):
    query: str
    index_complete: bool
    map_shortcut: bool = False
    source: str = Field(description="forest, map, or map+forest")
    results: list[SemanticHit]
    note: str | None = None


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
    files_failed: list[str] | int | None = None
    partial_reason: str | None = None
