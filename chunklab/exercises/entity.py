"""Notebook 11 (entity chunking): how many names a fixed window cuts, making any chunker entity-safe,
and why an entity filter loses answers."""

from __future__ import annotations

import numpy as np

from ..caches import RESOURCE, cached
from ..core import Chunk
from ..formats.corpus import load_document
from ..strategies import EntityChunker, FixedSizeChunker, ParagraphChunker, SentenceChunker
from ..strategies.entity import entity_mentions, move_out_of_entities
from ..text.spans import trim_span
from . import ExerciseFailed, exercise, pick, refuse_library

#: Exercise 1: the document and the window size whose cut names the learner estimates.
ESTIMATE_DOC, ESTIMATE_SIZE = "agreement", 200
#: How far an estimate may lie from the measured count, as a share of it, either way.
ESTIMATE_TOLERANCE = 0.3


def inside_share(text: str) -> float:
    """The share of the characters of `text` at which a boundary would cut a mention: those strictly
    inside one (after its first character)."""
    inside = np.zeros(len(text), dtype=bool)
    for mention in entity_mentions(text):
        inside[mention.start + 1 : mention.end] = True
    return float(inside.mean()) if len(text) else 0.0


def names_cut(chunks, text: str) -> int:
    """How many mentions of `text` have a boundary of `chunks` strictly inside them."""
    boundaries = sorted({b for c in chunks for b in (c.start, c.end)})
    return sum(any(m.start < b < m.end for b in boundaries) for m in entity_mentions(text))


def solution_cut_estimate() -> float:
    agreement = load_document("agreement").text
    boundaries = len(agreement) / 200  # one window boundary every 200 characters
    return boundaries * inside_share(agreement)


@cached(RESOURCE)
def _measured_cuts() -> int:
    text = load_document(ESTIMATE_DOC).text
    return names_cut(FixedSizeChunker(chunk_size=ESTIMATE_SIZE)(text), text)


def _article_cuts() -> int:
    """A wrong answer: the count failure mode 3 prints, the names windows of 400 cut in the article."""
    text = load_document("article").text
    return names_cut(FixedSizeChunker(chunk_size=400)(text), text)


@exercise("11.1", "how many names does a window cut?", "predict", solution=solution_cut_estimate,
          wrong=(lambda: 0, lambda: len(load_document(ESTIMATE_DOC).text) / ESTIMATE_SIZE,
                 lambda: len(entity_mentions(load_document(ESTIMATE_DOC).text)), _article_cuts))
def check_cut_estimate(answer) -> str:
    """`answer` must be within `ESTIMATE_TOLERANCE` of the measured number of names cut (either way)."""
    try:
        value = float(answer)
    except (TypeError, ValueError):
        raise ExerciseFailed(f"answer with a number, not {answer!r}") from None
    measured = _measured_cuts()
    if not (1 - ESTIMATE_TOLERANCE) * measured <= value <= (1 + ESTIMATE_TOLERANCE) * measured:
        direction = "too few" if value < measured else "too many"
        raise ExerciseFailed(
            f"{value:.1f} is {direction}. Hint: a boundary cuts a name only when it lands inside one; how many "
            "boundaries are there, and what share of the positions they can land on lies inside a name?"
        )
    return f"FixedSizeChunker(chunk_size={ESTIMATE_SIZE}) cuts {measured} names in the {ESTIMATE_DOC}; you said {value:.1f}."


def solution_safe_windows(text: str) -> list[tuple[int, int]]:
    windows = FixedSizeChunker(chunk_size=400)(text)
    ends = move_out_of_entities([c.end for c in windows[:-1]], entity_mentions(text)) + [windows[-1].end]
    starts = [windows[0].start] + ends[:-1]
    spans = [trim_span(text, s, e) for s, e in zip(starts, ends)]
    return [(s, e) for s, e in spans if s < e]


def _moved_ends_only(text: str) -> list[tuple[int, int]]:
    """A wrong answer: the ends moved, the starts left where they were (text between is lost)."""
    windows = FixedSizeChunker(chunk_size=400)(text)
    ends = move_out_of_entities([c.end for c in windows], entity_mentions(text))
    return [(c.start, e) for c, e in zip(windows, ends) if c.start < e]


def _safe_windows_of(chunker, side: str = "start"):
    """A wrong answer (unless `chunker` is the 400-character window and `side` the start): `chunker`'s
    spans with their boundaries moved to the `side` of the names they cut."""
    def windows(text: str) -> list[tuple[int, int]]:
        chunks = chunker(text)
        ends = move_out_of_entities([c.end for c in chunks[:-1]], entity_mentions(text), side=side) + [chunks[-1].end]
        spans = [trim_span(text, s, e) for s, e in zip([chunks[0].start] + ends[:-1], ends)]
        return [(s, e) for s, e in spans if s < e]
    return windows


