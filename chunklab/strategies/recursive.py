"""Recursive separator splitting: the cascade paragraph → line → sentence → word → character.

The text is cut at the strongest separator first (blank lines). A piece that still does not fit is
cut again at the next separator (line breaks), and so on down to single characters. Pieces cut from
the same parent are then merged back, in order, into chunks of at most `chunk_size`: this is the "recursive
character text splitter" most RAG pipelines use, computed here on spans, so every offset is exact by
construction.

Two things differ from the splitter most people know (LangChain's ``RecursiveCharacterTextSplitter``):

* **Offsets** are the positions where the cuts were made. LangChain re-finds each chunk by searching
  the source for its text (``add_start_index``), which can land on another copy of repeated text
  (langchain issue #21475).
* **Overlap is always applied.** LangChain carries whole pieces of the previous chunk into the next
  one, so when the last piece is longer than the overlap (a paragraph, say) nothing is carried and
  the overlap silently disappears (issues #8142, #30200). Here the next chunk starts inside the
  previous one, at the strongest boundary (paragraph, line, sentence, word) within the overlap.
"""

from __future__ import annotations

import bisect
import itertools
import operator
import re
from typing import Annotated, Callable, NamedTuple, Sequence

from ..constraints import Param
from ..core import Chunker, ChunkSpan, ParameterError, register
from ..text.length import DEFAULT_CHUNK_SIZE, TokenizerParam, UnitParam, UnitSized, span_measure
from ..text.pack import fit, pack
from ..text.sentences import sentence_spans
from ..text.spans import trim_span

__all__ = ["LEVELS", "RecursiveChunker", "Run", "recursive_runs", "recursive_spans"]

#: The named separator levels, strongest first.
LEVELS = ("paragraph", "line", "sentence", "word", "char")

Measure = Callable[[str], int]

# Separators that are whitespace, as patterns. Each starts with a literal "\n", so the regex engine
# scans for it quickly (a leading "\r?" or character class is several times slower), and swallows
# the whitespace after it, so the piece that follows starts trimmed. Blank lines are those of
# `chunklab.text.paragraphs.paragraph_spans`: a line feed, blanks, maybe a "\r", a line feed; whatever
# whitespace follows belongs to the same separator, so naming one blank line is enough (``\s*``
# takes any more), and the blanks are taken possessively (``*+``): a line that starts indented is
# given up at once, without backtracking through its indentation (code reads three times faster).
# Texts with a "\r" use the line pattern that also knows old Mac line ends and have every piece
# trimmed; in others only a piece whose line ends in whitespace is.
_PARAGRAPH = re.compile(r"\n[ \t\f\v]*+\r?\n\s*+")
_LINE = re.compile(r"\n\s*+")
# The same two patterns for `re.split`, which keeps a captured separator between the pieces.
_PARAGRAPH_PARTS = re.compile(f"({_PARAGRAPH.pattern})")
_LINE_PARTS = re.compile(f"({_LINE.pattern})")
_CR_LINE = re.compile(r"(?:\r\n?|\n)\s*")
_LAST = operator.itemgetter(-1)
_WORD_START = re.compile(r"(?<!\S)\S")
_NON_SPACE = re.compile(r"\S")
# What the regex sentence splitter (`chunklab.text.regex_sentences`) needs to cut, loosely: terminal
# punctuation before whitespace (past closing quotes) or glued to a capital; a CJK terminator; a
# bullet, or a bracket closing a label before a letter that is no ASCII lowercase; a line break
# before a blank line, a line that opens with a marker or a digit, or one not indented
# (`chunklab.text.sentences.sentence_blocks`). Without one in a window, no sentence starts there.
_SENTENCE_CUT = re.compile(
    r"[.!?…][^\w\s]*\s|\.[A-Z]|\)[ \t]\W*[^\W\d_a-z]|[。！？•]|[\n\r](?:[ \t]*(?:[-*+•(|#>=—–\[\n\r\f\v]|\d{1,3}[.)])|(?=\S))"
)
# The characters before a window that the sentence splitter reads too (the word before a full stop).
_SENTENCE_CONTEXT = 40


class Run(NamedTuple):
    """Consecutive pieces cut from one parent at one separator level; they may merge into chunks."""

    level: str
    pieces: list[tuple[int, int]]


