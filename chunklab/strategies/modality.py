"""Modality-specific chunking: prose, tables, code, lists and images, each cut by its own rule."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Iterator, Literal

from ..caches import PER_TEXT, cached
from ..constraints import Param
from ..core import Chunker, ChunkSpan, register
from ..formats.blocks import MODALITIES, Block, DocumentFormat, section_metadata
from ..formats.tables import Table, document_parts, modality_of, row_groups, table_metadata
from ..text.length import DEFAULT_CHUNK_SIZE, TokenizerParam, UnitParam, UnitSized, length_function
from ..text.pack import pack
from ..text.paragraphs import line_spans
from ..text.sentences import SentenceMethod, SentenceSplitterParam, sentence_spans
from .code import code_block_spans
from .hybrid import MODALITY_COLOURS
from .table import table_context

__all__ = ["MODALITIES", "MODALITY_COLOURS", "ModalityChunker", "modality_of"]


@dataclasses.dataclass(frozen=True)
class _Group:
    """Consecutive units of one modality that may be packed together (or a table, cut by rows, or a
    code block cut between its statements, from `lead` on), and the metadata their chunks carry."""

    units: tuple[tuple[int, int], ...]
    metadata: dict[str, Any]
    table: Table | None = None
    code: Block | None = None
    lead: int = 0


@register
class ModalityChunker(UnitSized, Chunker):
    """Split a document into blocks by modality and chunk each modality by its own rule.

    Blocks come from one parser per format (`chunklab.formats.blocks`, `chunklab.formats.tables`): markdown by
    markdown-it-py, HTML by the position-reporting parser, CSV by the quote-aware record scanner,
    plain text by blank lines. Then:

    * **prose** (headings, paragraphs, quotes): the sentences of each block (`sentence_splitter`)
      packed up to `chunk_size`; a heading starts a new run, so prose chunks never span two sections;
    * **table**: whole rows packed up to `chunk_size`, the header line in ``context`` (and the rows
      as ``markdown`` and ``records``, as `TableChunker` does);
    * **code**: the block whole if it fits; else cut between lines. With ``code="definitions"``
      the block is cut between its top-level statements, definitions first, exactly as
      `CodeChunker` cuts a fenced block (`chunklab.strategies.code.code_block_spans`: Python read by
      `ast`, a dozen other languages by tree-sitter, comments above a statement kept with it;
      ``definitions`` in metadata names what each chunk defines); code that does not parse is cut
      by blank lines, then lines;
    * **list**: whole items packed up to `chunk_size`;
    * **image**: the image element with its caption as one chunk; ``alt``, ``path`` and
      ``caption`` in metadata, and ``"Image: <alt>. <caption>"`` as its ``context``.

    Every chunk has ``modality`` and ``section`` (the heading breadcrumb) metadata. A heading
    followed directly by a non-prose block is kept with that block rather than left alone.
    `explore` colours chunks by modality (`view_options`).

    Size contract: every chunk measures at most `chunk_size` (in `unit`). A unit that alone is
    larger (a very long sentence, row, line or image element) is cut at word boundaries.
    """

    name = "modality"
    view_options = {"colour_by": "modality", "colours": MODALITY_COLOURS}

    def __init__(
        self,
        *,
        chunk_size: Annotated[int, Param(low=1, slider=(100, 3000, 50), counted_in_unit=True)] = DEFAULT_CHUNK_SIZE,
        sentence_splitter: SentenceSplitterParam = "regex",
        code: Literal["whole", "definitions"] = "whole",
        format: DocumentFormat = "auto",
        unit: UnitParam = "chars",
        tokenizer: TokenizerParam = "minilm",
    ) -> None:
        self.chunk_size = chunk_size
        self.sentence_splitter = sentence_splitter
        self.code = code
        self.format = format
        self.unit = unit
        self.tokenizer = tokenizer
        self.validate()

    def spans(self, text: str) -> Iterator[ChunkSpan]:
        """Each group of the document packed under `chunk_size`, in source order."""
        measure = length_function(self.unit, self.tokenizer)
        for group in _groups(text, self.format, self.sentence_splitter, self.code):
            if group.table is not None:
                rows = max(1, len(group.table.rows))
                for start, end, first, last, partial in row_groups(text, group.table, rows, self.chunk_size, measure):
                    extra = {"cut": True} if partial else {}
                    yield start, end, {**group.metadata, **table_metadata(group.table, first, last), **extra}
                continue
            if group.code is not None:
                yield from _code_pieces(text, group.code, group.lead, group.metadata, self.chunk_size, measure)
                continue
            for start, end, _, _ in pack(text, group.units, self.chunk_size, measure):
                yield start, end, dict(group.metadata)


def _code_pieces(
    text: str, block: Block, lead: int, common: dict[str, Any], limit: int, measure: Any
) -> Iterator[ChunkSpan]:
    """A code block cut between its statements (`code_block_spans`), the headings that lead into it
    (from `lead`) joined to the first piece when they fit, else chunks of their own."""
    pieces = code_block_spans(text, block, limit, measure)
    if lead < block.start:
        if measure(text[lead : pieces[0][1]]) <= limit:
            pieces[0] = (lead, *pieces[0][1:])
        else:
            heads = _lines(text, lead, block.start)
            yield from ((s, e, dict(common)) for s, e, _, _ in pack(text, heads, limit, measure))
    for start, end, metadata in pieces:
        yield start, end, {**common, **metadata}


@cached(PER_TEXT)
def _groups(text: str, fmt: DocumentFormat, sentence_method: SentenceMethod, code: str) -> tuple[_Group, ...]:
    """The document as groups of units, cached per text and analysis parameters (sentences are
    split once, however often `chunk_size` changes)."""
    groups: list[_Group] = []
    prose: list[tuple[int, int]] = []  # the units of the current prose run
    prose_trail: tuple[str, ...] = ()
    only_headings = True  # the current run has no body yet

    def close_prose() -> None:
        if prose:
            groups.append(_Group(tuple(prose), _common("prose", prose_trail)))
            prose.clear()

    for part, trail in document_parts(text, fmt):
        if isinstance(part, Block) and modality_of(part) == "prose":
            if part.kind == "rule":
                continue
            if part.kind == "heading":
                if not only_headings:
                    close_prose()
                prose.append(part.span)
                prose_trail, only_headings = trail, True
                continue
            if not prose:
                prose_trail = trail
            prose.extend((part.start + s, part.start + e) for s, e in _sentences(text, part, sentence_method))
            only_headings = False
            continue
        if prose and only_headings:  # headings waiting for a body introduce this part instead
            start = prose[0][0]
            prose.clear()
        else:
            close_prose()
            start = part.start
        only_headings = True
        groups.extend(_part_groups(text, part, trail, start, code))
    close_prose()
    return tuple(groups)


def _common(modality: str, trail: tuple[str, ...]) -> dict[str, Any]:
    return {"modality": modality, **section_metadata(trail)}


def _sentences(text: str, block: Block, method: SentenceMethod) -> list[tuple[int, int]]:
    """A prose block's sentences, relative to its start (a heading is one unit)."""
    piece = text[block.start : block.end]
    if block.kind == "heading":
        return [(0, len(piece))]
    return sentence_spans(piece, method) or [(0, len(piece))]


