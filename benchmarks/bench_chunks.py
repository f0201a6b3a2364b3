"""What making a `Chunk` costs, part by part: the floor under every chunker.

`Chunker.__call__` turns each span a strategy yields into a `Chunk`: it slices the text, builds the
metadata dict, and fills the chunk's fields. This script times each of those parts alone, per chunk,
on spans of 512 characters of the course documents, and the whole call on precomputed spans (a
chunker whose `spans` costs nothing):

* ``slice``: ``text[start:end]``;
* ``metadata dict``: the standard entries and one entry of the strategy's own;
* ``content hash``: `chunklab.core.content_hash`, the first 16 hex digits of the SHA-256 of the
  chunk's UTF-8: `Chunk.content_hash`, computed when read (the exports read it), never when the
  chunk is made;
* ``Chunk object``: `Chunk.from_slice` (a new object, its five fields set by the slots' own
  setters: what `Chunker.__call__` does); and through the dataclass constructor, for comparison;
* ``Chunker.__call__``: everything, per chunk; then ``Chunk.exported_metadata()``, the metadata
  with the hash, as an export writes it.

The times are the best CPU time of `ROUNDS` runs over `SPANS` spans, in microseconds per chunk.

Run: ``.venv/bin/python benchmarks/bench_chunks.py``.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from shapes import shape_text

from chunklab.core import Chunk, Chunker, content_hash

SIZE = 512
SPANS = 20_000
ROUNDS = 7


class Precomputed(Chunker):
    """A chunker whose spans are given: its call is `Chunker.__call__` alone."""

    name = ""

    def __init__(self, *, given: tuple = ()) -> None:
        self.given = given

    def spans(self, text: str) -> list:
        return list(self.given)


def per_chunk(run: Callable[[], Any], count: int = SPANS) -> float:
    """Best CPU microseconds per chunk of `run` (which handles `count` chunks)."""
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.process_time()
        run()
        best = min(best, time.process_time() - started)
    return best / count * 1e6


def measure() -> list[tuple[str, float]]:
    """``(part, microseconds per chunk)`` for each part (see the module docstring)."""
    text = shape_text("course", SIZE * SPANS)
    spans = [(k * SIZE, (k + 1) * SIZE, {"separator": "paragraph"}) for k in range(SPANS)]
    pieces = [text[s:e] for s, e, _ in spans]
    from_slice = Chunk.from_slice

    def objects() -> None:
        for k, piece in enumerate(pieces):
            from_slice(piece, k, k + SIZE, k, None)

    chunker = Precomputed(given=tuple(spans))
    made: list[list[Chunk]] = []

    def call() -> None:
        made.append(chunker(text))

    rows = [
        ("slice", per_chunk(lambda: [text[s:e] for s, e, _ in spans])),
        ("metadata dict", per_chunk(lambda: [
            {"chunk_index": k, "total_chunks": SPANS, "char_count": SIZE, **extra}
            for k, (_, _, extra) in enumerate(spans)])),
        ("content hash", per_chunk(lambda: [content_hash(piece) for piece in pieces])),
        ("Chunk object, Chunk.from_slice", per_chunk(objects)),
        ("Chunk object, dataclass constructor", per_chunk(lambda: [Chunk(p, k, k + SIZE, k, {}) for k, p in enumerate(pieces)])),
        ("Chunker.__call__", per_chunk(call)),
        ("Chunk.exported_metadata() (hashes)", per_chunk(lambda: [c.exported_metadata() for c in made[0]])),
    ]
    return rows


def print_parts(rows: list[tuple[str, float]]) -> None:
    print(f"Making a chunk, part by part: CPU microseconds per {SIZE}-character chunk (best of {ROUNDS} runs over "
          f"{SPANS:,} spans)\n")
    for part, micro in rows:
        print(f"  {part:<44} {micro:>7.2f} µs")
    print()


if __name__ == "__main__":
    print_parts(measure())