def recursive_runs(
    text: str, start: int, end: int, separators: Sequence[str], limit: int, measure: Measure = len
) -> list[Run]:
    """The separator cascade over ``text[start:end]``: runs of pieces that each measure at most `limit`.

    The span is cut at ``separators[0]``; every piece that fits joins the current run, and every piece
    that does not is cut recursively at the next separator, its pieces forming runs of their own
    (pieces of different parents never merge). At ``"word"`` or ``"char"``, or after the last
    separator, an oversized piece is cut by `chunklab.text.pack.fit` into the most whole words that fit,
    a word longer than `limit` at the last character that fits (cutting at words and merging the
    words back is exactly that), so the cascade ends there.

    Separators are level names (see `RecursiveChunker`) or literal strings: a literal that begins
    with a line break (``"\\ndef "``, ``"\\n## "``) starts the piece after it, any other literal
    (``"; "``, ``"。"``) ends the piece before it.
    """
    start, end = trim_span(text, start, end)
    cascade = _Cascade(text, start, end, tuple(separators), limit, measure, merge=False)
    return [Run(level, list(zip(starts, ends))) for level, starts, ends in cascade.run()]


def recursive_spans(
    text: str, start: int, end: int, separators: Sequence[str], limit: int, measure: Measure = len
) -> list[tuple[int, int, str]]:
    """`recursive_runs` with each run's pieces merged greedily (`chunklab.text.pack.pack`) into spans that
    measure at most `limit`: ``(start, end, level)`` per chunk, without overlap."""
    start, end = trim_span(text, start, end)
    if start >= end:
        return []
    if measure is len and end - start <= limit and separators[0] in _WHITESPACE_LEVELS:
        return [(start, end, separators[0])]  # all of it fits: the cascade would give one run, one span
    if measure is len:  # the pieces of a run each fit: merge them as the cascade finds them
        return _Cascade(text, start, end, tuple(separators), limit, measure, merge=True).run()
    runs = _Cascade(text, start, end, tuple(separators), limit, measure, merge=False).run()
    merged: list[tuple[int, int, str]] = []
    for level, starts, ends in runs:
        if len(starts) == 1:
            merged.append((starts[0], ends[0], level))
        else:
            merged.extend((s, e, level) for s, e, _, _ in pack(text, list(zip(starts, ends)), limit, measure))
    return merged


#: The levels whose pieces, all put back together, run from the span's start to its end.
_WHITESPACE_LEVELS = ("paragraph", "line", "word", "char")


