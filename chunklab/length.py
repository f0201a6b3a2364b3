"""Chunk sizes in one unit: characters, words, or tokens of a tokenizer.

Every chunker with a size parameter measures through this module, so "400 tokens" means the same
thing to the sentence packer, the sliding window, the recursive splitter and the token chunker.
The convention for such a chunker is two constructor parameters::

    unit: SizeUnit = "chars"           # "chars", "words" or "tokens"
    tokenizer: TokenizerName = "minilm"  # used only when unit == "tokens"

and ``measure = length_function(unit, tokenizer)``.

Tokenizers (both offline, see `chunklab.resources`):

* ``"minilm"``: all-MiniLM-L6-v2's WordPiece tokenizer, the one our embedder reads. Counts exclude
  the ``[CLS]``/``[SEP]`` markers the model adds (two more tokens per input). WordPiece first splits
  at whitespace and punctuation, so the count of two pieces joined by whitespace is exactly the sum
  of their counts.
* ``"cl100k"``: OpenAI's ``cl100k_base`` BPE (tiktoken). Its pieces can absorb the whitespace in
  front of a word, so the count of a joined text can differ by a token or two from the sum of its
  parts: a packer that sums counts must re-measure the joined piece before promising a size.
"""

from __future__ import annotations

import functools
import re
from typing import Callable, ClassVar, Literal

__all__ = [
    "SizeUnit",
    "TokenizerName",
    "UnitSized",
    "count_tokens",
    "count_words",
    "length_function",
    "token_spans",
]

SizeUnit = Literal["chars", "words", "tokens"]
TokenizerName = Literal["minilm", "cl100k"]

_WORD = re.compile(r"\S+")


def count_words(text: str) -> int:
    """Whitespace-delimited words in `text` (the unit of ``unit="words"``)."""
    return sum(1 for _ in _WORD.finditer(text))


@functools.lru_cache(maxsize=65_536)
def count_tokens(text: str, tokenizer: TokenizerName = "minilm") -> int:
    """Tokens of `text` for `tokenizer`, without special tokens (cached per text)."""
    if tokenizer == "minilm":
        from .resources import hf_tokenizer

        return len(hf_tokenizer("minilm").backend_tokenizer.encode(text, add_special_tokens=False).ids)
    if tokenizer == "cl100k":
        from .resources import tiktoken_encoding

        return len(tiktoken_encoding().encode_ordinary(text))
    raise ValueError(f"tokenizer must be one of ['minilm', 'cl100k'], got {tokenizer!r}")


def length_function(unit: SizeUnit = "chars", tokenizer: TokenizerName = "minilm") -> Callable[[str], int]:
    """The function that measures a text in `unit` (``len`` for characters)."""
    if unit == "chars":
        return len
    if unit == "words":
        return count_words
    if unit == "tokens":
        if tokenizer not in ("minilm", "cl100k"):
            raise ValueError(f"tokenizer must be one of ['minilm', 'cl100k'], got {tokenizer!r}")
        return functools.partial(count_tokens, tokenizer=tokenizer)
    raise ValueError(f"unit must be one of ['chars', 'words', 'tokens'], got {unit!r}")


def token_spans(text: str, tokenizer: TokenizerName = "minilm") -> list[tuple[int, int]]:
    """The exact character span of every token of `text`, in order (no special tokens).

    * ``"minilm"``: the fast tokenizer's offsets. They skip whitespace, and a character the
      vocabulary lacks becomes ``[UNK]`` with the span of its word.
    * ``"cl100k"``: tiktoken's start offsets (`decode_with_offsets`); a token ends where the next
      begins, so spans tile the text and include the whitespace BPE attaches to a word. A
      character split over two byte-level tokens belongs to the first; the second then has an
      empty span.
    """
    if tokenizer == "minilm":
        from .resources import hf_tokenizer

        encoding = hf_tokenizer("minilm").backend_tokenizer.encode(text, add_special_tokens=False)
        return [(int(s), int(e)) for s, e in encoding.offsets]
    if tokenizer == "cl100k":
        from .resources import tiktoken_encoding

        encoding = tiktoken_encoding()
        ids = encoding.encode_ordinary(text)
        if not ids:
            return []
        _, starts = encoding.decode_with_offsets(ids)
        ends = [*starts[1:], len(text)]
        return [(s, max(s, e)) for s, e in zip(starts, ends)]
    raise ValueError(f"tokenizer must be one of ['minilm', 'cl100k'], got {tokenizer!r}")


class UnitSized:
    """Mixin for a chunker whose chunks measure at most one size parameter in ``unit`` (characters,
    words, or tokens of ``tokenizer``): it supplies the size contract, `size_limit` and `measure`.

    The size parameter is named by `size_param`: ``"max_size"`` by default, ``"size"`` for the
    window-like chunkers. List the mixin before `chunklab.core.Chunker` among the bases.
    """

    size_param: ClassVar[str] = "max_size"
    unit: SizeUnit
    tokenizer: TokenizerName

    def size_limit(self) -> int:
        """At most this many units per chunk: the value of the `size_param` parameter."""
        return getattr(self, self.size_param)

    def measure_function(self) -> Callable[[str], int]:
        """The measure itself (``len`` for characters, which `chunklab.pack`'s fast paths recognise)."""
        return length_function(self.unit, self.tokenizer)

    def measure(self, text: str) -> int:
        """Characters, words or tokens, depending on `unit`."""
        return self.measure_function()(text)
