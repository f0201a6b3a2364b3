"""What every benchmark script shares: the benchmark corpus, interleaved CPU timing, and result rows.

* **Corpus.** `build_corpus` makes a corpus of several MB from the course documents: each copy has its
  paragraphs shuffled with a seeded generator and every number shifted by the copy's index, so the
  text repeats as real corpora do (boilerplate, templates) without being one string over and over.
  `long_text` joins such copies into one text of an exact length (the scaling benchmark).
* **Timing.** `time_interleaved` runs every contender once per round, round after round, and keeps
  each one's best CPU time (`time.process_time`): on a shared machine another program's load slows
  whichever contender happens to run, so interleaving spreads it and the minimum discards it; CPU
  time is disturbed far less than wall time. Every round chunks a corpus of its own (`corpora`:
  same documents and size, other shuffles and numbers, never used by an earlier round or setting),
  so a chunker that caches its work per text (sentences, tokens, parses: what makes a slider fast)
  never serves one round from another: every round is a first reading, as in a pipeline that
  chunks each document once. Ratios between contenders measured in the same run are what the
  scripts report; absolute times depend on the machine.
* **Rows.** Every peer comparison returns `Row`s; `print_rows` prints them with throughput (MB/s of
  UTF-8 text) and the ratio to chunklab (above 1: chunklab is faster), and `run_all.py` prints all
  scripts' rows as one table.
* **Offline.** `block_network` makes any attempt to open a connection fail, so a peer that would
  download a model at run time is reported as skipped instead of quietly fetching it.
"""

from __future__ import annotations

import itertools
import logging
import random
import re
import socket
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from chunklab import CHUNKERS, list_documents, load_document

__all__ = [
    "COPIES",
    "Output",
    "Row",
    "block_network",
    "build_corpus",
    "corpora",
    "exact_share",
    "long_text",
    "main",
    "megabytes",
    "overlapping_share",
    "peer",
    "print_rows",
    "registered",
    "rows_for",
    "time_interleaved",
]

# LangChain logs a warning for every chunk longer than the size it was asked for; the benchmark
# counts chunks, it does not need thousands of log lines.
logging.getLogger("langchain_text_splitters").setLevel(logging.ERROR)

#: Copies of the course corpus in the benchmark corpus (about 5.4 MB of text).
COPIES = 25

#: What a contender returns for one text: ``(reported start offset or None, chunk text)`` per chunk.
Output = list[tuple[int | None, str]]


def _varied_copy(texts: Sequence[str], copy: int, rng: random.Random) -> list[str]:
    """One copy of `texts`: paragraphs shuffled, every number shifted by `copy`."""
    varied = []
    for text in texts:
        paragraphs = text.split("\n\n")
        rng.shuffle(paragraphs)
        varied.append(re.sub(r"\d+", lambda m: str(int(m.group()) + copy), "\n\n".join(paragraphs)))
    return varied


def course_texts() -> list[str]:
    """The text of every course document, in manifest order."""
    return [load_document(name).text for name in list_documents()]


def build_corpus(copies: int = COPIES, seed: int = 0) -> list[str]:
    """The course documents, `copies` times, each copy varied (see the module docstring); another
    `seed` gives other shuffles and other numbers."""
    rng = random.Random(seed)
    texts = course_texts()
    return [varied for copy in range(copies) for varied in _varied_copy(texts, seed * copies + copy, rng)]


_seeds = itertools.count()


def corpora(copies: int, rounds: int) -> list[list[str]]:
    """One corpus of `copies` copies per timing round, each built with a seed no earlier call used
    (so a setting never reads a text an earlier setting of the same run already chunked)."""
    return [build_corpus(copies, next(_seeds)) for _ in range(rounds)]


