"""The budget view: every strategy sends the reader the same amount of text.

With k chunks per question, a strategy with large chunks "wins" by sending more text. Here, for each
question, the ranked chunks are sent in rank order until a **budget** is spent, the last one cut at
the budget, so every strategy sends exactly the same amount (unless the ranking runs out first):

* a budget counts the **chunk text only**. A chunk's ``metadata["context"]`` (breadcrumb, table
  header, title...) may be indexed for retrieval (`compare(..., use_context=True)`), but it is not
  sent and costs nothing here: every metric scores the chunk's own offsets.
* ``budget_unit="chars"`` counts characters the way every metric counts them: whitespace excluded
  (`chunklab.text.spans.CharCounter`), so a budget of 1,000 characters holds 1,000 non-space
  characters; ``"tokens"`` counts tokens of a tokenizer (``"minilm"``, ``"cl100k"`` or an object,
  see `chunklab.text.length`), without special tokens.
* overlapping chunks (sliding windows, a parent and its child) pay for their shared text again,
  but the text they cover is counted once (`chunklab.evaluation.metrics.sent_metrics`).

`fill` is the rule on chunk sizes, `spend` applies it to one question's ranked spans (what the
reader receives), `Meter` measures and cuts spans in the budget unit, `retrieval_depth` says how
many chunks to rank so that any ranking fills a budget, and `budget_scores` scores one ranking at
every budget at once (for `Golden` excerpts prepared once). `Comparison` is what
`chunklab.evaluation.comparison.compare` returns, and `combine` joins two of
them (a variant measured later beside the main run).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Mapping, Sequence

import numpy as np

from ..text.length import TokenizerLike, count_tokens, token_span_array
from ..text.spans import CharCounter, Span, intersection, union
from .metrics import chosen_alternatives

if TYPE_CHECKING:
    from ..core import Chunk

__all__ = [
    "BUDGET_METRICS",
    "DEFAULT_BUDGETS",
    "ROW_COLUMNS",
    "BudgetUnit",
    "Comparison",
    "Golden",
    "Meter",
    "budget_scores",
    "combine",
    "fill",
    "retrieval_depth",
    "spend",
]

BudgetUnit = Literal["chars", "tokens"]

#: The budgets `chunklab.evaluation.comparison.compare` measures unless told otherwise: doubling
#: from 250 to 4,000 (characters, or tokens with ``budget_unit="tokens"``).
DEFAULT_BUDGETS = (250, 500, 1000, 2000, 4000)

#: Per-question metrics of the budget view, in the order of `Comparison.rows`: ``answered`` (every
#: golden excerpt wholly sent), character ``recall``, ``precision`` and ``iou`` (see
#: `chunklab.evaluation.metrics.sent_metrics`), ``sent`` (budget units sent: the budget unless the
#: ranking ran out) and ``chunks_sent`` (chunks sent, the cut one included).
BUDGET_METRICS = ("answered", "recall", "precision", "iou", "sent", "chunks_sent")
#: The columns of `Comparison.rows`: who was asked what, measured how, then `BUDGET_METRICS`.
ROW_COLUMNS = (
    "question", "doc", "doc_kind", "kind", "split", "chunker", "context", "retriever", "budget", *BUDGET_METRICS
)


class Meter:
    """Measures spans of one text in a budget unit, and cuts a span down to a number of units.

    `text` is the text the spans point into, `counter` the `CharCounter` the metrics use over it.
    """

    def __init__(
        self, text: str, counter: CharCounter, unit: BudgetUnit = "chars", tokenizer: TokenizerLike = "minilm"
    ) -> None:
        if unit not in ("chars", "tokens"):
            raise ValueError(f"budget_unit must be 'chars' or 'tokens', got {unit!r}")
        self.text, self.counter, self.unit, self.tokenizer = text, counter, unit, tokenizer
        if unit == "tokens":
            count_tokens("", tokenizer)  # an unknown tokenizer fails here, not at the first chunk

    def costs(self, spans: np.ndarray) -> np.ndarray:
        """The size of every ``(start, end)`` row of `spans` in the budget unit, as int64."""
        spans = np.asarray(spans, dtype=np.int64).reshape(-1, 2)
        if self.unit == "chars":
            return np.asarray(self.counter(spans[:, 0], spans[:, 1]), dtype=np.int64)
        return np.fromiter(
            (count_tokens(self.text[s:e], self.tokenizer) for s, e in spans.tolist()), dtype=np.int64, count=len(spans)
        )

    def cut(self, start: int, end: int, units: int) -> int:
        """Where the span ``[start, end)`` must end to hold exactly `units` units (fewer than it has):
        after the `units`-th counted character, or after the `units`-th token."""
        if self.unit == "chars":
            return self.counter.advance(start, units)
        return start + int(token_span_array(self.text[start:end], self.tokenizer)[units - 1, 1])


def fill(costs: Sequence[int] | np.ndarray, budgets: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The budget rule on sizes alone: for each budget, ``(chunks sent whole, units of the next chunk)``.

    `costs` are the ranked chunks' sizes in the budget unit, best first. Chunks are sent whole in
    rank order while they fit (a chunk of size 0 always fits); the first one that does not fit is cut
    to the units left, and nothing follows it. The second number is 0 when nothing is cut: the budget
    was spent exactly, or the ranking ran out.
    """
    costs = np.asarray(costs, dtype=np.int64)
    budgets = np.asarray(budgets, dtype=np.int64)
    spent = np.concatenate(([0], np.cumsum(costs)))
    whole = np.searchsorted(spent, budgets, side="right") - 1
    rest = np.where(whole < len(costs), budgets - spent[whole], 0)
    return whole, rest


