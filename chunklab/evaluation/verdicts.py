"""Readable views of a budget comparison, with every claim backed by a paired test.

All of them read the tidy table ``Comparison.rows`` that `chunklab.evaluation.comparison.compare`
returns with ``budget=...``:

* `leaderboard`: one row per chunking for one retriever and one budget, best first, the best
  marked ``"best"`` (every chunking with the highest mean, when several share it: a tie at the top
  is never broken by table order) and every chunking not measurably worse than it
  (`chunklab.evaluation.paired`) marked ``"no measurable difference"``, with the difference, its interval and, for a
  yes/no metric, McNemar's exact p as text that never reads as more than the test says;
* `gate`: whether the questions can name a chunking to recommend at one retriever and budget
  (`chunklab.evaluation.gate`: best in at least 90 % of resamples of the questions within each
  document), which ones they rule out, and how many more questions would separate the two leaders;
  `leaderboard` carries it as ``board.attrs["gate"]``;
* `curve`: a metric against the budget, one column per chunking (ready for ``.plot()``);
* `versus`: chosen pairs of chunkings compared at every budget (a variant against its base);
* `budget_guidance`: "which strategy when", per document kind and per question kind, from
  measurable differences only (``chunklab.evaluation.comparison.guidance`` of a `Comparison`).

Each chunking is compared with the best one alone, without a correction for the number of
comparisons; and the best is the one with the highest mean on these very questions, which flatters
it a little. "No measurable difference" is therefore the honest reading of a small difference, not
proof of equality.
"""

from __future__ import annotations

from typing import Any, Sequence

from .budget import Comparison
from .gate import RESAMPLES, Gate, resampling_gate
from .paired import Paired, interval_text, p_text, paired, paired_against, signed

__all__ = ["NO_DIFFERENCE", "budget_guidance", "curve", "gate", "leaderboard", "named", "versus", "versus_text"]

#: The `leaderboard` mark of a chunking that the paired test cannot tell from the best (not equality).
NO_DIFFERENCE = "no measurable difference"

_MEANS = ("answered", "recall", "precision", "iou", "sent")
#: Metrics that are shares of questions or characters: their differences are shown in percentage points.
_SHARES = ("answered", "recall", "precision", "iou")


def _select(result: Comparison, retriever: str | None, budget: int | None, split: str | None) -> Any:
    """The rows of one retriever, budget and split (None: no restriction), checked to exist."""
    rows = result.rows
    keep = None
    for column, value in (("retriever", retriever), ("budget", budget), ("split", split)):
        if value is None:
            continue
        chosen = (rows[column] == value).to_numpy()
        if not chosen.any():
            raise ValueError(f"no rows with {column} = {value!r}; there are: {sorted(rows[column].unique())}")
        keep = chosen if keep is None else keep & chosen
    if keep is not None and not keep.any():
        raise ValueError(f"no rows with retriever = {retriever!r}, budget = {budget!r} and split = {split!r} together")
    return rows if keep is None else rows[keep]  # one selection: each one copies every column


def _per_question(rows: Any, metric: str) -> Any:
    """Questions × chunkings table of `metric` (each chunking must have answered every question)."""
    if metric not in rows.columns:
        raise ValueError(f"unknown metric {metric!r}; choose from {[m for m in _MEANS if m in rows.columns]}")
    if rows.duplicated(["question", "chunker"]).any():
        raise ValueError("a question appears twice for one chunking: choose one retriever and one budget")
    table = rows.pivot(index="question", columns="chunker", values=metric)
    if table.isna().any().any():
        raise ValueError("the chunkings were not measured on the same questions")
    return table[list(rows["chunker"].unique())]  # in order of appearance


#: Two means closer than this are the same mean (they differ only by floating-point rounding).
_SAME_MEAN = 1e-12


def _ranked(table: Any, confidence: float, resamples: int, seed: int) -> list[tuple[str, float, Paired | None]]:
    """``(chunking, mean, comparison with the best)`` best first (None for the first best).

    The leaders are every chunking with the highest mean. Another chunking is compared with each
    leader, and the comparison kept is one in which a leader measurably beats it if there is one
    (else the one with the first leader): it has no measurable difference from the best only if no
    leader beats it.
    """
    means = table.mean().sort_values(ascending=False, kind="stable")
    leaders = [label for label in means.index if means.iloc[0] - means[label] < _SAME_MEAN]
    others = list(means.index[1:])
    against: dict[str, list[Paired]] = {label: [] for label in others}
    for best in leaders:  # each leader against every other chunking at once: one matrix product
        rest = [label for label in others if label != best]
        if rest:
            comparisons = paired_against(table[best].to_numpy(), table[rest].to_numpy(),
                                         [(best, label) for label in rest], confidence, resamples, seed)
            for label, comparison in zip(rest, comparisons):
                against[label].append(comparison)
    out: list[tuple[str, float, Paired | None]] = [(leaders[0], float(means.iloc[0]), None)]
    for label in others:
        beaten = [c for c in against[label] if c.winner == c.a]
        out.append((label, float(means[label]), (beaten or against[label])[0]))
    return out


