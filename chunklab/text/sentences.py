"""Sentences with exact offsets, by one of several splitters.

`sentence_spans` returns ``list[tuple[int, int]]``: half-open character spans into the text it was
given, in order, never overlapping, trimmed of surrounding whitespace. Strategies build on them,
and the statistics use them to count how many sentences a chunking cuts.
"""

from __future__ import annotations

import bisect
import re
import typing
from typing import Annotated, Any, Iterable, Iterator, Literal, Sequence

from ..caches import PER_PIECE, PER_TEXT, cached
from ..constraints import Param
from .language import LANGUAGES, detect_language
from .pack import pack
from .paragraphs import paragraph_spans
from .regex_sentences import regex_sentences
from .sentence_rules import RULES
from .spans import trim_span

__all__ = [
    "METHOD_LANGUAGES",
    "SENTENCE_LANGUAGES",
    "SENTENCE_METHODS",
    "SentenceLanguage",
    "SentenceMethod",
    "SentenceSplitterParam",
    "sentence_blocks",
    "sentence_spans",
]

SentenceMethod = Literal["regex", "pysbd", "punkt", "spacy", "spacy_model"]
#: The declaration of a chunker's ``sentence_splitter`` parameter (``sentence_splitter:
#: SentenceSplitterParam = "regex"``): `explore`'s stats line counts the sentences of the splitter
#: chosen (the option of the same name of `chunklab.viz.chunks.render_html`).
SentenceSplitterParam = Annotated[SentenceMethod, Param(view_option="sentence_splitter")]
#: The sentence splitters `sentence_spans` offers, fastest first.
SENTENCE_METHODS: tuple[str, ...] = typing.get_args(SentenceMethod)
SentenceLanguage = Literal["auto", "en", "de", "fr", "es", "it", "pt", "nl", "ru", "zh", "ja"]
#: The values of `sentence_spans`'s ``language``: ``"auto"`` (detected) or a language code.
SENTENCE_LANGUAGES: tuple[str, ...] = typing.get_args(SentenceLanguage)
#: The languages each method has rules or trained parameters for (pySBD has no Portuguese; NLTK's
#: Punkt parameters and spaCy's pipelines here are English).
METHOD_LANGUAGES: dict[str, tuple[str, ...]] = {
    "regex": LANGUAGES,
    "pysbd": tuple(lang for lang in LANGUAGES if lang != "pt"),
    "punkt": ("en",),
    "spacy": ("en",),
    "spacy_model": ("en",),
}

# A list item's marker: a bullet (with its number: "• 9."), a number ("1." "2)") or a letter in
# brackets ("(a)").
_LIST_MARKER = re.compile(r"[ \t]*(?:[-*+•](?:[ \t]+\d{1,3}[.)])?|\d{1,3}[.)]|\([a-zA-Z0-9]{1,3}\))\s")
# A line that opens like a list item, a table row, a heading, a quote, a chat line ("[14:02] ..."),
# a banner ("=== Ticket ... ===") or a reply in dialogue ("— Oui.") starts a unit of its own, with or
# without final punctuation.
_UNIT_LINE = re.compile(
    rf"{_LIST_MARKER.pattern}|[ \t]*(?:\||#{{1,6}}\s|>|\[\d{{1,2}}:\d{{2}}(?::\d{{2}})?\]|={{2,}}[ \t]+\S|[—–]\s)"
)
# A line break before a line that may open a unit (checked again within its paragraph, whose end a
# match must not pass), and one before a line that is not indented.
_UNIT_AFTER_BREAK = re.compile(rf"\n(?={_UNIT_LINE.pattern})")
_FLUSH_LINE = re.compile(r"\n(?=\S)")
# The trained pipeline parses long blocks in windows of whole regex sentences of at most this many
# characters: its memory grows with the length of a parsed text.
_MODEL_WINDOW = 20_000


def sentence_blocks(text: str) -> list[tuple[int, int]]:
    """The stretches of `text` that no sentence crosses, trimmed, in order.

    Paragraphs (blank lines between them, unless the break holds a form feed: text flows on across
    a page break) are cut again at line breaks around list items, table rows, headings, quotes, chat
    lines, banners and lines of dialogue: before every line that opens like one (``-``, ``1.``,
    ``(a)``, ``===`` or ``—`` and a space; ``|``, ``#``, ``>``, ``[14:02]``), and after such a unit when the next
    line is not indented (an indented line continues the item). Other lines stay together, so
    hard-wrapped prose is not cut at its line ends (and neither is a heading that has no final
    punctuation and no marker: nothing marks it).
    """
    # Every line that may open a unit, found in one scan of the text; a paragraph with none (and
    # not opening one itself) is one block, and the others are read from one unit to the next.
    units = [m.end() for m in _UNIT_AFTER_BREAK.finditer(text)]
    blocks: list[tuple[int, int]] = []
    k = 0
    for start, end in _flowing_paragraphs(text):
        k = bisect.bisect_right(units, start, k)
        in_item = _UNIT_LINE.match(text, start, end) is not None
        if in_item or (k < len(units) and units[k] < end):
            blocks.extend(_unit_blocks(text, start, end, units, k, in_item))
        else:
            blocks.append((start, end))  # paragraphs are trimmed already
    return blocks


