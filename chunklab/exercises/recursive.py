"""Notebook 08a (recursive chunking): how much new text a chunk holds beside its overlap, separators
that keep functions whole, and why overlap adds so little on top of the cascade."""

from __future__ import annotations

import ast

from ..core import ParameterError
from ..evaluation.metrics import excerpts_kept_whole
from ..formats.corpus import list_documents, load_document, load_questions
from ..strategies import FixedSizeChunker, RecursiveChunker
from ..strategies.recursive import LEVELS
from . import ExerciseFailed, exercise, pick

#: ``(chunk_size, chunk_overlap)`` cases of exercise 1, chunked on the article.
_BUDGET_CASES = [(200, 40), (400, 80), (800, 200)]


def _largest_new_text(size: int, overlap: int) -> int:
    """The most new text (after the previous chunk's end, stripped) one chunk of the article holds."""
    text = load_document("article").text
    chunks = RecursiveChunker(chunk_size=size, chunk_overlap=overlap)(text)
    return max(len(text[max(c.start, p.end) : c.end].strip()) for p, c in zip(chunks, chunks[1:]))


def solution_new_text_limit(s: int, o: int) -> int:
    return s - o


@exercise("08a.1", "the overlap budget", "implement", solution=solution_new_text_limit,
          wrong=(lambda: lambda s, o: s, lambda: lambda s, o: s - o - 1, lambda: lambda s, o: s - 2 * o))
def check_new_text_limit(rule) -> str:
    """`rule(s, o)` must bound the new text of every chunk, and be reached on the article."""
    for size, overlap in _BUDGET_CASES:
        limit, largest = rule(size, overlap), _largest_new_text(size, overlap)
        if largest > limit:
            raise ExerciseFailed(
                f"with chunk_size={size}, chunk_overlap={overlap} a chunk of the article holds {largest} characters "
                f"of new text, more than your limit {limit}. Hint: to how many characters are the pieces cut "
                "before the overlap is put in front?")
        if largest < limit:
            raise ExerciseFailed(
                f"with chunk_size={size}, chunk_overlap={overlap} your limit is {limit}, but no chunk of the article "
                f"holds more than {largest} characters of new text. Hint: the overlap is at most chunk_overlap "
                "characters, and the whole chunk must fit in chunk_size.")
    return "on the article, the largest new part of a chunk is exactly that, for all three settings."


#: Exercise 2's Python module: six functions, each with blank lines inside.
MODULE = "\n\n".join(
    f'def step_{i}(readings):\n    """Step {i} of the cleaning pipeline."""\n'
    f"    kept = [r for r in readings if r is not None]\n\n"
    f"    # scale, then clip to the sensor range\n    scaled = [r * {i + 1} for r in kept]\n\n"
    f"    return [min(max(r, 0), 100) for r in scaled]"
    for i in range(6)
)


def split_functions(separators) -> list[str]:
    """The functions of `MODULE` that no chunk of ``RecursiveChunker(chunk_size=400, separators=...)``
    holds whole (the first ten characters of each)."""
    chunks = RecursiveChunker(chunk_size=400, separators=tuple(separators))(MODULE)
    lines = [0, *(i + 1 for i, ch in enumerate(MODULE) if ch == "\n"), len(MODULE) + 1]
    spans = [(lines[n.lineno - 1], lines[n.end_lineno] - 1) for n in ast.parse(MODULE).body]
    return [MODULE[s : s + 10] for s, e in spans if not any(c.start <= s and e <= c.end for c in chunks)]


def solution_separators() -> tuple[str, ...]:
    return ("\ndef ", "paragraph", "line", "word")


@exercise("08a.2", "separators for code", "predict", solution=solution_separators,
          wrong=(lambda: LEVELS, lambda: ("def ", "paragraph", "line", "word"), lambda: ("line", "word"),
                 lambda: ("\ndef ", "paragraphs", "lines", "words")))
def check_separators(separators) -> str:
    """A `separators` tuple with which every function of `MODULE` lies whole in one chunk."""
    if isinstance(separators, str) or not all(isinstance(s, str) and s for s in separators):
        raise ExerciseFailed("answer with a tuple of non-empty strings, e.g. ('paragraph', 'line', 'word')")
    try:
        split = split_functions(separators)
    except ParameterError as error:
        raise ExerciseFailed(f"{error}. Hint: the level names are {', '.join(LEVELS)}.") from None
    if split:
        raise ExerciseFailed(
            f"{len(split)} functions are still split across chunks: {split}. Hint: a blank line inside a function "
            "is as strong as one between functions. Which line starts every function, and which side of a "
            "literal separator does the cut go? (A literal that begins with a line break starts the piece after "
            "it; any other literal ends the piece before it.)")
    return f"all six functions are whole; the default cascade splits {len(split_functions(LEVELS))} of them."


#: Exercise 3's explanations of why overlap adds so little to the recursive cascade.
OVERLAP_CHOICES = {
    "A": "With overlap, the chunks grow past chunk_size by the length of the strip, and the budget then cuts "
         "the oversized chunks at their end.",
    "B": "BM25 indexes repeated text only once per document, so the overlapping strips are invisible to it and "
         "cannot change what it ranks.",
    "C": "The cascade already cuts at paragraph and sentence ends, so few answers are cut; overlap rescues "
         "those and spends budget on repeats.",
    "D": "The overlap strip starts at an arbitrary character, often inside a word, and the broken word at its "
         "start spoils the BM25 match for that chunk.",
}
_OVERLAP_HINTS = {
    "A": "the size contract holds with overlap: pieces are cut to chunk_size - chunk_overlap to leave room.",
    "B": "every chunk is indexed on its own, overlap and all: the strip is indexed twice, not once.",
    "D": "the strip starts at the strongest boundary inside it: a paragraph, line, sentence or word start.",
}


def solution_overlap_choice() -> str:
    return "C"


@exercise("08a.3", "why does overlap add so little?", "explain", solution=solution_overlap_choice,
          wrong=(lambda: "A", lambda: "B", lambda: "D"))
def check_overlap_choice(choice) -> str:
    """One letter of `OVERLAP_CHOICES`."""
    pick(choice, OVERLAP_CHOICES, _OVERLAP_HINTS, solution_overlap_choice())
    docs = [load_document(name) for name in list_documents("test")]
    questions = load_questions(split="test")
    whole = {label: excerpts_kept_whole(chunker, docs, questions) for label, chunker in
             [("fixed 600", FixedSizeChunker()), ("recursive 600", RecursiveChunker()),
              ("recursive 600, overlap 100", RecursiveChunker(chunk_overlap=100))]}
    return "golden excerpts of the test set lying whole in some chunk: " + ", ".join(
        f"{label} {share:.0%}" for label, share in whole.items()) + "."
