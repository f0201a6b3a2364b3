"""A Jupyter notebook (``.ipynb``) as markdown-like text, with the span of every cell.

`read_notebook` writes the notebook's cells in order, separated by a blank line: a markdown cell as
its markdown, a code cell as a fenced block in the notebook's language (a fence longer than any
backtick run in the code), a raw cell as its text. Empty cells and outputs are left out. The
metadata's ``cells`` gives each written cell's ``index`` (its position in the notebook, from 0),
``type`` and ``(start, end)`` span in the text, so `chunklab.pipeline.files.chunk_document` can keep
markdown and code apart and say which cells a chunk comes from.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["read_notebook"]

_TICKS = re.compile(r"`{3,}")


def read_notebook(source: str) -> tuple[str, dict[str, Any]]:
    """The text of the notebook whose JSON is `source`, and its metadata (``format``,
    ``language`` and ``cells``; see the module docstring).

    Raises `ValueError` when `source` is not a notebook (not JSON, or without a ``cells`` list).
    """
    try:
        notebook = json.loads(source)
    except json.JSONDecodeError as error:
        raise ValueError(f"not a notebook: invalid JSON at line {error.lineno}, column {error.colno}") from error
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise ValueError("not a notebook: no 'cells' list (nbformat 4 is read)")
    language = _language(notebook.get("metadata"))
    pieces: list[str] = []
    spans: list[Any] = []
    offset = 0
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type", "")
        body = _source(cell.get("source", "")).strip("\n").rstrip()
        if not body.strip():
            continue
        text = _fenced(body, language) if kind == "code" else body
        if pieces:
            offset += 2
        spans.append({"index": index, "type": kind, "start": offset, "end": offset + len(text)})
        pieces.append(text)
        offset += len(text)
    return "\n\n".join(pieces), {"format": "markdown", "language": language, "cells": spans}


def _language(metadata: Any) -> str:
    """The notebook's programming language (its language_info or kernel spec; Python if neither says)."""
    if isinstance(metadata, dict):
        for key in ("language_info", "kernelspec"):
            info = metadata.get(key)
            name = info.get("name" if key == "language_info" else "language") if isinstance(info, dict) else None
            if isinstance(name, str) and name.strip():
                return name.strip().lower()
    return "python"


def _source(source: Any) -> str:
    """A cell's source: nbformat allows one string or a list of lines."""
    if isinstance(source, list):
        return "".join(part for part in source if isinstance(part, str))
    return source if isinstance(source, str) else ""


def _fenced(code: str, language: str) -> str:
    longest = max((len(run) for run in _TICKS.findall(code)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{code}\n{fence}"
