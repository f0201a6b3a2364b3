"""Any chunklab chunker as a LlamaIndex node parser.

`ChunklabNodeParser` is a ``llama_index.core.node_parser.NodeParser``: give it to an ingestion
pipeline or call ``get_nodes_from_documents``, and every document is cut by the chunklab chunker it
wraps into ``TextNode`` objects that carry:

* ``start_char_idx`` and ``end_char_idx``: the chunk's exact offsets in the document's text (LlamaIndex
  itself would search the text for each node and take the first match after the previous one,
  which misplaces a repeated passage; the chunker's own offsets are kept);
* the chunk's metadata (``section``, ``modality``, ``page``...) beside the document's;
* ``context`` (a breadcrumb, a table's header) where LlamaIndex puts text in front of a node: in its
  metadata, the only chunklab key not excluded from the embedding and LLM views, so
  ``node.get_content(MetadataMode.EMBED)`` reads ``context: <context>`` above the chunk text. The
  other chunklab keys (``chunk_index``, ``content_hash``...) are stored but not embedded.

Needs ``pip install -e '.[llama-index]' in a chunklab clone`` (llama-index-core).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.node_parser import NodeParser
from llama_index.core.node_parser.node_utils import build_nodes_from_splits
from llama_index.core.schema import BaseNode, Document, MetadataMode, TextNode
from llama_index.core.utils import get_tqdm_iterable
from pydantic import Field

from ..core import CHUNKERS, Chunker
from . import metadata_values

__all__ = ["ChunklabNodeParser"]


class ChunklabNodeParser(NodeParser):
    """A LlamaIndex ``NodeParser`` that cuts with a chunklab chunker (see the module docstring).

    Build it with a chunker, ``ChunklabNodeParser(chunker=MarkdownChunker())``, or by name,
    ``ChunklabNodeParser.from_strategy("markdown", chunk_size=500)``.
    """

    chunker: Any = Field(description="The chunklab chunker that cuts every document.")

    @classmethod
    def class_name(cls) -> str:
        """LlamaIndex's name for this component."""
        return "ChunklabNodeParser"

    @classmethod
    def from_strategy(cls, name: str, **params: Any) -> ChunklabNodeParser:
        """A parser around the registered chunker `name` built with `params`."""
        if name not in CHUNKERS:
            raise ValueError(f"unknown chunker {name!r}; registered: {', '.join(sorted(CHUNKERS))}")
        return cls(chunker=CHUNKERS[name](**params))

    def _parse_nodes(self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any) -> list[BaseNode]:
        out: list[BaseNode] = []
        chunker: Chunker = self.chunker
        for node in get_tqdm_iterable(nodes, show_progress, "Chunking with chunklab"):
            text = node.get_content(metadata_mode=MetadataMode.NONE)
            chunks = chunker(text)
            made = build_nodes_from_splits([c.text for c in chunks], node, id_func=self.id_func)
            for piece, chunk in zip(made, chunks):
                own = metadata_values(chunk.exported_metadata())
                piece.start_char_idx, piece.end_char_idx = chunk.start, chunk.end
                piece.metadata.update(own)
                hidden = [key for key in own if key != "context"]
                piece.excluded_embed_metadata_keys = [*piece.excluded_embed_metadata_keys, *hidden]
                piece.excluded_llm_metadata_keys = [*piece.excluded_llm_metadata_keys, *hidden]
            out.extend(made)
        return out

    def _postprocess_parsed_nodes(self, nodes: list[BaseNode], parent_doc_map: dict[str, Document]) -> list[BaseNode]:
        """LlamaIndex's relationships and metadata merge, with the chunker's exact offsets kept."""
        exact = {id(n): (n.start_char_idx, n.end_char_idx) for n in nodes if isinstance(n, TextNode)}
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for node in nodes:
            if id(node) in exact:
                node.start_char_idx, node.end_char_idx = exact[id(node)]  # type: ignore[attr-defined]  # a TextNode
        return nodes
