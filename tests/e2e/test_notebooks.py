"""Every course notebook, run in JupyterLab and its explorers driven with mouse and keyboard."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import REPO
from .runner import check_notebook

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.name)
def test_notebook_as_a_learner(lab, browser, shots, notebook: Path) -> None:
    """Run All passes, no cell shows an exception, and every explorer follows its sliders."""
    report = check_notebook(lab, browser, notebook, shots)
    if not report.ok:
        pytest.fail(report.describe(), pytrace=False)
