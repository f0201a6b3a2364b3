"""Page chunking: one chunk per page (or per N pages) of a text with form feeds between pages."""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass
from typing import Annotated, Any, Iterator

from ..caches import PER_TEXT, cached
from ..constraints import Param
from ..core import Chunker, ChunkSpan, register
from ..formats.pdf import page_furniture
from ..text.length import TokenizerParam, UnitParam, UnitSized, length_function
from ..text.pack import pack
from ..text.sentences import sentence_spans
from ..text.spans import trim_span

__all__ = ["PageChunker", "PageLayout", "page_layout"]

#: A page's last line that reaches this share of its longest line was wrapped at the margin: the
#: paragraph goes on (a shorter one is the end of a paragraph, a heading or a list item).
FULL_LINE = 0.6

_CLOSERS = "\"'”’)]"
_TERMINAL = ".!?…"


@dataclass(frozen=True)
class PageLayout:
    """Where the pages of a text are, and which of their lines are running headers and footers.

    `pages` are the trimmed spans between form feeds (page ``i + 1`` is ``pages[i]``; empty for a
    blank page), `bodies` the same pages without their running header and footer lines (empty if a
    page holds nothing else), and `furniture` the spans of those header and footer lines, sorted.
    `open_ends` says, per page, whether its body stops in the middle of a sentence: no terminal
    punctuation at the end, and a last line that is full (at least `FULL_LINE` of the page's
    longest), i.e. wrapped at the margin rather than ending a heading or a list item.
    """

    pages: tuple[tuple[int, int], ...]
    bodies: tuple[tuple[int, int], ...]
    furniture: tuple[tuple[int, int], ...]
    open_ends: tuple[bool, ...]

    @functools.cached_property
    def _ends(self) -> list[int]:
        return [e for _, e in self.pages]

    def pages_of(self, start: int, end: int) -> list[int]:
        """The 1-based numbers of the (non-blank) pages that ``[start, end)`` overlaps."""
        out = []
        for i in range(bisect.bisect_right(self._ends, start), len(self.pages)):
            s, e = self.pages[i]
            if s >= end:
                break
            if s < e:
                out.append(i + 1)
        return out

    def furniture_within(self, start: int, end: int) -> list[tuple[int, int]]:
        """The header and footer lines that lie inside ``[start, end)``."""
        out = []
        for s, e in self.furniture[bisect.bisect_left(self.furniture, (start, start)) :]:
            if e > end:
                break
            out.append((s, e))
        return out


@cached(PER_TEXT)
def page_layout(text: str) -> PageLayout:
    """Split `text` into pages at form feeds and find its running headers and footers.

    The rule is `chunklab.formats.pdf.page_furniture`, the one `chunklab.formats.pdf.read_pdf`
    strips them by: a line among the first (last) two non-blank lines of a page whose normalised
    form (numbers replaced, case and spacing ignored) is also among the first (last) two lines of
    at least half of the non-blank pages, and of at least two. Cached per text.
    """
    pages: list[tuple[int, int]] = []
    bodies: list[tuple[int, int]] = []
    furniture: list[tuple[int, int]] = []
    open_ends: list[Any] = []
    for page in page_furniture(text):
        pages.append(page.span)
        bodies.append(page.body_span)
        furniture.extend(page.furniture)
        open_ends.append(bool(page.body) and _open_end(text, page.body))
    return PageLayout(tuple(pages), tuple(bodies), tuple(sorted(furniture)), tuple(open_ends))


def _open_end(text: str, lines: tuple[tuple[int, int], ...]) -> bool:
    """Do these lines stop mid-sentence: no terminal punctuation (closing quotes aside) at the
    end, and a full last line?"""
    pos = lines[-1][1]
    while pos > lines[-1][0] and text[pos - 1] in _CLOSERS:
        pos -= 1
    if pos > lines[-1][0] and text[pos - 1] in _TERMINAL:
        return False
    longest = max(e - s for s, e in lines)
    return lines[-1][1] - lines[-1][0] >= FULL_LINE * longest


