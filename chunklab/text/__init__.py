"""Text primitives with exact offsets: spans, words, lines, paragraphs, sentences, sizes and packing.

Every span function returns sorted, non-overlapping, trimmed ``(start, end)`` spans into the text it
is given. Strategies build on these; nothing here knows about document formats or chunkers.
"""

from .length import (
    SizeUnit,
    TokenizerLike,
    TokenizerName,
    count_tokens,
    count_words,
    length_function,
    span_measure,
    token_spans,
)
from .pack import fit, pack
from .paragraphs import line_spans, paragraph_spans
from .sentences import SENTENCE_METHODS, SentenceMethod, sentence_spans
from .spans import CharCounter, Span, containing, cut_spans, intersection, trim_span, union
from .words import word_spans

__all__ = [
    "SENTENCE_METHODS",
    "CharCounter",
    "SentenceMethod",
    "SizeUnit",
    "Span",
    "TokenizerLike",
    "TokenizerName",
    "containing",
    "count_tokens",
    "count_words",
    "cut_spans",
    "fit",
    "intersection",
    "length_function",
    "line_spans",
    "pack",
    "paragraph_spans",
    "sentence_spans",
    "span_measure",
    "token_spans",
    "trim_span",
    "union",
    "word_spans",
]
