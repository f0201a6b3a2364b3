"""The course's goal, measured honestly: is the hybrid chunker the strategy to recommend?

The first claim, on all the test questions: **at every budget of text sent and with every retriever, on questions
nothing was tuned on, the hybrid chunker's default is the best strategy or has no measurable difference from the best.**
That is `chunklab.evaluation.verdicts.leaderboard`'s mark ``"no measurable difference"``: the paired
comparison with the best (bootstrap interval and McNemar's exact test, `chunklab.evaluation.paired`)
cannot tell the two apart, which is not the same as equal.

The hybrid meets every registered strategy at its defaults, each measured without and (where its
chunks carry one) with its context indexed, and four baselines **of the hybrid's own mean chunk
size**, so that no verdict can come from a difference in size alone: fixed windows snapped to
words, the recursive separator cascade, sentences packed to a size, and paragraphs
(`size_matched_baselines`). The hybrid itself is judged in one setting chosen beforehand on the dev
questions (`HYBRID_SETTING`: its context indexed); the other setting is one more competitor.

`check_goal` runs it all through `chunklab.evaluation.comparison.compare` and returns a `GoalCheck`;
`goal_verdict` judges a `Comparison` measured elsewhere (notebook 16 measures every strategy anyway).

**The goal on documents nobody tuned for** (`unseen_verdict`). A learner's question is whether the
hybrid beats what they would use anyway on *their* documents. So the goal is also judged on the
test questions of the documents no dev question touches
(`chunklab.evaluation.transfer.unseen_documents`), at every retriever and budget, in two parts:

(a) the hybrid is never measurably worse than any other chunking measured, the reference rows of
    what practitioners use included (pass them to `check_goal` as `extra`, or measure them in the
    `Comparison` you judge: this module cannot import `chunklab.integrations`);
(b) it is measurably better than a `baseline` (LangChain's documented default) in at least `wins`
    of the settings (4 of the 6 by default) and measurably worse in none, with Holm's correction
    over the settings (`chunklab.evaluation.paired.holm`).

Part (a) is read without a correction: each comparison with another chunking at the 5 % level,
which finds a loss more readily than a corrected family would (the stricter reading for the
hybrid). The result, `UnseenVerdict`, holds one row per setting with both paired comparisons and
their McNemar p-values, and says whether each part is met.

**The budget-sized recommendation** (`chunklab.strategies.budget_rule`) is a different chunking at
each budget: `budget_sized` composes one row from the chunkings measured, each read at its own
budget, so that it is judged like any other chunking.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from typing import Any, Callable, Collection, Mapping, Sequence

from ..core import CHUNKERS, Chunker
from ..formats.corpus import Split, list_documents, load_document
from ..formats.document import Document
from ..strategies import FixedSizeChunker, HybridChunker, ParagraphChunker, RecursiveChunker, SentenceChunker
from .budget import Comparison
from .comparison import compare
from .paired import holm, paired
from .retrieval import Retriever
from .verdicts import NO_DIFFERENCE, leaderboard

__all__ = [
    "GOAL_BUDGETS",
    "GOAL_WINS",
    "HYBRID_LABEL",
    "HYBRID_SETTING",
    "GoalCheck",
    "UnseenVerdict",
    "budget_sized",
    "check_goal",
    "goal_chunkers",
    "goal_verdict",
    "mean_chunk_size",
    "size_matched",
    "size_matched_baselines",
    "unseen_verdict",
]

#: The budgets (characters sent per question) the goal is judged at.
GOAL_BUDGETS = (500, 1000, 2000)
#: The hybrid's label among the chunkings `goal_chunkers` returns.
HYBRID_LABEL = "hybrid"
#: The row the hybrid is judged by: its chunks indexed with their context (chosen on dev questions).
HYBRID_SETTING = f"{HYBRID_LABEL} + context"
#: Part (b) of the goal on unseen documents: settings of the six where the hybrid must beat the baseline.
GOAL_WINS = 4


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
                  strategies: Sequence[str] | None = None, extra: Mapping[str, Chunker] | None = None) -> dict[str, Chunker]:
    """The chunkings the goal compares: `hybrid` (default ``HybridChunker()``) as `HYBRID_LABEL`,
    every registered strategy at its defaults under its name (or those in `strategies`), when
    `docs` are given the `size_matched_baselines` of the hybrid's mean chunk size over them, and
    the `extra` chunkings by label (e.g. ``chunklab.integrations.references.reference_chunkers()``)."""
    hybrid = hybrid if hybrid is not None else HybridChunker()
    names = [n for n in CHUNKERS if n != HYBRID_LABEL and (strategies is None or n in strategies)]
    chunkers: dict[str, Chunker] = {HYBRID_LABEL: hybrid, **{n: CHUNKERS[n]() for n in names}}
    if docs:
        chunkers.update(size_matched_baselines(mean_chunk_size(hybrid, docs), docs))
    clashes = set(extra or {}) & set(chunkers)
    if clashes:
        raise ValueError(f"extra chunkings may not reuse the goal's labels: {sorted(clashes)}")
    chunkers.update(extra or {})
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
        """Is the hybrid best, or not measurably worse than the best, at every budget and retriever?"""
        return bool(self.verdict["met"].all())

    def leaderboard(self, retriever: str, budget: int) -> Any:
        """`chunklab.evaluation.verdicts.leaderboard` of the goal's comparison on its split."""
        return leaderboard(self.comparison, retriever, budget, split=self.split)


