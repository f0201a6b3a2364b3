"""Scaling: the time to chunk 10 MB over the time to chunk 1 MB, for every registered chunker.

A chunker that re-scans the text it has already passed (a search from the start for every chunk, a
list rebuilt for every piece) takes time that grows with the square of the length; one that reads
the text a fixed number of times takes 10 times as long for 10 times as much text. The target
(issue 23) is a ratio of at most 11, CPython's garbage collector included, on every text shape.

Every registered chunker runs with its defaults on the course documents (`shapes`: markdown, prose,
legal text, CSV, a chat, the PDF's text, HTML), and the four chunkers the peer benchmarks compare
(`SHAPED`: fixed, recursive, sentence, token) on every other shape too: one text of exactly the
base size and one of ten times it (`shapes.shape_text`: varied copies joined by blank lines).

Each chunker and shape runs in fresh Python processes (`PROCESSES` of them; the best time of each
size is kept). A process makes a warm-up call on a short text (it loads whatever models the
chunker needs), then times `SMALL_RUNS` calls at the base size and one at ten times it, in that
order, each on a text of its own (other copies: a per-text cache never serves a run), each after a
full collection. (In one long-lived process the results earlier runs leave in the library's
per-text caches stay alive, and every full collection of a later run walks through them: a 1 MB
run after a 10 MB run was up to three times slower. So the large run comes last, and the small
runs leave it little.)

Two ratios are printed. The first, which the verdict reads, is the CPU time as Python runs it. The
second leaves out the time spent in CPython's cyclic garbage collector (timed with
`gc.callbacks`): a full collection walks every live object, and it runs each time the objects that
survived since the last one reach a quarter of those alive, so a 1 MB run, whose objects stay few
next to the interpreter's own, sees none, while a 10 MB run sees several. The GC share at 10x says
how much the collector adds.

* Chunkers with an `embedder` parameter get `HashingEmbedder`: vectors of hashed word counts, cheap
  and linear, so the ratio measures the chunker, not the neural model (whose cost is linear in the
  number of sentences by construction: one batch after another).
* The base size is 1 MB, or 100 KB for a chunker whose first 1 MB run takes more than
  `BUDGET_SECONDS` (a model-based chunker on a shared machine); the table says which.

Run: ``.venv/bin/python benchmarks/bench_scaling.py [chunker[:shape] ...]`` (all by default).
"""

from __future__ import annotations

import gc
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from harness import block_network
from shapes import SHAPES, shape_text

from chunklab import CHUNKERS, Chunker

PROCESSES = 2
SMALL_RUNS = 2
BASE_CHARS = 1_000_000
SMALL_BASE_CHARS = 100_000
BUDGET_SECONDS = 5.0
TARGET = 11.0
#: The chunkers that run on every shape (the others run on the course documents).
SHAPED = ("fixed", "recursive", "sentence", "token")
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
    """One chunker's best runs on one shape at the base size and at ten times it."""

    name: str
    shape: str
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


def timed(chunker: Chunker, text: str) -> Run:
    """One call on `text` after a full collection, with the collector's share timed."""
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


def one_process(name: str, shape: str, seed: int, base: int = 0) -> tuple[int, list[Run], Run]:
    """What one process measures (see the module docstring): the base size (`base`, or chosen by
    the first run's time), its runs, the large run."""
    make_chunker(name)(WARM_UP)
    small = [timed(make_chunker(name), shape_text(shape, base or BASE_CHARS, seed))]
    if not base:
        base = BASE_CHARS
        if small[0].seconds > BUDGET_SECONDS:
            base = SMALL_BASE_CHARS
            small = [timed(make_chunker(name), shape_text(shape, base, seed))]
    small += [timed(make_chunker(name), shape_text(shape, base, seed + k)) for k in range(1, SMALL_RUNS)]
    return base, small, timed(make_chunker(name), shape_text(shape, 10 * base, seed + SMALL_RUNS))


def measure_one(name: str, shape: str, base: int = 0) -> Scaling:
    """The best base-size and ten-times runs of `PROCESSES` fresh processes (`base`: as in
    `one_process`; when the processes chose different base sizes, all run again at the smaller)."""
    bases, small, large = set(), [], []
    for k in range(PROCESSES):
        command = [sys.executable, __file__, "--run", name, shape, str(1000 * k), str(base)]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"{name} on {shape} failed:\n{result.stderr[-2000:]}")
        chosen, *numbers = result.stdout.strip().splitlines()[-1].split()
        runs = [Run(float(s), float(c), int(n)) for s, c, n in zip(numbers[::3], numbers[1::3], numbers[2::3])]
        bases.add(int(chosen))
        small += runs[:-1]
        large.append(runs[-1])
    if len(bases) > 1:
        return measure_one(name, shape, SMALL_BASE_CHARS)
    fastest = lambda runs: min(runs, key=lambda run: run.seconds)  # noqa: E731
    return Scaling(name, shape, bases.pop(), fastest(small), fastest(large))


def pairs(chosen: Sequence[str] = ()) -> list[tuple[str, str]]:
    """Every chunker on the course documents, the `SHAPED` ones on every shape; or the `chosen`
    ones (``name`` for all its shapes, ``name:shape`` for one)."""
    every = [(name, "course") for name in sorted(CHUNKERS)]
    every += [(name, shape) for name in SHAPED for shape in SHAPES if shape != "course"]
    if not chosen:
        return every
    return [(name, shape) for name, shape in every if name in chosen or f"{name}:{shape}" in chosen]


def measure(chosen: Sequence[str] = ()) -> list[Scaling]:
    """The scaling of every pair (see `pairs`)."""
    return [measure_one(name, shape) for name, shape in pairs(chosen)]


def print_scaling(rows: list[Scaling]) -> None:
    print(f"Scaling: CPU time for 10x the text over the time for the base size (target <= {TARGET:g}, garbage "
          f"collection included); best runs of {PROCESSES} fresh processes\n")
    header = (f"  {'chunker':<18} {'shape':<11} {'base':>6} {'time base':>10} {'time 10x':>9} {'ratio':>6} {'':>4} "
              f"{'without GC':>10} {'GC at 10x':>9} {'MB/s at 10x':>11} {'chunks at 10x':>13}")
    print(header)
    print("  " + "-" * (len(header) - 2))
    for row in rows:
        base = f"{row.base_chars / 1e6:g} MB"
        verdict = "ok" if row.ratio <= TARGET else "MISS"
        print(f"  {row.name:<18} {row.shape:<11} {base:>6} {row.small.seconds:>8.2f} s {row.large.seconds:>7.2f} s "
              f"{row.ratio:>6.1f} {verdict:>4} {row.own_ratio:>10.1f} {row.large.collecting / row.large.seconds:>9.0%} "
              f"{10 * row.base_chars / 1e6 / row.large.seconds:>11.1f} {row.large.chunks:>13,}")
    worst = max(rows, key=lambda row: row.ratio, default=None)
    if worst is not None:
        print(f"  worst: {worst.name} on {worst.shape}, {worst.ratio:.1f}")
    print("  ratio: the verdict's, garbage collection included; without GC: the ratio of the times spent outside\n"
          "  CPython's garbage collector; GC at 10x: the collector's share of the 10x run. MB: 10^6 characters\n")


if __name__ == "__main__":
    block_network()
    if sys.argv[1:2] == ["--run"]:
        chars, small, large = one_process(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
        print(chars, " ".join(f"{run.seconds:.6f} {run.collecting:.6f} {run.chunks}" for run in [*small, large]))
    else:
        print_scaling(measure(sys.argv[1:]))
