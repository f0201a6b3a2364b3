"""Hybrid chunking: structure first, then each block by its own rule, then size caps, then context.

Every other strategy of the course sees one kind of structure. The hybrid composes them:

1. **Sections.** A *sectioner* cuts the document into sections, each with its breadcrumb of titles.
   The default, `structure_sections`, reads markdown and HTML headings from their parsers and, in
   plain text, numbered clauses and capitalised heading lines (`chunklab.strategies.sections.heading_blocks`);
   a CSV file is one section. A model can do this instead (agentic chunking, `chunklab.strategies.llm`).
   In a text with form feeds (a PDF's pages) running headers and footers are found as in
   `chunklab.strategies.page` and kept off chunk edges, and every chunk knows its pages.
2. **Routing.** Each part of a section goes to the rule made for it: a table is cut between whole
   rows (`chunklab.formats.tables.row_groups`, the table chunker's rule) with its header kept for the
   context; a code block is cut at statements (`chunklab.strategies.code.code_block_spans`); an
   image is kept whole with its caption; prose and lists are split into sentences
   (`chunklab.text.sentences`) packed into chunks of about equal size (`chunklab.text.pack`).
   One table of routes (`_ROUTES`) says, per route, how its source is found, cut and joined.
3. **Size caps.** No chunk measures more than `chunk_size`; a piece smaller than `min_chunk_size` joins its
   neighbour (prose with prose of its section, table rows with rows of their table), and a heading
   with nothing under it but subsections joins the piece that follows it. With `chunk_overlap`, a
   prose chunk also starts with the last whole sentences of the prose chunk before it in its
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
parameters it depends on, so moving a size slider re-runs only the packing.
"""

from __future__ import annotations

import bisect
import typing
from dataclasses import dataclass, field
from typing import Annotated, Any, Callable, Iterator, Literal, Sequence

from ..caches import PER_TEXT, cached
from ..constraints import Param
from ..core import Chunker, ChunkSpan, register
from ..formats.blocks import MODALITIES, Block, DocumentFormat, section_metadata
from ..formats.tables import Table, document_parts, resolve_format, row_groups, table_metadata
from ..models.embed import Embedder, unit_rows
from ..text.length import DEFAULT_CHUNK_SIZE, TokenizerParam, UnitParam, UnitSized
from ..text.pack import fit, pack
from ..text.sentences import SentenceMethod, SentenceSplitterParam, sentence_spans
from ..text.spans import trim_span
from .budget_rule import recommended_sizes
from .code import code_block_spans
from .modality import MODALITY_COLOURS
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
from .table import table_context

__all__ = [
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

Route = Literal["prose", "list", "table", "code", "image"]
#: How prose is packed: sentences into chunks of about equal size, or by meaning (`semantic_pack`).
ProsePacking = Literal["sentences", "semantic"]


#: ``sectioner(text, fmt) -> sections``: `format` is the parser chosen for the text (``"markdown"``,
#: ``"html"``, ``"csv"`` or ``"text"``).
Sectioner = Callable[[str, str], Sequence[Section]]

@dataclass(frozen=True)
class _Run:
    """Consecutive source that one rule chunks: prose units (sentences, headings) or one part."""

    route: Route
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
    """A candidate chunk: its span, the rule that cut it, its section and metadata (and, for a
    table chunk, its table and the data rows it holds, so that merged rows can be rendered again)."""

    start: int
    end: int
    route: Route
    section: int
    headings_only: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)
    table: Table | None = None
    rows: tuple[int, int] = (-1, -1)
    last_section: int = -1  # the section the piece ends in, when it spans several (else -1)


