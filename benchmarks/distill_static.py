"""Distil the static embedding table of the fast first index pass from the code-tuned model.

Every WordPiece token of all-MiniLM-L6-v2's vocabulary goes through the code-tuned model on its own
(`[CLS] token [SEP]`) and the mean of the output is that token's vector. The vectors are centred and reduced
by PCA, then each is scaled by a smooth inverse frequency weight `a / (a + p(token))`, so that tokens every
chunk holds (`self`, `return`, `(`) count little. p is measured on code: the chunk texts of the third-party
packages in this virtualenv (the same source as benchmarks/tune_model.py, never the standard library the
benchmark queries, never a question-benchmark repository). Then the table itself is tuned for
--train-epochs epochs with a contrastive loss on benchmarks/tune_model.py's docstring/code pairs (same
packages, same held-out packages, one package per batch). The table is written as float16 safetensors to
tools/index/weights/code-static.safetensors with a JSON card; tools/index/static.py loads it.

    .venv/bin/python benchmarks/distill_static.py [--dims 256] [--sif 1e-3] [--train-epochs 3] [--evaluate]

The table shipped before benchmarks/tokenlearn_static.py (which starts from these token vectors and fits them to
the model's embeddings of whole texts) was the defaults with --evaluate: about 16 minutes on 2 busy CPU cores
(30,000 short forward passes, token counts over 4,000 files, the training pairs, three epochs). With --evaluate it
also prints MRR@10 on the stdlib benchmark's dev split (benchmarks/semantic.py DEV_MODULES) for the static vectors
alone and fused with BM25, so variants can be compared quickly.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from collections.abc import Collection
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import semantic  # noqa: E402
from tune_model import HELD_OUT, build_pairs, in_batch_loss, make_batches, mrr10, package_files  # noqa: E402

from code_intel.index.chunker import Chunker
from code_intel.index.embedder import CODE_TUNED_WEIGHTS, Embedder, weights_fingerprint
from code_intel.index.static import STATIC_WEIGHTS
from code_intel.index.text import embedding_text
from code_intel.languages.table import language_for


def token_vectors(model: Any, pooling: str, batch: int = 1024) -> np.ndarray:
    """One row per vocabulary id: the model's output for that token alone (zero for special tokens)."""
    import torch

    bert = model[0].auto_model.eval()
    tokenizer = model.tokenizer
    vocab_size = tokenizer.vocab_size
    special = set(tokenizer.all_special_ids)
    unused = {i for t, i in tokenizer.get_vocab().items() if t.startswith("[unused")}
    ids = [i for i in range(vocab_size) if i not in special and i not in unused]
    out = np.zeros((vocab_size, bert.config.hidden_size), dtype=np.float32)
    cls, sep = tokenizer.cls_token_id, tokenizer.sep_token_id
    with torch.inference_mode():
        for start in range(0, len(ids), batch):
            chunk = ids[start : start + batch]
            input_ids = torch.tensor([[cls, i, sep] for i in chunk])
            hidden = bert(input_ids=input_ids, attention_mask=torch.ones_like(input_ids),
                          token_type_ids=torch.zeros_like(input_ids)).last_hidden_state
            pooled = hidden.mean(dim=1) if pooling == "mean" else hidden[:, 1]
            out[chunk] = pooled.numpy()
            if start // batch % 5 == 0:
                print(f"  tokens {start + len(chunk)}/{len(ids)}", flush=True)
    return out


def pca(vectors: np.ndarray, dims: int, keep: np.ndarray) -> np.ndarray:
    """Rows projected on the top `dims` principal axes of the rows in `keep` (the others stay zero)."""
    rows = vectors[keep]
    mean = rows.mean(axis=0)
    centred = rows - mean
    eigvals, eigvecs = np.linalg.eigh(centred.T @ centred / max(len(rows) - 1, 1))
    axes = eigvecs[:, ::-1][:, :dims]
    out = np.zeros((len(vectors), dims), dtype=np.float32)
    out[keep] = centred @ axes
    return out


def code_token_counts(tokenizer: Any, max_files: int, seed: int) -> tuple[Counter[int], int]:
    """Token counts over the chunk texts of up to `max_files` third-party package files (embedded text)."""
    site = Path(sysconfig.get_paths()["purelib"])
    files = [p for group in package_files(site).values() for p in group]
    random.Random(seed).shuffle(files)
    chunker = Chunker(512)
    counts: Counter[int] = Counter()
    used = 0
    for path in files[:max_files]:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        rel = path.relative_to(site).as_posix()
        texts = [embedding_text(c) for c in chunker.chunk(rel, text, language_for(rel))]
        for encoding in tokenizer.encode_batch(texts, add_special_tokens=False) if texts else []:
            counts.update(encoding.ids)
        used += 1
    return counts, used