def _mark(comparison: Paired | None) -> str:
    """``"best"`` for a best (the first, or one with the same mean), ``""`` when the best measurably
    beats it, else ``"no measurable difference"``."""
    if comparison is None or abs(comparison.difference) < _SAME_MEAN:
        return "best"
    return "" if comparison.winner == comparison.a else NO_DIFFERENCE


def versus_text(comparison: Paired | None, metric: str = "answered") -> str:
    """How a leaderboard row compares with the best, in words a reader can check: the difference
    (this chunking minus the best; percentage points for a share), its interval, and for a yes/no
    metric McNemar's exact p. Empty for the best. Rounding never hides a zero end nor invents one
    (`chunklab.evaluation.paired.signed`)."""
    if comparison is None:
        return ""
    scale, digits = (100.0, 1) if metric in _SHARES else (1.0, 3)
    unit = " points" if metric in _SHARES else ""
    text = (f"{signed(-comparison.difference, digits, scale)}{unit} "
            f"({comparison.confidence:.0%} interval {interval_text(-comparison.high, -comparison.low, digits, scale)}")
    if comparison.p_value is not None:
        text += f"; McNemar {p_text(comparison.p_value, 1 - comparison.confidence)}"
    return text + ")"


def _aliases(result: Comparison) -> dict[str, str]:
    """``{label: "alias, alias"}`` from ``result.chunkings["aliases"]`` (see
    `chunklab.evaluation.aliases.collapse_identical`); empty when there is none."""
    chunkings = result.chunkings
    if chunkings is None or "aliases" not in getattr(chunkings, "columns", ()):
        return {}
    return {str(label): ", ".join(names) for label, names in chunkings["aliases"].items() if len(names)}


def named(label: str, aliases: dict[str, str]) -> str:
    """`label`, followed by ``(= alias, alias)`` when other chunkings gave the very same chunks."""
    return f"{label} (= {aliases[label]})" if aliases.get(label) else label


def leaderboard(
    result: Comparison,
    retriever: str,
    budget: int,
    metric: str = "answered",
    split: str | None = None,
    confidence: float = 0.95,
    resamples: int = 10_000,
    seed: int = 0,
) -> Any:
    """One row per chunking for `retriever` at `budget`, sorted by the mean of `metric`, best first.

    Columns: ``chunker``, ``aliases`` (the chunkings that gave the very same chunks, see
    `chunklab.evaluation.aliases.collapse_identical`; ``""`` for none), ``context``, the means of
    ``answered``, ``recall``, ``precision``, ``iou`` and ``sent`` (the same for every chunking unless
    a ranking ran out), ``questions``; then the paired comparison with the best on `metric`
    (`chunklab.evaluation.paired.paired`): ``difference`` (this chunking minus the best), its
    interval ``low`` … ``high``, ``p_value`` (McNemar's exact test for a yes/no metric, else empty),
    ``versus best`` (the same as text, `versus_text`: rounded so that it never reads as more than the
    test says) and ``mark``: ``"best"`` (every chunking with the highest mean), ``"no measurable difference"`` (not
    measurably worse than the best) or ``""`` (measurably worse). `split` keeps one question split
    (``"dev"``, ``"test"``; None: all rows). The index is the rank, from 1.

    The best row is a *recommendation* only when the resampling gate passes: ``board.attrs["gate"]``
    is the `gate` of the same rows (`chunklab.evaluation.gate.Gate`; ``str()`` of it says
    "recommended: ..." or "no recommendation: ...", the chunkings ruled out and the questions estimate).
    """
    import pandas as pd

    rows = _select(result, retriever, budget, split)
    ranked = _ranked(_per_question(rows, metric), confidence, resamples, seed)
    means = rows.groupby("chunker", sort=False)[list(_MEANS)].mean()
    context = rows.groupby("chunker", sort=False)["context"].first()
    questions = rows.groupby("chunker", sort=False)["question"].nunique()
    aliases = _aliases(result)
    records = []
    for label, _, comparison in ranked:
        records.append({
            "chunker": label, "aliases": aliases.get(label, ""), "context": bool(context[label]),
            **means.loc[label].to_dict(), "questions": int(questions[label]),
            "difference": 0.0 if comparison is None else 0.0 - comparison.difference,
            "low": 0.0 if comparison is None else 0.0 - comparison.high,
            "high": 0.0 if comparison is None else 0.0 - comparison.low,
            "p_value": None if comparison is None else comparison.p_value,
            "versus best": "" if _mark(comparison) == "best" else versus_text(comparison, metric),
            "mark": _mark(comparison),
        })
    table = pd.DataFrame(records)
    table.index = pd.RangeIndex(1, len(table) + 1, name="rank")
    table.attrs["gate"] = _gate(rows, metric, seed=seed)
    return table


