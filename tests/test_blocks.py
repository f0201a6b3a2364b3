"""Document blocks: markdown (markdown-it-py) and HTML (position-reporting parser), exact spans."""

import pytest

from chunklab import list_documents, load_document
from chunklab.formats.blocks import heading_trails
from chunklab.formats.html import html_blocks, iter_elements, parse_html, text_content
from chunklab.formats.markdown import markdown_blocks
from chunklab.formats.parse import document_blocks, guess_format

MARKDOWN = (
    "# Install\r\n\r\nIntro line one\r\nline two.\r\n\r\n## Linux\r\n\r\n```bash\r\n# not a heading\r\n"
    "apt install harbor\r\n```\r\n\r\n- one\r\n- two\r\n\r\n| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n\r\n"
    "![A chart](fig.png)\r\n*Figure 1: the caption.*\r\n\r\n> quoted\r\n\r\n---\r\n"
)


def test_markdown_blocks_kinds_spans_and_crlf():
    blocks = markdown_blocks(MARKDOWN)
    assert [b.kind for b in blocks] == [
        "heading", "paragraph", "heading", "code", "list", "table", "image", "quote", "rule"
    ]
    texts = [MARKDOWN[b.start : b.end] for b in blocks]
    assert texts[1] == "Intro line one\r\nline two."
    assert texts[3].startswith("```bash") and texts[3].endswith("```") and "# not a heading" in texts[3]
    heading, code, listing, table, image = blocks[2], blocks[3], blocks[4], blocks[5], blocks[6]
    assert (heading.level, heading.title) == (2, "Linux")
    assert code.info == "bash" and code.attrs["fenced"]
    assert [MARKDOWN[s:e] for s, e in listing.parts] == ["- one", "- two"]
    assert [MARKDOWN[s:e] for s, e in table.parts] == ["| a | b |", "| 1 | 2 |"]
    assert MARKDOWN[slice(*table.header)] == "| a | b |"
    assert (image.title, image.info, image.attrs["caption"]) == ("A chart", "fig.png", "Figure 1: the caption.")
    assert not any(b.kind == "heading" and "not a heading" in b.title for b in blocks)


def test_html_tree_closes_omitted_end_tags_where_the_next_sibling_starts():
    text = "<ul><li>a<li>b <b>bold</b></ul><p>one\n<p>two</p><table><tr><th>h<tr><td>1</table>"
    root = parse_html(text)
    items = [text[e.start : e.end] for e in iter_elements(root, {"li"})]
    assert items == ["<li>a", "<li>b <b>bold</b>"]
    assert [text[e.start : e.end] for e in iter_elements(root, {"p"})] == ["<p>one", "<p>two</p>"]
    assert [text[e.start : e.end] for e in iter_elements(root, {"tr"})] == ["<tr><th>h", "<tr><td>1"]
    assert text_content(text, next(iter_elements(root, {"li"}))) == "a"


def test_html_blocks_walk_containers_and_skip_the_head():
    text = (
        "<!DOCTYPE html>\r\n<html><head><title>T</title><style>p{}</style></head><body>\r\n"
        "<section><h2>Zones &amp; tides</h2><p>Text.</p>loose words\r\n<figure><img src='f.png' alt='Alt'>"
        "<figcaption>Cap</figcaption></figure><pre><code class='language-python'>x = 1</code></pre></section>"
        "<table><thead><tr><td>k</td></tr></thead><tbody><tr><td>v</td></tr></tbody></table></body></html>"
    )
    blocks = html_blocks(text)
    assert [b.kind for b in blocks] == ["heading", "paragraph", "paragraph", "image", "code", "table"]
    assert blocks[0].title == "Zones & tides" and blocks[0].level == 2
    assert text[blocks[2].start : blocks[2].end] == "loose words"
    assert (blocks[3].title, blocks[3].info, blocks[3].attrs["caption"]) == ("Alt", "f.png", "Cap")
    assert blocks[4].info == "python"
    assert blocks[5].header is not None and len(blocks[5].parts) == 2


@pytest.mark.parametrize("name", list_documents())
def test_blocks_of_every_corpus_document_are_exact_sorted_and_disjoint(name):
    text = load_document(name).text
    blocks = document_blocks(text)
    assert blocks
    for block, nxt in zip(blocks, blocks[1:]):
        assert block.start < block.end <= nxt.start
    for block in blocks:
        assert not text[block.start].isspace() and not text[block.end - 1].isspace()
        for s, e in block.parts:
            assert block.start <= s < e <= block.end


def test_guess_format():
    assert guess_format(load_document("field_guide").text) == "html"
    assert guess_format(load_document("manual").text) == "markdown"
    assert guess_format(load_document("article").text) == "text"
    assert [b.kind for b in document_blocks("One.\n\nTwo.", "text")] == ["paragraph", "paragraph"]
    with pytest.raises(ValueError, match="fmt"):
        document_blocks("x", "rtf")


def test_heading_trails_give_breadcrumbs():
    text = "# Install\n\nintro\n\n## Linux\n\nsteps\n\n### apt\n\nx\n\n## macOS\n\ny\n\n# Use\n\nz"
    trails = [" > ".join(t) for t in heading_trails(markdown_blocks(text))]
    assert trails == ["Install", "Install", "Install > Linux", "Install > Linux", "Install > Linux > apt",
                      "Install > Linux > apt", "Install > macOS", "Install > macOS", "Use", "Use"]


def test_table_blocks_carry_their_cells_as_plain_text():
    (table,) = [b for b in markdown_blocks(MARKDOWN) if b.kind == "table"]
    assert table.attrs["cells"] == (("a", "b"), ("1", "2"))
    markup = "<table><tr><th>Name</th><th>Size</th></tr><tr><td><b>Sea</b> lemon</td><td>12 &amp; up</td></tr></table>"
    (html_table,) = html_blocks(markup)
    assert html_table.attrs["cells"] == (("Name", "Size"), ("Sea lemon", "12 & up"))
