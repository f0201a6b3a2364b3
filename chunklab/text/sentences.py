"""Sentences with exact offsets, by one of several splitters.

`sentence_spans` returns ``list[tuple[int, int]]``: half-open character spans into the text it was
given, in order, never overlapping, trimmed of surrounding whitespace. Strategies build on them,
and the statistics use them to count how many sentences a chunking cuts.
"""

from __future__ import annotations

import functools
import re
import typing
from typing import Any, Iterable, Iterator, Literal, Sequence

from .pack import pack
from .paragraphs import paragraph_spans
from .spans import trim_span

__all__ = ["SENTENCE_METHODS", "SentenceMethod", "sentence_blocks", "sentence_spans"]

SentenceMethod = Literal["regex", "punkt", "spacy", "spacy_model"]
#: The sentence splitters `sentence_spans` offers, fastest first.
SENTENCE_METHODS: tuple[str, ...] = typing.get_args(SentenceMethod)

_LINE_BREAK = re.compile(r"\r?\n")
# A list item's marker: a bullet, a number ("1." "2)") or a letter in brackets ("(a)").
_LIST_MARKER = re.compile(r"[ \t]*(?:[-*+•]|\d{1,3}[.)]|\([a-zA-Z0-9]{1,3}\))\s")
# A line that opens like a list item, a table row, a heading or a quote starts a unit of its own,
# with or without final punctuation.
_UNIT_LINE = re.compile(rf"{_LIST_MARKER.pattern}|[ \t]*(?:\||#{{1,6}}\s|>)")
# The trained pipeline parses long blocks in windows of whole regex sentences of at most this many
# characters: its memory grows with the length of a parsed text.
_MODEL_WINDOW = 20_000
# A sentence may end at terminal punctuation, optionally followed by closing quotes/brackets,
# when whitespace follows.
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)")
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof st jr sr inc ltd co corp vs etc e.g i.e no fig approx cf al u.s u.k "
    "jan feb mar apr jun jul aug sep sept oct nov dec a.m p.m dept est vol".split()
)
_LONGEST_ABBREVIATION = max(map(len, _ABBREVIATIONS))


def sentence_blocks(text: str) -> list[tuple[int, int]]:
    """The stretches of `text` that no sentence crosses, trimmed, in order.

    Paragraphs (blank lines between them, unless the break holds a form feed: text flows on across
    a page break) are cut again at line breaks around list items, table rows, headings and quotes:
    before every line that opens like one (``- ``, ``1. ``, ``(a) ``, ``|``, ``#``, ``>``), and
    after such an item when the next line is not indented (an indented line continues the item).
    Other lines stay together, so hard-wrapped prose is not cut at its line ends (and neither is a
    chat line or a heading that has no final punctuation: nothing marks it).
    """
    blocks = []
    for start, end in _flowing_paragraphs(text):
        head = start
        in_item = _UNIT_LINE.match(text, start, end) is not None
        for m in _LINE_BREAK.finditer(text, start, end):
            opens = _UNIT_LINE.match(text, m.end(), end) is not None
            if opens or (in_item and not text[m.end()].isspace()):
                blocks.append(trim_span(text, head, m.start()))
                head, in_item = m.end(), opens
        blocks.append(trim_span(text, head, end))
    return [(s, e) for s, e in blocks if s < e]


def _flowing_paragraphs(text: str) -> list[tuple[int, int]]:
    """`paragraph_spans`, joined again across breaks that hold a form feed (a page break)."""
    joined: list[tuple[int, int]] = []
    for start, end in paragraph_spans(text):
        if joined and "\f" in text[joined[-1][1] : start]:
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((start, end))
    return joined


def sentence_spans(text: str, method: SentenceMethod = "regex", cache: bool = True) -> list[tuple[int, int]]:
    """Sentences of `text` by one of four splitters, inside the `sentence_blocks` of the text.

    Every splitter first cuts the text into `sentence_blocks` (blank lines that are not page
    breaks; lines that start a list item, a table row, a heading...), so a heading or a bullet
    without final punctuation is never glued to the next sentence; then it splits each block:

    * ``"regex"``: terminal punctuation followed by whitespace, except after a known abbreviation
      or before a lowercase letter. Fast, dependency-free, fooled by unknown abbreviations and by
      abbreviations that do end a sentence ("... in the U.S. Both teams ...").
    * ``"punkt"``: NLTK's Punkt with its trained English parameters (loaded offline); it learned
      which words are abbreviations and which words tend to start sentences.
    * ``"spacy"``: spaCy's rule-based sentencizer on a blank English pipeline (punctuation rules).
    * ``"spacy_model"``: the dependency parser of the trained English pipeline
      (`chunklab.models.resources.spacy_ner`, only its ``tok2vec`` and ``parser`` run), which places a
      boundary where a parse tree ends. The slowest by two orders of magnitude. Blocks are parsed
      in batches, long ones in windows of whole regex sentences of at most 20,000 characters.

    Results are cached per ``(text, method)`` (a few dozen texts), so a slider move or a second
    chunker on the same text splits nothing again; ``cache=False`` splits afresh (for timing).
    """
    if method not in SENTENCE_METHODS:
        raise ValueError(f"sentence method must be one of {list(SENTENCE_METHODS)}, got {method!r}")
    if not cache:
        return _split_sentences(text, method)
    return list(_cached_sentences(text, method))


