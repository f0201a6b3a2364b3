"""The resampling gate: is there a chunking to recommend, or is the choice still a guess?

A leaderboard always has a first row. Whether that row is a *recommendation* depends on how often the
same chunking would come first if the questions had been a little different. The gate answers that
by resampling the questions and asking again:

* **Resampling.** The questions are drawn again with replacement *within each document* (a document
  with 20 questions gets 20 draws from its own 20), `resamples` times (2,000 by default), with a fixed
  `seed`, so the same table always gives the same answer. Keeping each document's share fixed keeps a
  document with many questions from drifting in and out of the resamples.
* **Best in a resample.** The chunking with the highest mean score on the resampled questions. When
  several share that mean (within floating-point rounding), each gets an equal fraction of that
  resample (two tied: one half each), so the shares of all chunkings add up to 1.
* **The verdict.** A chunking is *recommended* only when it is best in at least `choose` (90 %) of the
  resamples; a chunking best in under `rule_out` (2.5 %) is *ruled out* by these questions; every
  other one is still a contender. The recommended chunking's share is the choice's **stability**:
  how often the same chunking is chosen when the questions are resampled.
* **How many more questions.** For the two chunkings with the largest shares, the number of
  questions at which a paired test at `alpha` (5 %) would be expected to tell them apart with
  probability `power` (80 %), if new questions behaved like these: for yes/no scores Connor's sample
  size for McNemar's test (Biometrics 43, 1987) from the observed discordant shares ``p10`` (only the
  first answers) and ``p01`` (only the second), ``n = (z_a √ψ + z_b √(ψ − δ²))² / δ²`` with
  ``ψ = p10 + p01``, ``δ = p10 − p01``, ``z_a`` the normal quantile at ``1 − alpha / 2`` and ``z_b``
  at `power`; for other scores the paired normal formula ``n = (z_a + z_b)² σ² / δ²`` with ``δ`` and
  ``σ`` the mean and standard deviation of the per-question differences. The estimate is the
  number *more* than there are (at least one while the paired test of
  `chunklab.evaluation.paired.paired` does not yet separate them, 0 once it does), or None when
  the two disagree evenly or not at all (no number of such questions separates them). The smaller
  the gap between the two at the same disagreement, the more questions it takes.

Stability alone is not enough: two chunkings that differ on two questions, both in the first's
favour, give the first every resample that draws either question (about 94 %) while McNemar's test
cannot separate them (p = 0.5). So a recommendation also needs the paired test of
`chunklab.evaluation.paired.paired` to separate the two leaders, as the course's "beats" does;
`Gate.text` says which condition is missing when it refuses.

`resampling_gate` applies the gate to a questions × chunkings table of scores
(`chunklab.evaluation.verdicts.gate` reads one from a `Comparison`); `questions_to_separate` is the
estimate on its own; `choice_stability` resamples the questions the same way for any choice rule (a
worst-regret rule, "keep the default unless...") and says how often it picks what it picks on all of them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from ..caches import PER_TEXT, cached
from .paired import paired

__all__ = [
    "CHOOSE",
    "RESAMPLES",
    "RULE_OUT",
    "Gate",
    "Stability",
    "choice_stability",
    "questions_to_separate",
    "resampling_gate",
    "stratified_weights",
]

#: How often a chunking must be best over the resamples to be recommended.
CHOOSE = 0.90
#: A chunking best in fewer resamples than this is ruled out by the questions.
RULE_OUT = 0.025
#: Resamples of the questions the gate draws unless told otherwise.
RESAMPLES = 2_000
#: Two means closer than this are the same mean (they differ only by floating-point rounding).
_SAME_MEAN = 1e-12


def stratified_weights(groups: Sequence[Any], resamples: int = RESAMPLES, seed: int = 0) -> np.ndarray:
    """How often each question is drawn in each resample, resampling within each group: a
    ``(resamples, len(groups))`` float array where the questions of one group (``groups[i]`` is the
    document of question ``i``) are drawn as many times in all as the group has questions. Groups are
    drawn in sorted order from one generator seeded with `seed`, so the same call gives the same draws."""
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    labels = tuple(str(g) for g in groups)
    if not labels:
        raise ValueError("need at least one question")
    return _stratified_weights(labels, resamples, seed)


@cached(PER_TEXT)
def _stratified_weights(labels: tuple[str, ...], resamples: int, seed: int) -> np.ndarray:
    """`stratified_weights` of checked group labels, drawn once per set of questions (every
    leaderboard of one comparison resamples the same questions), read-only."""
    rng = np.random.default_rng(seed)
    weights = np.zeros((resamples, len(labels)))
    for group in sorted(set(labels)):
        members = [i for i, label in enumerate(labels) if label == group]
        weights[:, members] = rng.multinomial(len(members), np.full(len(members), 1 / len(members)), size=resamples)
    weights.flags.writeable = False
    return weights


def questions_to_separate(a: Sequence[float] | Any, b: Sequence[float] | Any, alpha: float = 0.05,
                          power: float = 0.8) -> float:
    """How many questions a paired test at `alpha` needs to tell `a` from `b` with probability
    `power`, if questions behaved like these (the module docstring gives both formulas): Connor's
    McNemar sample size for yes/no scores, the paired normal one otherwise. ``math.inf`` when the
    two disagree evenly or not at all."""
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise ValueError(f"alpha and power must be between 0 and 1, got alpha={alpha}, power={power}")
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.ndim != 1 or x.shape != y.shape or not len(x):
        raise ValueError(f"a and b need one score per question each, the same number; got {x.shape} and {y.shape}")
    z_a, z_b = NormalDist().inv_cdf(1 - alpha / 2), NormalDist().inv_cdf(power)
    if np.isin(x, (0.0, 1.0)).all() and np.isin(y, (0.0, 1.0)).all():
        p10, p01 = float(np.mean((x == 1) & (y == 0))), float(np.mean((x == 0) & (y == 1)))
        psi, delta = p10 + p01, p10 - p01
        if abs(delta) < _SAME_MEAN:
            return math.inf
        return (z_a * math.sqrt(psi) + z_b * math.sqrt(max(psi - delta**2, 0.0))) ** 2 / delta**2
    d = x - y
    delta, sd = float(d.mean()), float(d.std(ddof=1)) if len(d) > 1 else 0.0
    if abs(delta) < _SAME_MEAN:
        return math.inf
    return (z_a + z_b) ** 2 * sd**2 / delta**2


@dataclass(frozen=True)
class Gate:
    """What the resampling gate says about a questions × chunkings table (see `resampling_gate`).

    ``shares`` maps every chunking to the fraction of resamples in which it is best, largest first
    (ties by mean); ``means`` are the means on all the questions. ``leaders`` are the two chunkings
    with the largest shares (one when there is only one chunking), ``more_questions`` the estimate of
    how many more questions would separate them (None: none would), ``separated`` whether the paired
    test already separates them.
    """

    shares: dict[str, float]
    means: dict[str, float]
    questions: int
    documents: int
    resamples: int
    seed: int
    choose: float
    rule_out: float
    leaders: tuple[str, ...]
    more_questions: int | None
    separated: bool

    @property
    def stability(self) -> float:
        """The largest share: how often the most often chosen chunking is chosen (a fraction)."""
        return next(iter(self.shares.values()))

    @property
    def recommended(self) -> str | None:
        """The chunking best in at least ``choose`` of the resamples and separated from the runner-up
        by the paired test, or None (the gate refuses)."""
        top = next(iter(self.shares))
        stable = self.shares[top] >= self.choose
        return top if stable and (self.separated or len(self.leaders) < 2) else None

    @property
    def ruled_out(self) -> list[str]:
        """The chunkings best in fewer than ``rule_out`` of the resamples, largest share first."""
        return [label for label, share in self.shares.items() if share < self.rule_out]

    @property
    def contenders(self) -> list[str]:
        """The chunkings neither recommended nor ruled out."""
        return [label for label, share in self.shares.items()
                if label != self.recommended and share >= self.rule_out]

    def text(self) -> str:
        """The verdict in one paragraph: the recommendation or the refusal, the ruled-out
        chunkings, and how many more questions would separate the two leaders."""
        draws = f"{self.resamples:,} resamples of the {self.questions} questions"
        if self.documents > 1:
            draws += f" within each of the {self.documents} documents"
        top = next(iter(self.shares))
        if self.recommended is not None:
            words = f"recommended: {top} (best in {self.stability:.0%} of {draws})"
        elif self.stability >= self.choose:
            words = (f"no recommendation: {top} is best in {self.stability:.0%} of {draws}, but the paired test "
                     f"does not separate it from {self.leaders[1]}")
        else:
            words = (f"no recommendation: the most often best, {top}, is best in only {self.stability:.0%} of {draws} "
                     f"({self.choose:.0%} needed)")
        if self.ruled_out:
            words += f"; ruled out (best in under {self.rule_out:.1%}): {', '.join(self.ruled_out)}"
        if len(self.leaders) == 2:
            first, second = self.leaders
            if self.separated:
                words += f"; the paired test already separates {first} from {second}"
            elif self.more_questions is None:
                words += f"; {first} and {second} disagree evenly, so more such questions would not separate them"
            else:
                words += (f"; about {self.more_questions:,} more questions like these would be expected to separate "
                          f"{first} from {second}")
        return words

    def __str__(self) -> str:
        return self.text()


def resampling_gate(
    table: Any,
    groups: Sequence[Any] | None = None,
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
    choose: float = CHOOSE,
    rule_out: float = RULE_OUT,
    alpha: float = 0.05,
    power: float = 0.8,
) -> Gate:
    """The gate (module docstring) on `table`: a pandas DataFrame, one row per question and one
    column per chunking, of scores (``answered``: 0 or 1). `groups` gives each row's document (None:
    one group). `choose` and `rule_out` are fractions with ``0 < rule_out < choose <= 1``."""
    if not 0 < rule_out < choose <= 1:
        raise ValueError(f"need 0 < rule_out < choose <= 1, got rule_out={rule_out}, choose={choose}")
    labels = [str(c) for c in table.columns]
    if not labels or len(set(labels)) != len(labels):
        raise ValueError(f"need at least one chunking, each named once; got {labels}")
    scores = np.asarray(table, dtype=float)
    if np.isnan(scores).any():
        raise ValueError("the table must not hold missing scores")
    groups = [0] * len(scores) if groups is None else list(groups)
    if len(groups) != len(scores):
        raise ValueError(f"groups needs one entry per question: {len(groups)} for {len(scores)} questions")
    means = (stratified_weights(groups, resamples, seed) @ scores) / len(scores)
    best = means >= means.max(axis=1, keepdims=True) - _SAME_MEAN
    credit = (best / best.sum(axis=1, keepdims=True)).mean(axis=0)
    overall = scores.mean(axis=0)
    order = sorted(range(len(labels)), key=lambda i: (-credit[i], -overall[i]))
    shares = {labels[i]: float(credit[i]) for i in order}
    leaders = tuple(labels[i] for i in order[:2])
    more, separated = None, False
    if len(leaders) == 2:
        x, y = scores[:, order[0]], scores[:, order[1]]
        separated = paired(x, y, leaders, confidence=1 - alpha).winner is not None
        needed = questions_to_separate(x, y, alpha, power)
        if separated:
            more = 0
        elif math.isfinite(needed):
            more = max(1, math.ceil(needed) - len(scores))
    return Gate(shares=shares, means={labels[i]: float(overall[i]) for i in order}, questions=len(scores),
                documents=len(set(map(str, groups))), resamples=resamples, seed=seed, choose=choose,
                rule_out=rule_out, leaders=leaders, more_questions=more, separated=separated)


@dataclass(frozen=True)
class Stability:
    """How stable a choice is under resampling of the questions (see `choice_stability`):
    ``chosen`` on all the questions, ``share`` the fraction of resamples that choose it too, and
    ``shares`` every choice made in a resample with its fraction, most frequent first."""

    chosen: Any
    share: float
    shares: dict[Any, float]
    resamples: int

    @property
    def decided(self) -> bool:
        """Is the choice made in at least `CHOOSE` (90 %) of the resamples? Less is a guess."""
        return self.share >= CHOOSE

    def text(self) -> str:
        """``"<chosen> is chosen in 74% of 2,000 resamples: a guess"``, or ``": a choice"``."""
        verdict = "a choice" if self.decided else f"a guess (under {CHOOSE:.0%})"
        return f"{self.chosen} is chosen in {self.share:.0%} of {self.resamples:,} resamples of the questions: {verdict}"


def choice_stability(
    table: Any,
    choose: Callable[[Any], Any],
    groups: Sequence[Any] | None = None,
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> Stability:
    """How often `choose` picks, on resampled questions, what it picks on all of them.

    `table` is a pandas DataFrame with one row per question (any columns: a chunking's or a
    variant's scores per question and retriever, say) and `choose` a function from such a table
    to a choice (a label). Each resample draws the rows again within each group of `groups` (the
    rows' documents; None: one group), as `resampling_gate` does with the same `seed`, and passes
    `choose` the table of the drawn rows (a row drawn twice appears twice, with its index, so
    `choose` can still tell which document a row is about)."""
    weights = stratified_weights([0] * len(table) if groups is None else list(groups), resamples, seed)
    chosen = choose(table)
    picks = Counter(choose(table.iloc[np.repeat(np.arange(len(table)), row.astype(int))]) for row in weights)
    shares = {pick: count / resamples for pick, count in picks.most_common()}
    return Stability(chosen=chosen, share=shares.get(chosen, 0.0), shares=shares, resamples=resamples)
