"""Where another framework's chunks lie in their source: exact spans recovered from chunk texts.

A LangChain splitter returns strings, without offsets (it may strip whitespace and drop separators);
a LlamaIndex parser returns nodes whose ``start_char_idx``/``end_char_idx`` may be None. `place`
turns such a sequence of chunk texts (``pieces``) into exact spans of the source, in order, by these
rules:

1. **Given and right.** A start offered with the piece (LlamaIndex's) is kept when the source
   holds the piece verbatim there and the placement keeps source order: the chunk starts after the
   previous chunk's start, or there with a later end, and never ends before it.
2. **Verbatim.** Otherwise the piece is searched for in the source from the previous chunk's
   start (so a chunk that overlaps the previous one is found), and the first
   occurrence that keeps source order is taken; when the splitter's overlap is known
   (`overlap_fits`), an occurrence that overlaps the previous chunk by more than the splitter could
   have repeated is passed over (a repeated passage). Should that rule leave a later piece nowhere
   to go, the placement is redone without it.
3. **Covering span.** A piece that is not in the source verbatim (a splitter that rejoined its
   pieces with another separator than the one it dropped, collapsed blank lines, or decoded half a
   character as U+FFFD) is matched with whitespace ignored: the span runs from the source position
   of its first non-space character to just after its last. The same match is preferred when the
   verbatim one would leave non-space text between the chunks that the whitespace-free one does not.
   If even that fails, the longest prefix and the longest suffix of the piece (whitespace and the
   U+FFFD halves at its ends ignored) that the source holds after the previous chunk's start bound
   the span; together they must cover at least half the piece, and the span must be at most twice
   as long as the piece, else `PlacementError`.

The chunk is always the exact source slice; where it differs from the splitter's text, that text is
kept as ``metadata["splitter_text"]`` (only then). Pieces with no source text of their own are
dropped: whitespace only, or only U+FFFD halves of a character.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from ..caches import PER_TEXT, cached

__all__ = ["PlacementError", "place"]

#: What a decoder puts for a character whose bytes a token boundary cut in two.
_HALF = "\ufffd"


class PlacementError(ValueError):
    """A chunk's text could not be matched to any span of its source after the previous chunk."""


def place(
    text: str,
    pieces: Iterable[str],
    starts: Sequence[int | None] | None = None,
    overlap_fits: Callable[[str], bool] | None = None,
    metadata: Sequence[Mapping[str, Any]] | None = None,
) -> list[tuple[int, int, dict[str, Any]]]:
    """The exact spans of `pieces` (chunk texts, in order) in `text`, as ``(start, end, metadata)``
    (see the module docstring for the rules).

    `starts` gives a start offered for each piece (None where there is none); `overlap_fits(shared)`
    says whether the splitter could have repeated `shared` (the text a candidate shares with the
    previous chunk) as its overlap; `metadata` gives metadata of each piece's own, put in its
    span's metadata.
    """
    pieces = list(pieces)
    offered: list[int | None] = list(starts) if starts is not None else [None] * len(pieces)
    own = list(metadata) if metadata is not None else [{}] * len(pieces)
    if not len(offered) == len(own) == len(pieces):
        raise ValueError(f"{len(pieces)} pieces but {len(offered)} starts and {len(own)} metadata")
    try:
        return _placed(text, pieces, offered, own, overlap_fits)
    except PlacementError:
        if overlap_fits is None:
            raise
        # The overlap rule misjudged a repeated passage and left too little text for a later piece.
        return _placed(text, pieces, offered, own, None)


def _placed(
    text: str, pieces: list[str], offered: list[int | None], own: list[Mapping[str, Any]],
    overlap_fits: Callable[[str], bool] | None,
) -> list[tuple[int, int, dict[str, Any]]]:
    spans: list[tuple[int, int, dict[str, Any]]] = []
    previous = (-1, 0)
    for piece, hint, piece_metadata in zip(pieces, offered, own):
        if not piece.strip():
            continue
        span = _offered(text, piece, hint, previous) or _searched(text, piece, previous, overlap_fits)
        if span is None:
            span = _covering(text, piece, previous)
            if span is None:
                continue  # only halves of characters (U+FFFD): no source text of its own
        start, end = span
        extra = dict(piece_metadata)
        if text[start:end] != piece:
            extra["splitter_text"] = piece
        spans.append((start, end, extra))
        previous = (start, end)
    return spans


def _searched(
    text: str, piece: str, previous: tuple[int, int], overlap_fits: Callable[[str], bool] | None
) -> tuple[int, int] | None:
    """Rules 2 and 3 (whitespace ignored): the verbatim match, unless there is none or the match with
    whitespace ignored comes earlier and the verbatim one would leave text out between the chunks."""
    span = _verbatim(text, piece, previous, overlap_fits)
    if span is None or _skips_text(text, previous[1], span[0]):
        squeezed = _squeezed_match(text, piece, previous, overlap_fits)
        if squeezed is not None and (span is None or squeezed[0] < span[0]):
            return squeezed
    return span


def _in_order(start: int, end: int, previous: tuple[int, int]) -> bool:
    """Does ``[start, end)`` come after the previous chunk: a later start, or the same start and a
    later end (a chunk that repeats the previous one whole as its overlap), never an earlier end?"""
    return (start, end) > previous and end >= previous[1]


