"""Packing whole units (sentences, paragraphs, rows) into chunks that respect a size limit.

Two operations every unit-based strategy shares:

* `pack` joins consecutive units greedily while the joined span still measures at most `limit`,
  optionally repeating the last few units of a chunk at the start of the next (overlap in whole
  units);
* `fit` cuts one span that is too big at word boundaries (the fixed-size rule), and inside a word
  only when a single word is bigger than the limit.

Sizes are measured by any ``measure(text) -> int`` (see `chunklab.text.length`) on the exact joined
source span, whitespace between units included, so the limit holds for the text a chunk really has.
To stay fast with a tokenizer as the measure, the largest piece that fits is found by a galloping
search (a few measurements per chunk) instead of one measurement per unit; this assumes a longer
span never measures less than a shorter one that it contains, which holds for characters, words and
tokens. When the measure is ``len`` itself, the largest piece that fits is found by a binary search
over the units' end offsets instead, without slicing the text.
"""

from __future__ import annotations

import bisect
import re
from typing import Callable, Sequence

from .length import span_measure
from .spans import trim_span
from .words import CJK_CHARACTERS, WORD, word_spans

__all__ = ["fit", "last_fitting", "pack"]

Measure = Callable[[str], int]

# For `fit` in characters: from a word start, the last word end in a window (greedy, then backtrack
# to a non-space followed by a space, or to either side of a CJK character, each a word of its own),
# the end of the current word, the next word start.
_LAST_WORD_END = re.compile(rf"[\s\S]*(?:\S(?=\s)|[{CJK_CHARACTERS}](?=\S)|\S(?=[{CJK_CHARACTERS}]))")
_NON_SPACE = re.compile(r"\S")


def last_fitting(first: int, last: int, fits: Callable[[int], bool], guess: int) -> int:
    """The largest ``j`` in ``[first, last]`` with ``fits(j)``, given that ``fits(first)`` holds and
    `fits` is monotone (True up to some point, then False). Gallops from `guess`."""
    guess = min(max(guess, first), last)
    if fits(guess):
        low, step = guess, 1
        while low < last:
            probe = min(low + step, last)
            if not fits(probe):
                high = probe
                break
            low, step = probe, step * 2
        else:
            return low
    else:
        high, step = guess, 1
        low = first
        while True:
            probe = max(high - step, first)
            if probe == first or fits(probe):
                low = probe
                break
            high, step = probe, step * 2
    while high - low > 1:  # fits(low) and not fits(high)
        middle = (low + high) // 2
        if fits(middle):
            low = middle
        else:
            high = middle
    return low


def fit(text: str, start: int, end: int, limit: int, measure: Measure = len) -> list[tuple[int, int]]:
    """Cut ``text[start:end]`` into trimmed pieces that each measure at most `limit`.

    Pieces end at word boundaries (whitespace); a single word that alone measures more than `limit`
    is cut inside itself, at the last character that still fits. A single character that alone
    measures more than `limit` (a byte-level BPE can spend four tokens on one emoji) is kept whole:
    that is the only case in which a piece exceeds the limit.
    """
    if limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    start, end = trim_span(text, start, end)
    if start >= end:
        return []
    if measure is len:
        return [(start, end)] if end - start <= limit else _fit_chars(text, start, end, limit)
    size = span_measure(text, measure)
    if size(start, end) <= limit:
        return [(start, end)]
    words = [(start + s, start + e) for s, e in word_spans(text[start:end])]
    pieces: list[tuple[int, int]] = []
    i, guess = 0, 1
    while i < len(words):
        head = words[i][0]
        if size(head, words[i][1]) > limit:
            pieces.extend(_cut_word(text, *words[i], limit, measure))
            i += 1
            continue
        j = last_fitting(i, len(words) - 1, lambda j: size(head, words[j][1]) <= limit, i + guess - 1)
        pieces.append((head, words[j][1]))
        guess = j - i + 1
        i = j + 1
    return pieces


def _fit_chars(text: str, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    """`fit` measured in characters, found by scanning the text instead of listing its words.

    ``start`` and ``end - 1`` are non-space. Same pieces as the general path: the most whole words
    that fit, or a word longer than `limit` cut into runs of `limit` characters.
    """
    pieces: list[tuple[int, int]] = []
    head = start
    while end - head > limit:
        # A window of limit + 1 characters, so that a word ending exactly at head + limit is seen
        # to end (the character after it is whitespace).
        last = _LAST_WORD_END.match(text, head, head + limit + 1)
        if last is not None:
            pieces.append((head, last.end()))
            stop = last.end()
        else:  # the first word alone is longer than the limit
            stop = WORD.match(text, head, end).end()  # type: ignore[union-attr]  # a word starts at head
            pieces.extend((s, min(s + limit, stop)) for s in range(head, stop, limit))
        following = _NON_SPACE.search(text, stop, end)
        if following is None:
            return pieces
        head = following.start()
    pieces.append((head, end))
    return pieces


def _cut_word(text: str, start: int, end: int, limit: int, measure: Measure) -> list[tuple[int, int]]:
    """A word bigger than `limit`, cut into character runs that fit (at least one character each)."""
    pieces, guess = [], limit
    while start < end:
        head = start
        stop = last_fitting(head + 1, end, lambda e: e == head + 1 or measure(text[head:e]) <= limit, head + guess)
        pieces.append((head, stop))
        guess, start = stop - head, stop
    return pieces


def pack(
    text: str,
    units: Sequence[tuple[int, int]],
    limit: int,
    measure: Measure = len,
    overlap: int = 0,
) -> list[tuple[int, int, int, int]]:
    """Join consecutive `units` into chunks that measure at most `limit`.

    `units` are sorted, non-overlapping spans (sentences, say). A chunk is the span from its first
    unit's start to its last unit's end. Each chunk after the first starts with the last `overlap`
    units of the previous one (fewer if the chunk would not fit otherwise, and never all of them,
    so chunking always moves forward). A unit that alone measures more than `limit` is cut by `fit`
    into pieces of its own, with no overlap around them.

    Returns ``(start, end, first_unit, last_unit)`` per chunk, the unit indices inclusive (a piece of
    a cut unit has ``first_unit == last_unit`` == that unit).
    """
    if limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    if overlap < 0:
        raise ValueError(f"overlap must be >= 0, got {overlap}")
    chunks: list[tuple[int, int, int, int]] = []
    n, i, guess = len(units), 0, 1
    ends = [end for _, end in units] if measure is len else None
    size = span_measure(text, measure)
    while i < n:
        head = units[i][0]
        if size(head, units[i][1]) > limit:
            chunks.extend((s, e, i, i) for s, e in fit(text, *units[i], limit, measure))
            i += 1
            continue
        if ends is not None:
            j = bisect.bisect_right(ends, head + limit, i) - 1
        else:
            j = last_fitting(i, n - 1, lambda j: size(head, units[j][1]) <= limit, i + guess - 1)
        chunks.append((head, units[j][1], i, j))
        guess = j - i + 1
        if j == n - 1:
            break
        nxt = j + 1
        if overlap and size(*units[nxt]) <= limit:
            carried = max(i + 1, j + 1 - overlap)  # keep at least one new unit: always progress
            while carried <= j and size(units[carried][0], units[nxt][1]) > limit:
                carried += 1
            nxt = carried
        i = nxt
    return chunks
