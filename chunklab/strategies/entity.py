"""Entity chunking: spaCy's named-entity recognizer decides where chunks may end and what groups them.

Three pieces, each usable on its own:

* `entity_mentions`: the named entities of a text with exact offsets, from spaCy's trained English
  pipeline (offline, `chunklab.models.resources.spacy_ner`), run with nothing but its NER component,
  batched over pieces of the text with ``nlp.pipe`` and cached per text (across runs too, in a
  file, after `persist_mentions`);
* `move_out_of_entities` and `join_across_entities`: the boundary helpers any chunker can use so
  that no chunk boundary falls inside a mention;
* `EntityChunker`: runs of consecutive sentences that share an entity become one chunk (or, as the
  contrast, one chunk per paragraph or heading section), with the entities in ``entities``
  metadata; `entity_filter` restricts retrieval to chunks that mention the question's entities.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import pathlib
import re
from typing import Annotated, Any, Callable, Iterable, Iterator, Literal, Mapping, NamedTuple, Sequence

import numpy as np

from ..caches import PER_PIECE, PER_TEXT, cached
from ..constraints import Param
from ..core import Chunk, Chunker, ChunkSpan, ParameterError, register
from ..formats.parse import document_blocks
from ..text.length import DEFAULT_CHUNK_SIZE, TokenizerParam, UnitParam, UnitSized
from ..text.pack import pack
from ..text.paragraphs import paragraph_spans
from ..text.sentences import sentence_spans
from ..text.spans import containing, trim_span
from ..text.words import word_spans

__all__ = [
    "ALL_LABELS",
    "NAMED_LABELS",
    "EntityChunker",
    "Mention",
    "entity_filter",
    "entity_key",
    "entity_mentions",
    "join_across_entities",
    "move_out_of_entities",
    "persist_mentions",
]

#: The labels of spaCy's English pipelines (OntoNotes 5) that name something: people, groups,
#: places, organisations, products, events, works, laws, languages.
NAMED_LABELS: tuple[str, ...] = (
    "PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE",
)
#: Every label, the numeric and temporal ones too.
ALL_LABELS: tuple[str, ...] = (*NAMED_LABELS, "DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL")

#: The pipeline reads the text in pieces of about this many characters (whole sentences where
#: possible), batched through ``nlp.pipe``.
PIECE_CHARS = 5_000
_POSSESSIVE = re.compile(r"['’]s$")


class Mention(NamedTuple):
    """One entity mention: its exact span in the text, its label, and its text."""

    start: int
    end: int
    label: str
    text: str


def _has_upper(piece: str) -> bool:
    return any(ch.isupper() for ch in piece)


def _pieces(text: str) -> list[tuple[int, int]]:
    """Spans of `text` of at most `PIECE_CHARS` characters, ending between sentences where a
    sentence allows it and between words otherwise."""
    return [(s, e) for s, e, _, _ in pack(text, sentence_spans(text), PIECE_CHARS)]


class _MentionFile:
    """The mentions found so far, by text, kept in a JSON file between runs (see `persist_mentions`)."""

    def __init__(self) -> None:
        self.path: pathlib.Path | None = None
        self.found: dict[str, list[list[Any]]] = {}
        self.saved = 0

    @staticmethod
    def key(text: str, every_piece: bool) -> str:
        return f"{int(every_piece)}:{hashlib.blake2b(text.encode('utf-8'), digest_size=16).hexdigest()}"

    def get(self, text: str, every_piece: bool) -> tuple[Mention, ...] | None:
        rows = self.found.get(self.key(text, every_piece))
        return None if rows is None else tuple(Mention(s, e, label, text[s:e]) for s, e, label in rows)

    def put(self, text: str, every_piece: bool, mentions: Sequence[Mention]) -> None:
        if self.path is not None:
            self.found[self.key(text, every_piece)] = [[m.start, m.end, m.label] for m in mentions]

    def open(self, path: pathlib.Path) -> None:
        from ..models.resources import spacy_ner_release

        self.flush()
        self.path, self.found = path, {}
        if path.is_file():
            stored = json.loads(path.read_text(encoding="utf-8"))
            if stored.get("pipeline") == spacy_ner_release():
                self.found = stored["mentions"]
        self.saved = len(self.found)

    def flush(self) -> None:
        """Write the file (atomically: a temporary file, then a rename) if it lacks a text's mentions."""
        from ..models.resources import replace_atomically, spacy_ner_release

        if self.path is None or len(self.found) == self.saved:
            return
        with replace_atomically(self.path, "w") as tmp:
            json.dump({"pipeline": spacy_ner_release(), "mentions": self.found}, tmp)
        self.saved = len(self.found)


