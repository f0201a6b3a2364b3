"""Every verdict table shows its test: the difference, the interval (rounded outward) and McNemar's p
beside the verdict, pair by pair, a mark wherever the interval and McNemar's p disagree, and a
footnote naming those rows and saying which test decides."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from chunklab.evaluation.verdict_table import INTERVAL_ONLY, P_ONLY, verdict_footnote, verdict_table

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
#: The notebooks whose verdict tables go through `verdict_table` (add a notebook here once it does).
COVERED = ("01_fixed_size", "02_sentence", "03_paragraph", "04_semantic", "05_modality", "06_sliding_window",
           "07_hierarchical", "08a_recursive", "08b_markup", "09_table", "10_token", "11_entity", "12_topic", "13_page")


def versus_rows(rows: list[tuple]) -> pd.DataFrame:
    """A table shaped like `versus`'s: (a, b, budget, difference, low, high, p_value, verdict)."""
    return pd.DataFrame(rows, columns=["a", "b", "budget", "difference", "low", "high", "p_value", "verdict"])


AGREE = versus_rows([
    ("x", "y", 500, 0.10, 0.04, 0.16, 0.0004, "x beats y"),
    ("x", "z", 500, 0.01, -0.03, 0.05, 0.70, "no measurable difference"),
    ("x", "y", 1000, -0.00004, -0.02, 0.0003, 0.90, "no measurable difference"),
    ("x", "z", 1000, -0.08, -0.13, -0.02, 0.004, "z beats x"),
])


def with_counts() -> pd.DataFrame:
    """A `versus` table with the discordant counts, one row marked †."""
    return pd.DataFrame([
        {"a": "x", "b": "y", "budget": 250, "difference": 0.061, "low": 0.0151, "high": 0.1061, "a_only": 7, "b_only": 1,
         "p_value": 0.0703, "verdict": "no measurable difference"},
        {"a": "x", "b": "y", "budget": 500, "difference": 0.152, "low": 0.09, "high": 0.21, "a_only": 12, "b_only": 1,
         "p_value": 0.0034, "verdict": "x beats y"},
        {"a": "x", "b": "y", "budget": 1000, "difference": -0.0004, "low": -0.0004, "high": 0.05, "a_only": 3,
         "b_only": 3, "p_value": 1.0, "verdict": "no measurable difference"},
    ])


def test_it_shows_difference_interval_p_and_verdict_pair_by_pair() -> None:
    table = verdict_table(AGREE)
    assert list(table.columns) == ["difference", "95% interval", "McNemar p", "verdict", "note"]
    assert list(table.index) == [("x", "y", 500), ("x", "y", 1000), ("x", "z", 500), ("x", "z", 1000)]
    assert table.loc[("x", "y", 500)].tolist() == ["+10.0 %", "+4.0 to +16.0 %", "< 0.001", "x beats y", ""]
    assert table.loc[("x", "z", 1000), "difference"] == "−8.0 %"
    small = table.loc[("x", "y", 1000)]
    assert small["difference"] != "0.0 %" and small["95% interval"] == "−2.0 to +0.1 %", "rounding hides no difference"
    assert verdict_footnote(AGREE) == ""


def test_the_keys_are_the_columns_present_unless_given() -> None:
    shown = verdict_table(with_counts())
    assert shown.index.names == ["a", "b", "budget"]
    assert list(shown.index) == [("x", "y", 250), ("x", "y", 500), ("x", "y", 1000)]
    two = pd.concat([with_counts().assign(retriever=r, characters=[1000, 2000, 4000]) for r in ("bm25", "dense")])
    assert verdict_table(two).index.names == ["a", "b", "retriever", "budget", "characters"]
    assert verdict_table(two, by=("retriever", "budget")).index.names == ["retriever", "budget"]
    with pytest.raises(ValueError, match="by"):
        verdict_table(two, by=("retriever", "nonsense"))


