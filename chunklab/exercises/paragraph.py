"""Notebook 03 (paragraph chunking): merging short paragraphs forward, what counts as a paragraph
break, and why a PDF's extracted text turns paragraph chunking into sentence packing."""

from __future__ import annotations

from ..formats.corpus import load_document
from ..strategies import ParagraphChunker, paragraph
from ..text.paragraphs import paragraph_spans
from . import ExerciseFailed, exercise, numbers_of, pick, refuse_library

#: The minimum sizes exercise 1's check tries.
MERGE_SIZES = (0, 100, 200, 400)


def solution_merge(text: str, spans: list[tuple[int, int]], min_size: int) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and merged[-1][1] - merged[-1][0] < min_size:
            merged[-1] = (merged[-1][0], end)  # the current chunk is short: the next span joins it
        else:
            merged.append((start, end))
    if len(merged) > 1 and merged[-1][1] - merged[-1][0] < min_size:
        last = merged.pop()  # a short last chunk joins the one before it
        merged[-1] = (merged[-1][0], last[1])
    return merged


def _merge_backward(text: str, spans: list[tuple[int, int]], min_size: int) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and end - start < min_size:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _forward_without_last(text: str, spans: list[tuple[int, int]], min_size: int) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and merged[-1][1] - merged[-1][0] < min_size:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _merge_without_gaps(text: str, spans: list[tuple[int, int]], min_size: int) -> list[tuple[int, int]]:
    """Merging forward, measuring a chunk as the sum of its paragraphs' lengths: the blank lines
    between them left out (the slip exercise 1's check names)."""
    merged: list[tuple[int, int]] = []
    sizes: list[int] = []
    for start, end in spans:
        if merged and sizes[-1] < min_size:
            merged[-1], sizes[-1] = (merged[-1][0], end), sizes[-1] + end - start
        else:
            merged.append((start, end))
            sizes.append(end - start)
    if len(merged) > 1 and sizes[-1] < min_size:
        last = merged.pop()
        sizes[-2] += sizes.pop()
        merged[-1] = (merged[-1][0], last[1])
    return merged


@exercise("03.1", "merge forward, from scratch", "implement", solution=solution_merge,
          wrong=(lambda: _merge_backward, lambda: _forward_without_last, lambda: lambda text, spans, min_size: list(spans),
                 lambda: _merge_without_gaps,
                 lambda: lambda text, spans, min_size: [(c.start, c.end) for c in ParagraphChunker(
                     min_chunk_size=min_size, chunk_size=max(len(text), min_size + 1))(text)]))
def check_merge(candidate) -> str:
    """`candidate(text, spans, min_size)` must give the library's chunks on the agreement for every
    size in `MERGE_SIZES` (with `chunk_size` out of the way), and nothing for no spans, without
    running ParagraphChunker."""
    candidate = refuse_library(candidate, paragraph, what="ParagraphChunker")
    if list(candidate("", [], 200)) != []:
        raise ExerciseFailed("for a text with no paragraph (spans=[]) your function returns chunks. Hint: the "
                             "loop has nothing to merge; what is left to return?")
    agreement = load_document("agreement").text
    spans = paragraph_spans(agreement)
    for min_size in MERGE_SIZES:
        expected = [(c.start, c.end) for c in
                    ParagraphChunker(min_chunk_size=min_size, chunk_size=len(agreement))(agreement)]
        got = [tuple(span) for span in candidate(agreement, list(spans), min_size)]
        if got != expected:
            first = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
            if got == _merge_without_gaps(agreement, list(spans), min_size):
                hint = ("a chunk's size is from its first character to its last, so the blank lines between its "
                        "paragraphs count too: measure end - start of the merged chunk, not the sum of its paragraphs")
            elif first < len(expected) - 1:
                hint = "which span grows: the short one takes the next span in, until it is long enough"
            else:
                hint = "look at the end of the text: a short last chunk has no next span"
            raise ExerciseFailed(
                f"with min_size={min_size}: {len(got)} chunks against the library's {len(expected)}, first different "
                f"at chunk {first}. Hint: {hint}."
            )
    return f"it matches ParagraphChunker on the agreement for min_chunk_size in {MERGE_SIZES}."


