"""The question's vector for the static index, from the code-tuned transformer itself.

The static table (static.py) was fitted so that the sum of a text's token vectors points where the code-tuned
MiniLM puts the whole text, once that vector is centred and reduced by PCA to the table's dimensions
(benchmarks/tokenlearn_static.py). That centring and PCA ship beside the table (`code-static-query.safetensors`),
so a search's question, one short text where a bag of tokens loses most (word order, function words, phrasing),
can be embedded by the transformer and land in the table's space, while every chunk keeps its cheap static vector.

The transformer (numpy, minilm.py; about 55 MB resident, its word embeddings read through a memory map) loads in a
background thread, never at server start: once a sync's file pass is over (every file searchable, the build's freed
memory handed back; the stores are written meanwhile) or, for a large index, once the sync is over, or at the first
search of a process whose index was already built. A search outside a sync waits a bounded time for a load under
way; until it is ready (a search during a sync does not wait), or if it cannot load, the static vector answers, and
the search says which one it used.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from code_intel.core.heap import trim_heap
from code_intel.index.embedder import (
    CODE_TUNED_WEIGHTS,
    DEFAULT_MAX_SEQ_LENGTH,
    NUMPY_BATCH,
    resolve_model_path,
)
from code_intel.index.minilm import NumpyMiniLM
from code_intel.index.static import STATIC_WEIGHTS, StaticEmbedder, table_fingerprint

log = logging.getLogger(__name__)

TEACHER = "all-MiniLM-L6-v2-code"  # the model the table was fitted to
QUERY_PROJECTION = STATIC_WEIGHTS.with_name("code-static-query.safetensors")
WORD_EMBEDDINGS = frozenset({"embeddings.word_embeddings.weight"})  # as named in the packaged model's file


class QueryModel:
    """Embeds questions for a static table: the transformer's vector mapped into the table's space once the model
    has loaded, the table's own vector until then. One per table per process (`for_table`)."""

    _shared: dict[tuple[Path, Path], QueryModel] = {}
    _shared_lock = threading.Lock()

    def __init__(self, static: StaticEmbedder, projection: Path = QUERY_PROJECTION) -> None:
        # the transformer's vector alone: mixing in 50-85% of the static one did no better on the dev sets
        # (docs/benchmarks.md, "The question embedded by the transformer")
        self.static = static
        self.projection = projection
        self.state = "idle"  # idle -> loading -> ready | failed
        self._lock = threading.Lock()
        self._settled = threading.Event()  # set once ready or failed
        self._parts: tuple[Any, Any, Any, Any] | None = None  # model, mean, projection, thread limiter

    @classmethod
    def for_table(cls, static: StaticEmbedder) -> QueryModel:
        key = (static.weights, QUERY_PROJECTION)
        with cls._shared_lock:
            if key not in cls._shared:
                cls._shared[key] = cls(static)
            return cls._shared[key]

    def start(self) -> None:
        """Load the transformer in a background thread (once; a failure is logged and the static vector stays)."""
        with self._lock:
            if self.state != "idle":
                return
            self.state = "loading"
        threading.Thread(target=self.load, name="code-intel-query-model", daemon=True).start()

    def wait(self, timeout: float) -> bool:
        """Wait at most `timeout` seconds for a load under way to settle; True once the transformer is ready."""
        if self.state == "loading":
            self._settled.wait(timeout)
        return self.state == "ready"

    def load(self) -> None:
        # glibc keeps what an index build freed (jackson-databind's 10,720 chunks: 268 -> 229 MB resident, in 9 ms):
        # handed back first, the model fits under the build's peak
        trim_heap()
        try:
            parts = self._load()
            self._mapped(parts, ["warm up"])  # the first question's own costs (scipy's erf, the first forward)
        except Exception as err:  # the static vector answers instead; the search says so
            log.warning("the question model could not load (%s: %s); questions keep the static vector",
                        type(err).__name__, err)
            self.state = "failed"
            self._settled.set()
            return
        self._parts = parts
        self.state = "ready"
        self._settled.set()
        log.info("question model %s loaded", TEACHER)

    def _load(self) -> tuple[Any, Any, Any, Any]:
        from safetensors import safe_open
        from threadpoolctl import ThreadpoolController

        with safe_open(str(self.projection), framework="numpy") as f:
            meta = f.metadata() or {}
            mean, project = f.get_tensor("mean"), f.get_tensor("projection")
        table = table_fingerprint(self.static.weights)
        if meta.get("table_sha256_12") != table:
            raise ValueError(f"{self.projection.name} was made for table {meta.get('table_sha256_12')}, not {table}")
        if project.shape != (mean.shape[0], self.static.dimension):
            raise ValueError(f"{self.projection.name}: projection {project.shape} does not fit the table")
        # its own instance: the word embeddings (44 MB) stay on disk, a question touches a few of their pages
        target, _ = resolve_model_path(TEACHER)
        model = NumpyMiniLM(Path(target), CODE_TUNED_WEIGHTS, DEFAULT_MAX_SEQ_LENGTH, mapped=WORD_EMBEDDINGS)
        return model, mean, project, ThreadpoolController()

    def current(self) -> tuple[Callable[[Sequence[str]], list[list[float]]], str]:
        """(what embeds questions now, its name for the answer): the transformer mapped into the table's space
        once loaded, else the static model, named with the reason."""
        parts = self._parts
        if parts is None:
            reason = {"loading": " (the question model is loading)", "failed": " (the question model failed to load)"}
            return self.static.embed_queries, self.static.model_name + reason.get(self.state, "")
        return functools.partial(self._mapped, parts), TEACHER

    def _mapped(self, parts: tuple[Any, Any, Any, Any], texts: Sequence[str]) -> list[list[float]]:
        import numpy as np

        model, mean, project, threads = parts
        if not texts:
            return []
        # one short text: BLAS threads only spin (on 2 busy cores, 20-30 ms on one thread against 300-400 ms)
        with threads.limit(limits=1, user_api="blas"):
            mapped = (model.encode(list(texts), NUMPY_BATCH) - mean) @ project
        mapped /= np.maximum(np.linalg.norm(mapped, axis=1, keepdims=True), 1e-12)
        return [v.tolist() for v in mapped.astype(np.float32)]

