"""The default code-tuned model: the shipped tuned layers load over the packaged model, and bad files are refused."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from code_intel.core.config import Config
from code_intel.core.errors import ToolUnavailable
from code_intel.index.embedder import CODE_TUNED_WEIGHTS, Embedder, apply_tuned_layers

pytestmark = pytest.mark.slow


def test_the_code_tuned_model_is_opt_in_and_differs_from_the_base(embedding_model: Embedder) -> None:
    assert Config().embedding_model == "code-static"  # the default; the transformer models are opt-in
    tuned, base = Embedder("all-MiniLM-L6-v2-code"), Embedder("all-MiniLM-L6-v2")
    assert tuned.identity != base.identity  # an index built with one is rebuilt for the other
    text = ["def read_config(path):\n    return json.loads(Path(path).read_text())"]
    a, b = np.array(tuned.embed_documents(text)[0]), np.array(base.embed_documents(text)[0])
    assert a.shape == b.shape == (384,)
    assert abs(float(np.linalg.norm(a)) - 1.0) < 1e-4
    assert 0.5 < float(a @ b) < 0.9999  # the same model underneath, with retuned layers


def test_the_tuned_model_puts_a_description_nearer_its_code_than_other_code(embedding_model: Embedder) -> None:
    tuned = Embedder("all-MiniLM-L6-v2-code")
    code = [
        "src/store.py: function load_settings (load settings)\ndef load settings(path):\n"
        "    with open(path) as f:\n        return json.load(f)",
        "src/net.py: function retry_request (retry request)\ndef retry request(url, attempts):\n"
        "    for _ in range(attempts):\n        try:\n            return fetch(url)\n        except timeout error:\n"
        "            continue",
        "src/text.py: function wrap_lines (wrap lines)\ndef wrap lines(text, width):\n"
        "    return [text[i:i + width] for i in range(0, len(text), width)]",
    ]
    queries = ["Read the configuration from a JSON file.", "Try the download again when it times out.",
               "Split text into pieces of a fixed width."]
    docs = np.array(tuned.embed_documents(code))
    scores = np.array(tuned.embed_queries(queries)) @ docs.T
    assert list(scores.argmax(axis=1)) == [0, 1, 2]


def test_shipped_weights_say_what_they_are_and_were_measured_on_held_out_code() -> None:
    card = json.loads(CODE_TUNED_WEIGHTS.with_suffix(".json").read_text())
    assert card["base"] == "all-MiniLM-L6-v2" and card["layers"]
    assert float(card["held_out_mrr10_after"]) > float(card["held_out_mrr10_before"])


def _write(path: Path, tensors: dict, metadata: dict[str, str]) -> Path:
    from safetensors.torch import save_file

    save_file(tensors, str(path), metadata=metadata)
    return path


def test_tuned_layers_that_do_not_fit_are_refused_and_the_model_is_left_alone(tmp_path: Path) -> None:
    import torch

    model = Embedder("all-MiniLM-L6-v2").model
    before = model[0].auto_model.state_dict()["encoder.layer.5.output.dense.weight"].clone()
    with pytest.raises(ToolUnavailable, match="missing") as missing:
        apply_tuned_layers(model, tmp_path / "absent.safetensors")
    assert "all-MiniLM-L6-v2" in (missing.value.hint or "")
    wrong_shape = _write(tmp_path / "shape.safetensors",
                         {"encoder.layer.5.output.dense.weight": torch.zeros(3, 3)}, {"base": "all-MiniLM-L6-v2"})
    with pytest.raises(ToolUnavailable, match="does not fit"):
        apply_tuned_layers(model, wrong_shape)
    unknown = _write(tmp_path / "key.safetensors", {"decoder.weight": torch.zeros(384, 384)}, {"base": "all-MiniLM-L6-v2"})
    with pytest.raises(ToolUnavailable, match="does not fit"):
        apply_tuned_layers(model, unknown)
    other_base = _write(tmp_path / "base.safetensors",
                        {"encoder.layer.5.output.dense.weight": torch.zeros(384, 1536)}, {"base": "bert-base"})
    with pytest.raises(ToolUnavailable, match="does not fit"):
        apply_tuned_layers(model, other_base)
    assert torch.equal(model[0].auto_model.state_dict()["encoder.layer.5.output.dense.weight"], before)


def test_the_index_identity_follows_the_tuned_weights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same model name, other weights file: another vector space, so an index built with the old one is rebuilt."""
    import code_intel.index.embedder as embedder

    shipped = Embedder("all-MiniLM-L6-v2-code").identity
    assert shipped.startswith("all-MiniLM-L6-v2-code|")
    other = tmp_path / "other.safetensors"
    data = CODE_TUNED_WEIGHTS.read_bytes()
    other.write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))  # one byte differs
    monkeypatch.setattr(embedder, "CODE_TUNED_WEIGHTS", other)
    assert Embedder("all-MiniLM-L6-v2-code").identity != shipped
    assert Embedder("all-MiniLM-L6-v2").identity == "all-MiniLM-L6-v2|default"  # the base has no weights file


@pytest.mark.parametrize("name", ["all-MiniLM-L6-v2-code", "all-MiniLM-L6-v2"])
def test_the_numpy_forward_gives_the_sentence_transformers_vectors(name: str) -> None:
    """The index embeds the packaged models in numpy; sentence-transformers (torch) defines them. Texts cover
    truncation at 128 tokens, surrounding whitespace (stripped by both), accents, one character and a batch that
    pads its shorter texts."""
    texts = ["def read_config(path):\n    return json.loads(Path(path).read_text())",
             "   Read the configuration from a JSON file.\n", "x", "Größe überprüfen " * 80,
             "src/net.py: function retry_request (retry request)\nfor _ in range(attempts): fetch(url)"]
    embedder = Embedder(name, batch_size=2)
    mine = np.array(embedder.embed_documents(texts))
    reference = embedder.model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    assert mine.shape == reference.shape == (len(texts), 384)
    assert (mine * reference).sum(axis=1).min() > 0.999
    assert embedder.dimension == 384


def test_embedding_with_the_packaged_model_imports_no_torch() -> None:
    import subprocess
    import sys

    script = ("import sys\nfrom code_intel.index.embedder import Embedder\n"
              "v = Embedder('all-MiniLM-L6-v2-code').embed_queries(['where is the retry loop?'])[0]\n"
              "assert len(v) == 384, len(v)\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'sentence_transformers')))")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "[]"
