"""chunklab inside other frameworks: any registered chunker as a LangChain text splitter
(``chunklab.integrations.langchain``, ``pip install 'chunklab[langchain]'``) or a LlamaIndex node
parser (``chunklab.integrations.llama_index``, ``pip install 'chunklab[llama-index]'``), with the
exact offsets and the metadata of every chunk. The other way round, any LangChain splitter or
LlamaIndex node parser as a chunklab chunker (``chunklab.integrations.wrapped``, offsets recovered by
``chunklab.integrations.placement``), and the reference rows built from them that comparisons show
beside chunklab's strategies (``chunklab.integrations.references``).

The adapters import their framework, so these modules are imported by name only (the wrappers and
the reference rows import it only when they chunk); `metadata_values` is what the adapters use to
hand chunk metadata over in plain values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["metadata_values"]


def metadata_values(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """A chunk's metadata in plain values a framework can store and serialise: tuples and sets as
    lists, mappings as dicts, numpy numbers and arrays as Python numbers and lists, recursively."""
    return {str(key): _plain(value) for key, value in metadata.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return metadata_values(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_plain(v) for v in value), key=repr)
    if callable(getattr(value, "tolist", None)):
        return value.tolist()
    return value
