"""Recursive chunking: chunklab's `RecursiveChunker` against the recursive splitters of four peers.

At 512 characters with overlap 0 and 50, on the benchmark corpus (`harness.build_corpus`, about
5.4 MB), in one run:

* chunklab ``RecursiveChunker(...)(text)``: `Chunk` objects with exact offsets and metadata (index,
  counts, content hash), i.e. everything a pipeline gets, not just the cut positions; the ratios are
  computed against this row. It uses LangChain's cascade (``("paragraph", "line", "word", "char")``
  for LangChain's default separators ``["\\n\\n", "\\n", " ", ""]``), so that the comparison with
  LangChain does the same cuts; chunklab's default cascade (sentence ends too: more work, better
  cuts) has a row of its own, and so do the cut positions alone (``chunker.spans(text)``);
* LangChain ``RecursiveCharacterTextSplitter``: ``split_text`` (strings, no offsets) and
  ``create_documents`` with ``add_start_index=True`` (offsets found by searching the source for
  each chunk's text). Targets: chunklab at least as fast as the first, twice as fast as the second;
* Chonkie ``RecursiveChunker`` (character tokenizer; it has no overlap option), ``semchunk`` with
  ``offsets=True`` (``len`` as its token counter) and ``semantic-text-splitter``'s
  ``TextSplitter.chunk_indices`` (a Rust library), each with its own default cascade.

Columns: throughput (MB of UTF-8 per CPU second), the ratio of each peer's time to chunklab's (above
1: chunklab is faster), chunks, the share of chunks whose reported offset is exact, and the share of
neighbouring chunk pairs that really overlap (LangChain carries whole pieces into the overlap, so
where the last piece is longer than the overlap nothing is carried).

Run: ``.venv/bin/python benchmarks/bench_recursive.py`` (peers: ``benchmarks/requirements.txt``).
"""

from __future__ import annotations

from typing import Callable

from harness import COPIES, Output, Row, main, peer, rows_for

from chunklab.strategies import RecursiveChunker

ROUNDS = 7
SIZE = 512
OVERLAPS = (0, 50)
LANGCHAIN_CASCADE = ("paragraph", "line", "word", "char")
BASELINE = "chunklab, LangChain's cascade"


def chunklab_run(overlap: int, separators: tuple[str, ...]) -> Callable[[str], Output]:
    chunker = RecursiveChunker(chunk_size=SIZE, chunk_overlap=overlap, separators=separators)
    return lambda text: [(c.start, c.text) for c in chunker(text)]


def chunklab_spans(overlap: int, separators: tuple[str, ...]) -> Callable[[str], Output]:
    chunker = RecursiveChunker(chunk_size=SIZE, chunk_overlap=overlap, separators=separators)
    return lambda text: [(start, text[start:end]) for start, end, _ in chunker.spans(text)]


def langchain_run(overlap: int, start_index: bool) -> Callable[[str], Output]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=SIZE, chunk_overlap=overlap, add_start_index=start_index)
    if start_index:
        return lambda text: [(d.metadata["start_index"], d.page_content) for d in splitter.create_documents([text])]
    return lambda text: [(None, piece) for piece in splitter.split_text(text)]


def chonkie_run(overlap: int) -> Callable[[str], Output] | str:
    from chonkie import RecursiveChunker as ChonkieRecursive

    if overlap:
        return "Chonkie's RecursiveChunker has no overlap option"
    chunker = ChonkieRecursive(tokenizer="character", chunk_size=SIZE)
    return lambda text: [(c.start_index, c.text) for c in chunker(text)]


def semchunk_run(overlap: int) -> Callable[[str], Output]:
    import semchunk

    chunker = semchunk.chunkerify(len, SIZE)

    def run(text: str) -> Output:
        pieces, offsets = chunker(text, offsets=True, overlap=overlap or None)
        return [(start, piece) for piece, (start, _) in zip(pieces, offsets)]

    return run


def text_splitter_run(overlap: int) -> Callable[[str], Output]:
    from semantic_text_splitter import TextSplitter

    splitter = TextSplitter(SIZE, overlap=overlap)
    return lambda text: splitter.chunk_indices(text)


def measure(rounds: int = ROUNDS) -> list[Row]:
    """Rows for both overlaps."""
    rows: list[Row] = []
    for overlap in OVERLAPS:
        runs = {
            BASELINE: chunklab_run(overlap, LANGCHAIN_CASCADE),
            "chunklab, default cascade": chunklab_run(overlap, RecursiveChunker().separators),
            "chunklab spans only, LangChain's cascade": chunklab_spans(overlap, LANGCHAIN_CASCADE),
            "langchain split_text (no offsets)": peer(langchain_run, overlap, False),
            "langchain add_start_index=True": peer(langchain_run, overlap, True),
            "chonkie RecursiveChunker": peer(chonkie_run, overlap),
            "semchunk offsets=True": peer(semchunk_run, overlap),
            "semantic-text-splitter chunk_indices": peer(text_splitter_run, overlap),
        }
        targets = {"langchain split_text (no offsets)": 1.0, "langchain add_start_index=True": 2.0}
        setting = f"{SIZE} chars, overlap {overlap}"
        rows += rows_for("recursive", setting, runs, COPIES, rounds, BASELINE, targets, overlap=bool(overlap))
    return rows


if __name__ == "__main__":
    main(measure, f"Recursive chunking, {SIZE} characters; best CPU time of {ROUNDS} interleaved rounds\n")
