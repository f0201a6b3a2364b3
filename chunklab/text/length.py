"""Chunk sizes in one unit: characters, words, or tokens of a tokenizer.

Every chunker with a size parameter measures through this module, so "400 tokens" means the same
thing to the sentence packer, the sliding window, the recursive splitter and the token chunker.
The convention for such a chunker is two constructor parameters::

    unit: SizeUnit = "chars"           # "chars", "words" or "tokens"
    tokenizer: TokenizerName = "minilm"  # used only when unit == "tokens"

and ``measure = length_function(unit, tokenizer)``.

Tokenizers (both offline, see `chunklab.models.resources`):

* ``"minilm"``: all-MiniLM-L6-v2's WordPiece tokenizer, the one our embedder reads. Counts exclude
  the ``[CLS]``/``[SEP]`` markers the model adds (two more tokens per input). WordPiece first splits
  at whitespace and punctuation, so the count of two pieces joined by whitespace is exactly the sum
  of their counts.
* ``"cl100k"``: OpenAI's ``cl100k_base`` BPE (tiktoken). Its pieces can absorb the whitespace in
  front of a word, so the count of a joined text can differ by a token or two from the sum of its
  parts: a packer that sums counts must re-measure the joined piece before promising a size.

Wherever a tokenizer is taken (every chunker with ``unit="tokens"``, `count_tokens`, `token_spans`),
an object works as well as a name (`TokenizerLike`): a Hugging Face fast tokenizer, a
``tokenizers.Tokenizer``, a tiktoken ``Encoding``, or a plain function of a text that returns

* an ``int``: the token count (enough for every chunker that packs units under a size), or
* a list of ``(start, end)`` character spans, one per token, or
* a list of token strings, each found in the text in order (spans follow from where they are), or
* a list of anything else (token ids): the count is its length.

Objects are used as they are (no special tokens added, no truncation), so a learner's own tokenizer
measures exactly like the built-in ones. The chunkers that cut at token boundaries (``fixed``,
``sliding_window`` and ``token`` with ``unit="tokens"``) need spans: a tokenizer that gives only a count
(an int, or ids) is refused there at construction, with a `ParameterError` that says so
(`check_tokenizer`).
"""

from __future__ import annotations

import bisect
import functools
from typing import Annotated, Any, Callable, ClassVar, Literal, Sequence, Union

import numpy as np

from ..caches import PER_PIECE, PER_TEXT, RESOURCE, cached
from ..constraints import Param
from ..core import ParameterError
from .spans import span_array
from .words import WORD, count_words, inside_word

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "SizeUnit",
    "check_tokenizer",
    "TokenizerLike",
    "TokenizerName",
    "TokenizerParam",
    "UnitParam",
    "UnitSized",
    "count_tokens",
    "count_words",
    "length_function",
    "span_measure",
    "tiktoken_bounds",
    "token_span_array",
    "token_span_arrays",
    "token_spans",
]

SizeUnit = Literal["chars", "words", "tokens"]
#: The default ``chunk_size`` of every sized chunker, in characters: chosen on the dev questions
#: (fourteen sized strategies, chunk sizes 300 to 1200, BM25, the share of questions answered at
#: budgets of 500, 1,000 and 2,000 characters: 600 was best on average), and short enough that
#: all-MiniLM-L6-v2 reads a chunk of English prose whole (about 150 of its 256 word pieces).
#: Exceptions, by their nature: ``page`` (a page is its unit: 4,000 characters hold a report page)
#: and ``token`` (150 tokens, about the same text, in its only unit).
DEFAULT_CHUNK_SIZE = 600
TokenizerName = Literal["minilm", "cl100k"]
#: A tokenizer by name, or an object: a Hugging Face fast tokenizer, a ``tokenizers.Tokenizer``, a
#: tiktoken ``Encoding``, or a function of a text (see the module docstring for what it may return).
TokenizerLike = Union[TokenizerName, Any]
#: The declaration of a sized chunker's ``unit`` parameter (``unit: UnitParam = "chars"``): it says
#: how the sizes declared ``counted_in_unit`` are counted (`chunklab.core.Chunker.size_measure`).
UnitParam = Annotated[SizeUnit, Param(size_measure="unit")]
#: The declaration of a sized chunker's ``tokenizer`` parameter (``tokenizer: TokenizerParam =
#: "minilm"``): it counts the tokens when ``unit`` is ``"tokens"``, and changes nothing otherwise.
TokenizerParam = Annotated[TokenizerLike, Param(size_measure="tokenizer", active_when={"unit": ("tokens",)})]
_NAMES = ("minilm", "cl100k")

