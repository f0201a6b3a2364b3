"""Notebook 10 (token chunking): the largest chunk MiniLM reads whole, where its reading stops, and
why a CSV file spends so many tokens."""

from __future__ import annotations

import numbers

from ..formats.corpus import load_document
from ..models.resources import MINILM_MAX_TOKENS
from ..strategies import TokenChunker
from ..evaluation import truncation
from ..evaluation.truncation import MINILM_SPECIAL_TOKENS, model_token_count, unread_chars
from ..text.length import token_spans
from . import ExerciseFailed, exercise, pick, refuse_library


def _overflowing(size: int, text: str) -> int:
    """How many `size`-token chunks of `text` fill more than MiniLM's 256 positions."""
    return sum(model_token_count(c.text) > MINILM_MAX_TOKENS for c in TokenChunker(chunk_size=size)(text))


def solution_safe_size() -> int:
    return MINILM_MAX_TOKENS - 2  # 256 positions, two of them taken by [CLS] and [SEP]


@exercise("10.1", "the largest chunk MiniLM reads whole", "predict", solution=solution_safe_size,
          wrong=(lambda: 256, lambda: 512, lambda: 128, lambda: 255.0, lambda: 254.5, lambda: "254"))
def check_safe_size(size) -> str:
    """`size` must be the largest `chunk_size` of a MiniLM `TokenChunker` whose chunks all fit."""
    if isinstance(size, bool) or not isinstance(size, numbers.Real) or size != int(size) or size < 1:
        raise ExerciseFailed(f"answer with a positive whole number (a chunk_size in tokens), got {size!r}")
    size = int(size)
    best = solution_safe_size()
    if size > best:
        raise ExerciseFailed(
            f"a chunk of {size} tokens fills {size + MINILM_SPECIAL_TOKENS} positions of the model's window once "
            f"it is wrapped for the model. Hint: the window is {MINILM_MAX_TOKENS} positions (models.resources."
            "MINILM_MAX_TOKENS), and the model adds tokens of its own around every input."
        )
    if size < best:
        raise ExerciseFailed(f"chunks of {size} tokens are read whole, but so are chunks of {size + 1}: the "
                             "exercise asks for the largest. Hint: count what the model adds to every input.")
    sample = load_document("article").text[:8000]
    return (f"on the first 8,000 characters of the article, {best}-token chunks overflow the window "
            f"{_overflowing(best, sample)} times, {best + 1}-token chunks {_overflowing(best + 1, sample)} times.")


def solution_read_to(text: str) -> int:
    spans = token_spans(text, "minilm")
    room = MINILM_MAX_TOKENS - 2  # [CLS] and [SEP] take two positions
    return len(text) if len(spans) <= room else spans[room - 1][1]


def _read_to_cases() -> list[tuple[str, str]]:
    """``(label, text)`` cases: short and long prose, a CSV slice, and texts of exactly 254 and 255 tokens."""
    article, stations = load_document("article").text, load_document("stations").text
    spans = token_spans(article[:4000], "minilm")
    return [
        ("one sentence of the article", article[:120]),
        ("4,000 characters of the article", article[:4000]),
        ("2,000 characters of the stations CSV", stations[:2000]),
        ("a text of exactly 254 tokens", article[: spans[253][1]]),
        ("a text of exactly 255 tokens", article[: spans[254][1]]),
    ]


def _reading_with_room(room: int):
    """A wrong `read_to` that leaves `room` positions for the text (the model leaves 254)."""
    def read_to(text: str) -> int:
        spans = token_spans(text, "minilm")
        return len(text) if len(spans) <= room else spans[room - 1][1]
    return read_to


@exercise("10.2", "where does MiniLM stop reading?", "implement", solution=solution_read_to,
          wrong=(lambda: _reading_with_room(256), lambda: _reading_with_room(255),
                 lambda: lambda text: min(len(text), 4 * 254), lambda: lambda text: len(text) - unread_chars(text)))
def check_read_to(candidate) -> str:
    """`candidate(text)` must give the offset where MiniLM's reading of `text` ends, on every case,
    without calling the library's truncation helpers."""
    candidate = refuse_library(candidate, truncation, what="truncation helpers")
    for label, text in _read_to_cases():
        got, expected = candidate(text), len(text) - unread_chars(text)
        if got != expected:
            raise ExerciseFailed(
                f"on {label} ({len(text)} characters) your function says the model reads up to character {got}, "
                f"it reads up to {expected}. Hint: use token_spans(text, 'minilm'); how many of the 256 positions "
                "are left for the text's own tokens, and what if the text has fewer tokens than that?"
            )
    return f"it agrees with unread_chars on all {len(_read_to_cases())} cases, the 254- and 255-token texts included."


#: Exercise 3's explanations of why the stations CSV holds so few characters per token.
CSV_CHOICES = {
    "A": "The header line is repeated in front of every row by the tokenizer, so the column names are counted "
         "again for each record.",
    "B": "The CSV file holds more whitespace than prose does, between its fields and at its line ends, and "
         "every single space costs the tokenizer a token.",
    "C": "The tokenizers lower-case the text first, so the upper-case station codes become unknown tokens "
         "spelled out letter by letter.",
    "D": "Each comma, hyphen and decimal point is a token, numbers are cut into pieces of a few digits, and "
         "prose spends one token a word.",
}
_CSV_HINTS = {
    "A": "print the first lines of load_document('stations').text: the header is there once.",
    "B": "WordPiece drops whitespace (it only splits there), and cl100k glues a space to the word after it. "
         "Look at the tokens of one row: token_spans(row, 'minilm').",
    "C": "cl100k keeps case and finds the same outlier; tokenize one row and look at which pieces are short.",
}


def solution_csv_choice() -> str:
    return "D"


@exercise("10.3", "why does a CSV file cost so many tokens?", "explain", solution=solution_csv_choice,
          wrong=(lambda: "A", lambda: "B", lambda: "C"))
def check_csv_choice(choice) -> str:
    """One letter of `CSV_CHOICES`."""
    pick(choice, CSV_CHOICES, _CSV_HINTS, solution_csv_choice())
    row = load_document("stations").text.splitlines()[1]
    pieces = [row[s:e] for s, e in token_spans(row, "minilm")]
    return f"one row, {len(row)} characters, is {len(pieces)} MiniLM tokens: {' '.join(pieces[:14])} ..."