def spend(spans: Sequence[Span] | np.ndarray, costs: Sequence[int] | np.ndarray, budget: int, meter: Meter) -> tuple[
    list[Span], int
]:
    """What the reader receives for one question: ``(sent spans, units sent)``.

    `spans` are the ranked chunks' spans, best first, and `costs` their sizes in `meter`'s unit. The
    chunks `fill` sends whole, then the next one cut to the units left (``meter.cut``). Fewer units
    than `budget` are sent only when the ranking runs out.
    """
    spans = np.asarray(spans, dtype=np.int64).reshape(-1, 2)
    (whole,), (rest,) = fill(costs, [budget])
    sent = [(int(s), int(e)) for s, e in spans[:whole].tolist()]
    if rest:
        start, end = (int(x) for x in spans[whole])
        sent.append((start, meter.cut(start, end, int(rest))))
    return sent, int(np.sum(np.asarray(costs, dtype=np.int64)[:whole]) + rest)


class Golden:
    """One question's golden excerpts, prepared once for scoring many rankings at many budgets.

    `spans` are the excerpts' spans, `counter` the `CharCounter` of the text they point into;
    `alternatives`, when some answer has several acceptable excerpts, every slot's acceptable
    spans (`chunklab.evaluation.metrics.answer_spans`).
    """

    def __init__(self, spans: Sequence[Span], counter: CharCounter,
                 alternatives: Sequence[Sequence[Span]] | None = None) -> None:
        self.counter, self.alternatives = counter, alternatives
        self.union, self.chars, self.excerpts = self._prepared(spans)
        reach = self.union if alternatives is None else union(span for slot in alternatives for span in slot)
        self.first, self.last = reach[0][0], reach[-1][1]

    def _prepared(self, spans: Sequence[Span]) -> tuple[list[Span], int, list[tuple[int, int, int]]]:
        """``(union, counted characters, [(start, end, counted characters)])`` of golden `spans`."""
        merged = union(spans)
        chars = self.counter.total(merged)
        if chars == 0:
            raise ValueError("the golden excerpts contain no countable characters")
        return merged, chars, [(s, e, int(self.counter(s, e))) for s, e in spans if self.counter(s, e) > 0]

    def coverage(self, reached: Sequence[Span]) -> tuple[int, bool, int]:
        """``(golden characters covered, every excerpt covered whole, golden characters)`` by the sent
        spans that reach past `first` and before `last` (the others hold no golden character). With
        alternatives, the golden excerpts are those `chosen_alternatives` picks for `reached`."""
        if not reached:
            return 0, False, self.chars
        got = union(reached)
        golden, chars, excerpts = self.union, self.chars, self.excerpts
        if self.alternatives is not None:
            golden, chars, excerpts = self._prepared(chosen_alternatives(self.alternatives, got, self.counter))
        covered = self.counter.total(intersection(golden, got))
        answered = all(self.counter.total(intersection([(s, e)], got)) == n for s, e, n in excerpts)
        return covered, answered, chars

    def metrics(self, covered: int, answered: bool, golden_chars: int, sent_chars: int) -> dict[str, float]:
        """`chunklab.evaluation.metrics.sent_metrics` of a sending of `sent_chars` counted
        characters whose `coverage` is ``(covered, answered, golden_chars)``."""
        return {
            "answered": float(answered),
            "recall": covered / golden_chars,
            "precision": covered / sent_chars if sent_chars else 0.0,
            "iou": covered / (sent_chars + golden_chars - covered),
        }