def _unit_blocks(
    text: str, start: int, end: int, units: list[int], k: int, in_item: bool
) -> Iterator[tuple[int, int]]:
    """The blocks of one paragraph ``text[start:end]`` (see `sentence_blocks`), cut at line starts:
    one that opens a unit (among `units` from index `k` on, checked within the paragraph), and
    while `in_item`, the next one that is not indented. Non-empty, trimmed."""
    head = pos = start
    while True:
        while k < len(units) and units[k] < end and (units[k] <= pos or not _UNIT_LINE.match(text, units[k], end)):
            k += 1
        opening = units[k] if k < len(units) and units[k] < end else end
        flush = _FLUSH_LINE.search(text, pos, opening) if in_item else None
        cut = flush.end() if flush else opening
        if cut == end:
            break
        block = trim_span(text, head, cut - 1)  # the line break before the cut ("\r\n" trims too)
        if block[0] < block[1]:
            yield block
        head = pos = cut
        in_item = cut == opening
    block = trim_span(text, head, end)
    if block[0] < block[1]:
        yield block


def _flowing_paragraphs(text: str) -> list[tuple[int, int]]:
    """`paragraph_spans`, joined again across breaks that hold a form feed (a page break)."""
    joined: list[tuple[int, int]] = []
    for start, end in paragraph_spans(text):
        if joined and "\f" in text[joined[-1][1] : start]:
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((start, end))
    return joined


def sentence_spans(
    text: str, method: SentenceMethod = "regex", language: SentenceLanguage = "auto", cache: bool = True
) -> list[tuple[int, int]]:
    """Sentences of `text` by one of five splitters, inside the `sentence_blocks` of the text.

    Every splitter first cuts the text into `sentence_blocks` (blank lines that are not page
    breaks; lines that start a list item, a table row, a heading...), so a heading or a bullet
    without final punctuation is never glued to the next sentence, and a table row is one unit;
    then it splits each block:

    * ``"regex"``: terminal punctuation (``。！？`` too, without a space after it) and what follows
      it, judged by a few rules and a table of abbreviation classes per language (titles, units,
      months, company suffixes, times, Latin...), with inline list items as units; see
      `chunklab.text.regex_sentences` and `chunklab.text.sentence_rules`. Fast, dependency-free.
    * ``"pysbd"``: pySBD's rule-based segmenter (a port of the Pragmatic Segmenter) with its
      character spans, trimmed; it reads a list item with its marker (pySBD has list rules of its
      own), so on text without table rows it gives exactly pySBD's sentences; text its spans leave out (pySBD sometimes cannot find a sentence
      it rewrote again) stays with the sentence before it.
    * ``"punkt"``: NLTK's Punkt with its trained English parameters (loaded offline); it learned
      which words are abbreviations and which words tend to start sentences. English only.
    * ``"spacy"``: spaCy's rule-based sentencizer on a blank English pipeline (punctuation rules).
      English only.
    * ``"spacy_model"``: the dependency parser of the trained English pipeline
      (`chunklab.models.resources.spacy_ner`, only its ``tok2vec`` and ``parser`` run), which places a
      boundary where a parse tree ends. The slowest by two orders of magnitude. Blocks are parsed
      in batches, long ones in windows of whole regex sentences of at most 20,000 characters.
      English only.

    `language` is one of `SENTENCE_LANGUAGES`: a code picks that language's rules; ``"auto"`` (the
    default) detects it with `chunklab.text.language.detect_language` (a cheap look at the first
    2,000 characters). ``"regex"`` has rules for all ten languages, ``"pysbd"`` for all but
    Portuguese, the other three for English only (`METHOD_LANGUAGES`). Asking a method for a language
    it has no rules for raises `ValueError`; with ``"auto"`` such a method reads the text with its
    English rules (Punkt and spaCy do not even run the detector).

    Results are cached per ``(text, method, language)`` (a few dozen texts), so a slider move or a
    second chunker on the same text splits nothing again; ``cache=False`` splits afresh (for timing).
    """
    if method not in SENTENCE_METHODS:
        raise ValueError(f"sentence method must be one of {list(SENTENCE_METHODS)}, got {method!r}")
    if language not in SENTENCE_LANGUAGES:
        raise ValueError(f"sentence language must be one of {list(SENTENCE_LANGUAGES)}, got {language!r}")
    if language != "auto" and language not in METHOD_LANGUAGES[method]:
        raise ValueError(
            f"the {method!r} sentence splitter has no rules for {language!r}; it knows "
            f"{list(METHOD_LANGUAGES[method])}, the 'regex' splitter knows {list(LANGUAGES)}"
        )
    if not cache:
        return _split_sentences(text, method, language, cache=False)
    return list(_cached_sentences(text, method, language))


