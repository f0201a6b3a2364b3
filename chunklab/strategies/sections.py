"""Sections of a document and the size-limited pieces they are chunked into.

Two strategies cut a document into sections and then chunk each section on its own: the keyword
chunker (a section starts where a keyword starts a line) and the hierarchical chunker (a section
starts at every heading of the section tree). Both need the same two things, provided here:

* `structure_format` and `heading_blocks`: which parser reads the document, and its headings
  (markdown and HTML headings from their parsers, numbered clauses of plain text from
  `chunklab.formats.clauses`);
* `section_pieces`: the document's blocks (`chunklab.formats.blocks`: paragraphs, lists, tables, code)
  that fall inside a section, clipped to it, packed whole under a size limit (`chunklab.text.pack`). A
  block too big for the limit is replaced by its parts (a table's rows, a list's items) or, if it
  has none, its lines, and what is still too big is cut at words: a table too long for one chunk is
  cut between rows, never inside one, even when an HTML row spans several lines.
"""

from __future__ import annotations

import bisect
from typing import Callable, Sequence

from ..caches import cached
from ..formats.blocks import Block, DocumentFormat, Format
from ..formats.clauses import clause_headings
from ..formats.parse import document_blocks, guess_format
from ..text.pack import pack
from ..text.paragraphs import line_spans
from ..text.spans import trim_span

__all__ = ["cached_blocks", "heading_blocks", "section_pieces", "structure_format"]


def structure_format(text: str, fmt: DocumentFormat = "auto") -> Format:
    """The parser whose headings a chunker follows in `text`: `fmt` itself (``"csv"`` reads as plain
    text: a CSV file has no headings), or for ``"auto"`` the guess of
    `chunklab.formats.parse.guess_format`."""
    if fmt == "auto":
        return guess_format(text)
    return "text" if fmt == "csv" else fmt


@cached(maxsize=32)
def cached_blocks(text: str, fmt: Format) -> tuple[Block, ...]:
    """The top-level blocks of `text` parsed as `fmt` (`chunklab.formats.parse.document_blocks`), cached per
    text: a slider move re-chunks the same text."""
    return tuple(document_blocks(text, fmt))


@cached(maxsize=32)
def heading_blocks(text: str, fmt: DocumentFormat = "auto") -> tuple[Block, ...]:
    """The headings of `text`, in order, as heading `Block`s (level = rank, title = heading text).

    Markdown and HTML headings come from their parsers. Plain text has no markup, so its headings
    are its numbered clauses and capitalised heading lines (`chunklab.formats.clauses.clause_headings`).
    With ``fmt="auto"``, a text that looks like markdown (a pipe table, say) but has no markdown
    heading is read for clauses too: a contract with a fee table is still a contract.
    """
    parser = structure_format(text, fmt)
    if parser == "text":
        return clause_headings(text)
    found = tuple(b for b in document_blocks(text, parser) if b.kind == "heading")
    if not found and fmt == "auto" and parser == "markdown":
        return clause_headings(text)
    return found


def section_pieces(
    text: str,
    blocks: Sequence[Block],
    start: int,
    end: int,
    limit: int,
    measure: Callable[[str], int] = len,
) -> list[tuple[int, int]]:
    """The section ``text[start:end]`` as trimmed pieces that each measure at most `limit`.

    `blocks` are the document's blocks in order (`cached_blocks`). The blocks that overlap the
    section, clipped to it, are the units. A unit that measures more than `limit` is replaced by its
    parts (a table's rows, a list's items, with the markup around them as units of their own) or,
    without parts, by its lines; `chunklab.text.pack.pack` then joins consecutive units greedily and cuts
    a unit that is still too big at word boundaries. Text between blocks (container tags of an
    HTML page) is kept only when it lies between two units of one piece; a section that no block
    overlaps has no pieces.
    """
    units: list[tuple[int, int]] = []
    i = max(bisect.bisect_right(blocks, start, key=lambda block: block.start) - 1, 0)
    while i < len(blocks) and blocks[i].start < end:
        block = blocks[i]
        i += 1
        s, e = trim_span(text, max(block.start, start), min(block.end, end))
        if s < e:
            units.extend(_units(text, s, e, block.parts, limit, measure))
    return [(s, e) for s, e, _, _ in pack(text, units, limit, measure)]


def _units(
    text: str, start: int, end: int, parts: Sequence[tuple[int, int]], limit: int, measure: Callable[[str], int]
) -> list[tuple[int, int]]:
    """The clipped block ``[start, end)`` as one unit if it fits, else its parts (and the text around
    them), else its lines."""
    if measure(text[start:end]) <= limit:
        return [(start, end)]
    inside = [(max(s, start), min(e, end)) for s, e in parts if max(s, start) < min(e, end)]
    if not inside:
        return [(start + s, start + e) for s, e in line_spans(text[start:end])]
    bounds = [start, *(b for part in inside for b in part), end]
    spans = (trim_span(text, a, b) for a, b in zip(bounds, bounds[1:]))
    return [(a, b) for a, b in spans if a < b]
