"""Read a PDF into one string plus the character span of every page, running headers and footers out.

The text of a PDF is what PDFium (through :mod:`pypdfium2`) extracts from each page, page by page.
Pages are joined with :data:`PAGE_SEPARATOR`: a blank line and a form feed (``"\\n\\n\\f"``), and
the page spans returned alongside the text *exclude* that separator, so::

    text, pages = read_pdf("report.pdf")
    start, end = pages[2]
    text[start:end]             # the text of page 3, exactly
    pages[1][0] - pages[0][1]   # == len(PAGE_SEPARATOR) (when neither page is blank)

Why this separator: a chunker receives only a string, so the page breaks have to be *in* the
string. The form feed (``"\\f"``, the page-break character that ``pdftotext`` also writes between
pages) tells a page-aware chunker exactly where each page begins; the blank line in front of it
keeps a page break a paragraph break for everything that splits at blank lines (markdown parsers,
paragraph splitters, recursive separators).

**Running headers and footers** ("furniture": a document title and a page number repeated at the
top or bottom of every page) are found by one rule, `page_furniture`: a line among the first (last)
`EDGE_LINES` of a page whose form, numbers replaced, also starts (ends) at least `FURNITURE_SHARE`
of the pages. `read_pdf` leaves them out of the text by default, so that no chunker, whatever its
rule, puts a running header into a chunk; the page chunker (`chunklab.strategies.page`) applies the
same rule to a text that still holds them (``strip_furniture=False`` here, or ``pdftotext``'s
output), and then keeps them off its chunks' edges.

**Why PDFium and not pypdf.** pypdf 7.1 runs words together in PDFs whose composite (Type 0) fonts
have no space glyph and space words by moving the pen, as TeX and DocBook tool chains write them: it
takes the width of character code 32, some other glyph, for the space, and no gap is wide enough
(pypdf issue #3978). On the Debian reference manual (``debian-reference-en`` 2.100, 261 pages) 20.0 %
of the word tokens read through pypdf are not words of ``pdftotext``'s text of the same page
("Theregularexpressionof"), 0.46 % through PDFium, and the whole file reads in 4.2 ms a page
against 36 ms. pdfminer.six spaces words as well (0.30 % against PDFium's 0.33 % on every fifth
page) but takes 142 ms a page; PyMuPDF is AGPL. On the course's report pypdf and PDFium give the
same words; PDFium puts the cells of a table header printed on two lines on lines of their own.

The normalisation of a page's text: PDFium's line breaks (``"\\r\\n"``) become ``"\\n"``; the
hyphen PDFium marks as a word broken over two lines (``"\\ufffe"``, the line break dropped) is
given back as it was printed, ``"-\\n"``; a form feed inside a page becomes a line break (it would
read as a page break); surrounding whitespace is trimmed.
"""

from __future__ import annotations

import math
import os
import pathlib
import re
import threading
from collections import Counter
from dataclasses import dataclass

from ..text.paragraphs import line_spans
from ..text.spans import trim_span

__all__ = [
    "EDGE_LINES",
    "FURNITURE_SHARE",
    "PAGE_BREAK",
    "PAGE_SEPARATOR",
    "PageLines",
    "page_furniture",
    "page_spans",
    "read_pdf",
]

#: The page-break character (form feed) that starts every page after the first.
PAGE_BREAK = "\f"

#: The string placed between the texts of consecutive pages: a blank line, then a form feed.
PAGE_SEPARATOR = "\n\n\f"

#: How many lines at the top and at the bottom of a page may be a running header or footer.
EDGE_LINES = 2
#: A line is running furniture if it (digits aside) starts or ends at least this share of the pages.
FURNITURE_SHARE = 0.5

#: What PDFium writes for a hyphen at the end of a line whose word goes on on the next line.
_BROKEN_WORD = "\ufffe"
#: PDFium is not thread-safe: one document is read at a time in a process (a Dask worker runs
#: several tasks in threads).
_PDFIUM = threading.Lock()
_DIGITS = re.compile(r"\d+")
_SPACE = re.compile(r"\s+")


def read_pdf(path: str | os.PathLike[str], strip_furniture: bool = True) -> tuple[str, list[tuple[int, int]]]:
    """Extract the text of a PDF and the ``(start, end)`` span of each page.

    Parameters
    ----------
    path:
        The PDF file.
    strip_furniture:
        Leave running headers and footers (`page_furniture`) out of every page's text (the
        default). False keeps each page as extracted, as the course corpus reads its report.

    Returns
    -------
    text, pages:
        ``text`` is every page's extracted text (normalised as the module says) joined with
        :data:`PAGE_SEPARATOR`. ``pages[i]`` is the half-open character span of page ``i + 1`` in
        ``text`` (``page_spans(text)``): in page order, not overlapping, excluding the separators,
        empty for a blank page.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is not a readable PDF (corrupt, truncated, encrypted with a password, or without
        pages); the message names the file.
    """
    path = pathlib.Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"PDF file not found: {path}")
    with path.open("rb") as fh:
        head = fh.read(1024)
    if b"%PDF-" not in head:
        raise ValueError(f"cannot read PDF {path}: not a PDF file (no '%PDF-' header)")
    try:
        page_texts = _page_texts(path)
    except ImportError:
        raise
    except Exception as exc:  # PDFium reports every problem as a PdfiumError; keep any other one too
        raise ValueError(f"cannot read PDF {path}: {type(exc).__name__}: {exc}") from exc
    if not page_texts:
        raise ValueError(f"cannot read PDF {path}: it has no pages")
    text = PAGE_SEPARATOR.join(page_texts)
    if strip_furniture:
        text = PAGE_SEPARATOR.join(text[slice(*page.body_span)] for page in page_furniture(text))
    return text, page_spans(text)


