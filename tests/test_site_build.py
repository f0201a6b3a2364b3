"""The site build's own steps (docs/build_site.py) on small notebooks made here: what it drops,
folds and links before Sphinx sees a page. The whole site is built and read by tests/e2e/test_site.py."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("build_site", REPO / "docs" / "build_site.py")
build_site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_site)

BAR = "compare:   0%|          | 0/12 [00:00<?, ?it/s]"
WIDGET = {"model_id": "x", "version_major": 2, "version_minor": 0}


def _notebook() -> nbformat.NotebookNode:
    code = new_code_cell("compare(...)", outputs=[
        new_output("display_data", data={"text/plain": BAR, build_site.WIDGET_VIEW: WIDGET}),
        new_output("stream", name="stderr", text=f"{BAR}\rcompare: 100%|##########| 12/12 [00:01<00:00]\n"),
        new_output("stream", name="stdout", text="12 chunkings measured\n"),
        new_output("display_data", data={"text/plain": "leaderboard", "text/html": "<table></table>",
                                          build_site.WIDGET_VIEW: WIDGET}),
    ])
    checks = new_code_cell("assert True", metadata={"tags": ["checks"]})
    prose = new_markdown_cell("Use `compare` and `show`; `compare` again.\n\n```python\n`show`\n```\n")
    later = new_markdown_cell("`show()` and `nothing_public`")
    notebook = new_notebook(cells=[prose, code, checks, later])
    notebook.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
    return notebook


def test_progress_bars_and_widget_state_are_dropped_other_outputs_kept() -> None:
    page = build_site.prepare(_notebook(), {})
    outputs = page.cells[1].outputs
    assert [o.output_type for o in outputs] == ["stream", "display_data"]
    assert outputs[0].text == "12 chunkings measured\n" and "text/html" in outputs[1].data
    assert "widgets" not in page.metadata


def test_check_cells_are_folded() -> None:
    page = build_site.prepare(_notebook(), {})
    assert "hide-input" in page.cells[2].metadata.tags and "hide-input" not in page.cells[1].metadata.get("tags", [])


def test_the_first_mention_of_a_public_name_on_a_page_links_to_the_reference() -> None:
    links = {"compare": "chunklab.evaluation.compare", "show": "chunklab.viz.show"}
    page = build_site.prepare(_notebook(), links)
    first, later = page.cells[0].source, page.cells[3].source
    assert first.startswith("Use {py:obj}`compare <chunklab.evaluation.compare>` and {py:obj}`show <chunklab.viz.show>`")
    assert "`compare` again" in first and "```python\n`show`\n```" in first  # later mentions, code fences
    assert later == "`show()` and `nothing_public`"  # already linked on this page; unknown names alone


def test_a_section_of_a_notebook_keeps_its_prose_and_its_outputs() -> None:
    notebook = new_notebook(cells=[
        new_markdown_cell("# Title\n\n## Wanted\n\nText."),
        new_code_cell("x", outputs=[new_output("display_data", data={"text/markdown": "**shown**"})]),
        new_markdown_cell("### Inside\n\nMore.\n\n## Next\n\nNot wanted."),
    ])
    text = build_site.section(notebook, "## Wanted")
    assert "Text." in text and "**shown**" in text and "### Inside" in text and "Not wanted" not in text
