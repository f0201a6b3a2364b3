"""`make bench`: every benchmark in one run: chunklab against its peers on every text shape (one
table per family and setting, a column per shape, the worst shape and the target), then the
scaling table and the slider latencies.

Each part is a script of its own (run one alone for its detailed docstring and output):

* peers: `bench_fixed`, `bench_recursive`, `bench_sentence` (which first times the regex sentence
  splitter against pySBD), `bench_token`, `bench_semantic`, each on the shapes of `shapes`
  (`bench_semantic` on the course's prose only);
* `bench_chunks`: what making a `Chunk` costs, part by part;
* `bench_scaling`: 1 MB against 10 MB for every registered chunker, and on every shape for the
  chunkers the peer benchmarks compare;
* `bench_sliders`: a parameter change to new HTML in the explorer, for every registered chunker.

Run: ``.venv/bin/python benchmarks/run_all.py [part ...]`` (parts by the names above without
``bench_``, e.g. ``recursive scaling``; all by default). The machine and the shapes are described
first, because absolute numbers mean nothing without them; the ratios are what carry over to
another machine. Every target met or missed is listed again at the end, worst shape first. The
course's own running time is measured by ``bench_course.py`` (``make bench-course``), which takes
far longer.
"""

from __future__ import annotations

import os
import platform
import sys
import time

import bench_chunks
import bench_fixed
import bench_recursive
import bench_scaling
import bench_semantic
import bench_sentence
import bench_sliders
import bench_token
from harness import Row, block_network, print_shapes
from shapes import SHAPES, describe

PEERS = {
    "fixed": bench_fixed,
    "recursive": bench_recursive,
    "sentence": bench_sentence,
    "token": bench_token,
    "semantic": bench_semantic,
}
PARTS = ("chunks", *PEERS, "scaling", "sliders")


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


def print_targets(rows: list[Row], scaling: list[bench_scaling.Scaling]) -> None:
    """Every target, met or missed, on its worst shape, misses first and the worst of them first."""
    verdicts = []
    for row in rows:
        base = next((r for r in rows if r.baseline and (r.family, r.setting, r.shape) == (row.family, row.setting, row.shape)), None)
        if row.target is None or row.seconds is None or base is None or not base.seconds:
            continue
        ratio = row.seconds / base.seconds
        verdicts.append((ratio / row.target, f"{row.family} / {row.setting}", f"against {row.library}", row.shape,
                         f"{ratio:.2f}x", f">= {row.target:g}"))
    for scale in scaling:
        verdicts.append((bench_scaling.TARGET / scale.ratio, "scaling", scale.name, scale.shape, f"{scale.ratio:.1f}",
                         f"<= {bench_scaling.TARGET:g}"))
    worst: dict[tuple[str, str], tuple] = {}
    for verdict in verdicts:
        key = verdict[1:3]
        if key not in worst or verdict[0] < worst[key][0]:
            worst[key] = verdict
    if not worst:
        return
    print("Targets on their worst shape (misses first)\n")
    for share, where, what, shape, value, target in sorted(worst.values()):
        print(f"  {'MISS' if share < 1 else 'ok':<5} {where:<36} {what:<46} {shape:<11} {value:>7}  target {target}")
    print()


def main(parts: list[str]) -> None:
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        raise SystemExit(f"unknown part(s) {unknown}; choose from {list(PARTS)}")
    chosen = parts or list(PARTS)
    started = time.time()
    print(f"machine: {describe_machine()}\n")
    print("text shapes (benchmarks/shapes.py):")
    for shape in SHAPES:
        print(f"  {describe(shape)}")
    print()
    if "chunks" in chosen:
        bench_chunks.print_parts(bench_chunks.measure())
    rows: list[Row] = []
    for name in (p for p in PEERS if p in chosen):
        print(f"measuring {name} ...", flush=True)
        rows += PEERS[name].measure()
    if rows:
        print()
        print_shapes(rows, "chunklab against its peers, per text shape (CPU time, best of interleaved rounds)")
    scaling = bench_scaling.measure() if "scaling" in chosen else []
    if scaling:
        bench_scaling.print_scaling(scaling)
    if "sliders" in chosen:
        bench_sliders.print_latencies(bench_sliders.measure())
    print_targets(rows, scaling)
    print(f"benchmarks took {time.time() - started:.0f} s of wall time")


if __name__ == "__main__":
    block_network()
    main(sys.argv[1:])