def goal_verdict(result: Comparison, hybrid: str = HYBRID_SETTING, split: str | None = None) -> Any:
    """The goal judged at every retriever and budget of `result`: one row each.

    Columns: ``retriever``, ``budget``, ``hybrid`` (its mean share answered), ``rank`` (its place in
    the `leaderboard`), ``mark`` (``"best"``, ``"no measurable difference"`` or ``""``), ``best`` and ``best_answered``
    (the leader), ``beaten_by`` (every chunking that measurably beats the hybrid in a paired
    comparison of the two alone, best first, as ``"label (share)"``; empty when none) and ``met``
    (the mark is not ``""``). `hybrid` is the label of the hybrid's row; `split` keeps one
    question split.
    """
    import pandas as pd

    rows = []
    for retriever in result.rows["retriever"].unique():
        for budget in sorted(result.rows["budget"].unique().tolist()):
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
                "met": mine["mark"] in ("best", NO_DIFFERENCE),
            })
    return pd.DataFrame(rows)


def _answered_by_question(result: Comparison, retriever: str, budget: int, split: str | None,
                          docs: Collection[str] | None = None) -> Any:
    """Questions × chunkings table of ``answered`` for one retriever and budget (and only the
    questions about `docs`, when given)."""
    rows = result.rows
    chosen = (rows["retriever"] == retriever) & (rows["budget"] == budget)
    if split is not None:
        chosen &= rows["split"] == split
    if docs is not None:
        chosen &= rows["doc"].isin(list(docs))
    return rows[chosen].pivot(index="question", columns="chunker", values="answered")


@dataclass(frozen=True)
class UnseenVerdict:
    """The goal judged on the unseen documents' questions (`unseen_verdict`).

    `settings` has one row per retriever × budget: ``questions``; ``hybrid`` (its share answered);
    part (a): ``best`` (every other chunking that shares the highest share, joined by ``" = "``),
    ``best_answered``, ``vs_best`` (hybrid minus best), ``vs_best_low``/``vs_best_high`` (its 95 %
    bootstrap interval), ``vs_best_p`` (McNemar's exact p; with several best, the comparison with the
    smallest p is shown), ``beaten_by`` (every chunking that measurably beats the hybrid, best first, as
    ``"label (share)"``) and ``never_worse``; part (b): ``baseline_answered``, ``vs_baseline``,
    ``vs_baseline_low``/``vs_baseline_high``, ``vs_baseline_p``, ``vs_baseline_holm`` (significant
    after Holm over the settings) and ``vs_baseline_verdict`` (``"better"``, ``"worse"`` or ``"no
    measurable difference"``). `hybrid`, `baseline`, `docs` and `wins` say what was judged.
    """

    settings: Any
    hybrid: str
    baseline: str
    docs: tuple[str, ...]
    wins: int

    @property
    def never_worse_than_best(self) -> bool:
        """Part (a): no chunking measurably beats the hybrid in any setting."""
        return bool(self.settings["never_worse"].all())

    @property
    def baseline_wins(self) -> int:
        """In how many settings the hybrid measurably beats the baseline (after Holm)."""
        return int((self.settings["vs_baseline_verdict"] == "better").sum())

    @property
    def baseline_losses(self) -> int:
        """In how many settings the baseline measurably beats the hybrid (after Holm)."""
        return int((self.settings["vs_baseline_verdict"] == "worse").sum())

    @property
    def better_than_baseline(self) -> bool:
        """Part (b): measurably better than the baseline in at least `wins` settings, worse in none."""
        return self.baseline_wins >= self.wins and self.baseline_losses == 0

    @property
    def met(self) -> bool:
        """Both parts of the goal."""
        return self.never_worse_than_best and self.better_than_baseline


