"""Other frameworks' splitters as chunklab chunkers: the reverse of `chunklab.integrations.langchain`
and `chunklab.integrations.llama_index`.

`LangChainChunker` wraps any LangChain ``TextSplitter`` (anything with ``split_text(text) ->
list[str]``), `LlamaIndexChunker` any LlamaIndex ``NodeParser``; both are `chunklab.Chunker`
objects, so `chunklab.compare`, the leaderboards and `show` take them beside chunklab's own
strategies. Neither framework returns exact offsets (LangChain returns strings, stripped and with
separators dropped; LlamaIndex's node offsets come from a search and may be None), so each chunk's
span is recovered by `chunklab.integrations.placement.place` and holds the contract of every
chunker: ``source[chunk.start:chunk.end] == chunk.text``, overlap kept, source order. Where the
source slice differs from what the splitter returned, the splitter's text is in
``metadata["splitter_text"]``.

Neither framework is imported until a text is chunked (or a reference row builds its splitter).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from ..core import Chunker, ChunkSpan, ParameterError
from .placement import place

__all__ = ["LangChainChunker", "LlamaIndexChunker"]


class LangChainChunker(Chunker):
    """A LangChain ``TextSplitter`` as a chunklab chunker, with exact offsets (see the module docstring).

    ``LangChainChunker(RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200))``. The
    splitter's own size (``chunk_size`` measured by its ``length_function``) is reported as
    `measure`, without a promise (`size_limit` is None): LangChain keeps a piece it cannot split
    however long it is. A repeated passage is placed using the splitter's ``chunk_overlap`` (a chunk
    overlaps the previous one by at most that much). Two chunkers are equal when they wrap the same
    splitter object.
    """

    name: ClassVar[str] = "langchain"

    def __init__(self, splitter: Any) -> None:
        self.splitter = splitter
        self.validate()

    def check(self) -> None:
        """The splitter must have a ``split_text`` method."""
        if not callable(getattr(self.splitter, "split_text", None)):
            raise ParameterError(
                f"{type(self).__name__}: parameter 'splitter' must be a LangChain TextSplitter (an object with "
                f"split_text), got {type(self.splitter).__name__}"
            )

    def text_splitter(self) -> Any:
        """The LangChain splitter that cuts (the one given; a reference row builds its own)."""
        return self.splitter

    def spans(self, text: str) -> Iterable[ChunkSpan]:
        """The splitter's chunks of `text`, placed exactly in it."""
        splitter = self.text_splitter()
        pieces = splitter.split_text(text)
        if not all(isinstance(piece, str) for piece in pieces):
            raise TypeError(f"{type(splitter).__name__}.split_text must return strings")
        return place(text, pieces, overlap_fits=_overlap_rule(splitter))

    def measure(self, text: str) -> int:
        """The size of `text` as the splitter measures it (its ``length_function``; characters by default)."""
        return getattr(self.text_splitter(), "_length_function", len)(text)


def _overlap_rule(splitter: Any) -> Any:
    """``shared -> bool``: could `splitter` have repeated `shared` at the start of a chunk? None when
    the splitter says nothing of its overlap."""
    overlap = getattr(splitter, "_chunk_overlap", None)
    if not isinstance(overlap, int):
        return None
    encoding = getattr(splitter, "_tokenizer", None)
    if callable(getattr(encoding, "encode_ordinary", None)):  # a TokenTextSplitter: overlap in its tokens
        return lambda shared: len(encoding.encode_ordinary(shared)) <= overlap
    measure = getattr(splitter, "_length_function", len)
    return lambda shared: measure(shared.strip()) <= overlap


class LlamaIndexChunker(Chunker):
    """A LlamaIndex ``NodeParser`` (``SentenceSplitter``, ``TokenTextSplitter``...) as a chunklab
    chunker, with exact offsets (see the module docstring).

    ``LlamaIndexChunker(SentenceSplitter(chunk_size=512))``. Each node's ``start_char_idx`` is kept
    when the source holds the node's text there; otherwise (None, or a misplaced repeat) the node is
    placed by search. `size_limit` is None (a sentence longer than the chunk size stays whole). Two
    chunkers are equal when they wrap the same parser object.
    """

    name: ClassVar[str] = "llama_index"

    def __init__(self, parser: Any) -> None:
        self.parser = parser
        self.validate()

    def check(self) -> None:
        """The parser must have a ``get_nodes_from_documents`` method."""
        if not callable(getattr(self.parser, "get_nodes_from_documents", None)):
            raise ParameterError(
                f"{type(self).__name__}: parameter 'parser' must be a LlamaIndex NodeParser (an object with "
                f"get_nodes_from_documents), got {type(self.parser).__name__}"
            )

    def node_parser(self) -> Any:
        """The LlamaIndex parser that cuts (the one given; a reference row builds its own)."""
        return self.parser

    def spans(self, text: str) -> Iterable[ChunkSpan]:
        """The parser's nodes of `text`, placed exactly in it."""
        from llama_index.core.schema import Document, MetadataMode

        nodes = self.node_parser().get_nodes_from_documents([Document(text=text)])
        pieces = [node.get_content(metadata_mode=MetadataMode.NONE) for node in nodes]
        return place(text, pieces, starts=[node.start_char_idx for node in nodes])