_FILE = _MentionFile()
atexit.register(_FILE.flush)


def persist_mentions(path: str | os.PathLike) -> None:
    """Keep the mentions `entity_mentions` finds in the JSON file `path` too, so that a new run (a
    notebook restarted, a script run again) does not run spaCy on a text it has already read: what
    the file holds is loaded now, and the file is written when the interpreter exits (or when another
    file is opened). The file records which spaCy pipeline found the mentions (package and version);
    mentions found by another one are ignored. Texts are keyed by a hash, not stored."""
    _FILE.open(pathlib.Path(path))


# Room for every document of a corpus and every question a filter reads: with a small cache, the
# questions of one `compare(..., where=entity_filter)` evicted the documents, and the next chunking
# of a document ran the model again.
@cached(PER_PIECE)
def _mentions(text: str, every_piece: bool) -> tuple[Mention, ...]:
    """Every mention of every label in `text`, in order. With `every_piece` False, pieces without an
    upper-case letter are not read: English names are capitalised, and on the course corpus the
    pipeline finds a named entity in 1 of 75 such sentences (a false one)."""
    from ..models.resources import spacy_ner

    stored = _FILE.get(text, every_piece)
    if stored is not None:
        return stored
    nlp = spacy_ner()
    pieces = [(s, e) for s, e in _pieces(text) if every_piece or _has_upper(text[s:e])]
    nlp.max_length = max(nlp.max_length, PIECE_CHARS * 2)
    found: list[Mention] = []
    with nlp.select_pipes(enable=["ner"]):
        for (offset, _), doc in zip(pieces, nlp.pipe((text[s:e] for s, e in pieces), batch_size=32)):
            for ent in doc.ents:
                start, end = trim_span(text, offset + ent.start_char, offset + ent.end_char)
                if start < end:
                    found.append(Mention(start, end, ent.label_, text[start:end]))
    _FILE.put(text, every_piece, found)
    return tuple(found)


def entity_mentions(text: str, labels: Iterable[str] = NAMED_LABELS) -> list[Mention]:
    """The entity mentions of `text` whose label is in `labels`, in order, with exact offsets.

    Found by spaCy's small English pipeline with only its NER component enabled, over pieces of
    about 5,000 characters that end between sentences (a mention across a piece's edge, possible
    only inside a sentence longer than that, is missed). Results are cached per text, so chunking
    the same text again, with any parameters, does not run the model. When `labels` are all
    `NAMED_LABELS`, pieces without an upper-case letter are skipped (names are capitalised).
    """
    if not isinstance(text, str):
        raise TypeError(f"entity_mentions expects a str, got {type(text).__name__}")
    wanted = frozenset(labels)
    if not wanted or not text.strip():
        return []
    every_piece = not wanted <= frozenset(NAMED_LABELS)
    return [m for m in _mentions(text, every_piece) if m.label in wanted]


def _span_table(mentions: Sequence[Mention] | Sequence[tuple[int, int]] | np.ndarray) -> np.ndarray:
    """Mentions (or ``(start, end)`` pairs) as an ``(n, 2)`` int array; an array passes through."""
    if isinstance(mentions, np.ndarray):
        return mentions
    return np.asarray([(m[0], m[1]) for m in mentions], dtype=np.int64).reshape(-1, 2)


def move_out_of_entities(
    boundaries: Iterable[int],
    mentions: Sequence[Mention] | Sequence[tuple[int, int]],
    side: Literal["start", "end"] = "start",
) -> list[int]:
    """Each boundary that falls strictly inside a mention, moved to that mention's start (or end).

    `mentions` must be sorted and non-overlapping (as `entity_mentions` returns them). A boundary
    at a mention's edge already keeps it whole and stays. Works for any chunker's cut positions.
    """
    spans = _span_table(mentions)
    points = np.fromiter(boundaries, dtype=np.int64)
    inside = containing(spans, points)
    column = 0 if side == "start" else 1
    moved = np.where(inside >= 0, spans[np.maximum(inside, 0), column], points) if len(spans) else points
    return [int(p) for p in moved]