def test_the_interval_is_rounded_outward_and_the_interval_only_rows_are_marked() -> None:
    shown = verdict_table(with_counts())
    assert list(shown["note"]) == [INTERVAL_ONLY, "", ""]
    assert shown.loc[("x", "y", 250), "95% interval"] == "+1.5 to +10.7 %"  # rounded outward
    assert shown.loc[("x", "y", 1000), "95% interval"].startswith("−0.1 to")  # a negative end never reads as zero
    assert list(shown["McNemar p"]) == ["0.070", "0.003", "1.000"]
    touching = versus_rows([("x", "y", 500, 0.04, 0.0, 0.08, 0.2, "no measurable difference")])
    assert verdict_table(touching).loc[("x", "y", 500), "95% interval"] == "0.0 to +8.0 %"


def test_a_disagreement_is_marked_and_explained() -> None:
    disagree = versus_rows([
        ("x", "y", 250, 0.05, 0.01, 0.09, 0.0625, "no measurable difference"),
        ("x", "y", 500, 0.03, -0.01, 0.07, 0.04, "no measurable difference"),
    ])
    table = verdict_table(disagree)
    assert table["note"].tolist() == [INTERVAL_ONLY, P_ONLY]
    assert table["McNemar p"].tolist() == ["0.062", "0.040"]
    note = verdict_footnote(disagree)
    assert note.startswith(INTERVAL_ONLY) and "decided by McNemar's exact test" in note and "decided by the interval" in note
    assert "x vs y, 250 characters (p = 0.062)" in note and "x vs y, 500 characters (p = 0.040)" in note
    assert verdict_footnote(disagree.iloc[:1]).count("\n") == 0


def test_the_footnote_names_the_marked_rows_and_only_them() -> None:
    note = verdict_footnote(with_counts())
    assert note.startswith(INTERVAL_ONLY) and "x vs y, 250 characters (7 questions against 1, p = 0.070)" in note
    assert "decided by McNemar's exact test" in note and "500" not in note and P_ONLY not in note
    assert verdict_footnote(with_counts().iloc[1:]) == ""
    in_tokens = with_counts().assign(characters=[1000, 2000, 4000], retriever="dense")
    assert "x vs y, dense, 250 tokens (about 1,000 characters)" in verdict_footnote(in_tokens)


def test_scores_without_a_p_value_get_none() -> None:
    scores = versus_rows([("x", "y", 500, 0.02, 0.01, 0.03, None, "x beats y")])
    table = verdict_table(scores, percent=False)
    assert table["McNemar p"].tolist() == [""] and table["difference"].tolist() == ["+0.020"]
    assert table["95% interval"].tolist() == ["+0.010 to +0.030"] and table["note"].tolist() == [""]
    assert verdict_footnote(scores) == ""


def test_the_footnote_reads_a_leaderboard_too() -> None:
    board = pd.DataFrame({"chunker": ["best", "second"], "low": [0.0, -0.09], "high": [0.0, -0.01],
                          "p_value": [None, 0.07], "mark": ["best", "no measurable difference"]})
    assert verdict_footnote(board).startswith(f"{INTERVAL_ONLY} ") and "second vs the best (p = 0.070)" in verdict_footnote(board)
    assert verdict_footnote(board.iloc[:1]) == ""


@pytest.mark.parametrize("notebook", COVERED)
def test_every_verdict_cell_shows_the_table_and_its_footnote(notebook: str) -> None:
    cells = json.loads((NOTEBOOKS / f"{notebook}.ipynb").read_text(encoding="utf-8"))["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code" and "checks" not in c["metadata"].get("tags", [])]
    verdict_cells = [text for text in code if "versus(" in text or ".verdict for" in text or "paired(" in text]
    assert verdict_cells, notebook
    for text in verdict_cells:
        assert "verdict_table(" in text and "verdict_footnote(" in text, text[:200]
