"""The course's goal, measured honestly: is the hybrid chunker the strategy to recommend?

The claim (issues 18 and 20): **at every budget of text sent and with every retriever, on questions
nothing was tuned on, the hybrid chunker's default is the best strategy or tied with the best.**
"Tied" is `chunklab.evaluation.verdicts.leaderboard`'s mark: the paired comparison with the best
(bootstrap interval and McNemar's exact test, `chunklab.evaluation.paired`) finds no measurable
difference.

The hybrid meets every registered strategy at its defaults, each measured without and (where its
chunks carry one) with its context indexed, and four baselines **of the hybrid's own mean chunk
size**, so that no verdict can come from a difference in size alone: fixed windows snapped to
words, the recursive separator cascade, sentences packed to a size, and paragraphs
(`size_matched_baselines`). The hybrid itself is judged in one setting chosen beforehand on the dev
questions (`HYBRID_SETTING`: its context indexed); the other setting is one more competitor.

`check_goal` runs it all through `chunklab.evaluation.comparison.compare` and returns a `GoalCheck`;
`goal_verdict` judges a `Comparison` measured elsewhere (notebook 16 measures every strategy anyway).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from ..core import CHUNKERS, Chunker
from ..formats.corpus import Split, list_documents, load_document
from ..formats.document import Document
from ..strategies import FixedSizeChunker, HybridChunker, ParagraphChunker, RecursiveChunker, SentenceChunker
from .budget import Comparison
from .comparison import compare
from .paired import paired
from .retrieval import Retriever
from .verdicts import leaderboard

__all__ = [
    "GOAL_BUDGETS",
    "HYBRID_LABEL",
    "HYBRID_SETTING",
    "GoalCheck",
    "check_goal",
    "goal_chunkers",
    "goal_verdict",
    "mean_chunk_size",
    "size_matched",
    "size_matched_baselines",
]

#: The budgets (characters sent per question) the goal is judged at.
GOAL_BUDGETS = (500, 1000, 2000)
#: The hybrid's label among the chunkings `goal_chunkers` returns.
HYBRID_LABEL = "hybrid"
#: The row the hybrid is judged by: its chunks indexed with their context (chosen on dev questions).
HYBRID_SETTING = f"{HYBRID_LABEL} + context"


def mean_chunk_size(chunker: Chunker, docs: Sequence[Document]) -> float:
    """The mean chunk size in characters of `chunker` over every chunk of `docs`."""
    sizes = [len(c) for d in docs for c in chunker(d.text)]
    return statistics.fmean(sizes) if sizes else 0.0


def size_matched(make: Callable[[int], Chunker], mean: float, docs: Sequence[Document], low: int = 20,
                 high: int = 4000) -> Chunker:
    """``make(chunk_size)`` at a `chunk_size` in ``[low, high]`` whose mean chunk size over `docs` is
    about `mean`: bisection finds where the mean crosses `mean` (it grows with the size, though not
    strictly: snapping and merging make it wobble), then the closer of the two sizes at the crossing."""
    def mean_at(size: int) -> float:
        return mean_chunk_size(make(size), docs)

    lo, hi = low, high
    while lo < hi:
        middle = (lo + hi) // 2
        if mean_at(middle) < mean:
            lo = middle + 1
        else:
            hi = middle
    best = min({max(low, lo - 1), lo}, key=lambda size: (abs(mean_at(size) - mean), size))
    return make(best)


#: The size-matched baselines: how to build each at a given size.
BASELINES: dict[str, Callable[[int], Chunker]] = {
    "fixed (snapped to words)": lambda size: FixedSizeChunker(chunk_size=size, snap_to_words=True),
    "recursive": lambda size: RecursiveChunker(chunk_size=size, chunk_overlap=0),
    "sentence": lambda size: SentenceChunker(chunk_size=size),
    "paragraph": lambda size: ParagraphChunker(chunk_size=size, min_chunk_size=min(200, size // 2)),
}


def size_matched_baselines(mean: float, docs: Sequence[Document]) -> dict[str, Chunker]:
    """Fixed windows snapped to words, recursive (no overlap), sentence and paragraph chunkers, each
    at the `chunk_size` that gives it a mean chunk size of about `mean` characters over `docs`,
    labelled ``"<name> <chunk_size>, same mean size"``."""
    out = {}
    for name, make in BASELINES.items():
        chunker = size_matched(make, mean, docs)
        out[f"{name} {chunker.chunk_size}, same mean size"] = chunker
    return out


def goal_chunkers(hybrid: Chunker | None = None, docs: Sequence[Document] = (),
                  strategies: Sequence[str] | None = None) -> dict[str, Chunker]:
    """The chunkings the goal compares: `hybrid` (default ``HybridChunker()``) as `HYBRID_LABEL`,
    every registered strategy at its defaults under its name (or those in `strategies`), and, when
    `docs` are given, the `size_matched_baselines` of the hybrid's mean chunk size over them."""
    hybrid = hybrid if hybrid is not None else HybridChunker()
    names = [n for n in CHUNKERS if n != HYBRID_LABEL and (strategies is None or n in strategies)]
    chunkers: dict[str, Chunker] = {HYBRID_LABEL: hybrid, **{n: CHUNKERS[n]() for n in names}}
    if docs:
        chunkers.update(size_matched_baselines(mean_chunk_size(hybrid, docs), docs))
    return chunkers


