"""The table a reader checks a verdict against: for each pair and budget of a `versus` table, the
difference, its interval and McNemar's p beside the verdict, and a footnote wherever the two tests
disagree.

A verdict of `chunklab.evaluation.paired.paired` needs both tests: the bootstrap interval of the
difference must exclude zero *and* McNemar's exact p must be below 0.05. When only one of them says
so, the table marks the row and `verdict_footnote` says which test decided, and why.
"""

from __future__ import annotations

from typing import Any, Sequence

from .paired import interval_text, p_text, signed

__all__ = ["verdict_footnote", "verdict_table"]

#: The mark of a row whose interval excludes zero while McNemar's p is not below alpha.
INTERVAL_ONLY = "†"
#: The mark of a row whose McNemar p is below alpha while the interval holds zero.
P_ONLY = "‡"


def _disagreement(row: Any, alpha: float) -> str:
    """`INTERVAL_ONLY`, `P_ONLY` or ``""`` for one row of a `versus` table."""
    excludes_zero = row["low"] > 0 or row["high"] < 0
    if row["p_value"] is None or row["p_value"] != row["p_value"]:
        return ""
    below = row["p_value"] < alpha
    if excludes_zero and not below:
        return INTERVAL_ONLY
    if below and not excludes_zero:
        return P_ONLY
    return ""


def verdict_table(verdicts: Any, by: Sequence[str] = ("a", "b", "budget"), alpha: float = 0.05,
                  percent: bool = True) -> Any:
    """`verdicts` (a table of `chunklab.evaluation.verdicts.versus`, or several concatenated) as a
    reader checks it: indexed by the columns `by`, with ``difference`` (a minus b, in percentage
    points when `percent`), ``95% interval``, ``McNemar p`` (marked ``†`` or ``‡`` where the two
    tests disagree, see `verdict_footnote`) and ``verdict``. The rows of one pair (all but the last
    column of `by`) stand together, in the order the pairs first appear. Rounding never turns a
    difference or an interval end into zero, nor invents one (`chunklab.evaluation.paired.signed`)."""
    scale, digits = (100.0, 1) if percent else (1.0, 3)
    groups = list(zip(*(verdicts[column] for column in by[:-1])))
    first = {group: i for i, group in reversed(list(enumerate(groups)))}
    table = verdicts.iloc[sorted(range(len(groups)), key=lambda i: first[groups[i]])].set_index(list(by))
    marks = [_disagreement(row, alpha) for _, row in table.iterrows()]
    shown = table[[]].copy()
    shown["difference"] = [signed(d, digits, scale) for d in table["difference"]]
    shown[f"{1 - alpha:.0%} interval"] = [interval_text(lo, hi, digits, scale) for lo, hi in zip(table["low"], table["high"])]
    shown["McNemar p"] = ["" if p is None or p != p else p_text(p, alpha).removeprefix("p = ").removeprefix("p ") + mark
                          for p, mark in zip(table["p_value"], marks)]
    shown["verdict"] = table["verdict"].to_numpy()
    return shown


def verdict_footnote(verdicts: Any, alpha: float = 0.05) -> str:
    """The footnote for the marks `verdict_table` puts on `verdicts`: which test decides a row where
    the interval and McNemar's p disagree, and why; ``""`` when they agree on every row. Any table
    with the columns ``low``, ``high`` and ``p_value`` will do: a `versus` table, or a `leaderboard`
    (whose best row, without a p-value, needs no note)."""
    marks = {_disagreement(row, alpha) for _, row in verdicts.iterrows()} - {""}
    notes = []
    if INTERVAL_ONLY in marks:
        notes.append(
            f"{INTERVAL_ONLY} The interval excludes zero but McNemar's p is not below {alpha}: no measurable "
            "difference, decided by McNemar's test. A verdict needs both tests, and here the exact one decides: "
            "it counts only the questions that one chunking answers and the other does not, and when they are "
            "few the bootstrap interval, resampled from those same few questions, comes out too narrow, while "
            "the exact p-value does not.")
    if P_ONLY in marks:
        notes.append(
            f"{P_ONLY} McNemar's p is below {alpha} but the interval holds zero: no measurable difference, decided "
            "by the interval. A verdict needs both tests, and an interval that holds zero leaves the sign of the "
            "difference open.")
    return "\n".join(notes)
