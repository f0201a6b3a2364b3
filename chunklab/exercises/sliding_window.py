"""Notebook 06 (sliding windows): how many windows, the largest stride that keeps an excerpt whole,
and why a smaller stride can answer fewer questions at the same budget."""

from __future__ import annotations

import math

from ..strategies import SlidingWindowChunker, sliding
from . import ExerciseFailed, exercise, pick, refuse_library, whole_number
from .fixed_size import uncut_excerpt_start

#: ``(n, window, stride)`` cases: a text of n characters, no whitespace to trim. Besides exact and
#: inexact fits: an empty text, and texts shorter than one window with a stride shorter than it.
_COUNT_CASES = [(0, 10, 3), (1, 5, 5), (1, 10, 3), (7, 10, 3), (10, 10, 3), (11, 10, 3), (100, 30, 20), (101, 30, 20),
                (1000, 64, 1), (37203, 600, 150)]


def _windows(n: int, window: int, stride: int) -> int:
    return len(SlidingWindowChunker(chunk_size=window, stride=stride)("x" * n))


def solution_window_count(n: int, window: int, stride: int) -> int:
    if n == 0:
        return 0  # an empty text has no window
    return 1 if n <= window else math.ceil((n - window) / stride) + 1


@exercise("06.1", "how many windows?", "implement", solution=solution_window_count,
          wrong=(lambda: lambda n, window, stride: math.ceil(n / stride),
                 lambda: lambda n, window, stride: max(1, (n - window) // stride + 1),
                 lambda: lambda n, window, stride: math.ceil((n - window) / stride) + 1,
                 lambda: lambda n, window, stride: 1 if n <= window else math.ceil((n - window) / stride) + 1,
                 lambda: lambda n, window, stride: _windows(n, window, stride)))
def check_window_count(candidate) -> str:
    """`candidate(n, window, stride)` must give the number of windows on every case, without running
    the chunker."""
    predict = refuse_library(candidate, sliding, what="sliding-window chunker")
    for n, window, stride in _COUNT_CASES:
        got, expected = predict(n, window, stride), _windows(n, window, stride)
        if got != expected:
            raise ExerciseFailed(
                f"for n={n}, window={window}, stride={stride} your function says {got} windows, the chunker makes "
                f"{expected}. Hint: the last window is the first one that reaches the end of the text; where does "
                "the k-th window (from 0) end? And a text shorter than one window, or an empty one?"
            )
    return f"it predicts the chunker on all {len(_COUNT_CASES)} cases."


#: Exercise 2's setting: windows of this many characters, excerpts of this length.
SAFE_WINDOW, SAFE_LENGTH = 600, 200


def _cut_excerpt(stride: int, window: int = SAFE_WINDOW, length: int = SAFE_LENGTH) -> int | None:
    """`uncut_excerpt_start` for windows of `window` characters at `stride` in a text of four windows' length."""
    return uncut_excerpt_start(SlidingWindowChunker(chunk_size=window, stride=stride), 4 * window, length)


def solution_safe_stride() -> int:
    return SAFE_WINDOW - SAFE_LENGTH + 1


@exercise("06.2", "the largest safe stride", "predict", solution=solution_safe_stride,
          wrong=(lambda: 400, lambda: 402, lambda: 600, lambda: 401.5, lambda: "401", lambda: 0, lambda: True))
def check_safe_stride(stride) -> str:
    """An int: the largest stride for which every excerpt of `SAFE_LENGTH` characters lies whole in
    a window of `SAFE_WINDOW` characters."""
    stride = whole_number(stride, "a stride")
    if not 1 <= stride <= SAFE_WINDOW:
        raise ExerciseFailed(f"a stride is a whole number from 1 to the window ({SAFE_WINDOW}), got {stride!r}")
    cut = _cut_excerpt(stride)
    if cut is not None:
        raise ExerciseFailed(
            f"with stride {stride}, the excerpt of {SAFE_LENGTH} characters starting at {cut} lies in no window "
            "whole. Hint: the overlap is window - stride; how many characters of overlap does an excerpt of "
            "L characters need?"
        )
    if stride < SAFE_WINDOW and _cut_excerpt(stride + 1) is None:
        raise ExerciseFailed(
            f"stride {stride} is safe, but so is {stride + 1}: the exercise asks for the largest. Hint: an excerpt "
            "that starts exactly where a window starts needs no overlap at all; the worst case starts one "
            "character before a window start."
        )
    return (f"the overlap is {SAFE_WINDOW - stride} = L - 1 characters: every excerpt of {SAFE_LENGTH} is whole, "
            f"and with stride {stride + 1} one is not.")


#: Exercise 3's explanations of why stride 150 answers fewer questions than stride 300 at 2,000 characters.
DUPLICATE_CHOICES = {
    "A": "With four copies of every word in the index, BM25's document frequencies grow, so it ranks the "
         "window that holds the answer lower down.",
    "B": "Windows 150 characters apart overlap by three quarters, so the top-ranked windows are mostly one "
         "passage shifted: text paid for again.",
    "C": "A smaller stride also makes the windows themselves smaller, so fewer answers fit inside a single "
         "window and more are cut at its edges.",
    "D": "The budget counts each character once however often it is sent, so stride 150 is sent more text in "
         "all, and more of that text is noise.",
}
_DUPLICATE_HINTS = {
    "A": "the new-text-only rows use the very same ranking, and with them stride 150 is no longer behind.",
    "C": "both chunkings have windows of 600 characters (compare the size_mean of their chunkings).",
    "D": "the budget pays for every character sent, repeats included; every row sends exactly the budget.",
}


def solution_duplicate_choice() -> str:
    return "B"


@exercise("06.3", "why does a smaller stride answer fewer?", "explain", solution=solution_duplicate_choice,
          wrong=(lambda: "A", lambda: "C", lambda: "D"))
def check_duplicate_choice(choice) -> str:
    """One letter of `DUPLICATE_CHOICES`."""
    pick(choice, DUPLICATE_CHOICES, _DUPLICATE_HINTS, solution_duplicate_choice())
    return "sending each character once (new_text_only) gives stride 150 its passages back."
