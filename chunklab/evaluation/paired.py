"""Is a difference between two chunkings real? Paired comparisons on the same questions.

Two chunkings answered the same questions, so their scores are compared question by question:

* a **bootstrap confidence interval** of the mean difference: the questions are resampled with
  replacement (the same resample for both chunkings, so the pairing is kept) and the mean
  difference recomputed each time; the interval holds the middle `confidence` share of those means
  (the percentile interval; Efron & Tibshirani, *An Introduction to the Bootstrap*, 1993, ch. 13);
* for yes/no scores (``answered``), **McNemar's exact test**: only the questions one chunking
  answers and the other does not carry information, and if neither were better each of them would
  go either way with probability one half, so their split is binomial (McNemar, Psychometrika 12,
  1947; the exact binomial form is the usual one for small counts).

`paired` returns both and a verdict. "A beats B" is said only when the interval excludes zero and,
for a yes/no score, the exact test agrees at the same level; otherwise "no measurable difference".
The percentile interval alone is too ready to see a difference when few questions disagree (five
against none: the interval excludes zero, while the exact test gives p = 0.0625).

Numbers are shown so that they never say more than the test: `signed` never rounds a difference
or an interval's end that is not zero to "0.0" (nor "-0.0"), so an interval that excludes zero never
reads as touching it and one that touches zero never reads as excluding it (`interval_text`), and
`p_text` never rounds a p-value across the 0.05 line.

Everything is seeded: the same questions give the same resamples, so `leaderboard` and `guidance`
(`chunklab.evaluation.verdicts`) mark "no measurable difference" exactly where `paired` would report it one by one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..caches import PER_TEXT, cached

__all__ = [
    "Paired", "bootstrap_weights", "holm", "interval_text", "mcnemar_exact", "p_text", "paired", "paired_against", "signed",
]


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided p-value of McNemar's exact test from the discordant pairs: `a_only` questions only
    A answers, `b_only` only B. It is the binomial probability, with ``n = a_only + b_only`` and
    one half, of a split at least as uneven as the one seen (1.0 when nothing is discordant)."""
    if a_only < 0 or b_only < 0:
        raise ValueError(f"discordant counts must be >= 0, got {a_only} and {b_only}")
    n, low = a_only + b_only, min(a_only, b_only)
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(low + 1))
    return min(1.0, 2 * tail / 2**n)


def signed(value: float, digits: int = 1, scale: float = 1.0) -> str:
    """``value * scale`` with its sign (a true minus, "−") and `digits` decimals; zero is ``"0.0"``
    without a sign. A value that is not zero but would round to zero gets more decimals, up to four
    more, until a digit that is not zero shows (then scientific notation), so the text never turns a
    small difference into none, nor a zero into a negative."""
    value = float(value) * scale
    if value == 0:
        return f"{0:.{digits}f}"
    for places in range(digits, digits + 5):
        text = f"{value:+.{places}f}"
        if float(text) != 0:
            return text.replace("-", "−")
    return f"{value:+.1e}".replace("-", "−")


def interval_text(low: float, high: float, digits: int = 1, scale: float = 1.0) -> str:
    """``"<low> to <high>"``, both ends by `signed`: an end that is zero reads 0.0, an end that is not
    never does."""
    return f"{signed(low, digits, scale)} to {signed(high, digits, scale)}"


def p_text(p_value: float, alpha: float = 0.05) -> str:
    """``"p = 0.066"``: three decimals, more when three would round the p-value onto the other side
    of (or onto) `alpha`; ``"p < 0.001"`` below one in a thousand."""
    if p_value < 0.001:
        return "p < 0.001"
    for places in range(3, 8):
        shown = round(p_value, places)
        if (shown < alpha) == (p_value < alpha) and (shown != alpha or p_value == alpha):
            break
    return f"p = {p_value:.{places}f}"


