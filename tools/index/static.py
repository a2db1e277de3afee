"""A static (bag-of-token-vectors) embedding model for the first, fast pass of an index build.

One vector per WordPiece token of all-MiniLM-L6-v2's vocabulary, fitted by `benchmarks/tokenlearn_static.py` so
that the mean of a text's token vectors points where the code-tuned model puts the text (the card beside the table
says on what). A text's vector is the mean of its tokens' vectors, normalised: no
transformer runs, so a chunk costs a tokenizer call and a table look-up, orders of magnitude less than the
full model. It ranks worse than the full model, so the index answers with it only until
the full model has embedded every chunk, and its vectors live in a space (collection) of their own.

Needs only `tokenizers` and numpy; the table ships in `tools/index/weights/` and the tokenizer comes from
the packaged all-MiniLM-L6-v2, so it loads with no network and no torch.
"""

from __future__ import annotations

import functools
import itertools
import json
import logging
import re
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
# Python's str.split() splits at these control characters; BERT's normaliser deletes them instead.
_SPLIT_NOT_SPACE = re.compile("[\x0b\x0c\x1c-\x1f\x85]")
SUM_TOKENS = 1024  # tokens of the texts summed together: a small counts matrix and rows that stay in the CPU's cache
PIECES_PER_CALL = 1024  # distinct pieces per sequence given to the tokenizer (its threads take a sequence each)
# BERT's words within a piece of printable ASCII: a run of anything but punctuation, or one punctuation mark
_ASCII_WORDS = re.compile(r"[^!-/:-@\[-`{-~]+|[!-/:-@\[-`{-~]")


class StaticEmbedder:
    """Mean of token vectors; loads on first use, once per process (thread-safe)."""

    _cache: dict[Path, tuple[Any, Any, WordPieces | None]] = {}
    _lock = threading.Lock()

    def __init__(self, weights: Path = STATIC_WEIGHTS) -> None:
        self.weights = weights
        self.model_name = STATIC_MODEL_NAME

    @property
    def identity(self) -> str:
        """Names the vector space: new weights make a new space (and a rebuild of the fast vectors)."""
        return f"{STATIC_MODEL_NAME}|{table_fingerprint(self.weights)}"

    def _parts(self) -> tuple[Any, Any, WordPieces | None]:
        with self._lock:
            if self.weights not in self._cache:
                self._cache[self.weights] = _load(self.weights)
            return self._cache[self.weights]

    @property
    def dimension(self) -> int:
        return int(self._parts()[1].shape[1])

    def embed(self, texts: Sequence[str]) -> Any:
        """A float32 array (len(texts) x dimension) of unit vectors (zero for a text with no known token).

        Each distinct token of a text is added once, times its count (`token_sums`)."""
        import numpy as np

        tokenizer, table, words = self._parts()
        out = token_sums(token_ids(tokenizer, texts, words), table)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out

    def sentence_transformer(self) -> Any:
        """The same model as a sentence-transformers model: its StaticEmbedding module (a mean over the same
        token-vector table, same tokenizer, no special tokens) and a Normalize module. `embed` computes exactly
        this with numpy, so indexing needs no torch (its import takes seconds and hundreds of megabytes);
        this is for code that wants the model inside sentence-transformers (tests check both agree)."""
        from sentence_transformers import SentenceTransformer
        from sentence_transformers.sentence_transformer.modules import Normalize, StaticEmbedding
        from tokenizers import Tokenizer

        tokenizer, table, _words = self._parts()
        truncating = Tokenizer.from_str(tokenizer.to_str())
        truncating.enable_truncation(MAX_TOKENS)  # what `embed` keeps of a text
        return SentenceTransformer(modules=[StaticEmbedding(truncating, embedding_weights=table.copy()), Normalize()],
                                   device="cpu")

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [v.tolist() for v in self.embed(texts)]

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return [v.tolist() for v in self.embed(texts)]