def sif_weights(counts: Counter[int], vocab_size: int, a: float) -> np.ndarray:
    total = sum(counts.values()) or 1
    p = np.zeros(vocab_size, dtype=np.float64)
    for token, n in counts.items():
        p[token] = n / total
    return (a / (a + p)).astype(np.float32)


def train_table(table: np.ndarray, tokenizer: Any, epochs: int, lr: float, seed: int,
                skip: Collection[str] = ()) -> dict[str, Any]:
    """Contrastive tuning of the table itself on tune_model.py's (docstring sentence, chunk) pairs: the same
    third-party packages but those in `skip`, the same held-out ones, one package per batch. Returns the tuned
    table and figures."""
    import torch

    torch.manual_seed(seed)
    site = Path(sysconfig.get_paths()["purelib"])
    with tempfile.TemporaryDirectory() as scratch:  # every benchmark sentence (both splits), so none is trained on
        banned = {t.query.lower() for modules, sub in ((semantic.MODULES, "t"), (semantic.DEV_MODULES, "d"))
                  for t in semantic.build_corpus(Path(scratch) / sub, 10**9, modules)}
    data = build_pairs(site, 600, banned, seed, skip)
    held = np.isin(np.array(data["packages"]), HELD_OUT)
    train, test = np.where(~held)[0], np.where(held)[0]

    def ids(texts: list[str]) -> list[list[int]]:
        return [e.ids[:1024] or [0] for e in tokenizer.encode_batch(texts, add_special_tokens=False)]

    query_ids, document_ids = ids(data["queries"]), ids(data["documents"])
    bag = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(table, dtype=torch.float32), freeze=False, mode="sum")

    def encode(rows: list[list[int]]) -> Any:
        flat = torch.tensor([t for row in rows for t in row])
        offsets = torch.tensor(np.concatenate(([0], np.cumsum([len(r) for r in rows])[:-1])))
        return torch.nn.functional.normalize(bag(flat, offsets), dim=1)

    def held_out() -> float:
        with torch.no_grad():
            return mrr10(encode([query_ids[i] for i in test]).numpy(), encode([document_ids[i] for i in test]).numpy())

    before = held_out()
    optimizer = torch.optim.Adam(bag.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        for batch in make_batches(train, data, 64, "package", rng):
            q, d = encode([query_ids[i] for i in batch]), encode([document_ids[i] for i in batch])
            logits = 20.0 * q @ d.T
            loss = in_batch_loss(logits)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"  epoch {epoch + 1}: held-out MRR@10 {held_out():.4f} (before {before:.4f})", flush=True)
    return {"table": bag.weight.detach().numpy(), "pairs": int(len(train)), "held_out_pairs": int(len(test)),
            "held_out_mrr10_before": round(before, 4), "held_out_mrr10_after": round(held_out(), 4)}