class _Cascade:
    """The cascade over ``text[start:end]``: its separators, the size limit, and what is known of the
    span's line ends (looked at once, in the span only, so that cutting many small spans of a long
    text stays linear).

    `run` returns the runs, each as its level and its pieces' starts and ends (two lists of ints:
    fewer objects than a tuple per piece), or, with `merge` (characters only), the spans the runs
    merge into, merged as they are found: ``(start, end, level)``. In characters every piece of a
    run fits, so a span runs from a piece's start to the last piece end within `limit` of it, which
    one binary search over the piece ends finds (what `chunklab.text.pack.pack` does for `len`)."""

    def __init__(
        self, text: str, start: int, end: int, separators: tuple[str, ...], limit: int, measure: Measure, merge: bool
    ) -> None:
        self.text = text
        self.span = (start, end)
        self.separators = separators
        self.limit = limit
        self.measure = measure
        self.merge = merge
        self.line = _CR_LINE if text.find("\r", start, end) >= 0 else _LINE
        self.found: list = []

    def run(self) -> list:
        self._cut(*self.span, 0)
        return self.found

    def _emit(self, level: str, starts: list[int], ends: list[int], low: int, high: int) -> None:
        """The pieces ``[low, high)`` as a run, or merged into spans."""
        if not self.merge:
            whole = low == 0 and high == len(starts)
            self.found.append((level, starts, ends) if whole else (level, starts[low:high], ends[low:high]))
            return
        add, limit, right = self.found.append, self.limit, bisect.bisect_right
        while low < high:
            head = starts[low]
            low = right(ends, head + limit, low, high)
            add((head, ends[low - 1], level))

    def _cut(self, start: int, end: int, depth: int) -> None:
        if start >= end:
            return
        separators = self.separators
        if depth >= len(separators) or separators[depth] in ("word", "char"):
            level = separators[depth] if depth < len(separators) else "char"
            pieces = fit(self.text, start, end, self.limit, self.measure)
            self._emit(level, [s for s, _ in pieces], [e for _, e in pieces], 0, len(pieces))
            return
        level = separators[depth]
        if level == "line" and self.merge and self.line is _LINE:
            self._merge_lines(start, end, depth)
            return
        starts, ends = self._pieces(start, end, level)
        count, limit = len(starts), self.limit
        oversized: Sequence[int]
        if self.measure is len:
            if count == 1:
                oversized = [0] if end - start > limit else ()
            else:
                sizes = list(map(operator.sub, ends, starts))
                oversized = [k for k, size in enumerate(sizes) if size > limit] if max(sizes) > limit else ()
        else:
            size = span_measure(self.text, self.measure)
            oversized = [k for k, (s, e) in enumerate(zip(starts, ends)) if size(s, e) > limit]
        head = 0
        for k in oversized:
            if head < k:
                self._emit(level, starts, ends, head, k)
            self._cut(starts[k], ends[k], depth + 1)
            head = k + 1
        if head < count:
            self._emit(level, starts, ends, head, count)

    def _merge_lines(self, start: int, end: int, depth: int) -> None:
        """`_cut` at ``"line"`` when merging (characters, no "\\r"), without listing the lines.

        Merged greedily, a span runs from a line's start to the last line end within `limit` of it,
        so each span costs one backward search for a line break (a line end is where the
        whitespace before a line break begins) instead of a piece per line; a line longer than
        `limit` is cut at the next separator, as `_cut` would."""
        text, limit, add = self.text, self.limit, self.found.append
        head = start
        while end - head > limit:
            stop = head + limit
            cut, following = _line_end_at(text, stop, end)
            if cut is None:
                found = text.rfind("\n", head, stop)
                if found >= 0:
                    cut, following = _whitespace_before(text, found), _skip_whitespace(text, found, end)
            if cut is not None:
                add((head, cut, "line"))
            else:  # the line at `head` is longer than `limit`
                found = text.find("\n", stop, end)
                cut = end if found < 0 else _whitespace_before(text, found)
                following = end if found < 0 else _skip_whitespace(text, found, end)
                self._cut(head, cut, depth + 1)
            head = following
        if head < end:
            add((head, end, "line"))

    def _pieces(self, start: int, end: int, separator: str) -> tuple[list[int], list[int]]:
        """``text[start:end]`` (trimmed) cut at `separator` into trimmed, non-empty pieces: their
        starts and their ends."""
        text = self.text
        if separator == "sentence":
            found = sentence_spans(text[start:end])
            return [start + s for s, _ in found], [start + e for _, e in found]
        if separator in ("paragraph", "line"):  # whitespace: the separator belongs to neither piece
            if text.find("\n", start, end) < 0 and (self.line is _LINE or text.find("\r", start, end) < 0):
                return [start], [end]  # a single line: nothing to cut
            if self.line is _LINE:
                # Every separator swallows the whitespace after it, and the span's ends are not
                # whitespace: the pieces lie between the separators, trimmed, except a piece whose
                # line ends in whitespace. Splitting at the separators (kept) and adding up the
                # parts' lengths gives every boundary, with no Python object per piece.
                pattern = _PARAGRAPH_PARTS if separator == "paragraph" else _LINE_PARTS
                parts = pattern.split(text if start == 0 and end == len(text) else text[start:end])
                bounds = list(itertools.accumulate(map(len, parts), initial=start))
                starts, ends = bounds[0::2], bounds[1::2]
                before_separators = parts[0:-1:2]
                if any(map(str.isspace, map(_LAST, before_separators))):
                    for k in itertools.compress(itertools.count(), map(str.isspace, map(_LAST, before_separators))):
                        ends[k] = trim_span(text, starts[k], ends[k])[1]
                return starts, ends
            pattern = _PARAGRAPH if separator == "paragraph" else self.line
            found = [m.span() for m in pattern.finditer(text, start, end)]
            heads, tails = [start, *(e for _, e in found)], [*(s for s, _ in found), end]
        else:
            found = [m.span() for m in re.finditer(re.escape(separator), text[start:end])]
            cuts = [start + (s if separator.startswith(("\n", "\r")) else e) for s, e in found]
            heads, tails = [start, *cuts], [*cuts, end]
        starts, ends = [], []
        for s, e in zip(heads, tails):
            if s < e and (text[s].isspace() or text[e - 1].isspace()):
                s, e = trim_span(text, s, e)
            if s < e:
                starts.append(s)
                ends.append(e)
        return starts, ends


