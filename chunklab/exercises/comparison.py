"""Notebook 16 (comparing every strategy): how many chunks a retriever must rank to fill a budget, one
question scored at a budget, and why the biggest chunks win with k chunks and lose at a budget."""

from __future__ import annotations

import math
import numbers

from ..evaluation import budget as budget_module
from ..evaluation.budget import Meter, retrieval_depth, spend
from ..evaluation.metrics import sent_metrics
from ..text.spans import CharCounter
from . import ExerciseFailed, exercise, pick, refuse_library

#: ``(chunk sizes, budget)`` cases for exercise 1: sizes that fill the budget in a few chunks, small
#: chunks that never fill it, empty chunks, one chunk larger than the budget, sizes that vary a lot.
_DEPTH_CASES = [
    ([400, 300, 500], 1000),
    ([600] * 5, 1000),
    ([100, 100, 1000], 300),
    ([50] * 10, 1000),
    ([3300] * 12, 250),
    ([0, 0, 500, 500], 500),
    ([1200, 80, 90, 2000, 70], 1000),
    ([], 500),
]


def solution_depth(sizes: list[int], budget: int) -> int:
    total = 0
    for n, size in enumerate(sorted(sizes), start=1):  # the worst ranking puts the smallest chunks first
        total += size
        if total >= budget:
            return n
    return len(sizes)  # even every chunk together does not fill the budget


@exercise("16.1", "how deep must a retriever rank?", "implement", solution=solution_depth,
          wrong=(lambda: lambda sizes, budget: math.ceil(budget / (sum(sizes) / len(sizes))) if sizes else 0,
                 lambda: lambda sizes, budget: min(len(sizes), math.ceil(budget / max(sizes))) if sizes else 0,
                 lambda: retrieval_depth))
def check_depth(candidate) -> str:
    """`candidate(sizes, budget)` must give `chunklab.evaluation.budget.retrieval_depth` on every case,
    without calling it."""
    candidate = refuse_library(candidate, budget_module, what="retrieval_depth")
    for sizes, budget in _DEPTH_CASES:
        got, expected = candidate(list(sizes), budget), retrieval_depth(sizes, budget)
        if got != expected:
            raise ExerciseFailed(
                f"for chunk sizes {sizes} and a budget of {budget}, your function says {got}; the depth that "
                f"fills the budget whatever the ranking is {expected}. Hint: the ranking is not known in advance, "
                "so plan for the worst one; and a chunking whose chunks all together hold less than the budget "
                "can send no more than all of them."
            )
    return f"it agrees with `chunklab.evaluation.budget.retrieval_depth` on all {len(_DEPTH_CASES)} cases."


#: Exercise 2's question: two ranked chunks (the second overlaps the first), two golden excerpts, a
#: budget, every character counted.
SCORE_CASE = {"ranked": [(0, 40), (30, 70)], "golden": [(35, 50), (100, 110)], "budget": 60}


def _reference_scores() -> dict[str, float]:
    counter = CharCounter()
    ranked = SCORE_CASE["ranked"]
    sent, _ = spend(ranked, [e - s for s, e in ranked], SCORE_CASE["budget"], Meter("", counter))
    return sent_metrics(sent, SCORE_CASE["golden"], counter)


def solution_scores() -> dict[str, float]:
    # sent: [0, 40) whole (40 characters), then [30, 70) cut after 20 characters: [30, 50)
    # golden: [35, 50) lies inside what was sent (15 characters), [100, 110) does not (10)
    return {"answered": 0, "recall": 15 / 25, "precision": 15 / 60, "iou": 15 / (60 + 25 - 15)}


#: How far an answer may be from the exact value: half a unit in the second decimal place (0.21 for
#: 15 / 70 passes), plus a little for floating point.
_ROUNDED = 0.005 + 1e-9

_SCORE_HINTS = {
    "answered": "answered means every golden excerpt lies wholly inside what was sent.",
    "recall": "recall is the share of golden characters that were sent.",
    "precision": "precision divides by everything sent, the budget: the overlap [30, 40) is sent twice and paid "
                 "twice.",
    "iou": "IoU is covered / (sent + golden - covered), with sent counted as the budget spent.",
}


@exercise("16.2", "one question at a budget", "predict", solution=solution_scores,
          wrong=(lambda: {"answered": 0, "recall": 0.6, "precision": 15 / 80, "iou": 15 / 90},
                 lambda: {"answered": 1, "recall": 0.6, "precision": 0.25, "iou": 15 / 70},
                 lambda: {"answered": 0, "recall": 0.6, "precision": 15 / 50, "iou": 15 / 60},
                 lambda: {"answered": 0, "recall": 0.6, "precision": 0.25, "iou": 0.22},
                 lambda: {"answered": 0, "recall": "0.6", "precision": 0.25, "iou": 0.21}))
def check_scores(answer) -> str:
    """`answer` maps answered, recall, precision and iou to numbers: any real number type (an int, a
    float, a `Fraction`, a numpy scalar), exact or rounded to the two decimal places the question asks for."""
    if not isinstance(answer, dict) or set(answer) != set(_SCORE_HINTS):
        raise ExerciseFailed(f"answer with a dict of the four metrics: {sorted(_SCORE_HINTS)}")
    expected = _reference_scores()
    for metric, hint in _SCORE_HINTS.items():
        value = answer[metric]
        if not isinstance(value, numbers.Real):
            raise ExerciseFailed(f"{metric} = {value!r} is not a number: give each metric as a number, such as 15 / 25")
        if not math.isclose(float(value), expected[metric], abs_tol=_ROUNDED):
            raise ExerciseFailed(f"{metric} = {value!r} is not right. Hint: {hint}")
    return ("the second chunk was cut at the budget, so the reader got 60 characters: the first excerpt whole, the "
            "second not at all.")


#: Exercise 3's explanations of why the page chunker ranks first with k chunks and last at a budget.
PAGE_CHOICES = {
    "A": "The budget view counts tokens and the k view counts characters, so a long page costs more in the "
         "budget view and fewer are sent.",
    "B": "BM25 penalises long texts, so the pages are ranked lower in the budget view than in the view with k "
         "chunks, and lose their lead.",
    "C": "Five pages hold many times the text of five small chunks: pages find more by sending more, and at a "
         "budget the top page is cut.",
    "D": "Pages cut sentences at page breaks, and the budget view never counts an answer that a chunk boundary "
         "cuts, while the k view does.",
}
_PAGE_HINTS = {
    "A": "both views count characters here (budget_unit='chars').",
    "B": "the ranking is the same in both views (one ranking per chunking); only how much of it is sent "
         "differs.",
    "D": "an answer spread over two sent chunks still counts as answered, and a page cut by a page break is "
         "the same chunk in both views.",
}


def solution_page_choice() -> str:
    return "C"


@exercise("16.3", "why do pages win with k chunks and lose at a budget?", "explain", solution=solution_page_choice,
          wrong=(lambda: "A", lambda: "B", lambda: "D"))
def check_page_choice(choice) -> str:
    """One letter of `PAGE_CHOICES`."""
    pick(choice, PAGE_CHOICES, _PAGE_HINTS, solution_page_choice())
    return "k chunks is a budget too, only a different one for every chunk size: the budget view makes it the same."
