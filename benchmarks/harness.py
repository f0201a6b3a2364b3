"""What every benchmark script shares: interleaved CPU timing, result rows, and the per-shape table.

* **Texts.** The peer comparisons run on every text shape of `shapes` (the course documents,
  prose, markdown, code, docstrings, chat, CSV, one line-free text), each contender on the same
  texts, so that a ratio is claimed only where it holds on text nobody tuned on.
* **Timing.** `time_interleaved` runs every contender once per round, round after round, and keeps
  each one's best CPU time (`time.process_time`): on a shared machine another program's load slows
  whichever contender happens to run, so interleaving spreads it and the minimum discards it; CPU
  time is disturbed far less than wall time. Every round chunks texts of its own
  (`shapes.shape_corpora`: same shape and size, other copies, never read by an earlier round or
  setting), so a chunker that caches its work per text (sentences, tokens, parses: what makes a
  slider fast) never serves one round from another: every round is a first reading, as in a
  pipeline that chunks each document once. Ratios between contenders measured in the same run are
  what the scripts report; absolute times depend on the machine.
* **Rows.** Every peer comparison returns `Row`s, one per contender, setting and shape;
  `print_shapes` prints, per family and setting, each contender's ratio to chunklab on every shape
  (above 1: chunklab is faster), the worst shape, the target, and how many chunks have exact
  offsets or really overlap their neighbour.
* **Offline.** `block_network` makes any attempt to open a connection fail, so a peer that would
  download a model at run time is reported as skipped instead of quietly fetching it.
"""

from __future__ import annotations

import logging
import socket
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from shapes import SHAPES, shape_corpora

from chunklab import CHUNKERS

__all__ = [
    "Output",
    "Row",
    "block_network",
    "exact_share",
    "main",
    "megabytes",
    "overlapping_share",
    "peer",
    "print_shapes",
    "registered",
    "rows_for",
    "time_interleaved",
]

# LangChain logs a warning for every chunk longer than the size it was asked for; the benchmark
# counts chunks, it does not need thousands of log lines.
logging.getLogger("langchain_text_splitters").setLevel(logging.ERROR)

#: What a contender returns for one text: ``(reported start offset or None, chunk text)`` per chunk.
Output = list[tuple[int | None, str]]


def megabytes(texts: Iterable[str]) -> float:
    """Size of `texts` in MB (10^6 bytes) of UTF-8."""
    return sum(len(text.encode("utf-8")) for text in texts) / 1e6


def time_interleaved(
    runs: dict[str, Callable[[str], Any]], rounds: Sequence[Sequence[str]]
) -> tuple[dict[str, float], dict[str, list[Any]]]:
    """Best CPU seconds of each run over a round's texts, and each run's outputs in the last round.

    Round ``k`` gives every contender, in turn, the texts ``rounds[k]``; so a burst of load
    elsewhere on the machine cannot fall on one contender only.
    """
    best = {label: float("inf") for label in runs}
    outputs: dict[str, list[Any]] = {}
    for texts in rounds:
        for label, run in runs.items():
            started = time.process_time()
            outputs[label] = [run(text) for text in texts]
            best[label] = min(best[label], time.process_time() - started)
    return best, outputs


def exact_share(texts: Sequence[str], outputs: Sequence[Output]) -> float | None:
    """Share of chunks whose reported start offset points at their text (None: no offsets reported)."""
    triples = [(text, start, piece) for text, out in zip(texts, outputs) for start, piece in out]
    if not triples or triples[0][1] is None:
        return None
    return sum(text[start : start + len(piece)] == piece for text, start, piece in triples) / len(triples)


def overlapping_share(outputs: Sequence[Output]) -> float | None:
    """Share of neighbouring chunk pairs that share text: by offsets when reported, else by a shared
    affix (the end of one chunk begins the next)."""
    pairs = shared = 0
    for out in outputs:
        for (a_start, a), (b_start, b) in zip(out, out[1:]):
            pairs += 1
            if a_start is not None and b_start is not None:
                shared += b_start < a_start + len(a)
            else:
                shared += any(a.endswith(b[:k]) for k in range(1, min(len(a), len(b)) + 1))
    return shared / pairs if pairs else None


@dataclass
class Row:
    """One contender in one setting of a peer comparison, on one text shape.

    `seconds` is None when the contender was skipped (`note` says why). `baseline` marks the chunklab
    row the ratios of its setting and shape are computed against; `target` is the least ratio (peer
    time over chunklab time) the issue asks of chunklab against this row, if any.
    """

    family: str
    setting: str
    library: str
    seconds: float | None
    megabytes: float
    chunks: int = 0
    exact: float | None = None
    overlapping: float | None = None
    baseline: bool = False
    target: float | None = None
    note: str = ""
    shape: str = "course"

    @property
    def throughput(self) -> float | None:
        """MB of text per CPU second."""
        return self.megabytes / self.seconds if self.seconds else None


def registered(name: str, **params: Any) -> Callable[[str], Output] | str:
    """A run of the registered chunker `name` built with `params` (`Chunk` objects, as a pipeline gets
    them), or why it cannot run: not registered yet, or without one of these parameters."""
    cls = CHUNKERS.get(name)
    if cls is None:
        return f"no chunker named {name!r} is registered yet"
    unknown = sorted(set(params) - set(cls.param_specs()))
    if unknown:
        return f"chunklab's {name!r} chunker has no parameter(s) {unknown}"
    chunker = cls(**params)
    return lambda text: [(c.start, c.text) for c in chunker(text)]


