"""What is indexed for a chunk: one rule for `compare`, the vector store and the command line.

A retriever (`chunklab.evaluation.comparison.compare`, `chunklab.evaluation.failures.rank`) and a
vector store (`chunklab.pipeline.store`, ``chunklab index``) index a chunk's text; with
``use_context=True`` they index a context on a line before it (`indexed_text`). Which context is
`contextualized`'s rule, applied to one document's chunks at a time:

* a chunker's own context stands: when the chunker has a ``context`` parameter (it decides about
  context itself: the hybrid with ``context=None``, the table chunker with ``context="none"`` have
  none), or when any chunk of the document has a ``metadata["context"]``, the chunks are indexed as
  they are;
* any other document's chunks get the context of `chunklab.strategies.steps.ContextStep()`: the
  document's title and the breadcrumb of the sections the chunk lies in.

The rule looks at one document at a time, so a store that indexes one file today and another
tomorrow indexes each the way a comparison of both would. ``use_context`` is False by default
everywhere (``compare``, ``compare_at_k``, the store's functions, `indexed_text`, and on the command
line ``chunklab evaluate`` and ``chunklab index`` without ``--use-context``): a chunk is measured and
stored by its own words unless a context is asked for, and what ``chunklab index --use-context``
stores is what ``chunklab evaluate --use-context`` measured. Metrics and budgets never see the
context: they use the chunk's offsets and text.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core import Chunk, Chunker
from ..strategies.steps import ContextStep

__all__ = ["contextualized", "indexed_text"]


def indexed_text(chunk: Chunk, use_context: bool = False) -> str:
    """What a retriever or a store indexes for `chunk`: its ``metadata["context"]`` (a breadcrumb, a
    table header, a title...) on a line before its text when `use_context` and a context exist, else
    the text alone. Give it the chunks `contextualized` returns, so that a chunking without a context
    of its own gets one. Metrics never see this string; they use the chunk's offsets."""
    context = chunk.metadata.get("context") if use_context else None
    return f"{context}\n{chunk.text}" if context else chunk.text


def contextualized(chunker: Chunker, document: str, chunks: Sequence[Chunk]) -> list[Chunk]:
    """The chunks `chunker` made of `document` as ``use_context=True`` indexes them.

    The rule: a chunker's own context stands. When `chunker` has a ``context`` parameter, or any of
    `chunks` has a ``metadata["context"]``, the chunks are returned as they are; otherwise each gets
    the context `chunklab.strategies.steps.ContextStep()` writes (the document's title and the
    breadcrumb of its sections; a chunk for which that is empty stays without one). Offsets, text
    and every other metadata key are unchanged.
    """
    if "context" in chunker.get_params() or any(c.metadata.get("context") for c in chunks):
        return list(chunks)
    return ContextStep()(document, chunks)
