"""The cost of notebook 16's measurement: `compare` in the budget view, cold and warm.

Every registered strategy at its defaults, the whole corpus, every question (``split="all"``), BM25
and dense retrieval, budgets of 250, 500, 1,000, 2,000 and 4,000 characters. Each run is a fresh
Python process with the MiniLM vectors persisted as notebook 16 keeps them
(``cache_dir() / "minilm-embeddings.npz"``), and ``CHUNKLAB_CACHE`` pointing at one temporary
folder: the first run starts from an empty cache (cold), the second finds the vectors the first
one wrote (warm). With ``--cache DIR`` the vectors are kept there (a run starts cold only if the
folder holds none yet).

Printed per run: wall-clock and CPU seconds (CPU above wall means both cores worked; the machine's
load average is printed too, since other processes slow every number down), where the time went
(chunking, indexing per retriever, which for dense retrieval is embedding, searching, scoring the
budgets, the rest), and how much was embedded (texts and MiniLM word pieces, after truncation at
256).

Run: ``.venv/bin/python benchmarks/bench_compare.py [--context both] [--retrievers bm25 dense]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGETS = (250, 500, 1000, 2000, 4000)


def measure(context: str, retrievers: list[str]) -> dict:
    """One measured `compare` run in this process; returns its numbers."""
    started, cpu_started = time.perf_counter(), time.process_time()
    from chunklab.evaluation.comparison import compare, default_chunkers
    from chunklab.formats.corpus import load_questions
    from chunklab.models.embed import default_embedder
    from chunklab.models.resources import cache_dir

    embedder = default_embedder().persist(cache_dir() / "minilm-embeddings.npz")
    embedded: list[str] = []
    original = embedder._embed

    def recording(texts: list[str]):
        embedded.extend(texts)
        return original(texts)

    embedder._embed = recording
    imported = time.perf_counter()
    result = compare(default_chunkers(), questions=load_questions(split="all"), retrievers=retrievers,
                     budget=BUDGETS, use_context={"none": False, "both": "both"}[context], progress=False)
    embedder.flush()
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    tokenizer = embedder._model[0] if embedder.backend == "onnx-int8" else None
    tokens = sum(len(e.ids) for e in tokenizer.encode_batch(embedded)) if tokenizer and embedded else None
    timings = result.timings.groupby("retriever")[["index_seconds", "search_seconds", "score_seconds"]].sum()
    chunk_seconds = result.chunkings.loc[~result.chunkings["context"], "chunk_seconds"]
    return {
        "wall": wall, "cpu": cpu, "load_average": os.getloadavg()[0], "imports_and_setup": imported - started,
        "chunking": float(chunk_seconds.sum()),
        "slowest_chunkers": {k: round(v, 2) for k, v in chunk_seconds.sort_values(ascending=False).head(4).items()},
        "per_retriever": timings.round(2).to_dict(orient="index"),
        "texts_embedded": len(embedded), "chars_embedded": sum(map(len, embedded)), "word_pieces_embedded": tokens,
        "rows": len(result.rows), "chunkings": len(result.chunkings),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--context", choices=("none", "both"), default="none",
                        help="index each chunking without its context only, or also with it")
    parser.add_argument("--retrievers", nargs="+", default=["bm25", "dense"])
    parser.add_argument("--cache", type=Path, default=None,
                        help="keep the vectors in this folder (default: a temporary one, deleted after)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.context, args.retrievers)))
        return
    with tempfile.TemporaryDirectory() as temporary:
        cache = args.cache or Path(temporary)
        env = {**os.environ, "CHUNKLAB_CACHE": str(cache), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
               "PYTHONPATH": str(ROOT), "TQDM_DISABLE": "1"}
        command = [sys.executable, __file__, "--child", "--context", args.context, "--retrievers", *args.retrievers]
        for _ in range(2):
            state = "warm" if (cache / "minilm-embeddings.npz").is_file() else "cold"
            done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, check=True)
            numbers = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"{state} cache (context: {args.context}, retrievers: {' '.join(args.retrievers)}):", flush=True)
            for key, value in numbers.items():
                print(f"  {key}: {round(value, 2) if isinstance(value, float) else value}", flush=True)


if __name__ == "__main__":
    main()