def long_text(chars: int, seed: int = 0, first: int = 0) -> str:
    """One text of exactly `chars` characters: varied copies of the course documents joined by blank
    lines (cut at the end). `first` numbers the first copy, so texts built with different `first` or
    `seed` differ throughout (a per-text cache cannot serve one from another)."""
    rng = random.Random(seed)
    texts = course_texts()
    parts: list[str] = []
    size, copy = 0, first
    while size < chars:
        for varied in _varied_copy(texts, copy, rng):
            parts.append(varied)
            size += len(varied) + 2
        copy += 1
    return "\n\n".join(parts)[:chars]


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
    """One contender in one setting of a peer comparison.

    `seconds` is None when the contender was skipped (`note` says why). `baseline` marks the chunklab
    row the ratios of its setting are computed against; `target` is the least ratio (peer time over
    chunklab time) the issue asks of chunklab against this row, if any.
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
    copies: int,
    rounds: int,
    baseline: str,
    targets: dict[str, float] | None = None,
    overlap: bool = False,
    texts: Sequence[Sequence[str]] | None = None,
) -> list[Row]:
    """Time the `runs` (a string instead of a callable: skipped, with that reason) over `rounds`
    corpora of `copies` copies (`corpora`), or over the given `texts` of each round, and describe
    them as rows; `baseline` names the chunklab run, `targets` the least ratio asked against some
    peers. When the baseline cannot run (its chunker is not registered yet), no peer is timed.
    """
    if not callable(runs.get(baseline)):
        runs = {label: run if label == baseline else "nothing to compare with: chunklab's row cannot run"
                for label, run in runs.items()}
    live = {label: run for label, run in runs.items() if callable(run)}
    rounds_texts = texts if texts is not None else corpora(copies, rounds)
    texts = rounds_texts[-1]
    best, outputs = time_interleaved(live, rounds_texts) if live else ({}, {})
    size = megabytes(texts)
    rows = []
    for label, run in runs.items():
        if not callable(run):
            rows.append(Row(family, setting, label, None, size, baseline=label == baseline, note=run))
            continue
        out = outputs[label]
        rows.append(
            Row(
                family,
                setting,
                label,
                best[label],
                size,
                chunks=sum(map(len, out)),
                exact=exact_share(texts, out),
                overlapping=overlapping_share(out) if overlap else None,
                baseline=label == baseline,
                target=(targets or {}).get(label),
            )
        )
    return rows


def print_rows(rows: Sequence[Row], title: str = "") -> None:
    """The rows as a table, grouped by family and setting, each with its ratio to chunklab."""
    if title:
        print(title)
    header = (
        f"  {'family / setting':<40} {'library':<44} {'MB/s':>7} {'ratio':>7} {'target':>8} "
        f"{'chunks':>7} {'exact':>7} {'overlap':>8}"
    )
    print(header)
    print("  " + "-" * (len(header) - 2))
    groups: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        groups.setdefault((row.family, row.setting), []).append(row)
    for (family, setting), group in groups.items():
        base = next((r for r in group if r.baseline), None)
        for row in group:
            where = f"{family} / {setting}"
            if row.seconds is None:
                print(f"  {where:<40} {row.library:<44} skipped: {row.note}")
                continue
            ratio = f"{row.seconds / base.seconds:.2f}x" if base is not None and base.seconds else "-"
            target = ""
            if row.target is not None and base is not None and base.seconds:
                met = row.seconds / base.seconds >= row.target
                target = f">={row.target:g} {'ok' if met else 'MISS'}"
            exact = "-" if row.exact is None else f"{row.exact:.0%}"
            overlapping = "-" if row.overlapping is None else f"{row.overlapping:.0%}"
            print(
                f"  {where:<40} {row.library:<44} {row.throughput:>7.3g} {ratio:>7} {target:>8} "
                f"{row.chunks:>7} {exact:>7} {overlapping:>8}"
            )
    print("  ratio: the peer's CPU time over chunklab's (above 1: chunklab is faster); exact: share of chunks"
          " whose start offset points at their text; overlap: share of neighbouring chunks that share text\n")


def main(measure: Callable[[], list[Row]], title: str) -> None:
    """What a peer script does when run: the network off, its rows measured and printed."""
    block_network()
    print_rows(measure(), title)


def block_network() -> None:
    """Make every socket connection or name lookup in this process fail (peers must not download)."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OSError("network access attempted during a benchmark (chunklab benchmarks run offline)")

    socket.socket.connect = refuse  # type: ignore[method-assign]
    socket.socket.connect_ex = refuse  # type: ignore[method-assign]
    socket.create_connection = refuse  # type: ignore[assignment]
    socket.getaddrinfo = refuse  # type: ignore[assignment]
