"""Hybrid chunking: structure first, then each block by its own rule, then size caps, then context.

Every other strategy of the course sees one kind of structure. The hybrid composes them:

1. **Sections.** A *sectioner* cuts the document into sections, each with its breadcrumb of titles.
   The default, `structure_sections`, reads markdown and HTML headings from their parsers and, in
   plain text, numbered clauses and capitalised heading lines (`chunklab.strategies.sections.heading_blocks`);
   a CSV file is one section. A model can do this instead (agentic chunking, `chunklab.strategies.llm`).
   In a text with form feeds (a PDF's pages) running headers and footers are found as in
   `chunklab.strategies.page` and kept off chunk edges, and every chunk knows its pages.
2. **Routing.** Each block of a section goes to the route of its modality, and one table of routes
   (`_ROUTES`, one row per modality) says all the hybrid knows about each (the blocks of its
   modality, `chunklab.formats.tables.modality_of`): how it cuts them, its size limit, whether it
   takes the overlap, which neighbours its pieces may join and its colour. A table is cut by the table chunker (`chunklab.strategies.table.TableChunker`,
   whole rows) with its header kept for the context; a code block by the code chunker
   (`chunklab.strategies.code.CodeChunker`, between statements), each run on the block the hybrid
   parsed (`TableChunker.table_spans`, `CodeChunker.block_spans`), so nothing is parsed twice;
   an image is kept whole with its caption; prose and lists are split into sentences
   (`chunklab.text.sentences`) and the sentences of neighbouring blocks of a section are packed
   into chunks of about equal size (`balanced_pack`). Headings, paragraphs, quotes and markup are
   prose, the default route.
3. **Size caps.** No chunk measures more than `chunk_size`; a piece smaller than `min_chunk_size` joins its
   neighbour when their routes put them in one group (prose and lists with prose and lists, of
   their section or the next, under their common breadcrumb; table rows with rows of their table),
   and a heading with nothing under it but subsections joins the piece that follows it. With
   `chunk_overlap`, a prose chunk also starts with the last whole sentences of the prose chunk before it in its
   section (sentence-aligned overlap; prose is packed under ``chunk_size - chunk_overlap`` to
   leave room for them).
4. **Context.** `contextualize(document, chunk) -> str` writes the text a retriever indexes before
   the chunk (``metadata["context"]``). The default, `ExtractiveContext`, is the document title, the
   breadcrumb, and a table's header or a code piece's enclosing definitions; a model can write a
   situating sentence instead (contextual retrieval, `chunklab.strategies.llm.LLMContext`).
5. **Propositions** (optional): ``propositions(document, chunk) -> list[str]`` stores short
   statements derived from the chunk in ``metadata["propositions"]``.

Steps 4 and 5 run after chunking, as the steps of `chunklab.strategies.steps` (`ContextStep`,
`PropositionStep`) that any other chunker can run too (`chunklab.strategies.steps.Pipeline`).

The analysis of a text (parse, sections, sentences, pages) is cached per text and per the
parameters it depends on, so moving a size slider re-runs only the cutting and packing.
"""

from __future__ import annotations

import bisect
import dataclasses
from dataclasses import dataclass, field
from typing import Annotated, Any, Callable, Iterable, Iterator, Literal, Mapping, Sequence

from ..caches import PER_TEXT, cached
from ..constraints import Param
from ..core import Chunker, ChunkSpan, register
from ..formats.blocks import MODALITIES, Block, DocumentFormat, section_metadata
from ..formats.code import fence_language
from ..formats.tables import Table, document_parts, modality_of, resolve_format, table_metadata
from ..models.embed import Embedder, unit_rows
from ..text.length import (
    DEFAULT_CHUNK_SIZE,
    SizeUnit,
    TokenizerLike,
    TokenizerParam,
    UnitParam,
    UnitSized,
    length_function,
)
from ..text.pack import fit, pack
from ..text.sentences import SentenceMethod, SentenceSplitterParam, sentence_spans
from ..text.spans import trim_span
from .budget_rule import recommended_sizes
from .code import CodeChunker
from .page import PageLayout, page_layout
from .sections import Section, common_trail, document_title, structure_sections
from .semantic import earliest_starts, optimal_segments
from .steps import (
    ContextFunction,
    ContextStep,
    ExtractiveContext,
    PropositionFunction,
    PropositionStep,
    Step,
    extractive_propositions,
)
from .table import TableChunker, table_context

__all__ = [
    "MODALITY_COLOURS",
    "ContextFunction",
    "ExtractiveContext",
    "HybridChunker",
    "PropositionFunction",
    "ProsePacking",
    "Section",
    "Sectioner",
    "balanced_pack",
    "document_title",
    "extractive_propositions",
    "semantic_pack",
    "structure_sections",
]