@register
class RecursiveChunker(UnitSized, Chunker):
    """Cut at the strongest separator that makes pieces fit, then merge neighbouring pieces up to `chunk_size`.

    `separators` lists the cascade, strongest first: the level names ``"paragraph"`` (blank lines),
    ``"line"`` (line breaks), ``"sentence"`` (sentence ends, `chunklab.text.sentences`'s regex splitter),
    ``"word"`` (whitespace) and ``"char"`` (anywhere), or literal strings such as ``"\\nclass "``
    (see `recursive_runs` for which side of a literal the cut goes). Words and then characters are
    always the last resort, so the size contract holds whatever the list.

    Pieces cut from the same parent (the paragraphs of the text, the sentences of one long
    paragraph) are merged greedily into chunks; pieces of different parents are never merged, so a
    chunk boundary falls at every strong separator next to a piece that had to be cut finer.

    `chunk_overlap` (in `unit`s) is applied between every pair of neighbouring chunks: each chunk after
    the first starts inside the previous one, within its last `chunk_overlap` units, at the strongest
    boundary found there in the order of `separators` (a paragraph start, else a line start, else a
    sentence start, else a word start), as early as possible. To leave room for it, pieces are cut
    to at most ``size - overlap`` units. A chunk has less overlap only when the previous chunk's last
    word alone is longer than `chunk_overlap` (a CSV row without spaces, say), or when the whitespace
    between two chunks would push the next one over `chunk_size`.

    Size contract: every chunk measures at most `chunk_size` in `unit` (characters, whitespace-delimited
    words, or tokens of `tokenizer`), except a single character that a tokenizer splits into more
    than `chunk_size` tokens. Metadata: ``separator`` (the level at which the chunk's pieces were cut) and,
    for ``unit="tokens"``, ``token_count``.
    """

    name = "recursive"

    def __init__(
        self,
        *,
        chunk_size: Annotated[int, Param(low=1, slider=(50, 2000, 10), counted_in_unit=True)] = DEFAULT_CHUNK_SIZE,
        chunk_overlap: Annotated[int, Param(low=0, slider=(0, 400, 10), counted_in_unit=True)] = 0,
        separators: tuple[str, ...] = LEVELS,
        unit: UnitParam = "chars",
        tokenizer: TokenizerParam = "minilm",
    ) -> None:
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.separators = separators
        self.unit = unit
        self.tokenizer = tokenizer
        self.validate()

    def check(self) -> None:
        """Overlap must leave room for new text; separators must be non-empty strings, and a bare word
        must be a level name (a misspelt one, ``"lines"``, would otherwise be a literal that never
        occurs): a literal word is written with the space around it (``" and "``)."""
        self.require_smaller("chunk_overlap", "chunk_size")
        if not self.separators or not all(self.separators):
            raise ParameterError(
                f"RecursiveChunker: parameter 'separators' must be a non-empty tuple of non-empty strings "
                f"(level names {list(LEVELS)} or literal separators), got {self.separators!r}"
            )
        unknown = [s for s in self.separators if s.isalpha() and s not in LEVELS]
        if unknown:
            raise ParameterError(
                f"RecursiveChunker: parameter 'separators' holds {unknown[0]!r}, which is no level name: the level "
                f"names are {list(LEVELS)}; to cut at a word literally, write it with the space around it "
                f"({' ' + unknown[0] + ' '!r})"
            )

    def spans(self, text: str) -> list[ChunkSpan]:
        """Each chunk's span with the level its pieces were cut at."""
        measure = self.measure_function()
        limit = self.chunk_size - self.chunk_overlap
        cores = recursive_spans(text, 0, len(text), self.separators, limit, measure)
        if self.chunk_overlap:
            starts = _overlap_starts(text, cores, self.separators, self.chunk_overlap, self.chunk_size, measure)
        elif self.unit != "tokens":
            return [(start, end, {"separator": level}) for start, end, level in cores]
        else:
            starts = [start for start, _, _ in cores]
        if self.unit == "tokens":
            size = span_measure(text, measure)
            return [(begin, end, {"separator": level, "token_count": size(begin, end)})
                    for begin, (_, end, level) in zip(starts, cores)]
        return [(begin, end, {"separator": level}) for begin, (_, end, level) in zip(starts, cores)]


