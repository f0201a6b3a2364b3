"""One document in, its chunk records out: the unit of work of the command line and of `chunklab.dask`.

A record is `chunklab.export.to_dicts`'s shape, ``{"text", "start", "end", "index", "metadata"}``,
with the document's name as ``metadata["source"]``; `chunklab.export.json_line` writes it and
`chunklab.export.read_jsonl` reads it back into chunks. Because ``chunklab chunk`` and the Dask
functions both call `chunk_document`, they produce the same records for the same files.
"""

from __future__ import annotations

import os
from typing import Any

from .core import Chunker
from .corpus import Document
from .export import to_dicts
from .readers import read_document

__all__ = ["chunk_document", "chunk_file"]


def chunk_document(chunker: Chunker, document: Document) -> list[dict[str, Any]]:
    """The chunk records of `document` (its name as each chunk's ``source``)."""
    return to_dicts(chunker(document.text, source=document.name))


def chunk_file(chunker: Chunker, path: str | os.PathLike[str], name: str | None = None) -> list[dict[str, Any]]:
    """Read `path` with `chunklab.readers.read_document` (named `name`) and chunk it.

    Raises `chunklab.readers.DocumentError` naming the path when the file cannot be read.
    """
    return chunk_document(chunker, read_document(path, name))