@cached(PER_PIECE)
def count_tokens(text: str, tokenizer: TokenizerLike = "minilm") -> int:
    """Tokens of `text` for `tokenizer`, without special tokens (cached per text and tokenizer)."""
    kind, model = _resolve(tokenizer)
    if kind == "wordpiece":
        return len(model.encode(text, add_special_tokens=False))
    if kind == "tiktoken":
        return len(model.encode_ordinary(text))
    count, _ = _function_tokens(model, text)
    return count


def span_measure(text: str, measure: Callable[[str], int]) -> Callable[[int, int], int]:
    """``(start, end) -> measure(text[start:end])`` for many spans of one text. Characters and words
    are answered from positions, without slicing or scanning the span (words from a running count
    of word starts: a span that begins inside a word counts that word too); MiniLM tokens from the
    text's own tokenization wherever that is exact (see `_wordpiece_counter`); any other measure
    measures the slice. For a loop that measures long, overlapping spans (a packer's search, a
    slider move), the cost stops growing with the span's length."""
    if measure is len:
        return lambda start, end: end - start
    if _is_minilm_count(measure):
        return _wordpiece_counter(text)
    if measure is not count_words:
        return lambda start, end: measure(text[start:end])
    before = _words_before(text)

    def words(start: int, end: int) -> int:
        if start >= end:
            return 0
        return before[end] - before[start] + inside_word(text, start)

    return words


@cached(PER_TEXT)
def _words_before(text: str) -> list[int]:
    """For every position ``p`` of `text` (and its end), how many words start before it (cached per
    text: a chunker packs many spans of one text)."""
    starts = np.zeros(len(text) + 1, dtype=np.int64)
    starts[[m.start() + 1 for m in WORD.finditer(text)]] = 1
    return np.cumsum(starts).tolist()


def _is_minilm_count(measure: Callable[[str], int]) -> bool:
    """Is `measure` ``length_function("tokens", "minilm")``?"""
    return (
        isinstance(measure, functools.partial)
        and measure.func is count_tokens
        and not measure.args
        and measure.keywords == {"tokenizer": "minilm"}
    )


def _wordpiece_counter(text: str) -> Callable[[int, int], int]:
    """MiniLM token counts of spans of `text`. WordPiece splits the text into words at whitespace
    and punctuation before it chooses pieces, so a span whose two ends cut no such word holds
    exactly the document's tokens that start inside it; a span that cuts a word is tokenized."""
    starts, safe = _wordpiece_table(text)

    def tokens(start: int, end: int) -> int:
        if start >= end:
            return 0
        if safe[start] and safe[end]:
            return bisect.bisect_left(starts, end) - bisect.bisect_left(starts, start)
        return count_tokens(text[start:end], "minilm")

    return tokens


@cached(PER_TEXT)
def _wordpiece_table(text: str) -> tuple[list[int], list[bool]]:
    """Where each MiniLM token of `text` starts, and for every position ``0..len(text)`` whether a
    cut there leaves every pre-tokenizer word whole (cached per text)."""
    _, model = _resolve("minilm")
    encoding = model.encode(text, add_special_tokens=False)
    offsets = span_array(encoding.offsets)
    inside = np.zeros(len(text) + 2, dtype=np.int64)
    if len(offsets):
        words = np.asarray([-1 if w is None else w for w in encoding.word_ids], dtype=np.int64)
        first = np.flatnonzero(np.r_[True, words[1:] != words[:-1]])
        last = np.r_[first[1:] - 1, len(words) - 1]
        word_starts, word_ends = offsets[first, 0], offsets[last, 1]
        long = word_ends - word_starts >= 2
        np.add.at(inside, word_starts[long] + 1, 1)  # positions strictly inside a word
        np.add.at(inside, word_ends[long], -1)
    safe = (np.cumsum(inside)[: len(text) + 1] == 0).tolist()
    return offsets[:, 0].tolist(), safe


def length_function(unit: SizeUnit = "chars", tokenizer: TokenizerLike = "minilm") -> Callable[[str], int]:
    """The function that measures a text in `unit` (``len`` for characters)."""
    if unit == "chars":
        return len
    if unit == "words":
        return count_words
    if unit == "tokens":
        _resolve(tokenizer)  # an unknown tokenizer fails here, not at the first measurement
        return functools.partial(count_tokens, tokenizer=tokenizer)
    raise ValueError(f"unit must be one of ['chars', 'words', 'tokens'], got {unit!r}")


