"""Words with exact offsets: the tokens a word-sized chunk counts.

A "word" here is a maximal run of non-whitespace characters, except that every Chinese or Japanese
character (a Han ideograph or a kana) is a word of its own: those languages put no spaces between
words, and a run of ideographs can be a whole paragraph. It is the unit of ``unit="words"`` in every
sized chunker, of ``snap_to_words`` and of the word-cut statistics.
"""

from __future__ import annotations

import re

__all__ = ["CJK_CHARACTERS", "WORD", "count_words", "inside_word", "word_spans"]

#: The characters that are each a word (a regex character-class body): hiragana, katakana, CJK
#: unified ideographs (with extension A) and compatibility ideographs.
CJK_CHARACTERS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"

#: One word: a CJK character, or a maximal run of other non-whitespace characters.
WORD = re.compile(rf"[{CJK_CHARACTERS}]|[^\s{CJK_CHARACTERS}]+")


def _is_cjk(char: str) -> bool:
    return "\u3040" <= char <= "\u30ff" or "\u3400" <= char <= "\u4dbf" or "\u4e00" <= char <= "\u9fff" or (
        "\uf900" <= char <= "\ufaff"
    )


def word_spans(text: str) -> list[tuple[int, int]]:
    """The words of `text` (see `WORD`): whitespace-delimited tokens, each CJK character one word."""
    return [m.span() for m in WORD.finditer(text)]


def count_words(text: str) -> int:
    """Words in `text` (the unit of ``unit="words"``; see `WORD`)."""
    return sum(1 for _ in WORD.finditer(text))


def inside_word(text: str, pos: int) -> bool:
    """Would a cut at `pos` split a word: non-space characters on both sides, neither of them a CJK
    character (a cut between two ideographs falls between two words)?"""
    if not 0 < pos < len(text):
        return False
    before, after = text[pos - 1], text[pos]
    return not (before.isspace() or after.isspace() or _is_cjk(before) or _is_cjk(after))