def unseen_verdict(result: Comparison, baseline: str, docs: Sequence[str], hybrid: str = HYBRID_SETTING,
                   split: str = "test", wins: int = GOAL_WINS) -> UnseenVerdict:
    """The goal on documents nothing was tuned on: judge `hybrid` on the `split` questions about
    `docs` (normally `chunklab.evaluation.transfer.unseen_documents` of `result`), at every
    retriever and budget of `result`, against every other chunking measured (part a) and against
    `baseline` (part b, at least `wins` settings, Holm's correction over the settings). Paired
    comparisons on the same questions (`chunklab.evaluation.paired.paired`: bootstrap interval and
    McNemar's exact test)."""
    import pandas as pd

    if not docs:
        raise ValueError("unseen_verdict needs at least one document")
    rows = []
    for retriever in result.rows["retriever"].unique():
        for budget in sorted(result.rows["budget"].unique().tolist()):
            table = _answered_by_question(result, retriever, budget, split, docs)
            for label in (hybrid, baseline):
                if label not in table.columns:
                    raise ValueError(f"no chunking labelled {label!r} was measured on these questions")
            others = table.drop(columns=hybrid).mean().sort_values(ascending=False)
            tied = sorted(label for label, share in others.items() if share == others.iloc[0])
            versus_best = min((paired(table[hybrid], table[label], (hybrid, label)) for label in tied),
                              key=lambda test: test.p_value)
            beaten_by = [f"{label} ({share:.1%})" for label, share in others.items()
                         if share > table[hybrid].mean()
                         and paired(table[hybrid], table[label], (hybrid, label)).winner == label]
            versus_baseline = paired(table[hybrid], table[baseline], (hybrid, baseline))
            rows.append({
                "retriever": retriever, "budget": budget, "questions": len(table), "hybrid": versus_best.mean_a,
                "best": " = ".join(tied), "best_answered": versus_best.mean_b, "vs_best": versus_best.difference,
                "vs_best_low": versus_best.low, "vs_best_high": versus_best.high, "vs_best_p": versus_best.p_value,
                "beaten_by": ", ".join(beaten_by), "never_worse": not beaten_by,
                "baseline_answered": versus_baseline.mean_b, "vs_baseline": versus_baseline.difference,
                "vs_baseline_low": versus_baseline.low, "vs_baseline_high": versus_baseline.high,
                "vs_baseline_p": versus_baseline.p_value, "vs_baseline_winner": versus_baseline.winner,
            })
    settings = pd.DataFrame(rows)
    settings["vs_baseline_holm"] = holm(list(settings["vs_baseline_p"]))
    settings["vs_baseline_verdict"] = [
        "better" if kept and winner == hybrid else "worse" if kept and winner == baseline else "no measurable difference"
        for kept, winner in zip(settings["vs_baseline_holm"], settings.pop("vs_baseline_winner"))
    ]
    return UnseenVerdict(settings, hybrid, baseline, tuple(docs), wins)


def budget_sized(result: Comparison, labels: Mapping[int, str], label: str) -> Comparison:
    """`result` with one more chunking, `label`: at each budget of `labels` (``{budget: chunking
    label}``), the rows of the chunking measured for that budget, read at that budget only. This is
    how a budget-sized recommendation (`chunklab.strategies.HybridChunker` with ``budget``) is judged
    beside chunkings of one size."""
    import pandas as pd

    rows = result.rows
    if label in set(rows["chunker"].unique()):
        raise ValueError(f"a chunking labelled {label!r} was measured already")
    parts = []
    for budget, measured in labels.items():
        chosen = rows[(rows["chunker"] == measured) & (rows["budget"] == budget)]
        if chosen.empty:
            raise ValueError(f"no rows of chunking {measured!r} at budget {budget}")
        parts.append(chosen.assign(chunker=label))
    return replace(result, rows=pd.concat([rows, *parts], ignore_index=True))


def check_goal(
    chunker: Chunker | None = None,
    split: Split = "test",
    retrievers: Sequence[str | Retriever] = ("bm25", "dense"),
    budgets: Sequence[int] = GOAL_BUDGETS,
    docs: Sequence[Document | str] | None = None,
    questions: Sequence[Mapping[str, Any]] | None = None,
    strategies: Sequence[str] | None = None,
    extra: Mapping[str, Chunker] | None = None,
    progress: bool = False,
) -> GoalCheck:
    """Measure the goal for `chunker` (default ``HybridChunker()``) on the `split` questions.

    `docs` default to the documents the split asks about, `questions` to the split's questions
    about them. The chunkings are `goal_chunkers` (every registered strategy, or `strategies`, the
    size-matched baselines over `docs`, and the `extra` chunkings such as the reference rows), each
    measured without and with its context;
    `retrievers` and `budgets` as for `compare`. Returns a `GoalCheck`.
    """
    documents = [
        load_document(d) if isinstance(d, str) else d for d in (docs if docs is not None else list_documents(split))
    ]
    chunkers = goal_chunkers(chunker, documents, strategies, extra)
    result = compare(chunkers, documents, questions, retrievers=retrievers, budget=list(budgets), split=split,
                     use_context="both", progress=progress)
    judged = None if split == "all" else split
    return GoalCheck(result, goal_verdict(result, split=judged), judged)
