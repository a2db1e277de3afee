"""benchmarks/tokenlearn_static.py: no benchmark's repository is trained on, and the teacher pass reuses the
vectors an earlier corpus left in the cache (only new texts need the model)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import tokenlearn_static as tl  # noqa: E402


def test_the_training_repositories_are_none_of_the_benchmarks() -> None:
    every = {**tl.TRAINING_REPOSITORIES, **tl.MORE_REPOSITORIES}
    tl.refuse_benchmark_sources(list(every))
    assert len(set(every.values())) == len(every) == len(tl.TRAINING_REPOSITORIES) + len(tl.MORE_REPOSITORIES)


@pytest.mark.parametrize("folder", [
    "rack+rack",  # semble's reported set
    "jhy+jsoup",  # our semble dev additions
    "sindresorhus+got",  # developer questions, dev
    "honojs+hono",  # developer questions, reported
    "lodash+lodash",  # sverklo's tasks
    "someone+sinatra",  # a fork under another owner: refused by name
])
def test_a_benchmark_repository_is_refused(folder: str) -> None:
    with pytest.raises(SystemExit, match="refusing training source"):
        tl.refuse_benchmark_sources([*tl.TRAINING_REPOSITORIES, folder])


def test_the_teacher_pass_reuses_cached_vectors_and_stops_at_its_budget(tmp_path: Path) -> None:
    old = {"code": ["def a(): pass", "fn b() {}"], "english": ["Returns the thing."]}
    (tmp_path / "corpus-old.json").write_text(json.dumps(old))
    vectors = np.arange(3 * 384, dtype=np.float32).reshape(3, 384)
    np.save(tmp_path / f"teacher-{tl.corpus_key(old['code'] + old['english'], 128)}.npy", vectors)

    # the same texts in another order, and one the cache has never seen: no time for the model
    texts = ["Returns the thing.", "a new text", "def a(): pass"]
    out, reached = tl.teacher(texts, 128, tmp_path, minutes=0)
    assert reached.tolist() == [True, False, True]
    assert np.array_equal(out[0], vectors[2]) and np.array_equal(out[2], vectors[0])
    assert not any(tmp_path.glob(f"teacher-{tl.corpus_key(texts, 128)}.npy"))  # an incomplete pass is not final

    # every text cached: the corpus gets its own complete file, and another max_tokens is another cache
    out, reached = tl.teacher(old["english"] + old["code"], 128, tmp_path, minutes=0)
    assert reached.all() and np.array_equal(out[1:], vectors[:2])
    assert (tmp_path / f"teacher-{tl.corpus_key(old['english'] + old['code'], 128)}.npy").is_file()
    assert not tl.teacher(old["code"], 64, tmp_path, minutes=0)[1].any()


def test_each_text_has_the_language_of_its_chunk_header() -> None:
    corpus = {"code": ["src/a/b.rb: method B.run (run)\n  def run; end", "x.tsx: module\nconst a = 1",
                       "lib/thing.py: function f (f)\nreturn 1", "no header here"],
              "english": ["Returns the thing."]}
    assert tl.text_languages(corpus) == ["ruby", "typescript", "python", "?", "en"]


def test_frequent_words_are_split_words_shared_by_several_sources() -> None:
    vocab = {"def": 1, "return": 2}
    texts = ["def kwargs return", "kwargs", "okhttp okhttp kwargs", "okhttp return"]
    sources = ["a", "b", "a", "a"]
    # kwargs: 3 texts from 2 sources; okhttp: 2 texts, one source; words the vocabulary holds never count
    assert tl.frequent_words(texts, sources, vocab, min_texts=2, min_sources=2, limit=10) == ["kwargs"]
    assert tl.frequent_words(texts, sources, vocab, min_texts=2, min_sources=1, limit=10) == ["kwargs", "okhttp"]
    assert tl.frequent_words(texts, sources, vocab, min_texts=3, min_sources=1, limit=10) == ["kwargs"]


def test_a_loss_weight_of_zero_leaves_a_text_out_of_the_fit() -> None:
    pytest.importorskip("torch")
    targets = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=np.float32)
    ids = [[0], [1], [2]]
    table = np.full((3, 2), 0.5, dtype=np.float32)
    held = np.array([2])
    fitted, _ = tl.fit(table.copy(), ids, targets, epochs=5, lr=0.05, seed=0, held=held,
                       weights=np.array([1.0, 0.0, 1.0], dtype=np.float32))
    assert np.array_equal(fitted[1], table[1]) and np.array_equal(fitted[2], table[2])  # weight 0, held out
    assert fitted[0][0] > fitted[0][1]  # turned toward its target


def test_an_added_word_is_one_token_after_the_vocabulary() -> None:
    from tokenizers import Tokenizer

    from code_intel.index.embedder import resolve_model_path

    base, _ = resolve_model_path("all-MiniLM-L6-v2")
    tokenizer = Tokenizer.from_file(str(Path(base) / "tokenizer.json"))
    tokenizer.no_padding()  # as the script uses it
    size = tokenizer.get_vocab_size()
    assert len(tokenizer.encode("kwargs", add_special_tokens=False).ids) > 1
    extended = tl.with_words(tokenizer, ["kwargs", "nil"])
    assert extended.encode("Kwargs nil", add_special_tokens=False).ids == [size, size + 1]
    assert extended.encode("kwargsx", add_special_tokens=False).ids[0] == size  # the longest match, then pieces
    assert extended.encode("the return", add_special_tokens=False).ids == tokenizer.encode(
        "the return", add_special_tokens=False).ids


def test_the_contrastive_term_pushes_a_text_away_from_the_others_targets() -> None:
    pytest.importorskip("torch")
    targets = np.array([[1.0, 0.0], [0.9, 0.1]], dtype=np.float32)  # two close targets
    ids = [[0], [1], [2]]
    table = np.array([[1.0, 0.05], [1.0, 0.05], [1.0, 0.0]], dtype=np.float32)
    held = np.array([2])
    plain, _ = tl.fit(table.copy(), ids, np.vstack([targets, [[1.0, 0.0]]]).astype(np.float32), epochs=20, lr=0.01, seed=0, held=held)
    apart, _ = tl.fit(table.copy(), ids, np.vstack([targets, [[1.0, 0.0]]]).astype(np.float32), epochs=20, lr=0.01, seed=0, held=held,
                      contrast=0.05)

    def cosine(a: np.ndarray, b: np.ndarray) -> float:
        return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))

    # with the term, the two texts' vectors end further apart than the cosine alone leaves them
    assert cosine(apart[0], apart[1]) < cosine(plain[0], plain[1])
