"""Sections of a document and the size-limited pieces they are chunked into.

Two strategies cut a document into sections and then chunk each section on its own: the keyword
chunker (a section starts where a keyword starts a line) and the hierarchical chunker (a section
starts at every heading of the section tree). The hybrid chunker and the context step after
chunking (`chunklab.strategies.steps`) need a document's sections and title. All of them are
provided here:

* `structure_format` and `heading_blocks`: which parser reads the document, and its headings
  (markdown and HTML headings from their parsers, numbered clauses of plain text from
  `chunklab.formats.clauses`);
* `section_pieces`: the document's blocks (`chunklab.formats.blocks`: paragraphs, lists, tables, code)
  that fall inside a section, clipped to it, packed whole under a size limit (`chunklab.text.pack`). A
  block too big for the limit is replaced by its parts (a table's rows, a list's items) or, if it
  has none, its lines, and what is still too big is cut at words: a table too long for one chunk is
  cut between rows, never inside one, even when an HTML row spans several lines;
* `structure_sections` (the hybrid's default sectioner: every heading, a table of contents left
  out) with `Section` and `common_trail`, and `document_title`.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Callable, Sequence, cast

from ..caches import PER_TEXT, cached
from ..formats.blocks import Block, DocumentFormat, Format, heading_trails
from ..formats.clauses import clause_headings
from ..formats.parse import document_blocks, guess_format
from ..text.pack import pack
from ..text.paragraphs import line_spans
from ..text.spans import trim_span

__all__ = [
    "Section",
    "cached_blocks",
    "common_trail",
    "document_title",
    "heading_blocks",
    "section_pieces",
    "structure_format",
    "structure_sections",
]


def structure_format(text: str, fmt: DocumentFormat = "auto") -> Format:
    """The parser whose headings a chunker follows in `text`: `fmt` itself (``"csv"`` reads as plain
    text: a CSV file has no headings), or for ``"auto"`` the guess of
    `chunklab.formats.parse.guess_format`."""
    if fmt == "auto":
        return guess_format(text)
    return "text" if fmt == "csv" else fmt


@cached(PER_TEXT)
def cached_blocks(text: str, fmt: Format) -> tuple[Block, ...]:
    """The top-level blocks of `text` parsed as `fmt` (`chunklab.formats.parse.document_blocks`), cached per
    text: a slider move re-chunks the same text."""
    return tuple(document_blocks(text, fmt))


@cached(PER_TEXT)
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


@dataclass(frozen=True)
class Section:
    """Where a section starts and the titles it sits under, outermost first (its own title last).

    A section runs from its `start` to the next section's start; text before the first section
    belongs to an untitled one.
    """

    start: int
    trail: tuple[str, ...] = ()


_TERMINAL = ".!?:;,"
_MARKUP = "<|-*`>"
_TITLE_CHARS = 100


def structure_sections(text: str, fmt: str) -> tuple[Section, ...]:
    """The default sectioner: a section at every heading the document's structure shows.

    Markdown and HTML headings come from their parsers; plain text (and markdown without a single
    heading, such as a contract with a pipe table) is read for numbered clauses and capitalised
    heading lines (`heading_blocks`). A CSV file has no sections.
    """
    if fmt == "csv":
        return ()
    headings = _without_contents(text, heading_blocks(text, cast(DocumentFormat, "auto" if fmt == "markdown" else fmt)))
    return tuple(Section(h.start, trail) for h, trail in zip(headings, heading_trails(headings)))


#: A run of at least this many adjacent headings that all come again later is a table of contents.
CONTENTS_RUN = 3


def _without_contents(text: str, headings: Sequence[Block]) -> list[Block]:
    """`headings` without the entries of a table of contents: in a run of headings with only
    whitespace between them, the ones whose titles recur as later headings, when at least
    `CONTENTS_RUN` of them do. (A PDF's contents page reads like clauses "1. ...", "2. ...";
    without this rule every real section of the document would sit under its last entry.)"""
    runs: list[list[int]] = []
    for i, heading in enumerate(headings):
        if runs and not text[headings[i - 1].end : heading.start].strip():
            runs[-1].append(i)
        else:
            runs.append([i])
    later: dict[str, int] = {}  # title -> index of its last occurrence
    for i, heading in enumerate(headings):
        later[heading.title] = i
    dropped = set()
    for run in runs:
        repeated = [i for i in run if later[headings[i].title] > i]
        if len(repeated) >= CONTENTS_RUN:
            dropped.update(repeated)
    return [h for i, h in enumerate(headings) if i not in dropped]


def document_title(text: str, fmt: str) -> str:
    """The title a document shows: its first line when that reads as a title (at most 100
    characters, markdown heading marks removed, not markup, not ending like a sentence), else the
    first heading its parser finds (markdown, HTML); empty for CSV or when there is neither."""
    if fmt == "csv":
        return ""
    lines = line_spans(text)
    if lines:
        line = " ".join(text[slice(*lines[0])].lstrip("#").split())
        if line and len(line) <= _TITLE_CHARS and line[-1] not in _TERMINAL and line[0] not in _MARKUP:
            return line
    if fmt in ("markdown", "html"):
        return next((b.title for b in cached_blocks(text, cast(Format, fmt)) if b.kind == "heading" and b.title), "")
    return ""


def common_trail(trails: Sequence[tuple[str, ...]]) -> tuple[str, ...]:
    """The titles every trail starts with: the breadcrumb of a chunk that spans sibling sections."""
    prefix = trails[0]
    for trail in trails[1:]:
        n = 0
        while n < min(len(prefix), len(trail)) and prefix[n] == trail[n]:
            n += 1
        prefix = prefix[:n]
    return prefix
