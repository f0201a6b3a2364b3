"""Sliding-window chunking: a window of `chunk_size` units moved forward `stride` units at a time."""

from __future__ import annotations

from typing import Annotated, Iterator, Literal, Sequence

from ..caches import PER_TEXT, cached
from ..constraints import Param
from ..core import Chunker, ChunkSpan, ParameterError, register
from ..text.length import (
    DEFAULT_CHUNK_SIZE,
    TokenizerLike,
    TokenizerParam,
    check_tokenizer,
    count_words,
    length_function,
    span_measure,
    token_spans,
)
from ..text.sentences import sentence_spans
from ..text.spans import trim_span
from ..text.words import word_spans

WindowUnit = Literal["chars", "words", "sentences", "tokens"]


@register
class SlidingWindowChunker(Chunker):
    """Windows of `chunk_size` units that start every `stride` units: consecutive windows share
    ``chunk_size - stride`` units.

    Where `FixedSizeChunker` asks how much overlap you want, this one asks how far the window
    steps (in characters the windows are exactly those of ``FixedSizeChunker(chunk_size=chunk_size,
    chunk_overlap=chunk_size - stride)``): ``stride == chunk_size`` gives back-to-back chunks,
    ``stride == chunk_size / 2`` puts every character in two windows, and a small stride puts it in
    ``chunk_size / stride`` windows, which multiplies the index by about as much. `stride` must not exceed `chunk_size` (a larger step would
    skip text).

    Units:

    * ``"chars"``: characters; windows are trimmed of surrounding whitespace and may cut words.
    * ``"words"``: whitespace-delimited words (`chunklab.text.words.word_spans`); words are never cut.
    * ``"sentences"``: sentences of the regex splitter (`chunklab.text.sentences.sentence_spans`).
    * ``"tokens"``: tokens of `tokenizer` (`chunklab.text.length.token_spans`); a window may start or
      end inside a word, where the tokenizer cut it.

    Windows start at unit 0, `stride`, 2·`stride`, … and the last one ends at the text's last unit.
    Size contract: every chunk holds at most `chunk_size` units, measured by `measure` on the chunk's
    own text. Re-tokenizing or re-splitting a window on its own can count a unit more than inside
    the text (a word piece at a window's edge, say); such a window gives up its last units until it
    fits. A window whose span lies inside the previous chunk's (possible at the very end) is dropped.

    Metadata: ``window_start_unit`` (index of the window's first unit), and ``token_count`` when
    `unit` is ``"tokens"``.
    """

    name = "sliding_window"

    def __init__(
        self,
        *,
        chunk_size: Annotated[int, Param(low=1, slider=(20, 2000, 10), counted_in_unit=True)] = DEFAULT_CHUNK_SIZE,
        stride: Annotated[int, Param(low=1, slider=(10, 1000, 10), counted_in_unit=True)] = DEFAULT_CHUNK_SIZE // 2,
        unit: Annotated[WindowUnit, Param(size_measure="unit")] = "chars",
        tokenizer: TokenizerParam = "minilm",
    ) -> None:
        self.chunk_size = chunk_size
        self.stride = stride
        self.unit = unit
        self.tokenizer = tokenizer
        self.validate()

    def check(self) -> None:
        """The window must not step over text (stride <= chunk_size); token windows need token spans."""
        try:
            check_tokenizer("SlidingWindowChunker", self.tokenizer, needs_spans=self.unit == "tokens")
        except ValueError as error:
            raise ParameterError(str(error)) from error
        if self.stride > self.chunk_size:
            raise ParameterError(
                f"SlidingWindowChunker: parameter 'stride' must not exceed 'chunk_size' "
                f"(allowed: 1 <= stride <= {self.chunk_size}), got stride={self.stride}"
            )

    def size_limit(self) -> int:
        """At most `chunk_size` units per chunk."""
        return self.chunk_size

    def measure(self, text: str) -> int:
        """How many units `text` holds when split on its own."""
        if self.unit == "sentences":
            return len(sentence_spans(text, cache=False))
        if self.unit == "words":
            return count_words(text)
        return length_function(self.unit, self.tokenizer)(text)

    def spans(self, text: str) -> Iterator[ChunkSpan]:
        """Yield the windows' spans in order."""
        starts, ends = self._units(text)
        checked = self.unit in ("sentences", "tokens")
        if self.unit == "tokens":
            measure = span_measure(text, length_function("tokens", self.tokenizer))
        else:
            measure = lambda s, e: self.measure(text[s:e])  # noqa: E731
        last = (-1, -1)
        n, i = len(starts), 0
        while i < n:
            j = min(i + self.chunk_size, n)
            start, end = trim_span(text, starts[i], ends[j - 1])
            size = j - i if self._counts_exactly(text, start, end) else None
            while checked and size is None and j > i + 1 and measure(start, end) > self.chunk_size:
                j -= 1
                start, end = trim_span(text, starts[i], ends[j - 1])
            if start < end and not (start >= last[0] and end <= last[1]):
                last = (start, end)
                metadata: dict = {"window_start_unit": i}
                if self.unit == "tokens":
                    metadata["token_count"] = size if size is not None else measure(start, end)
                yield start, end, metadata
            if i + self.chunk_size >= n:
                return
            i += self.stride

    def _counts_exactly(self, text: str, start: int, end: int) -> bool:
        """Does a window of MiniLM tokens bounded by plain whitespace (or the text's ends) re-tokenize
        to exactly its own tokens? WordPiece splits at whitespace first, so it does, and the window
        need not be measured again."""
        if self.unit != "tokens" or self.tokenizer != "minilm":
            return False
        return (start == 0 or text[start - 1] in " \t\n\r") and (end == len(text) or text[end] in " \t\n\r")

    def _units(self, text: str) -> tuple[Sequence[int], Sequence[int]]:
        """Start and end offsets of every unit of `text`."""
        if self.unit == "chars":
            return range(len(text)), range(1, len(text) + 1)
        return _unit_offsets(text, self.unit, self.tokenizer)


@cached(PER_TEXT)
def _unit_offsets(text: str, unit: str, tokenizer: TokenizerLike) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Starts and ends of the words, sentences or tokens of `text`, cached per text (a slider move
    re-windows the same text)."""
    if unit == "words":
        found = word_spans(text)
    elif unit == "sentences":
        found = sentence_spans(text)
    else:
        found = token_spans(text, tokenizer)
    return tuple(s for s, _ in found), tuple(e for _, e in found)