#: How prose is packed: sentences into chunks of about equal size, or by meaning (`semantic_pack`).
ProsePacking = Literal["sentences", "semantic"]


#: ``sectioner(text, fmt) -> sections``: `format` is the parser chosen for the text (``"markdown"``,
#: ``"html"``, ``"csv"`` or ``"text"``).
Sectioner = Callable[[str, str], Sequence[Section]]

@dataclass(frozen=True)
class _Run:
    """Consecutive source that one route cuts: the sentence units (sentences, headings) of
    neighbouring blocks of a section, for a packed route, or one block, for any other."""

    modality: str
    section: int
    units: tuple[tuple[int, int], ...] = ()
    headings: frozenset[int] = frozenset()  # indices of units that are headings
    part: Block | Table | None = None


@dataclass(frozen=True)
class _Analysis:
    """What a text is made of, independent of sizes: computed once per text (and sectioner)."""

    title: str
    sections: tuple[Section, ...]
    section_ends: tuple[int, ...]
    section_leads: tuple[tuple[int, int] | None, ...]
    runs: tuple[_Run, ...]
    layout: PageLayout | None


@dataclass
class _Piece:
    """A candidate chunk: its span, its modality, its section (and the section it ends in, when it
    spans several), whether it holds only headings, its metadata, and the block it was cut from
    (None for packed sentences), so that joined table rows can be described again."""

    start: int
    end: int
    modality: str
    section: int
    headings_only: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)
    part: Block | Table | None = None
    last_section: int = -1  # the section the piece ends in, when it spans several (else -1)


# -- routes ---------------------------------------------------------------------------------------
#: ``cut(part, text, limit, unit, tokenizer) -> spans``: one parsed part of `text` (a `Table`, a
#: `Block`) cut by the registered chunker of its modality into pieces that measure at most `limit` in
#: `unit`, ``(start, end, metadata)`` in `text`'s offsets. The chunker cuts the part the hybrid has
#: parsed (`TableChunker.table_spans`, `CodeChunker.block_spans`): nothing is parsed twice.
_Cutter = Callable[[Any, str, int, SizeUnit, TokenizerLike], Iterable[ChunkSpan]]
#: ``describe(block, metadata) -> metadata``: what a piece of `block` says of itself, from the
#: metadata its chunker gave it.
_Describer = Callable[[Any, Mapping[str, Any]], dict[str, Any]]


def _table_cut(table: Table, text: str, limit: int, unit: SizeUnit, tokenizer: TokenizerLike) -> Iterable[ChunkSpan]:
    """One table cut by the table chunker: whole rows, one a piece (`_merge` joins them up to
    `min_chunk_size`), no context (the header goes to metadata)."""
    chunker = TableChunker(rows=1, chunk_size=limit, context="none", other_text="skip", format=table.fmt, unit=unit,
                           tokenizer=tokenizer)
    return chunker.table_spans(text, table)


def _code_cut(block: Block, text: str, limit: int, unit: SizeUnit, tokenizer: TokenizerLike) -> Iterable[ChunkSpan]:
    """One code block cut by the code chunker as it cuts a markdown document's code blocks: a fenced
    block's code in the fence's language, its fence lines with the first and last pieces; any other
    code block (indented markdown, an HTML ``<pre>``) from end to end, between statements in a
    language the code chunker parses, else by lines."""
    return CodeChunker(chunk_size=limit, unit=unit, tokenizer=tokenizer).block_spans(text, block)


