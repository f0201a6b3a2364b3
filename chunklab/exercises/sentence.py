"""Notebook 02 (sentence chunking): a splitter that beats ``text.split(". ")``, what happens to a
sentence longer than `chunk_size`, and why sentence chunking degrades on a CSV file."""

from __future__ import annotations

import re

from ..caches import RESOURCE, cached
from ..evaluation.sentence_boundaries import boundary_scores, load_sentence_gold
from ..strategies import SentenceChunker
from ..text.sentences import sentence_spans
from ..text.spans import trim_span
from . import ExerciseFailed, exercise, numbers_of, pick, refuse_library

#: The library's sentence splitters, which an answer to exercise 1 may not call.
_LIBRARY_SPLITTERS = ("chunklab.text.sentences", "chunklab.text.regex_sentences", "chunklab.strategies.sentence")

#: The boundary F1 a splitter must reach on the English gold set (``text.split(". ")`` scores 0.71).
TARGET_F1 = 0.80


def naive_spans(text: str) -> list[tuple[int, int]]:
    """``text.split(". ")`` as spans: each piece keeps the full stop that the separator removed."""
    spans, start = [], 0
    for piece in text.split(". "):
        end = start + len(piece)
        spans.append(trim_span(text, start, min(end + 1, len(text))))
        start = end + 2
    return [(s, e) for s, e in spans if s < e]


def solution_splitter(text: str) -> list[tuple[int, int]]:
    abbreviations = {"dr", "mr", "mrs", "ms", "prof", "st", "no", "fig", "vol", "p", "e.g", "i.e", "cf", "vs",
                     "approx", "c", "a.m", "p.m", "u.s", "u.k", "jan", "feb", "sept", "dec", "ph.d", "inc", "ltd"}
    spans, start = [], 0
    for end in re.finditer(r'[.!?…]+["”’)\]]*(?=\s)|\n(?=- )', text):
        words = text[start : end.start()].split()
        before = words[-1].lower().lstrip("(\"“") if words else ""
        if text[end.start()] == "." and (before in abbreviations or (len(before) == 1 and before.isalpha())):
            continue  # an abbreviation or an initial: the sentence goes on
        spans.append(trim_span(text, start, end.end()))
        start = end.end()
    spans.append(trim_span(text, start, len(text)))
    return [(s, e) for s, e in spans if s < e]


@cached(RESOURCE)
def _gold():
    return tuple(load_sentence_gold())


def _spans_of(answer, passage: str) -> list[tuple[int, int]]:
    """The splitter's answer as ``(start, end)`` pairs of whole numbers, or `ExerciseFailed` saying
    what came back instead (sentences as strings are the usual slip)."""
    answer = list(answer)
    if any(isinstance(item, str) for item in answer):
        raise ExerciseFailed(f"on passage {passage!r} your splitter returns strings ({answer[0]!r}, ...). Hint: return "
                             "each sentence's (start, end) offsets instead, so that text[start:end] is the sentence.")
    spans = []
    for item in answer:
        if isinstance(item, (str, bytes)) or not hasattr(item, "__iter__") or len(tuple(item)) != 2:
            raise ExerciseFailed(f"on passage {passage!r} your splitter returns {item!r}: each item must be a "
                                 "(start, end) pair of offsets")
        spans.append(numbers_of(item, 2, "(start, end) pairs of offsets"))
    return spans


@exercise("02.1", "beat the naive split", "implement", solution=solution_splitter,
          wrong=(lambda: naive_spans,
                 lambda: lambda text: [(0, len(text))],
                 lambda: lambda text: [(m.start(), m.end()) for m in re.finditer(r"[^.]+\.?", text)],
                 lambda: lambda text: sentence_spans(text),
                 lambda: lambda text: [(c.start, c.end) for c in SentenceChunker(chunk_size=1)(text)],
                 lambda: lambda text: [text[s:e] for s, e in solution_splitter(text)],
                 lambda: lambda text: [(s, e - 1) for s, e in solution_splitter(text)],
                 lambda: lambda text: [e for _, e in solution_splitter(text)]))