def join_across_entities(
    units: Sequence[tuple[int, int]], mentions: Sequence[Mention] | Sequence[tuple[int, int]] | np.ndarray
) -> list[tuple[int, int]]:
    """`units` (sorted, non-overlapping spans: sentences, words...) with every run of consecutive
    units that one mention spans joined into one unit, so no cut between units splits a mention."""
    if not units:
        return []
    spans = _span_table(mentions)
    # The cut between unit k and k+1 is anywhere in the gap [end_k, start_k+1]; it splits a mention
    # when the mention holds the first character of unit k+1 and starts before unit k ends.
    heads = containing(spans, [s for s, _ in units[1:]]) if len(spans) else np.full(len(units) - 1, -1)
    joined = [list(units[0])]
    for k, hit in enumerate(heads, start=1):
        if hit >= 0 and spans[hit, 0] < units[k - 1][1]:
            joined[-1][1] = units[k][1]
        else:
            joined.append(list(units[k]))
    return [(s, e) for s, e in joined]


def entity_key(text: str) -> str:
    """The form mentions are matched by: lower case, single spaces, no leading "the", no trailing
    possessive ("the Tessel's" and "Tessel" match)."""
    key = " ".join(text.lower().split())
    key = _POSSESSIVE.sub("", key)
    return key[4:] if key.startswith("the ") else key


def _keys_match(a: str, b: str) -> bool:
    """Same entity, by words: one key's words all appear in the other ("Abernathy" ~ "Ruth Abernathy")."""
    wa, wb = set(a.split()), set(b.split())
    return bool(wa) and bool(wb) and (wa <= wb or wb <= wa)


def _shares_entity(keys: Iterable[str], others: Iterable[str]) -> bool:
    """Does any key of `keys` match (`_keys_match`) any of `others`?"""
    return any(_keys_match(a, b) for a in keys for b in others)


