"""Every verdict table shows its test: the difference, the interval and McNemar's p beside the verdict,
and a footnote wherever the interval excludes zero while the exact test finds no measurable difference."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from chunklab.evaluation.verdicts import INTERVAL_ONLY, verdict_footnote, verdict_table

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
#: The notebooks whose verdict tables go through `verdict_table` (add a notebook here once it does).
COVERED = ("07_hierarchical", "08a_recursive", "08b_markup", "09_table", "10_token", "11_entity", "12_topic", "13_page")


def versus_rows() -> pd.DataFrame:
    return pd.DataFrame([
        {"a": "x", "b": "y", "budget": 250, "difference": 0.061, "low": 0.0151, "high": 0.1061, "a_only": 7, "b_only": 1,
         "p_value": 0.0703, "verdict": "no measurable difference"},
        {"a": "x", "b": "y", "budget": 500, "difference": 0.152, "low": 0.09, "high": 0.21, "a_only": 12, "b_only": 1,
         "p_value": 0.0034, "verdict": "x beats y"},
        {"a": "x", "b": "y", "budget": 1000, "difference": -0.0004, "low": -0.0004, "high": 0.05, "a_only": 3,
         "b_only": 3, "p_value": 1.0, "verdict": "no measurable difference"},
    ])


def test_the_table_shows_difference_interval_p_and_marks_the_interval_only_rows() -> None:
    shown = verdict_table(versus_rows())
    assert list(shown.columns) == ["difference", "95% interval", "McNemar p", "verdict", "note"]
    assert list(shown.index) == [("x", "y", 250), ("x", "y", 500), ("x", "y", 1000)]
    assert list(shown["note"]) == [INTERVAL_ONLY, "", ""]
    assert shown.loc[("x", "y", 250), "95% interval"] == "+1.5 to +10.7 %"  # rounded outward
    assert shown.loc[("x", "y", 1000), "95% interval"].startswith("−0.1 to")  # a negative end never reads as zero
    assert list(shown["McNemar p"]) == ["0.070", "0.003", "1.000"]


def test_the_footnote_says_which_test_decides_and_only_when_needed() -> None:
    note = verdict_footnote(versus_rows())
    assert note.startswith(INTERVAL_ONLY) and "x vs y, 250 characters (7 questions against 1, p = 0.070)" in note
    assert "McNemar's exact test decides" in note and "500" not in note
    assert verdict_footnote(versus_rows().iloc[1:]) == ""
    in_tokens = versus_rows().assign(characters=[1000, 2000, 4000])
    assert "250 tokens (about 1,000 characters)" in verdict_footnote(in_tokens)


@pytest.mark.parametrize("notebook", COVERED)
def test_every_verdict_cell_shows_the_table_and_its_footnote(notebook: str) -> None:
    cells = json.loads((NOTEBOOKS / f"{notebook}.ipynb").read_text(encoding="utf-8"))["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code" and "checks" not in c["metadata"].get("tags", [])]
    verdict_cells = [text for text in code if "versus(" in text or ".verdict for" in text or "paired(" in text]
    assert verdict_cells, notebook
    for text in verdict_cells:
        assert "verdict_table(" in text and "verdict_footnote(" in text, text[:200]
