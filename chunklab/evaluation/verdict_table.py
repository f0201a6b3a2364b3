"""The table a reader checks a verdict against: for each pair and budget of a `versus` table, the
difference, its interval and McNemar's p beside the verdict, a mark wherever the two tests
disagree, and the footnote that names those rows and says which test decides.

A verdict of `chunklab.evaluation.paired.paired` needs both tests: the bootstrap interval of the
difference must exclude zero *and* McNemar's exact p must be below 0.05. When only one of them says
so, `verdict_table` marks the row in its ``note`` column (`INTERVAL_ONLY` or `P_ONLY`) and
`verdict_footnote` names the row and says which test decided, and why.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from .paired import p_text, signed

__all__ = ["INTERVAL_ONLY", "P_ONLY", "verdict_footnote", "verdict_table"]

#: The mark of a row whose interval excludes zero while McNemar's p is not below alpha.
INTERVAL_ONLY = "†"
#: The mark of a row whose McNemar p is below alpha while the interval holds zero.
P_ONLY = "‡"

#: The columns that identify a row, in the order the index shows them (those present are used).
_KEYS = ("a", "b", "retriever", "split", "kind", "budget", "characters")
#: Keys that vary within one pair: the rows that share every other key stand together.
_WITHIN_A_PAIR = ("budget", "characters")


def _mark(row: Any, alpha: float) -> str:
    """`INTERVAL_ONLY`, `P_ONLY` or ``""`` for one row with ``low``, ``high`` and ``p_value``."""
    p_value = row["p_value"]
    if p_value is None or p_value != p_value:
        return ""
    excludes_zero = row["low"] > 0 or row["high"] < 0
    below = p_value < alpha
    if excludes_zero and not below:
        return INTERVAL_ONLY
    if below and not excludes_zero:
        return P_ONLY
    return ""


def _outward(value: float, digits: int, down: bool) -> str:
    """`value` rounded to `digits` decimals away from the inside of its interval (down for the low end,
    up for the high one), by `signed`: an end that touches zero never reads as excluding it, and a
    negative end never reads as zero. A hair of tolerance keeps floating-point noise (0.58 * 100 =
    57.99...) from moving an exact value by a whole digit."""
    steps = round(value * 10**digits, 9)
    return signed((math.floor(steps) if down else math.ceil(steps)) / 10**digits, digits)


def _keys(verdicts: Any, by: Sequence[str] | None) -> list[str]:
    """The index columns: `by` when given, else every column of `_KEYS` that `verdicts` has."""
    keys = list(by) if by is not None else [key for key in _KEYS if key in verdicts.columns]
    if not keys:
        raise ValueError(f"by: no key columns; give them, or a table with some of {list(_KEYS)}")
    missing = [key for key in keys if key not in verdicts.columns]
    if missing:
        raise ValueError(f"by: {missing} are not columns of the table; it has {list(verdicts.columns)}")
    return keys


def verdict_table(verdicts: Any, by: Sequence[str] | None = None, alpha: float = 0.05, percent: bool = True) -> Any:
    """`verdicts` (a table of `chunklab.evaluation.verdicts.versus`, several concatenated, or rows of
    `chunklab.evaluation.paired.Paired`) as a reader checks it.

    Indexed by the columns `by`, or when None by those of ``a``, ``b``, ``retriever``, ``split``,
    ``kind``, ``budget`` and ``characters`` (a token budget in characters) that the table has. Columns:
    ``difference`` (a minus b; in percent when `percent`, else with three decimals), ``95% interval``
    rounded outward (an interval that touches zero never reads as excluding it), ``McNemar p`` as
    `chunklab.evaluation.paired.p_text` writes it, ``verdict``, and ``note``: `INTERVAL_ONLY` (†)
    where the interval excludes zero but p is not below `alpha`, `P_ONLY` (‡) where p is below
    `alpha` but the interval holds zero, else ``""`` (`verdict_footnote` says which test decides).
    The rows of one pair (the same keys but the budget) stand together, in the order the pairs first
    appear. Rounding never turns a difference into zero, nor invents one."""
    import pandas as pd

    keys = _keys(verdicts, by)
    grouping = [key for key in keys if key not in _WITHIN_A_PAIR] if by is None else keys[:-1]
    groups = list(zip(*(verdicts[column] for column in grouping))) if grouping else [()] * len(verdicts)
    first = {group: i for i, group in reversed(list(enumerate(groups)))}
    table = verdicts.iloc[sorted(range(len(groups)), key=lambda i: first[groups[i]])]
    scale, digits, unit = (100.0, 1, " %") if percent else (1.0, 3, "")
    shown = pd.DataFrame({
        "difference": [f"{signed(d, digits, scale)}{unit}" for d in table["difference"]],
        f"{1 - alpha:.0%} interval": [f"{_outward(low * scale, digits, True)} to {_outward(high * scale, digits, False)}{unit}"
                                      for low, high in zip(table["low"], table["high"])],
        "McNemar p": ["" if p is None or p != p else p_text(p, alpha).removeprefix("p = ").removeprefix("p ")
                      for p in table["p_value"]],
        "verdict": table["verdict"].to_numpy(),
        "note": [_mark(row, alpha) for _, row in table.iterrows()],
    }, index=pd.MultiIndex.from_frame(table[keys]) if len(keys) > 1 else pd.Index(table[keys[0]]))
    return shown


def _where(row: Any, columns: Any, alpha: float) -> str:
    """One marked row in words: the pair (or the leaderboard's chunking against the best), its
    retriever, split and kind, its budget (a token budget with its characters), then the questions
    that only one of the two answers and McNemar's p."""
    said = [f"{row['a']} vs {row['b']}" if "a" in columns else f"{row['chunker']} vs the best"]
    said += [str(row[key]) for key in ("retriever", "split", "kind") if key in columns]
    if "characters" in columns:
        said.append(f"{row['budget']:,} tokens (about {row['characters']:,} characters)")
    elif "budget" in columns:
        said.append(f"{row['budget']:,} characters")
    known = "a_only" in columns and row["a_only"] is not None and row["a_only"] == row["a_only"]
    counts = f"{int(row['a_only'])} questions against {int(row['b_only'])}, " if known else ""
    return ", ".join(said) + f" ({counts}{p_text(row['p_value'], alpha)})"


def verdict_footnote(verdicts: Any, alpha: float = 0.05) -> str:
    """The footnote for the marks `verdict_table` puts on `verdicts`: for each mark, the rows that
    carry it (pair, retriever, split, budget, the questions only one of the two answers, McNemar's p)
    and which test decides there, and why; ``""`` when the two tests agree on every row. Any table
    with the columns ``low``, ``high`` and ``p_value`` will do: a `versus` table, or a `leaderboard`
    (whose rows are named "chunking vs the best", and whose best row, without a p-value, needs no note)."""
    marks = [_mark(row, alpha) for _, row in verdicts.iterrows()]
    rows = {mark: "; ".join(_where(row, verdicts.columns, alpha)
                            for (_, row), m in zip(verdicts.iterrows(), marks) if m == mark)
            for mark in (INTERVAL_ONLY, P_ONLY)}
    notes = []
    if rows[INTERVAL_ONLY]:
        notes.append(
            f"{INTERVAL_ONLY} The interval excludes zero but McNemar's p is not below {alpha}: {rows[INTERVAL_ONLY]}. "
            "No measurable difference, decided by McNemar's exact test, as the course's rule says (notebook 00): it "
            "counts exactly how often chance alone splits the few questions on which the two disagree at least this "
            "unevenly, while the bootstrap interval, resampled from those same few disagreements, is only approximate "
            "and comes out a little too narrow.")
    if rows[P_ONLY]:
        notes.append(
            f"{P_ONLY} McNemar's p is below {alpha} but the interval holds zero: {rows[P_ONLY]}. No measurable "
            "difference, decided by the interval: a verdict needs both tests, and an interval that holds zero leaves "
            "the sign of the difference open.")
    return "\n".join(notes)