@cached(PER_TEXT)
def _cached_sentences(text: str, method: str, language: str) -> tuple[tuple[int, int], ...]:
    return tuple(_split_sentences(text, method, language))


def _resolve(text: str, method: str, language: str) -> str:
    """The language `method` reads `text` in: the one asked for, else the detected one if the method
    has rules for it, else English."""
    if language != "auto":
        return language
    supported = METHOD_LANGUAGES[method]
    if supported == ("en",):
        return "en"
    detected = detect_language(text)
    return detected if detected in supported else "en"


def _split_sentences(text: str, method: str, language: str, cache: bool = True) -> list[tuple[int, int]]:
    # A table row is one unit. A list item's marker ("1. ", "- ", "(a) ") is not a sentence of its
    # own: split what follows it, then give the marker back to the item's first sentence. pySBD has
    # rules of its own for list items, so it reads the marker with the item.
    rows, blocks, marker_of = [], [], {}
    for b0, b1 in sentence_blocks(text):
        if text.startswith("|", b0):
            rows.append((b0, b1))
            continue
        marker = _LIST_MARKER.match(text, b0, b1) if method != "pysbd" else None
        inner = trim_span(text, marker.end(), b1) if marker else (b0, b1)
        if marker and inner[0] < inner[1]:
            blocks.append(inner)
            marker_of[inner[0]] = b0
        else:
            blocks.append((b0, b1))
    lang = _resolve(text, method, language)
    if method == "regex":
        rules = RULES[lang]
        found: Iterable[tuple[int, int]] = (span for b in blocks for span in regex_sentences(text, *b, rules))
    elif method == "pysbd":
        found = _pysbd_sentences(text, blocks, lang, cache)
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
    spans = [(marker_of.get(s, s), e) for s, e in found]
    return sorted(spans + rows) if rows else spans


def _pysbd_sentences(
    text: str, blocks: Sequence[tuple[int, int]], language: str, cache: bool = True
) -> Iterator[tuple[int, int]]:
    """Sentence spans of each block by pySBD: each sentence runs from the start of one of pySBD's
    character spans to the start of the next (a start inside an earlier span is ignored). With
    `cache`, a block's starts are remembered by its text, so a chunker that splits a section of a
    text another one split whole (the hybrid after the sentence chunker) reads its blocks again."""
    starts_of = _pysbd_block_starts if cache else _pysbd_block_starts.__wrapped__  # type: ignore[attr-defined]
    for b0, b1 in blocks:
        bounds = [*starts_of(text[b0:b1], language), b1 - b0]
        yield from ((b0 + s, b0 + e) for s, e in zip(bounds, bounds[1:]))


@cached(PER_PIECE)
def _pysbd_block_starts(block: str, language: str) -> tuple[int, ...]:
    """Where pySBD's sentences of `block` start (0 first)."""
    from ..models.resources import pysbd_segmenter

    starts, covered = [0], 0
    for start, end in _pysbd_char_spans(block, pysbd_segmenter(language).processor(block).process()):
        if start >= covered and start > starts[-1]:
            starts.append(start)
        covered = max(covered, end)
    return tuple(starts)


def _pysbd_char_spans(text: str, sentences: Sequence[str]) -> list[tuple[int, int]]:
    """The character spans pySBD's ``Segmenter(char_span=True)`` gives its `sentences` of `text`,
    found with `str.find` where pySBD compiles one pattern per sentence (``re.escape(sentence)`` and
    the whitespace after it): for each sentence, the first of its non-overlapping occurrences,
    counted from the start of the text, that ends (trailing whitespace included) after the span
    before it ended; a sentence with no such occurrence gets no span."""
    spans, prior = [], 0
    for sentence in sentences:
        position = 0
        while (start := text.find(sentence, position)) >= 0:
            end = start + len(sentence)
            while end < len(text) and text[end].isspace():
                end += 1
            if end > prior:
                spans.append((start, end))
                prior = end
                break
            position = end if end > start else start + 1
    return spans


def _windows(text: str, blocks: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """`blocks`, with any block longer than the model's window cut between whole regex sentences."""
    out = []
    for b0, b1 in blocks:
        if b1 - b0 <= _MODEL_WINDOW:
            out.append((b0, b1))
        else:
            out.extend((s, e) for s, e, _, _ in pack(text, regex_sentences(text, b0, b1, RULES["en"]), _MODEL_WINDOW))
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
