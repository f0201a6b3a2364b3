"""The verdict table shows each verdict's test, keeps a pair's rows together, and marks and explains
every row where the interval and McNemar's p disagree."""

from __future__ import annotations

import pandas as pd

from chunklab.evaluation.verdict_table import INTERVAL_ONLY, P_ONLY, verdict_footnote, verdict_table


def versus_rows(rows: list[tuple]) -> pd.DataFrame:
    """A table shaped like `versus`'s: (a, b, budget, difference, low, high, p_value, verdict)."""
    return pd.DataFrame(rows, columns=["a", "b", "budget", "difference", "low", "high", "p_value", "verdict"])


AGREE = versus_rows([
    ("x", "y", 500, 0.10, 0.04, 0.16, 0.0004, "x beats y"),
    ("x", "z", 500, 0.01, -0.03, 0.05, 0.70, "no measurable difference"),
    ("x", "y", 1000, -0.00004, -0.02, 0.0003, 0.90, "no measurable difference"),
    ("x", "z", 1000, -0.08, -0.13, -0.02, 0.004, "z beats x"),
])


def test_it_shows_difference_interval_p_and_verdict_pair_by_pair() -> None:
    table = verdict_table(AGREE)
    assert list(table.columns) == ["difference", "95% interval", "McNemar p", "verdict"]
    assert list(table.index) == [("x", "y", 500), ("x", "y", 1000), ("x", "z", 500), ("x", "z", 1000)]
    assert table.loc[("x", "y", 500)].tolist() == ["+10.0", "+4.0 to +16.0", "< 0.001", "x beats y"]
    assert table.loc[("x", "z", 1000), "difference"] == "−8.0"
    small = table.loc[("x", "y", 1000)]
    assert small["difference"] != "0.0" and small["95% interval"].endswith("+0.03"), "rounding hides no difference"
    assert verdict_footnote(AGREE) == ""


def test_a_disagreement_is_marked_and_explained() -> None:
    disagree = versus_rows([
        ("x", "y", 250, 0.05, 0.01, 0.09, 0.0625, "no measurable difference"),
        ("x", "y", 500, 0.03, -0.01, 0.07, 0.04, "no measurable difference"),
    ])
    table = verdict_table(disagree)
    assert table["McNemar p"].tolist() == ["0.062" + INTERVAL_ONLY, "0.040" + P_ONLY]
    note = verdict_footnote(disagree)
    assert note.startswith(INTERVAL_ONLY) and "decided by McNemar's test" in note and "decided by the interval" in note
    assert verdict_footnote(disagree.iloc[:1]).count("\n") == 0


def test_scores_without_a_p_value_get_none() -> None:
    scores = versus_rows([("x", "y", 500, 0.02, 0.01, 0.03, None, "x beats y")])
    table = verdict_table(scores, percent=False)
    assert table["McNemar p"].tolist() == [""] and table["difference"].tolist() == ["+0.020"]
    assert verdict_footnote(scores) == ""


def test_the_footnote_reads_a_leaderboard_too() -> None:
    board = pd.DataFrame({"chunker": ["best", "second"], "low": [0.0, -0.09], "high": [0.0, -0.01],
                          "p_value": [None, 0.07], "mark": ["best", "no measurable difference"]})
    assert verdict_footnote(board).startswith(INTERVAL_ONLY)
    assert verdict_footnote(board.iloc[:1]) == ""