@register
class HybridChunker(UnitSized, Chunker):
    """Structure first, then each block by its own rule, then size caps, then a contextual header.

    1. **Sections** from `sectioner` (default `structure_sections`: markdown/HTML headings,
       numbered clauses and capitalised heading lines of plain text; none in a CSV file).
    2. **Routing** of every part of a section: tables by whole rows (the table chunker's rule; the
       header goes to ``header`` metadata and so into the context);
       code blocks by the code chunker's rule (whole, else between statements); images whole with
       their caption; prose and lists as sentences (`sentence_splitter`) packed into chunks of about
       equal size: as few chunks as `chunk_size` allows, then the smallest limit that needs no more
       (`balanced_pack`). With ``prose="semantic"`` the sentences are embedded (`embedder`, default
       all-MiniLM-L6-v2) and grouped by meaning instead (`semantic_pack`).
    3. **Size caps**: every chunk measures at most `chunk_size` (in `unit`). With `chunk_overlap`
       (default 0: no overlap), prose is packed under ``chunk_size - chunk_overlap`` and each prose
       (or list) chunk then starts earlier, at the earliest sentence of the prose chunk before it in
       the same section such that what it repeats measures at most `chunk_overlap` and the chunk at
       most `chunk_size` (no sentence is ever cut by the overlap; send such chunks with
       `chunklab.evaluation.expand.new_text_only` so that a budget never pays for the repeat). Two neighbouring pieces
       of which one is smaller than `min_chunk_size` become one when the result fits: prose (or list)
       pieces of one section, or whole rows of one table (so a table chunk holds as few rows as
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
        limits = (chunk_size, chunk_size - chunk_overlap)  # by `_RouteRule.sentences`
        pieces = []
        for i, run in enumerate(analysis.runs):
            rule = _ROUTES[run.route]
            pieces.extend(rule.cut(text, run, limits[rule.sentences], measure, vectors.get(i)))
        pieces = _merge(text, pieces, self.min_chunk_size, chunk_size, measure)
        starts = _overlap_starts(text, pieces, analysis.runs, chunk_overlap, chunk_size, measure)
        title = analysis.title if self.title is None else self.title
        for piece, start in zip(pieces, starts):
            yield start, piece.end, self._metadata(text, analysis, piece, title)

    def _metadata(self, text: str, analysis: _Analysis, piece: _Piece, title: str) -> dict[str, Any]:
        first, last = piece.section, max(piece.section, piece.last_section)
        trail = common_trail([analysis.sections[i].trail for i in range(first, last + 1)])
        metadata: dict[str, Any] = {
            "modality": piece.route,
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
    """Where each piece starts once the sentence-aligned overlap is added: a prose piece whose
    predecessor is prose of the same section moves back to the earliest sentence start inside that
    predecessor from which the repeated text measures at most `overlap` and the piece at most
    `limit`; every other piece keeps its start."""
    starts = [piece.start for piece in pieces]
    if overlap <= 0:
        return starts
    units = sorted(s for run in runs for s, _ in run.units)
    for i in range(1, len(pieces)):
        before, piece = pieces[i - 1], pieces[i]
        if not (_ROUTES[before.route].sentences and _ROUTES[piece.route].sentences):
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


# -- routes ---------------------------------------------------------------------------------------
def _cut_table(text: str, run: _Run, limit: int, measure: Callable[[str], int], vectors: Any) -> list[_Piece]:
    """A table between whole rows (`chunklab.formats.tables.row_groups`), a row at a time; a row
    longer than `limit` is cut at words (``cut`` metadata)."""
    table = run.part
    assert isinstance(table, Table), "the table route takes only tables"  # `_ROUTES`: its `takes_part`
    out = []
    for start, end, first, last, partial in row_groups(text, table, 1, limit, measure):
        piece = _Piece(start, end, "table", run.section, table=table, rows=(first, last))
        piece.metadata = _table_metadata(piece)
        if partial:
            piece.metadata["cut"] = True
        out.append(piece)
    return out


def _cut_code(text: str, run: _Run, limit: int, measure: Callable[[str], int], vectors: Any) -> list[_Piece]:
    """A code block whole, else between statements (`chunklab.strategies.code.code_block_spans`)."""
    block = run.part
    assert isinstance(block, Block), "the code route takes only code blocks"  # `_ROUTES`: its `takes_part`
    out = []
    for start, end, meta in code_block_spans(text, block, limit, measure):
        metadata = {"language": meta["language"], "definitions": list(meta["definitions"])}
        if meta.get("context"):
            metadata["header"] = meta["context"]
        out.append(_Piece(start, end, "code", run.section, metadata=metadata))
    return out


def _cut_image(text: str, run: _Run, limit: int, measure: Callable[[str], int], vectors: Any) -> list[_Piece]:
    """An image whole with its caption (cut at words only when it is longer than `limit`)."""
    block = run.part
    assert isinstance(block, Block), "the image route takes only image blocks"  # `_ROUTES`: its `takes_part`
    caption = str(block.attrs.get("caption", ""))
    alt = f"Image: {block.title.rstrip('.')}." if block.title else "Image."
    metadata = {"alt": block.title, "path": block.info, "caption": caption, "header": f"{alt} {caption}".strip()}
    spans = fit(text, block.start, block.end, limit, measure)
    return [_Piece(s, e, "image", run.section, metadata=dict(metadata)) for s, e in spans]


def _cut_prose(text: str, run: _Run, limit: int, measure: Callable[[str], int], vectors: Any) -> list[_Piece]:
    """Sentences (and headings) packed under `limit`: `balanced_pack`, or with `vectors` (one per
    unit) `semantic_pack`."""
    if vectors is None:
        packed = balanced_pack(text, run.units, limit, measure)
    else:
        packed = semantic_pack(text, run.units, vectors, limit, measure)
    return [
        _Piece(start, end, run.route, run.section, headings_only=all(i in run.headings for i in range(first, last + 1)))
        for start, end, first, last in packed
    ]


def _rows_of_one_table(a: _Piece, b: _Piece) -> bool:
    """Whole rows (neither piece a row cut at words) of the same table."""
    return a.table is b.table and not a.metadata.get("cut") and not b.metadata.get("cut")


def _joined_rows(a: _Piece, b: _Piece) -> _Piece:
    """The rows of both pieces as one table piece, rendered again."""
    joined = _Piece(a.start, b.end, "table", a.section, table=a.table, rows=(a.rows[0], b.rows[1]))
    joined.metadata = _table_metadata(joined)
    return joined


def _joined_prose(a: _Piece, b: _Piece) -> _Piece:
    """Prose pieces as one (a list only when both are lists), keeping the sections it spans: a
    section too short to stand alone joins its neighbour, under their common breadcrumb."""
    route: Route = a.route if a.route == b.route else "prose"
    return _Piece(a.start, b.end, route, a.section, last_section=max(b.section, b.last_section))


def _table_metadata(piece: _Piece) -> dict[str, Any]:
    """``rows``, ``columns``, ``markdown``, ``records`` and ``header`` of a table piece."""
    assert piece.table is not None, "only table pieces have table metadata"
    return {**table_metadata(piece.table, *piece.rows), "header": table_context(piece.table, (), "header")}


def _both_sentences(a: _Piece, b: _Piece) -> bool:
    """Both pieces packed from sentences (prose or list), whatever their sections."""
    return _ROUTES[b.route].sentences


@dataclass(frozen=True)
class _RouteRule:
    """One content route of the hybrid: how its source is found, cut and joined.

    Found: `takes_part` says whether the route takes a document part whole (a table, a code block,
    an image), or `takes_units` whether a run of sentence units from blocks of these kinds is its
    (exactly one route says yes: no route depends on the order of `_ROUTES`). Cut: ``cut(text,
    run, limit, measure, vectors)`` returns pieces that each measure at most `limit`; a route of
    `sentences` is cut under ``chunk_size - chunk_overlap`` and its pieces take the
    sentence-aligned overlap from a piece of such a route before them in their section (see
    `_overlap_starts`). Joined (see `_merge`): a piece of this route may become one with the next
    when `joins_with` says so, and `joined` makes the one piece (None: never joined)."""

    cut: Callable[[str, _Run, int, Callable[[str], int], Any], list[_Piece]]
    takes_part: Callable[[Block | Table], bool] | None = None
    takes_units: Callable[[frozenset[str]], bool] | None = None
    sentences: bool = False
    joins_with: Callable[[_Piece, _Piece], bool] | None = None
    joined: Callable[[_Piece, _Piece], _Piece] | None = None


#: The table of routes: one per modality (`chunklab.formats.blocks.MODALITIES`), all the hybrid
#: knows about each.
_ROUTES: dict[Route, _RouteRule] = {
    "table": _RouteRule(_cut_table, takes_part=lambda part: isinstance(part, Table), joins_with=_rows_of_one_table,
                        joined=_joined_rows),
    "code": _RouteRule(_cut_code, takes_part=lambda part: isinstance(part, Block) and part.kind == "code"),
    "image": _RouteRule(_cut_image, takes_part=lambda part: isinstance(part, Block) and part.kind == "image"),
    "list": _RouteRule(_cut_prose, takes_units=lambda kinds: kinds == {"list"}, sentences=True,
                       joins_with=_both_sentences, joined=_joined_prose),
    "prose": _RouteRule(_cut_prose, takes_units=lambda kinds: kinds != {"list"}, sentences=True,
                        joins_with=_both_sentences, joined=_joined_prose),
}
assert set(_ROUTES) == set(MODALITIES) == set(typing.get_args(Route)), "one route per modality"


def _part_route(part: Block | Table) -> Route | None:
    """The route that takes `part` whole, if any."""
    return next((name for name, rule in _ROUTES.items() if rule.takes_part is not None and rule.takes_part(part)), None)


def _unit_route(kinds: frozenset[str]) -> Route:
    """The one route of a run of sentence units from blocks of these kinds (`Block.kind`: a
    ``"list"``, a ``"heading"``, a ``"paragraph"`` ...)."""
    (route,) = (name for name, rule in _ROUTES.items() if rule.takes_units is not None and rule.takes_units(kinds))
    return route


# -- merging --------------------------------------------------------------------------------------
def _merge(
    text: str, pieces: list[_Piece], min_size: int, max_size: int, measure: Callable[[str], int]
) -> list[_Piece]:
    """The lower size cap, in two linear passes. Forward: a piece that holds only headings, or one
    still smaller than `min_chunk_size`, takes in the piece after it. Backward: a piece still smaller
    than `min_chunk_size` (the last of its kind) joins the piece before it. Pieces join only when they
    may (`_joinable`, headings excepted) and the result measures at most `chunk_size`."""

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


def _joinable(a: _Piece, b: _Piece) -> bool:
    """May two neighbours become one? When `a`'s route says so (`_RouteRule.joins_with`)."""
    joins_with = _ROUTES[a.route].joins_with
    return joins_with is not None and joins_with(a, b)


