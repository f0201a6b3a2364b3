"""Other frameworks' splitters as chunklab chunkers: the reverse of `chunklab.integrations.langchain`
and `chunklab.integrations.llama_index`.

`LangChainChunker` wraps any LangChain ``TextSplitter`` (anything with ``split_text(text)`` that
returns strings, or LangChain documents as ``MarkdownHeaderTextSplitter`` does: their metadata goes
to ``metadata["splitter_metadata"]``), `LlamaIndexChunker` any LlamaIndex ``NodeParser``; both are `chunklab.Chunker`
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

from collections.abc import Callable, Iterable
from typing import Annotated, Any, ClassVar

from ..constraints import HasMethods
from ..core import Chunker, ChunkSpan
from . import metadata_values
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

    def __init__(
        self, text_splitter: Annotated[Any, HasMethods(methods=("split_text",), what="a LangChain TextSplitter")]
    ) -> None:
        self.text_splitter = text_splitter
        self.validate()

    def langchain_splitter(self) -> Any:
        """The LangChain splitter that cuts (the one given; a reference row builds its own)."""
        return self.text_splitter

    def spans(self, text: str) -> Iterable[ChunkSpan]:
        """The splitter's chunks of `text`, placed exactly in it."""
        splitter = self.langchain_splitter()
        pieces: list[str] = []
        metadata: list[dict[str, Any]] = []
        for piece in splitter.split_text(text):
            if isinstance(piece, str):
                pieces.append(piece)
                metadata.append({})
            elif isinstance(getattr(piece, "page_content", None), str):  # a Document (MarkdownHeaderTextSplitter)
                pieces.append(piece.page_content)
                metadata.append({"splitter_metadata": metadata_values(piece.metadata)} if piece.metadata else {})
            else:
                raise TypeError(f"{type(splitter).__name__}.split_text must return strings or LangChain Documents, "
                                f"got {type(piece).__name__}")
        return place(text, pieces, overlap_fits=_overlap_rule(splitter), metadata=metadata)

    def measure(self, text: str) -> int:
        """The size of `text` as the splitter measures it (its ``length_function``; characters by default)."""
        return getattr(self.langchain_splitter(), "_length_function", len)(text)


def _overlap_rule(splitter: Any) -> Callable[[str], bool] | None:
    """``shared -> bool``: could `splitter` have repeated `shared` at the start of a chunk? None when
    the splitter says nothing of its overlap."""
    overlap = getattr(splitter, "_chunk_overlap", None)
    if not isinstance(overlap, int):
        return None
    encode = getattr(getattr(splitter, "_tokenizer", None), "encode_ordinary", None)
    if callable(encode):  # a TokenTextSplitter: overlap in its tokens
        return lambda shared: len(encode(shared)) <= overlap
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

    def __init__(
        self,
        node_parser: Annotated[Any, HasMethods(methods=("get_nodes_from_documents",), what="a LlamaIndex NodeParser")],
    ) -> None:
        self.node_parser = node_parser
        self.validate()

    def llama_index_parser(self) -> Any:
        """The LlamaIndex parser that cuts (the one given; a reference row builds its own)."""
        return self.node_parser

    def spans(self, text: str) -> Iterable[ChunkSpan]:
        """The parser's nodes of `text`, placed exactly in it."""
        from llama_index.core.schema import Document, MetadataMode

        nodes = self.llama_index_parser().get_nodes_from_documents([Document(text=text)])
        pieces = [node.get_content(metadata_mode=MetadataMode.NONE) for node in nodes]
        return place(text, pieces, starts=[node.start_char_idx for node in nodes])
