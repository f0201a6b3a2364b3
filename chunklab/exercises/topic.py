"""Notebook 12 (topic chunking): the depth of a TextTiling valley, Pk by hand, and why TextTiling
places its cuts worse than blind equal parts."""

from __future__ import annotations

from ..caches import RESOURCE, cached
from ..formats.corpus import load_document
from ..strategies import topic
from ..strategies.topic import TextTiler
from . import ExerciseFailed, exercise, pick, refuse_library

#: Exercise 1's worked example: the scores and the gap whose depth the notebook computes by hand.
DEPTH_EXAMPLE = ([0.5, 0.3, 0.1, 0.4, 0.2], 2)
#: Curves with plateaus (equal neighbours, which the climb goes on over) and their depths:
#: ``(scores, gap, depth)``.
_PLATEAU_CASES = [
    ([0.6, 0.4, 0.4, 0.1, 0.3, 0.3, 0.5], 3, 0.9),
    ([0.5, 0.1, 0.1, 0.5], 1, 0.8),
    ([0.2, 0.2, 0.2], 1, 0.0),
]


def solution_depth(scores, i):
    left = i
    while left > 0 and scores[left - 1] >= scores[left]:
        left -= 1
    right = i
    while right < len(scores) - 1 and scores[right + 1] >= scores[right]:
        right += 1
    return scores[left] + scores[right] - 2 * scores[i]


def _neighbours_only(scores, i):
    """A wrong depth: the immediate neighbours instead of the peaks."""
    left = scores[i - 1] if i > 0 else scores[i]
    right = scores[i + 1] if i < len(scores) - 1 else scores[i]
    return left + right - 2 * scores[i]


def _strict_climb(scores, i):
    """A wrong depth: the climb stops at the first equal neighbour (a plateau)."""
    left = i
    while left > 0 and scores[left - 1] > scores[left]:
        left -= 1
    right = i
    while right < len(scores) - 1 and scores[right + 1] > scores[right]:
        right += 1
    return scores[left] + scores[right] - 2 * scores[i]


def _highest_anywhere(scores, i):
    """A wrong depth: the highest score on each side, however many valleys lie between."""
    return max(scores[: i + 1]) + max(scores[i:]) - 2 * scores[i]


@cached(RESOURCE)
def _support_curve() -> tuple[list[float], list[float]]:
    """TextTiling's smoothed scores and depths on the support transcript (NLTK's own arithmetic)."""
    analysis = TextTiler().analyse(load_document("support").text)
    return analysis.smoothed.tolist(), analysis.depths.tolist()


@exercise("12.1", "the depth of a valley", "implement", solution=solution_depth,
          wrong=(lambda: _neighbours_only, lambda: _highest_anywhere, lambda: _strict_climb,
                 lambda: lambda scores, i: max(scores) - scores[i],
                 lambda: lambda scores, i: float(TextTiler().analyse(load_document("support").text).depths[i])
                 if len(scores) > 10 else solution_depth(scores, i)))
def check_depth(candidate) -> str:
    """`candidate(scores, i)` must give the worked example's depth, the depth on curves with plateaus,
    and TextTiling's depth at every gap of the support transcript that NLTK does not clip, without
    calling TextTiling."""
    candidate = refuse_library(candidate, topic, "nltk.tokenize.texttiling", what="TextTiling")
    for scores, gap, depth in [(*DEPTH_EXAMPLE, 0.7), *_PLATEAU_CASES]:
        got = candidate(list(scores), gap)
        if abs(got - depth) > 1e-9:
            raise ExerciseFailed(
                f"for {scores} and gap {gap} your depth is {got!r}, which is not it. Hint: from the gap, climb while "
                "the next score is at least as high (an equal score too: a plateau does not stop the climb); the "
                "peak is where the climb stops."
            )
    smoothed, depths = _support_curve()
    clip = min(max(len(smoothed) // 10, 2), 5)  # NLTK leaves the first and last `clip` gaps at depth 0
    for i in range(clip, len(smoothed) - clip):
        got = candidate(list(smoothed), i)
        if abs(got - depths[i]) > 1e-9:
            raise ExerciseFailed(
                f"on the support transcript's smoothed curve, gap {i}: yours {got:.4f}, TextTiling's {depths[i]:.4f}. "
                "Hint: stop climbing at the first peak on each side; a higher peak behind a dip does not count."
            )
    return f"it matches TextTiling's depth at all {len(smoothed) - 2 * clip} unclipped gaps of the support transcript."


#: Exercise 2: reference and hypothesis boundary strings (``1`` = a segment starts at this unit), and k.
PK_REFERENCE, PK_HYPOTHESIS, PK_K = "0001000100", "0000100100", 2


def solution_pk() -> float:
    return 2 / 9


#: How far a Pk answer may lie from NLTK's: an answer rounded to two decimals is right.
PK_TOLERANCE = 0.005


@exercise("12.2", "Pk by hand", "predict", solution=solution_pk,
          wrong=(lambda: 1 / 9, lambda: 2 / 10, lambda: 4 / 9, lambda: 0.21, lambda: 3 / 9))
def check_pk(answer) -> str:
    """`answer` must be Pk of `PK_HYPOTHESIS` against `PK_REFERENCE` with `PK_K` (a fraction, or a
    decimal rounded to two places)."""
    from nltk.metrics.segmentation import pk

    measured = pk(PK_REFERENCE, PK_HYPOTHESIS, k=PK_K)
    try:
        value = float(answer)
    except (TypeError, ValueError):
        raise ExerciseFailed(f"answer with a number (a fraction such as 3 / 8), not {answer!r}") from None
    if abs(value - measured) > PK_TOLERANCE:
        if any(abs(value - errors / 10) < PK_TOLERANCE for errors in range(11)):
            hint = "count the windows: positions i = 0 … 8, so nine of them, not ten."
        else:
            hint = ("in a window [i, i + 2) that both segmentations cut (or both leave whole) they agree, whichever "
                    "unit the cut is at; count only the windows where exactly one of them has a boundary.")
        raise ExerciseFailed(f"{value:.3f} is not it. Hint: {hint}")
    return f"NLTK's pk gives {measured:.3f} too."


#: Exercise 3's explanations of why TextTiling does worse than the equal-parts baseline.
TILING_CHOICES = {
    "A": "TextTiling cuts several times as often as there are sections: most cuts fall inside one, and both "
         "metrics count the windows they put wrong.",
    "B": "The equal-parts baseline is told where the sections start, from the headings, while TextTiling has "
         "to guess them from the words.",
    "C": "TextTiling's cuts fall on paragraph breaks, and a section heading is never at a paragraph break, so "
         "every cut misses by a line.",
    "D": "The library's TextTiler computes its scores differently from NLTK's TextTiling, with a smaller "
         "window that makes its similarity curve noisy.",
}
_TILING_HINTS = {
    "B": "the baseline knows only how many sections there are; its cuts are equal steps, blind to the text.",
    "C": "a heading is a paragraph of its own: it starts right after a blank line.",
    "D": "the notebook checks that the cuts are NLTK's, boundary for boundary.",
}


def solution_tiling_choice() -> str:
    return "A"


@exercise("12.3", "why does TextTiling lose to equal parts?", "explain", solution=solution_tiling_choice,
          wrong=(lambda: "B", lambda: "C", lambda: "D"))
def check_tiling_choice(choice) -> str:
    """One letter of `TILING_CHOICES`."""
    pick(choice, TILING_CHOICES, _TILING_HINTS, solution_tiling_choice())
    return "the cut counts beside the scores show it: TextTiling finds lexical shifts, far more of them than sections."