@register
class EntityChunker(UnitSized, Chunker):
    """Chunks that never cut a named entity, grouped by the entities their sentences share.

    ``group_by="entities"``: sentences are read in order; a sentence joins the current chunk when it
    mentions an entity the chunk already mentions, when it mentions none (a "he said" sentence
    follows its subject), when the chunk has no entity yet, or while the chunk is shorter than
    `min_chunk_size`; a sentence that brings only new entities starts a new chunk. ``group_by="paragraphs"``
    is the contrast (the "entity = paragraph or header unit" of older tutorials): one chunk per
    blank-line paragraph or markdown/HTML block, a heading kept with the block under it.

    Either way a chunk is one contiguous span, its ``entities`` metadata lists the mentions of
    `labels` in it (``{"text", "label", "count"}``, most frequent first), and no chunk boundary falls
    inside a mention (sentences that a mention spans are joined first, see `join_across_entities`).
    Mentions come from spaCy's small English NER (`entity_mentions`), computed once per text.

    Size contract: every chunk measures at most `chunk_size` in `unit`. A sentence or block longer
    than that is packed from its words, a mention's words kept together; only a single mention
    longer than `chunk_size` is cut inside.
    """

    name = "entity"

    def __init__(
        self,
        *,
        # Groups of sentences that share entities rarely pass 1,500 characters in prose: a larger
        # `chunk_size` changes nothing on screen.
        chunk_size: Annotated[int, Param(low=50, slider=(100, 1500, 50), counted_in_unit=True)] = DEFAULT_CHUNK_SIZE,
        min_chunk_size: Annotated[
            int, Param(low=0, slider=(0, 1000, 50), counted_in_unit=True, active_when={"group_by": ("entities",)})
        ] = 200,
        group_by: Literal["entities", "paragraphs"] = "entities",
        labels: tuple[str, ...] = NAMED_LABELS,
        unit: UnitParam = "chars",
        tokenizer: TokenizerParam = "minilm",
    ) -> None:
        self.chunk_size = chunk_size
        self.min_chunk_size = min_chunk_size
        self.group_by = group_by
        self.labels = labels
        self.unit = unit
        self.tokenizer = tokenizer
        self.validate()

    def check(self) -> None:
        """Labels must be spaCy's."""
        unknown = sorted(set(self.labels) - set(ALL_LABELS))
        if unknown:
            raise ParameterError(
                f"EntityChunker: parameter 'labels' has unknown labels {unknown}; allowed: {list(ALL_LABELS)}"
            )

    def spans(self, text: str) -> Iterator[ChunkSpan]:
        """Yield each chunk's span with its ``entities``."""
        if not text.strip():
            return
        mentions = entity_mentions(text, self.labels)
        if self.group_by == "entities":
            groups = self._entity_groups(text, mentions)
        else:
            groups = self._block_groups(text, mentions)
        starts = np.asarray([m.start for m in mentions], dtype=np.int64)
        for start, end in groups:
            lo, hi = np.searchsorted(starts, [start, end])
            yield start, end, {"entities": _summary(mentions[lo:hi])}

    def _entity_groups(self, text: str, mentions: list[Mention]) -> Iterator[tuple[int, int]]:
        """Sentences grouped by shared entities (see the class docstring). A run of entity-free
        sentences that opens a paragraph (a heading, "1.") goes with what follows it, not with
        what precedes it, when the sentence after it starts a new group."""
        units = _paragraph_sentences(text, tuple(self.labels))
        size = self._run_size(text, units)  # size(i, j): units i..j inclusive, as one span
        starts = np.asarray([m.start for m in mentions], dtype=np.int64)
        lows = np.searchsorted(starts, [u[0] for u in units])
        highs = np.searchsorted(starts, [u[1] for u in units])
        first = None  # the current group is units first..k-1
        active: set[str] = set()  # the entity keys it mentions
        tail = None  # first unit of a trailing entity-free run of the group that opens a paragraph
        for k, ((_, _, opens), lo, hi) in enumerate(zip(units, lows, highs)):
            own = {entity_key(m.text) for m in mentions[lo:hi]}
            if first is not None:
                related = not own or not active or _shares_entity(own, active) or size(first, k - 1) < self.min_chunk_size
                if related and size(first, k) <= self.chunk_size:
                    active |= own
                    tail = None if own else (tail if tail is not None else (k if opens else None))
                    continue
                if not related and tail is not None and tail > first and size(tail, k) <= self.chunk_size:
                    yield units[first][0], units[tail - 1][1]
                    first, active, tail = tail, set(own), None
                    continue
                yield units[first][0], units[k - 1][1]
                first = None
            if size(k, k) > self.chunk_size:
                yield from self._cut(text, units[k][0], units[k][1], mentions)
                continue
            first, active = k, set(own)
            tail = k if opens and not own else None
        if first is not None:
            yield units[first][0], units[-1][1]

    def _run_size(self, text: str, units: Sequence[tuple[int, int, bool]]) -> Callable[[int, int], int]:
        """``size(i, j)``: the size of the span from unit i's start to unit j's end. Characters are
        offsets; words and MiniLM tokens add up over whitespace-separated units (see
        `chunklab.text.length`), so they are summed; any other tokenizer measures the span itself."""
        if self.unit == "chars":
            return lambda i, j: units[j][1] - units[i][0]
        if self.unit == "words" or self.tokenizer == "minilm":
            totals = np.concatenate(([0], np.cumsum([self.measure(text[s:e]) for s, e, _ in units])))
            return lambda i, j: int(totals[j + 1] - totals[i])
        return lambda i, j: self.measure(text[units[i][0] : units[j][1]])

    def _block_groups(self, text: str, mentions: list[Mention]) -> Iterator[tuple[int, int]]:
        """One group per block (`chunklab.formats.parse.document_blocks`), a heading joined to the block
        under it; a block over `chunk_size` is packed from its sentences."""
        blocks = document_blocks(text)
        units, pending = [], None
        for block in blocks:
            start = block.start if pending is None else pending
            if block.kind == "heading":
                pending = start
                continue
            units.append((start, block.end))
            pending = None
        if pending is not None:
            units.append((pending, blocks[-1].end))
        for start, end in join_across_entities(units, mentions):
            if self.measure(text[start:end]) <= self.chunk_size:
                yield start, end
                continue
            sentences = [(start + s, start + e) for s, e in sentence_spans(text[start:end])]
            fitting = [
                piece
                for s, e in join_across_entities(sentences, mentions)
                for piece in ([(s, e)] if self.measure(text[s:e]) <= self.chunk_size else self._cut(text, s, e, mentions))
            ]
            yield from ((s, e) for s, e, _, _ in pack(text, fitting, self.chunk_size, self.measure))

    def _cut(self, text: str, start: int, end: int, mentions: list[Mention]) -> list[tuple[int, int]]:
        """An oversized span packed from its words, the words of one mention kept together (a
        mention longer than `chunk_size` is then cut by `chunklab.text.pack.fit`, inside it)."""
        words = [(start + s, start + e) for s, e in word_spans(text[start:end])]
        return [(s, e) for s, e, _, _ in pack(text, join_across_entities(words, mentions), self.chunk_size, self.measure)]


