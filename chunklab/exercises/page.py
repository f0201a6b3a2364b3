"""Notebook 13 (page chunking): which lines are running furniture, citing a chunk by its pages, and
why carrying sentences over page breaks does nothing on the paper."""

from __future__ import annotations

from ..formats.corpus import load_document
from ..strategies import PageChunker
from ..strategies.page import page_layout
from . import ExerciseFailed, exercise, pick

#: Exercise 1's text: four pages; a header on the first two, "Page N" at the foot of three, and a
#: differently written page number on the last.
FURNITURE_TEXT = "\n\n\f".join([
    "Annual Review 2025\nSales rose in the north and in the south.\nPage 1",
    "Annual Review 2025\nCosts fell for the third year running.\nPage 2",
    "Staff numbers held steady through the year.\nPage 3",
    "The outlook for next year is mixed.\n- 4 -",
])


def solution_furniture() -> tuple[int, int]:
    layout = page_layout(FURNITURE_TEXT)
    headers = sum(1 for line, _ in layout.furniture for page, body in zip(layout.pages, layout.bodies)
                  if page[0] <= line < body[0])  # above its page's body
    return headers, len(layout.furniture) - headers


@exercise("13.1", "which lines are furniture?", "predict", solution=solution_furniture,
          wrong=(lambda: (0, 3), lambda: (2, 4), lambda: (4, 4)))
def check_furniture(answer) -> str:
    """`answer` is ``(header lines, footer lines)`` that `page_layout` finds in `FURNITURE_TEXT`."""
    try:
        headers, footers = (int(v) for v in answer)
    except (TypeError, ValueError):
        raise ExerciseFailed("answer with a pair of numbers: (header lines, footer lines)") from None
    expected_headers, expected_footers = solution_furniture()
    if headers != expected_headers:
        hint = ("a line is furniture when its form recurs at the same edge of at least half of the pages (and of two): "
                "is two pages of four enough?" if headers < expected_headers else
                "only lines whose form recurs at the same edge count; the body lines at the top of pages 3 and 4 differ")
        raise ExerciseFailed(f"not {headers} header lines. Hint: {hint}.")
    if footers != expected_footers:
        hint = ("numbers are replaced by # before lines are compared, so 'Page 1' and 'Page 3' have the same form, "
                "but does '- 4 -' have it?")
        raise ExerciseFailed(f"the headers are right, but not {footers} footer lines. Hint: {hint}.")
    return "run page_layout(FURNITURE_TEXT).furniture to see the spans."


def _report_chunks() -> list:
    text = load_document("report").text
    return PageChunker(chunk_size=600)(text) + PageChunker(pages_per_chunk=3, chunk_size=12_000)(text)


def solution_citation(chunk) -> str:
    pages = chunk.metadata["pages"]
    return f"p. {pages[0]}" if len(pages) == 1 else f"pp. {pages[0]}-{pages[-1]}"


@exercise("13.2", "cite a chunk by its pages", "implement", solution=solution_citation,
          wrong=(lambda: lambda chunk: f"p. {chunk.metadata['page']}",
                 lambda: lambda chunk: "pp. " + "-".join(map(str, chunk.metadata["pages"])),
                 lambda: lambda chunk: f"pp. {chunk.metadata['pages'][0]}-{chunk.metadata['pages'][-1]}"))
def check_citation(candidate) -> str:
    """`candidate(chunk)` must cite every chunk of the report, at 600 characters and by three pages."""
    chunks = _report_chunks()
    for chunk in chunks:
        pages = chunk.metadata["pages"]
        expected = f"p. {pages[0]}" if len(pages) == 1 else f"pp. {pages[0]}-{pages[-1]}"
        got = candidate(chunk)
        if got != expected:
            raise ExerciseFailed(
                f"a chunk with pages={pages} is cited {got!r}. Hint: one page gives 'p. N', several give 'pp. first-last' "
                "(the first and the last page only, whatever lies between)."
            )
    several = sum(len(c.metadata["pages"]) > 1 for c in chunks)
    return f"all {len(chunks)} chunks cited, {several} of them over several pages."


#: Exercise 3's explanations of why carrying keeps no cross-page answer of the paper whole.
CARRY_CHOICES = {
    "A": "The paper's pages are longer than chunk_size, and the size cap cuts every carried sentence off again "
         "right after the page break.",
    "B": "The paper has no running header or footer, so there is nothing to strip between pages and nothing "
         "for a sentence to carry over.",
    "C": "Where a sentence runs on to the next page, a footnote ending in a full stop sits before the break; "
         "the chunker reads only a page's last line.",
    "D": "Carrying only works on text that read_pdf extracted from a PDF file, and the paper is plain text with "
         "form feeds, so nothing is ever carried over.",
}
_CARRY_HINTS = {
    "A": "look at page_layout(paper.text).open_ends: the chunker never decides to carry in the first place.",
    "B": "the chunker finds a running title on most pages and a page number on each: print the paper's "
         "furniture.",
    "D": "the chunker sees only a string with form feeds; where it came from does not matter.",
}


def solution_carry_choice() -> str:
    return "C"


@exercise("13.3", "why does carrying not help on the paper?", "explain", solution=solution_carry_choice,
          wrong=(lambda: "A", lambda: "B", lambda: "D"))
def check_carry_choice(choice) -> str:
    """One letter of `CARRY_CHOICES`."""
    pick(choice, CARRY_CHOICES, _CARRY_HINTS, solution_carry_choice())
    return ("a rule that reads only the last line of a page cannot see past a footnote; a layout-aware extractor "
            "that tags footnotes could.")