def token_spans(text: str, tokenizer: TokenizerLike = "minilm") -> list[tuple[int, int]]:
    """The exact character span of every token of `text`, in order (no special tokens).

    * ``"minilm"`` (and any Hugging Face tokenizer): the fast tokenizer's offsets. They skip
      whitespace, and a character the vocabulary lacks becomes ``[UNK]`` with the span of its word.
    * ``"cl100k"`` (and any tiktoken encoding): tiktoken's start offsets (`decode_with_offsets`); a
      token ends where the next begins, so spans tile the text and include the whitespace BPE
      attaches to a word. A character split over two byte-level tokens belongs to the first; the
      second then has an empty span.
    * a function: the spans it returns, checked to be ordered, non-overlapping and inside `text`, or
      the spans of the token strings it returns, found in order; a function that returns only a
      count (an int, or token ids) raises `ValueError`.
    """
    array = token_span_array(text, tokenizer)
    return list(zip(array[:, 0].tolist(), array[:, 1].tolist()))


def token_span_array(text: str, tokenizer: TokenizerLike = "minilm") -> np.ndarray:
    """`token_spans` as an ``(n, 2)`` int64 array, computed without a Python tuple per token."""
    kind, model = _resolve(tokenizer)
    if kind == "wordpiece":
        return span_array(model.encode(text, add_special_tokens=False).offsets)
    if kind == "tiktoken":
        bounds = tiktoken_bounds(text, model)
        table = np.empty((len(bounds) - 1, 2), dtype=np.int64)
        table[:, 0] = bounds[:-1]
        table[:, 1] = bounds[1:]  # a token ends where the next one starts (starts never decrease)
        return table
    _, spans = _function_tokens(model, text)
    if spans is None:
        raise ValueError(
            "this tokenizer function returns a count (an int or token ids), not where each token lies: "
            "return (start, end) spans or token strings to cut a text at token boundaries"
        )
    return span_array(spans)


def _tiktoken_ids(model: Any, text: str) -> np.ndarray:
    """The token ids of `text` as an array: ``encode_to_numpy`` where the encoding has it (tiktoken
    >= 0.7), which hands the ids over as one buffer instead of a Python list of ints and, with no
    special token allowed or disallowed, encodes exactly like ``encode_ordinary``; otherwise (or for
    a text with lone surrogates, which only ``encode_ordinary`` repairs) ``encode_ordinary``."""
    if hasattr(model, "encode_to_numpy"):
        try:
            return model.encode_to_numpy(text, disallowed_special=())
        except UnicodeEncodeError:
            pass
    return np.asarray(model.encode_ordinary(text), dtype=np.int64)


def tiktoken_bounds(text: str, model: Any) -> np.ndarray:
    """Where each token of `text` starts for the tiktoken encoding `model`, then the end of the text
    (``n + 1`` offsets; tiktoken's tokens tile the text, so token ``k`` spans ``bounds[k:k + 2]``):
    the starts of `token_spans` without the ``(n, 2)`` table."""
    return _tiktoken_bounds(model, _tiktoken_ids(model, text), text)


_ZERO = np.zeros(1, dtype=np.int64)
_BYTE_API = ("decode_bytes", "decode_single_token_bytes", "n_vocab")


def _tiktoken_bounds(model: Any, ids: Sequence[int] | np.ndarray, text: str) -> np.ndarray:
    """The character offset at which each token of `ids` (the tokens of `text`) starts, then
    ``len(text)``: exactly the offsets of tiktoken's ``decode_with_offsets`` (a token that begins
    inside a character starts at that character), found with arrays instead of one Python step per
    token (that loop was two thirds of chunking in cl100k tokens). The bytes the tokens decode to
    are the text's UTF-8, so the text is encoded instead of the tokens decoded; in an ASCII text
    every byte is a character, and the offsets are the running sum of the tokens' byte lengths.
    Objects without tiktoken's byte-level API fall back to ``decode_with_offsets``."""
    ids = np.asarray(ids)
    if not len(ids):
        return np.full(1, len(text), dtype=np.int64)
    if not all(hasattr(model, name) for name in _BYTE_API):
        return np.append(np.asarray(model.decode_with_offsets(ids.tolist())[1], dtype=np.int64), len(text))
    lengths = _token_byte_lengths(model)[ids]
    if text.isascii():
        return np.concatenate((_ZERO, lengths.cumsum()))
    first_byte = lengths.cumsum() - lengths
    try:
        utf8 = text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates, which tiktoken encoded as U+FFFD
        utf8 = model.decode_bytes(ids.tolist())
    data = np.frombuffer(utf8, dtype=np.uint8)
    continuation = ((data & 0xC0) == 0x80).nonzero()[0]  # UTF-8 bytes that do not start a character
    # a continuation byte lies before the first byte of every token after the last one starting at or before it
    after = first_byte.searchsorted(continuation, side="right")
    chars_before = first_byte - np.bincount(after, minlength=len(first_byte) + 1).cumsum()[:-1]
    inside = (data[first_byte] & 0xC0) == 0x80  # a token that begins inside a character starts at it
    return np.append(chars_before - inside, len(text))


