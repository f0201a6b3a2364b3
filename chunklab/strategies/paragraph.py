"""Paragraph chunking: blank-line paragraphs, short ones merged forward, oversized ones split."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Annotated, Callable, Iterator

from ..constraints import Param
from ..core import Chunker, ChunkSpan, register
from ..formats.markdown import fence_spans
from ..text.length import DEFAULT_CHUNK_SIZE, TokenizerParam, UnitParam, UnitSized
from ..text.pack import pack
from ..text.paragraphs import line_spans, paragraph_spans
from ..text.sentences import SentenceSplitterParam, sentence_spans
from ..text.spans import trim_span, union


@register
class ParagraphChunker(UnitSized, Chunker):
    """One chunk per paragraph (text between blank lines), with short paragraphs merged forward and
    oversized ones split between sentences.

    1. **Paragraphs** are `chunklab.text.paragraphs.paragraph_spans`: a blank line is a line break followed
       by one or more lines holding only spaces or tabs (LF or CRLF), so several blank lines count
       as one break. A fenced code block (found by markdown-it-py, `chunklab.formats.markdown`) is
       never cut at a blank line inside it: the paragraphs it touches become one block.
    2. **Oversized** blocks (measuring more than `chunk_size`) are split by `chunklab.text.pack.pack` into
       runs of whole units, each run as long as fits: the units are sentences (`sentence_splitter`), and a
       fenced code block that fits `chunk_size` is one unit (so it is never cut); a code block that
       does not fit is cut between its lines. A single sentence or line longer than `chunk_size` is
       cut at word boundaries.
    3. **Short** pieces (measuring less than `min_chunk_size`) are merged into the next one, again and
       again while the merged span still fits `chunk_size`; a short last piece is merged into the one
       before it when that fits. ``min_chunk_size=0`` keeps every paragraph apart.

    Sizes are measured in `unit` on the exact source span, the blank lines between merged
    paragraphs included. Size contract: every chunk measures at most `chunk_size` (as for
    `SentenceChunker`, one character that alone measures more tokens than that is kept whole).
    Chunks may be shorter than `min_chunk_size` when merging would break `chunk_size`.

    Metadata: ``paragraphs`` (how many paragraphs the chunk touches) and ``cut`` (the chunk
    is a piece of a paragraph that was too big); ``token_count`` when `unit` is ``"tokens"``.
    """

    name = "paragraph"
    #: Merging short paragraphs is what this strategy adds to blank lines; most paragraphs fit `chunk_size`.
    main_control = "min_chunk_size"

    def __init__(
        self,
        *,
        min_chunk_size: Annotated[int, Param(low=0, slider=(0, 1000, 10), counted_in_unit=True)] = 200,
        chunk_size: Annotated[int, Param(low=1, slider=(100, 4000, 50), counted_in_unit=True)] = DEFAULT_CHUNK_SIZE,
        unit: UnitParam = "chars",
        tokenizer: TokenizerParam = "minilm",
        sentence_splitter: SentenceSplitterParam = "regex",
    ) -> None:
        self.min_chunk_size = min_chunk_size
        self.chunk_size = chunk_size
        self.unit = unit
        self.tokenizer = tokenizer
        self.sentence_splitter = sentence_splitter
        self.validate()

    def spans(self, text: str) -> Iterator[ChunkSpan]:
        """Yield the paragraph chunks in order."""
        measure = self.measure_function()
        pieces = list(self._pieces(text, measure))
        merged: list[list] = []  # [start, end, paragraphs, cut]
        for start, end, paragraphs, cut in pieces:
            if merged and measure(text[merged[-1][0] : merged[-1][1]]) < self.min_chunk_size and (
                measure(text[merged[-1][0] : end]) <= self.chunk_size
            ):
                merged[-1][1:] = [end, merged[-1][2] + paragraphs, merged[-1][3] or cut]
            else:
                merged.append([start, end, paragraphs, cut])
        if len(merged) > 1 and measure(text[merged[-1][0] : merged[-1][1]]) < self.min_chunk_size:
            if measure(text[merged[-2][0] : merged[-1][1]]) <= self.chunk_size:
                last = merged.pop()
                merged[-1][1:] = [last[1], merged[-1][2] + last[2], merged[-1][3] or last[3]]
        for start, end, paragraphs, cut in merged:
            metadata: dict = {"paragraphs": paragraphs, "cut": cut}
            if self.unit == "tokens":
                metadata["token_count"] = measure(text[start:end])
            yield start, end, metadata

    def _pieces(self, text: str, measure: Callable[[str], int]) -> Iterator[tuple[int, int, int, bool]]:
        """Paragraph blocks that fit, and the pieces of those that do not:
        ``(start, end, paragraphs touched, is a piece of a cut block)``."""
        paragraphs = paragraph_spans(text)
        starts, ends = [s for s, _ in paragraphs], [e for _, e in paragraphs]

        def touched(start: int, end: int) -> int:
            return bisect_left(starts, end) - bisect_right(ends, start)

        fences = fence_spans(text) if ("```" in text or "~~~" in text) else []
        fence_starts = [s for s, _ in fences]
        sentences: list[tuple[int, int]] = []
        sentence_starts: list[int] = []
        for start, end in union([*paragraphs, *fences]):
            if measure(text[start:end]) <= self.chunk_size:
                yield start, end, touched(start, end), False
                continue
            inside = fences[bisect_left(fence_starts, start) : bisect_left(fence_starts, end)]
            if inside:
                units = self._units_around_fences(text, start, end, inside, measure)
            else:
                if not sentences:
                    sentences = sentence_spans(text, self.sentence_splitter)
                    sentence_starts = [s for s, _ in sentences]
                # Sentences flow across page breaks (`sentence_spans`); paragraphs do not: clip.
                first = max(0, bisect_right(sentence_starts, start) - 1)
                within = sentences[first : bisect_left(sentence_starts, end)]
                clipped = (trim_span(text, max(s, start), min(e, end)) for s, e in within)
                units = [(s, e) for s, e in clipped if s < e]
            for s, e, _, _ in pack(text, units, self.chunk_size, measure):
                yield s, e, touched(s, e), True

    def _units_around_fences(
        self, text: str, start: int, end: int, fences: list[tuple[int, int]], measure: Callable[[str], int]
    ) -> list[tuple[int, int]]:
        """The units of an oversized block holding fenced code: the sentences between the fences,
        each fence that fits `chunk_size` whole, and the lines of each fence that does not."""
        units, pos = [], start
        for fs, fe in [*fences, (end, end)]:
            units += [(pos + s, pos + e) for s, e in sentence_spans(text[pos:fs], self.sentence_splitter)]
            if fs < fe:
                fits = measure(text[fs:fe]) <= self.chunk_size
                units += [(fs, fe)] if fits else [(fs + s, fs + e) for s, e in line_spans(text[fs:fe])]
            pos = fe
        return units
