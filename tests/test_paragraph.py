"""ParagraphChunker: blank-line paragraphs, fences kept whole, short ones merged, big ones split."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunklab.core import ParameterError
from chunklab.formats.markdown import fence_spans
from chunklab.strategies import ParagraphChunker
from chunklab.text.sentences import sentence_spans


def texts(chunks) -> list[str]:
    return [c.text for c in chunks]


def test_blank_lines_with_crlf_spaces_and_repeats() -> None:
    text = "First para\r\nstill first.\r\n  \r\n\r\nSecond.\n \t\n\n\n\tThird, indented. \n"
    chunks = ParagraphChunker(min_chunk_size=0)(text)
    assert texts(chunks) == ["First para\r\nstill first.", "Second.", "Third, indented."]
    assert all(text[c.start : c.end] == c.text and c.metadata["paragraphs"] == 1 for c in chunks)


def test_no_boundary_inside_a_fenced_code_block() -> None:
    code = "```python\ndef f():\n\n    return 1\n\n\nprint(f())\n```"
    text = f"Intro line.\n\n{code}\n\nAfter the code."
    chunks = ParagraphChunker(min_chunk_size=0)(text)
    assert texts(chunks) == ["Intro line.", code, "After the code."]
    assert chunks[1].metadata["paragraphs"] == 3


def test_short_paragraphs_merge_into_the_next() -> None:
    text = "# Title\n\nShort.\n\n" + "A full paragraph of body text that is long enough. " * 3 + "\n\nTail."
    assert len(ParagraphChunker(min_chunk_size=40, chunk_size=400)(text)) == 1
    chunks = ParagraphChunker(min_chunk_size=40, chunk_size=170)(text)
    assert chunks[0].text.startswith("# Title\n\nShort.\n\nA full") and chunks[0].metadata["paragraphs"] == 3
    assert chunks[-1].text == "Tail.", "merging would break max_size"
    body = "A body paragraph, long enough to stand alone.\n\nTail."
    assert texts(ParagraphChunker(min_chunk_size=10, chunk_size=100)(body)) == [body], "a short last one joins the one before"
    assert texts(ParagraphChunker(min_chunk_size=0, chunk_size=170)(text))[:2] == ["# Title", "Short."]


def test_merging_never_breaks_max_size() -> None:
    text = "Tiny.\n\n" + "x" * 95
    chunks = ParagraphChunker(min_chunk_size=50, chunk_size=100)(text)
    assert texts(chunks) == ["Tiny.", "x" * 95]


def test_oversized_paragraph_is_split_between_sentences() -> None:
    paragraph = " ".join(f"Sentence number {i} says something." for i in range(30))
    chunks = ParagraphChunker(min_chunk_size=0, chunk_size=200)(paragraph)
    sentences = sentence_spans(paragraph)
    assert len(chunks) > 4 and all(len(c.text) <= 200 and c.metadata["cut"] for c in chunks)
    assert {c.start for c in chunks} <= {s for s, _ in sentences}
    assert {c.end for c in chunks} <= {e for _, e in sentences}


def test_oversized_code_block_is_cut_between_lines() -> None:
    code = "```\n" + "\n".join(f"line_{i} = {i}" for i in range(60)) + "\n```"
    chunks = ParagraphChunker(min_chunk_size=0, chunk_size=120)(code)
    assert len(chunks) > 5 and all(len(c.text) <= 120 for c in chunks)
    assert all(c.start == 0 or code[c.start - 1] == "\n" for c in chunks), "pieces start at a line start"


def test_min_chunk_size_must_be_below_chunk_size() -> None:
    for smallest in (500, 400):
        with pytest.raises(ParameterError, match="min_chunk_size"):
            ParagraphChunker(min_chunk_size=smallest, chunk_size=400)


PIECES = ["Word word word.", "```", "code line", "", "   ", "\t", "- item", "Dr. Who?", "x" * 30]


@given(lines=st.lists(st.sampled_from(PIECES), max_size=60), newline=st.sampled_from(["\n", "\r\n"]),
       min_size=st.integers(0, 79), max_size=st.integers(80, 300))
def test_fences_that_fit_are_never_cut(lines: list[str], newline: str, min_size: int, max_size: int) -> None:
    text = newline.join(lines)
    chunks = ParagraphChunker(min_chunk_size=min_size, chunk_size=max_size)(text)
    bounds = {b for c in chunks for b in (c.start, c.end)}
    for start, end in fence_spans(text):
        if end - start <= max_size:
            assert not any(start < b < end for b in bounds), "a boundary inside a fenced block that fits"
    assert all(len(c.text) <= max_size for c in chunks)


def test_a_sentence_across_a_page_break_is_clipped_to_its_paragraph() -> None:
    page = "Words that fill a page go here. " * 6
    text = page + "This sentence runs on\nPage 1 of 2\n\n\fHeader line\nto the next page. " + page
    chunks = ParagraphChunker(min_chunk_size=0, chunk_size=120)(text)
    page_break = text.index("\n\n\f")
    assert all(c.end <= page_break or c.start > page_break for c in chunks), "no chunk crosses the blank line"
    assert all(a.end <= b.start for a, b in zip(chunks, chunks[1:]))
