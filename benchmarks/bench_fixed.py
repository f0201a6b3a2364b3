"""Fixed-size chunking: chunklab against peer libraries, measured in the same run.

Prints, for each (size, overlap), the best-of-N time of each library on the whole corpus, its ratio
to chunklab's time (above 1: slower than chunklab), and the share of its chunks whose reported start
offset is exact (``source[start:start + len(text)] == text``).

Peers (install with ``pip install -r benchmarks/requirements.txt``):
* LangChain ``CharacterTextSplitter(separator="")`` with ``add_start_index=True`` (it finds each
  chunk's offset by searching the source for the chunk text);
* Chonkie ``TokenChunker`` with its character tokenizer.

Run: ``.venv/bin/python benchmarks/bench_fixed.py``.
"""

from __future__ import annotations

import time
from typing import Callable

from chunklab import list_documents, load_document
from chunklab.strategies import FixedSizeChunker

Spans = list[tuple[int, str]]  # (reported start offset, chunk text)


def chunklab_fixed(size: int, overlap: int) -> Callable[[str], Spans]:
    chunker = FixedSizeChunker(size=size, overlap=overlap)
    return lambda text: [(c.start, c.text) for c in chunker(text)]


def langchain_fixed(size: int, overlap: int) -> Callable[[str], Spans]:
    from langchain_text_splitters import CharacterTextSplitter

    splitter = CharacterTextSplitter(separator="", chunk_size=size, chunk_overlap=overlap, add_start_index=True)
    return lambda text: [(d.metadata["start_index"], d.page_content) for d in splitter.create_documents([text])]


def chonkie_fixed(size: int, overlap: int) -> Callable[[str], Spans]:
    from chonkie import TokenChunker

    chunker = TokenChunker(tokenizer="character", chunk_size=size, chunk_overlap=overlap)
    return lambda text: [(c.start_index, c.text) for c in chunker(text)]


PEERS = {"chunklab": chunklab_fixed, "langchain": langchain_fixed, "chonkie": chonkie_fixed}


def best_time(run: Callable[[str], Spans], texts: list[str], repeats: int) -> tuple[float, list[Spans]]:
    best, outputs = float("inf"), []
    for _ in range(repeats):
        start = time.perf_counter()
        outputs = [run(text) for text in texts]
        best = min(best, time.perf_counter() - start)
    return best, outputs


def exact_share(texts: list[str], outputs: list[Spans]) -> float:
    pairs = [(text, start, piece) for text, spans in zip(texts, outputs) for start, piece in spans]
    return sum(text[start : start + len(piece)] == piece for text, start, piece in pairs) / max(len(pairs), 1)


def main(repeats: int = 5) -> None:
    texts = [load_document(name).text for name in list_documents()]
    print(f"corpus: {len(texts)} documents, {sum(map(len, texts)):,} characters; best of {repeats} runs\n")
    print(f"{'size/overlap':>12}  {'library':<10} {'time (ms)':>10} {'vs chunklab':>12} {'exact offsets':>14} {'chunks':>7}")
    for size, overlap in [(200, 0), (400, 50), (1000, 100)]:
        base = None
        for name, make in PEERS.items():
            try:
                run = make(size, overlap)
            except ImportError:
                print(f"{size:>7}/{overlap:<4}  {name:<10} not installed")
                continue
            seconds, outputs = best_time(run, texts, repeats)
            base = base or seconds
            chunks = sum(map(len, outputs))
            print(
                f"{size:>7}/{overlap:<4}  {name:<10} {seconds * 1000:>10.1f} {seconds / base:>11.2f}x "
                f"{exact_share(texts, outputs):>13.1%} {chunks:>7}"
            )
        print()


if __name__ == "__main__":
    main()