@cached(PER_TEXT)
def _token_byte_lengths(model: Any) -> np.ndarray:
    """Bytes per token id of a tiktoken encoding (0 for ids it does not define), built once."""
    lengths = np.zeros(model.n_vocab, dtype=np.int64)
    for token in range(model.n_vocab):
        try:
            lengths[token] = len(model.decode_single_token_bytes(token))
        except KeyError:
            pass
    return lengths


def token_span_arrays(texts: Sequence[str], tokenizer: TokenizerLike = "minilm") -> list[np.ndarray]:
    """`token_span_array` of each of `texts`: the same arrays, with a Hugging Face tokenizer from one
    ``encode_batch`` (which spreads the texts over the tokenizer's threads instead of one call each)."""
    kind, model = _resolve(tokenizer)
    if kind == "wordpiece":
        return [span_array(e.offsets) for e in model.encode_batch(list(texts), add_special_tokens=False)]
    return [token_span_array(text, tokenizer) for text in texts]


def _resolve(tokenizer: TokenizerLike) -> tuple[str, Any]:
    """``(kind, model)`` for a tokenizer name or object: ``"wordpiece"`` and a ``tokenizers.Tokenizer``
    that neither truncates nor pads, ``"tiktoken"`` and an encoding, or ``"function"`` and a callable."""
    if isinstance(tokenizer, str):
        return _named(tokenizer)
    backend = getattr(tokenizer, "backend_tokenizer", tokenizer)
    if hasattr(backend, "encode") and hasattr(backend, "to_str") and hasattr(backend, "no_truncation"):
        return "wordpiece", _untruncated(backend)
    if hasattr(tokenizer, "encode_ordinary") and hasattr(tokenizer, "decode_with_offsets"):
        return "tiktoken", tokenizer
    if callable(tokenizer):
        return "function", tokenizer
    raise ValueError(
        f"tokenizer must be one of {list(_NAMES)}, a Hugging Face fast tokenizer, a tiktoken Encoding or a "
        f"function of a text (returning a count, token spans or token strings); got {type(tokenizer).__name__}"
    )


@cached(RESOURCE)
def _named(tokenizer: str) -> tuple[str, Any]:
    """`_resolve` for a tokenizer name, looked up once (a cache miss of `count_tokens` pays for it)."""
    if tokenizer == "minilm":
        from ..models.resources import hf_tokenizer

        return "wordpiece", hf_tokenizer("minilm").backend_tokenizer
    if tokenizer == "cl100k":
        from ..models.resources import tiktoken_encoding

        return "tiktoken", tiktoken_encoding()
    raise ValueError(f"tokenizer must be one of {list(_NAMES)} or a tokenizer object, got {tokenizer!r}")


def _function_tokens(function: Callable[[str], Any], text: str) -> tuple[int, list[tuple[int, int]] | None]:
    """What a tokenizer function says about `text`: ``(count, spans)``, spans None when it gives none.

    An int is a count; a list of pairs is spans (checked to be ordered, non-overlapping, inside the
    text); a list of strings is tokens, placed in the text in order; any other list (ids) is counted."""
    out = function(text)
    if isinstance(out, (int, np.integer)) and not isinstance(out, bool):
        if out < 0:
            raise ValueError(f"a tokenizer function returned a negative count ({out})")
        return int(out), None
    items = list(out)
    if not items:
        return 0, []
    if all(isinstance(x, str) for x in items):
        spans = _placed(items, text)
    elif all(isinstance(x, (tuple, list)) and len(x) == 2 for x in items):
        spans = _checked_spans(items, text)
    else:
        return len(items), None
    return len(spans), spans