@dataclass(frozen=True)
class GoalCheck:
    """What `check_goal` measured: the `comparison` (every chunking, retriever and budget, per
    question), the `verdict` (`goal_verdict`) and the split it was judged on."""

    comparison: Comparison
    verdict: Any
    split: str | None

    @property
    def met(self) -> bool:
        """Is the hybrid best or tied with the best at every budget and with every retriever?"""
        return bool(self.verdict["met"].all())

    def leaderboard(self, retriever: str, budget: int) -> Any:
        """`chunklab.evaluation.verdicts.leaderboard` of the goal's comparison on its split."""
        return leaderboard(self.comparison, retriever, budget, split=self.split)


def goal_verdict(result: Comparison, hybrid: str = HYBRID_SETTING, split: str | None = None) -> Any:
    """The goal judged at every retriever and budget of `result`: one row each.

    Columns: ``retriever``, ``budget``, ``hybrid`` (its mean share answered), ``rank`` (its place in
    the `leaderboard`), ``mark`` (``"best"``, ``"tied"`` or ``""``), ``best`` and ``best_answered``
    (the leader), ``beaten_by`` (every chunking that measurably beats the hybrid in a paired
    comparison of the two alone, best first, as ``"label (share)"``; empty when none) and ``met``
    (the mark is best or tied). `hybrid` is the label of the hybrid's row; `split` keeps one
    question split.
    """
    import pandas as pd

    rows = []
    for retriever in dict.fromkeys(result.rows["retriever"]):
        for budget in sorted(set(result.rows["budget"])):
            board = leaderboard(result, retriever, budget, split=split)
            if hybrid not in set(board["chunker"]):
                raise ValueError(f"no chunking labelled {hybrid!r} was measured")
            place = board.index[board["chunker"] == hybrid][0]
            mine = board.loc[place]
            table = _answered_by_question(result, retriever, budget, split)
            beaten_by = []
            for _, other in board.loc[: place - 1].iterrows():
                comparison = paired(table[hybrid], table[other["chunker"]], (hybrid, other["chunker"]))
                if comparison.winner == other["chunker"]:
                    beaten_by.append(f"{other['chunker']} ({other['answered']:.1%})")
            rows.append({
                "retriever": retriever, "budget": budget, "hybrid": mine["answered"], "rank": int(place),
                "of": len(board), "mark": mine["mark"], "best": board.iloc[0]["chunker"],
                "best_answered": board.iloc[0]["answered"], "beaten_by": ", ".join(beaten_by),
                "met": mine["mark"] in ("best", "tied"),
            })
    return pd.DataFrame(rows)


def _answered_by_question(result: Comparison, retriever: str, budget: int, split: str | None) -> Any:
    """Questions × chunkings table of ``answered`` for one retriever and budget."""
    rows = result.rows
    chosen = (rows["retriever"] == retriever) & (rows["budget"] == budget)
    if split is not None:
        chosen &= rows["split"] == split
    return rows[chosen].pivot(index="question", columns="chunker", values="answered")


def check_goal(
    chunker: Chunker | None = None,
    split: Split = "test",
    retrievers: Sequence[str | Retriever] = ("bm25", "dense"),
    budgets: Sequence[int] = GOAL_BUDGETS,
    docs: Sequence[Document | str] | None = None,
    questions: Sequence[Mapping[str, Any]] | None = None,
    strategies: Sequence[str] | None = None,
    progress: bool = False,
) -> GoalCheck:
    """Measure the goal for `chunker` (default ``HybridChunker()``) on the `split` questions.

    `docs` default to the documents the split asks about, `questions` to the split's questions
    about them. The chunkings are `goal_chunkers` (every registered strategy, or `strategies`, and
    the size-matched baselines over `docs`), each measured without and with its context;
    `retrievers` and `budgets` as for `compare`. Returns a `GoalCheck`.
    """
    documents = [
        load_document(d) if isinstance(d, str) else d for d in (docs if docs is not None else list_documents(split))
    ]
    chunkers = goal_chunkers(chunker, documents, strategies)
    result = compare(chunkers, documents, questions, retrievers=retrievers, budget=list(budgets), split=split,
                     use_context="both", progress=progress)
    judged = None if split == "all" else split
    return GoalCheck(result, goal_verdict(result, split=judged), judged)
