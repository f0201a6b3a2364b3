"""Slider latency: from a parameter change to new HTML in `chunklab.viz.explorer.Explorer.render`.

For every registered chunker, on a 50 KB text (`shapes.shape_text` of the course documents: a few
of them, markdown, prose, CSV or HTML, in a seeded order), as a learner sees it:

1. the first render with the defaults (it loads models, tokenizes, embeds: not held to a target);
2. every slider (integer or float control) moved alone to 20, 40, 60 and 80 % of its range;
3. every other option of every dropdown chosen once, through the explorer as the dropdown does it
   (`Explorer.change`: the size sliders take their ranges in the new unit, measured on the text;
   the first choice of an option may load a model, a sentence splitter or a tokenizer: reported,
   not held to the slider target), and with that option every slider moved again over its range
   in that state: ``unit="tokens"`` makes every size a token count, and a topic model's number of
   topics only matters once ``method`` names a topic model.

Every position is rendered once, as a drag reaches it: a value seen for the first time, so a cache
keyed by parameters (a topic model fitted for 7 topics) is filled, not read. Each render is timed
in CPU seconds of this process (`time.process_time`) and in wall-clock seconds; the verdict reads
the CPU time, which another program's load on a shared machine barely moves, and which on an idle
machine is what the learner waits (more, not less, where a library computes on two threads).

Targets: a slider move re-renders in at most 50 ms for rule-based chunkers and 150 ms for
model-based ones (`MODEL_BASED`: those that run a neural model or fit a statistical one).

Run: ``.venv/bin/python benchmarks/bench_sliders.py``.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from harness import block_network
from shapes import shape_text

from chunklab import CHUNKERS
from chunklab.viz.explorer import ControlSpec, Explorer

TEXT_CHARS = 50_000
POSITIONS = (0.2, 0.4, 0.6, 0.8)
#: Chunkers that run a neural model (embeddings, NER) or fit a statistical model (topics).
MODEL_BASED = frozenset({"semantic", "semantic_cluster", "topic", "entity", "late"})
RULE_TARGET, MODEL_TARGET = 0.050, 0.150


@dataclass
class Latency:
    """One chunker's render times in seconds: the first render, every slider move (CPU and wall
    clock), the slowest first choice of a dropdown option, and the moves that render an error."""

    name: str
    first: float
    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    dropdown: float | None = None
    errors: list[str] = field(default_factory=list)
    slowest: str = ""

    @property
    def target(self) -> float:
        return MODEL_TARGET if self.name in MODEL_BASED else RULE_TARGET


def slider_values(spec: ControlSpec) -> list[Any]:
    """The positions a slider is moved to: `POSITIONS` of its range, on its step, without the start."""
    values = []
    for share in POSITIONS:
        value = spec.low + share * (spec.high - spec.low)
        if spec.step:
            value = spec.low + round((value - spec.low) / spec.step) * spec.step
        value = int(value) if spec.kind == "int" else float(value)
        if value != spec.value and value not in values:
            values.append(value)
    return values


def timed(explorer: Explorer, **params: Any) -> tuple[float, float, str]:
    """CPU seconds, wall seconds and the HTML of one render."""
    cpu, wall = time.process_time(), time.perf_counter()
    html = explorer.render(**params)
    return time.process_time() - cpu, time.perf_counter() - wall, html


def move_sliders(explorer: Explorer, base: dict[str, Any], out: Latency) -> None:
    """Move each slider alone to each of its positions (its range in the explorer's current state),
    the other parameters where the explorer has them; `base` names the dropdown choice made."""
    for name, spec in explorer.specs.items():
        if spec.kind not in ("int", "float"):
            continue
        for value in slider_values(spec):
            cpu, wall, html = timed(explorer, **{name: value})
            where = " ".join(f"{k}={v}" for k, v in {**base, name: value}.items())
            if "data-error" in html:
                out.errors.append(where)
            if cpu > max(out.cpu, default=0.0) and cpu > out.target:
                out.slowest = f"{where} ({cpu * 1000:.0f} ms CPU)"
            out.cpu.append(cpu)
            out.wall.append(wall)


def measure_one(name: str, text: str) -> Latency:
    """The first render, then every slider with the defaults and under every other dropdown option."""
    explorer = Explorer(CHUNKERS[name], text)
    out = Latency(name, timed(explorer)[1])
    move_sliders(explorer, {}, out)
    for spec in explorer.specs.values():
        if spec.kind != "choice":
            continue
        for option in spec.options:
            if option != spec.value:
                chosen = Explorer(CHUNKERS[name], text)
                wall = time.perf_counter()
                chosen.change(spec.name, option)
                chosen.render()
                out.dropdown = max(out.dropdown or 0.0, time.perf_counter() - wall)
                move_sliders(chosen, {spec.name: option}, out)
    return out


def measure() -> list[Latency]:
    """Latencies of every registered chunker, in name order."""
    text = shape_text("course", TEXT_CHARS)
    return [measure_one(name, text) for name in sorted(CHUNKERS)]


def print_latencies(rows: list[Latency]) -> None:
    print(f"Slider latency: Explorer.render after a parameter change, {TEXT_CHARS // 1000} KB text, "
          "every position rendered once\n")
    header = (f"  {'chunker':<18} {'kind':<6} {'first render':>12} {'moves':>6} {'median CPU':>11} {'max CPU':>9} "
              f"{'target':>7} {'':>4} {'max wall':>9} {'dropdown':>9}")
    print(header)
    print("  " + "-" * (len(header) - 2))
    for row in rows:
        kind = "model" if row.name in MODEL_BASED else "rule"
        if row.cpu:
            worst = max(row.cpu)
            verdict = "ok" if worst <= row.target else "MISS"
            cells = f"{statistics.median(row.cpu) * 1000:>8.1f} ms {worst * 1000:>6.1f} ms"
            wall = f"{max(row.wall) * 1000:>6.0f} ms"
        else:
            verdict, cells, wall = "-", f"{'-':>11} {'-':>9}", f"{'-':>9}"
        dropdown = f"{row.dropdown * 1000:>6.0f} ms" if row.dropdown is not None else f"{'-':>9}"
        print(f"  {row.name:<18} {kind:<6} {row.first * 1000:>9.0f} ms {len(row.cpu):>6} {cells} "
              f"{row.target * 1000:>4.0f} ms {verdict:>4} {wall} {dropdown}")
        if row.slowest:
            print(f"  {'':<18} slowest: {row.slowest}")
        if row.errors:
            shown = "; ".join(row.errors[:2]) + (f"; and {len(row.errors) - 2} more" if len(row.errors) > 2 else "")
            print(f"  {'':<18} {len(row.errors)} positions show a parameter error (as they should): {shown}")
    print("  moves: every slider at 20/40/60/80 % of its range, with the defaults and under each other dropdown option;"
          "\n  first render and dropdown (the slowest first choice of an option; it may load a model): wall clock,"
          " no target\n")


if __name__ == "__main__":
    block_network()
    print_latencies(measure())