def _placed(tokens: Sequence[str], text: str) -> list[tuple[int, int]]:
    """The span of each token string, found in `text` in order (each after the previous one)."""
    spans, pos = [], 0
    for token in tokens:
        start = text.find(token, pos)
        if start < 0:
            raise ValueError(
                f"a tokenizer function returned the token {token!r}, which does not occur in the text after "
                f"position {pos}; return (start, end) spans instead of token strings"
            )
        pos = start + len(token)
        spans.append((start, pos))
    return spans


def _checked_spans(items: Sequence[Any], text: str) -> list[tuple[int, int]]:
    """Token spans from a tokenizer function, checked to be ordered, non-overlapping and inside the text."""
    spans = [(int(s), int(e)) for s, e in items]
    previous_end = 0
    for start, end in spans:
        if not previous_end <= start <= end <= len(text):
            raise ValueError(
                "a tokenizer function must return ordered, non-overlapping (start, end) spans inside the "
                f"text; got ({start}, {end}) after a token ending at {previous_end}"
            )
        previous_end = end
    return spans


_PROBE = "A tokenizer check: 42 words, and one more."


def check_tokenizer(owner: str, tokenizer: TokenizerLike, needs_spans: bool = False) -> None:
    """Raise `ValueError` (naming `owner`'s ``tokenizer`` parameter) unless `tokenizer` is a known name
    or an object that measures a probe text; with `needs_spans`, it must also say where each token
    lies (see the module docstring)."""
    where = f"{owner}: parameter 'tokenizer'"
    if isinstance(tokenizer, str):
        if tokenizer not in _NAMES:
            raise ValueError(f"{where} must be one of {list(_NAMES)} or a tokenizer object, got {tokenizer!r}")
        return
    try:
        kind, model = _resolve(tokenizer)
        count_tokens(_PROBE, tokenizer)
        if needs_spans and kind == "function" and _function_tokens(model, _PROBE)[1] is None:
            raise ValueError("it returns a count, but this chunker cuts at token boundaries and needs spans or "
                             "token strings")
    except (ValueError, TypeError) as error:
        raise ValueError(f"{where} is not usable: {error}") from error


@cached(PER_TEXT)
def _untruncated(backend: Any) -> Any:
    """`backend` itself, or a copy with truncation and padding off if either is on (a tokenizer
    file that truncates to 128 tokens would otherwise cut every long text short without a word)."""
    if backend.truncation is None and backend.padding is None:
        return backend
    copy = type(backend).from_str(backend.to_str())
    copy.no_truncation()
    copy.no_padding()
    return copy


class UnitSized:
    """Mixin for a chunker whose chunks measure at most ``chunk_size`` in ``unit`` (characters, words,
    or tokens of ``tokenizer``): it supplies the size contract, `size_limit` and `measure`, and the
    checks every sized chunker shares (run by `validate`): the tokenizer works (`check_tokenizer`;
    with spans when `cuts_at_tokens` and the unit is tokens), and a ``min_chunk_size``, where the
    chunker has one, is smaller than ``chunk_size``. List the mixin before `chunklab.core.Chunker`
    among the bases, and declare the parameters in ``__init__``: ``unit: UnitParam``,
    ``tokenizer: TokenizerParam`` and a ``chunk_size`` declared ``Param(counted_in_unit=True)``.

    The one exception to the size contract that every sized chunker shares: a single character that
    alone measures more than ``chunk_size`` (a character outside ASCII can be two or three cl100k
    tokens, so with ``chunk_size=1`` token) is a chunk by itself, since offsets cannot split it.
    """

    #: True for the chunkers that cut at token boundaries (they need a tokenizer that gives spans).
    cuts_at_tokens: ClassVar[bool] = False
    chunk_size: int
    unit: SizeUnit
    tokenizer: TokenizerLike

    def validate(self) -> None:
        """The base checks, then the tokenizer and the ``min_chunk_size < chunk_size`` rule."""
        super().validate()  # type: ignore[misc]
        try:
            check_tokenizer(type(self).__name__, self.tokenizer, self.cuts_at_tokens and self.unit == "tokens")
        except ValueError as error:
            raise ParameterError(str(error)) from error
        if hasattr(self, "min_chunk_size"):
            self.require_smaller("min_chunk_size", "chunk_size")  # type: ignore[attr-defined]

    def size_limit(self) -> int:
        """At most `chunk_size` units per chunk."""
        return self.chunk_size

    def measure_function(self) -> Callable[[str], int]:
        """The measure itself (``len`` for characters, which `chunklab.text.pack`'s fast paths recognise)."""
        return length_function(self.unit, self.tokenizer)

    def measure(self, text: str) -> int:
        """Characters, words or tokens, depending on `unit`."""
        return self.measure_function()(text)
