"""From notebook to pipeline: chunk records and their export, files in and out, the command line,
a ChromaDB store (``chunklab.pipeline.store``) and Dask (``chunklab.pipeline.dask``).

The store and Dask modules import their (large) libraries, so they are imported by name only.
"""

from .export import from_dicts, read_jsonl, to_dicts, to_langchain, to_llamaindex, write_jsonl
from .files import chunk_document, chunk_file

__all__ = [
    "chunk_document",
    "chunk_file",
    "from_dicts",
    "read_jsonl",
    "to_dicts",
    "to_langchain",
    "to_llamaindex",
    "write_jsonl",
]