def _offered(text: str, piece: str, hint: int | None, previous: tuple[int, int]) -> tuple[int, int] | None:
    if hint is None or hint < 0:
        return None
    end = hint + len(piece)
    if text[hint:end] == piece and _in_order(hint, end, previous):
        return hint, end
    return None


def _verbatim(
    text: str, piece: str, previous: tuple[int, int], overlap_fits: Callable[[str], bool] | None
) -> tuple[int, int] | None:
    """Rule 2: the occurrences of `piece` after the previous chunk's start, chosen by `_choose`."""

    def occurrences() -> Iterator[tuple[int, int]]:
        found = text.find(piece, max(previous[0], 0))
        while found >= 0:
            yield found, found + len(piece)
            found = text.find(piece, found + 1)

    return _choose(text, occurrences(), previous, overlap_fits)


def _choose(
    text: str, candidates: Iterable[tuple[int, int]], previous: tuple[int, int],
    overlap_fits: Callable[[str], bool] | None,
) -> tuple[int, int] | None:
    """The first of `candidates` (spans by increasing start) that keeps source order and whose overlap
    with the previous chunk `overlap_fits`; failing that, the first that keeps source order."""
    inside: list[tuple[int, int]] = []  # in order, overlapping the previous chunk
    after = None
    for start, end in candidates:
        if not _in_order(start, end, previous):
            continue
        if overlap_fits is None or start >= previous[1]:
            after = (start, end)
            break
        inside.append((start, end))
    # A later start shares a suffix of what an earlier one shares, so "fits" holds from some
    # candidate on: the first that fits is found by bisection (a repeated line offers hundreds).
    low, high = 0, len(inside)
    while low < high:
        middle = (low + high) // 2
        if overlap_fits(text[inside[middle][0] : previous[1]]):  # type: ignore[misc]
            high = middle
        else:
            low = middle + 1
    if low < len(inside):
        return inside[low]
    return after or (inside[0] if inside else None)


@cached(PER_TEXT)
def _squeezed(text: str) -> tuple[str, list[int]]:
    """`text` without whitespace, and the source position of each character kept (cached per text)."""
    positions = [i for i, char in enumerate(text) if not char.isspace()]
    return "".join(text[i] for i in positions), positions


def _skips_text(text: str, previous_end: int, start: int) -> bool:
    """Does a chunk starting at `start` leave non-space text after the previous chunk unchunked?"""
    return start > previous_end and not text[previous_end:start].isspace()


def _squeezed_match(
    text: str, piece: str, previous: tuple[int, int], overlap_fits: Callable[[str], bool] | None
) -> tuple[int, int] | None:
    """Rule 3: the spans whose non-space characters are those of `piece` (without the U+FFFD halves
    at its ends), chosen by `_choose`."""
    squeezed, positions = _squeezed(text)
    wanted = _core(piece)
    if not wanted:
        return None

    def occurrences() -> Iterator[tuple[int, int]]:
        at = squeezed.find(wanted, bisect.bisect_left(positions, previous[0]))
        while at >= 0:
            yield positions[at], positions[at + len(wanted) - 1] + 1
            at = squeezed.find(wanted, at + 1)

    return _choose(text, occurrences(), previous, overlap_fits)


def _core(piece: str) -> str:
    """`piece` without whitespace and without the U+FFFD halves of a character at its ends."""
    return "".join(piece.split()).strip(_HALF)


def _covering(text: str, piece: str, previous: tuple[int, int]) -> tuple[int, int] | None:
    """The span between the longest prefix and the longest suffix of `piece` (without whitespace and
    the U+FFFD of a character decoded by halves at either end) found after the previous chunk's
    start; None if nothing is left of the piece; `PlacementError` if they cover less than half of it,
    or span more than twice its length."""
    squeezed, positions = _squeezed(text)
    wanted = _core(piece)
    if not wanted:
        return None
    origin = bisect.bisect_left(positions, previous[0])
    head, head_at = _longest_found(squeezed, wanted, origin, prefix=True)
    tail_origin = head_at + head if head else origin
    tail, tail_at = _longest_found(squeezed, wanted[head:], tail_origin, prefix=False)
    first = head_at if head else tail_at
    last = tail_at + tail - 1 if tail else head_at + head - 1
    if 2 * (head + tail) < len(wanted) or last - first >= 2 * len(wanted):
        raise PlacementError(
            f"chunk {piece[:60]!r}... is not in the source after position {previous[0]}, not even with "
            f"whitespace ignored (its longest prefix and suffix found there, {head} and {tail} of its "
            f"{len(wanted)} non-space characters, span {last - first + 1})"
        )
    return positions[first], positions[last] + 1


def _longest_found(squeezed: str, wanted: str, origin: int, prefix: bool) -> tuple[int, int]:
    """The length of the longest prefix (or suffix) of `wanted` found in `squeezed` at or after
    `origin`, and where (binary search: a part found there means every shorter one is found too)."""
    low, high, at = 0, len(wanted), origin
    while low < high:
        middle = (low + high + 1) // 2
        part = wanted[:middle] if prefix else wanted[len(wanted) - middle :]
        found = squeezed.find(part, origin)
        if found >= 0:
            low, at = middle, found
        else:
            high = middle - 1
    return low, at
