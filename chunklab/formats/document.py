"""The `Document`: a text as chunkers receive it, with where it came from and what is known about it."""

from __future__ import annotations

import pathlib
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Document"]


@dataclass(frozen=True)
class Document:
    """A corpus document: the exact text chunkers receive, plus metadata.

    Attributes
    ----------
    name:
        The manifest key, e.g. ``"manual"``; use it as a chunk's ``source``.
    title:
        The human title from the manifest.
    kind:
        One of :data:`KINDS`: ``"markdown"``, ``"text"``, ``"legal"``,
        ``"csv"``, ``"transcript"``, ``"pdf"``, ``"html"`` or ``"mixed"``.
    text:
        The document text. Question spans are offsets into this string.
    path:
        The file on disk the text comes from.
    metadata:
        Everything else, read-only: always ``char_count``, ``word_count``
        and ``line_count``; ``pages`` (list of ``(start, end)`` spans of
        each page in ``text``) and ``page_count`` for the PDF, plus
        ``source_path`` (the markdown it was built from); ``description``
        (the text) and ``description_path`` for the CSV; ``assets``
        (list of paths) for documents that ship images.
    """

    name: str
    title: str
    kind: str
    text: str = field(repr=False)
    path: pathlib.Path
    metadata: Mapping[str, Any] = field(default_factory=dict, repr=False, hash=False)

    def __len__(self) -> int:
        """The number of characters in :attr:`text`."""
        return len(self.text)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickle support (for worker processes and Dask): the read-only metadata view travels as a
        plain dict and is rebuilt."""
        return _document, (self.name, self.title, self.kind, self.text, self.path, dict(self.metadata))


def _document(name: str, title: str, kind: str, text: str, path: pathlib.Path, metadata: dict[str, Any]) -> Document:
    return Document(name, title, kind, text, path, types.MappingProxyType(metadata))