def budget_scores(
    spans: Sequence[Span] | np.ndarray,
    costs: Sequence[int] | np.ndarray,
    golden: Golden,
    budgets: Sequence[int],
    meter: Meter,
) -> list[dict[str, float]]:
    """One question's `BUDGET_METRICS` at each of `budgets`, from one ranking (`spans` and their
    `costs`, best first, as for `spend`).

    The numbers `chunklab.evaluation.metrics.sent_metrics` gives for `spend` at each budget,
    computed from one pass over the ranking: only the sent spans that reach a golden excerpt are
    looked at, beside the characters sent.
    """
    spans = np.asarray(spans, dtype=np.int64).reshape(-1, 2)
    costs = np.asarray(costs, dtype=np.int64)
    whole_counts, rests = fill(costs, budgets)
    spent = np.concatenate(([0], np.cumsum(costs))).tolist()
    in_chars = meter.unit == "chars"
    chars = spent if in_chars else np.concatenate(([0], np.cumsum(meter.counter(spans[:, 0], spans[:, 1])))).tolist()
    near = np.flatnonzero((spans[:, 0] < golden.last) & (spans[:, 1] > golden.first)).tolist()
    table = spans.tolist()
    scores = []
    seen: tuple[list[Span], tuple[int, bool, int]] | None = None  # the last budget's reached spans, coverage
    for whole, rest in zip(whole_counts.tolist(), rests.tolist()):
        reached = [(table[i][0], table[i][1]) for i in near if i < whole]
        sent_chars = chars[whole] + rest if in_chars else chars[whole]
        if rest and (whole in near or not in_chars):
            start, end = table[whole]
            cut = meter.cut(start, end, rest)
            if whole in near:
                reached.append((start, cut))
            if not in_chars:
                sent_chars += int(meter.counter(start, cut))
        if seen is None or seen[0] != reached:  # a larger budget often reaches no new golden text
            seen = (reached, golden.coverage(reached))
        scores.append({**golden.metrics(*seen[1], sent_chars), "sent": float(spent[whole] + rest),
                       "chunks_sent": float(whole + (rest > 0))})
    return scores


def retrieval_depth(costs: Sequence[int] | np.ndarray, budget: int) -> int:
    """How many chunks to retrieve so that any ranking of them fills `budget`: the smallest `n`
    whose `n` smallest costs add up to it (all of them if they never do)."""
    spent = np.cumsum(np.sort(np.asarray(costs, dtype=np.int64)))
    return min(len(spent), int(np.searchsorted(spent, budget, side="left")) + 1)


