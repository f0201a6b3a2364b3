"""Recursive chunking: chunklab's `RecursiveChunker` against the recursive splitters of four peers,
on every text shape, with two reference rows for the fastest a splitter can be.

At 512 characters with overlap 0 and 50, on `CHARS` characters of each shape (`shapes`) per round:

* chunklab ``RecursiveChunker(...)(text)``: `Chunk` objects with exact offsets and metadata (index,
  counts; the content hash is a property read by exports), i.e. everything a pipeline gets, not just the cut
  positions; the ratios are computed against this row. It uses LangChain's cascade (``("paragraph",
  "line", "word", "char")`` for LangChain's default separators ``["\\n\\n", "\\n", " ", ""]``), so
  that the comparison with LangChain does the same cuts; chunklab's default cascade (sentence ends
  too: more work, better cuts) has a row of its own, and so do the cut positions alone
  (``chunker.spans(text)``);
* LangChain ``RecursiveCharacterTextSplitter``: ``split_text`` (strings, no offsets) and
  ``create_documents`` with ``add_start_index=True`` (offsets found by searching the source for
  each chunk's text). Targets (issue 23): chunklab at least 1.5 times as fast as the first and 3
  times as fast as the second, on every shape;
* Chonkie ``RecursiveChunker`` (character tokenizer; it has no overlap option), ``semchunk`` with
  ``offsets=True`` (``len`` as its token counter), each with its own default cascade;
* the limit, two reference rows: ``semantic-text-splitter``'s ``TextSplitter.chunk_indices``
  (compiled Rust) and `find_scan`, a plain ``str.rfind`` scan for the last separator of LangChain's
  cascade in each 512-character window (cut positions and chunk texts, nothing else): what any
  Python splitter has to do at least.

Columns (`harness.print_shapes`): chunklab's throughput per shape, each contender's time over
chunklab's per shape (above 1: chunklab is faster), the worst shape, the target, the share of
chunks whose reported offset is exact, and the share of neighbouring chunk pairs that really
overlap (LangChain carries whole pieces into the overlap, so where the last piece is longer than
the overlap nothing is carried).

Run: ``.venv/bin/python benchmarks/bench_recursive.py [shape ...]`` (peers:
``benchmarks/requirements.txt``).
"""

from __future__ import annotations

from typing import Callable

import sys

from harness import Output, Row, main, peer, rows_for
from shapes import SHAPES

from chunklab.strategies import RecursiveChunker

ROUNDS = 3
#: Characters of each shape per round.
CHARS = 1_500_000
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


def find_scan(text: str) -> Output:
    """The reference floor: windows of `SIZE` characters, each cut at the last paragraph break,
    else line break, else space in it (``str.rfind``), else at `SIZE`; no trimming, no overlap."""
    out: Output = []
    head, length = 0, len(text)
    while head < length:
        stop = head + SIZE
        if stop >= length:
            out.append((head, text[head:]))
            break
        cut = text.rfind("\n\n", head + 1, stop)
        if cut < 0:
            cut = text.rfind("\n", head + 1, stop)
            if cut < 0:
                cut = text.rfind(" ", head + 1, stop)
                if cut < 0:
                    cut = stop
        out.append((head, text[head:cut]))
        head = cut
    return out


LANGCHAIN = "langchain split_text (no offsets)"
LANGCHAIN_INDEX = "langchain add_start_index=True"
#: The least ratios issue 23 asks on every shape.
TARGETS = {LANGCHAIN: 1.5, LANGCHAIN_INDEX: 3.0}


def measure(rounds: int = ROUNDS, shapes: tuple[str, ...] = SHAPES) -> list[Row]:
    """Rows for both overlaps on every shape."""
    rows: list[Row] = []
    for overlap in OVERLAPS:
        for shape in shapes:
            runs = {
                BASELINE: chunklab_run(overlap, LANGCHAIN_CASCADE),
                "chunklab, default cascade": chunklab_run(overlap, RecursiveChunker().separators),
                "chunklab spans only, LangChain's cascade": chunklab_spans(overlap, LANGCHAIN_CASCADE),
                LANGCHAIN: peer(langchain_run, overlap, False),
                LANGCHAIN_INDEX: peer(langchain_run, overlap, True),
                "chonkie RecursiveChunker": peer(chonkie_run, overlap),
                "semchunk offsets=True": peer(semchunk_run, overlap),
                "limit: semantic-text-splitter (Rust)": peer(text_splitter_run, overlap),
                "limit: str.rfind scan (offsets, texts)": find_scan if not overlap else "the scan has no overlap",
            }
            setting = f"{SIZE} chars, overlap {overlap}"
            rows += rows_for("recursive", setting, runs, shape, CHARS, rounds, BASELINE, TARGETS, overlap=bool(overlap))
    return rows


if __name__ == "__main__":
    main(lambda: measure(shapes=tuple(sys.argv[1:]) or SHAPES),
         f"Recursive chunking, {SIZE} characters; best CPU time of {ROUNDS} interleaved rounds per shape")
