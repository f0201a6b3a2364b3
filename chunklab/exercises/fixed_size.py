"""Notebook 01 (fixed-size chunking): how many windows, how much overlap keeps an answer whole, and
why snapping to words does not save sentences."""

from __future__ import annotations

import math

from ..core import Chunker
from ..strategies import FixedSizeChunker, fixed
from . import ExerciseFailed, exercise, pick, refuse_library, whole_number

#: ``(n, chunk_size, chunk_overlap)`` cases: a text of n characters, no whitespace to trim. Besides
#: exact and inexact fits: an empty text, texts shorter than one window, with and without overlap,
#: and texts no longer than the overlap.
_COUNT_CASES = [(0, 10, 2), (1, 5, 0), (1, 10, 5), (5, 10, 8), (8, 10, 8), (100, 10, 0), (101, 10, 0),
                (90, 30, 10), (1000, 64, 16), (37203, 400, 80)]


def _windows(n: int, size: int, overlap: int) -> int:
    return len(FixedSizeChunker(chunk_size=size, chunk_overlap=overlap)("x" * n))


def solution_predicted_chunks(n: int, size: int, overlap: int) -> int:
    if n == 0:
        return 0  # an empty text has no window
    step = size - overlap
    return max(1, math.ceil((n - overlap) / step))


@exercise("01.1", "how many chunks?", "implement", solution=solution_predicted_chunks,
          wrong=(lambda: lambda n, size, overlap: n // (size - overlap),
                 lambda: lambda n, size, overlap: math.ceil(n / (size - overlap)),
                 lambda: lambda n, size, overlap: math.ceil((n - size) / (size - overlap)) + 1,
                 lambda: lambda n, size, overlap: math.ceil((n - overlap) / (size - overlap)) if n else 0,
                 lambda: lambda n, size, overlap: max(1, math.ceil((n - overlap) / (size - overlap))),
                 lambda: lambda n, size, overlap: _windows(n, size, overlap)))
def check_predicted_chunks(candidate) -> str:
    """`candidate(n, size, overlap)` must give the number of windows on every case, without running
    the chunker."""
    predict = refuse_library(candidate, fixed, what="fixed-size chunker")
    for n, size, overlap in _COUNT_CASES:
        got, expected = predict(n, size, overlap), _windows(n, size, overlap)
        if got != expected:
            raise ExerciseFailed(
                f"for n={n}, chunk_size={size}, chunk_overlap={overlap} your function says {got} windows, the "
                f"chunker makes {expected}. Hint: where does the last window start, and does the final strip of "
                "chunk_overlap characters need a window of its own? A text shorter than one window, or than the "
                "overlap, still has one window; an empty text has none."
            )
    return f"it predicts the chunker on all {len(_COUNT_CASES)} cases."


def uncut_excerpt_start(chunker: Chunker, n: int, length: int) -> int | None:
    """The first start of an excerpt of `length` characters that no chunk of `chunker` holds whole,
    in a text of `n` characters; None when every excerpt is held (the two overlap exercises)."""
    spans = [(c.start, c.end) for c in chunker("x" * n)]
    for start in range(n - length + 1):
        if not any(s <= start and start + length <= e for s, e in spans):
            return start
    return None


def _cut_excerpt(length: int, overlap: int, size: int = 300) -> int | None:
    """`uncut_excerpt_start` for windows of (`size`, `overlap`) in a text of three windows' length."""
    return uncut_excerpt_start(FixedSizeChunker(chunk_size=size, chunk_overlap=overlap), 3 * size, length)


def solution_safe_overlap(L: int) -> int:
    return max(0, L - 1)


@exercise("01.2", "how much overlap keeps an answer whole?", "implement", solution=solution_safe_overlap,
          wrong=(lambda: lambda L: L, lambda: lambda L: max(0, L - 2), lambda: lambda L: 100, lambda: lambda L: L + 1,
                 lambda: lambda L: L / 2, lambda: lambda L: L - 0.5, lambda: lambda L: str(max(0, L - 1))))
def check_safe_overlap(rule) -> str:
    """`rule(L)` must be safe for every excerpt of L characters, and one less must not be."""
    for length in (1, 2, 40, 150, 299):
        overlap = whole_number(rule(length), f"rule({length})")
        if not 0 <= overlap < 300:
            raise ExerciseFailed(f"rule({length}) = {overlap!r}: an overlap is an int in [0, chunk_size) (here 300)")
        cut = _cut_excerpt(length, overlap)
        if cut is not None:
            raise ExerciseFailed(
                f"with chunk_overlap={overlap}, an excerpt of {length} characters starting at {cut} lies in no window "
                "whole. Hint: where does the window that starts last before an excerpt end?"
            )
        if overlap > 0 and _cut_excerpt(length, overlap - 1) is None:
            raise ExerciseFailed(
                f"rule({length}) = {overlap} is safe, but so is {overlap - 1}: the exercise asks for the smallest "
                "safe overlap. Hint: count the positions an excerpt can start at inside one step."
            )
    return "for every length tried, that overlap keeps every excerpt whole, and one character less does not."


#: Exercise 3's explanations of why snapping to words leaves the share of sentences cut unchanged.
SNAP_CHOICES = {
    "A": "Snapping only takes effect together with chunk_overlap, and the failure-mode table was measured "
         "without any overlap, so no boundary moved.",
    "B": "With snap_to_words the chunker measures chunk_size in words instead of characters, so sentences are "
         "cut at the same rate as before.",
    "C": "Snapping pulls a boundary back a few characters to the previous space, rarely a sentence end, so a "
         "cut sentence stays cut.",
    "D": "The sentence splitter runs on the snapped chunks and finds fewer sentences in them, which hides the "
         "sentences snapping saved.",
}
_SNAP_HINTS = {
    "A": "snapping moves every boundary that falls inside a word, with or without overlap.",
    "B": "the unit stays characters with snap_to_words; only where a boundary lands changes.",
    "D": "the sentences are found in the article, once, not in the chunks.",
}


def solution_snap_choice() -> str:
    return "C"


@exercise("01.3", "why does snapping not save sentences?", "explain", solution=solution_snap_choice,
          wrong=(lambda: "A", lambda: "B", lambda: "D"))
def check_snap_choice(choice) -> str:
    """One letter of `SNAP_CHOICES`."""
    pick(choice, SNAP_CHOICES, _SNAP_HINTS, solution_snap_choice())
    return "a word boundary is a much finer thing than a sentence boundary: notebook 02 cuts at the latter."