@cached(PER_TEXT)
def _paragraph_sentences(text: str, labels: tuple[str, ...]) -> tuple[tuple[int, int, bool], ...]:
    """The sentences of each paragraph, those a mention of `labels` spans joined, each with a flag:
    does it open its paragraph? Cached per text and labels: a slider move only regroups them."""
    mentions = _span_table(entity_mentions(text, labels))
    units: list[tuple[int, int, bool]] = []
    for start, end in paragraph_spans(text):
        inner = [(start + s, start + e) for s, e in sentence_spans(text[start:end])]
        units.extend((s, e, k == 0) for k, (s, e) in enumerate(join_across_entities(inner, mentions)))
    return tuple(units)


def _summary(mentions: Sequence[Mention]) -> list[dict[str, Any]]:
    """Mentions grouped by `entity_key`: the first surface form and label seen, and a count; most
    frequent first, ties in order of appearance."""
    seen: dict[str, dict[str, Any]] = {}
    for m in mentions:
        entry = seen.setdefault(entity_key(m.text), {"text": m.text, "label": m.label, "count": 0})
        entry["count"] += 1
    return sorted(seen.values(), key=lambda e: -e["count"])


def _chunk_keys(chunk: Chunk, labels: tuple[str, ...]) -> tuple[str, ...]:
    """The entity keys of a chunk: from its ``entities`` metadata when it has them, else found in
    its text (so the filter works for any chunker)."""
    listed = chunk.metadata.get("entities")
    if listed is not None:
        return tuple(entity_key(e["text"]) for e in listed if e["label"] in labels)
    return _text_keys(chunk.text, labels)


@cached(PER_PIECE)
def _text_keys(text: str, labels: tuple[str, ...]) -> tuple[str, ...]:
    """The entity keys found in a chunk's text, cached: a filter asks again for every question."""
    return tuple(entity_key(m.text) for m in entity_mentions(text, labels))


def entity_filter(
    question: Mapping[str, Any] | str,
    chunks: Sequence[Chunk],
    labels: tuple[str, ...] = NAMED_LABELS,
    aliases: Mapping[str, Iterable[str]] | None = None,
) -> np.ndarray | None:
    """Which chunks a question may retrieve: those that mention an entity the question mentions.

    The question's entities are found by the same NER; a chunk matches when one of its entity keys
    and one of the question's share all the words of the shorter (`entity_key`: "Ruth Abernathy's"
    matches "Abernathy"). Labels are ignored when matching: the small model often labels one name
    differently in two places. `aliases` maps an entity to other names that refer to it (``{"Marrow
    Bay": ["Customer"]}``, as a contract defines its parties); a question about the entity then also
    matches chunks that use an alias. Returns a boolean mask over `chunks`, or None (no restriction)
    when the question names no entity or no chunk matches. Use it as ``compare(..., where=entity_filter)``
    (with aliases: ``functools.partial(entity_filter, aliases=...)``).
    """
    text = question if isinstance(question, str) else question["question"]
    asked = {entity_key(m.text) for m in entity_mentions(text, labels)}
    for name, others in (aliases or {}).items():
        if _shares_entity(asked, [entity_key(name)]):
            asked |= {entity_key(other) for other in others}
    if not asked:
        return None
    mask = np.array([_shares_entity(asked, _chunk_keys(chunk, labels)) for chunk in chunks], dtype=bool)
    return mask if mask.any() else None
