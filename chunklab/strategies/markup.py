"""Structure-aware chunking of markdown and HTML: headings start chunks, blocks stay whole when they fit.

Both formats go through one parser each (`chunklab.formats.blocks`: markdown-it-py for markdown, the
position-reporting HTML parser for HTML), which turns the document into top-level blocks with exact
spans: headings, paragraphs, lists, tables, code blocks. Then the same rule applies to both:

1. every heading (of level `heading_level` or higher) starts a new section, and a chunk never spans
   two sections; headings with nothing between them travel together into the section that follows;
2. inside a section, whole blocks are packed into chunks of at most `chunk_size`;
3. a block too big for one chunk is cut where its own structure allows: a table between rows, a list
   between items, a code block between statements (`chunklab.strategies.code`), anything else by
   the recursive cascade (`chunklab.strategies.recursive`); the pieces are packed like blocks.

Because the parser says what is a heading, a ``#`` line inside a code fence is never taken for one.
Each chunk's ``section`` metadata is its breadcrumb ("Install > Linux", built with
`chunklab.formats.blocks.heading_trails`); ``context`` holds the same breadcrumb, plus a table's header row
when the chunk starts inside a table, for indexing in front of the chunk.
"""

from __future__ import annotations

from typing import Annotated, Any, Callable, ClassVar, Iterator, Sequence

from ..caches import PER_TEXT, cached
from ..constraints import Param
from ..core import Chunker, ChunkSpan, register
from ..formats.blocks import Block, Format, heading_trails, modality_of_kinds, section_metadata
from ..formats.parse import document_blocks
from ..text.length import DEFAULT_CHUNK_SIZE, TokenizerParam, UnitParam, UnitSized, span_measure
from ..text.pack import pack
from ..text.spans import trim_span
from .code import code_block_spans
from .recursive import LEVELS, recursive_spans

__all__ = ["HtmlChunker", "MarkdownChunker", "StructureChunker"]

Measure = Callable[[str], int]


class _Unit:
    """A span to pack: a whole block or a piece of one, the block kinds it holds, its block's
    heading trail, and the table header a chunk starting here needs as context."""

    __slots__ = ("start", "end", "kinds", "trail", "header")

    def __init__(
        self,
        start: int,
        end: int,
        kinds: tuple[str, ...],
        trail: tuple[str, ...],
        header: tuple[int, int] | None = None,
    ) -> None:
        self.start, self.end, self.kinds, self.trail, self.header = start, end, kinds, trail, header


class StructureChunker(UnitSized, Chunker):
    """The shared rule of `MarkdownChunker` and `HtmlChunker` (see the module docstring); subclasses
    name the `format` their parser reads."""

    format: ClassVar[Format]

    def __init__(
        self,
        *,
        chunk_size: Annotated[int, Param(low=1, slider=(50, 2000, 10), counted_in_unit=True)] = DEFAULT_CHUNK_SIZE,
        heading_level: Annotated[int, Param(low=1, high=6, slider=(1, 6, 1))] = 6,
        unit: UnitParam = "chars",
        tokenizer: TokenizerParam = "minilm",
    ) -> None:
        self.chunk_size = chunk_size
        self.heading_level = heading_level
        self.unit = unit
        self.tokenizer = tokenizer
        self.validate()

    def spans(self, text: str) -> Iterator[ChunkSpan]:
        """Yield each section's chunks in order, with their breadcrumb and block kinds."""
        measure = self.measure_function()
        size = span_measure(text, measure)
        blocks, trails = _parsed(text, self.format)
        for section in _sections(blocks, self.heading_level):
            units = [unit for i in section for unit in self._units(text, blocks[i], trails[i], measure)]
            units = self._glue_headings(text, units, measure)
            spans = [(u.start, u.end) for u in units]
            for start, end, first, last in pack(text, spans, self.chunk_size, measure):
                held = units[first : last + 1]
                # The breadcrumb of the chunk's first content (its headings' trail when it has none).
                trail = next((u.trail for u in held if u.kinds != ("heading",)), held[-1].trail)
                extra: dict[str, Any] = {
                    **section_metadata(trail),
                    "modality": modality_of_kinds(kind for u in held for kind in u.kinds),  # type: ignore[misc]
                }
                header = units[first].header
                context = [extra["section"]] if trail else []
                if header is not None and header[1] <= start:
                    context.append(text[header[0] : header[1]])
                if context:
                    extra["context"] = "\n".join(context)
                if self.unit == "tokens":
                    extra["token_count"] = size(start, end)
                yield start, end, extra

    def _units(self, text: str, block: Block, trail: tuple[str, ...], measure: Measure) -> list[_Unit]:
        """The block whole if it fits, else its pieces (see the module docstring)."""
        kinds = (block.kind,)
        if measure(text[block.start : block.end]) <= self.chunk_size:
            return [_Unit(block.start, block.end, kinds, trail)]
        if block.kind == "code":
            return [_Unit(s, e, kinds, trail) for s, e, _ in code_block_spans(text, block, self.chunk_size, measure)]
        if block.kind in ("table", "list") and len(block.parts) > 1:
            pieces = []
            for s, e in _part_spans(text, block):
                if measure(text[s:e]) <= self.chunk_size:
                    pieces.append((s, e))
                else:
                    pieces.extend((a, b) for a, b, _ in recursive_spans(text, s, e, LEVELS, self.chunk_size, measure))
            header = block.header if block.kind == "table" else None
            return [_Unit(s, e, kinds, trail, header) for s, e in pieces]
        return [_Unit(s, e, kinds, trail) for s, e, _ in recursive_spans(text, *block.span, LEVELS, self.chunk_size, measure)]

    def _glue_headings(self, text: str, units: list[_Unit], measure: Measure) -> list[_Unit]:
        """Keep a section's headings with the start of its first paragraph: when they do not fit
        together, the paragraph is cut by the recursive cascade so that its first piece fits beside
        them, if that cut falls at a line or sentence end. Lists, tables and code are not cut for
        this: when the first of them does not fit beside its headings, the headings stand alone."""
        k = next((i for i, u in enumerate(units) if u.kinds != ("heading",)), None)
        if not k or measure(text[units[0].start : units[k].end]) <= self.chunk_size:
            return units
        if units[k].kinds not in (("paragraph",), ("quote",)):
            return units
        room = self.chunk_size - measure(text[units[0].start : units[k].start])
        if room < 1:
            return units
        pieces = recursive_spans(text, units[k].start, units[k].end, LEVELS, room, measure)
        if pieces[0][2] in ("word", "char"):  # only a cut inside a sentence would make room
            return units
        content = units[k]
        glued = _Unit(units[0].start, pieces[0][1], ("heading", *content.kinds), content.trail)
        rest = [_Unit(s, e, content.kinds, content.trail, content.header) for s, e, _ in pieces[1:]]
        return [glued, *rest, *units[k + 1 :]]


