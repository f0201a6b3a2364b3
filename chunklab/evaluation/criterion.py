"""The pre-registered rule that chooses the recommended defaults (``docs/criterion.md``), as code.

Candidates are compared with today's default on the same dev questions, setting by setting (a
setting is a retriever and a budget):

1. per candidate and setting, the difference in share answered, its 95 % bootstrap interval and
   McNemar's exact p (`chunklab.evaluation.paired.paired`);
2. Holm's correction over the whole family (every candidate in every setting, `paired.holm`);
3. a candidate **qualifies** when it is measurably better than the default in at least one setting,
   measurably worse in none, and, on every kind of document, not measurably worse in any setting
   (McNemar on that kind's questions, Holm over kinds × settings for that candidate);
4. no candidate qualifies: the default stays; otherwise the qualifying candidate with the most
   measurably better settings, then the highest pooled share answered over the settings (then
   the earlier candidate).

**Stability.** The same rule is applied to `resamples` resamples of the questions, drawn with
replacement within each document (seed 0 by default): the share of resamples that make the same
choice is the stability (at least 90 % is *a choice*, less *a guess*), and every member chosen in
under 2.5 % of them is *ruled out*. The resampling is vectorised: per-question 0/1 outcomes become
discordant counts by one matrix product per kind of document, McNemar's exact p comes from the
binomial distribution function (the same test as `paired.mcnemar_exact`), and Holm's step-down
runs on sorted rows, so 2,000 resamples take seconds.

`apply_criterion` takes a tidy table (one row per candidate, setting and question) and returns a
`CriterionResult`; `candidate_rows` builds that table from a `compare` result when a candidate is
a different chunking at each budget (a rule from the budget to the sizes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .paired import holm, paired

__all__ = ["CHOICE_SHARE", "RULED_OUT_SHARE", "CriterionResult", "apply_criterion", "candidate_rows",
           "holm_rows", "mcnemar_p"]

#: Stability at or above which the choice is called "a choice" (below: "a guess").
CHOICE_SHARE = 0.90
#: Members chosen in fewer resamples than this share are named as ruled out.
RULED_OUT_SHARE = 0.025
_SETTING = ["retriever", "budget"]


def mcnemar_p(a_only: Any, b_only: Any) -> np.ndarray:
    """McNemar's exact two-sided p for arrays of discordant counts (elementwise), as
    `chunklab.evaluation.paired.mcnemar_exact` computes it for one pair: twice the binomial
    probability, with ``n = a_only + b_only`` and one half, of a split at least as uneven, at most 1."""
    from scipy.stats import binom

    a, b = np.asarray(a_only), np.asarray(b_only)
    n = a + b
    return np.minimum(1.0, 2 * binom.cdf(np.minimum(a, b), n, 0.5))


def holm_rows(p_values: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """`chunklab.evaluation.paired.holm` on every row of a 2-D array of p-values at once: a bool
    array of the same shape, True where a p-value stays significant within its row."""
    p = np.asarray(p_values, dtype=np.float64)
    m = p.shape[1]
    order = np.argsort(p, axis=1, kind="stable")
    passes = np.take_along_axis(p, order, axis=1) < alpha / (m - np.arange(m))
    kept = np.cumprod(passes, axis=1).astype(bool)
    out = np.zeros_like(kept)
    np.put_along_axis(out, order, kept, axis=1)
    return out


@dataclass(frozen=True)
class CriterionResult:
    """What `apply_criterion` found.

    `verdicts` has one row per candidate and setting: ``candidate``, ``retriever``, ``budget``,
    ``questions``, ``default_share`` and ``share`` (share answered), ``difference`` (candidate minus
    default), ``low``/``high`` (its 95 % bootstrap interval), ``p`` (McNemar's exact), ``holm``
    (significant after Holm over the family) and ``verdict`` (``"better"``, ``"worse"`` or ``"no
    measurable difference"``). `kind_worse` maps each candidate to the settings and kinds where it
    is measurably worse on that kind's questions (``"<kind>: <retriever> <budget>"``). `qualifying`
    lists the candidates that qualify, `chosen` the choice (`default` when none qualifies),
    `stability` the share of resamples that choose it, `chosen_share` how often each member is
    chosen, and `ruled_out` the members chosen in under `RULED_OUT_SHARE` of the resamples.
    """

    verdicts: Any
    kind_worse: dict[str, list[str]]
    qualifying: list[str]
    chosen: str
    default: str
    stability: float
    chosen_share: dict[str, float]
    ruled_out: list[str]
    resamples: int

    @property
    def word(self) -> str:
        """``"a choice"`` when the stability is at least `CHOICE_SHARE`, else ``"a guess"``."""
        return "a choice" if self.stability >= CHOICE_SHARE else "a guess"


def candidate_rows(rows: Any, assignment: Mapping[str, Mapping[int, str]]) -> Any:
    """The tidy table `apply_criterion` reads, from `compare`'s ``rows``: for each candidate of
    `assignment` (``{candidate: {budget: chunking label}}``), the rows of the chunking it uses at each
    budget, at that budget only, relabelled with the candidate's name (column ``candidate``)."""
    import pandas as pd

    parts = []
    for candidate, by_budget in assignment.items():
        for budget, label in by_budget.items():
            chosen = rows[(rows["chunker"] == label) & (rows["budget"] == budget)]
            if chosen.empty:
                raise ValueError(f"no rows of chunking {label!r} at budget {budget} (candidate {candidate!r})")
            parts.append(chosen.assign(candidate=candidate))
    return pd.concat(parts, ignore_index=True)


def _outcomes(rows: Any, members: Sequence[str]) -> tuple[np.ndarray, list[tuple[str, int]], Any]:
    """``(members, settings, questions)`` 0/1 array, the settings, and the questions (index:
    question id; columns ``doc`` and ``doc_kind``)."""
    settings = sorted({(str(r), int(b)) for r, b in rows[_SETTING].drop_duplicates().itertuples(index=False)},
                      key=lambda s: (s[0], s[1]))
    questions = rows.drop_duplicates("question").set_index("question")[["doc", "doc_kind"]].sort_index()
    table = rows.pivot_table(index="question", columns=["candidate", *_SETTING], values="answered", aggfunc="first")
    out = np.zeros((len(members), len(settings), len(questions)), dtype=np.float64)
    for i, member in enumerate(members):
        for j, (retriever, budget) in enumerate(settings):
            key = (member, retriever, budget)
            if key not in table.columns:
                raise ValueError(f"no outcomes for {member!r} with {retriever} at {budget}")
            column = table[key].reindex(questions.index)
            if column.isna().any():
                raise ValueError(f"{member!r} with {retriever} at {budget} misses some questions")
            out[i, j] = column.to_numpy()
    if not np.isin(out, (0.0, 1.0)).all():
        raise ValueError("the criterion reads yes/no outcomes (answered: 0 or 1)")
    return out, settings, questions


def _resample_weights(docs: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """``(resamples, questions)`` counts: each document's questions drawn with replacement, as
    many as it has."""
    rng = np.random.default_rng(seed)
    weights = np.zeros((resamples, len(docs)), dtype=np.float64)
    for doc in sorted(set(docs)):
        where = np.flatnonzero(docs == doc)
        weights[:, where] = rng.multinomial(len(where), np.full(len(where), 1.0 / len(where)), size=resamples)
    return weights


def _choose(weights: np.ndarray, outcomes: np.ndarray, kinds: np.ndarray, alpha: float) -> np.ndarray:
    """The rule applied to every row of `weights` (question counts): the index of the member chosen
    (0 is the default), one per row. With a single row of ones it is the rule on the data as given."""
    members, settings, _ = outcomes.shape
    candidates = members - 1
    default = outcomes[0]
    wins = (outcomes[1:] * (1 - default)).reshape(candidates * settings, -1)  # candidate only
    losses = ((1 - outcomes[1:]) * default).reshape(candidates * settings, -1)  # default only
    most = int(weights.sum(axis=1).max())  # no discordant count can be larger
    table = mcnemar_p(*np.meshgrid(np.arange(most + 1), np.arange(most + 1), indexing="ij"))

    def tests(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, b = np.rint(a).astype(np.int64), np.rint(b).astype(np.int64)
        p, sign = table[a, b], np.sign(a - b)
        return p.reshape(-1, candidates, settings), sign.reshape(-1, candidates, settings)

    kind_p, kind_sign = [], []
    a_all = np.zeros((len(weights), candidates * settings))
    b_all = np.zeros((len(weights), candidates * settings))
    for kind in sorted(set(kinds)):  # discordant counts per kind; their sums are the pooled counts
        mask = kinds == kind
        a, b = weights[:, mask] @ wins[:, mask].T, weights[:, mask] @ losses[:, mask].T
        a_all, b_all = a_all + a, b_all + b
        p_k, s_k = tests(a, b)
        kind_p.append(p_k)
        kind_sign.append(s_k)
    p, sign = tests(a_all, b_all)
    significant = holm_rows(p.reshape(p.shape[0], -1), alpha).reshape(p.shape)
    better = (significant & (sign > 0)).sum(axis=2)
    worse = (significant & (sign < 0)).any(axis=2)
    kp = np.stack(kind_p, axis=2)  # (rows, candidates, kinds, settings)
    rows = kp.shape[0]
    kind_significant = holm_rows(kp.reshape(rows * candidates, -1), alpha).reshape(kp.shape)
    kind_worse = (kind_significant & (np.stack(kind_sign, axis=2) < 0)).any(axis=(2, 3))
    qualifies = (better > 0) & ~worse & ~kind_worse
    pooled = (weights @ outcomes[1:].reshape(candidates * settings, -1).T).reshape(-1, candidates, settings)
    pooled = pooled.mean(axis=2) / weights.sum(axis=1, keepdims=True)
    score = np.where(qualifies, better * 10.0 + pooled, -np.inf)  # pooled share < 10: better counts first
    best = np.argmax(score, axis=1)
    return np.where(qualifies.any(axis=1), best + 1, 0)


def apply_criterion(
    rows: Any,
    default: str,
    candidates: Sequence[str],
    *,
    resamples: int = 2000,
    seed: int = 0,
    alpha: float = 0.05,
) -> CriterionResult:
    """Apply the rule of ``docs/criterion.md`` to `rows` and measure its stability.

    `rows` is a tidy table with one row per candidate, setting and question: columns
    ``candidate`` (`default` or one of `candidates`), ``retriever``, ``budget``, ``question``
    (an id), ``doc``, ``doc_kind`` and ``answered`` (0 or 1); every member must have every
    question in every setting (`candidate_rows` builds it from `compare`'s rows). The stability
    uses `resamples` resamples of the questions within documents, seeded with `seed`.
    Returns a `CriterionResult`.
    """
    import pandas as pd

    members = [default, *candidates]
    if len(set(members)) != len(members) or not candidates:
        raise ValueError(f"candidates must be distinct, at least one, and not the default; got {members}")
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    outcomes, settings, questions = _outcomes(rows, members)
    kinds = questions["doc_kind"].to_numpy().astype(str)
    docs = questions["doc"].to_numpy().astype(str)

    table = []
    for c, candidate in enumerate(candidates, start=1):
        for s, (retriever, budget) in enumerate(settings):
            test = paired(outcomes[c, s], outcomes[0, s], (candidate, default))
            table.append({"candidate": candidate, "retriever": retriever, "budget": budget,
                          "questions": test.questions, "default_share": test.mean_b, "share": test.mean_a,
                          "difference": test.difference, "low": test.low, "high": test.high, "p": test.p_value})
    verdicts = pd.DataFrame(table)
    verdicts["holm"] = holm(list(verdicts["p"]), alpha)
    verdicts["verdict"] = np.where(~verdicts["holm"], "no measurable difference",
                                   np.where(verdicts["difference"] > 0, "better", "worse"))

    kind_worse: dict[str, list[str]] = {}
    for c, candidate in enumerate(candidates, start=1):
        found = []
        for kind in sorted(set(kinds)):
            mask = kinds == kind
            for s, (retriever, budget) in enumerate(settings):
                x, y = outcomes[c, s, mask], outcomes[0, s, mask]
                a, b = int((x * (1 - y)).sum()), int(((1 - x) * y).sum())
                found.append((f"{kind}: {retriever} {budget}", float(mcnemar_p(a, b)), a - b))
        keep = holm([p for _, p, _ in found], alpha)
        kind_worse[candidate] = [label for (label, _, diff), k in zip(found, keep) if k and diff < 0]

    counted = verdicts.groupby("candidate", sort=False)["verdict"].value_counts().unstack(fill_value=0)
    better = {c: int(counted.loc[c].get("better", 0)) for c in candidates}
    qualifying = [c for c in candidates if better[c] > 0 and not counted.loc[c].get("worse", 0) and not kind_worse[c]]
    pooled = dict(zip(candidates, outcomes[1:].mean(axis=(1, 2))))
    chosen = max(qualifying, key=lambda c: (better[c], pooled[c], -candidates.index(c)), default=default)
    picks = _choose(_resample_weights(docs, resamples, seed), outcomes, kinds, alpha)
    counts = np.bincount(picks, minlength=len(members)) / resamples
    chosen_share = {member: float(counts[i]) for i, member in enumerate(members)}
    return CriterionResult(
        verdicts=verdicts, kind_worse=kind_worse, qualifying=qualifying, chosen=chosen, default=default,
        stability=chosen_share[chosen], chosen_share=chosen_share,
        ruled_out=[m for m in members if chosen_share[m] < RULED_OUT_SHARE], resamples=resamples,
    )