def evaluate(table: np.ndarray, tokenizer: Any, lines: int, n_queries: int,
             modules: list[str] = semantic.MODULES) -> dict[str, float]:
    """MRR@10 on the stdlib benchmark (these modules): static vectors alone over every chunk, BM25 alone, and the
    two fused."""
    from code_intel.index import retrieval
    from code_intel.index.bm25 import LexicalIndex, top
    from code_intel.index.text import lexical_text

    folder = Path(tempfile.mkdtemp(prefix="ci-distill-eval-"))
    targets = semantic.build_corpus(folder, lines, modules)
    queries = random.Random(7).sample(targets, min(n_queries, len(targets)))
    chunker = Chunker(512)
    chunks = [c for p in sorted(folder.rglob("*.py"))
              for c in chunker.chunk(p.relative_to(folder).as_posix(), p.read_text(), "python")]

    def embed(texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
        for k, e in enumerate(tokenizer.encode_batch(texts, add_special_tokens=False)):
            if e.ids:
                out[k] = table[e.ids[:1024]].astype(np.float32).sum(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)

    docs = embed([embedding_text(c) for c in chunks])
    lexical = LexicalIndex()
    for k, c in enumerate(chunks):
        lexical.add(str(k), lexical_text(c.file, c.symbol, c.content))
    spans = [(c.file, c.start_line, c.end_line) for c in chunks]
    qvecs = embed([q.query for q in queries])
    ranks: dict[str, list[int | None]] = {"static alone": [], "bm25 alone": []}
    weights = [0.3, 0.5, 0.6, 0.7, 0.8]
    ranks.update({f"fused dense_weight={w}": [] for w in weights})
    for q, vec in zip(queries, qvecs, strict=True):
        sims = docs @ vec
        order = np.argsort(-sims)
        ranks["static alone"].append(semantic.hit_rank([spans[i] for i in order[:10]], q))
        scores = lexical.scores(q.query)
        ranks["bm25 alone"].append(semantic.hit_rank([spans[int(i)] for i, _ in top(scores, 10)], q))
        candidates = {str(i): float(sims[i]) for i in order[:50]}
        for i, _ in top(scores, 50):
            candidates.setdefault(i, float(sims[int(i)]))
        for w in weights:
            fused = retrieval.fuse(candidates, scores, dense_weight=w)[:10]
            ranks[f"fused dense_weight={w}"].append(semantic.hit_rank([spans[int(i)] for i, _ in fused], q))
    return {name: round(semantic.mrr(r), 4) for name, r in ranks.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dims", type=int, default=256)
    parser.add_argument("--sif", type=float, default=1e-3, help="a in a / (a + p(token)); 0 turns weighting off")
    parser.add_argument("--pooling", choices=["mean", "token"], default="mean")
    parser.add_argument("--count-files", type=int, default=4000, help="package files whose tokens are counted")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--train-epochs", type=int, default=3, help="then tune the table on docstring/code pairs")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--out", type=Path, default=STATIC_WEIGHTS)
    parser.add_argument("--evaluate", action="store_true", help="print stdlib-benchmark MRR@10 of the result")
    parser.add_argument("--eval-lines", type=int, default=30000)
    parser.add_argument("--eval-queries", type=int, default=400)
    args = parser.parse_args()

    from safetensors.numpy import save_file
    from tokenizers import Tokenizer

    started = time.perf_counter()
    model = Embedder("all-MiniLM-L6-v2-code", 128).model
    fast_tokenizer = Tokenizer.from_str(model.tokenizer.backend_tokenizer.to_str())
    fast_tokenizer.no_truncation()
    fast_tokenizer.no_padding()
    print("forward pass over the vocabulary", flush=True)
    raw = token_vectors(model, args.pooling)
    keep = np.linalg.norm(raw, axis=1) > 0
    table = pca(raw, args.dims, keep) if args.dims < raw.shape[1] else raw
    counts, files = code_token_counts(fast_tokenizer, args.count_files, args.seed)
    print(f"token counts from {files} package files ({sum(counts.values())} tokens)", flush=True)
    if args.sif > 0:
        table = table * sif_weights(counts, len(table), args.sif)[:, None]
    table[~keep] = 0
    trained: dict[str, Any] = {}
    if args.train_epochs:
        trained = train_table(table, fast_tokenizer, args.train_epochs, args.lr, args.seed)
        table = trained.pop("table")
        table[~keep] = 0
    seconds = time.perf_counter() - started

    args.out.parent.mkdir(parents=True, exist_ok=True)
    metadata = {"base": "all-MiniLM-L6-v2-code", "tuned_layers_sha256_12": weights_fingerprint(CODE_TUNED_WEIGHTS),
                "dims": str(table.shape[1]), "pooling": args.pooling, "sif": str(args.sif)}
    save_file({"embeddings": table.astype(np.float16)}, str(args.out), metadata=metadata)
    card: dict[str, Any] = {
        "model": "code-static", "made_by": "benchmarks/distill_static.py", "distilled_from": metadata["base"],
        "tuned_layers_sha256_12": metadata["tuned_layers_sha256_12"], "vocabulary": int(keep.sum()),
        "dims": int(table.shape[1]), "pooling": args.pooling, "sif_a": args.sif,
        "frequencies_from": f"{files} files of the third-party packages in the virtualenv (seed {args.seed})",
        "dtype": "float16", "table_sha256_12": weights_fingerprint(args.out), "seconds_on_2_cores": round(seconds),
    }
    if trained:
        card["tuned_on_pairs"] = {"epochs": args.train_epochs, "lr": args.lr, **trained}
    if args.evaluate:
        card["stdlib_dev_mrr10"] = evaluate(table.astype(np.float16), fast_tokenizer, args.eval_lines,
                                            args.eval_queries, semantic.DEV_MODULES)
    args.out.with_suffix(".json").write_text(json.dumps(card, indent=2) + "\n")
    print(json.dumps(card, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
