"""PageChunker: pages at form feeds, running headers and footers, sentences carried over a page break."""

from __future__ import annotations

import time

from chunklab import load_document, load_questions
from chunklab.formats.pdf import PAGE_SEPARATOR, page_spans, read_pdf
from chunklab.strategies import PageChunker
from chunklab.strategies.page import page_layout


def pdftotext_like(bodies: list[str], header: str = "ACME Annual Review") -> str:
    """Pages as pdftotext writes them: each page's lines, a form feed before the next page."""
    n = len(bodies)
    return "\f".join(f"{header}\n{body}\nPage {i} of {n}\n" for i, body in enumerate(bodies, 1))


PAGES = pdftotext_like([
    "Revenue grew in every region.\nCosts fell slightly.",
    "The board met four times. The new plant in Dunmore opened on",
    "schedule in May. Output doubled by the autumn.",
])


def test_pages_split_at_form_feeds_and_furniture_found():
    layout = page_layout(PAGES)
    assert len(layout.pages) == 3
    furniture = [PAGES[s:e] for s, e in layout.furniture]
    assert furniture == [
        "ACME Annual Review", "Page 1 of 3",
        "ACME Annual Review", "Page 2 of 3",
        "ACME Annual Review", "Page 3 of 3",
    ]
    assert PAGES[slice(*layout.bodies[0])] == "Revenue grew in every region.\nCosts fell slightly."


def test_one_chunk_per_page_without_furniture():
    chunks = PageChunker(carry_sentences=False)(PAGES)
    assert [c.metadata["page"] for c in chunks] == [1, 2, 3]
    assert chunks[0].text == "Revenue grew in every region.\nCosts fell slightly."
    assert chunks[1].text == "The board met four times. The new plant in Dunmore opened on"
    assert not any("clean_text" in c.metadata for c in chunks)
    kept = PageChunker(strip_furniture=False, carry_sentences=False)(PAGES)
    assert kept[0].text.startswith("ACME Annual Review") and kept[0].text.endswith("Page 1 of 3")
    assert kept[0].metadata["clean_text"] == chunks[0].text


def test_a_sentence_is_carried_over_the_page_break():
    chunks = PageChunker()(PAGES)
    assert [c.metadata["pages"] for c in chunks] == [[1], [2, 3], [3]]
    carried = chunks[1]
    assert carried.text.endswith("schedule in May.") and "Page 2 of 3" in carried.text  # the exact span
    assert carried.metadata["clean_text"] == (
        "The board met four times. The new plant in Dunmore opened on\nschedule in May."
    )
    assert chunks[2].text == "Output doubled by the autumn."


def test_several_pages_per_chunk_and_a_size_cap():
    two = PageChunker(pages_per_chunk=2, carry_sentences=False)(PAGES)
    assert [c.metadata["pages"] for c in two] == [[1, 2], [3]]
    assert "Page 1 of 3" not in two[0].metadata["clean_text"] and "Page 1 of 3" in two[0].text
    capped = PageChunker(chunk_size=40, carry_sentences=False)(PAGES)
    assert all(len(c) <= 40 for c in capped)
    assert [c.metadata["page"] for c in capped] == sorted(c.metadata["page"] for c in capped)
    assert {c.metadata["page"] for c in capped} == {1, 2, 3}


def test_text_without_form_feeds_is_one_page_and_blank_pages_keep_numbering():
    chunks = PageChunker()("Just one page. Nothing more.")
    assert len(chunks) == 1 and chunks[0].metadata["pages"] == [1]
    blank = PageChunker()("First page.\f \n\fThird page.")
    assert [c.metadata["page"] for c in blank] == [1, 3]


def test_lone_repeated_lines_in_the_middle_are_not_furniture():
    text = "\f".join(f"Title\nBody {i} starts.\nSummary\nBody {i} ends.\nPage {i}" for i in range(1, 5))
    furniture = {text[s:e] for s, e in page_layout(text).furniture}
    assert "Summary" not in furniture and {"Title", "Page 1", "Page 4"} <= furniture


def test_page_spans_give_back_read_pdf_pages():
    doc = load_document("report")
    text, pages = read_pdf(doc.path)
    assert page_spans(text) == pages
    assert text.count("\f") == len(pages) - 1 and PAGE_SEPARATOR.endswith("\f")


def test_report_cross_page_answers_lie_whole_in_one_chunk_only_when_carried():
    doc = load_document("report")
    pages = doc.metadata["pages"]
    crossing = [a for q in load_questions("report") for a in q["answers"]
                if sum(s < a["end"] and a["start"] < e for s, e in pages) > 1]
    assert len(crossing) == 5

    def whole(chunks):
        return sum(any(c.start <= a["start"] and a["end"] <= c.end for c in chunks) for a in crossing)

    assert whole(PageChunker(carry_sentences=True)(doc.text)) == 5
    assert whole(PageChunker(carry_sentences=False)(doc.text)) == 0
    # The contents page ends with a short list line and no full stop: not a sentence to carry.
    assert PageChunker()(doc.text)[0].metadata["pages"] == [1]
    header = "Marrow Bay Freight · 2025 Sustainability Report"
    headers = [c for c in PageChunker()(doc.text) if header in c.metadata.get("clean_text", "")]
    assert not headers, "the running header never reaches clean_text"


def test_many_pages_chunk_in_linear_time():
    small = pdftotext_like(["Body text of a page that ends well."] * 200)
    large = pdftotext_like(["Body text of a page that ends well."] * 2000)
    timings = []
    for text in (small, large):
        started = time.perf_counter()
        PageChunker()(text)
        timings.append(time.perf_counter() - started)
    assert timings[1] < 40 * timings[0] + 0.2  # 10x the pages, far from 100x the time


def test_the_report_as_read_has_nothing_left_to_strip_and_chunks_by_the_same_pages():
    doc = load_document("report")  # the corpus keeps the running header and footer
    text, pages = read_pdf(doc.path)  # a learner's reading leaves them out, by the same rule
    assert not page_layout(text).furniture and len(page_layout(doc.text).furniture) == 20
    for carry in (False, True):
        as_read, as_kept = PageChunker(carry_sentences=carry)(text), PageChunker(carry_sentences=carry)(doc.text)
        assert [c.metadata["pages"] for c in as_read] == [c.metadata["pages"] for c in as_kept]
        assert not any("clean_text" in c.metadata for c in as_read)
        assert all(text[c.start : c.end] == c.text for c in as_read)
    single = PageChunker(carry_sentences=False)
    assert [c.text for c in single(text)] == [c.text for c in single(doc.text)]
    assert [text[s:e] for s, e in pages] == [c.text for c in single(text)]
