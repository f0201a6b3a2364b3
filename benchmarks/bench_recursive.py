"""Recursive chunking: chunklab's `RecursiveChunker` against LangChain's `RecursiveCharacterTextSplitter`.

One run prints, at 512 characters with overlap 0 and 50, on a corpus of several MB built from the
course documents:

* LangChain ``split_text`` (strings only, no offsets) and ``create_documents`` with
  ``add_start_index=True`` (offsets found by searching the source for each chunk's text);
* chunklab ``RecursiveChunker(...)(text)``: `Chunk` objects with exact offsets and metadata (index,
  counts, content hash), i.e. everything a pipeline gets, not just the cut positions; the targets
  are measured on this. For reference, a row also times ``chunker.spans(text)`` alone: the cut
  positions (exact offsets) without building `Chunk` objects;
* the ratio of each LangChain time to chunklab's (above 1: chunklab is faster), the share of chunks
  whose reported start offset is exact, and the share of neighbouring chunk pairs that really
  overlap (when an overlap was asked for).

The comparison that carries the targets uses the same cascade on both sides: LangChain's default
separators ``["\\n\\n", "\\n", " ", ""]`` and chunklab's ``("paragraph", "line", "word", "char")``.
chunklab's default cascade also cuts at sentence ends (more work, better cuts); its row is printed
too. Targets: chunklab at least as fast as LangChain without offsets, at least twice as fast as
LangChain with ``add_start_index=True``.

The corpus: every course document, copied `COPIES` times; each copy has its paragraphs shuffled
with a seeded random generator and every number shifted by the copy's index, so the text repeats
(as real corpora do: boilerplate, templates) without being one string over and over.

Timings: the machine may be shared, so every configuration runs `ROUNDS` times, interleaved, and
the best time counts; times are the CPU time of this process (`time.process_time`), which other
programs on a busy machine disturb far less than wall-clock time.
Run: ``.venv/bin/python benchmarks/bench_recursive.py`` (peers from ``benchmarks/requirements.txt``).
"""

from __future__ import annotations

import random
import re
import time
from typing import Callable

from chunklab import list_documents, load_document
from chunklab.strategies import RecursiveChunker

COPIES = 25
ROUNDS = 7
SIZE = 512
LANGCHAIN_CASCADE = ("paragraph", "line", "word", "char")

Output = list[tuple[int | None, str]]  # (reported start offset or None, chunk text) per chunk


def build_corpus(copies: int = COPIES, seed: int = 0) -> list[str]:
    """The course documents, `copies` times, each copy with shuffled paragraphs and shifted numbers."""
    rng = random.Random(seed)
    texts = [load_document(name).text for name in list_documents()]
    corpus = []
    for copy in range(copies):
        for text in texts:
            paragraphs = text.split("\n\n")
            rng.shuffle(paragraphs)
            shifted = re.sub(r"\d+", lambda m: str(int(m.group()) + copy), "\n\n".join(paragraphs))
            corpus.append(shifted)
    return corpus


def chunklab_run(overlap: int, separators: tuple[str, ...]) -> Callable[[str], Output]:
    chunker = RecursiveChunker(size=SIZE, overlap=overlap, separators=separators)
    return lambda text: [(c.start, c.text) for c in chunker(text)]


def chunklab_spans(overlap: int, separators: tuple[str, ...]) -> Callable[[str], Output]:
    chunker = RecursiveChunker(size=SIZE, overlap=overlap, separators=separators)
    return lambda text: [(start, text[start:end]) for start, end, _ in chunker.spans(text)]


def langchain_run(overlap: int, start_index: bool) -> Callable[[str], Output]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=SIZE, chunk_overlap=overlap, add_start_index=start_index)
    if start_index:
        return lambda text: [(d.metadata["start_index"], d.page_content) for d in splitter.create_documents([text])]
    return lambda text: [(None, piece) for piece in splitter.split_text(text)]


def exact_share(texts: list[str], outputs: list[Output]) -> float | None:
    """Share of chunks whose reported start offset points at their text (None: no offsets)."""
    pairs = [(text, start, piece) for text, out in zip(texts, outputs) for start, piece in out]
    if not pairs or pairs[0][1] is None:
        return None
    return sum(text[start : start + len(piece)] == piece for text, start, piece in pairs) / len(pairs)


def overlapping_share(texts: list[str], outputs: list[Output]) -> float | None:
    """Share of neighbouring chunk pairs that share text: by offsets when exact, else by a shared
    affix (the end of one chunk begins the next)."""
    pairs = 0
    shared = 0
    for out in outputs:
        for (a_start, a), (b_start, b) in zip(out, out[1:]):
            pairs += 1
            if a_start is not None and b_start is not None:
                shared += b_start < a_start + len(a)
            else:
                shared += any(a.endswith(b[:k]) for k in range(1, min(len(a), len(b)) + 1))
    return shared / pairs if pairs else None


def main() -> None:
    corpus = build_corpus()
    print(f"corpus: {len(corpus)} texts, {sum(map(len, corpus)):,} characters; {SIZE} characters per chunk; "
          f"best of {ROUNDS} interleaved rounds\n")
    for overlap in (0, 50):
        runs = {
            "langchain split_text (no offsets)": langchain_run(overlap, start_index=False),
            "langchain add_start_index=True": langchain_run(overlap, start_index=True),
            "chunklab, LangChain's cascade": chunklab_run(overlap, LANGCHAIN_CASCADE),
            "chunklab, default cascade": chunklab_run(overlap, RecursiveChunker().separators),
            "chunklab spans only, LangChain's cascade": chunklab_spans(overlap, LANGCHAIN_CASCADE),
        }
        best = {label: float("inf") for label in runs}
        outputs: dict[str, list[Output]] = {}
        for _ in range(ROUNDS):
            for label, run in runs.items():
                started = time.process_time()
                outputs[label] = [run(text) for text in corpus]
                best[label] = min(best[label], time.process_time() - started)
        print(f"overlap {overlap}:")
        print(f"  {'':41} {'time (ms)':>10} {'chunks':>7} {'exact offsets':>14} {'pairs overlapping':>18}")
        for label in runs:
            exact, shared = exact_share(corpus, outputs[label]), overlapping_share(corpus, outputs[label])
            print(f"  {label:41} {best[label] * 1000:>10.1f} {sum(map(len, outputs[label])):>7} "
                  f"{'-' if exact is None else f'{exact:.1%}':>14} {'-' if not overlap else f'{shared:.1%}':>18}")
        ours = best["chunklab, LangChain's cascade"]
        plain, indexed = best["langchain split_text (no offsets)"] / ours, best["langchain add_start_index=True"] / ours
        verdict = {True: "met", False: "MISSED"}
        print(f"  speed-up, same cascade: {plain:.2f}x vs split_text (target >= 1.0: {verdict[plain >= 1]}), "
              f"{indexed:.2f}x vs add_start_index (target >= 2.0: {verdict[indexed >= 2]})")
        default = best["chunklab, default cascade"]
        print(f"  speed-up, default cascade: {best['langchain split_text (no offsets)'] / default:.2f}x vs split_text, "
              f"{best['langchain add_start_index=True'] / default:.2f}x vs add_start_index\n")


if __name__ == "__main__":
    main()