def _joined(a: _Piece, b: _Piece) -> _Piece:
    """One piece from ``[a.start, b.end)``: a heading piece takes on what it introduces; otherwise
    `a`'s route joins them (`_ROUTES`)."""
    if a.headings_only:
        return _Piece(a.start, b.end, b.route, b.section, b.headings_only, b.metadata, b.table, b.rows, b.last_section)
    joined = _ROUTES[a.route].joined
    assert joined is not None, f"{a.route} pieces are never joined"  # _merge joins only what _joinable allows
    return joined(a, b)


# -- analysis -------------------------------------------------------------------------------------
@cached(PER_TEXT)
def _analyse(text: str, fmt: DocumentFormat, sentence_method: SentenceMethod, sectioner: Sectioner) -> _Analysis:
    """Parse `text`, find its sections and pages, and turn its parts into runs (cached per text)."""
    resolved = resolve_format(text, fmt)
    sections = _checked_sections(sectioner(text, resolved), len(text))
    starts = [s.start for s in sections]
    layout = page_layout(text) if "\f" in text else None
    furniture = _Furniture.of(layout)
    runs: list[_Run] = []
    prose: list[tuple[int, int]] = []
    headings: set[int] = set()
    kinds: set[str] = set()
    current = -2

    def close() -> None:
        if prose:
            runs.append(_Run(_unit_route(frozenset(kinds)), current, tuple(prose), frozenset(headings)))
        prose.clear()
        headings.clear()
        kinds.clear()

    for part, _ in document_parts(text, fmt):
        whole = _part_route(part)
        if whole is not None:
            close()
            runs.append(_Run(whole, _section_at(starts, part.start), part=part))
            continue
        assert isinstance(part, Block), "a table is always taken whole (the table route)"
        if part.kind == "rule":
            continue
        for section, start, end in _clip(starts, part.start, part.end):
            if section != current:
                close()
                current = section
            for s, e in _units(text, part, start, end, sentence_method, furniture):
                if part.kind == "heading":
                    headings.add(len(prose))
                kinds.add(part.kind)
                prose.append((s, e))
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