def _overlap_starts(
    text: str, cores: list[tuple[int, int, str]], separators: Sequence[str], overlap: int, size: int, measure: Measure
) -> list[int]:
    """Where each chunk starts once the overlap is put in front of its core (see `RecursiveChunker`).

    The overlap lies inside the previous chunk and begins after its start, so chunks keep their
    order. In characters only its last `chunk_overlap` characters qualify (fewer if the chunk would grow
    past `chunk_size`), and the first boundary found there is the answer (`_char_overlap_starts`). In
    other units a binary search over each level's boundaries in the whole previous chunk finds
    those that qualify.
    """
    if measure is len:
        return _char_overlap_starts(text, cores, separators, overlap, size)
    starts = [cores[0][0]] if cores else []
    span_size = span_measure(text, measure)
    for (_, prev_end, _), (start, end, _) in zip(cores, cores[1:]):
        fits = lambda p: span_size(p, prev_end) <= overlap and span_size(p, end) <= size  # noqa: E731
        begin = start
        for level in [*separators, "word"]:
            found = _boundaries(text, level, starts[-1] + 1, prev_end)
            found = found[_first_true(found, fits) :]
            if found:
                begin = found[0]
                break
        starts.append(begin)
    return starts


def _char_overlap_starts(
    text: str, cores: list[tuple[int, int, str]], separators: Sequence[str], overlap: int, size: int
) -> list[int]:
    """`_overlap_starts` in characters. This runs once per chunk, so the levels above words are
    tried only when they can occur in the window (a line break, a full stop), and the usual case,
    a window of words inside a paragraph, costs two string searches."""
    ends = [i for i, level in enumerate(separators) if level in ("word", "char")]
    strong = list(separators[: ends[0]] if ends else separators)
    crlf = "\r" in text
    # With only blank lines and line breaks above words, a window without a line feed has no
    # boundary above words (with a "\r" in the text, `_first_boundary` looks for itself).
    need_break = bool(strong) and all(level in ("paragraph", "line") for level in strong) and not crlf
    word_start, find = _WORD_START.search, text.find
    starts = [cores[0][0]] if cores else []
    previous = starts[0] if cores else 0
    for (_, prev_end, _), (start, end, _) in zip(cores, cores[1:]):
        low = prev_end - overlap
        if end - size > low:
            low = end - size
        if previous >= low:
            low = previous + 1
        begin = None
        if low >= prev_end:
            begin = start
        elif need_break:
            if find("\n", low - 1, prev_end) >= 0:
                begin = _break_boundary(text, strong, low, prev_end)
        elif strong:
            begin = _first_boundary(text, strong, low, prev_end)
        if begin is None:
            word = word_start(text, low, prev_end)
            begin = word.start() if word else start
        starts.append(begin)
        previous = begin
    return starts


def _first_boundary(text: str, levels: Sequence[str], low: int, high: int) -> int | None:
    """The earliest boundary in ``[low, high)`` of the first of `levels` that has one, as
    `_boundaries` would list it, skipping blank lines and line breaks where there is no line
    break before running their patterns (`_boundaries` skips sentences where nothing can end one).

    For a blank line or a line break that is the end of the first separator found from the
    whitespace before `low` on: separators swallow the whitespace after them, so that end is at
    least `low`, and the ends come in order, so it is the answer if it is before `high`."""
    breaks = text.find("\n", low - 1, high) >= 0 or text.find("\r", low - 1, high) >= 0
    for level in levels:
        if level in ("paragraph", "line"):
            if not breaks:
                continue
            back = _whitespace_before(text, low)
            if level == "paragraph":
                match = _PARAGRAPH.search(text, back, high)
            else:
                match = (_CR_LINE if text.find("\r", back, high) >= 0 else _LINE).search(text, back, high)
            if match is not None and match.end() < high:
                return match.end()
            continue
        found = _sentence_boundaries(text, low, high) if level == "sentence" else _boundaries(text, level, low, high)
        if found:
            return found[0]
    return None


