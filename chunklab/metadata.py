"""Chunk metadata in plain values: the one rule by which chunklab hands metadata to JSON (the JSON
Lines export and the command line), to LangChain and LlamaIndex (the adapters), to a vector store
(`chunklab.pipeline.store.flatten_metadata` flattens what it gives) and to the explorer's data
attributes."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

__all__ = ["metadata_values", "plain"]


def metadata_values(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """`metadata` with every value `plain`, keys as strings."""
    return {str(key): plain(value) for key, value in metadata.items()}


def plain(value: Any) -> Any:
    """`value` in the values JSON and other frameworks store, recursively: a mapping as a dict with
    string keys, a tuple or list as a list, a set as a sorted list, a numpy number or array as a
    Python number or list, an enum member as its value; str, int, float, bool, None and anything
    else as they are (a JSON writer decides what to do with those: `json.dumps(..., default=str)`)."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value.value if isinstance(value, enum.Enum) else value
    if isinstance(value, Mapping):
        return metadata_values(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v) for v in value), key=repr)
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if callable(getattr(value, "tolist", None)):
        return value.tolist()
    return value
