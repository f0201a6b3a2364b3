"""chunklab inside other frameworks: any registered chunker as a LangChain text splitter
(``chunklab.integrations.langchain``, ``pip install -e '.[langchain]' in a chunklab clone``) or a LlamaIndex node
parser (``chunklab.integrations.llama_index``, ``pip install -e '.[llama-index]' in a chunklab clone``), with the
exact offsets and the metadata of every chunk. The other way round, any LangChain splitter or
LlamaIndex node parser as a chunklab chunker (``chunklab.integrations.wrapped``, offsets recovered by
``chunklab.integrations.placement``), and the reference rows built from them that comparisons show
beside chunklab's strategies (``chunklab.integrations.references``).

The adapters import their framework, so these modules are imported by name only (the wrappers and
the reference rows import it only when they chunk); `metadata_values` is what the adapters use to
hand chunk metadata over in plain values.
"""

from __future__ import annotations

from ..metadata import metadata_values

__all__ = ["metadata_values"]
