"""Real documentation pages from four generators (tests/fixtures/doc_generators, licences in its README)
read as their main text: content headings kept at their level, every multi-line <pre> kept line for line
in a fence, no furniture line, and the text the reference read by hand."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from chunklab.formats.furniture import furniture_lines
from chunklab.formats.web import extract_web_page

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "tests" / "fixtures" / "doc_generators").rglob("*.html"))
_spec = importlib.util.spec_from_file_location("doc_trees", ROOT / "benchmarks" / "doc_trees.py")
doc_trees = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(doc_trees)
# Where each generator's content is, as benchmarks/doc_trees.py measures the installed trees.
CONTENT = {"sphinx": "python (Sphinx)", "sqlite": "sqlite (hand-made)", "texinfo": "gnu-standards (Texinfo)",
           "docbook": "debian-reference (DocBook)"}


def test_four_generators_are_covered():
    assert {page.parent.name for page in PAGES} == set(CONTENT)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_headings_code_and_no_furniture(page):
    source = page.read_text(encoding="utf-8")
    text, _ = extract_web_page(source)
    _, root_path, excluded_path = doc_trees.TREES[CONTENT[page.parent.name]]
    headings, pres = doc_trees.content_elements(source, root_path, excluded_path)
    assert headings, "every excerpt has content headings"
    assert doc_trees.kept_headings(text, headings) >= 0.95 * len(headings), headings
    assert doc_trees.kept_pres(text, pres) == len(pres)
    assert furniture_lines(text) == []
    assert "\\_" not in text and "\\>" not in text and "¶" not in text, "no escape the page did not have"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_text_is_the_reference_read_by_hand(page):
    text, _ = extract_web_page(page.read_text(encoding="utf-8"))
    assert text + "\n" == page.with_suffix(".md").read_text(encoding="utf-8")


def test_the_excerpts_hold_what_the_goals_are_about():
    """The test above can fail: the pages hold furniture, code and headings the old reader lost."""
    sources = {f"{p.parent.name}/{p.name}": p.read_text(encoding="utf-8") for p in PAGES}
    assert "¶" in sources["sphinx/functools.html"] and "Previous topic" in sources["sphinx/functools.html"]
    assert "This page last modified" in sources["sqlite/lang_select.html"]
    assert "Small. Fast. Reliable." in sources["sqlite/lang_select.html"]
    assert "Next: <a" in sources["texinfo/standards.html"] and "Jump to:" in sources["texinfo/standards.html"]
    assert 'class="navheader"' in sources["docbook/ch01.en.html"]
    docbook, _ = extract_web_page(sources["docbook/ch01.en.html"])
    assert "```\n# cd /some/location/\n# chown -R foo:bar .\n# chmod -R ug+rwX,o=rX .\n```" in docbook


def test_root_prompts_outside_pre_and_placeholders_do_not_become_structure():
    text, _ = extract_web_page("<html><body><main><h1>Permissions</h1><p>Run this:<br># chmod -R ug+rwX .</p>"
                               "<dl><dt>&lt;script&gt;</dt><dd><p>Run the script.</p></dd></dl></main></body></html>")
    assert text == "# Permissions\n\nRun this:\n\\# chmod -R ug+rwX .\n\n\\<script>\n\nRun the script."
