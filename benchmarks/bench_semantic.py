"""Semantic chunking: chunklab's ``"semantic"`` chunker against LangChain's and Chonkie's, one embedder.

All three get the same embedding model: chunklab's offline all-MiniLM-L6-v2 (`chunklab.models.embed.MiniLMEmbedder`),
handed to LangChain as an ``Embeddings`` object and to Chonkie as a ``BaseEmbeddings`` object (their
own defaults would download a model). Text: the course's long prose documents (`DOCUMENTS`), where
cutting by meaning is the point (the one text shape of this benchmark: embedding every shape would
take most of the time `make bench` has, and the rule-based work around the model is what the
other benchmarks measure on every shape).

* chunklab ``SemanticChunker(method="percentile", threshold=95, buffer=1)`` (at most 1,000
  characters per chunk, its default) against LangChain's experimental ``SemanticChunker`` with the
  same rule (``breakpoint_threshold_type="percentile"``, amount 95, ``buffer_size=1``,
  ``add_start_index=True``; no size limit) and Chonkie's ``SemanticChunker`` (its own similarity
  rule, ``chunk_size=1000`` characters).
* **cold model cache**: each contender gets an embedder with an empty cache, so the time is mostly
  the model embedding the sentences (each library embeds what its method needs: sentences, windows
  of sentences, groups); one round.
* **warm model cache**: the embedders have seen every text before (the cold round), so what is
  left is each library's own work: splitting, looking vectors up, distances, cutting. chunklab's
  cache of sentence vectors per text (what makes its slider instant) is bypassed by a fresh
  embedder object each round, so it too splits and looks up every sentence; best of `ROUNDS`.

The chunklab rows are skipped, with a line saying so, until a chunker named ``"semantic"`` is
registered. Run: ``.venv/bin/python benchmarks/bench_semantic.py``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
from harness import Output, Row, main, peer, rows_for

from chunklab import CHUNKERS, load_document
from chunklab.models.embed import MiniLMEmbedder

DOCUMENTS = ("article", "agreement")
ROUNDS = 3
MAX_SIZE = 1000
BASELINE = "chunklab SemanticChunker"


class Forward:
    """A new embedder object that forwards to `embedder` (its vectors and its cache)."""

    def __init__(self, embedder: Callable[[Sequence[str]], np.ndarray]) -> None:
        self.embedder = embedder

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder(texts)


def chunklab_run(embedder: MiniLMEmbedder) -> Callable[[str], Output] | str:
    if "semantic" not in CHUNKERS:
        return "no chunker named 'semantic' is registered yet"

    def run(text: str) -> Output:
        chunker = CHUNKERS["semantic"](method="percentile", threshold=95.0, buffer=1, embedder=Forward(embedder))
        return [(c.start, c.text) for c in chunker(text)]

    return run


def langchain_run(embedder: MiniLMEmbedder) -> Callable[[str], Output]:
    from langchain_core.embeddings import Embeddings
    from langchain_experimental.text_splitter import SemanticChunker

    class MiniLM(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return embedder(texts).tolist()

        def embed_query(self, text: str) -> list[float]:
            return embedder([text])[0].tolist()

    splitter = SemanticChunker(
        MiniLM(),
        buffer_size=1,
        add_start_index=True,
        breakpoint_threshold_type="percentile",
        breakpoint_threshold_amount=95,
    )
    return lambda text: [(d.metadata["start_index"], d.page_content) for d in splitter.create_documents([text])]


def chonkie_run(embedder: MiniLMEmbedder) -> Callable[[str], Output]:
    from chonkie import SemanticChunker
    from chonkie.embeddings import BaseEmbeddings

    class MiniLM(BaseEmbeddings):
        def embed(self, text: str) -> np.ndarray:
            return embedder([text])[0]

        def embed_batch(self, texts: list[str]) -> list[np.ndarray]:
            return list(embedder(list(texts)))

        @property
        def dimension(self) -> int:
            return embedder.dim

        def get_tokenizer(self) -> Any:
            return "character"

    chunker = SemanticChunker(embedding_model=MiniLM(), chunk_size=MAX_SIZE)
    return lambda text: [(c.start_index, c.text) for c in chunker(text)]


def measure(rounds: int = ROUNDS) -> list[Row]:
    """Rows for a cold and a warm model cache."""
    texts = [load_document(name).text for name in DOCUMENTS]
    makers = {
        BASELINE: chunklab_run,
        "langchain SemanticChunker +index": langchain_run,
        "chonkie SemanticChunker": chonkie_run,
    }
    embedders = {label: MiniLMEmbedder() for label in makers}
    embedders[BASELINE](["warm-up: load the model before any clock starts"])
    runs = {label: peer(make, embedders[label]) for label, make in makers.items()}
    targets = {label: 1.0 for label in makers if label != BASELINE}
    rows = rows_for("semantic", "cold model cache", runs, "prose", 0, 1, BASELINE, targets, texts=[texts])
    rows += rows_for("semantic", "warm model cache", runs, "prose", 0, rounds, BASELINE, targets, texts=[texts] * rounds)
    return rows


if __name__ == "__main__":
    main(measure, "Semantic chunking, all-MiniLM-L6-v2 (int8 ONNX) for every library; best CPU time\n")