@dataclass(frozen=True)
class Comparison:
    """The budget view of a comparison, as `chunklab.evaluation.comparison.compare` returns it.

    Attributes
    ----------
    rows:
        The tidy table every view is computed from: one row per question × chunking × retriever ×
        budget, with the columns `ROW_COLUMNS`: ``question`` (its id), ``doc``, ``doc_kind`` (the
        document's kind), ``kind`` (the question's), ``split``, ``chunker`` (the label),
        ``context`` (was the chunks' context indexed?), ``retriever``, ``budget``, then
        `BUDGET_METRICS`.
    chunkings:
        One row per chunking label (index ``chunker``): ``strategy``, ``params``, ``context``, the
        structure and size columns of `chunklab.evaluation.metrics.structure_metrics` over every
        document, ``chunk_seconds`` and ``index_ratio`` (characters indexed / source characters).
    timings:
        Where the time went, one row per chunking label × retriever: ``index_seconds`` (indexing,
        which for dense retrieval includes embedding), ``search_seconds`` and ``score_seconds``
        (cutting at every budget and computing the metrics).
    budget_unit, tokenizer:
        What a budget counts (`tokenizer` only matters for ``"tokens"``).
    chunks:
        The chunks each chunking made, by its label without context (every document's chunks, in
        document order), so a later view (e.g. `chunklab.evaluation.truncation.truncation_of`)
        need not chunk the corpus again.
    """

    rows: Any
    chunkings: Any
    timings: Any
    budget_unit: BudgetUnit = "chars"
    tokenizer: TokenizerLike = "minilm"
    chunks: Mapping[str, Sequence[Chunk]] = field(default_factory=dict)

    def __repr__(self) -> str:
        """One line: what was measured (chunkings, retrievers, budgets, questions by split) and how to
        read it; the tables themselves (`rows`, `chunkings`, `timings`) and the chunks are left out."""
        rows = self.rows
        splits = ", ".join(f"{n} {split}" for split, n in rows.groupby("split")["question"].nunique().items())
        budgets = ", ".join(f"{b:,}" for b in sorted(rows["budget"].unique()))
        return (f"Comparison({len(self.chunkings)} chunkings × retrievers {', '.join(map(str, rows['retriever'].unique()))} "
                f"× budgets {budgets} {self.unit_label()}; {rows['question'].nunique()} questions"
                f"{f' ({splits})' if splits else ''}; read it with leaderboard(result, retriever, budget), curve or "
                "summarize)")

    def unit_label(self) -> str:
        """The budget unit in words: ``"characters"`` or e.g. ``"minilm tokens"``."""
        if self.budget_unit == "chars":
            return "characters"
        name = self.tokenizer if isinstance(self.tokenizer, str) else type(self.tokenizer).__name__
        return f"{name} tokens"


def combine(*results: Comparison) -> Comparison:
    """One `Comparison` holding the rows, chunkings and timings of all `results`, in order.

    For measurements made in separate `compare` calls on the same documents and questions (a few
    variants measured after the main run, so that nothing is measured twice). They must count
    budgets in the same unit, and a chunking label may appear in only one of them.
    """
    import pandas as pd

    if not results:
        raise ValueError("combine needs at least one Comparison")
    first = results[0]
    if any((r.budget_unit, r.tokenizer) != (first.budget_unit, first.tokenizer) for r in results):
        raise ValueError("the comparisons count their budgets in different units")
    seen = Counter(label for r in results for label in r.rows["chunker"].unique())
    repeated = sorted(label for label, times in seen.items() if times > 1)
    if repeated:
        raise ValueError(f"chunking(s) {repeated} appear in more than one comparison")
    return Comparison(
        rows=pd.concat([r.rows for r in results], ignore_index=True),
        chunkings=pd.concat([r.chunkings for r in results]),
        timings=pd.concat([r.timings for r in results], ignore_index=True),
        budget_unit=first.budget_unit,
        tokenizer=first.tokenizer,
        chunks={label: chunks for r in results for label, chunks in r.chunks.items()},
    )
