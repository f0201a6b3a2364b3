"""Fixed-size chunking: windows of N characters, words or tokens, with optional overlap."""

from __future__ import annotations

from typing import Annotated, Iterator

from ..constraints import Param
from ..core import Chunker, ChunkSpan, ParameterError, register
from ..text.length import DEFAULT_CHUNK_SIZE, TokenizerParam, UnitParam, UnitSized
from ..text.spans import trim_span
from ..text.words import inside_word, word_spans
from .token import MIN_WINDOW, token_windows


@register
class FixedSizeChunker(UnitSized, Chunker):
    """Cut the text into windows of `chunk_size` characters, words or tokens, each sharing `chunk_overlap` with the last.

    * ``unit="chars"``: windows of `chunk_size` characters, trimmed of surrounding whitespace. With
      ``snap_to_words=True`` a window that would end inside a word ends at the last word boundary
      before it instead (whitespace, or either side of a Chinese or Japanese character, each a word
      of its own), and the next window starts at a word start; a single word longer than `chunk_size` is
      still cut (there is nowhere else to cut it).
    * ``unit="words"``: windows of `chunk_size` words (`chunklab.text.words.WORD`: whitespace-delimited, a
      CJK character is one word); words are never cut, and `snap_to_words` has nothing to do.
    * ``unit="tokens"``: windows of `chunk_size` tokens of `tokenizer` (``"minilm"`` or ``"cl100k"``),
      with exactly the spans of `TokenChunker` with the same parameters (one implementation,
      `chunklab.strategies.token.token_windows`); ``token_count`` metadata as there.

    Size contract: every chunk has at most `chunk_size` units (characters, words, or tokens of its own
    text). Consecutive chunks overlap by at most `chunk_overlap` units (less where trimming or snapping
    moves a boundary). A window that would fall wholly inside the previous chunk (possible near the
    end of the text) is dropped. With tokens, `chunk_size` must be at least 4 (one character can take
    four byte-level tokens).
    """

    name = "fixed"
    cuts_at_tokens = True

    def __init__(
        self,
        *,
        chunk_size: Annotated[int, Param(low=1, slider=(20, 2000, 10), counted_in_unit=True)] = DEFAULT_CHUNK_SIZE,
        chunk_overlap: Annotated[int, Param(low=0, slider=(0, 500, 10), counted_in_unit=True)] = 0,
        unit: UnitParam = "chars",
        # Words are never cut, so snapping to them does nothing there.
        snap_to_words: Annotated[bool, Param(active_when={"unit": ("chars", "tokens")})] = False,
        tokenizer: TokenizerParam = "minilm",
    ) -> None:
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.unit = unit
        self.snap_to_words = snap_to_words
        self.tokenizer = tokenizer
        self.validate()

    def check(self) -> None:
        """``chunk_overlap < chunk_size`` (each window moves forward); with ``unit="tokens"``, ``chunk_size >= 4``."""
        self.require_smaller("chunk_overlap", "chunk_size")
        if self.unit == "tokens" and self.chunk_size < MIN_WINDOW:
            raise ParameterError(
                f"FixedSizeChunker: parameter 'chunk_size' must be >= {MIN_WINDOW} with unit='tokens' "
                f"(one character can take {MIN_WINDOW} byte-level tokens), got chunk_size={self.chunk_size}"
            )

    def spans(self, text: str) -> Iterator[ChunkSpan]:
        """Yield the windows' spans in order (with ``token_count`` metadata for token windows)."""
        if self.unit == "tokens":
            windows = token_windows(text, self.chunk_size, self.chunk_overlap, self.tokenizer, self.snap_to_words)
            yield from ((start, end, {"token_count": count}) for start, end, _, _, count in windows)
            return
        raw = self._word_windows(text) if self.unit == "words" else self._char_windows(text)
        last = (-1, -1)
        for start, end in raw:
            if start >= last[0] and end <= last[1]:
                continue
            last = (start, end)
            yield start, end

    def _word_windows(self, text: str) -> Iterator[tuple[int, int]]:
        words = word_spans(text)
        step = self.chunk_size - self.chunk_overlap
        for i in range(0, len(words), step):
            j = min(i + self.chunk_size, len(words))
            yield words[i][0], words[j - 1][1]
            if j == len(words):
                return

    def _char_windows(self, text: str) -> Iterator[tuple[int, int]]:
        n, start = len(text), 0
        while start < n:
            end = min(start + self.chunk_size, n)
            if self.snap_to_words and inside_word(text, end):
                end = _last_cut_before(text, start, end)
            s, e = trim_span(text, start, end)
            if s < e:
                yield s, e
            if end >= n:
                return
            nxt = end - self.chunk_overlap
            if self.snap_to_words and inside_word(text, nxt):
                nxt = _next_word_start(text, nxt, end)
            start = max(nxt, start + 1)


def _last_cut_before(text: str, start: int, end: int) -> int:
    """The last whitespace position in ``(start, end)``, or position between two words of which one
    is a CJK character, or `end` if the window has none."""
    for pos in range(end - 1, start, -1):
        if text[pos].isspace() or (not text[pos - 1].isspace() and not inside_word(text, pos)):
            return pos
    return end


def _next_word_start(text: str, pos: int, limit: int) -> int:
    """The first word start at or after `pos` (at most `limit`)."""
    while pos < limit and inside_word(text, pos):
        pos += 1
    while pos < limit and text[pos].isspace():
        pos += 1
    return pos