def _extend(units: list[tuple[int, int]], start: int, end: int) -> tuple[tuple[int, int], ...]:
    """`units` with the first stretched back to `start` and the last forward to `end`, so the
    chunks of a block cover it from edge to edge (list tags, code fences, a heading above)."""
    if not units:
        return ((start, end),)
    units[0] = (min(start, units[0][0]), units[0][1])
    units[-1] = (units[-1][0], max(end, units[-1][1]))
    return tuple(units)


def _part_groups(text: str, part: Block | Table, trail: tuple[str, ...], start: int, code: str) -> list[_Group]:
    """The groups of one non-prose part, starting at `start` (before it when headings lead in)."""
    modality = modality_of(part)
    metadata = _common(modality, trail)
    if isinstance(part, Table):
        context = table_context(part, trail, "header")
        if context:
            metadata["context"] = context
        metadata["format"] = part.fmt
        return [_Group((), metadata, dataclasses.replace(part, start=start))]
    if part.kind == "list":
        return [_Group(_extend(list(part.parts), start, part.end), metadata)]
    if part.kind == "image":
        caption = str(part.attrs.get("caption", ""))
        metadata.update(alt=part.title, path=part.info, caption=caption)
        alt = f"Image: {part.title.rstrip('.')}." if part.title else "Image."
        metadata["context"] = f"{alt} {caption}".strip()
        return [_Group(((start, part.end),), metadata)]
    metadata["language"] = part.info
    if code == "whole":
        return [_Group(_extend(_lines(text, part.start, part.end), start, part.end), metadata)]
    return [_Group((), metadata, code=part, lead=start)]


def _lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return [(start + s, start + e) for s, e in line_spans(text[start:end])]
