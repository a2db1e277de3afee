"""The shipped static table and its JSON card describe the same file: a table swapped without its card (or the
reverse) fails here, and the index identity follows the table."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from code_intel.index.embedder import CODE_TUNED_WEIGHTS, weights_fingerprint
from code_intel.index.static import STATIC_MODEL_NAME, STATIC_WEIGHTS, StaticEmbedder

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_table_and_its_card_agree() -> None:
    from safetensors import safe_open

    card = json.loads(STATIC_WEIGHTS.with_suffix(".json").read_text())
    with safe_open(str(STATIC_WEIGHTS), framework="numpy") as f:
        meta = f.metadata() or {}
        table = f.get_tensor("embeddings")
    assert card["model"] == STATIC_MODEL_NAME
    assert card["table_sha256_12"] == weights_fingerprint(STATIC_WEIGHTS)
    assert card["dims"] == table.shape[1] == int(meta["dims"])
    assert card["vocabulary"] == int((np.abs(table).sum(axis=1) > 0).sum())
    assert card["dtype"] == str(table.dtype)
    # made from the code-tuned layers that ship beside it, by a script that is in the repository
    assert card["tuned_layers_sha256_12"] == meta["tuned_layers_sha256_12"] == weights_fingerprint(CODE_TUNED_WEIGHTS)
    assert (REPO_ROOT / card["made_by"].split()[0]).is_file()


def test_another_table_is_another_vector_space(tmp_path: Path) -> None:
    copy = tmp_path / "code-static.safetensors"
    shutil.copyfile(STATIC_WEIGHTS, copy)
    assert StaticEmbedder(copy).identity == StaticEmbedder().identity
    data = copy.read_bytes()
    changed = tmp_path / "changed.safetensors"  # (fingerprints are cached by path, for the life of a process)
    changed.write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))  # one value of the table changed
    assert StaticEmbedder(changed).identity != StaticEmbedder().identity
    assert StaticEmbedder(tmp_path / "absent.safetensors").identity.endswith("|missing")


def test_the_identity_reads_the_tables_fingerprint_from_its_card(tmp_path: Path) -> None:
    """The card's recorded fingerprint names the space (no hashing of the table); without a card, or with a card that
    records none, the table is hashed."""
    from code_intel.index.static import table_fingerprint

    table = tmp_path / "carded.safetensors"
    shutil.copyfile(STATIC_WEIGHTS, table)
    table.with_suffix(".json").write_text(json.dumps({"table_sha256_12": "0123456789ab"}))
    assert StaticEmbedder(table).identity == f"{STATIC_MODEL_NAME}|0123456789ab"
    bare = tmp_path / "bare.safetensors"
    shutil.copyfile(STATIC_WEIGHTS, bare)
    bare.with_suffix(".json").write_text(json.dumps({"model": STATIC_MODEL_NAME}))
    assert table_fingerprint(bare) == weights_fingerprint(STATIC_WEIGHTS)
    assert table_fingerprint(STATIC_WEIGHTS) == weights_fingerprint(STATIC_WEIGHTS)  # the shipped card is right
    assert table_fingerprint(tmp_path / "absent.safetensors") == "missing"
