"""Unit tests of span arithmetic."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from chunklab.text.spans import CharCounter, containing, intersection, union

spans_st = st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)).map(sorted).map(tuple), max_size=12)


def chars(spans) -> set[int]:
    return {i for s, e in spans for i in range(s, e)}


@given(spans_st, spans_st)
def test_union_and_intersection_match_character_sets(a, b) -> None:
    ua, ub = union(a), union(b)
    assert chars(ua) == chars(a)
    assert all(e1 < s2 for (_, e1), (s2, _) in zip(ua, ua[1:])), "merged spans neither touch nor overlap"
    assert chars(intersection(ua, ub)) == chars(a) & chars(b)


def test_containing_is_strict() -> None:
    spans = [(0, 5), (6, 10)]
    assert containing(spans, [0, 3, 5, 6, 7, 10, 11]).tolist() == [-1, 0, -1, -1, 1, -1, -1]
    assert containing([], np.array([1, 2])).tolist() == [-1, -1]


def test_char_counter_skips_whitespace_when_given_text() -> None:
    text = "ab cd\n ef"
    assert CharCounter()(2, 7) == 5
    assert CharCounter(text)(2, 7) == 2  # " cd\n " holds two non-space characters
    assert CharCounter(text).total([(0, 4), (3, 9)]) == 6


def test_char_counter_agrees_with_str_isspace() -> None:
    assert not any(chr(c).isspace() for c in range(0x3001, 0x110000))  # so the low code points are all to test
    text = "".join(map(chr, range(0x3100)))
    assert CharCounter(text)(0, len(text)) == sum(not c.isspace() for c in text)
    odd = "a\x1cb\u3000c\u2028d\x85e\ud800f"  # separators, ideographic space, NEL, a lone surrogate
    assert CharCounter(odd)(0, len(odd)) == 7
