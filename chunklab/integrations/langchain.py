"""Any chunklab chunker as a LangChain text splitter, and chunklab chunks as LangChain documents.

`ChunklabTextSplitter` is a ``langchain_text_splitters.TextSplitter``: it works wherever LangChain
takes one (``split_text``, ``create_documents``, ``split_documents``, ``transform_documents``), and
cuts with the chunklab chunker it wraps. LangChain's own ``create_documents`` finds each chunk's
``start_index`` by searching the text for it, which lands on the wrong occurrence when a passage
repeats; here every document gets the chunk's own offsets (``start_index`` and ``end_index``, with
``text[start_index:end_index] == page_content``) and the chunk's metadata (``context``, ``section``,
``modality``...) on top of the metadata passed in. LangChain's ``Document`` has no field for text
to index in front of a chunk, so ``context`` stays in the metadata.

Needs ``pip install -e '.[langchain]' in a chunklab clone`` (langchain-core and langchain-text-splitters).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_text_splitters import TextSplitter

from ..core import CHUNKERS, Chunk, Chunker
from . import metadata_values

__all__ = ["ChunklabTextSplitter", "to_documents"]


def to_documents(chunks: Iterable[Chunk], metadata: Mapping[str, Any] | None = None) -> list[Document]:
    """LangChain documents from chunklab chunks: the chunk text as ``page_content``; `metadata`,
    then the chunk's metadata, then ``start_index`` and ``end_index`` as ``metadata``."""
    base = dict(metadata or {})
    return [
        Document(page_content=chunk.text,
                 metadata={**base, **metadata_values(chunk.exported_metadata()), "start_index": chunk.start,
                           "end_index": chunk.end})
        for chunk in chunks
    ]


class ChunklabTextSplitter(TextSplitter):
    """A LangChain ``TextSplitter`` that cuts with a chunklab chunker.

    `chunker` is a `chunklab.Chunker` or the name of a registered one (``"markdown"``), built with
    `params` (``ChunklabTextSplitter("recursive", chunk_size=500, chunk_overlap=50)``). ``chunk_size`` as LangChain sees it is
    the chunker's size limit (in its unit), ``chunk_overlap`` 0: the chunker decides both.
    `add_start_index` (default True) puts each chunk's exact ``start_index`` and ``end_index`` in its
    document's metadata.
    """

    def __init__(self, chunker: Chunker | str = "recursive", *, add_start_index: bool = True, **params: Any) -> None:
        if isinstance(chunker, str):
            if chunker not in CHUNKERS:
                raise ValueError(f"unknown chunker {chunker!r}; registered: {', '.join(sorted(CHUNKERS))}")
            chunker = CHUNKERS[chunker](**params)
        elif params:
            raise TypeError("parameters go to the chunker when it is given by name; this one is already built")
        super().__init__(chunk_size=chunker.size_limit() or 1_000_000_000, chunk_overlap=0,
                         length_function=chunker.measure, add_start_index=add_start_index)
        self.chunker = chunker

    def split_text(self, text: str) -> list[str]:
        """The chunk texts of `text`, in order."""
        return [chunk.text for chunk in self.chunker(text)]

    def create_documents(self, texts: list[str], metadatas: Sequence[dict[Any, Any]] | None = None) -> list[Document]:
        """One document per chunk of each text, with that text's metadata (from `metadatas`), the
        chunk's metadata and, with ``add_start_index``, its exact ``start_index``/``end_index``."""
        metadatas = metadatas or [{}] * len(texts)
        documents = []
        for text, metadata in zip(texts, metadatas):
            made = to_documents(self.chunker(text), metadata)
            if not self._add_start_index:
                for document in made:
                    del document.metadata["start_index"], document.metadata["end_index"]
            documents.extend(made)
        return documents