def _gate(rows: Any, metric: str, resamples: int = RESAMPLES, seed: int = 0) -> Gate:
    """`chunklab.evaluation.gate.resampling_gate` of the rows of one retriever and budget, the
    questions resampled within their documents."""
    table = _per_question(rows, metric)
    documents = rows.groupby("question", sort=False)["doc"].first().reindex(table.index)
    return resampling_gate(table, list(documents), resamples=resamples, seed=seed)


def gate(
    result: Comparison,
    retriever: str,
    budget: int,
    metric: str = "answered",
    split: str | None = None,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> Gate:
    """The resampling gate (`chunklab.evaluation.gate`) of the chunkings measured with `retriever`
    at `budget` on `split` (None: all questions): ``.recommended`` (None when the questions cannot
    name one), ``.ruled_out``, ``.more_questions``, ``.stability``; ``str()`` says it in words."""
    return _gate(_select(result, retriever, budget, split), metric, resamples, seed)


def curve(result: Comparison, retriever: str, metric: str = "answered", split: str | None = None) -> Any:
    """The mean of `metric` at every budget for `retriever`: one row per budget (ascending), one
    column per chunking (in the order they were measured). ``curve(...).plot()`` draws one line per
    chunking against the text sent."""
    rows = _select(result, retriever, None, split)
    if metric not in rows.columns:
        raise ValueError(f"unknown metric {metric!r}")
    table = rows.pivot_table(index="budget", columns="chunker", values=metric, aggfunc="mean", sort=True)
    return table[list(rows["chunker"].unique())]  # in order of appearance


def versus(
    result: Comparison,
    pairs: Sequence[tuple[str, str]],
    retriever: str,
    budgets: Sequence[int] | None = None,
    metric: str = "answered",
    split: str | None = None,
    confidence: float = 0.95,
    resamples: int = 10_000,
    seed: int = 0,
) -> Any:
    """The paired comparison (`chunklab.evaluation.paired.paired`) of each ``(a, b)`` of `pairs`
    for `retriever` at each of `budgets` (default: every budget measured), on `split` (None: all
    questions).

    One row per pair and budget, in that order: ``a``, ``b``, ``budget``, ``questions``, the means
    ``mean_a`` and ``mean_b`` of `metric`, ``difference`` (a minus b) and its interval ``low`` …
    ``high``, ``a_only`` / ``b_only`` and ``p_value`` (McNemar's exact test, for a yes/no metric)
    and ``verdict`` ("a beats b", "b beats a" or "no measurable difference").
    """
    import pandas as pd

    rows = _select(result, retriever, None, split)
    labels = list(dict.fromkeys(label for pair in pairs for label in pair))
    missing = sorted(set(labels) - set(rows["chunker"].unique()))
    if missing:
        raise ValueError(f"no rows for chunking(s) {missing} with {retriever}")
    rows = rows[rows["chunker"].isin(labels)]
    records = []
    for budget in sorted(rows["budget"].unique().tolist()) if budgets is None else budgets:
        at_budget = rows[rows["budget"] == budget]
        if at_budget.empty:
            raise ValueError(f"no rows with budget = {budget!r}; there are: {sorted(rows['budget'].unique().tolist())}")
        table = _per_question(at_budget, metric)
        for a, b in pairs:
            comparison = paired(table[a], table[b], (a, b), confidence, resamples, seed)
            records.append({
                "a": a, "b": b, "budget": budget, "questions": comparison.questions,
                "mean_a": comparison.mean_a, "mean_b": comparison.mean_b, "difference": comparison.difference,
                "low": comparison.low, "high": comparison.high, "a_only": comparison.a_only,
                "b_only": comparison.b_only, "p_value": comparison.p_value, "verdict": comparison.verdict,
            })
    return pd.DataFrame(records)


#: `budget_guidance` names the chunkings with no measurable difference from the best when there are at most this many, and
#: otherwise counts them and names the first and the last, as it does for the measurably worse.
_NAMED_UNDECIDED = 5


def _statement(ranked: list[tuple[str, float, Paired | None]], percent: bool, aliases: dict[str, str]) -> str:
    """One sentence: the best (every one, when several share the highest mean), the chunkings with
    no measurable difference from it, the ones measurably worse."""
    fmt = (lambda v: f"{v:.0%}") if percent else (lambda v: f"{v:.3f}")
    leaders = [named(label, aliases) for label, _, c in ranked if _mark(c) == "best"]
    best_mean = ranked[0][1]
    undecided = [(named(label, aliases), mean) for label, mean, c in ranked if _mark(c) == NO_DIFFERENCE]
    worse = [(named(label, aliases), mean) for label, mean, c in ranked if _mark(c) == ""]
    if not worse:
        low = min(mean for _, mean, _ in ranked)
        return (f"no measurable difference between the {len(ranked)} chunkings "
                f"({fmt(low)} to {fmt(best_mean)})")
    if len(leaders) == 1:
        text = f"**{leaders[0]}** ({fmt(best_mean)})"
    else:
        text = (f"{len(leaders)} share the best mean ({fmt(best_mean)}): "
                + ", ".join(f"**{label}**" for label in leaders))
    if len(undecided) > _NAMED_UNDECIDED:
        text += (f"; no measurable difference from the best: {len(undecided)} others, from {undecided[0][0]} "
                 f"({fmt(undecided[0][1])}) down to {undecided[-1][0]} ({fmt(undecided[-1][1])})")
    elif undecided:
        text += "; no measurable difference from the best: " + ", ".join(f"{label} ({fmt(m)})" for label, m in undecided)
    else:
        text += ", measurably better than every other chunking"
    if len(worse) == 1:
        return text + f"; measurably worse: {worse[0][0]} ({fmt(worse[0][1])})"
    return text + (f"; measurably worse: {len(worse)} others, from {worse[0][0]} ({fmt(worse[0][1])}) "
                   f"down to {worse[-1][0]} ({fmt(worse[-1][1])})")


def budget_guidance(
    result: Comparison,
    budget: int | None = None,
    retriever: str | None = None,
    split: str | None = None,
    metric: str = "answered",
    confidence: float = 0.95,
    resamples: int = 10_000,
    seed: int = 0,
) -> str:
    """"Which strategy when" as markdown, from measurable differences only.

    For each retriever (or `retriever` alone) at `budget` (required when the comparison has several),
    on all questions, then per document kind and per question kind: the chunking with the best mean
    `metric`, the ones with no measurable difference from it (`leaderboard`'s ``"no measurable difference"``), and how
    many are measurably worse; or "no measurable difference" when none is. `split` keeps one
    question split.
    """
    budgets = sorted(result.rows["budget"].unique().tolist())
    if budget is None:
        if len(budgets) != 1:
            raise ValueError(f"choose a budget: one of {budgets}")
        budget = budgets[0]
    rows = _select(result, retriever, budget, split)
    percent = metric in ("answered", "recall", "precision", "iou")
    options = (confidence, resamples, seed)
    aliases = _aliases(result)
    where = f", {split} questions" if split else ""
    lines = [
        f"*{metric} at {budget:,} {result.unit_label()} sent per question{where}; the best has the highest mean, "
        f"and a chunking is worse only when the paired {confidence:.0%} interval (and, for a yes/no metric, "
        f"McNemar's exact test) says so. The verdict depends on how often two chunkings disagree, not on their "
        f"means alone, so a lower mean can show no measurable difference from the best where a higher one is "
        f"measurably worse.*",
        "",
    ]
    for name, by_retriever in rows.groupby("retriever", sort=False):
        count = by_retriever["question"].nunique()
        lines.append(f"- **With {name}** ({count} questions): "
                     + _statement(_ranked(_per_question(by_retriever, metric), *options), percent, aliases) + ".")
        for column, title in (("doc_kind", "document kind"), ("kind", "question kind")):
            lines.append(f"  - *By {title}*:")
            for group, subset in by_retriever.groupby(column, sort=True):
                ranked = _ranked(_per_question(subset, metric), *options)
                lines.append(f"    - {group} ({subset['question'].nunique()} questions): "
                             + _statement(ranked, percent, aliases) + ".")
    return "\n".join(lines)
