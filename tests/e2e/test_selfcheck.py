"""The browser runner itself: it passes a working notebook and catches each deliberately broken one.

The fixture notebooks live in ``fixture_notebooks/``; each broken one is broken in one way only, and
the test checks the runner reports exactly that kind of problem.
"""

from __future__ import annotations

import pytest

from .conftest import REPO
from .runner import check_notebook

FIXTURES = REPO / "tests" / "e2e" / "fixture_notebooks"


def test_working_fixture_passes(lab, browser, shots) -> None:
    """The control: three explorers (one starting at the top of its range, one with a text box), a
    tolerated error cell."""
    report = check_notebook(lab, browser, FIXTURES / "working_explorer.ipynb", shots)
    if not report.ok:
        pytest.fail(report.describe(), pytrace=False)
    assert report.explorers == 3


@pytest.mark.parametrize(
    "fixture, expected",
    [
        # spans() raises for size > 700 (it opens at 600): the view stays behind the slider; the traceback is in the Log Console.
        ("broken_callback_raises.ipynb", ["the view did not follow the slider", "RuntimeError: deliberate failure"]),
        # spans() ignores chunk_size: the view follows the readout but the spans stay put.
        ("broken_frozen_boundaries.ipynb", ["but the chunk boundaries did not change"]),
        # The explorer opens where the whole text is one chunk, and stays one a quarter of the range lower.
        ("broken_dead_start.ipynb", ["the main control chunk_size went 15000", "did not change (1 chunks"]),
        # Disabled controls and size sliders never follow: the tokenizer stays greyed out in tokens.
        ("broken_disabled_stale.ipynb", ["after choosing unit=tokens", "['tokenizer'] disabled although they change"]),
        # The size sliders stay in characters when the unit becomes tokens.
        ("broken_sizes_stay_in_chars.ipynb", ["after choosing unit=tokens, the chunk_size slider still offers up to 2000 tokens"]),
        # The keywords text box is ignored: typed values reach the view but the spans stay put.
        ("broken_text_box_ignored.ipynb", ["typing into the keywords box", "did not change the chunk boundaries"]),
        # A cell raises: Run All stops there.
        ("broken_cell_error.ipynb", ["cell 3 shows an exception", "cell 4 did not run"]),
    ],
)
def test_broken_fixture_is_caught(lab, browser, shots, fixture: str, expected: list[str]) -> None:
    """The runner reports FAILURE, with the right reason, for each deliberately broken notebook."""
    report = check_notebook(lab, browser, FIXTURES / fixture, shots)
    print(report.describe())  # shown with -rP: what the runner says about a broken notebook
    assert not report.ok, f"{fixture} is broken on purpose but the runner passed it"
    text = report.describe()
    missing = [phrase for phrase in expected if phrase not in text]
    assert not missing, f"the report lacks {missing}:\n{text}"
