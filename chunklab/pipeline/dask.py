"""Chunking on Dask: a corpus larger than one machine, chunked partition by partition.

Each partition is chunked where it lives with `chunklab.pipeline.files.chunk_document`, the same function
``chunklab chunk`` runs, so a Dask run and a command-line run produce the same records in the same
order. Chunkers pickle to equal chunkers (`chunklab.Chunker.__eq__` compares parameters; models and
caches stay at module level), which is what lets Dask ship them to the workers.

On a laptop::

    from distributed import Client, LocalCluster
    from chunklab.pipeline.dask import chunk_files
    from chunklab.strategies import FixedSizeChunker

    with LocalCluster(n_workers=2) as cluster, Client(cluster):
        records = chunk_files(["docs/"], FixedSizeChunker(chunk_size=400)).compute()

On a cluster, connect to its scheduler instead (``Client("tcp://scheduler-host:8786")``); the
workers must see the files at the same paths (a shared file system), or pass `chunklab.Document`
objects or a dataframe of texts instead of paths.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from typing import Any

from ..core import Chunker
from ..formats.document import Document
from ..formats.folders import find_documents
from ..formats.readers import DocumentError
from .export import json_line
from .files import chunk_document, chunk_file

__all__ = ["FRAME_COLUMNS", "chunk_bag", "chunk_dataframe", "chunk_files", "frame_records"]

#: The columns of `chunk_dataframe`'s result, one row per chunk.
FRAME_COLUMNS = ("source", "index", "start", "end", "text", "metadata")


def _records(chunker: Chunker, item: Any) -> list[dict[str, Any]]:
    if isinstance(item, Document):
        return chunk_document(chunker, item)
    if isinstance(item, tuple):
        name, path = item
        return chunk_file(chunker, path, name)
    return chunk_file(chunker, item)


def _chunk_partition(items: Iterable[Any], chunker: Chunker) -> list[dict[str, Any]]:
    return [record for item in items for record in _records(chunker, item)]


def chunk_bag(documents: Any, chunker: Chunker) -> Any:
    """A Dask bag of chunk records from a bag of documents, chunked partition by partition.

    The items may be `chunklab.Document` objects, file paths (read on the worker with
    `chunklab.formats.readers.read_document`, named by their file name) or ``(name, path)`` pairs. The
    records are those of ``chunklab chunk``, in document order. A file that cannot be read fails
    the computation with its `chunklab.formats.readers.DocumentError` (path and reason).
    """
    return documents.map_partitions(_chunk_partition, chunker)


def chunk_files(
    paths: Sequence[str | os.PathLike[str]], chunker: Chunker, npartitions: int | None = None
) -> Any:
    """`chunk_bag` over the files and folders `paths`, found and named as ``chunklab chunk`` does
    (`chunklab.formats.folders.find_documents`: build artefacts and hidden files left out, files of a type
    chunklab does not read ignored). Raises the first problem finding them (a missing path, an empty
    folder, two documents with one name) before anything is computed."""
    import dask.bag as db

    found = find_documents(paths)
    if found.problems:
        raise found.problems[0]
    if not found.files:
        raise DocumentError("no files or folders given")
    files = [(name, os.fspath(path)) for name, path in found.files]
    return chunk_bag(db.from_sequence(files, npartitions=npartitions or min(len(files), 100)), chunker)


def _chunk_frame(frame: Any, chunker: Chunker, text: str, name: str) -> Any:
    import pandas as pd

    rows = []
    for source, body in zip(frame[name], frame[text]):
        doc = Document(name=str(source), title=str(source), kind="text", text=body, path=None)  # type: ignore[arg-type]
        for record in chunk_document(chunker, doc):
            rows.append((record["metadata"]["source"], record["index"], record["start"], record["end"],
                         record["text"], json_line(record["metadata"])))
    return pd.DataFrame(rows, columns=list(FRAME_COLUMNS)).astype({"index": "int64", "start": "int64", "end": "int64"})


def chunk_dataframe(frame: Any, chunker: Chunker, text: str = "text", name: str = "name") -> Any:
    """A Dask dataframe with one row per chunk of the documents in `frame` (one document per row:
    its text in column `text`, its name in column `name`).

    The columns are `FRAME_COLUMNS`: ``source``, ``index``, ``start``, ``end``, ``text`` and
    ``metadata`` (the chunk's metadata as JSON text, exactly as ``chunklab chunk`` writes it);
    `frame_records` turns rows back into records. A row holds only text, so PDF chunks made this way
    carry no ``page``/``pages`` (use `chunk_files` or a bag of `chunklab.Document` for those).
    """
    import pandas as pd

    meta = pd.DataFrame({"source": pd.Series(dtype=object), "index": pd.Series(dtype="int64"),
                         "start": pd.Series(dtype="int64"), "end": pd.Series(dtype="int64"),
                         "text": pd.Series(dtype=object), "metadata": pd.Series(dtype=object)})
    return frame.map_partitions(_chunk_frame, chunker, text, name, meta=meta)


def frame_records(frame: Any) -> list[dict[str, Any]]:
    """The chunk records (``chunklab chunk``'s shape) of a computed `chunk_dataframe` result."""
    rows = frame[list(FRAME_COLUMNS)].itertuples(index=False, name=None)
    return [
        {"text": text, "start": int(start), "end": int(end), "index": int(index), "metadata": json.loads(metadata)}
        for _, index, start, end, text, metadata in rows
    ]