@functools.lru_cache(maxsize=8)
def table_fingerprint(weights: Path) -> str:
    """The table's weights_fingerprint as the card beside it records it (`table_sha256_12` in code-static.json: the
    fitting script writes both, and tests/index/test_static_card.py checks that they agree), else computed. Reading
    the card spares every process that opens an index the hashing of the 15 MB table."""
    card = weights.with_suffix(".json")
    try:
        recorded = json.loads(card.read_text(encoding="utf-8")).get("table_sha256_12") if weights.is_file() else None
    except (OSError, ValueError, AttributeError):
        recorded = None
    return recorded if isinstance(recorded, str) and recorded else weights_fingerprint(weights)


def _load(weights: Path) -> tuple[Any, Any, WordPieces | None]:
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    if not weights.is_file():
        raise ToolUnavailable(f"the static embedding table is missing ({weights})",
                              hint="reinstall code-intel (./setup.sh), or set index_fast_pass to false")
    base, _packaged = resolve_model_path("all-MiniLM-L6-v2")
    tokenizer = Tokenizer.from_file(str(Path(base) / "tokenizer.json"))
    tokenizer.no_truncation()  # token_ids keeps a text's first MAX_TOKENS tokens
    tokenizer.no_padding()
    table = load_file(str(weights))["embeddings"].astype("float32")  # 31 MB; float16 sums are slow on CPU
    if table.ndim != 2 or table.shape[0] != tokenizer.get_vocab_size():
        raise ToolUnavailable(f"{weights.name} does not fit the packaged tokenizer ({table.shape})",
                              hint="reinstall code-intel, or set index_fast_pass to false")
    log.info("static embedding table %s loaded (%d x %d)", weights.name, *table.shape)
    return tokenizer, table, WordPieces.of(tokenizer)


class WordPieces:
    """BERT's WordPiece for a piece of printable ASCII, in Python: lower-cased, split at punctuation, each word the
    longest vocabulary entries from its start (`##` before the second and later), [UNK] for a word with no split
    or longer than the model allows. For such pieces this is all the tokenizer does, and a dictionary look-up per
    word costs less than the tokenizer's own work per word. A piece holding a special token's text (`[CLS]`, in any
    case) is left to the tokenizer, which reads it as that token."""

    def __init__(self, vocab: dict[str, int], unknown: str, prefix: str, max_chars: int, special: list[str]) -> None:
        self.vocab, self.unknown, self.prefix, self.max_chars = vocab, vocab[unknown], prefix, max_chars
        self.special = re.compile("|".join(map(re.escape, special)) or "(?!)", re.IGNORECASE)

    @classmethod
    def of(cls, tokenizer: Any) -> WordPieces | None:
        """For a BERT tokenizer (lower-casing normaliser, BERT pre-tokenizer, WordPiece model), else None."""
        from tokenizers import models, normalizers, pre_tokenizers

        model, normalizer = tokenizer.model, tokenizer.normalizer
        if not (isinstance(model, models.WordPiece) and isinstance(tokenizer.pre_tokenizer, pre_tokenizers.BertPreTokenizer)
                and isinstance(normalizer, normalizers.BertNormalizer) and normalizer.lowercase):
            return None
        special = [t.content for t in tokenizer.get_added_tokens_decoder().values()]
        return cls(tokenizer.get_vocab(), model.unk_token, model.continuing_subword_prefix,
                   model.max_input_chars_per_word, special)

    def ids(self, pieces: Sequence[str]) -> tuple[dict[str, list[int]], list[str]]:
        """The ids of each printable ASCII piece, and the pieces left to the tokenizer."""
        of_word: dict[str, list[int]] = {}
        done: dict[str, list[int]] = {}
        rest: list[str] = []
        for piece in pieces:
            if not (piece.isascii() and piece.isprintable()) or self.special.search(piece):
                rest.append(piece)
                continue
            ids: list[int] = []
            for word in _ASCII_WORDS.findall(piece.lower()):
                got = of_word.get(word)
                if got is None:
                    got = of_word[word] = self._word(word)
                ids += got
            done[piece] = ids
        return done, rest

    def _word(self, word: str) -> list[int]:
        if len(word) > self.max_chars:
            return [self.unknown]
        ids: list[int] = []
        start = 0
        while start < len(word):
            for end in range(len(word), start, -1):
                hit = self.vocab.get(word[start:end] if start == 0 else self.prefix + word[start:end])
                if hit is not None:
                    ids.append(hit)
                    start = end
                    break
            else:
                return [self.unknown]
        return ids


