"""One document in, its chunk records out: the unit of work of the command line, the store and Dask.

A record is `chunklab.pipeline.export.to_dicts`'s shape, ``{"text", "start", "end", "index", "metadata"}``,
with the document's name as ``metadata["source"]``; `chunklab.pipeline.export.json_line` writes it and
`chunklab.pipeline.export.read_jsonl` reads it back into chunks. Because ``chunklab chunk``,
`chunklab.pipeline.store.index_documents` and the Dask functions all call `chunk_document`, they produce the
same records for the same files.

For a document with page spans (a PDF read by `chunklab.formats.readers`), each chunk whose chunker did not
say where it lies also gets ``page`` (the page it starts on, from 1) and ``pages`` (every page it
touches), so any strategy's chunks can be filtered by page in a vector store.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Sequence
from typing import Any

from ..core import Chunker
from ..formats.document import Document
from ..formats.readers import read_document
from .export import to_dicts

__all__ = ["chunk_document", "chunk_file", "page_numbers"]


def page_numbers(pages: Sequence[tuple[int, int]], start: int, end: int) -> list[int]:
    """The numbers (from 1) of the pages whose spans share a character with ``[start, end)``.

    `pages` are sorted, non-overlapping ``(start, end)`` spans, as ``Document.metadata["pages"]``.
    """
    first = bisect.bisect_right(pages, start, key=lambda span: span[1])  # the first page ending after start
    numbers = []
    for i in range(first, len(pages)):
        if pages[i][0] >= end:
            break
        numbers.append(i + 1)
    return numbers


def chunk_document(chunker: Chunker, document: Document) -> list[dict[str, Any]]:
    """The chunk records of `document` (its name as each chunk's ``source``; pages added for PDFs)."""
    records = to_dicts(chunker(document.text, source=document.name))
    pages = document.metadata.get("pages")
    if pages:
        for record in records:
            metadata = record["metadata"]
            if "page" not in metadata and "pages" not in metadata:
                touched = page_numbers(pages, record["start"], record["end"])
                if touched:
                    metadata["page"], metadata["pages"] = touched[0], touched
    return records


def chunk_file(chunker: Chunker, path: str | os.PathLike[str], name: str | None = None) -> list[dict[str, Any]]:
    """Read `path` with `chunklab.formats.readers.read_document` (named `name`) and chunk it.

    Raises `chunklab.formats.readers.DocumentError` naming the path when the file cannot be read.
    """
    return chunk_document(chunker, read_document(path, name))