def _trimmed(text: str, spans) -> list[tuple[int, int]]:
    """`spans` with their whitespace trimmed, empty ones dropped: two answers that differ only in
    where the blanks between chunks go compare equal."""
    trimmed = [trim_span(text, s, e) for s, e in spans]
    return [(s, e) for s, e in trimmed if s < e]


@exercise("11.2", "make any chunker entity-safe", "implement", solution=solution_safe_windows,
          wrong=(lambda: lambda text: [(c.start, c.end) for c in FixedSizeChunker(chunk_size=400)(text)],
                 lambda: _moved_ends_only, lambda: lambda text: [],
                 lambda: lambda text: [(c.start, c.end) for c in EntityChunker()(text)],
                 lambda: lambda text: [(0, len(text))],
                 lambda: _safe_windows_of(ParagraphChunker()), lambda: _safe_windows_of(SentenceChunker()),
                 lambda: _safe_windows_of(FixedSizeChunker(chunk_size=800)),
                 lambda: _safe_windows_of(FixedSizeChunker(chunk_size=400), side="end")))
def check_safe_windows(candidate) -> str:
    """`candidate(text)` must cut no name of the article and still cover all of its words, once, with
    the chunks of `FixedSizeChunker(chunk_size=400)` whose boundaries inside a name moved to its start
    (whitespace at a chunk's edges aside), without running EntityChunker."""
    text = load_document("article").text
    windows = refuse_library(candidate, EntityChunker.__init__, EntityChunker.spans, what="EntityChunker")
    spans = [tuple(span) for span in windows(text)]
    if not all(0 <= s < e <= len(text) for s, e in spans) or any(a[1] > b[0] for a, b in zip(spans, spans[1:])):
        raise ExerciseFailed("the spans must lie inside the text, in order, without overlapping. Hint: each "
                             "chunk runs from the previous chunk's moved end to its own moved end.")
    cut = names_cut([Chunk(text[s:e], s, e) for s, e in spans], text)
    if cut:
        raise ExerciseFailed(f"{cut} names of the article are still cut. Hint: move every boundary that falls "
                             "inside a mention with move_out_of_entities.")
    covered = "".join(text[s:e] for s, e in spans)
    if "".join(covered.split()) != "".join(text.split()):
        raise ExerciseFailed("your spans do not cover the article's words exactly once. Hint: when a chunk's end "
                             "moves back, the next chunk must start there, not where it started before.")
    got, expected = _trimmed(text, spans), _trimmed(text, solution_safe_windows(text))
    if len(got) != len(expected):
        raise ExerciseFailed(
            f"{len(got)} chunks; the article's 400-character windows, moved out of the names, make {len(expected)}. "
            "Hint: start from FixedSizeChunker(chunk_size=400) without overlap and move its boundaries; do not "
            "choose other boundaries (paragraphs, sentences, a different size).")
    if got != expected:
        cut = next(a[1] for a, b in zip(got, expected) if a != b)
        mention = next((m for m in entity_mentions(text) if m.start < cut <= m.end), None)
        where = f" (the end of the name {text[mention.start:mention.end]!r})" if mention and cut == mention.end else ""
        raise ExerciseFailed(
            f"a chunk of yours ends at {cut}{where}, where no moved window boundary is. Hint: a boundary moves only "
            "if it falls inside a name, and then back to the name's start (move_out_of_entities' default), so the "
            "name goes whole into the next chunk.")
    return f"{len(spans)} chunks, no name cut, every word of the article kept."


#: Exercise 3's explanations of why the entity filter answers fewer questions.
FILTER_CHOICES = {
    "A": "The chunk holding the answer often names the entity another way (a defined name such as \"the "
         "Customer\", a pronoun) or not at all.",
    "B": "Questions that name no entity at all get no chunks through the filter, so every one of them is lost, "
         "however well BM25 ranks.",
    "C": "The small model labels a name differently in the question and in the chunk (a place as a person), "
         "and the filter compares those labels.",
    "D": "The filter adds the question's entities to the query a second time, which changes how BM25 weighs "
         "its words and ranks the chunks.",
}
_FILTER_HINTS = {
    "B": "a question that names nothing (or nothing any chunk mentions) is not restricted at all.",
    "C": "entity_filter matches by words and ignores labels, for exactly that reason.",
    "D": "the filter only masks chunks; BM25 ranks with the question as it is written.",
}


def solution_filter_choice() -> str:
    return "A"


@exercise("11.3", "why does the filter lose answers?", "explain", solution=solution_filter_choice,
          wrong=(lambda: "B", lambda: "C", lambda: "D"))
def check_filter_choice(choice) -> str:
    """One letter of `FILTER_CHOICES`."""
    pick(choice, FILTER_CHOICES, _FILTER_HINTS, solution_filter_choice())
    return "compare, in the table of changed questions, the names a question uses with those of its answer's chunk."
