"""Markdown and HTML chunkers: headings start chunks with a breadcrumb, blocks stay whole when they
fit, what is too big is cut at its own structure, and a '#' inside a code fence is code."""

from __future__ import annotations

import pytest

from chunklab import load_document
from chunklab.evaluation.metrics import structure_metrics
from chunklab.formats.html import iter_elements, parse_html
from chunklab.formats.parse import document_blocks
from chunklab.strategies import FixedSizeChunker, HtmlChunker, MarkdownChunker
from chunklab.text.sentences import sentence_spans

GUIDE = """# Guide

Intro paragraph.

## Install

### Linux

Run the installer.

```bash
# this is a comment, not a heading
./install.sh --prefix /opt
```

### macOS

Use the package.

## Use

| option | meaning |
|---|---|
| -v | verbose |
| -q | quiet |
"""


def boundaries_inside(chunks, spans) -> list[tuple[int, int]]:
    """The spans that some chunk start or end falls strictly inside."""
    cuts = {b for c in chunks for b in (c.start, c.end)}
    return [(s, e) for s, e in spans if any(s < b < e for b in cuts)]


def test_headings_start_chunks_and_give_the_breadcrumb():
    chunks = MarkdownChunker(chunk_size=200)(GUIDE)
    sections = [c.metadata["section"] for c in chunks]
    assert sections == ["Guide", "Guide > Install > Linux", "Guide > Install > macOS", "Guide > Use"]
    assert chunks[1].text.startswith("## Install\n\n### Linux"), "a heading with nothing under it joins the next"
    assert chunks[1].metadata["context"] == "Guide > Install > Linux"


def test_a_hash_line_in_a_code_fence_is_never_a_heading():
    chunks = MarkdownChunker(chunk_size=200)(GUIDE)
    comment = GUIDE.index("# this is a comment")
    assert not any(c.start == comment for c in chunks)
    assert all("this is a comment" not in c.metadata["section"] for c in chunks)
    assert any("this is a comment" in c.text and c.metadata["modality"] in ("code", "mixed") for c in chunks)


def test_heading_level_decides_which_headings_start_chunks():
    chunks = MarkdownChunker(chunk_size=400, heading_level=2)(GUIDE)
    assert [c.metadata["section"] for c in chunks] == ["Guide", "Guide > Install > Linux", "Guide > Use"]
    assert "### macOS" in chunks[1].text


@pytest.mark.parametrize("size", [150, 400, 800])
def test_code_lists_and_tables_that_fit_are_never_cut(size):
    text = load_document("manual").text
    chunks = MarkdownChunker(chunk_size=size)(text)
    blocks = [b for b in document_blocks(text, "markdown") if b.end - b.start <= size]
    assert boundaries_inside(chunks, [b.span for b in blocks if b.kind in ("code", "list", "table")]) == []
    assert_cut_only_beside_a_heading(text, chunks, [b.span for b in blocks if b.kind == "paragraph"])


def assert_cut_only_beside_a_heading(text, chunks, paragraphs) -> None:
    """A paragraph that fits is cut only to keep its heading company, and then between sentences."""
    sentences = {b for span in sentence_spans(text) for b in span}
    headings = {b.start for b in document_blocks(text) if b.kind == "heading"}
    for s, e in boundaries_inside(chunks, paragraphs):
        cuts = [b for c in chunks for b in (c.start, c.end) if s < b < e]
        assert all(cut in sentences for cut in cuts)
        assert any(c.end in cuts and c.start in headings for c in chunks)


def test_an_oversized_table_is_cut_between_rows_with_its_header_as_context():
    rows = "\n".join(f"| HC-E{800 + i} | error {i}, with a long explanation of what went wrong |" for i in range(20))
    text = f"## Errors\n\n| code | meaning |\n|---|---|\n{rows}\n"
    chunks = MarkdownChunker(chunk_size=300)(text)
    assert len(chunks) > 2
    lines = [(text.index(line), text.index(line) + len(line)) for line in text.splitlines() if line.startswith("|")]
    assert boundaries_inside(chunks, lines) == []
    for chunk in chunks[1:]:
        assert chunk.metadata["context"] == "Errors\n| code | meaning |"


def test_an_oversized_python_fence_is_cut_between_definitions():
    functions = "\n\n".join(f"def step_{i}(x):\n    total = x * {i}\n    return total + {i}" for i in range(12))
    text = f"## Code\n\n```python\n{functions}\n```\n"
    chunks = MarkdownChunker(chunk_size=200)(text)
    assert len(chunks) > 2
    for chunk in chunks:
        body = chunk.text.removeprefix("## Code\n\n").removeprefix("```python\n")
        assert body.startswith("def step_"), chunk.text
    assert chunks[-1].text.endswith("```")


def test_markdown_breaks_less_structure_than_fixed_size_on_the_manual():
    text = load_document("manual").text
    fixed = structure_metrics(FixedSizeChunker(chunk_size=400)(text), text)
    aware = structure_metrics(MarkdownChunker(chunk_size=400)(text), text)
    for kind in ("chunks_cutting_sentences", "chunks_cutting_table_rows", "chunks_cutting_code_blocks"):
        assert aware[kind] < fixed[kind], kind
    assert aware["chunks_cutting_table_rows"] == 0 and aware["chunks_cutting_words"] == 0


def test_larger_size_never_gives_more_chunks():
    text = load_document("manual").text
    counts = [len(MarkdownChunker(chunk_size=size)(text)) for size in range(100, 2001, 100)]
    assert counts == sorted(counts, reverse=True)


def test_crlf_markdown_keeps_exact_offsets_and_breadcrumbs():
    text = GUIDE.replace("\n", "\r\n")
    chunks = MarkdownChunker(chunk_size=200)(text)
    assert all(text[c.start : c.end] == c.text for c in chunks)
    assert [c.metadata["section"] for c in chunks] == [
        "Guide", "Guide > Install > Linux", "Guide > Install > macOS", "Guide > Use",
    ]


# -- HTML -------------------------------------------------------------------------------------------
def test_html_headings_start_chunks_and_rows_are_never_cut():
    text = load_document("field_guide").text
    chunks = HtmlChunker(chunk_size=400)(text)
    starts = {c.start for c in chunks}
    headings = list(iter_elements(parse_html(text), {"h2", "h3"}))
    assert headings and all(h.start in starts for h in headings)
    def fitting(tags):
        return [(e.start, e.end) for e in iter_elements(parse_html(text), tags) if e.end - e.start <= 400]

    assert boundaries_inside(chunks, fitting({"tr", "li", "dd", "dt"})) == []
    assert_cut_only_beside_a_heading(text, chunks, fitting({"p"}))
    table_chunks = [c for c in chunks if c.metadata["modality"] in ("table", "mixed") and "<tr" in c.text]
    assert len(table_chunks) > 1
    assert all("<th>" in c.metadata["context"] for c in table_chunks if "<thead>" not in c.text)


def test_html_chunks_carry_their_section():
    text = load_document("field_guide").text
    chunk = next(c for c in HtmlChunker()(text) if "Ochre Sea Star</h3>" in c.text)
    assert chunk.metadata["section"] == "Tide Pool Field Guide > Species Accounts > Ochre Sea Star"
