"""Slider latency: from a parameter change to new HTML in `chunklab.explore.Explorer.render`.

For every registered chunker, on a 50 KB text (`harness.long_text`: the course documents, so
markdown with code and tables first, then prose), as a learner sees it:

1. the first render with the defaults (it loads models, tokenizes, embeds: not held to a target);
2. every slider (integer or float control) moved alone to 20, 40, 60 and 80 % of its range, each
   position rendered `REPEATS` times; the best of those is the position's latency (the machine may
   be shared: the best run is the one no other program interrupted). Chunkers cache models, tokens
   and embeddings per text, not results per parameter, so a repeat does the same work as the first;
3. every dropdown option chosen once (the first choice of an option may load a model, e.g. a
   sentence splitter or a tokenizer: reported, not held to the slider target), then, with that
   option, the size-like slider (the one the browser test drags: `size`, `max_size`, `window`...,
   else the first) moved like the others: ``unit="tokens"`` makes every size a token count.

Targets: a slider move re-renders in at most 50 ms for rule-based chunkers and 150 ms for
model-based ones (`MODEL_BASED`: those that run a neural model or fit a statistical one).

Run: ``.venv/bin/python benchmarks/bench_sliders.py``.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any

from harness import block_network, long_text

from chunklab import CHUNKERS
from chunklab.explore import ControlSpec, Explorer

TEXT_CHARS = 50_000
POSITIONS = (0.2, 0.4, 0.6, 0.8)
REPEATS = 3
#: Chunkers that run a neural model (embeddings, NER) or fit a statistical model (topics).
MODEL_BASED = frozenset({"semantic", "semantic_cluster", "topic", "entity", "late"})
RULE_TARGET, MODEL_TARGET = 0.050, 0.150
#: The sliders the browser test prefers to drag (as in ``tests/e2e/explorer.py``).
SIZE_LIKE = ("size", "chunk_size", "max_size", "max_chars", "max_words", "max_tokens", "window")


@dataclass
class Latency:
    """One chunker's render times in seconds (wall clock)."""

    name: str
    first: float
    moves: list[float]
    dropdown: float | None
    errors: list[str]

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


def timed(explorer: Explorer, **params: Any) -> tuple[float, str]:
    started = time.perf_counter()
    html = explorer.render(**params)
    return time.perf_counter() - started, html


def moves(explorer: Explorer, base: dict[str, Any], names: list[str], out: Latency) -> None:
    """Move each slider in `names` alone (from the values `base`) and record the best of `REPEATS`."""
    for name in names:
        spec = explorer.specs[name]
        for value in slider_values(spec):
            best, html = float("inf"), ""
            for _ in range(REPEATS):
                seconds, html = timed(explorer, **{**base, name: value})
                best = min(best, seconds)
            if "data-error" in html:
                out.errors.append(f"{', '.join(f'{k}={v}' for k, v in base.items())} {name}={value}".strip())
            out.moves.append(best)


def measure_one(name: str, text: str) -> Latency:
    """The first render, every slider move and every dropdown option of one chunker."""
    explorer = Explorer(CHUNKERS[name], text)
    first, _ = timed(explorer)
    out = Latency(name, first, [], None, [])
    sliders = [n for n, spec in explorer.specs.items() if spec.kind in ("int", "float")]
    moves(explorer, {}, sliders, out)
    sized = [n for n in sliders if n in SIZE_LIKE] or sliders[:1]
    for spec in explorer.specs.values():
        if spec.kind != "choice":
            continue
        for option in spec.options:
            if option == spec.value:
                continue
            seconds, _ = timed(explorer, **{spec.name: option})
            out.dropdown = max(out.dropdown or 0.0, seconds)
            moves(explorer, {spec.name: option}, sized, out)
    return out


def measure() -> list[Latency]:
    """Latencies of every registered chunker, in name order."""
    text = long_text(TEXT_CHARS)
    return [measure_one(name, text) for name in sorted(CHUNKERS)]


def print_latencies(rows: list[Latency]) -> None:
    print(f"Slider latency: Explorer.render after a parameter change, {TEXT_CHARS // 1000} KB text, "
          f"wall clock, best of {REPEATS} per slider position\n")
    header = (f"  {'chunker':<18} {'kind':<6} {'first render':>12} {'moves':>6} {'median':>8} {'max':>8} "
              f"{'target':>7} {'':>4} {'dropdown':>9}")
    print(header)
    print("  " + "-" * (len(header) - 2))
    for row in rows:
        kind = "model" if row.name in MODEL_BASED else "rule"
        median = statistics.median(row.moves) if row.moves else None
        worst = max(row.moves) if row.moves else None
        verdict = "-" if worst is None else ("ok" if worst <= row.target else "MISS")
        cells = [f"{v * 1000:>6.1f} ms" if v is not None else f"{'-':>9}" for v in (median, worst)]
        dropdown = f"{row.dropdown * 1000:>6.0f} ms" if row.dropdown is not None else f"{'-':>9}"
        print(f"  {row.name:<18} {kind:<6} {row.first * 1000:>9.0f} ms {len(row.moves):>6} {cells[0]:>8} "
              f"{cells[1]:>8} {row.target * 1000:>4.0f} ms {verdict:>4} {dropdown}")
        if row.errors:
            print(f"  {'':<18} positions that render a parameter error: {', '.join(row.errors)}")
    print("  median/max: over every slider moved to 20/40/60/80 % of its range, and the size-like slider again "
          "under each dropdown option; dropdown: slowest first choice of an option (may load a model; no target)\n")


if __name__ == "__main__":
    block_network()
    print_latencies(measure())
