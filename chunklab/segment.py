"""Text primitives with exact offsets: words, sentences, paragraphs, lines.

Every function returns ``list[tuple[int, int]]``: half-open character spans into the text it was
given, in order, never overlapping, trimmed of surrounding whitespace. Strategies build on these,
and the statistics use them to count how many words or sentences a chunking cuts.
"""

from __future__ import annotations

import re
from typing import Iterable, Literal, Sequence

from .spans import containing

__all__ = [
    "SentenceMethod",
    "cut_spans",
    "line_spans",
    "paragraph_spans",
    "sentence_spans",
    "trim_span",
    "word_spans",
]

SentenceMethod = Literal["regex", "punkt", "spacy"]

_WORD = re.compile(r"\S+")
_PARAGRAPH_BREAK = re.compile(r"\r?\n[ \t\f\v]*(?:\r?\n[ \t\f\v]*)+")
_LINE = re.compile(r"[^\r\n]+")
# A sentence may end at terminal punctuation, optionally followed by closing quotes/brackets,
# when whitespace follows.
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)")
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof st jr sr inc ltd co corp vs etc e.g i.e no fig approx cf al u.s u.k "
    "jan feb mar apr jun jul aug sep sept oct nov dec a.m p.m dept est vol".split()
)


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink ``[start, end)`` past leading and trailing whitespace (may become empty)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def word_spans(text: str) -> list[tuple[int, int]]:
    """Whitespace-delimited tokens ("words" in the sense of a fixed-size word chunker)."""
    return [m.span() for m in _WORD.finditer(text)]


def line_spans(text: str) -> list[tuple[int, int]]:
    """Non-blank lines, trimmed (handles LF and CRLF)."""
    spans = (trim_span(text, *m.span()) for m in _LINE.finditer(text))
    return [(s, e) for s, e in spans if s < e]


def paragraph_spans(text: str) -> list[tuple[int, int]]:
    """Blocks separated by one or more blank lines, trimmed."""
    spans, start = [], 0
    for m in _PARAGRAPH_BREAK.finditer(text):
        spans.append(trim_span(text, start, m.start()))
        start = m.end()
    spans.append(trim_span(text, start, len(text)))
    return [(s, e) for s, e in spans if s < e]


def sentence_spans(text: str, method: SentenceMethod = "regex") -> list[tuple[int, int]]:
    """Sentences of `text` by one of three splitters.

    * ``"regex"``: terminal punctuation followed by whitespace, except after a known abbreviation
      or before a lowercase letter. Fast, dependency-free, fooled by unknown abbreviations.
    * ``"punkt"``: NLTK's Punkt with its trained English parameters (loaded offline).
    * ``"spacy"``: spaCy's rule-based sentencizer on a blank English pipeline.
    """
    if method == "regex":
        return _regex_sentences(text)
    if method == "punkt":
        from .resources import punkt_tokenizer

        spans: Iterable[tuple[int, int]] = punkt_tokenizer().span_tokenize(text)
    elif method == "spacy":
        from .resources import spacy_sentencizer

        nlp = spacy_sentencizer()
        nlp.max_length = max(nlp.max_length, len(text) + 1)
        spans = ((s.start_char, s.end_char) for s in nlp(text).sents)
    else:
        raise ValueError(f"sentence method must be one of ['regex', 'punkt', 'spacy'], got {method!r}")
    trimmed = (trim_span(text, s, e) for s, e in spans)
    return [(s, e) for s, e in trimmed if s < e]


def _regex_sentences(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        end = m.end()
        if _is_abbreviation(text, m.start()) or _next_is_lowercase(text, end):
            continue
        spans.append(trim_span(text, start, end))
        start = end
    spans.append(trim_span(text, start, len(text)))
    return [(s, e) for s, e in spans if s < e]


def _is_abbreviation(text: str, dot: int) -> bool:
    """Is the punctuation at `dot` the period of an abbreviation like "Dr." or "e.g."?"""
    if text[dot] != ".":
        return False
    word_start = dot
    while word_start > 0 and not text[word_start - 1].isspace() and text[word_start - 1] not in "(\"'“‘":
        word_start -= 1
    word = text[word_start:dot].lower()
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def _next_is_lowercase(text: str, end: int) -> bool:
    pos = end
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos < len(text) and text[pos].islower()


def cut_spans(spans: Sequence[tuple[int, int]], boundaries: Iterable[int]) -> int:
    """How many of `spans` have at least one boundary strictly inside them.

    `spans` must be sorted and non-overlapping (as every function here returns). A boundary is a
    chunk start or end offset; a boundary at a span's edge does not cut it.
    """
    hit = containing(spans, boundaries)
    return len(set(hit[hit >= 0].tolist()))