def _table_piece(table: Table, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """A table piece: the data rows the table chunker put in it (its ``rows``, 1-based; none for a
    piece of the header) rendered as the table chunker renders them (`table_metadata`: ``rows``,
    ``columns``, ``markdown``, ``records``), ``cut`` for a piece of a row cut at words, and the
    table's caption and header line as ``header``, for the context."""
    rows = metadata["rows"]
    out = table_metadata(table, rows[0] - 1, rows[-1] - 1) if rows else table_metadata(table, -1, -1)
    out["header"] = table_context(table, (), "header")
    if metadata.get("cut"):
        out["cut"] = True
    return out


def _code_piece(block: Block, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """A code piece: the block's ``language``, the ``definitions`` it holds and, when it sits inside
    a definition that had to be split, that definition's first lines as ``header``."""
    out: dict[str, Any] = {"language": fence_language(block.info), "definitions": list(metadata["definitions"])}
    if metadata.get("context"):
        out["header"] = metadata["context"]
    return out


def _image_piece(block: Block, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """An image piece: ``alt``, ``path``, ``caption`` and, for the context, ``"Image: <alt>. <caption>"``."""
    caption = str(block.attrs.get("caption", ""))
    alt = f"Image: {block.title.rstrip('.')}." if block.title else "Image."
    return {"alt": block.title, "path": block.info, "caption": caption, "header": f"{alt} {caption}".strip()}


def _nothing(block: Any, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """No metadata of its own (packed sentences)."""
    return {}


@dataclass(frozen=True)
class _Route:
    """Everything the hybrid knows about one modality: one row of `_ROUTES`.

    * **Takes** the parts of its modality (`chunklab.formats.tables.modality_of`, the one rule the
      modality chunker sorts by too).
    * **Cut.** A `packed` route takes the sentence units (sentences, headings whole) of neighbouring
      blocks of one section and packs them together (`balanced_pack`, or `semantic_pack`); a run
      of such blocks whose modalities differ goes to the default route. Any other route takes each
      block alone and cuts it with `cut`, the registered chunker of its modality made for the size
      limit and run on the part as the hybrid parsed it (`_Cutter`); without one, the block is kept
      whole and cut at words only when it is too long (`chunklab.text.pack.fit`).
      `describe` says what each piece carries in metadata, from the metadata `reads` names that its
      chunker gave it (kept per text and sizes by `_cut_blocks`, a list as a tuple).
    * **Sized**: every piece measures at most `limit`: ``chunk_size``, or with `overlap` (the
      sentence-aligned overlap, `_overlap_starts`; packed routes only) ``chunk_size - chunk_overlap``,
      leaving room for the sentences repeated before it.
    * **Joined** (`_merge`, by `_group`): with ``joins="sentences"`` a piece is in one group with
      every packed piece, whatever its section; with ``"rows"``, with the whole rows of its table;
      with None it never joins a neighbour.
    * **Shown** in `colour` (`MODALITY_COLOURS`).
    """

    colour: str
    packed: bool = False
    cut: _Cutter | None = None
    describe: _Describer = _nothing
    reads: tuple[str, ...] = ()
    overlap: bool = False
    joins: Literal["sentences", "rows"] | None = None

    def limit(self, chunk_size: int, chunk_overlap: int) -> int:
        """The size its pieces are cut under: ``chunk_size``, less `chunk_overlap` when it takes the overlap."""
        return chunk_size - chunk_overlap if self.overlap else chunk_size


#: The table of routes: one per modality (`chunklab.formats.blocks.MODALITIES`), all the hybrid
#: knows about each (see `_Route`). Colours from the same colour-blind-safe palette as every other view.
_ROUTES: dict[str, _Route] = {
    "prose": _Route("#77AADD", packed=True, overlap=True, joins="sentences"),
    "table": _Route("#EE8866", cut=_table_cut, describe=_table_piece, reads=("rows", "cut"), joins="rows"),
    "code": _Route("#BBCC33", cut=_code_cut, describe=_code_piece, reads=("definitions", "context")),
    "list": _Route("#EEDD88", packed=True, overlap=True, joins="sentences"),
    "image": _Route("#FFAABB", describe=_image_piece),
}
#: The catch-all: the route of a run of packed blocks whose modalities differ (a heading over a
#: list, a list beside a paragraph); `modality_of` puts every block of no other modality in prose.
_DEFAULT_ROUTE = "prose"
#: Block kinds that no route takes: a thematic break holds no content.
_SKIPPED_KINDS = frozenset({"rule"})
#: One colour per modality for `chunklab.show(..., colour_by="modality", colours=MODALITY_COLOURS)`:
#: the colours of the hybrid's routes (`chunklab.strategies.hybrid`), which the modality chunker shares.
MODALITY_COLOURS = {modality: route.colour for modality, route in _ROUTES.items()}

assert set(_ROUTES) == set(MODALITIES), "one route per modality"
assert _ROUTES[_DEFAULT_ROUTE].packed, "the default route packs the runs whose blocks disagree"
assert all(route.packed for route in _ROUTES.values() if route.overlap), "the overlap moves a piece to a sentence"


def _agreed(modalities: Iterable[str]) -> str:
    """The modality that all of `modalities` are, else the default route: of a run of packed
    blocks, and of two packed pieces joined."""
    found = set(modalities)
    return found.pop() if len(found) == 1 else _DEFAULT_ROUTE


@register
class HybridChunker(UnitSized, Chunker):
    """Structure first, then each block by its own rule, then size caps, then a contextual header.

    1. **Sections** from `sectioner` (default `structure_sections`: markdown/HTML headings,
       numbered clauses and capitalised heading lines of plain text; none in a CSV file).
    2. **Routing** of every block of a section by its modality (one table of routes, `_ROUTES`):
       tables by the table chunker (`chunklab.strategies.table.TableChunker`: whole rows; the
       header goes to ``header`` metadata and so into the context), code blocks by the code chunker
       (`chunklab.strategies.code.CodeChunker`: whole, else between statements), each run on the
       block as the hybrid parsed it; images whole with their caption; prose and lists as sentences
       (`sentence_splitter`), those of neighbouring blocks of a section packed together into chunks
       of about equal size: as few chunks as `chunk_size` allows, then the smallest limit that needs
       no more (`balanced_pack`). Headings, paragraphs, quotes and markup are prose, the default
       route. With ``prose="semantic"`` the sentences are embedded (`embedder`, default
       all-MiniLM-L6-v2) and grouped by meaning instead (`semantic_pack`).
    3. **Size caps**: every chunk measures at most `chunk_size` (in `unit`). With `chunk_overlap`
       (default 0: no overlap), prose is packed under ``chunk_size - chunk_overlap`` and each prose
       (or list) chunk then starts earlier, at the earliest sentence of the prose chunk before it in
       the same section such that what it repeats measures at most `chunk_overlap` and the chunk at
       most `chunk_size` (no sentence is ever cut by the overlap; send such chunks with
       `chunklab.evaluation.expand.new_text_only` so that a budget never pays for the repeat). Two neighbouring pieces
       of which one is smaller than `min_chunk_size` become one when the result fits and their routes
       put them in one group: prose and list pieces (of one section or of the next: a section too
       short to stand alone joins its neighbour, under their common breadcrumb; a list joined with
       prose is prose), or whole rows of one table (so a table chunk holds as few rows as
       reach `min_chunk_size`; ``min_chunk_size=0`` gives one row per chunk). A piece that holds only headings
       joins the piece after it when that fits. Code and images are never merged.
    4. **Context**: ``metadata["context"] = contextualize(text, chunk)`` (default
       `ExtractiveContext`: title, breadcrumb, table header or enclosing code definitions). The
       document title is `title` or, when None, `document_title` of the text. ``None`` for
       `context` leaves the context out.
    5. **Propositions**: with a `propositions` function, ``metadata["propositions"]`` holds its
       statements for every chunk (`extractive_propositions` offline, `chunklab.strategies.llm` with a model).

    Metadata on every chunk: ``modality`` (prose, list, table, code, image), ``section`` (the
    breadcrumb joined by " > "), ``breadcrumb``, ``title``, ``section_span`` (the whole section's
    span, for sending a chunk's section instead of the chunk) and, for a text with form feeds,
    ``page`` and ``pages``; table chunks add ``rows``, ``columns``, ``markdown``, ``records`` and
    ``header``; code chunks ``language`` and ``definitions``; image chunks ``alt``, ``path`` and
    ``caption``. The callables are shown fixed in `explore`; module-level functions and frozen
    dataclass instances keep the chunker picklable and comparable.

    Size contract: every chunk measures at most `chunk_size`, except a single character that a
    tokenizer counts as more tokens than that (see `chunklab.text.pack.fit`). A sentence, row or line
    longer than `chunk_size` is cut at word boundaries. `min_chunk_size` is a wish, not a promise: a piece
    stays small when no neighbour may join it (prose next to a table, a code block, an image) or
    when joining would pass `chunk_size`.

    Sized for a budget: with `budget` (what the reader receives per question, in `unit`), the
    chunk size and overlap come from the rule chosen on dev
    (`chunklab.strategies.budget_rule.recommended_sizes`) and `chunk_size` and `chunk_overlap` are
    not used; None (the default) keeps them. Send the hits of an overlapping chunking with
    `chunklab.evaluation.expand.new_text_only`.
    """

    name = "hybrid"
    view_options = {"colour_by": "modality", "colours": MODALITY_COLOURS}

    def __init__(
        self,
        *,
        chunk_size: Annotated[int, Param(low=1, slider=(100, 3000, 50), counted_in_unit=True)] = DEFAULT_CHUNK_SIZE,
        min_chunk_size: Annotated[int, Param(low=0, slider=(0, 1000, 25), counted_in_unit=True)] = 100,
        chunk_overlap: Annotated[int, Param(low=0, slider=(0, 500, 25), counted_in_unit=True)] = 0,
        prose: ProsePacking = "sentences",
        sentence_splitter: SentenceSplitterParam = "regex",
        format: DocumentFormat = "auto",
        title: str | None = None,
        sectioner: Sectioner = structure_sections,
        context: ContextFunction | None = ExtractiveContext(),
        propositions: PropositionFunction | None = None,
        embedder: Annotated[Embedder | None, Param(active_when={"prose": ("semantic",)})] = None,
        unit: UnitParam = "chars",
        tokenizer: TokenizerParam = "minilm",
        budget: Annotated[int | None, Param(low=1)] = None,
    ) -> None:
        self.chunk_size = chunk_size
        self.min_chunk_size = min_chunk_size
        self.chunk_overlap = chunk_overlap
        self.prose = prose
        self.sentence_splitter = sentence_splitter
        self.format = format
        self.title = title
        self.sectioner = sectioner
        self.context = context
        self.propositions = propositions
        self.embedder = embedder
        self.unit = unit
        self.tokenizer = tokenizer
        self.budget = budget
        self.validate()

    def check(self) -> None:
        """The overlap must leave room for new text: ``chunk_overlap < chunk_size``."""
        self.require_smaller("chunk_overlap", "chunk_size")

    def _sizes(self) -> tuple[int, int]:
        """``(chunk_size, chunk_overlap)``: as given, or by the budget rule when `budget` is set."""
        if self.budget is None:
            return self.chunk_size, self.chunk_overlap
        sizes = recommended_sizes(self.budget)
        return sizes["chunk_size"], sizes["chunk_overlap"]

    def size_limit(self) -> int:
        """At most `chunk_size` units per chunk (the size `budget` gives, when it is set)."""
        return self._sizes()[0]

    def after_chunking(self) -> tuple[Step, ...]:
        """The steps after chunking (`chunklab.strategies.steps`) that `context` and `propositions`
        ask for, in that order."""
        steps: list[Step] = []
        if self.context is not None:
            steps.append(ContextStep(self.context))
        if self.propositions is not None:
            steps.append(PropositionStep(self.propositions))
        return tuple(steps)

    def spans(self, text: str) -> Iterator[ChunkSpan]:
        """The spans of `text`, with their metadata: routed, capped and merged."""
        analysis = _analyse(text, self.format, self.sentence_splitter, self.sectioner)
        measure = self.measure_function()
        vectors = (
            _prose_vectors(text, self.format, self.sentence_splitter, self.sectioner, self.embedder)
            if self.prose == "semantic"
            else {}
        )
        chunk_size, chunk_overlap = self._sizes()
        limits = tuple((m, route.limit(chunk_size, chunk_overlap)) for m, route in _ROUTES.items() if not route.packed)
        blocks = _cut_blocks(text, self.format, self.sentence_splitter, self.sectioner, limits, self.unit, self.tokenizer)
        pieces = []
        for i, run in enumerate(analysis.runs):
            route = _ROUTES[run.modality]
            if route.packed:
                pieces.extend(_packed(text, run, route.limit(chunk_size, chunk_overlap), measure, vectors.get(i)))
            else:
                pieces.extend(_block_pieces(run, blocks[i]))
        pieces = _merge(text, pieces, self.min_chunk_size, chunk_size, measure)
        starts = _overlap_starts(text, pieces, analysis.runs, chunk_overlap, chunk_size, measure)
        title = analysis.title if self.title is None else self.title
        for piece, start in zip(pieces, starts):
            yield start, piece.end, self._metadata(text, analysis, piece, title)

    def _metadata(self, text: str, analysis: _Analysis, piece: _Piece, title: str) -> dict[str, Any]:
        first, last = piece.section, max(piece.section, piece.last_section)
        trail = common_trail([analysis.sections[i].trail for i in range(first, last + 1)])
        metadata: dict[str, Any] = {
            "modality": piece.modality,
            **section_metadata(trail),
            "title": title,
            "section_span": trim_span(text, analysis.sections[first].start, analysis.section_ends[last]),
        }
        lead = analysis.section_leads[first]
        if lead is not None:
            metadata["section_lead"] = lead
        if analysis.layout is not None:
            pages = analysis.layout.pages_of(piece.start, piece.end) or [1]
            metadata.update(page=pages[0], pages=pages)
        metadata.update(piece.metadata)
        return metadata


def _overlap_starts(text: str, pieces: Sequence[_Piece], runs: Sequence[_Run], overlap: int, limit: int,
                    measure: Callable[[str], int]) -> list[int]:
    """Where each piece starts once the sentence-aligned overlap is added: a piece of a route that
    takes the overlap (`_Route.overlap`) whose predecessor is one too, of the same section, moves
    back to the earliest sentence start inside that predecessor from which the repeated text
    measures at most `overlap` and the piece at most `limit`; every other piece keeps its start."""
    starts = [piece.start for piece in pieces]
    if overlap <= 0:
        return starts
    units = sorted(s for run in runs for s, _ in run.units)
    for i in range(1, len(pieces)):
        before, piece = pieces[i - 1], pieces[i]
        if not (_ROUTES[before.modality].overlap and _ROUTES[piece.modality].overlap):
            continue
        if max(before.section, before.last_section) != piece.section:
            continue
        for j in range(bisect.bisect_left(units, piece.start) - 1, -1, -1):
            candidate = units[j]
            if candidate <= before.start or measure(text[candidate : piece.start]) > overlap \
                    or measure(text[candidate : piece.end]) > limit:
                break
            starts[i] = candidate
    return starts


def balanced_pack(
    text: str, units: Sequence[tuple[int, int]], limit: int, measure: Callable[[str], int] = len
) -> list[tuple[int, int, int, int]]:
    """`chunklab.text.pack.pack` with sizes evened out: as few chunks as `limit` allows, packed under the
    smallest limit that needs no more of them and cuts no unit (found by bisection: the greedy
    count never grows with the limit). Greedy packing alone fills every chunk but the last, which
    may be tiny. When a unit alone is bigger than `limit`, the greedy packing is returned as is."""
    greedy = pack(text, units, limit, measure)
    if len(greedy) < 2:
        return greedy
    largest = max(measure(text[s:e]) for s, e in units)
    if largest > limit:
        return greedy
    low, high, best = largest, limit, greedy
    while low < high:
        middle = (low + high) // 2
        trial = pack(text, units, middle, measure)
        if len(trial) <= len(greedy):
            high, best = middle, trial
        else:
            low = middle + 1
    return best


def semantic_pack(
    text: str, units: Sequence[tuple[int, int]], vectors: Any, limit: int, measure: Callable[[str], int] = len
) -> list[tuple[int, int, int, int]]:
    """Consecutive `units` grouped by meaning under `limit`: of all groupings into chunks that
    measure at most `limit`, the one whose chunks hold the most similar sentences together
    (`chunklab.strategies.semantic.optimal_segments`, the semantic-cluster chunker's dynamic
    programme). `vectors` are the units' unit-length embeddings. When a unit alone is bigger than
    `limit`, the greedy packing (which cuts it at words) is returned instead."""
    if len(units) < 2 or max(measure(text[s:e]) for s, e in units) > limit:
        return pack(text, units, limit, measure)
    earliest = earliest_starts(text, list(units), limit, measure)
    return [(units[a][0], units[b - 1][1], a, b - 1) for a, b in optimal_segments(vectors, earliest)]


# -- cutting --------------------------------------------------------------------------------------
def _packed(text: str, run: _Run, limit: int, measure: Callable[[str], int], vectors: Any) -> list[_Piece]:
    """A packed route's run: its sentences (and headings) packed under `limit`: `balanced_pack`,
    or with `vectors` (one per unit) `semantic_pack`."""
    if vectors is None:
        packed = balanced_pack(text, run.units, limit, measure)
    else:
        packed = semantic_pack(text, run.units, vectors, limit, measure)
    return [
        _Piece(start, end, run.modality, run.section,
               headings_only=all(i in run.headings for i in range(first, last + 1)))
        for start, end, first, last in packed
    ]


#: A block's pieces as `_cut_blocks` keeps them: ``(start, end, metadata)``, the metadata as the
#: ``(key, value)`` pairs its route reads (`_Route.reads`), a list as a tuple.
_Cut = tuple[tuple[int, int, tuple[tuple[str, Any], ...]], ...]


@cached(PER_TEXT)
def _cut_blocks(text: str, fmt: DocumentFormat, sentence_method: SentenceMethod, sectioner: Sectioner,
                limits: tuple[tuple[str, int], ...], unit: SizeUnit, tokenizer: TokenizerLike) -> tuple[_Cut, ...]:
    """Every block of a route that is not packed, cut by its route under its limit (`limits`:
    ``(modality, limit)`` pairs), by run (nothing for a packed run): cached per text and limits, so
    that a call that changes neither (a new `chunk_overlap`, a new context) cuts no block again."""
    measure = length_function(unit, tokenizer)
    limit_of = dict(limits)
    out: list[_Cut] = []
    for run in _analyse(text, fmt, sentence_method, sectioner).runs:
        route = _ROUTES[run.modality]
        part = run.part
        if route.packed or part is None:
            out.append(())
            continue
        limit = limit_of[run.modality]
        if route.cut is None:
            out.append(tuple((start, end, ()) for start, end in fit(text, part.start, part.end, limit, measure)))
            continue
        cut: list[tuple[int, int, tuple[tuple[str, Any], ...]]] = []
        for start, end, *rest in route.cut(part, text, limit, unit, tokenizer):
            metadata: Mapping[str, Any] = rest[0] if rest else {}
            kept = tuple((key, tuple(value) if isinstance(value, list) else value)
                         for key, value in metadata.items() if key in route.reads)
            cut.append((start, end, kept))
        out.append(tuple(cut))
    return tuple(out)


def _block_pieces(run: _Run, cut: _Cut) -> list[_Piece]:
    """The pieces of one block, as `_cut_blocks` cut it, each described by its route (`_Route.describe`)."""
    describe = _ROUTES[run.modality].describe
    return [_Piece(start, end, run.modality, run.section, metadata=describe(run.part, dict(kept)), part=run.part)
            for start, end, kept in cut]


# -- merging --------------------------------------------------------------------------------------
def _merge(
    text: str, pieces: list[_Piece], min_size: int, max_size: int, measure: Callable[[str], int]
) -> list[_Piece]:
    """The lower size cap, in two linear passes, by one rule: two neighbours become one when they
    are in one group (`_group`) and the result measures at most `chunk_size`. Forward: a piece
    still smaller than `min_chunk_size` takes in the piece after it (and a piece that holds only
    headings takes in whatever follows it, group or not). Backward: a piece still smaller than
    `min_chunk_size` (the last of its group) joins the piece before it."""

    def small(piece: _Piece) -> bool:
        return measure(text[piece.start : piece.end]) < min_size

    def fits(a: _Piece, b: _Piece) -> bool:
        return measure(text[a.start : b.end]) <= max_size

    forward: list[_Piece] = []
    for piece in pieces:
        if forward:
            last = forward[-1]
            if (last.headings_only or (_joinable(last, piece) and small(last))) and fits(last, piece):
                forward[-1] = _joined(last, piece)
                continue
        forward.append(piece)
    if min_size <= 0:
        return forward
    out: list[_Piece] = []
    for piece in forward:
        if out and small(piece) and _joinable(out[-1], piece) and fits(out[-1], piece):
            out[-1] = _joined(out[-1], piece)
            continue
        out.append(piece)
    return out


def _group(piece: _Piece) -> tuple[str, int] | None:
    """The group whose pieces `piece` may join, by its route's `_Route.joins`: every packed piece
    (prose and lists, whatever their sections), or the whole rows of its table (a row cut at words
    joins nothing); None: it joins no neighbour."""
    joins = _ROUTES[piece.modality].joins
    if joins == "sentences":
        return ("sentences", 0)
    if joins == "rows" and piece.part is not None and not piece.metadata.get("cut"):
        return ("rows", piece.part.start)
    return None


def _joinable(a: _Piece, b: _Piece) -> bool:
    """May two neighbours become one? When they are in one group (`_group`)."""
    group = _group(a)
    return group is not None and group == _group(b)


def _joined(a: _Piece, b: _Piece) -> _Piece:
    """One piece from ``[a.start, b.end)``. A heading piece takes on what it introduces. Rows of
    one table are described again, as one piece of the table. Packed pieces keep the sections they
    span (a section too short to stand alone joins its neighbour, under their common breadcrumb)
    and the modality they agree on, else the default route's (`_agreed`)."""
    if a.headings_only:
        return dataclasses.replace(b, start=a.start)
    route = _ROUTES[a.modality]
    if route.joins == "rows":
        rows = {"rows": (a.metadata["rows"][0], b.metadata["rows"][-1])}
        return _Piece(a.start, b.end, a.modality, a.section, metadata=route.describe(a.part, rows), part=a.part)
    modality = _agreed((a.modality, b.modality))
    return _Piece(a.start, b.end, modality, a.section, last_section=max(b.section, b.last_section))


# -- analysis -------------------------------------------------------------------------------------
@cached(PER_TEXT)
def _analyse(text: str, fmt: DocumentFormat, sentence_method: SentenceMethod, sectioner: Sectioner) -> _Analysis:
    """Parse `text`, find its sections and pages, and turn its blocks into runs (cached per text):
    each block goes to the route of its modality (`modality_of`); a block of a route that is not
    packed is a run of its own, and the sentence units of neighbouring blocks of packed routes in one section are one
    run, of the modality they agree on (`_agreed`)."""
    resolved = resolve_format(text, fmt)
    sections = _checked_sections(sectioner(text, resolved), len(text))
    starts = [s.start for s in sections]
    layout = page_layout(text) if "\f" in text else None
    furniture = _Furniture.of(layout)
    runs: list[_Run] = []
    units: list[tuple[int, int]] = []
    headings: set[int] = set()
    modalities: set[str] = set()
    current = -2

    def close() -> None:
        if units:
            runs.append(_Run(_agreed(modalities), current, tuple(units), frozenset(headings)))
        units.clear()
        headings.clear()
        modalities.clear()

    for part, _ in document_parts(text, fmt):
        if isinstance(part, Block) and part.kind in _SKIPPED_KINDS:
            continue
        modality = modality_of(part)
        if not _ROUTES[modality].packed:
            close()
            runs.append(_Run(modality, _section_at(starts, part.start), part=part))
            continue
        assert isinstance(part, Block), "a table is never packed (the table route)"
        for section, start, end in _clip(starts, part.start, part.end):
            if section != current:
                close()
                current = section
            for s, e in _units(text, part, start, end, sentence_method, furniture):
                if part.kind == "heading":
                    headings.add(len(units))
                modalities.add(modality)
                units.append((s, e))
    close()
    ends = tuple([*starts[1:], len(text)])
    leads = _leads(runs, len(sections))
    title = document_title(text, resolved)
    return _Analysis(title, sections, ends, leads, tuple(runs), layout)


@cached(PER_TEXT)
def _prose_vectors(
    text: str, fmt: DocumentFormat, sentence_method: SentenceMethod, sectioner: Sectioner, embedder: Embedder | None
) -> dict[int, Any]:
    """Unit vectors of every prose unit, by run index, embedded in one batch (cached per text)."""
    runs = _analyse(text, fmt, sentence_method, sectioner).runs
    prose = [(i, run) for i, run in enumerate(runs) if run.units]
    texts = [text[s:e] for _, run in prose for s, e in run.units]
    if not texts:
        return {}
    if embedder is None:
        from ..models.embed import default_embedder

        embedder = default_embedder()
    vectors = unit_rows(embedder(texts))
    out, first = {}, 0
    for i, run in prose:
        out[i] = vectors[first : first + len(run.units)]
        first += len(run.units)
    return out


def _checked_sections(found: Sequence[Section], length: int) -> tuple[Section, ...]:
    """The sectioner's sections, checked and sorted, with an untitled one from 0 when needed."""
    sections = []
    for section in found:
        if not isinstance(section, Section):
            raise ValueError(f"a sectioner must return Section objects, got {section!r}")
        if not (isinstance(section.start, int) and 0 <= section.start <= length):
            raise ValueError(f"a section must start inside the text [0, {length}], got {section.start!r}")
        if not (isinstance(section.trail, tuple) and all(isinstance(t, str) for t in section.trail)):
            raise ValueError(f"a section's trail must be a tuple of str, got {section.trail!r}")
        sections.append(section)
    sections.sort(key=lambda s: s.start)
    unique: list[Section] = []
    for section in sections:  # two sections at one offset: the later (innermost) one wins
        if unique and unique[-1].start == section.start:
            unique[-1] = section
        else:
            unique.append(section)
    if not unique or unique[0].start > 0:
        unique.insert(0, Section(0, ()))
    return tuple(unique)


def _section_at(starts: Sequence[int], pos: int) -> int:
    return max(bisect.bisect_right(starts, pos) - 1, 0)


def _clip(starts: Sequence[int], start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """``(section, start, end)`` for each section that ``[start, end)`` overlaps, clipped to it."""
    i = _section_at(starts, start)
    while start < end:
        stop = min(end, starts[i + 1]) if i + 1 < len(starts) else end
        if start < stop:
            yield i, start, stop
        start = max(start, stop)
        i += 1


@dataclass(frozen=True)
class _Furniture:
    """Running header and footer lines by where they start and where they end."""

    by_start: dict[int, int]
    by_end: dict[int, int]

    @classmethod
    def of(cls, layout: PageLayout | None) -> _Furniture:
        lines = layout.furniture if layout is not None else ()
        return cls({s: e for s, e in lines}, {e: s for s, e in lines})

    def trim(self, text: str, start: int, end: int) -> tuple[int, int] | None:
        """``[start, end)`` without the header or footer lines at its edges (None if nothing is left)."""
        while start in self.by_start and self.by_start[start] <= end:
            start = trim_span(text, self.by_start[start], end)[0]
        while end in self.by_end and self.by_end[end] >= start:
            end = trim_span(text, start, self.by_end[end])[1]
        return (start, end) if start < end else None


def _units(
    text: str, block: Block, start: int, end: int, method: SentenceMethod, furniture: _Furniture
) -> list[tuple[int, int]]:
    """The units of a prose block clipped to ``[start, end)``: the heading whole, else sentences,
    with running headers and footers trimmed off their edges (and dropped when nothing else)."""
    start, end = trim_span(text, start, end)
    if start >= end:
        return []
    if block.kind == "heading":
        spans = [(start, end)]
    else:
        spans = [(start + s, start + e) for s, e in sentence_spans(text[start:end], method)] or [(start, end)]
    return [unit for s, e in spans if (unit := furniture.trim(text, s, e))]


def _leads(runs: Sequence[_Run], count: int) -> tuple[tuple[int, int] | None, ...]:
    """Per section, the span of its first sentence that is not a heading (in the section's first
    prose run), or None."""
    leads: list[tuple[int, int] | None] = [None] * count
    seen: set[int] = set()
    for run in runs:
        if run.units and run.section not in seen:
            seen.add(run.section)
            leads[run.section] = next((u for i, u in enumerate(run.units) if i not in run.headings), None)
    return tuple(leads)