#: Exercise 2's text: CRLF line ends, a line of spaces, two blank lines in a row, a fence with a
#: blank line inside.
BREAKS_TEXT = (
    "# Setup\r\n\r\nInstall the package first.\r\n   \r\n\r\n```bash\r\npip install harbor\r\n\r\n"
    "harbor --version\r\n```\r\n\r\nDone.\r\n"
)


def solution_breaks() -> tuple[int, int]:
    paragraphs = ParagraphChunker(min_chunk_size=0, chunk_size=10**6)(BREAKS_TEXT)
    return len(paragraphs), len(ParagraphChunker()(BREAKS_TEXT))


@exercise("03.2", "what is a paragraph break?", "predict", solution=solution_breaks,
          wrong=(lambda: (5, 1), lambda: (4, 4), lambda: (3, 1), lambda: (6, 1), lambda: (4, 2), lambda: (4.5, 1),
                 lambda: "4, 1"))
def check_breaks(answer) -> str:
    """`answer` is ``(paragraphs with no merging, chunks with the defaults)`` for `BREAKS_TEXT`."""
    paragraphs, chunks = numbers_of(answer, 2, "a pair of numbers: (paragraphs, chunks with the defaults)")
    expected_paragraphs, expected_chunks = solution_breaks()
    if paragraphs != expected_paragraphs:
        hint = ("a blank line inside a fenced code block does not end a paragraph: the fence is one block"
                if paragraphs > expected_paragraphs else
                "a line of spaces is a blank line, and CRLF line ends are line ends like any other")
        raise ExerciseFailed(f"not {paragraphs} paragraphs. Hint: {hint}.")
    if chunks != expected_chunks:
        raise ExerciseFailed(f"the paragraphs are right, but not {chunks} chunks. Hint: with min_chunk_size=200 every "
                             "paragraph here is short, and merging goes on while the merged chunk fits chunk_size=600.")
    return f"{expected_paragraphs} paragraphs (the fence is one), merged into {expected_chunks} chunk by the defaults."


#: Exercise 3's explanations of why nearly every chunk of the PDF report is a piece of a cut paragraph.
REPORT_CHOICES = {
    "A": "ParagraphChunker treats every single line break as a paragraph break, and the report's printed lines "
         "are short, so every line is cut off.",
    "B": "Extracted PDF text has blank lines only between pages: each 'paragraph' is a whole page, longer than "
         "chunk_size, packed into pieces.",
    "C": "A PDF has no sentence punctuation that the splitter trusts, so ParagraphChunker falls back to "
         "fixed-size windows and marks each of them cut.",
    "D": "min_chunk_size merges the report's many short paragraphs into chunks that grow too big, and those "
         "chunks are then cut again to chunk_size.",
}
_REPORT_HINTS = {
    "A": "then the report's paragraphs would be single lines, far shorter than chunk_size, and nothing would "
         "be cut.",
    "C": "the pieces are cut between sentences (notebook 02's packing), not at fixed sizes.",
    "D": "merging never makes a chunk bigger than chunk_size; cut marks the pieces of one paragraph that was "
         "too big.",
}


def solution_report_choice() -> str:
    return "B"


@exercise("03.3", "why is the PDF report all pieces?", "explain", solution=solution_report_choice,
          wrong=(lambda: "A", lambda: "C", lambda: "D"))
def check_report_choice(choice) -> str:
    """One letter of `REPORT_CHOICES`."""
    pick(choice, REPORT_CHOICES, _REPORT_HINTS, solution_report_choice())
    report = load_document("report")
    pages = len(report.metadata["pages"])
    return (f"the report's {pages} pages give {len(paragraph_spans(report.text))} paragraphs; notebook 13 cuts a PDF "
            "at its pages and strips their running headers and footers.")