def _break_boundary(text: str, levels: Sequence[str], low: int, high: int) -> int | None:
    """`_first_boundary` for `levels` that are blank lines and line breaks, in a text without a
    "\r", when ``[low - 1, high)`` holds a line feed: the separators are then found by string
    searches. The first line feed from the whitespace before `low` on begins the first line
    separator, which ends at the next non-space; a blank line needs a second line feed."""
    back = _whitespace_before(text, low) if text[low - 1].isspace() else low
    first = text.find("\n", back, high)
    for level in levels:
        if level == "line":
            following = _NON_SPACE.search(text, first, high)
            if following is not None:
                return following.start()
        elif text.find("\n", first + 1, high) >= 0:
            match = _PARAGRAPH.search(text, back, high)
            if match is not None and match.end() < high:
                return match.end()
    return None


def _whitespace_before(text: str, position: int) -> int:
    """Where the run of whitespace that ends at `position` begins (`position` if there is none): a
    separator may begin there, before a window that starts at `position`."""
    while position > 0 and text[position - 1].isspace():
        position -= 1
    return position


def _punctuation_before(text: str, position: int, head: int) -> int:
    """Where the run of characters that are no letter or digit (whitespace, punctuation, closing
    quotes) that ends at `position` begins, from `head` on."""
    while position > head and not text[position - 1].isalnum():
        position -= 1
    return position


def _skip_whitespace(text: str, position: int, end: int) -> int:
    """The first non-whitespace position from `position` on (`end` if there is none before it)."""
    found = _NON_SPACE.search(text, position, end)
    return end if found is None else found.start()


def _line_end_at(text: str, stop: int, end: int) -> tuple[int | None, int]:
    """If the whitespace at ``text[stop]`` (``stop < end``) holds a line break, the line end it
    begins at (at most `stop`) and the next line's start; else ``(None, stop)``."""
    if not text[stop].isspace():
        return None, stop
    following = _skip_whitespace(text, stop, end)
    begin = _whitespace_before(text, stop)
    if text.find("\n", begin, following) < 0:
        return None, stop
    return begin, following


def _boundaries(text: str, level: str, low: int, high: int) -> list[int]:
    """The positions in ``[low, high)`` where a piece cut at separator `level` would start, in order."""
    if level in ("word", "char"):
        return [m.start() for m in _WORD_START.finditer(text, low, high)]
    if level == "sentence":
        return _sentence_boundaries(text, low, high)
    back = _whitespace_before(text, low)
    if level in ("paragraph", "line"):
        pattern = _PARAGRAPH if level == "paragraph" else (_CR_LINE if "\r" in text[back:high] else _LINE)
        return [m.end() for m in pattern.finditer(text, back, high) if low <= m.end() < high]
    after = not level.startswith(("\n", "\r"))
    # A literal that ends its piece may begin before the whitespace before `low` ("; " ending at `low`).
    back = max(0, back - len(level)) if after else back
    found = []
    for match in re.finditer(re.escape(level), text[back:high]):
        cut = back + (match.end() if after else match.start())
        while cut < high and text[cut].isspace():
            cut += 1
        if low <= cut < high:
            found.append(cut)
    return found


def _sentence_boundaries(text: str, low: int, high: int) -> list[int]:
    """`_boundaries` at ``"sentence"``: the sentence starts in ``[low, high)``, none where the window
    holds nothing the splitter cuts at (`_SENTENCE_CUT`, from the punctuation and whitespace before
    `low` on), without running the splitter."""
    # Some text before `low` lets the splitter see the word before a full stop (abbreviations);
    # the slice's first sentence starts where the slice does, not at a sentence boundary.
    head = max(0, low - _SENTENCE_CONTEXT)
    since = low if text[low - 1 : low].isalnum() else _punctuation_before(text, low, head)
    if _SENTENCE_CUT.search(text, since, high) is None:
        return []
    return [head + s for s, _ in sentence_spans(text[head:high])[1:] if head + s >= low]


def _first_true(items: Sequence[int], predicate: Callable[[int], bool]) -> int:
    """Index of the first item for which a monotone (False…False True…True) predicate holds."""
    low, high = 0, len(items)
    while low < high:
        middle = (low + high) // 2
        if predicate(items[middle]):
            high = middle
        else:
            low = middle + 1
    return low
