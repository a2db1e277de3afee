"""The Map: agreements (a request that ended in a successful session -> the symbols and files it touched).

Each agreement lives in the Map collection (embedded request text) and as a JSON file under
`.code-intel/agreements/`, which is the durable copy: the collection is rebuilt from those files when it is
empty (a new model, a fresh Chroma server).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from code_intel.core.errors import InvalidArgument
from code_intel.core.project import ProjectRoot
from code_intel.index.embedder import Embedder
from code_intel.index.store import MAP, VectorStore

log = logging.getLogger(__name__)

# A Map hit this similar to the request answers the search on its own (the spec's shortcut).
MAP_SHORTCUT_SCORE = 0.7


class Agreement(BaseModel):
    agreement_id: str
    request: str
    symbols: list[str] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)
    session_ids: list[str] = Field(default_factory=list)
    created_at: float
    updated_at: float


def agreement_id(request: str) -> str:
    normalized = " ".join(request.lower().split())
    return "map-" + hashlib.sha1(normalized.encode()).hexdigest()[:16]


class AgreementMap:
    def __init__(self, root: ProjectRoot, store: VectorStore, embedder: Embedder) -> None:
        self.root, self.store, self.embedder = root, store, embedder

    @property
    def folder(self) -> Path:
        return self.root.state_dir / "agreements"

    def _file(self, ident: str) -> Path:
        return self.folder / f"{ident}.json"

    def load(self, ident: str) -> Agreement | None:
        file = self._file(ident)
        if not file.exists():
            return None
        try:
            return Agreement.model_validate_json(file.read_text(encoding="utf-8"))
        except (OSError, ValidationError, ValueError) as err:
            log.warning("agreement %s unreadable: %s", file, err)
            return None

    def add(self, request: str, symbols: list[str], files: list[str], session_id: str | None) -> Agreement:
        if not isinstance(request, str) or not request.strip():
            raise InvalidArgument("request is empty", hint="send the user's request text that the session fulfilled")
        clean_symbols = [s.strip() for s in symbols if isinstance(s, str) and s.strip()]
        clean_files = [self.root.relative(self.root.resolve(f, kind="agreement file")) for f in files]
        ident = agreement_id(request)
        now = time.time()
        found = self.load(ident)
        agreement = found or Agreement(agreement_id=ident, request=request.strip(), created_at=now, updated_at=now)
        agreement.symbols = list(dict.fromkeys(agreement.symbols + clean_symbols))
        agreement.files = list(dict.fromkeys(agreement.files + clean_files))
        if session_id and session_id not in agreement.session_ids:
            agreement.session_ids.append(session_id)
        agreement.updated_at = now
        self._upsert([agreement])
        self.folder.mkdir(parents=True, exist_ok=True)
        self._file(ident).write_text(agreement.model_dump_json(indent=2), encoding="utf-8")
        return agreement

    def _upsert(self, agreements: list[Agreement]) -> None:
        vectors = self.embedder.embed_queries([a.request for a in agreements])
        self.store.upsert(
            MAP, [a.agreement_id for a in agreements], vectors, [a.request for a in agreements],
            [{"symbols": json.dumps(a.symbols), "files": json.dumps(a.files), "updated_at": a.updated_at}
             for a in agreements],
        )

    def restore_if_empty(self) -> int:
        """Re-embed the JSON copies when the collection is empty; returns how many were restored."""
        if not self.folder.is_dir() or self.store.count(MAP) > 0:
            return 0
        agreements = [a for a in (self.load(f.stem) for f in sorted(self.folder.glob("map-*.json"))) if a]
        if agreements:
            self._upsert(agreements)
            log.info("restored %d agreements into the Map", len(agreements))
        return len(agreements)

    def has_any(self) -> bool:
        """Whether any agreement was ever stored (its JSON copy is the durable record): no model needed."""
        return self.folder.is_dir() and any(self.folder.glob("map-*.json"))

    def search(self, embedding: list[float], n_results: int) -> list[tuple[Agreement, float]]:
        hits = []
        for ident, score, document, meta in self.store.query(MAP, embedding, n_results):
            agreement = self.load(ident) or Agreement(
                agreement_id=ident, request=document, symbols=_json_list(meta.get("symbols")),
                files=_json_list(meta.get("files")), created_at=0.0, updated_at=float(meta.get("updated_at") or 0),
            )
            hits.append((agreement, score))
        return hits


def _json_list(value: Any) -> list[str]:
    try:
        data = json.loads(value) if isinstance(value, str) else []
    except ValueError:
        return []
    return [str(v) for v in data] if isinstance(data, list) else []
