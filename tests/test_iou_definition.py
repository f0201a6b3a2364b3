"""One IoU definition everywhere: the formula the notebooks state in words is the one the code computes.

Notebooks 00 and 16 define the metrics in a markdown table whose IoU row states a formula in words.
The test reads that row from each notebook, turns the words into arithmetic and checks it against
`chunklab.evaluation.metrics.sent_metrics` on sendings where the definitions differ: overlapping
sent spans (text sent twice is paid twice, so ``sent + golden - covered`` is not the size of
``golden ∪ sent``), and sent text that misses the excerpt.
"""

import json
import re
from pathlib import Path

import pytest

from chunklab.evaluation.metrics import sent_metrics
from chunklab.text.spans import CharCounter

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

#: The words of a stated formula, longest first, and the quantity each names.
WORDS = (
    ("golden characters sent", "covered"),
    ("characters sent", "paid"),
    ("golden characters", "gold"),
    # notebook 00's short names: "covered", "sent" and "golden", defined above its table
    ("golden", "gold"),
    ("sent", "paid"),
    ("÷", "/"),
    ("−", "-"),
)

#: ``(sent spans, golden spans)``: overlapping sends, a miss, a partial hit, two excerpts.
CASES = (
    ([(0, 40), (30, 50)], [(35, 50), (100, 110)]),
    ([(0, 40), (30, 70)], [(35, 50)]),
    ([(0, 20)], [(50, 60)]),
    ([(40, 80), (0, 60), (50, 55)], [(10, 45), (70, 90)]),
)


def stated_iou(notebook: str) -> str:
    """The IoU row's formula, as the notebook's metrics table states it."""
    cells = json.loads((NOTEBOOKS / notebook).read_text(encoding="utf-8"))["cells"]
    rows = [line for cell in cells if cell["cell_type"] == "markdown" for line in "".join(cell["source"]).splitlines()
            if line.startswith("| **IoU** |")]
    assert len(rows) == 1, f"{notebook} must define IoU in exactly one table row, found {len(rows)}"
    formula = rows[0].split("|")[2].split(":")[0].strip()
    return formula


def as_arithmetic(formula: str) -> str:
    expression = formula
    for words, symbol in WORDS:
        expression = expression.replace(words, symbol)
    assert re.fullmatch(r"[a-z ()+\-/]+", expression), f"cannot read the formula {formula!r} as arithmetic"
    return expression


@pytest.mark.parametrize("notebook", ["00_welcome.ipynb", "16_comparison.ipynb"])
def test_the_stated_iou_is_the_computed_iou(notebook):
    expression = as_arithmetic(stated_iou(notebook))
    counter = CharCounter()
    for sent, golden in CASES:
        gold = {i for s, e in golden for i in range(s, e)}
        got = {i for s, e in sent for i in range(s, e)}
        quantities = {"covered": len(gold & got), "gold": len(gold), "paid": sum(e - s for s, e in sent)}
        stated = eval(expression, {"__builtins__": {}}, quantities)  # noqa: S307 - words turned into + - / only
        assert stated == pytest.approx(sent_metrics(sent, golden, counter)["iou"]), (notebook, sent, golden)


def test_the_set_union_formula_would_be_caught():
    """``golden ∩ sent ÷ golden ∪ sent`` differs from the code when sent text overlaps: the test can fail."""
    sent, golden = CASES[0]
    gold = {i for s, e in golden for i in range(s, e)}
    got = {i for s, e in sent for i in range(s, e)}
    assert len(gold & got) / len(gold | got) != pytest.approx(sent_metrics(sent, golden, CharCounter())["iou"])
