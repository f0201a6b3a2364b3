"""One document in, its chunk records out: the unit of work of the command line, the store and Dask.

A record is `chunklab.pipeline.export.to_dicts`'s shape, ``{"text", "start", "end", "index", "metadata"}``,
with the document's name as ``metadata["source"]``; `chunklab.pipeline.export.json_line` writes it and
`chunklab.pipeline.export.read_jsonl` reads it back into chunks. Because ``chunklab chunk``,
`chunklab.pipeline.store.index_documents` and the Dask functions all call `chunk_document`, they produce the
same records for the same files.

For a document with page spans (a PDF read by `chunklab.formats.readers`), each chunk whose chunker did not
say where it lies also gets ``page`` (the page it starts on, from 1) and ``pages`` (every page it
touches), so any strategy's chunks can be filtered by page in a vector store.

Two more things come from the document, not the chunker. A chunker whose ``language`` parameter is
``"auto"`` gets the language of a source file when it accepts it (a ``.go`` file is cut by
`CodeChunker` as Go). A notebook's markdown and code are kept apart: each run of consecutive cells of one type is
chunked on its own, so no chunk mixes prose and code, and every chunk gets ``cell`` (the index of
the cell it starts in), ``cells`` (every cell it touches) and ``cell_type``.

With ``use_context=True`` (what a store indexes with a context: `chunklab.pipeline.store.index_documents`,
``chunklab index --use-context``), the chunks are given the context they are indexed with by the rule
`compare` follows too (`chunklab.evaluation.indexing.contextualized`): their chunker's own, else the
document's title and section breadcrumb in ``metadata["context"]``.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Sequence
from typing import Any

from ..core import Chunk, Chunker, as_spans, numbered
from ..evaluation.indexing import contextualized
from ..formats.document import Document
from ..formats.readers import read_document
from .export import to_dicts

__all__ = ["chunk_document", "chunk_file", "fitted", "page_numbers"]


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


def chunk_document(chunker: Chunker, document: Document, use_context: bool = False) -> list[dict[str, Any]]:
    """The chunk records of `document` (its name as each chunk's ``source``; pages added for PDFs, the
    document's language given to the chunker, notebook cells kept apart: see the module docstring);
    with `use_context`, each with the context a store indexes it with (`contextualized`)."""
    chunker = fitted(chunker, document)
    cells = document.metadata.get("cells")
    chunks = _cell_runs(chunker, document, cells) if cells else chunker(document.text, source=document.name)
    if use_context:
        chunks = contextualized(chunker, document.text, chunks)
    records = to_dicts(chunks)
    pages = document.metadata.get("pages")
    if pages:
        for record in records:
            metadata = record["metadata"]
            if "page" not in metadata and "pages" not in metadata:
                touched = page_numbers(pages, record["start"], record["end"])
                if touched:
                    metadata["page"], metadata["pages"] = touched[0], touched
    return records


def fitted(chunker: Chunker, document: Document) -> Chunker:
    """`chunker` with the document's ``language`` if its own ``language`` is ``"auto"`` and it accepts
    that value, else `chunker` itself. A document converted to markdown (a notebook: its fences name
    their language) keeps the chunker as it is."""
    language = document.metadata.get("language")
    constraint = chunker.constraints().get("language")
    if language is None or constraint is None or getattr(chunker, "language", None) != "auto":
        return chunker
    if document.metadata.get("format") == "markdown":
        return chunker
    if constraint.problem(language) is not None:
        return chunker
    return chunker.clone(language=language)


def _cell_runs(chunker: Chunker, document: Document, cells: Sequence[dict[str, Any]]) -> list[Chunk]:
    """The chunks of each run of consecutive same-type cells, chunked apart, in order and renumbered."""
    runs: list[list[dict[str, Any]]] = []
    for cell in cells:
        if runs and runs[-1][-1]["type"] == cell["type"]:
            runs[-1].append(cell)
        else:
            runs.append([cell])
    spans = []
    for run in runs:
        start, end = run[0]["start"], run[-1]["end"]
        for s, e, metadata in as_spans(chunker(document.text[start:end], source=document.name), shift=start):
            touched = [c["index"] for c in run if c["start"] < e and s < c["end"]]
            metadata.update(cell=touched[0], cells=touched, cell_type=run[0]["type"])
            spans.append((s, e, metadata))
    return numbered(document.text, spans, document.name)


def chunk_file(
    chunker: Chunker, path: str | os.PathLike[str], name: str | None = None, html_source: bool = False,
    use_context: bool = False,
) -> list[dict[str, Any]]:
    """Read `path` with `chunklab.formats.readers.read_document` (named `name`; a web page as its HTML
    source with `html_source`, else as its main text) and chunk it (`chunk_document`, `use_context`
    included).

    Raises `chunklab.formats.readers.DocumentError` naming the path when the file cannot be read.
    """
    return chunk_document(chunker, read_document(path, name, html_source=html_source), use_context)
