"""Web pages read as their visible main text: no markup, script or furniture in any chunk of any
registered strategy, and no main text lost (pages in tests/fixtures/web, what they hold in expected.json)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chunklab import CHUNKERS
from chunklab.formats.markdown import markdown_blocks
from chunklab.formats.readers import read_document
from chunklab.formats.web import extract_web_page

PAGES = Path(__file__).parent / "fixtures" / "web"
EXPECTED = {k: v for k, v in json.loads((PAGES / "expected.json").read_text(encoding="utf-8")).items()
            if not k.startswith("_")}
# A tag, a comment or a character reference: none may survive extraction.
MARKUP = re.compile(r"<[a-zA-Z/!?][^>]*>|&(?:[a-z]+|#\d+);")
# What the pages' scripts, styles and SVG hold.
SCRIPT = ["function(", "window.", "document.", "=>", "{\"", "@context", "googletag", "stroke-width", "viewBox"]


def words(text: str) -> str:
    return " " + " ".join(re.findall(r"\w+", text.lower())) + " "


@pytest.fixture(scope="module")
def pages():
    return {name: read_document(PAGES / name) for name in EXPECTED}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_page_text_is_its_main_text_and_nothing_else(pages, name):
    doc = pages[name]
    assert doc.kind == "html" and doc.metadata["format"] == "markdown" and doc.metadata["extractor"].startswith("structure")
    missing = [p for p in EXPECTED[name]["main"] if words(p) not in words(doc.text)]
    assert not missing, f"main text lost: {missing}"
    leaked = [f for f in EXPECTED[name]["furniture"] if f in doc.text]
    assert not leaked, f"furniture kept: {leaked}"
    assert not MARKUP.search(doc.text), MARKUP.search(doc.text)
    assert not any(s in doc.text for s in SCRIPT)


def test_structure_comes_through_as_markdown(pages):
    kinds = {name: [b.kind for b in markdown_blocks(doc.text)] for name, doc in pages.items()}
    assert {name: (k.count("heading"), k.count("table"), k.count("code")) for name, k in kinds.items()} == {
        "docs_retention.html": (4, 1, 2),
        "news_seed_library.html": (3, 1, 0),
        "service_fishing_permit.html": (6, 1, 0),  # the two <summary> questions are paragraphs: not h1-h6
        "blog_rye_bread.html": (4, 1, 1),
    }
    docs = pages["docs_retention.html"].text
    assert "## How pruning works\n" in docs, "permalink marks come off headings"
    assert "| `keep_daily` | 7 | the newest snapshot of each of the last days |" in docs
    assert "```\nharbor prune --keep-daily 3 --keep-monthly 6 --dry-run\n" in docs
    news = pages["news_seed_library.html"].text
    assert "Opening hours from 15 November\n\n| Day | Before closure | From 15 November |\n|---|---|---|" in news


def test_headings_carry_their_span_and_source_line(pages):
    for name, doc in pages.items():
        source = (PAGES / name).read_text(encoding="utf-8").splitlines()
        for heading in doc.metadata["headings"]:
            assert doc.text[heading["start"] : heading["end"]] == "#" * heading["level"] + " " + heading["title"]
            if heading["source_line"] is not None:
                assert heading["title"] in source[heading["source_line"] - 1], (name, heading)
    lines = [h["source_line"] for h in pages["blog_rye_bread.html"].metadata["headings"]]
    assert lines[0] == 39 and None not in lines, "the title put back on top still points at its <h1>"


@pytest.mark.parametrize("strategy", sorted(CHUNKERS))
def test_no_chunk_of_any_strategy_holds_markup_and_no_main_text_is_lost(pages, strategy):
    chunker = CHUNKERS[strategy]()
    for name, doc in pages.items():
        chunks = chunker(doc.text, source=name)
        covered = [" "] * len(doc.text)
        for chunk in chunks:
            assert doc.text[chunk.start : chunk.end] == chunk.text
            assert not MARKUP.search(chunk.text) and not any(s in chunk.text for s in SCRIPT), (name, chunk.text)
            covered[chunk.start : chunk.end] = chunk.text
        kept = words("".join(covered))
        missing = [p for p in EXPECTED[name]["main"] if words(p) not in kept]
        assert not missing, f"{strategy} on {name} dropped {missing}"


def test_pages_without_main_content_and_empty_ones():
    assert extract_web_page("")[0] == "" and extract_web_page("  \n ")[0] == ""
    assert extract_web_page("<!-- nothing -->")[0] == ""
    text, metadata = extract_web_page("<p>Only one short paragraph.</p><script>track()</script>")
    assert text == "Only one short paragraph." and metadata["headings"] == []
    text, _ = extract_web_page('<?xml version="1.0" encoding="utf-8"?><html><body><h1>Title</h1>'
                               "<p>A page with an XML declaration, read all the same.</p></body></html>")
    assert "A page with an XML declaration" in text and "<" not in text


def test_share_words_in_table_cells_are_kept():
    page = ("<html><body><main><h1>Downloads</h1><p>Every report of the season comes in two formats, listed "
            "below with their sizes, so pick the one that suits your reader.</p><table><tr><th>Format</th>"
            "<th>Size</th></tr><tr><td>PDF</td><td>2 MB</td></tr><tr><td>Print</td><td>40 pages</td></tr></table>"
            "<p>Both formats hold the same text and the same figures, page for page.</p></main></body></html>")
    text, _ = extract_web_page(page)
    assert "| PDF | 2 MB |" in text and "| Print | 40 pages |" in text


def test_inline_escapes_come_off_and_block_start_escapes_stay():
    page = ("<html><body><main><h1>Options</h1><p>Set keep_daily to 7 and a * b stays a product, a < b a "
            "comparison, [draft] a word in brackets.</p><table><tr><th>Option</th></tr><tr><td>keep_monthly</td>"
            "</tr></table><p># is the comment sign of the settings file, not a heading here.</p></main></body></html>")
    text, _ = extract_web_page(page)
    assert "Set keep_daily to 7 and a * b stays a product, a < b a comparison, [draft] a word" in text
    assert "| keep_monthly |" in text
    assert "\n\\# is the comment sign" in text, "a line that would read as a heading keeps its escape"
