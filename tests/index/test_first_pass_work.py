"""Work the first pass skips: each shortcut gives what the longer way gave (the tokenizer built only when a piece
needs it, the deprecation pattern run only on texts that spell its words, tokens taken once per distinct word, the
cycle collector paused while the file pass runs alone)."""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from code_intel.index import sync as sync_module
from code_intel.index import text
from code_intel.index.chunker import _DEPRECATED, _deprecated_mark
from code_intel.index.service import SemanticIndex
from code_intel.index.static import STATIC_WEIGHTS, PackagedTokenizer, WordPieces, _load, token_ids
from tests.index.conftest import write_files

# code-ish text: identifiers in every case, digits, underscores, punctuation, marks and non-ASCII letters
CODE_TEXT = st.lists(st.sampled_from(list("aAbBzZ_09 \n\t.,;:()[]{}<>@#*/\"'`$-=+!?") + [
    "é", "Ü", "中", "\x0b", "Deprecated", "eprecated", "@deprecated", "Obsolete", "[Obsolete", "HTTPServer", "// "]),
    max_size=40).map("".join)


def _split_reference(word: str) -> tuple[str, ...]:
    """`text._split` as it was written before: each `_`-separated piece's camel-case parts, lower-cased."""
    parts: list[str] = []
    for piece in word.split("_"):
        parts.extend(m.group(0).lower() for m in text._CAMEL.finditer(piece))
    return tuple(parts)


@settings(max_examples=300, deadline=None)
@given(CODE_TEXT)
def test_identifier_parts_and_words_are_those_of_the_longer_way(sample: str) -> None:
    assert text._split.__wrapped__(sample) == _split_reference(sample)  # type: ignore[attr-defined]
    assert text._WORD.findall(sample) == re.findall(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+", sample)
    assert text._WORD_SPLIT.split(sample) == re.split(r"([A-Za-z_][A-Za-z0-9_]*|[0-9]+)", sample)
    assert text._token_set(sample) == set(text.lexical_tokens(sample))
    assert _deprecated_mark(sample) == (_DEPRECATED.search(sample) is not None)


def test_identifier_parts_of_every_shape() -> None:
    for word in ["getHTTPResponse_code2", "__init__", "max_file_bytes", "XMLHttpRequest", "ABC_Def", "x2y", "_", "",
                 "parseJSON5File", "AB_Cd", "a__b"]:
        assert text._split.__wrapped__(word) == _split_reference(word), word  # type: ignore[attr-defined]


def test_body_words_calls_are_found_as_before() -> None:
    code = 'def run(self):\n    """Runs it."""\n    helper_call (x)\n    self.other_call(y)\n    abc\n    log("sent mail")\n'
    reference = re.compile(r"(?<![A-Za-z_$])([A-Za-z_$][\w$]*)\s*\(")
    assert text._CALL.findall(code) == reference.findall(code)
    assert text.body_words(code, "python", "run") == frozenset({"helper", "call", "helper_call", "other_call", "log",
                                                                "sent", "mail"})  # "other": an English stop word


@pytest.mark.parametrize("marked", ["@Deprecated\nvoid f() {}", "/** @deprecated use g */ void f();",
                                    "#[deprecated]\nfn f() {}", "// Deprecated: use G\nfunc F() {}",
                                    "[Obsolete]\nvoid F() {}", "#  Deprecated: gone\ndef f(): pass"])
def test_each_deprecation_mark_still_counts(marked: str) -> None:
    assert _deprecated_mark(marked) and _DEPRECATED.search(marked)


def test_word_pieces_read_from_the_json_are_the_tokenizers() -> None:
    from tokenizers import Tokenizer

    tokenizer, _table, words = _load(STATIC_WEIGHTS)
    assert isinstance(tokenizer, PackagedTokenizer) and words is not None
    built = Tokenizer.from_file(str(tokenizer.file))
    assert words.vocab == built.get_vocab()
    assert words.unknown == built.token_to_id("[UNK]") and words.prefix == "##"
    specials = {t.content for t in built.get_added_tokens_decoder().values()}
    assert {s for s in specials if words.special.fullmatch(s)} == specials
    spec = json.loads(tokenizer.file.read_bytes())
    assert WordPieces.of({**spec, "normalizer": {**spec["normalizer"], "lowercase": False}}) is None
    assert WordPieces.of({**spec, "model": {**spec["model"], "type": "BPE"}}) is None


def test_the_tokenizer_is_built_only_for_a_piece_that_needs_it() -> None:
    tokenizer, _table, words = _load(STATIC_WEIGHTS)  # a fresh load: nothing built yet
    ascii_texts = ["def parse_http_response(raw): return Response(raw)", "x = [1, 2] # comment", ""]
    first = token_ids(tokenizer, ascii_texts, words)
    assert not tokenizer.is_loaded
    assert token_ids(tokenizer, ascii_texts, words) == first  # the ids kept between batches are the same
    mixed = token_ids(tokenizer, ["naïve café", "def f(): pass"], words)
    assert tokenizer.is_loaded
    assert mixed == [e.ids for e in tokenizer.loaded().encode_batch(["naïve café", "def f(): pass"],
                                                                      add_special_tokens=False)]


def test_the_cycle_collector_is_paused_in_the_file_pass_and_back_after(
    project_dir: Path, make_index: Callable[..., SemanticIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(project_dir, {f"mod_{n}.py": f"def f{n}(x):\n    return x + {n}\n" for n in range(6)})
    monkeypatch.setattr(sync_module, "FILES_PER_BATCH", 2)
    seen: list[bool] = []
    index_batch = sync_module.ForestSync._index_batch

    def recording(self: sync_module.ForestSync, batch: list[object]) -> object:
        seen.append(gc.isenabled())
        return index_batch(self, batch)  # type: ignore[arg-type]

    monkeypatch.setattr(sync_module.ForestSync, "_index_batch", recording)
    assert gc.isenabled()
    make_index(project_dir, embedding_model="code-static").sync(force=True)
    assert seen == [False, False, False] and gc.isenabled()

    seen.clear()
    monkeypatch.setattr(sync_module, "PERSIST_BACKLOG_CHARS", 0)  # the writer starts with the first batch
    make_index(project_dir, embedding_model="code-static").sync(force=True)
    assert seen == [False, True, True] and gc.isenabled()  # resumed once Chroma writes beside the pass
