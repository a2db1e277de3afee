"""Identifier splitting, BM25 ranking and fusion."""

from __future__ import annotations

from tools.index.lexical import LexicalIndex
from tools.index.retrieval import fuse
from tools.index.text import lexical_tokens, split_identifier


def test_split_identifier_handles_camel_snake_and_acronyms() -> None:
    assert split_identifier("parseHTTPResponse") == ["parse", "http", "response"]
    assert split_identifier("max_file_bytes") == ["max", "file", "bytes"]
    assert split_identifier("UserStore2") == ["user", "store", "2"]


def test_lexical_tokens_keep_whole_identifiers_and_drop_keywords() -> None:
    tokens = lexical_tokens("def get_user(self): return self.userName")
    assert "get" in tokens and "user" in tokens and "get_user" in tokens and "username" in tokens
    assert "self" not in tokens and "def" not in tokens and "return" not in tokens


def test_bm25_ranks_matching_chunk_first_and_removal_forgets_it() -> None:
    index = LexicalIndex()
    index.add("a", "def send_email(recipient, subject): smtp.send(recipient, subject)")
    index.add("b", "def parse_invoice(pdf): return extract_totals(pdf)")
    index.add("c", "def resize_image(img, width): return img.scale(width)")
    assert index.search("send an email to a recipient", 3)[0][0] == "a"
    assert index.search("invoice totals", 3)[0][0] == "b"
    index.remove(["a"])
    assert all(cid != "a" for cid, _ in index.search("email recipient", 3))
    assert len(index) == 2
    assert index.search("nothing matches zzz", 3) == []


def test_fusion_rewards_agreement_between_rankings() -> None:
    dense = [("x", 0.9), ("y", 0.8), ("z", 0.7)]
    lexical = [("y", 12.0), ("z", 3.0)]
    fused = fuse(dense, lexical, dense_weight=1.0, lexical_weight=1.0)
    assert [i for i, _ in fused][:1] == ["y"]
    assert all(0 < s <= 1 for _, s in fused)
    only_dense = fuse(dense, lexical, dense_weight=1.0, lexical_weight=0.0)
    assert [i for i, _ in only_dense] == ["x", "y", "z"]