def holm(p_values: Sequence[float], alpha: float = 0.05) -> list[bool]:
    """Which of `p_values` stay significant when they are judged together (Holm's step-down method,
    Scandinavian Journal of Statistics 6, 1979): sorted from the smallest, the i-th of m (from 0) must
    be below ``alpha / (m - i)``; the first that is not, and every larger one, is not significant.
    The chance of even one false alarm among all of them stays below `alpha`. Returns one bool per
    p-value, in the order given."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    keep = [False] * len(p_values)
    for rank, i in enumerate(order):
        if not p_values[i] < alpha / (len(p_values) - rank):
            break
        keep[i] = True
    return keep


@cached(PER_TEXT)
def bootstrap_weights(n: int, resamples: int = 10_000, seed: int = 0) -> np.ndarray:
    """How often each of `n` questions is drawn in each of `resamples` bootstrap resamples: a
    read-only ``(resamples, n)`` float32 array whose rows sum to `n` (multinomial counts, seeded, so
    the same call always gives the same resamples; remembered for the last 32 shapes, since a
    leaderboard compares every chunking on the same questions). ``weights @ scores / n`` are the
    resampled means; float32 holds the counts, and sums of yes/no scores, exactly."""
    if n < 1 or resamples < 1:
        raise ValueError(f"need n >= 1 and resamples >= 1, got n={n}, resamples={resamples}")
    counts = np.random.default_rng(seed).multinomial(n, np.full(n, 1.0 / n), size=resamples).astype(np.float32)
    counts.flags.writeable = False
    return counts


@dataclass(frozen=True)
class Paired:
    """The paired comparison of A and B on the same questions (see `paired`).

    ``difference`` is ``mean_a - mean_b``; ``low`` and ``high`` bound its bootstrap interval at
    ``confidence``. For yes/no scores ``a_only``/``b_only`` count the questions only A / only B
    got, and ``p_value`` is McNemar's exact test; both are None for other scores.
    """

    a: str
    b: str
    questions: int
    mean_a: float
    mean_b: float
    difference: float
    low: float
    high: float
    confidence: float
    a_only: int | None
    b_only: int | None
    p_value: float | None
    verdict: str

    @property
    def winner(self) -> str | None:
        """The name of the one that measurably beats the other, or None."""
        if self.verdict == "no measurable difference":
            return None
        return self.a if self.difference > 0 else self.b

    def __str__(self) -> str:
        """One line: the verdict and its numbers."""
        test = "" if self.p_value is None else (
            f", McNemar {p_text(self.p_value, 1 - self.confidence)} ({self.a_only} vs {self.b_only})")
        return (
            f"{self.verdict}: {self.a} {self.mean_a:.3f} vs {self.b} {self.mean_b:.3f}, difference "
            f"{signed(self.difference, 3)} ({self.confidence:.0%} CI {interval_text(self.low, self.high, 3)}{test}; "
            f"{self.questions} questions)"
        )


def paired(
    a: Sequence[float] | Any,
    b: Sequence[float] | Any,
    names: tuple[str, str] = ("A", "B"),
    confidence: float = 0.95,
    resamples: int = 10_000,
    seed: int = 0,
) -> Paired:
    """Compare two chunkings' scores on the same questions: bootstrap interval, exact test, verdict.

    `a` and `b` hold one score per question, in the same order (arrays or lists), or are pandas
    Series indexed by question, which are aligned by their index (they must hold the same
    questions). Scores that are all 0 or 1 are yes/no and also get McNemar's exact test.

    The verdict is ``"<A> beats <B>"`` (or ``"<B> beats <A>"``) when the `confidence` interval of
    the mean difference excludes zero and, for yes/no scores, McNemar's p-value is below
    ``1 - confidence``; otherwise ``"no measurable difference"``. `names` label A and B.
    """
    x, y = _aligned(a, b)
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    return _compare(x, y, names, confidence, bootstrap_weights(len(x), resamples, seed))


def _aligned(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    """`a` and `b` as float arrays in the same question order."""
    if hasattr(a, "index") and hasattr(b, "index") and hasattr(a, "reindex"):
        if a.index.has_duplicates or b.index.has_duplicates:
            raise ValueError("each question may appear once in a and once in b")
        if set(a.index) != set(b.index):
            raise ValueError("a and b must hold the same questions")
        b = b.reindex(a.index)
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape or len(x) == 0:
        raise ValueError(f"a and b need one score per question each, the same number; got {x.shape} and {y.shape}")
    if np.isnan(x).any() or np.isnan(y).any():
        raise ValueError("a and b must not hold missing scores")
    return x, y


def _compare(x: np.ndarray, y: np.ndarray, names: tuple[str, str], confidence: float, weights: np.ndarray) -> Paired:
    """`paired` on aligned arrays with given bootstrap weights."""
    return _compare_many(x, y[:, None], [names], confidence, weights)[0]


def _compare_many(
    x: np.ndarray, ys: np.ndarray, names: Sequence[tuple[str, str]], confidence: float, weights: np.ndarray
) -> list[Paired]:
    """`paired` of `x` against each column of `ys` (``(n, m)``), with given bootstrap weights.

    Every column is resampled with the same weights in one matrix product, so comparing one
    chunking with many costs about as much as comparing it with one; the result for a column is
    the one `paired` gives for that pair alone (the resampled sums are whole numbers for yes/no
    scores, so the order of summation cannot change them)."""
    n = len(x)
    resampled = (weights @ (x[:, None] - ys).astype(np.float32)).astype(np.float64) / n
    tail = (1 - confidence) / 2
    lows, highs = np.quantile(resampled, [tail, 1 - tail], axis=0)
    x_binary = bool(np.isin(x, (0.0, 1.0)).all())
    mean_a = float(x.mean())
    out = []
    for j, pair in enumerate(names):
        y = ys[:, j]
        mean_b = float(y.mean())
        low, high = float(lows[j]), float(highs[j])
        a_only = b_only = p_value = None
        if x_binary and np.isin(y, (0.0, 1.0)).all():
            a_only, b_only = int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())
            p_value = mcnemar_exact(a_only, b_only)
        significant = (low > 0 or high < 0) and (p_value is None or p_value < 1 - confidence)
        if significant:
            verdict = f"{pair[0]} beats {pair[1]}" if low > 0 else f"{pair[1]} beats {pair[0]}"
        else:
            verdict = "no measurable difference"
        out.append(Paired(
            a=pair[0], b=pair[1], questions=n, mean_a=mean_a, mean_b=mean_b, difference=mean_a - mean_b,
            low=low, high=high, confidence=confidence,
            a_only=a_only, b_only=b_only, p_value=p_value, verdict=verdict,
        ))
    return out


def paired_against(
    a: Any,
    others: Any,
    names: Sequence[tuple[str, str]],
    confidence: float = 0.95,
    resamples: int = 10_000,
    seed: int = 0,
) -> list[Paired]:
    """`paired` of `a` (one score per question) against each column of `others` (a ``(questions,
    m)`` array, rows in the order of `a`): the same results as m calls of `paired`, computed
    together. `names` holds one ``(name of a, name of the other)`` pair per column."""
    x = np.asarray(a, dtype=np.float64)
    ys = np.asarray(others, dtype=np.float64)
    if ys.ndim != 2 or ys.shape[0] != len(x) or len(x) == 0 or ys.shape[1] != len(names):
        raise ValueError(f"need a of n scores, others of n × m scores and m names; got {x.shape}, {ys.shape} "
                         f"and {len(names)} names")
    if np.isnan(x).any() or np.isnan(ys).any():
        raise ValueError("a and others must not hold missing scores")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    return _compare_many(x, ys, names, confidence, bootstrap_weights(len(x), resamples, seed))