@cached(PER_TEXT)
def _parsed(text: str, fmt: Format) -> tuple[tuple[Block, ...], tuple[tuple[str, ...], ...]]:
    """The blocks of `text` and their heading trails, parsed once per text (a slider move re-packs)."""
    blocks = tuple(document_blocks(text, fmt))
    return blocks, tuple(heading_trails(blocks))


def _sections(blocks: Sequence[Block], level: int) -> Iterator[list[int]]:
    """Indices of the blocks of each section: a heading of `level` or higher starts a section,
    unless only headings came since the last one started."""
    section: list[int] = []
    for i, block in enumerate(blocks):
        if block.kind == "heading" and block.level <= level and any(blocks[j].kind != "heading" for j in section):
            yield section
            section = []
        section.append(i)
    if section:
        yield section


def _part_spans(text: str, block: Block) -> list[tuple[int, int]]:
    """A table's rows or a list's items, stretched to tile the block: each runs to where the next
    begins, the first from the block's start and the last to its end, so a markdown table's
    delimiter line or an HTML list's tags belong to a piece."""
    starts = [block.start, *(s for s, _ in block.parts[1:])]
    ends = [*(s for s, _ in block.parts[1:]), block.end]
    spans = (trim_span(text, s, e) for s, e in zip(starts, ends))
    return [(s, e) for s, e in spans if s < e]


@register
class MarkdownChunker(StructureChunker):
    """Markdown chunked at its structure (markdown-it-py): headings start chunks with a breadcrumb,
    fenced code, lists and tables stay whole when they fit, and what is too big is cut at rows,
    items, statements or the recursive cascade.

    Parameters: `chunk_size` (the largest chunk, in `unit`), `heading_level` (headings of this level or
    higher start a chunk; deeper ones stay inside their parent's chunks), `unit` and `tokenizer`
    (`chunklab.text.length`). Metadata: ``section`` (breadcrumb text, e.g. "Install > Linux") and
    ``breadcrumb`` (its titles), ``context`` (the breadcrumb, plus the table header when a chunk
    starts inside a table), ``modality`` (the kind of content: prose, table, code, list, image, or
    mixed) and, in tokens, ``token_count``.

    Size contract: every chunk measures at most `chunk_size`, except a single character that a tokenizer
    splits into more than `chunk_size` tokens.
    """

    name = "markdown"
    format = "markdown"


@register
class HtmlChunker(StructureChunker):
    """Raw HTML source (markup included) chunked at its element structure, for the course's lesson on
    markup: ``h1``-``h6`` start chunks with a breadcrumb; paragraphs, lists, tables and ``pre``
    blocks stay whole when they fit, and what is too big is cut between rows (``tr``), items
    (``li``) or by the recursive cascade. Chunks are spans of the HTML source, tags included. A web
    page read by `chunklab.formats.readers.read_document` (or the command line) is already its main
    text as markdown, without markup: chunk that with `MarkdownChunker` or any other strategy.

    The parser is position-reporting (`chunklab.formats.html`). Parameters, metadata and size
    contract as for `MarkdownChunker`. A sentence longer than `chunk_size` inside one element is cut at
    words, which may fall inside a tag.
    """

    name = "html"
    format = "html"
