"""Fixed-size chunking: chunklab's `FixedSizeChunker` against its counterparts, measured in the same run.

At 512 characters with overlap 0 and 50, on `CHARS` characters of every text shape (`shapes`) per
round (less than the other benchmarks read: the slowest peer cuts the text into single characters
first), every contender returns chunk texts with their start offsets:

* chunklab ``FixedSizeChunker(chunk_size=512, chunk_overlap=...)``: `Chunk` objects with exact offsets and
  metadata (the ratios are computed against this row); and with ``snap_to_words=True``;
* LangChain ``CharacterTextSplitter(separator="")`` with ``add_start_index=True``: it splits the text
  into characters, merges them back up to the size, and finds each chunk's offset by searching the
  source for its text;
* Chonkie ``TokenChunker`` with its character tokenizer (windows of 512 characters);
* Chonkie ``FastChunker``, for reference: windows of at most 512 *bytes* that end at a line break,
  full stop or question mark (SIMD code in Rust); not the same cut rule, and it has no overlap.

Target (issue 23): chunklab at least 10 times as fast as LangChain and Chonkie's ``TokenChunker``
on every shape.

Run: ``.venv/bin/python benchmarks/bench_fixed.py [shape ...]`` (peers: ``benchmarks/requirements.txt``).
"""

from __future__ import annotations

from typing import Callable

import sys

from harness import Output, Row, main, peer, rows_for
from shapes import SHAPES

from chunklab.strategies import FixedSizeChunker

#: Characters of each shape per round.
CHARS = 400_000
ROUNDS = 3
TARGET = 10.0
SIZE = 512
OVERLAPS = (0, 50)
BASELINE = "chunklab FixedSizeChunker"


def chunklab_run(overlap: int, snap: bool = False) -> Callable[[str], Output]:
    chunker = FixedSizeChunker(chunk_size=SIZE, chunk_overlap=overlap, snap_to_words=snap)
    return lambda text: [(c.start, c.text) for c in chunker(text)]


def langchain_run(overlap: int) -> Callable[[str], Output]:
    from langchain_text_splitters import CharacterTextSplitter

    splitter = CharacterTextSplitter(separator="", chunk_size=SIZE, chunk_overlap=overlap, add_start_index=True)
    return lambda text: [(d.metadata["start_index"], d.page_content) for d in splitter.create_documents([text])]


def chonkie_token_run(overlap: int) -> Callable[[str], Output]:
    from chonkie import TokenChunker

    chunker = TokenChunker(tokenizer="character", chunk_size=SIZE, chunk_overlap=overlap)
    return lambda text: [(c.start_index, c.text) for c in chunker(text)]


def chonkie_fast_run(overlap: int) -> Callable[[str], Output] | str:
    from chonkie import FastChunker

    if overlap:
        return "Chonkie's FastChunker has no overlap option"
    chunker = FastChunker(chunk_size=SIZE)
    return lambda text: [(c.start_index, c.text) for c in chunker(text)]


def measure(rounds: int = ROUNDS, shapes: tuple[str, ...] = SHAPES) -> list[Row]:
    """Rows for both overlaps on every shape."""
    rows: list[Row] = []
    for overlap in OVERLAPS:
        for shape in shapes:
            runs = {
                BASELINE: chunklab_run(overlap),
                "chunklab FixedSizeChunker snap_to_words": chunklab_run(overlap, snap=True),
                "langchain CharacterTextSplitter('') +index": peer(langchain_run, overlap),
                "chonkie TokenChunker (characters)": peer(chonkie_token_run, overlap),
                "limit: chonkie FastChunker (Rust; bytes, own cut rule)": peer(chonkie_fast_run, overlap),
            }
            targets = {label: TARGET for label in runs if label.startswith(("langchain", "chonkie TokenChunker"))}
            setting = f"{SIZE} chars, overlap {overlap}"
            rows += rows_for("fixed", setting, runs, shape, CHARS, rounds, BASELINE, targets, overlap=bool(overlap))
    return rows


if __name__ == "__main__":
    main(lambda: measure(shapes=tuple(sys.argv[1:]) or SHAPES),
         f"Fixed-size chunking, {SIZE} characters; best CPU time of {ROUNDS} interleaved rounds per shape")