def check_splitter(candidate) -> str:
    """`candidate(text)` must return sorted, non-overlapping spans inside the text, and reach
    `TARGET_F1` on the gold set, without calling the library's sentence splitters."""
    candidate = refuse_library(candidate, *_LIBRARY_SPLITTERS, what="sentence splitter")
    gold = _gold()
    predicted = []
    for passage in gold:
        spans = _spans_of(candidate(passage.text), passage.id)
        ordered = all(0 <= s < e <= len(passage.text) for s, e in spans) and all(
            a[1] <= b[0] for a, b in zip(spans, spans[1:]))
        if not ordered:
            raise ExerciseFailed(f"on passage {passage.id!r} the spans are not sorted, non-empty, non-overlapping "
                                 "(start, end) pairs inside the text")
        predicted.append(spans)
    scores = boundary_scores(predicted, gold)
    naive = boundary_scores([naive_spans(p.text) for p in gold], gold)
    if scores["f1"] < TARGET_F1:
        raise ExerciseFailed(
            f"boundary F1 {scores['f1']:.3f} ({scores['false']} false boundaries, {scores['missed']} missed); the "
            f"target is {TARGET_F1} and split('. ') scores {naive['f1']:.3f}. Hint: a sentence also ends at '!', '?' "
            "and before a closing quote or bracket; a full stop after a title or an initial usually does not."
        )
    return (f"F1 {scores['f1']:.3f} ({scores['false']} false boundaries, {scores['missed']} missed) against "
            f"{naive['f1']:.3f} for split('. ').")


#: Exercise 2's text: a 42-character sentence, a 245-character one, a 16-character one.
LONG_SENTENCE_TEXT = (
    "The pump failed at dawn on the second day. Water rose through the lower gallery while the crew moved the "
    "spare motor, the cables, the two generators and every crate of sensors up the north stairs to the loading "
    "deck, where the foreman counted them twice before anyone was allowed to rest. Nobody was hurt."
)
#: Exercise 2's chunk size, in characters.
LONG_SENTENCE_SIZE = 100


def solution_long_sentence() -> tuple[int, int]:
    chunks = SentenceChunker(chunk_size=LONG_SENTENCE_SIZE)(LONG_SENTENCE_TEXT)
    return len(chunks), sum(c.metadata["cut"] for c in chunks)


@exercise("02.2", "a sentence longer than chunk_size", "predict", solution=solution_long_sentence,
          wrong=(lambda: (3, 1), lambda: (4, 3), lambda: (5, 1), lambda: (5, 0), lambda: (5.5, 3), lambda: 5,
                 lambda: (5, 3, 0)))
def check_long_sentence(answer) -> str:
    """`answer` is ``(chunks, chunks marked cut)`` for `LONG_SENTENCE_TEXT` at `LONG_SENTENCE_SIZE`."""
    chunks, cut = numbers_of(answer, 2, "a pair of numbers: (chunks, chunks marked cut)")
    expected_chunks, expected_cut = solution_long_sentence()
    if chunks != expected_chunks:
        if chunks > expected_chunks:
            hint = "each piece is as long as chunk_size allows: the cut falls at the last word boundary that fits"
        elif chunks == expected_chunks - 1:
            hint = "a piece of a cut sentence is a chunk of its own: packing never joins it to the next sentence"
        else:
            hint = "the middle sentence does not fit, so it cannot stay whole: every chunk measures at most chunk_size"
        raise ExerciseFailed(f"not {chunks} chunks. Hint: {hint}.")
    if cut != expected_cut:
        raise ExerciseFailed(f"the chunk count is right, but not {cut} cut chunks. Hint: every piece of the long "
                             "sentence carries cut=True, and the whole sentences around it do not.")
    pieces = [len(c) for c in SentenceChunker(chunk_size=LONG_SENTENCE_SIZE)(LONG_SENTENCE_TEXT)]
    return f"chunk lengths {pieces}: the long sentence is cut at word boundaries, its pieces stand alone."


#: Exercise 3's explanations of why almost every chunk of the CSV file is a piece of a cut sentence.
CSV_CHOICES = {
    "A": "The regex splitter treats every comma of a CSV file as the end of a sentence, so each field of every "
         "row becomes a tiny piece that is marked as cut.",
    "B": "SentenceChunker recognises CSV input from its commas and its header line and hands the whole file to "
         "FixedSizeChunker, whose windows cut rows.",
    "C": "Every row of a table is first split into its cells, so each cell becomes a piece of its own, and "
         "such a piece is always marked as cut.",
    "D": "Rows rarely end with a full stop and one line break ends no sentence, so the splitter finds a few "
         "huge 'sentences', cut at word boundaries.",
}
_CSV_HINTS = {
    "A": "then the sentences would be tiny, and nothing would need cutting.",
    "B": "SentenceChunker looks at no format; the pieces come from its own rule for a sentence longer than "
         "chunk_size.",
    "C": "nothing splits a row into cells here; look at the longest sentence the failure-mode table reports.",
}


def solution_csv_choice() -> str:
    return "D"


@exercise("02.3", "why does sentence chunking fail on CSV?", "explain", solution=solution_csv_choice,
          wrong=(lambda: "A", lambda: "B", lambda: "C"))
def check_csv_choice(choice) -> str:
    """One letter of `CSV_CHOICES`."""
    pick(choice, CSV_CHOICES, _CSV_HINTS, solution_csv_choice())
    return "rows and records need a strategy of their own: notebook 09 cuts CSV between records."
