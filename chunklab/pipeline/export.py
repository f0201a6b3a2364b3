"""Chunks as plain records: dicts, JSON Lines, and the shapes LangChain and LlamaIndex use.

None of those libraries is imported: the records are plain dicts that their document classes accept
(``langchain_core.documents.Document(**record)``, ``llama_index.core.schema.TextNode(**record)``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..core import Chunk
from ..metadata import plain

__all__ = ["from_dicts", "json_line", "read_jsonl", "to_dicts", "to_langchain", "to_llamaindex", "write_jsonl"]


def to_dicts(chunks: Iterable[Chunk]) -> list[dict[str, Any]]:
    """``{"text", "start", "end", "index", "metadata"}`` per chunk (metadata copied, with
    ``content_hash``: `chunklab.core.Chunk.exported_metadata`)."""
    return [
        {"text": c.text, "start": c.start, "end": c.end, "index": c.index, "metadata": c.exported_metadata()}
        for c in chunks
    ]


def from_dicts(records: Iterable[dict[str, Any]]) -> list[Chunk]:
    """Chunks back from `to_dicts` records (the Chunk constructor re-checks the offsets; the
    ``content_hash`` a record carries is `Chunk.content_hash`, not metadata)."""
    return [
        Chunk(r["text"], r["start"], r["end"], r.get("index", 0),
              {k: v for k, v in r.get("metadata", {}).items() if k != "content_hash"})
        for r in records
    ]


def json_line(record: dict[str, Any]) -> str:
    """One record as a line of JSON (non-ASCII kept; values made `chunklab.metadata.plain`, anything
    else JSON lacks as its string), without the newline. `write_jsonl` and the command line write
    these."""
    return json.dumps(plain(record), ensure_ascii=False, default=str)


def write_jsonl(chunks: Iterable[Chunk], path: str | Path) -> Path:
    """Write one JSON object per chunk (UTF-8, non-ASCII kept) and return the path."""
    path = Path(path)
    with path.open("w", encoding="utf-8") as f:
        for record in to_dicts(chunks):
            f.write(json_line(record) + "\n")
    return path


def read_jsonl(path: str | Path) -> list[Chunk]:
    """Chunks from a file written by `write_jsonl`."""
    with Path(path).open(encoding="utf-8") as f:
        return from_dicts(json.loads(line) for line in f if line.strip())


def to_langchain(chunks: Sequence[Chunk]) -> list[dict[str, Any]]:
    """LangChain ``Document`` fields: ``page_content`` and ``metadata`` (with ``start_index``).

    ``start_index`` is the name LangChain's splitters use for the start offset when
    ``add_start_index=True``; we also keep ``end_index``.
    """
    return [
        {"page_content": c.text, "metadata": {**c.exported_metadata(), "start_index": c.start, "end_index": c.end}}
        for c in chunks
    ]


def to_llamaindex(chunks: Sequence[Chunk]) -> list[dict[str, Any]]:
    """LlamaIndex ``TextNode`` fields: ``text``, ``start_char_idx``, ``end_char_idx``, ``metadata``."""
    return [
        {"text": c.text, "start_char_idx": c.start, "end_char_idx": c.end, "metadata": c.exported_metadata()}
        for c in chunks
    ]