@functools.lru_cache(maxsize=48)
def _cached_sentences(text: str, method: str) -> tuple[tuple[int, int], ...]:
    return tuple(_split_sentences(text, method))


def _split_sentences(text: str, method: str) -> list[tuple[int, int]]:
    # A list item's marker ("1. ", "- ", "(a) ") is not a sentence of its own: split what follows
    # it, then give the marker back to the item's first sentence.
    blocks, marker_of = [], {}
    for b0, b1 in sentence_blocks(text):
        marker = _LIST_MARKER.match(text, b0, b1)
        inner = trim_span(text, marker.end(), b1) if marker else (b0, b1)
        if marker and inner[0] < inner[1]:
            blocks.append(inner)
            marker_of[inner[0]] = b0
        else:
            blocks.append((b0, b1))
    if method == "regex":
        found: Iterable[tuple[int, int]] = (span for b in blocks for span in _regex_sentences(text, *b))
    elif method == "punkt":
        from ..models.resources import punkt_tokenizer

        punkt = punkt_tokenizer()
        found = ((s + b0, e + b0) for b0, b1 in blocks for s, e in punkt.span_tokenize(text[b0:b1]))
    elif method == "spacy":
        from ..models.resources import spacy_sentencizer

        found = _spacy_sentences(text, blocks, spacy_sentencizer(), ())
    else:
        from ..models.resources import spacy_ner

        nlp = spacy_ner()
        found = _spacy_sentences(
            text, _windows(text, blocks), nlp, [p for p in nlp.pipe_names if p not in ("tok2vec", "parser")]
        )
    if method != "regex":  # the regex splitter's spans are trimmed and non-empty already
        found = (span for span in (trim_span(text, s, e) for s, e in found) if span[0] < span[1])
    return [(marker_of.get(s, s), e) for s, e in found]


def _windows(text: str, blocks: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """`blocks`, with any block longer than the model's window cut between whole regex sentences."""
    out = []
    for b0, b1 in blocks:
        if b1 - b0 <= _MODEL_WINDOW:
            out.append((b0, b1))
        else:
            out.extend((s, e) for s, e, _, _ in pack(text, _regex_sentences(text, b0, b1), _MODEL_WINDOW))
    return out


def _spacy_sentences(
    text: str, blocks: Sequence[tuple[int, int]], nlp: Any, disable: Sequence[str]
) -> Iterator[tuple[int, int]]:
    """Sentence spans of each block by a spaCy pipeline, blocks processed as one batch."""
    nlp.max_length = max(nlp.max_length, max((e - s for s, e in blocks), default=0) + 1)
    docs = nlp.pipe((text[s:e] for s, e in blocks), disable=list(disable), batch_size=64)
    for (b0, _), doc in zip(blocks, docs):
        for sent in doc.sents:
            yield b0 + sent.start_char, b0 + sent.end_char


def _regex_sentences(text: str, start: int, stop: int) -> list[tuple[int, int]]:
    """Regex sentences of ``text[start:stop]`` (offsets into `text`)."""
    spans = []
    for m in _SENTENCE_END.finditer(text, start, stop):
        end = m.end()
        if _is_abbreviation(text, m.start()) or _next_is_lowercase(text, end):
            continue
        spans.append(trim_span(text, start, end))
        start = end
    spans.append(trim_span(text, start, stop))
    return [(s, e) for s, e in spans if s < e]


def _is_abbreviation(text: str, dot: int) -> bool:
    """Is the punctuation at `dot` the period of an abbreviation like "Dr." or "e.g."?

    Only the last `_LONGEST_ABBREVIATION` + 1 characters before the dot are looked at: a word that
    reaches further back is longer than every abbreviation, so it is none of them."""
    if text[dot] != ".":
        return False
    word_start, limit = dot, max(0, dot - _LONGEST_ABBREVIATION - 1)
    while word_start > limit and not text[word_start - 1].isspace() and text[word_start - 1] not in "(\"'“‘":
        word_start -= 1
    word = text[word_start:dot].lower()
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def _next_is_lowercase(text: str, end: int) -> bool:
    pos = end
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos < len(text) and text[pos].islower()


