"""A static (bag-of-token-vectors) embedding model for the first, fast pass of an index build.

One vector per WordPiece token of all-MiniLM-L6-v2's vocabulary, made from the code-tuned model by
`benchmarks/distill_static.py`. A text's vector is the mean of its tokens' vectors, normalised: no
transformer runs, so a chunk costs a tokenizer call and a table look-up (thousands of chunks a second on
one core instead of about 35). It ranks worse than the full model, so the index answers with it only until
the full model has embedded every chunk, and its vectors live in a space (collection) of their own.

Needs only `tokenizers` and numpy; the table ships in `tools/index/weights/` and the tokenizer comes from
the packaged all-MiniLM-L6-v2, so it loads with no network and no torch.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from code_intel.core.errors import ToolUnavailable
from code_intel.index.embedder import resolve_model_path, weights_fingerprint

log = logging.getLogger(__name__)

STATIC_MODEL_NAME = "code-static"
STATIC_WEIGHTS = Path(__file__).resolve().parent / "weights" / "code-static.safetensors"
MAX_TOKENS = 1024  # a chunk is at most chunk_max_tokens (~4 characters each); more only adds cost
GATHER_ROWS = 16384  # token vectors gathered at once while embedding (16k x 256 floats: 16 MB)


class StaticEmbedder:
    """Mean of token vectors; loads on first use, once per process (thread-safe)."""

    _cache: dict[Path, tuple[Any, Any]] = {}
    _lock = threading.Lock()

    def __init__(self, weights: Path = STATIC_WEIGHTS) -> None:
        self.weights = weights
        self.model_name = STATIC_MODEL_NAME

    @property
    def identity(self) -> str:
        """Names the vector space: new weights make a new space (and a rebuild of the fast vectors)."""
        return f"{STATIC_MODEL_NAME}|{weights_fingerprint(self.weights)}"

    def _parts(self) -> tuple[Any, Any]:
        with self._lock:
            if self.weights not in self._cache:
                self._cache[self.weights] = _load(self.weights)
            return self._cache[self.weights]

    @property
    def dimension(self) -> int:
        return int(self._parts()[1].shape[1])

    def embed(self, texts: Sequence[str]) -> Any:
        """A float32 array (len(texts) x dimension) of unit vectors (zero for a text with no known token).

        Token vectors are summed a slice of texts at a time, so the gathered rows never exceed about
        GATHER_ROWS x dimension floats whatever the batch size (a whole-batch gather of 1,000 long chunks
        was half a gigabyte)."""
        import numpy as np

        tokenizer, table = self._parts()
        out = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
        if not texts:
            return out
        ids = [e.ids for e in tokenizer.encode_batch(list(texts), add_special_tokens=False)]  # truncated at load
        lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
        start = 0
        while start < len(ids):
            # a slice of texts whose tokens fit GATHER_ROWS (at least one text)
            stop = start + max(1, int(np.searchsorted(np.cumsum(lengths[start:]), GATHER_ROWS, side="right")))
            sizes = lengths[start:stop]
            flat = np.fromiter(itertools.chain.from_iterable(ids[start:stop]), dtype=np.int64, count=int(sizes.sum()))
            if flat.size:
                filled = sizes > 0
                offsets = np.concatenate(([0], np.cumsum(sizes)[:-1]))[filled]
                out[start:stop][filled] = np.add.reduceat(table[flat], offsets, axis=0)
            start = stop
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out

    def sentence_transformer(self) -> Any:
        """The same model as a sentence-transformers model: its StaticEmbedding module (a mean over the same
        token-vector table, same tokenizer, no special tokens) and a Normalize module. `embed` computes exactly
        this with numpy alone, so indexing needs no torch (its import takes seconds and hundreds of megabytes);
        this is for code that wants the model inside sentence-transformers (tests check both agree)."""
        from sentence_transformers import SentenceTransformer
        from sentence_transformers.sentence_transformer.modules import Normalize, StaticEmbedding

        tokenizer, table = self._parts()
        return SentenceTransformer(modules=[StaticEmbedding(tokenizer, embedding_weights=table.copy()), Normalize()],
                                   device="cpu")

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [v.tolist() for v in self.embed(texts)]

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return [v.tolist() for v in self.embed(texts)]


def _load(weights: Path) -> tuple[Any, Any]:
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    if not weights.is_file():
        raise ToolUnavailable(f"the static embedding table is missing ({weights})",
                              hint="reinstall code-intel (./setup.sh), or set index_fast_pass to false")
    base, _packaged = resolve_model_path("all-MiniLM-L6-v2")
    tokenizer = Tokenizer.from_file(str(Path(base) / "tokenizer.json"))
    tokenizer.enable_truncation(MAX_TOKENS)  # a chunk's first MAX_TOKENS tokens: more only adds cost
    tokenizer.no_padding()
    table = load_file(str(weights))["embeddings"].astype("float32")  # 31 MB; float16 sums are slow on CPU
    if table.ndim != 2 or table.shape[0] != tokenizer.get_vocab_size():
        raise ToolUnavailable(f"{weights.name} does not fit the packaged tokenizer ({table.shape})",
                              hint="reinstall code-intel, or set index_fast_pass to false")
    log.info("static embedding table %s loaded (%d x %d)", weights.name, *table.shape)
    return tokenizer, table
