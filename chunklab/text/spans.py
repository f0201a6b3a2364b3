"""Span arithmetic: sets of characters written as half-open ``(start, end)`` spans.

Shared by the statistics of `chunklab.viz.chunks`, the cut counting of `chunklab.text.sentences` and the metrics
of `chunklab.evaluation.comparison`, so that "how many characters do these chunks cover" has one answer.
"""

from __future__ import annotations

import itertools
from typing import Any, Iterable, Sequence

import numpy as np

from ..core import Span

#: Every code point `str.isspace` accepts (none lies above U+3000).
_WHITESPACE = np.array([c for c in range(0x3001) if chr(c).isspace()], dtype=np.uint32)

__all__ = ["CharCounter", "Span", "containing", "cut_spans", "intersection", "span_array", "trim_span", "union"]



def union(spans: Iterable[Span]) -> list[Span]:
    """Sorted, merged spans covering exactly the characters of `spans` (empty spans dropped)."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if start >= end:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]


def intersection(a: Sequence[Span], b: Sequence[Span]) -> list[Span]:
    """The characters in both of two merged span lists (as `union` returns them)."""
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        start, end = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if start < end:
            out.append((start, end))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def span_array(spans: Sequence[Span] | np.ndarray) -> np.ndarray:
    """`spans` as an ``(n, 2)`` int64 array. A list of pairs is read as one flat stream of numbers,
    which is about twice as fast as `numpy.asarray` on a long list of tuples."""
    if isinstance(spans, np.ndarray):
        return spans.astype(np.int64, copy=False).reshape(-1, 2)
    flat = np.fromiter(itertools.chain.from_iterable(spans), dtype=np.int64, count=2 * len(spans))
    return flat.reshape(-1, 2)


def containing(spans: Sequence[Span] | np.ndarray, points: Iterable[int] | np.ndarray) -> np.ndarray:
    """For each point, the index of the span that holds it strictly inside, or -1.

    `spans` must be sorted and non-overlapping. "Strictly inside" means ``start < point < end``: a
    boundary at a span's edge does not cut it.
    """
    table = span_array(spans)
    at = np.fromiter(points, dtype=np.int64) if not isinstance(points, np.ndarray) else points.astype(np.int64)
    if len(table) == 0:
        return np.full(len(at), -1, dtype=np.int64)
    i = np.searchsorted(table[:, 0], at, side="right") - 1
    j = np.maximum(i, 0)
    inside = (i >= 0) & (table[j, 0] < at) & (at < table[j, 1])
    return np.where(inside, i, -1)


class CharCounter:
    """Counts the characters inside spans of one text.

    ``CharCounter()`` counts every character (``end - start``). ``CharCounter(text)`` counts only
    the non-whitespace characters of `text`: whitespace carries no content, and a chunker that trims
    it from chunk edges should not lose recall for the space between two retrieved chunks (this is
    our tokenizer-free stand-in for the tokens of Chroma's report). Calls accept ints or numpy arrays.
    """

    def __init__(self, text: str | None = None) -> None:
        if text is None:
            self._prefix = None
        else:
            points = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
            content = ~np.isin(points, _WHITESPACE)
            self._prefix = np.concatenate(([0], np.cumsum(content, dtype=np.int64)))

    def __call__(self, start: Any, end: Any) -> Any:
        """Counted characters in ``[start, end)`` (element-wise for arrays; ``start <= end``)."""
        if self._prefix is None:
            return end - start
        return self._prefix[end] - self._prefix[start]

    def total(self, spans: Iterable[Span]) -> int:
        """Counted characters in the union of `spans` (overlaps counted once)."""
        return int(sum(self(s, e) for s, e in union(spans)))

    def advance(self, start: int, n: int) -> int:
        """The first position ``p >= start`` with ``self(start, p) == n``: where a span that begins at
        `start` ends once it holds `n` counted characters (so it ends on a counted character, never
        on whitespace after it). `n` must not exceed the counted characters left in the text."""
        if n <= 0:
            return start
        if self._prefix is None:
            return start + n
        target = self._prefix[start] + n
        if target > self._prefix[-1]:
            raise ValueError(f"only {int(self._prefix[-1] - self._prefix[start])} counted characters follow {start}")
        return int(np.searchsorted(self._prefix, target, side="left"))


def trim_span(text: str, start: int, end: int) -> Span:
    """Shrink ``[start, end)`` past leading and trailing whitespace (may become empty)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def cut_spans(spans: Sequence[Span], boundaries: Iterable[int]) -> int:
    """How many of `spans` have at least one boundary strictly inside them.

    `spans` must be sorted and non-overlapping (as every span function of `chunklab.text` returns). A
    boundary is a chunk start or end offset; a boundary at a span's edge does not cut it.
    """
    hit = containing(spans, boundaries)
    return len(set(hit[hit >= 0].tolist()))
