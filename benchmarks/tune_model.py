"""Tune the transformer layers of all-MiniLM-L6-v2 to match descriptions to code; writes the default model's weights.

Training pairs come from the third-party packages installed in this virtualenv (never the standard library,
which benchmarks/semantic.py queries): for each function with a docstring, the docstring's first sentence
is the query and the function's chunk, docstring removed and made into text exactly as the index does, is
the answer. Packages that copy standard-library code are left out, and so is any pair whose sentence is
also a benchmark query. A few packages are held out to measure the tuning on code it never saw.

The layers below --first-layer stay frozen, so their outputs are computed once; the layers from it up
train with in-batch negatives (a symmetric contrastive loss). With --group package every batch is drawn
from one package, a file's functions side by side, so the negatives are the same library's other
functions rather than random ones. The result is a safetensors file of the tuned layers, which the
embedder lays over the packaged model (tools/index/embedder.py), plus a JSON card.

    .venv/bin/python benchmarks/tune_model.py [--per-package 600] [--first-layer 0] [--group package] [--epochs 1]

With the defaults (all six layers, 15,810 training pairs) it takes about an hour on 2 CPU cores.
Figures go to docs/benchmarks.md.

JS/TS and Go pairs (benchmarks/tune_sources.py), from doc comments: --npm names a scratch folder outside the
repository whose package.json lists the npm packages (installed with `npm install --ignore-scripts`), --go a
repository's git directory at a commit; benchmarks/tune_sources.json pins both (npm versions, Go commits;
--sources reads its Go repositories from the local mirror and checks the npm versions). The question
benchmark's repositories and their ecosystems are refused. --queries mixed turns part of the sentences into
keyword-like and question-like forms; --init starts from tuned layers. The two candidates measured for #15
(neither shipped, figures in docs/benchmarks.md; they also had gorilla/mux, which tune_sources.json has left
out since gorilla/websocket joined the dev set) were, with the npm folder prepared from tune_sources.json:

    .venv/bin/python benchmarks/tune_model.py --per-package 60 --npm DIR --sources benchmarks/tune_sources.json \
        --code-per-package 250 --queries mixed [--variant-documents documented] \
        --init tools/index/weights/all-minilm-l6-v2-code.safetensors --lr 3e-5 --out /tmp/candidate.safetensors
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import sysconfig
import tempfile
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import semantic  # noqa: E402
import tune_sources  # noqa: E402

from code_intel.index.chunker import Chunker
from code_intel.index.embedder import CODE_TUNED_WEIGHTS, Embedder, apply_tuned_layers, weights_fingerprint
from code_intel.index.text import embedding_text

# vendored or back-ported standard-library code, generated code, and tests
EXCLUDED_PARTS = {"typing_extensions", "zipp", "backports", "importlib_metadata", "importlib_resources",
                  "_distutils_hack", "tomli", "kubernetes", "tests", "test", "testing", "_vendor"}
HELD_OUT = ["torch", "git", "click", "aiohttp", "networkx", "pip", "jinja2"]
# held out of the JS/TS and Go sources when they are given (--npm, --go), one per language
HELD_OUT_CODE = ["npm:luxon", "go:etcd-io/bbolt"]


def package_files(site: Path) -> dict[str, list[Path]]:
    by_package: dict[str, list[Path]] = {}
    for path in sorted(site.rglob("*.py")):
        rel = path.relative_to(site)
        if set(rel.parts) & EXCLUDED_PARTS or rel.name.startswith("test_") or path.stat().st_size > 300_000:
            continue
        if any(part.endswith(".dist-info") for part in rel.parts):
            continue
        by_package.setdefault(rel.parts[0].split(".")[0], []).append(path)
    return by_package


def file_pairs(path: Path, rel: str, chunker: Chunker) -> tuple[list[tuple[str, int]], list[str]]:
    """([(sentence, index of its chunk)], chunk texts) for one file with its docstrings removed."""
    try:
        documented = semantic.documented_functions(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError):
        return [], []
    if documented is None:
        return [], []
    stripped, functions = documented
    chunks = chunker.chunk(rel, stripped, "python")
    pairs = []
    for node, sentence, start in functions:
        hits = [i for i, c in enumerate(chunks) if c.start_line <= start <= c.end_line and c.kind == "function"
                and c.symbol.split(".")[-1] == node.name]
        if hits:
            pairs.append((sentence, hits[0]))
    return pairs, [embedding_text(c) for c in chunks]


def build_pairs(site: Path, per_package: int, banned: set[str], seed: int,
                skip: Collection[str] = ()) -> dict[str, list[Any]]:
    rng = random.Random(seed)
    chunker = Chunker(512)
    queries: list[str] = []
    documents: list[str] = []
    packages: list[str] = []
    files_of: list[str] = []
    for package, files in sorted(package_files(site).items()):
        if package in skip:
            continue
        files = files[:]
        rng.shuffle(files)
        taken = 0
        for path in files:
            if taken >= per_package:
                break
            rel = path.relative_to(site).as_posix()
            pairs, texts = file_pairs(path, rel, chunker)
            used: set[int] = set()
            for sentence, chunk in pairs:
                if taken >= per_package or sentence.lower() in banned or chunk in used:
                    continue
                used.add(chunk)
                queries.append(sentence)
                documents.append(texts[chunk])
                packages.append(package)
                files_of.append(rel)
                taken += 1
    return {"queries": queries, "documents": documents, "packages": packages, "files": files_of}


class TopLayers:
    """Runs the frozen lower layers once (cached per text) and the trainable top layers on demand."""

    def __init__(self, model: Any, first_layer: int) -> None:
        import torch

        self.torch = torch
        self.model = model
        self.bert = model[0].auto_model
        self.bert.eval()
        self.first = first_layer
        self.layers = torch.nn.ModuleList(copy.deepcopy(list(self.bert.encoder.layer[first_layer:])))

    def lower(self, texts: list[str], batch: int = 64) -> list[Any]:
        """The hidden states entering layer `first` (the embedding output when every layer trains)."""
        torch = self.torch
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[Any] = [None] * len(texts)
        with torch.no_grad():
            for b in range(0, len(order), batch):
                idx = order[b : b + batch]
                features = self.model.tokenize([texts[i] for i in idx])
                hidden = self.bert.embeddings(input_ids=features["input_ids"],
                                              token_type_ids=features.get("token_type_ids"))
                mask = features["attention_mask"]
                hidden = self._through(self.bert.encoder.layer[: self.first], hidden, mask)
                lengths = mask.sum(1)
                for k, i in enumerate(idx):
                    out[i] = hidden[k, : lengths[k]].to(torch.float16).clone()
        return out

    def _through(self, layers: Any, hidden: Any, mask: Any) -> Any:
        """`hidden` run through `layers` in order, padding (mask 0) hidden from attention."""
        additive = ((1.0 - mask.float()) * self.torch.finfo(self.torch.float32).min)[:, None, None, :]
        for layer in layers:
            result = layer(hidden, attention_mask=additive)
            hidden = result[0] if isinstance(result, tuple) else result
        return hidden

    def top(self, states: list[Any]) -> Any:
        torch = self.torch
        longest = max(s.shape[0] for s in states)
        hidden = torch.zeros(len(states), longest, states[0].shape[1])
        mask = torch.zeros(len(states), longest)
        for k, s in enumerate(states):
            hidden[k, : s.shape[0]] = s.float()
            mask[k, : s.shape[0]] = 1
        hidden = self._through(self.layers, hidden, mask)
        pooled = (hidden * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
        return torch.nn.functional.normalize(pooled, dim=1)

    def encode(self, states: list[Any], batch: int = 128) -> np.ndarray:
        with self.torch.no_grad():
            return np.concatenate([self.top(states[b : b + batch]).numpy() for b in range(0, len(states), batch)])


def make_batches(train: np.ndarray, data: dict[str, list[Any]], size: int, group: str,
                 rng: np.random.Generator) -> list[np.ndarray]:
    """Training batches in random order. `group="package"` fills each batch from one package, a file's pairs
    side by side, so the in-batch negatives are the same library's other functions (harder than random
    ones); what is left over of each package goes into mixed batches."""
    if group == "none":
        order = rng.permutation(train)
        return [order[b : b + size] for b in range(0, len(order), size)]
    by_package: dict[str, dict[str, list[int]]] = {}
    for i in train:
        by_package.setdefault(data["packages"][i], {}).setdefault(data["files"][i], []).append(int(i))
    batches: list[np.ndarray] = []
    rest: list[int] = []
    for package in sorted(by_package):
        files = list(by_package[package].values())
        ordered = [i for k in rng.permutation(len(files)) for i in files[k]]
        full = len(ordered) - len(ordered) % size
        batches += [np.array(ordered[b : b + size]) for b in range(0, full, size)]
        rest += ordered[full:]
    rest_order = rng.permutation(np.array(rest, dtype=int))
    batches += [rest_order[b : b + size] for b in range(0, len(rest_order), size)]
    return [batches[k] for k in rng.permutation(len(batches))]


def in_batch_loss(logits: Any) -> Any:
    """Contrastive loss over a batch's query x document similarities: each query's own document is the
    diagonal, every other document of the batch a negative, counted in both directions."""
    import torch

    target = torch.arange(logits.shape[0])
    return (torch.nn.functional.cross_entropy(logits, target)
            + torch.nn.functional.cross_entropy(logits.T, target)) / 2


def mrr10(queries: np.ndarray, documents: np.ndarray) -> float:
    """Query i's answer is document i; each query ranks all documents."""
    scores = queries @ documents.T
    rank = (scores > np.diag(scores)[:, None]).sum(1) + 1
    return float(np.where(rank <= 10, 1.0 / rank, 0.0).mean())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-package", type=int, default=600, help="pairs taken from one package at most")
    parser.add_argument("--first-layer", type=int, default=0, help="first tuned layer (0-5; lower ones stay frozen)")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--scale", type=float, default=20.0, help="similarity scale of the contrastive loss")
    parser.add_argument("--group", choices=("none", "package"), default="package",
                        help="package: each batch from one package (harder in-batch negatives)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(CODE_TUNED_WEIGHTS))
    parser.add_argument("--npm", type=Path, help="also pairs from JS/TS doc comments of the packages that this "
                        "folder's package.json names (installed into its node_modules; keep it outside the repository)")
    parser.add_argument("--go", action="append", default=[], metavar="GITDIR@COMMIT",
                        help="also pairs from Go doc comments of this repository at this commit (repeatable)")
    parser.add_argument("--sources", type=Path, help="the Go repositories (from the local mirror) and the npm "
                        "versions of a sources file, e.g. benchmarks/tune_sources.json; --npm must hold those versions")
    parser.add_argument("--code-per-package", type=int, default=250,
                        help="pairs taken from one npm package or Go repository at most")
    parser.add_argument("--queries", choices=("docstring", "mixed"), default="docstring",
                        help="mixed: part of the doc sentences become keyword-like or question-like queries "
                        "(tune_sources.question_forms)")
    parser.add_argument("--mix", default="0.3,0.3", help="with --queries mixed: share of keyword forms, share of "
                        "question forms")
    parser.add_argument("--pairs-only", type=Path, metavar="FILE", help="write the pairs as JSON lines and stop "
                        "before training (to inspect the data and its size)")
    parser.add_argument("--variant-documents", choices=("bare", "documented"), default="bare",
                        help="documented: with --queries mixed, a JS/TS/Go pair whose query became a keyword or "
                        "question form keeps its doc comment in the chunk, as the index holds it")
    parser.add_argument("--init", type=Path, help="start from these tuned layers (a weights file) instead of the "
                        "untuned model")
    args = parser.parse_args()

    import torch
    from safetensors.torch import save_file

    torch.manual_seed(args.seed)
    started = time.perf_counter()
    site = Path(sysconfig.get_paths()["purelib"])
    with tempfile.TemporaryDirectory() as scratch:  # every benchmark sentence, so none is trained on
        banned = {t.query.lower() for t in semantic.build_corpus(Path(scratch), 10**9)}
    data = build_pairs(site, args.per_package, banned, args.seed) if args.per_package > 0 else \
        {"queries": [], "documents": [], "packages": [], "files": []}
    sources = []
    if args.sources:
        args.go += tune_sources.listed_sources(args.sources, args.npm)
    if args.npm or args.go:
        code, sources = tune_sources.code_pairs(args.npm, args.go, args.code_per_package, banned, args.seed)
        print("\n".join(sources), flush=True)
        documented = data["documents"] + code.pop("documented")  # Python pairs keep their stripped chunks
        for key in data:
            data[key] += code[key]
    sentences = data["queries"]  # the held-out packages are always asked with the doc sentences
    packages = np.array(data["packages"])
    held_names = HELD_OUT + HELD_OUT_CODE
    held = np.isin(packages, held_names)
    if args.queries == "mixed":
        keyword_share, question_share = (float(x) for x in args.mix.split(","))
        data["queries"], kinds = tune_sources.mix_queries(sentences, (keyword_share, question_share), args.seed)
        if args.variant_documents == "documented" and sources:
            # a variant is asked against the chunk as the index holds it, doc comment included (training only)
            data["documents"] = [documented[k] if kinds[k] != "sentence" and not held[k] else d
                                 for k, d in enumerate(data["documents"])]
    print(f"{len(packages)} pairs from {len(set(data['packages']))} packages ({int(held.sum())} held out); "
          f"{time.perf_counter() - started:.0f} s", flush=True)

    if args.pairs_only:
        with args.pairs_only.open("w") as out:
            for k in range(len(packages)):
                out.write(json.dumps({key: data[key][k] for key in data} | {"sentence": sentences[k]}) + "\n")
        return 0

    model = Embedder("all-MiniLM-L6-v2").model  # packaged, max_seq_length 128 like the index
    if args.init:
        apply_tuned_layers(model, args.init)
    tuner = TopLayers(model, args.first_layer)
    query_states = tuner.lower(data["queries"])
    sentence_states = query_states if sentences is data["queries"] else tuner.lower(sentences)
    document_states = tuner.lower(data["documents"])
    print(f"lower layers cached; {time.perf_counter() - started:.0f} s", flush=True)

    train = np.where(~held)[0]
    test = np.where(held)[0]
    # a document appearing twice in one batch would be its own negative: keep the first pair of each text
    first_of: dict[str, int] = {}
    for i in train:
        first_of.setdefault(data["documents"][i], int(i))
    train = np.array(sorted(first_of.values()))

    def held_out_mrr(part: np.ndarray | None = None) -> float:
        """MRR@10 of the held-out doc sentences (or of one part of them), each ranking that part's chunks."""
        tuner.layers.eval()
        rows = test if part is None else part
        if not len(rows):
            return float("nan")
        value = mrr10(tuner.encode([sentence_states[i] for i in rows]), tuner.encode([document_states[i] for i in rows]))
        tuner.layers.train()
        return round(value, 4)

    held_python = np.where(np.isin(packages, HELD_OUT))[0]
    held_code = {name: np.where(packages == name)[0] for name in HELD_OUT_CODE if (packages == name).any()}

    def held_out_parts() -> dict[str, float]:
        return {name: held_out_mrr(rows) for name, rows in [("python", held_python), *held_code.items()] if len(rows)}

    before = held_out_mrr(held_python)
    before_parts = held_out_parts()
    print(f"held-out MRR@10 before tuning: {before} (python); {before_parts}", flush=True)
    params = list(tuner.layers.parameters())
    optimiser = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    steps = args.epochs * len(make_batches(train, data, args.batch, args.group, np.random.default_rng(args.seed)))
    warmup = max(1, int(0.1 * steps))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min(1.0, (s + 1) / warmup) * max(0.0, (steps - s) / steps))
    tuner.layers.train()
    step = 0
    for epoch in range(args.epochs):
        for idx in make_batches(train, data, args.batch, args.group, np.random.default_rng(args.seed + epoch)):
            q = tuner.top([query_states[i] for i in idx])
            d = tuner.top([document_states[i] for i in idx])
            logits = args.scale * q @ d.T
            # the same sentence documenting two functions of a batch: neither is the other's negative
            texts = [data["queries"][i] for i in idx]
            same = torch.tensor([[a == b and j != k for k, b in enumerate(texts)] for j, a in enumerate(texts)])
            logits = logits.masked_fill(same, float("-inf"))
            loss = in_batch_loss(logits)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            step += 1
            if step % 25 == 0:
                print(f"step {step}/{steps} loss {float(loss.detach()):.3f}; {time.perf_counter() - started:.0f} s",
                      flush=True)
    after = held_out_mrr(held_python)
    after_parts = held_out_parts()
    print(f"held-out MRR@10 after tuning: {after} (python); {after_parts}", flush=True)

    layer_names = [f"encoder.layer.{args.first_layer + k}" for k in range(len(tuner.layers))]
    tensors = {f"{layer_names[int(key.split('.')[0])]}.{key.split('.', 1)[1]}": t.detach().to(torch.float16).contiguous()
               for key, t in tuner.layers.state_dict().items()}
    card = {"base": "all-MiniLM-L6-v2", "layers": ",".join(str(args.first_layer + k) for k in range(len(tuner.layers))),
            "pairs": str(len(train)), "packages": str(len(set(data["packages"]))), "held_out": ",".join(HELD_OUT),
            "held_out_mrr10_before": str(before), "held_out_mrr10_after": str(after),
            "epochs": str(args.epochs), "lr": str(args.lr), "batch": str(args.batch), "scale": str(args.scale), "group": args.group,
            "per_package": str(args.per_package), "seed": str(args.seed), "max_seq_length": "128"}
    if sources or args.queries != "docstring" or args.init:
        card.update({"held_out": ",".join(held_names), "code_per_package": str(args.code_per_package),
                     "code_sources": "; ".join(sources), "queries": args.queries,
                     "mix": args.mix if args.queries == "mixed" else "",
                     "variant_documents": args.variant_documents if args.queries == "mixed" else "",
                     "init": f"{args.init.name} sha256 {weights_fingerprint(args.init)}" if args.init else "",
                     "held_out_mrr10_by_part_before": json.dumps(before_parts),
                     "held_out_mrr10_by_part_after": json.dumps(after_parts)})
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(out), metadata=card)
    out.with_suffix(".json").write_text(json.dumps(card, indent=2) + "\n")
    print(json.dumps(card, indent=2))
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
