"""One notebook open in JupyterLab: wait for the kernel, Run All through the menu, read the cells.

Everything here reads what the learner sees (prompts, rendered outputs, the status bar), never
internal state. The races it waits out are those in ``shared/notes/BROWSER_TESTING.md``.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Page

__all__ = [
    "CellReport",
    "kernel_idle",
    "log_console_errors",
    "notebook_cells",
    "open_notebook",
    "read_cells",
    "reveal_all",
    "run_all",
    "source",
    "wait_for_kernel_idle",
]

OPEN_TIMEOUT_S = 120
RUN_START_TIMEOUT_S = 15
RUN_ALL_TIMEOUT_S = 900
_SETTLE_S = 1.0

_IDLE_INDICATOR = ".jp-NotebookPanel .jp-Notebook-ExecutionIndicator[data-status='idle']"
_STATUS_BAR_IDLE_JS = """() => [...document.querySelectorAll('#jp-main-statusbar .jp-StatusBar-TextItem')]
    .some(item => item.textContent.includes('| Idle'))"""
_PROMPTS_JS = """() => [...document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-Cell')].map(cell =>
    cell.classList.contains('jp-CodeCell')
        ? (cell.querySelector('.jp-InputPrompt')?.textContent ?? '').trim()
        : null)"""
_OUTPUTS_JS = """() => [...document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-Cell')].map(cell =>
    [...cell.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
        .map(output => output.textContent))"""
# A line that starts a Python exception report, e.g. "RuntimeError: ..." or "SyntaxError: ...".
_EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit)\b", re.M)


@dataclass(frozen=True)
class CellReport:
    """What Run All left in one code cell: its prompt and whether it shows an exception.

    `number` counts all cells from 1, as JupyterLab's status bar does ("Cell 3/12").
    """

    number: int
    prompt: str
    executed: bool
    error: str | None
    error_allowed: bool


def kernel_idle(page: Page) -> bool:
    """True when both the notebook toolbar and the status bar say the kernel is idle."""
    return page.locator(_IDLE_INDICATOR).count() == 1 and page.evaluate(_STATUS_BAR_IDLE_JS)


def wait_for_kernel_idle(page: Page, timeout_s: float) -> None:
    """Wait until the kernel is idle by both indicators (JupyterLab issue 15420 is about their race)."""
    page.wait_for_selector(_IDLE_INDICATOR, timeout=timeout_s * 1000)
    page.wait_for_function(_STATUS_BAR_IDLE_JS, timeout=timeout_s * 1000)


def open_notebook(page: Page, url: str) -> None:
    """Load JupyterLab on `url` (a notebook) and wait until its kernel is ready."""
    page.goto(url, timeout=OPEN_TIMEOUT_S * 1000)
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=OPEN_TIMEOUT_S * 1000)
    wait_for_kernel_idle(page, OPEN_TIMEOUT_S)


def _prompts(page: Page) -> list[str | None]:
    return page.evaluate(_PROMPTS_JS)


def _menu(page: Page, menu: str, command: str) -> None:
    """Click a main-menu entry, e.g. ``_menu(page, "Run", "runmenu:run-all")``."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{menu}$")).click()
    page.locator(f".lm-Menu-item[data-command='{command}']").click()


def reveal_all(page: Page) -> None:
    """View -> Expand All Code and Expand All Outputs: hidden solution cells show their prompts again."""
    _menu(page, "View", "notebook:show-all-cell-code")
    _menu(page, "View", "notebook:show-all-cell-outputs")


def run_all(page: Page) -> None:
    """Menu Run -> Run All Cells, then wait until every queued cell has finished.

    If no prompt has changed a moment later, the click came too early (the kernel looked idle but
    was not), so it is retried once.
    """
    before = _prompts(page)
    if not any(p is not None for p in before):
        return
    for attempt in range(2):
        _menu(page, "Run", "runmenu:run-all")
        deadline = time.monotonic() + RUN_START_TIMEOUT_S
        while time.monotonic() < deadline and _prompts(page) == before:
            time.sleep(0.1)
        if _prompts(page) != before:
            break
        if attempt == 1:
            raise TimeoutError("Run All did not start any cell (tried twice)")
        wait_for_kernel_idle(page, OPEN_TIMEOUT_S)
    _wait_for_run_to_finish(page)


def _wait_for_run_to_finish(page: Page) -> None:
    """Wait until no cell shows ``[*]:`` and the kernel has been idle for a moment."""
    deadline = time.monotonic() + RUN_ALL_TIMEOUT_S
    calm_since: float | None = None
    while time.monotonic() < deadline:
        running = any(p == "[*]:" for p in _prompts(page) if p is not None)
        if not running and kernel_idle(page):
            calm_since = calm_since or time.monotonic()
            if time.monotonic() - calm_since >= _SETTLE_S:
                return
        else:
            calm_since = None
        time.sleep(0.2)
    raise TimeoutError(f"Run All had not finished after {RUN_ALL_TIMEOUT_S} s")


def notebook_cells(notebook: Path) -> list[dict[str, Any]]:
    """The cells of a notebook file, as stored (nbformat 4 JSON)."""
    return json.loads(notebook.read_text(encoding="utf-8"))["cells"]


def source(cell: dict[str, Any]) -> str:
    """A stored cell's source as one string (nbformat allows a string or a list of lines)."""
    text = cell["source"]
    return text if isinstance(text, str) else "".join(text)


def read_cells(page: Page, notebook: Path) -> list[CellReport]:
    """One `CellReport` per non-empty code cell, matched to the file's cells by position.

    A cell whose code is hidden shows no prompt: call `reveal_all` first.

    Errors in cells tagged ``raises-exception`` are shown on purpose (JupyterLab's Run All goes on
    past them, and nbmake accepts them too), so they are marked allowed.
    """
    cells = notebook_cells(notebook)
    prompts = _prompts(page)
    outputs = page.evaluate(_OUTPUTS_JS)
    if len(prompts) != len(cells):
        raise AssertionError(f"JupyterLab shows {len(prompts)} cells but {notebook.name} has {len(cells)}")
    reports = []
    for index, (cell, prompt, texts) in enumerate(zip(cells, prompts, outputs, strict=True)):
        if prompt is None or not source(cell).strip():
            continue
        errors = [text for text in texts if "Traceback (most recent call last)" in text or _EXCEPTION_LINE.search(text)]
        reports.append(
            CellReport(
                number=index + 1,
                prompt=prompt,
                executed=re.fullmatch(r"\[\d+\]:", prompt) is not None,
                error=errors[0] if errors else None,
                error_allowed="raises-exception" in cell.get("metadata", {}).get("tags", []),
            )
        )
    return reports


_LOG_ENTRIES_JS = """() => [...document.querySelectorAll('.jp-LogConsole .jp-OutputArea-child')].map(entry => [
    entry.querySelector('.jp-OutputArea-prompt')?.dataset.logLevel ?? '',
    entry.querySelector('.jp-OutputArea-output')?.textContent ?? '',
])"""


def log_console_errors(page: Page) -> list[str]:
    """Error-level entries of the notebook's Log Console, opened from its status bar item.

    Output that has no cell to go to lands there; in particular, ipywidgets shows the traceback of
    an exception raised inside a widget callback there, and nowhere in the notebook itself.
    """
    status = page.locator("#jp-main-statusbar .jp-LogConsoleStatusItem")
    if not status.is_visible():  # JupyterLab hides it while the log is empty
        return []
    status.click()
    page.wait_for_selector(".jp-LogConsole", timeout=10_000)
    return [text for level, text in page.evaluate(_LOG_ENTRIES_JS) if level in ("error", "critical")]
