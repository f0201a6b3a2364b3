"""Read a PDF into one string plus the character span of every page.

The text of a PDF is what :mod:`pypdf` extracts from each page, page by page.
Pages are joined with :data:`PAGE_SEPARATOR`: a blank line and a form feed
(``"\\n\\n\\f"``), and the page spans returned alongside the text *exclude*
that separator, so::

    text, pages = read_pdf("report.pdf")
    start, end = pages[2]
    text[start:end]             # the text of page 3, exactly
    pages[1][0] - pages[0][1]   # == len(PAGE_SEPARATOR)

Why this separator: a chunker receives only a string, so the page breaks have
to be *in* the string. The form feed (``"\\f"``, the page-break character that
``pdftotext`` also writes between pages) tells a page-aware chunker exactly
where each page begins; the blank line in front of it keeps a page break a
paragraph break for everything that splits at blank lines (markdown parsers,
paragraph splitters, recursive separators), as it was before the form feed.

Nothing is removed from a page: running headers, footers and page numbers stay
in the text, because stripping them is a chunking decision (see the page
notebook), not a loading one. The only normalisation is that leading and
trailing whitespace of each page's extracted text is trimmed, so the
separator between pages is always exactly the same three characters.
"""

from __future__ import annotations

import os
import pathlib

from ..text.spans import trim_span

__all__ = ["PAGE_BREAK", "PAGE_SEPARATOR", "page_spans", "read_pdf"]

#: The page-break character (form feed) that starts every page after the first.
PAGE_BREAK = "\f"

#: The string placed between the texts of consecutive pages: a blank line, then a form feed.
PAGE_SEPARATOR = "\n\n\f"


def read_pdf(path: str | os.PathLike[str]) -> tuple[str, list[tuple[int, int]]]:
    """Extract the text of a PDF and the ``(start, end)`` span of each page.

    Parameters
    ----------
    path:
        The PDF file.

    Returns
    -------
    text, pages:
        ``text`` is every page's extracted text (pypdf's default "plain"
        extraction, surrounding whitespace trimmed) joined with
        :data:`PAGE_SEPARATOR`. ``pages[i]`` is the half-open character span
        of page ``i + 1`` in ``text``; spans are in page order, do not
        overlap and exclude the separators.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If the file is not a readable PDF (corrupt, truncated, encrypted,
        or without pages); the message names the file.
    """
    path = pathlib.Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"PDF file not found: {path}")

    # Imported here so that importing chunklab does not require pypdf until a
    # PDF is actually read.
    from pypdf import PdfReader

    with path.open("rb") as fh:
        head = fh.read(1024)
    if b"%PDF-" not in head:
        raise ValueError(f"cannot read PDF {path}: not a PDF file (no '%PDF-' header)")
    try:
        reader = PdfReader(str(path), strict=True)
        if reader.is_encrypted:
            raise ValueError("the PDF is encrypted")
        # A form feed inside a page would read as a page break: it becomes a line break.
        page_texts = [(page.extract_text() or "").strip().replace(PAGE_BREAK, "\n") for page in reader.pages]
    except Exception as exc:  # pypdf raises many exception types for bad input
        raise ValueError(f"cannot read PDF {path}: {type(exc).__name__}: {exc}") from exc
    if not page_texts:
        raise ValueError(f"cannot read PDF {path}: it has no pages")

    spans: list[tuple[int, int]] = []
    pos = 0
    for i, page_text in enumerate(page_texts):
        if i:
            pos += len(PAGE_SEPARATOR)
        spans.append((pos, pos + len(page_text)))
        pos += len(page_text)
    return PAGE_SEPARATOR.join(page_texts), spans


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