def peer(make: Callable[..., Callable[[str], Output] | str], *args: Any) -> Callable[[str], Output] | str:
    """``make(*args)``: a peer's run (or the reason it is skipped), or, when the peer's package is
    missing, the reason with the command that installs it."""
    try:
        return make(*args)
    except ImportError as error:
        return f"not installed ({error.name}): pip install -r benchmarks/requirements.txt"


def rows_for(
    family: str,
    setting: str,
    runs: dict[str, Callable[[str], Output] | str],
    shape: str,
    chars: int,
    rounds: int,
    baseline: str,
    targets: dict[str, float] | None = None,
    overlap: bool = False,
    texts: Sequence[Sequence[str]] | None = None,
) -> list[Row]:
    """Time the `runs` (a string instead of a callable: skipped, with that reason) over `rounds`
    corpora of `shape` of `chars` characters each (`shapes.shape_corpora`), or over the given
    `texts` of each round, and describe them as rows; `baseline` names the chunklab run, `targets`
    the least ratio asked against some peers. When the baseline cannot run (its chunker is not
    registered yet), no peer is timed.
    """
    if not callable(runs.get(baseline)):
        runs = {label: run if label == baseline else "nothing to compare with: chunklab's row cannot run"
                for label, run in runs.items()}
    live = {label: run for label, run in runs.items() if callable(run)}
    rounds_texts = texts if texts is not None else shape_corpora(shape, chars, rounds)
    last = rounds_texts[-1]
    best, outputs = time_interleaved(live, rounds_texts) if live else ({}, {})
    size = megabytes(last)
    rows = []
    for label, run in runs.items():
        row = Row(family, setting, label, None, size, baseline=label == baseline, target=(targets or {}).get(label),
                  shape=shape)
        if not callable(run):
            row.note = run
        else:
            out = outputs[label]
            row.seconds, row.chunks = best[label], sum(map(len, out))
            row.exact = exact_share(last, out)
            row.overlapping = overlapping_share(out) if overlap else None
        rows.append(row)
    return rows


def print_shapes(rows: Sequence[Row], title: str = "") -> None:
    """Per family and setting: chunklab's throughput on every shape, then each contender's ratio to
    chunklab on every shape (above 1: chunklab is faster), the worst shape for chunklab, and the
    target with its verdict on that worst shape."""
    if title:
        print(title)
    present = [shape for shape in SHAPES if any(row.shape == shape for row in rows)]
    groups: dict[tuple[str, str], dict[str, dict[str, Row]]] = {}
    for row in rows:
        groups.setdefault((row.family, row.setting), {}).setdefault(row.library, {})[row.shape] = row
    width = 46
    header = (f"  {'':<{width}}" + "".join(f"{shape[:10]:>11}" for shape in present)
              + f"  {'worst shape':<20} {'target':<11} {'exact':>5} {'overlap':>7}")
    for (family, setting), contenders in groups.items():
        print(f"\n  {family} / {setting}")
        print(header)
        base = {shape: row for by_shape in contenders.values() for shape, row in by_shape.items() if row.baseline}
        for library, by_shape in contenders.items():
            cells, ratios, notes = [], {}, set()
            for shape in present:
                row, ref = by_shape.get(shape), base.get(shape)
                if row is None or row.seconds is None:
                    cells.append(f"{'-':>11}")
                    notes.update([row.note] if row is not None else [])
                elif row.baseline:
                    cells.append(f"{row.throughput:>8.3g} MB/s"[-11:].rjust(11))
                elif ref is not None and ref.seconds:
                    ratios[shape] = row.seconds / ref.seconds
                    cells.append(f"{ratios[shape]:>10.2f}x")
                else:
                    cells.append(f"{'-':>11}")
            label = f"{library} (MB/s)" if any(r.baseline for r in by_shape.values()) else library
            worst = target = ""
            if ratios:
                shape = min(ratios, key=ratios.get)
                worst = f"{shape} {ratios[shape]:.2f}x"
                goal = next((r.target for r in by_shape.values() if r.target is not None), None)
                if goal is not None:
                    target = f">={goal:g} {'ok' if ratios[shape] >= goal else 'MISS'}"
            exact, overlap = (_least([getattr(r, name) for r in by_shape.values()]) for name in ("exact", "overlapping"))
            print(f"  {label[:width]:<{width}}" + "".join(cells) + f"  {worst:<20} {target:<11} {exact:>5} {overlap:>7}")
            for note in sorted(notes):
                print(f"  {'':<{width}}  skipped: {note}")
    print("\n  MB/s: chunklab's MB of UTF-8 per CPU second; NNx: the contender's CPU time over chunklab's on that"
          " shape (above 1: chunklab is faster);\n  worst shape: the shape where chunklab's lead is smallest;"
          " exact: the least share, over shapes, of chunks whose start offset points at their text;\n  overlap: the"
          " least share, over shapes, of neighbouring chunks that share text (settings with overlap)\n")


def _least(shares: Sequence[float | None]) -> str:
    """The smallest of the known `shares` as a percentage, or "-"."""
    known = [share for share in shares if share is not None]
    return f"{min(known):.0%}" if known else "-"


def main(measure: Callable[[], list[Row]], title: str) -> None:
    """What a peer script does when run: the network off, its rows measured and printed per shape."""
    block_network()
    print_shapes(measure(), title)
def block_network() -> None:
    """Make every socket connection or name lookup in this process fail (peers must not download)."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OSError("network access attempted during a benchmark (chunklab benchmarks run offline)")

    socket.socket.connect = refuse  # type: ignore[method-assign]
    socket.socket.connect_ex = refuse  # type: ignore[method-assign]
    socket.create_connection = refuse  # type: ignore[assignment]
    socket.getaddrinfo = refuse  # type: ignore[assignment]