@register
class PageChunker(UnitSized, Chunker):
    """One chunk per page, or per `pages_per_chunk` pages, of a text with form feeds between pages.

    **How pages reach the chunker.** A chunker receives only a string, so page breaks must be in
    it: a form feed (``"\\f"``) starts each new page, as ``pdftotext`` writes it and as
    `chunklab.formats.pdf.read_pdf` joins pages (``"\\n\\n\\f"``). A text without a form feed is one page.

    * ``strip_furniture=True`` leaves running headers and footers (lines repeated at the top or
      bottom of at least half of the pages, numbers ignored: see `page_layout`) out of each chunk's
      span where they sit at its edges. Where they fall inside a chunk (a chunk of several pages, or
      a carried sentence), the span has to include them; ``clean_text`` in metadata then holds the
      chunk's text without them. `chunk.text` is always the exact source span. (`read_pdf` already
      leaves them out of a PDF's text by the same rule, unless asked to keep them; a text from
      ``pdftotext``, or the course's report, still holds them.)
    * ``carry_sentences=True``: when a page ends in the middle of a sentence (no full stop, and a
      last line that is full, so the paragraph was wrapped at the margin: see `PageLayout`), its
      chunk runs on to the end of that sentence on the next page, and the next chunk starts after.
    * A chunk longer than `chunk_size` (in `unit`) is split into packed sentences within it. The
      default keeps a typical page whole; raise it with `pages_per_chunk`.

    Metadata: ``page`` (the 1-based page the chunk starts on), ``pages`` (every page it touches)
    and, when its span holds header or footer lines, ``clean_text``. Size contract: at most
    `chunk_size` per chunk (a single longer sentence is cut at word boundaries).
    """

    name = "page"
    main_control = "pages_per_chunk"

    def __init__(
        self,
        *,
        pages_per_chunk: Annotated[int, Param(low=1, slider=(1, 10, 1))] = 1,
        chunk_size: Annotated[int, Param(low=1, slider=(200, 8000, 100), counted_in_unit=True)] = 4000,
        strip_furniture: bool = True,
        carry_sentences: bool = True,
        unit: UnitParam = "chars",
        tokenizer: TokenizerParam = "minilm",
    ) -> None:
        self.pages_per_chunk = pages_per_chunk
        self.chunk_size = chunk_size
        self.strip_furniture = strip_furniture
        self.carry_sentences = carry_sentences
        self.unit = unit
        self.tokenizer = tokenizer
        self.validate()

    def spans(self, text: str) -> Iterator[ChunkSpan]:
        """Page groups in order, each split into packed sentences if it is too big."""
        layout = page_layout(text)
        measure = length_function(self.unit, self.tokenizer)
        for start, end in self._groups(text, layout):
            if measure(text[start:end]) <= self.chunk_size:
                pieces = [(start, end)]
            else:
                pieces = [
                    (s, e) for s, e, _, _ in pack(text, _sentences_within(text, start, end), self.chunk_size, measure)
                ]
            for s, e in pieces:
                yield s, e, _metadata(text, layout, s, e)

    def _groups(self, text: str, layout: PageLayout) -> list[tuple[int, int]]:
        """The span of each group of `pages_per_chunk` pages, edges moved as the options say."""
        edges = layout.bodies if self.strip_furniture else layout.pages
        filled = [i for i, (s, e) in enumerate(edges) if s < e]
        groups, resume = [], 0
        for g in range(0, len(filled), self.pages_per_chunk):
            members = filled[g : g + self.pages_per_chunk]
            start = max(edges[members[0]][0], resume)
            end = edges[members[-1]][1]
            following = filled[g + self.pages_per_chunk] if g + self.pages_per_chunk < len(filled) else None
            if self.carry_sentences and following is not None and layout.open_ends[members[-1]]:
                end = max(end, _first_sentence_end(text, *layout.bodies[following]))
            start, end = trim_span(text, start, end)
            if start < end:
                groups.append((start, end))
            resume = max(resume, end)
        return groups


def _first_sentence_end(text: str, start: int, end: int) -> int:
    """Where the first sentence of ``text[start:end]`` ends."""
    sentences = _sentences_within(text, start, end)
    return sentences[0][1] if sentences else start


def _sentences_within(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The sentences of the whole text (split once, cached) clipped to ``[start, end)``."""
    spans, starts = _all_sentences(text)
    first = max(0, bisect.bisect_right(starts, start) - 1)
    out = []
    for s, e in spans[first:]:
        if s >= end:
            break
        s, e = trim_span(text, max(s, start), min(e, end))
        if s < e:
            out.append((s, e))
    return out


@cached(PER_TEXT)
def _all_sentences(text: str) -> tuple[list[tuple[int, int]], list[int]]:
    spans = sentence_spans(text)
    return spans, [s for s, _ in spans]


def _metadata(text: str, layout: PageLayout, start: int, end: int) -> dict[str, Any]:
    """``page``, ``pages`` and, if the span holds header or footer lines, ``clean_text``."""
    pages = layout.pages_of(start, end) or [1]
    metadata: dict[str, Any] = {"page": pages[0], "pages": pages}
    inside = layout.furniture_within(start, end)
    if inside:
        pieces, pos = [], start
        for s, e in inside:
            pieces.append(text[pos:s].strip())
            pos = e
        pieces.append(text[pos:end].strip())
        metadata["clean_text"] = "\n".join(p for p in pieces if p)
    return metadata
