"""Words with exact offsets: the whitespace-delimited tokens a word-sized chunk counts.

A "word" here is a maximal run of non-whitespace characters, the unit of ``unit="words"`` in every
sized chunker and of the word-cut statistics.
"""

from __future__ import annotations

import re

__all__ = ["WORD", "count_words", "word_spans"]

#: One word: a maximal run of non-whitespace characters.
WORD = re.compile(r"\S+")


def word_spans(text: str) -> list[tuple[int, int]]:
    """Whitespace-delimited tokens ("words" in the sense of a fixed-size word chunker)."""
    return [m.span() for m in WORD.finditer(text)]


def count_words(text: str) -> int:
    """Whitespace-delimited words in `text` (the unit of ``unit="words"``)."""
    return sum(1 for _ in WORD.finditer(text))
