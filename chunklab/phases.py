"""Where a run's time goes: wall seconds spent in named phases (embedding, chunking, retrieval).

`phase(name)` is a context manager around a piece of work; time spent in a phase nested inside
another counts for the inner one only, so the phases of one run add up to no more than its wall
time. `phase_seconds()` returns the totals so far. When the environment variable
``CHUNKLAB_PHASES`` names a file, every process appends one JSON line with its totals to it when
it exits: that is how ``benchmarks/bench_course.py`` learns, for a notebook run in its own kernel,
how much of the wall time was embedding, chunking and retrieval. Timing costs two clock reads per
phase; nothing is written unless the variable is set.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import time
from collections import defaultdict
from collections.abc import Iterator

__all__ = ["phase", "phase_seconds", "read_report"]

_TOTALS: defaultdict[str, float] = defaultdict(float)
_STACK: list[list[float]] = []  # per open phase: [start, seconds spent in nested phases]


@contextlib.contextmanager
def phase(name: str) -> Iterator[None]:
    """Count the wall time of the block under `name`, less the time of phases nested inside it."""
    _STACK.append([time.perf_counter(), 0.0])
    try:
        yield
    finally:
        start, nested = _STACK.pop()
        elapsed = time.perf_counter() - start
        _TOTALS[name] += elapsed - nested
        if _STACK:
            _STACK[-1][1] += elapsed


def phase_seconds() -> dict[str, float]:
    """Seconds spent in each phase so far in this process (nested time counted once, innermost)."""
    return dict(_TOTALS)


def read_report(path: str | os.PathLike[str]) -> dict[str, float]:
    """The seconds per phase that every process appended to the ``CHUNKLAB_PHASES`` file `path`,
    summed over the processes ({} when the file does not exist)."""
    totals: dict[str, float] = {}
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as report:
            for line in report:
                for name, seconds in json.loads(line)["seconds"].items():
                    totals[name] = totals.get(name, 0.0) + seconds
    return totals


def _report() -> None:
    target = os.environ.get("CHUNKLAB_PHASES")
    if target and _TOTALS:
        with open(target, "a", encoding="utf-8") as out:
            out.write(json.dumps({"pid": os.getpid(), "seconds": phase_seconds()}) + "\n")


atexit.register(_report)
