"""What an embedding model silently drops: chunks longer than its window, measured per chunker.

all-MiniLM-L6-v2 reads at most 256 word pieces, its ``[CLS]`` and ``[SEP]`` included (as
sentence-transformers runs it); whatever a chunk holds beyond that never reaches its vector.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..core import Chunk, Chunker
from ..formats.corpus import list_documents, load_document
from ..models.resources import MINILM_MAX_TOKENS
from ..text.length import TokenizerLike, count_tokens, token_span_array, token_span_arrays
from .comparison import default_chunkers
from .remembered import remembered

__all__ = ["MINILM_SPECIAL_TOKENS", "model_token_count", "truncation_of", "truncation_table", "unread_chars"]

#: all-MiniLM-L6-v2 wraps every input in ``[CLS] ... [SEP]``: two of its 256 positions.
MINILM_SPECIAL_TOKENS = 2


def model_token_count(
    text: str, tokenizer: TokenizerLike = "minilm", special_tokens: int = MINILM_SPECIAL_TOKENS
) -> int:
    """How many positions of the model's window `text` fills: its tokens plus the special tokens
    the model wraps it in (``[CLS]`` and ``[SEP]`` for MiniLM)."""
    return count_tokens(text, tokenizer) + special_tokens


def unread_chars(
    text: str, max_tokens: int = MINILM_MAX_TOKENS, tokenizer: TokenizerLike = "minilm",
    special_tokens: int = MINILM_SPECIAL_TOKENS,
) -> int:
    """How many characters at the end of `text` a model with a window of `max_tokens` never reads
    (0 if it fits): everything after the last token that still fits beside the special tokens."""
    return _unread(text, token_span_array(text, tokenizer), max_tokens - special_tokens)


def _unread(text: str, spans: np.ndarray, room: int) -> int:
    """`unread_chars` of `text` from its token spans, when `room` tokens fit beside the special ones."""
    if len(spans) <= room:
        return 0
    return len(text) - int(spans[room - 1, 1]) if room > 0 else len(text)


@remembered
def truncation_table(
    chunkers: Mapping[str, Chunker] | None = None,
    docs: Sequence[Any] | None = None,
    max_tokens: int = MINILM_MAX_TOKENS,
    tokenizer: TokenizerLike = "minilm",
    special_tokens: int = MINILM_SPECIAL_TOKENS,
) -> Any:
    """For each chunker, how many of its chunks an embedding model would silently truncate.

    Every chunker (default: every registered one with its defaults) chunks every document
    (default: the whole corpus), then `truncation_of` measures the chunks (all-MiniLM-L6-v2 in
    sentence-transformers by default: 256 word pieces, ``[CLS]`` and ``[SEP]`` included).
    """
    if chunkers is None:
        chunkers = default_chunkers()
    documents = [
        load_document(d) if isinstance(d, str) else d for d in (docs if docs is not None else list_documents("dev"))
    ]
    chunks = {label: [c for doc in documents for c in chunker(doc.text, source=doc.name)]
              for label, chunker in chunkers.items()}
    return _truncation_of(chunks, max_tokens, tokenizer, special_tokens)  # stored once, as this table


@remembered
def truncation_of(
    chunks: Mapping[str, Sequence[Chunk]],
    max_tokens: int = MINILM_MAX_TOKENS,
    tokenizer: TokenizerLike = "minilm",
    special_tokens: int = MINILM_SPECIAL_TOKENS,
) -> Any:
    """For each label's chunks (e.g. a `Comparison`'s ``chunks``, so nothing is chunked twice), how
    many an embedding model would silently truncate: a chunk is truncated when its tokens plus
    `special_tokens` exceed `max_tokens`. Returns a DataFrame, one row per label: ``chunks``,
    ``truncated``, ``share_truncated``, ``max_tokens_seen`` (the longest chunk, special tokens
    included), ``unread_share`` (characters the model never reads ÷ characters indexed).
    """
    return _truncation_of(chunks, max_tokens, tokenizer, special_tokens)


def _truncation_of(
    chunks: Mapping[str, Sequence[Chunk]], max_tokens: int, tokenizer: TokenizerLike, special_tokens: int
) -> Any:
    """`truncation_of`, never stored on its own (`truncation_table` is stored as a whole)."""
    import pandas as pd

    measured = _measured([c.text for made in chunks.values() for c in made], max_tokens, tokenizer, special_tokens)
    rows = []
    for label, made in chunks.items():
        lengths = [measured[c.text][0] for c in made]
        unread = sum(measured[c.text][1] for c in made)
        indexed = sum(len(c) for c in made)
        truncated = sum(n > max_tokens for n in lengths)
        rows.append({
            "chunker": label,
            "chunks": len(made),
            "truncated": truncated,
            "share_truncated": truncated / len(made) if made else 0.0,
            "max_tokens_seen": max(lengths, default=0),
            "unread_share": unread / indexed if indexed else 0.0,
        })
    return pd.DataFrame(rows, columns=["chunker", "chunks", "truncated", "share_truncated", "max_tokens_seen",
                                       "unread_share"]).set_index("chunker")


def _measured(
    texts: Sequence[str], max_tokens: int, tokenizer: TokenizerLike, special_tokens: int
) -> dict[str, tuple[int, int]]:
    """Each distinct text of `texts` -> its ``(model_token_count, unread_chars)``, from one batch of
    token spans (chunkers often make the same chunk; a tokenizer function that only counts is asked
    text by text)."""
    distinct = list(dict.fromkeys(texts))
    try:
        tables = token_span_arrays(distinct, tokenizer)
    except ValueError:  # a function that returns counts, not spans
        counts = [model_token_count(text, tokenizer, special_tokens) for text in distinct]
        return {text: (n, unread_chars(text, max_tokens, tokenizer, special_tokens) if n > max_tokens else 0)
                for text, n in zip(distinct, counts)}
    room = max_tokens - special_tokens
    return {text: (len(t) + special_tokens, _unread(text, t, room)) for text, t in zip(distinct, tables)}
