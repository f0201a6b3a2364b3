"""`make bench`: every benchmark in one run, printed as one table of chunklab against its peers, then the
scaling table and the slider latencies.

Each part is a script of its own (run one alone for its detailed docstring and output):

* peers: `bench_fixed`, `bench_recursive`, `bench_sentence` (which first times the regex sentence
  splitter against pySBD), `bench_token`, `bench_semantic`;
* `bench_scaling`: 1 MB against 10 MB for every registered chunker;
* `bench_sliders`: a parameter change to new HTML in the explorer, for every registered chunker.

Run: ``.venv/bin/python benchmarks/run_all.py [part ...]`` (parts by the names above without
``bench_``, e.g. ``recursive scaling``; all by default). The machine is described first, because
absolute numbers mean nothing without it; the ratios are what carry over to another machine. The
course's own running time is measured by ``bench_course.py`` (``make bench-course``), which takes
far longer.
"""

from __future__ import annotations

import os
import platform
import sys
import time

import bench_fixed
import bench_recursive
import bench_scaling
import bench_semantic
import bench_sentence
import bench_sliders
import bench_token
from harness import block_network, print_rows

PEERS = {
    "fixed": bench_fixed,
    "recursive": bench_recursive,
    "sentence": bench_sentence,
    "token": bench_token,
    "semantic": bench_semantic,
}
PARTS = (*PEERS, "scaling", "sliders")


def describe_machine() -> str:
    """CPU model, cores, load and Python, in one line."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), model)
    except OSError:
        pass
    load = " ".join(f"{v:.1f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    return (f"{model}, {os.cpu_count()} cores, load average {load}; Python {platform.python_version()} "
            f"on {platform.system()}")


def main(parts: list[str]) -> None:
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        raise SystemExit(f"unknown part(s) {unknown}; choose from {list(PARTS)}")
    chosen = parts or list(PARTS)
    started = time.time()
    print(f"machine: {describe_machine()}\n")
    rows = []
    for name in (p for p in PEERS if p in chosen):
        print(f"measuring {name} ...", flush=True)
        rows += PEERS[name].measure()
    if rows:
        print()
        print_rows(rows, "chunklab against its peers: throughput (MB of UTF-8 per CPU second) and ratios\n")
    if "scaling" in chosen:
        bench_scaling.print_scaling(bench_scaling.measure())
    if "sliders" in chosen:
        bench_sliders.print_latencies(bench_sliders.measure())
    print(f"benchmarks took {time.time() - started:.0f} s of wall time")


if __name__ == "__main__":
    block_network()
    main(sys.argv[1:])
