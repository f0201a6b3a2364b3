"""One row per chunking, not per name: chunkers that cut the corpus into the very same chunks.

Two chunkers can be different classes and still give the same chunks on every document (a JSON
chunker on a corpus with no JSON falls back to the recursive cascade, a code chunker on documents
with no code does the same). Measured separately, they are the same chunking counted twice: they
inflate the number of chunkings with "no measurable difference from the best" and can turn up as advice ("minutes: code")
for a strategy that did nothing of its own.

`collapse_identical` keeps the first of each group of identical chunkings in a
`chunklab.evaluation.budget.Comparison` and names the others as its aliases
(``chunkings["aliases"]``), which `chunklab.evaluation.verdicts.leaderboard` and the guidance show
beside the label. Two chunkings are identical when they made the same chunks (document, start, end)
and indexed them with the same context, and, as a check, every one of their measured rows agrees.
"""

from __future__ import annotations

from typing import Any

from .budget import BUDGET_METRICS, Comparison

__all__ = ["CONTEXT_SUFFIX", "collapse_identical"]

#: What `chunklab.evaluation.comparison.compare` adds to a label measured with its chunker's context.
CONTEXT_SUFFIX = " + context"


def _signature(result: Comparison, label: str, with_context: bool) -> tuple | None:
    """What was indexed for `label`: its chunks' (document, start, end), with their context when it
    was indexed; None when the chunks are not in `result`."""
    base = label[: -len(CONTEXT_SUFFIX)] if with_context and label.endswith(CONTEXT_SUFFIX) else label
    chunks = result.chunks.get(base)
    if chunks is None:
        return None
    return (with_context, tuple(
        (c.metadata.get("source"), c.start, c.end, c.metadata.get("context") if with_context else None) for c in chunks
    ))


def _rows_of(rows: Any, label: str) -> Any:
    """`label`'s measured rows, without the label, in a fixed order (for comparing two chunkings)."""
    keys = ["question", "retriever", "budget"]
    own = rows[rows["chunker"] == label].sort_values(keys)
    return own[[*keys, *BUDGET_METRICS]].reset_index(drop=True)


def collapse_identical(result: Comparison) -> Comparison:
    """`result` with one row per distinct chunking: each group of chunkings that made the same chunks
    keeps its first label (in the order measured) and drops the others from ``rows``,
    ``chunkings``, ``timings`` and ``chunks``; ``chunkings["aliases"]`` lists, for every label kept,
    the labels dropped for it (an empty tuple for most).

    Identical means: the same (document, start, end) for every chunk, the same context indexed (for
    a ``+ context`` row), and the same measured rows, so dropping a label loses no measurement.
    Without chunks (a `Comparison` built by hand), nothing is collapsed.
    """
    chunkings = result.chunkings.copy()
    labels = list(result.rows["chunker"].unique())  # in order of appearance
    context = result.rows.groupby("chunker", sort=False)["context"].first()
    kept: dict[tuple, str] = {}
    aliases: dict[str, list[str]] = {label: [] for label in chunkings.index}
    dropped: list[str] = []
    for label in labels:
        signature = _signature(result, label, bool(context[label]))
        first = kept.get(signature) if signature is not None else None
        if first is not None and _rows_of(result.rows, first).equals(_rows_of(result.rows, label)):
            aliases[first].append(label)
            dropped.append(label)
        elif signature is not None:
            kept.setdefault(signature, label)
    chunkings["aliases"] = [tuple(aliases.get(label, ())) for label in chunkings.index]
    chunkings = chunkings.drop(index=[label for label in dropped if label in chunkings.index])
    timings = result.timings
    if timings is not None and "chunker" in getattr(timings, "columns", ()):
        timings = timings[~timings["chunker"].isin(dropped)].reset_index(drop=True)
    rows = result.rows[~result.rows["chunker"].isin(dropped)].reset_index(drop=True)
    measured = set(rows["chunker"].unique())
    return Comparison(
        rows=rows, chunkings=chunkings, timings=timings, budget_unit=result.budget_unit, tokenizer=result.tokenizer,
        chunks={label: chunks for label, chunks in result.chunks.items()
                if label in measured or label + CONTEXT_SUFFIX in measured},
    )