def token_sums(ids: Sequence[Sequence[int]], table: Any) -> Any:
    """Each text's sum of the table rows of its token ids (a zero row for no tokens), a group of texts of at most
    SUM_TOKENS tokens at a time: the group's token counts per text (a small dense matrix over the group's distinct
    tokens) times those tokens' rows, one matrix product. Each row is gathered once a group, and nothing is imported
    beyond numpy (scipy's import costs a first index more than its sparse product saves)."""
    import numpy as np

    out = np.zeros((len(ids), table.shape[1]), dtype=np.float32)
    start = 0
    while start < len(ids):
        end, size = start, 0
        while end < len(ids) and (end == start or size + len(ids[end]) <= SUM_TOKENS):
            size += len(ids[end])
            end += 1
        if size:
            lengths = np.fromiter(map(len, ids[start:end]), dtype=np.int64, count=end - start)
            flat = np.fromiter(itertools.chain.from_iterable(ids[start:end]), dtype=np.int64, count=size)
            tokens, column = np.unique(flat, return_inverse=True)
            cells = np.repeat(np.arange(end - start), lengths) * len(tokens) + column
            counts = np.bincount(cells, minlength=(end - start) * len(tokens)).reshape(end - start, len(tokens))
            out[start:end] = counts.astype(np.float32) @ table[tokens]
        start = end
    return out


def token_ids(tokenizer: Any, texts: Sequence[str], words: WordPieces | None = None) -> list[list[int]]:
    """Each text's first MAX_TOKENS token ids, equal to what the tokenizer itself gives each text (no special
    tokens), for a fraction of its cost.

    BERT's normaliser and pre-tokenizer never join characters across whitespace, so a text's tokens are those of
    its whitespace-separated pieces in order. Code repeats its pieces, so each distinct piece is tokenized once,
    given as the words of a few long pre-split sequences (one sequence per piece would cost more than its tokens),
    and each token goes back to its piece by its word index. With `words` (WordPieces) the printable ASCII pieces
    skip the tokenizer altogether."""
    import numpy as np

    splits = [(_SPLIT_NOT_SPACE.sub("", t) if _SPLIT_NOT_SPACE.search(t) else t).split() for t in texts]
    pieces = list(dict.fromkeys(itertools.chain.from_iterable(splits)))
    of_piece: dict[str, list[int]] = {}
    if words is not None:  # printable ASCII pieces (nearly all of code) need no call of the tokenizer
        of_piece, pieces = words.ids(pieces)
    groups = [pieces[i : i + PIECES_PER_CALL] for i in range(0, len(pieces), PIECES_PER_CALL)]
    for group, encoding in zip(groups, tokenizer.encode_batch(groups, is_pretokenized=True, add_special_tokens=False),
                               strict=True):
        group_ids = encoding.ids
        of_token = np.fromiter(encoding.word_ids, dtype=np.int64, count=len(group_ids))  # each token's piece
        bounds = np.searchsorted(of_token, np.arange(len(group) + 1)).tolist()  # each piece's first token
        for k, piece in enumerate(group):
            of_piece[piece] = group_ids[bounds[k] : bounds[k + 1]]
    return [list(itertools.islice(itertools.chain.from_iterable(map(of_piece.__getitem__, split)), MAX_TOKENS))
            for split in splits]
