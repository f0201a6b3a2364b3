"""Browser-test fixtures: one JupyterLab server and one Chromium for the whole run.

These tests are collected only when ``CHUNKLAB_E2E=1`` (as `make e2e` sets it), so the normal
``pytest tests notebooks`` run stays fast and needs no browser. The fixture notebooks are opened by
the tests, never collected themselves (not even by ``--nbmake``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

    from .server import LabServer

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "e2e-screenshots"

collect_ignore_glob = ["fixture_notebooks/*"] if os.environ.get("CHUNKLAB_E2E") == "1" else ["*"]


@pytest.fixture(scope="session")
def workdir() -> Iterator[Path]:
    """A temporary folder for the server's and the browser's state; removed at the end."""
    path = Path(tempfile.mkdtemp(prefix="chunklab-e2e-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def lab(workdir: Path) -> Iterator[LabServer]:
    """JupyterLab serving the repository, stopped by its PID when the run ends (however it ends)."""
    from .server import running_lab

    with running_lab(REPO, workdir) as server:
        yield server


@pytest.fixture(scope="session")
def browser(workdir: Path) -> Iterator[BrowserContext]:
    """Headless Debian Chromium under Playwright."""
    from .browser import browser_context

    with browser_context(workdir) as context:
        yield context


@pytest.fixture(scope="session")
def shots() -> Path:
    """The (git-ignored) screenshot folder, emptied at the start of the run."""
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)
    SCREENSHOTS.mkdir()
    return SCREENSHOTS
