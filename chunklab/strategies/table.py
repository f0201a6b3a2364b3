"""Table-aware chunking: tables cut between whole rows, the header repeated in every chunk's context.

The context is written the one way every context is: by a `chunklab.strategies.steps.ContextStep`
after chunking (`TableChunker.after_chunking`), here with `TableContext`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Iterator, Literal, Sequence

from ..caches import PER_TEXT, cached
from ..constraints import Param
from ..core import Chunk, Chunker, ChunkSpan, Step, register
from ..formats.blocks import Block, DocumentFormat, breadcrumb_text, modality_of_kinds, section_metadata
from ..formats.tables import Table, document_parts, row_groups, table_metadata
from ..text.length import DEFAULT_CHUNK_SIZE, TokenizerParam, UnitParam, UnitSized, length_function
from ..text.pack import pack
from ..text.paragraphs import line_spans
from .steps import ContextStep

__all__ = ["TableChunker", "TableContext", "table_context"]

ContextMode = Literal["header", "section+header", "none"]


def table_context(table: Table, trail: tuple[str, ...], mode: ContextMode) -> str:
    """The text to index before a chunk of `table`: its caption and header line, and with
    ``"section+header"`` the breadcrumb of headings above it; empty for ``"none"``."""
    if mode == "none":
        return ""
    lines = [breadcrumb_text(trail)] if mode == "section+header" and trail else []
    lines += [table.caption, table.header_line]
    return "\n".join(line for line in lines if line)


@cached(PER_TEXT)
def _table_contexts(text: str, fmt: DocumentFormat, mode: ContextMode) -> tuple[str, ...]:
    """`table_context` of each table of `text` in `mode`, in order: what ``metadata["table"]`` counts."""
    return tuple(table_context(part, trail, mode) for part, trail in document_parts(text, fmt) if isinstance(part, Table))


@dataclass(frozen=True)
class TableContext:
    """The table chunker's ``contextualize(document, chunk)`` (run by `ContextStep`): for a chunk of
    a table (``metadata["table"]``: which table of the document), `table_context` of that table in
    `mode`; for other text with ``"section+header"``, its breadcrumb; else nothing. The tables are
    the ones `chunklab.formats.tables.document_parts` finds with `format` (cached per text)."""

    mode: ContextMode = "header"
    format: DocumentFormat = "auto"

    def __call__(self, document: str, chunk: Chunk) -> str:
        """The context line(s) of `chunk` ("" for none)."""
        meta = chunk.metadata
        table = meta.get("table")
        if table is not None:
            return _table_contexts(document, self.format, self.mode)[table]
        return meta.get("section", "") if self.mode == "section+header" else ""


@register
class TableChunker(UnitSized, Chunker):
    """Find the tables of a text and cut them between whole rows; the header goes into `context`.

    Tables are found by a parser per format (`chunklab.formats.tables`): markdown pipe tables
    (markdown-it-py), HTML ``<table>`` elements (``<tr>`` rows) and CSV text (quote-aware records,
    the first one the header). ``format="auto"`` guesses the format; a plain text whose first records
    all have the same number of comma-separated fields is read as CSV.

    * Each table chunk holds at most `rows` consecutive data rows and measures at most `chunk_size`
      (in `unit`); the first chunk of a table also spans its header lines. Metadata: ``rows`` (the
      1-based data-row numbers), ``columns``, ``markdown`` (the header plus these rows as a
      markdown table), ``records`` (``{column: cell}`` dicts: ``pandas.DataFrame(records)``),
      ``table`` (which table of the text, from 0), ``format``, ``modality`` (``"table"``), ``section``
      and ``breadcrumb`` (the headings above it) and ``context``: the header line (and an HTML
      caption), so a row retrieved alone still says what its numbers mean.
      ``context="section+header"`` puts the breadcrumb before it (and gives the other text its
      breadcrumb as context); ``context="none"`` leaves it out, which is the plain row-based
      chunker (one row, no header). The context is written after chunking by
      ``ContextStep(TableContext(context, format))`` (`after_chunking`).
    * Text outside tables (``other_text="paragraphs"``): its blocks (paragraphs, headings, lists,
      code; for plain text, blank-line paragraphs) are packed whole up to `chunk_size`, never across
      a table, with their ``modality``; a block too big for one chunk is cut between its lines.
      ``other_text="skip"`` leaves it out of every chunk, for an index of tables alone.

    Size contract: every chunk measures at most `chunk_size`. A single row (or a header) longer than
    that is the one thing cut inside: at word boundaries, its pieces marked ``cut=True``.
    Tables without markup (columns aligned with spaces, or a PDF table whose grid was lost in
    extraction) are not found: no parser can see them, so they are packed as text.
    """

    name = "table"
    main_control = "rows"

    def __init__(
        self,
        *,
        rows: Annotated[int, Param(low=1, slider=(1, 30, 1))] = 1,
        chunk_size: Annotated[int, Param(low=1, slider=(100, 3000, 50), counted_in_unit=True)] = DEFAULT_CHUNK_SIZE,
        context: ContextMode = "header",
        other_text: Literal["paragraphs", "skip"] = "paragraphs",
        format: DocumentFormat = "auto",
        unit: UnitParam = "chars",
        tokenizer: TokenizerParam = "minilm",
    ) -> None:
        self.rows = rows
        self.chunk_size = chunk_size
        self.context = context
        self.other_text = other_text
        self.format = format
        self.unit = unit
        self.tokenizer = tokenizer
        self.validate()

    def after_chunking(self) -> Sequence[Step]:
        """The context step (`TableContext` in the `context` mode); none for ``"none"``."""
        return () if self.context == "none" else (ContextStep(TableContext(self.context, self.format)),)

    def spans(self, text: str) -> Iterator[ChunkSpan]:
        """Table chunks and packed text chunks, in source order."""
        measure = length_function(self.unit, self.tokenizer)
        run: list[tuple[Block, tuple[str, ...]]] = []
        table_index = 0
        for part, trail in document_parts(text, self.format):
            if isinstance(part, Table):
                yield from self._text_spans(text, run, measure)
                run = []
                yield from self.table_spans(text, part, trail, table_index)
                table_index += 1
            else:
                run.append((part, trail))
        yield from self._text_spans(text, run, measure)

    def table_spans(
        self, text: str, table: Table, trail: tuple[str, ...] = (), index: int = 0
    ) -> Iterator[ChunkSpan]:
        """The chunks of one table of `text`, already parsed (`chunklab.formats.tables.document_parts`),
        as `spans` gives them: `trail` is the headings above it, `index` which table of the text it is.
        The hybrid cuts its tables with this, on the tables it has parsed once."""
        measure = self.measure_function()
        common: dict[str, Any] = {"modality": "table", "table": index, "format": table.fmt, **section_metadata(trail)}
        for start, end, first, last, partial in row_groups(text, table, self.rows, self.chunk_size, measure):
            metadata = {**common, **table_metadata(table, first, last)}
            if partial:
                metadata["cut"] = True
            yield start, end, metadata

    def _text_spans(self, text: str, run: list[tuple[Block, tuple[str, ...]]], measure: Any) -> Iterator[ChunkSpan]:
        if self.other_text == "skip" or not run:
            return
        units, trails, kinds = [], [], []
        for block, trail in run:  # a block too big to keep whole is cut between its lines
            pieces = [block.span] if measure(text[block.start : block.end]) <= self.chunk_size else [
                (block.start + s, block.start + e) for s, e in line_spans(text[block.start : block.end])
            ]
            units.extend(pieces)
            trails.extend([trail] * len(pieces))
            kinds.extend([block.kind] * len(pieces))
        for start, end, first, last in pack(text, units, self.chunk_size, measure):
            trail = trails[first]
            yield start, end, {"modality": modality_of_kinds(kinds[first : last + 1]), **section_metadata(trail)}
