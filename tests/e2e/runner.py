"""The learner's path through one notebook, end to end, as a list of problems.

`check_notebook` opens the notebook in a fresh page of a running JupyterLab, runs all cells through
the menu, checks that every cell ran and none shows an exception, then drives every `explore`
widget (see `explorer.check_explorer`). It also fails on what the learner would not see in the
notebook: uncaught exceptions in the page, and errors in JupyterLab's Log Console (where the
traceback of an exception raised inside a widget callback ends up). Screenshots of the page before
and after go to `shots`.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .explorer import EXPLORER_SELECTOR, STATIC_VIEW_SELECTOR, check_explorer
from .notebook_page import log_console_errors, notebook_cells, open_notebook, read_cells, reveal_all, run_all, source
from .server import LabServer

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Locator, Page

__all__ = ["NotebookReport", "check_notebook"]


@dataclass
class NotebookReport:
    """The outcome for one notebook: problems found (none: it passed), what was covered, how long."""

    notebook: Path
    problems: list[str] = field(default_factory=list)
    explorers: int = 0
    seconds: float = 0.0
    screenshots: list[Path] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No problem found."""
        return not self.problems

    def describe(self) -> str:
        """A readable summary, one problem per line."""
        head = f"{self.notebook.name}: {self.explorers} explorer(s) driven in {self.seconds:.1f} s"
        return "\n".join([head, *("  - " + p.replace("\n", "\n    ") for p in self.problems)])


def _shorten(text: str, keep: int = 700) -> str:
    """The head and the tail of a long traceback (where the cell and the exception are)."""
    text = text.strip()
    return text if len(text) <= 2 * keep else f"{text[:keep]}\n[...]\n{text[-keep:]}"


def _cell_problems(page: Page, notebook: Path) -> list[str]:
    problems = []
    for cell in read_cells(page, notebook):
        if cell.error and not cell.error_allowed:
            problems.append(f"cell {cell.number} shows an exception:\n{_shorten(cell.error)}")
        elif not cell.executed:
            problems.append(f"cell {cell.number} did not run (prompt {cell.prompt!r})")
    return problems


def _calls_explore(notebook: Path) -> bool:
    """Does any code cell call ``explore(``?"""
    return any(c["cell_type"] == "code" and re.search(r"\bexplore\(", source(c)) for c in notebook_cells(notebook))


def check_notebook(lab: LabServer, context: BrowserContext, notebook: Path, shots: Path) -> NotebookReport:
    """Run `notebook` in JupyterLab as a learner would and report every problem seen."""
    report = NotebookReport(notebook)
    started = time.monotonic()
    lab.delete_sessions()
    page = context.new_page()
    page_errors: list[str] = []
    page.on("pageerror", lambda error: page_errors.append(str(error)))
    stem = notebook.stem

    def screenshot(target: Page | Locator, name: str) -> Path:
        path = shots / f"{stem}-{name.replace(' ', '-')}.png"
        target.screenshot(path=str(path))
        report.screenshots.append(path)
        return path

    try:
        open_notebook(page, lab.lab_url(notebook))
        run_all(page)
        reveal_all(page)
        report.problems += _cell_problems(page, notebook)
        explorers = page.locator(EXPLORER_SELECTOR)
        if explorers.count():
            explorers.first.scroll_into_view_if_needed()
        screenshot(page, "before")
        static = page.locator(STATIC_VIEW_SELECTOR).count()
        if static:
            report.problems.append(f"{static} explorer(s) were drawn as static HTML: the widget front end did not load")
        # Explorers above a failing cell are live: drive them anyway, for a fuller report.
        report.explorers = explorers.count()
        if not report.explorers and _calls_explore(notebook):
            report.problems.append("the notebook calls explore() but no live explorer widget appeared")
        for i in range(report.explorers):
            report.problems += check_explorer(page, explorers.nth(i), f"explorer {i + 1}", screenshot)
        screenshot(page, "after")
        logged = log_console_errors(page)
        report.problems += [f"the Log Console shows an error:\n{_shorten(text)}" for text in logged]
    finally:
        page.close()
        lab.delete_sessions()
        report.problems += [f"error in the browser: {e}" for e in page_errors]
        report.seconds = time.monotonic() - started
    return report
