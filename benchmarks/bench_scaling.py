"""Scaling: the time to chunk 10 MB over the time to chunk 1 MB, for every registered chunker.

A chunker that re-scans the text it has already passed (a search from the start for every chunk, a
list rebuilt for every piece) takes time that grows with the square of the length; one that reads
the text a fixed number of times takes 10 times as long for 10 times as much text. The target is a
ratio of at most 12.

For every chunker in `chunklab.CHUNKERS`, with its defaults, on texts built by `harness.long_text`
(the course documents, varied and joined: markdown, prose, legal text, CSV, a chat, the PDF's text,
HTML): the best CPU time of `ROUNDS` runs at the base size and of `ROUNDS` runs at ten times it.
Every run is a first run: it happens in a fresh Python process, on a text of its own (different
copies of the documents), after a warm-up call on a short text that loads whatever models the
chunker needs. (In one long-lived process, the results earlier runs left in the library's per-text
caches stay alive, and every full garbage collection of a later run walks through them: the same
1 MB run was up to three times slower after a 10 MB run.)

Two ratios are printed. The first is the CPU time as Python runs it. The second leaves out the time
spent in CPython's cyclic garbage collector (timed with `gc.callbacks`): a full collection walks every
live object, and it runs each time the objects that survived since the last one reach a quarter of
those alive, so a 1 MB run, whose objects stay few next to the interpreter's own, sees none, while a
10 MB run sees several. That cost grows in proportion to the live objects (it is linear in the long
run), but it shows up between 1 and 10 MB as a ratio above 10 that says nothing about re-scans. The
verdict reads the second ratio; the GC share at 10x says how much the collector adds.

* Chunkers with an `embedder` parameter get `HashingEmbedder`: vectors of hashed word counts, cheap
  and linear, so the ratio measures the chunker, not the neural model (whose cost is linear in the
  number of sentences by construction: one batch after another).
* The base size is 1 MB, or 100 KB for a chunker whose first 1 MB run takes more than
  `BUDGET_SECONDS` (a model-based chunker on a shared machine); the table says which.

Run: ``.venv/bin/python benchmarks/bench_scaling.py``.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from harness import block_network, long_text

from chunklab import CHUNKERS, Chunker

ROUNDS = 2
BASE_CHARS = 1_000_000
SMALL_BASE_CHARS = 100_000
BUDGET_SECONDS = 5.0
TARGET = 12.0
WARM_UP = "A short warm-up text. It loads what the chunker needs.\n\n# A heading\n\nA second paragraph."


class HashingEmbedder:
    """Texts to unit vectors of hashed word counts (scikit-learn's `HashingVectorizer`): no fitting,
    no model, time linear in the text."""

    def __init__(self, dim: int = 384) -> None:
        from sklearn.feature_extraction.text import HashingVectorizer

        self.vectorizer = HashingVectorizer(n_features=dim, alternate_sign=False, norm="l2", dtype=np.float32)

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        return self.vectorizer.transform(list(texts)).toarray()


@dataclass
class Run:
    """One timed call: CPU seconds, of which seconds in the garbage collector, and chunks made."""

    seconds: float
    collecting: float
    chunks: int

    @property
    def own(self) -> float:
        """Seconds outside the garbage collector."""
        return self.seconds - self.collecting


@dataclass
class Scaling:
    """One chunker's best runs at the base size and at ten times it."""

    name: str
    base_chars: int
    small: Run
    large: Run

    @property
    def ratio(self) -> float:
        return self.large.seconds / self.small.seconds

    @property
    def own_ratio(self) -> float:
        return self.large.own / self.small.own


def make_chunker(name: str) -> Chunker:
    """The chunker with its defaults, and a fresh `HashingEmbedder` if it takes an embedder."""
    cls = CHUNKERS[name]
    params: dict[str, Any] = {}
    if "embedder" in cls.param_specs():
        params["embedder"] = HashingEmbedder()
    return cls(**params)


def one_run(name: str, chars: int, first: int) -> Run:
    """One timed call in this process, after a warm-up call and a full collection."""
    make_chunker(name)(WARM_UP)
    text = long_text(chars, first=first)
    chunker = make_chunker(name)
    collecting, began = [0.0], [0.0]

    def clock(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            began[0] = time.process_time()
        else:
            collecting[0] += time.process_time() - began[0]

    gc.collect()
    gc.callbacks.append(clock)
    started = time.process_time()
    chunks = len(chunker(text))
    seconds = time.process_time() - started
    gc.callbacks.remove(clock)
    return Run(seconds, collecting[0], chunks)


def best_run(name: str, chars: int, rounds: int, first: int) -> Run:
    """The fastest of `rounds` runs, each in a fresh process on a text of its own."""
    runs = []
    for k in range(rounds):
        command = [sys.executable, __file__, "--run", name, str(chars), str(first + 1000 * k)]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"{name} at {chars:,} characters failed:\n{result.stderr[-2000:]}")
        seconds, collecting, chunks = result.stdout.split()[-3:]
        runs.append(Run(float(seconds), float(collecting), int(chunks)))
    return min(runs, key=lambda run: run.seconds)


def measure_one(name: str, rounds: int = ROUNDS) -> Scaling:
    """Base-size and ten-times runs of one chunker (the base shrinks if 1 MB is over budget)."""
    base = BASE_CHARS
    small = best_run(name, base, 1, first=0)
    if small.seconds > BUDGET_SECONDS:
        base = SMALL_BASE_CHARS
        small = best_run(name, base, rounds, first=100)
    elif rounds > 1:
        small = min(small, best_run(name, base, rounds - 1, first=100), key=lambda run: run.seconds)
    return Scaling(name, base, small, best_run(name, 10 * base, rounds, first=200))


def measure(rounds: int = ROUNDS) -> list[Scaling]:
    """Every registered chunker, in name order."""
    return [measure_one(name, rounds) for name in sorted(CHUNKERS)]


def print_scaling(rows: list[Scaling]) -> None:
    print(f"Scaling: CPU time for 10x the text over the time for the base size (target <= {TARGET:g}); "
          f"best of {ROUNDS} runs, each a first run in a fresh process\n")
    header = (f"  {'chunker':<18} {'base':>6} {'time base':>10} {'time 10x':>9} {'ratio':>6} "
              f"{'without GC':>10} {'':>4} {'GC at 10x':>9} {'MB/s at 10x':>11} {'chunks at 10x':>13}")
    print(header)
    print("  " + "-" * (len(header) - 2))
    for row in rows:
        base = f"{row.base_chars / 1e6:g} MB"
        verdict = "ok" if row.own_ratio <= TARGET else "MISS"
        print(f"  {row.name:<18} {base:>6} {row.small.seconds:>8.2f} s {row.large.seconds:>7.2f} s {row.ratio:>6.1f} "
              f"{row.own_ratio:>10.1f} {verdict:>4} {row.large.collecting / row.large.seconds:>9.0%} "
              f"{10 * row.base_chars / 1e6 / row.large.seconds:>11.1f} {row.large.chunks:>13,}")
    print("  without GC: the ratio of the times spent outside CPython's garbage collector (the verdict reads it);\n"
          "  GC at 10x: the collector's share of the 10x run. MB: 10^6 characters (mostly ASCII)\n")


if __name__ == "__main__":
    block_network()
    if sys.argv[1:2] == ["--run"]:
        run = one_run(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        print(f"{run.seconds:.6f} {run.collecting:.6f} {run.chunks}")
    else:
        print_scaling(measure())