def _page_texts(path: pathlib.Path) -> list[str]:
    """Every page's text as PDFium extracts it, normalised."""
    # Imported here so that importing chunklab does not require pypdfium2 until a PDF is read.
    import pypdfium2

    raw = []
    with _PDFIUM:
        document = pypdfium2.PdfDocument(str(path))
        try:
            for index in range(len(document)):
                page = document[index]
                textpage = page.get_textpage()
                try:
                    raw.append(textpage.get_text_range())
                finally:
                    textpage.close()
                    page.close()
        finally:
            document.close()
    return [
        text.replace("\r\n", "\n").replace("\r", "\n").replace(_BROKEN_WORD, "-\n").replace(PAGE_BREAK, "\n").strip()
        for text in raw
    ]


def page_spans(text: str) -> list[tuple[int, int]]:
    """The span of every page of a text whose pages are separated by form feeds (as `read_pdf` and
    ``pdftotext`` write them), trimmed of surrounding whitespace. A text without a form feed is
    one page. Page ``i + 1`` is ``text[start:end]`` of ``spans[i]``; a blank page gives an empty
    span, so the numbering follows the form feeds. For the text `read_pdf` returns, this gives back
    the page spans it returned."""
    spans, start = [], 0
    while True:
        stop = text.find(PAGE_BREAK, start)
        end = len(text) if stop < 0 else stop
        spans.append(trim_span(text, start, end))
        if stop < 0:
            return spans
        start = stop + 1


@dataclass(frozen=True)
class PageLines:
    """The non-blank lines of one page (trimmed spans, in order) and which of them are its body:
    ``lines[:first]`` is its running header, ``lines[last:]`` its running footer."""

    span: tuple[int, int]
    lines: tuple[tuple[int, int], ...]
    first: int
    last: int

    @property
    def body(self) -> tuple[tuple[int, int], ...]:
        """The lines between the running header and footer."""
        return self.lines[self.first : self.last]

    @property
    def body_span(self) -> tuple[int, int]:
        """From the start of the body's first line to the end of its last (empty, at the end of the
        page, if the page holds nothing else)."""
        body = self.body
        return (body[0][0], body[-1][1]) if body else (self.span[1], self.span[1])

    @property
    def furniture(self) -> tuple[tuple[int, int], ...]:
        """The running header and footer lines."""
        return self.lines[: self.first] + self.lines[self.last :]


def _normalise(line: str) -> str:
    """A line with numbers and spacing normalised: "Page 3 of 10" and "Page 4 of 10" agree."""
    return _SPACE.sub(" ", _DIGITS.sub("#", line)).strip().lower()


def page_furniture(text: str) -> list[PageLines]:
    """The pages of `text` (`page_spans`) with their lines, running header and footer found.

    A header (footer) line is one of the first (last) `EDGE_LINES` non-blank lines of a page whose
    normalised form (numbers replaced, case and spacing ignored) is also among the first (last)
    `EDGE_LINES` lines of at least `FURNITURE_SHARE` of the non-blank pages, and of at least two.
    Only lines at the very edge of a page count: a header line, then possibly a second one, from the
    top; footer lines likewise from the bottom. This is the one rule for both `read_pdf` and the
    page chunker.
    """
    pages = page_spans(text)
    lines = [tuple((s + a, s + b) for a, b in line_spans(text[s:e])) for s, e in pages]
    forms = [[_normalise(text[s:e]) for s, e in page] for page in lines]
    top: Counter[str] = Counter()
    bottom: Counter[str] = Counter()
    for edges in forms:
        top.update(set(edges[:EDGE_LINES]))
        bottom.update(set(edges[-EDGE_LINES:]))
    needed = max(2, math.ceil(FURNITURE_SHARE * sum(1 for page in lines if page)))
    out = []
    for span, page, form in zip(pages, lines, forms):
        first, last = 0, len(page)
        while first < min(EDGE_LINES, last) and top[form[first]] >= needed:
            first += 1
        while last > max(first, len(page) - EDGE_LINES) and bottom[form[last - 1]] >= needed:
            last -= 1
        out.append(PageLines(span, page, first, last))
    return out
