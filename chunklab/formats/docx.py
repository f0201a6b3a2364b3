"""A Word document (``.docx``) as markdown-like text: headings, lists, tables, quotes and code kept.

`read_docx` walks the body in order with python-docx (paragraphs and tables interleaved, as Word
shows them) and writes each block the way the structure-aware chunkers read markdown:

* a paragraph styled ``Title`` or ``Heading N`` becomes a ``#`` heading: ``Title`` as ``#`` and
  ``Heading N`` one level below it (``Heading 1`` as ``##``...) in a document that uses ``Title``,
  else ``Heading N`` as N ``#`` (at most six);
* a list paragraph (a ``List Bullet``/``List Number`` style, or Word numbering on the paragraph)
  becomes a ``-`` or ``1.`` item, indented by its list level; consecutive items form one list;
* a table becomes a pipe table, its first row the header (``|`` in a cell escaped, line breaks in a
  cell turned into spaces);
* a ``Quote``/``Intense Quote`` paragraph becomes a ``>`` quote, and consecutive paragraphs in a
  code style (a style name with "Code" or "Preformatted" in it) one fenced code block;
* every other paragraph with text is a paragraph; empty ones are left out.

Blocks are separated by a blank line. Headers, footers, comments, footnotes and text boxes are not
part of the body and are not read.
"""

from __future__ import annotations

import os
import re
from typing import IO, Any, Iterator

__all__ = ["read_docx"]

_HEADING = re.compile(r"heading (\d)$", re.IGNORECASE)
_LIST_LEVEL = re.compile(r"list (?:bullet|number)(?: (\d))?$", re.IGNORECASE)
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def read_docx(source: str | os.PathLike[str] | IO[bytes]) -> tuple[str, dict[str, Any]]:
    """The markdown-like text of the Word document `source` (a path or a binary file) and its
    metadata (``format``: ``"markdown"``; ``title``: the document's title property, or ``""``).

    Raises `ImportError` without python-docx and `ValueError` when it is not a readable Word document
    (not a zip package, a corrupt one, a ``.doc`` renamed ``.docx``...), naming the path if given one.
    """
    import docx
    from docx.table import Table

    try:
        document = docx.Document(source if hasattr(source, "read") else os.fspath(source))  # type: ignore[arg-type]
        blocks = list(_blocks(document, Table))
    except Exception as error:  # python-docx and zipfile raise many types for a bad package
        where = "" if hasattr(source, "read") else f"{os.fspath(source)}: "
        raise ValueError(f"{where}not a readable Word document: {type(error).__name__}: {error}") from error
    title = document.core_properties.title or ""
    return "\n\n".join(blocks), {"format": "markdown", "title": title}


def _blocks(document: Any, table_type: type) -> Iterator[str]:
    """The text blocks of the document body, in order (module docstring)."""
    numbering = _numbering_formats(document)
    titled = any(p.style is not None and p.style.name.lower() == "title" for p in document.paragraphs)
    items: list[str] = []
    code: list[str] = []
    counters: dict[int, tuple[str, int]] = {}  # list level -> (kind, items so far)
    for part in document.iter_inner_content():
        if isinstance(part, table_type):
            block = _table(part)
        else:
            style = part.style.name if part.style is not None else ""
            listed = _list_item(part, style, numbering)
            if listed is not None:
                if code:
                    yield _fenced(code)
                    code = []
                kind, level = listed
                counters = {lvl: seen for lvl, seen in counters.items() if lvl < level or (lvl == level and seen[0] == kind)}
                number = counters.get(level, (kind, 0))[1] + 1
                counters[level] = (kind, number)
                marker = "-" if kind == "bullet" else f"{number}."
                items.append(f"{'   ' * level}{marker} {part.text.strip()}")
                continue
            if "code" in style.lower() or "preformatted" in style.lower():
                if items:
                    yield "\n".join(items)
                    items, counters = [], {}
                code.append(part.text)
                continue
            block = _paragraph(part.text, style, 1 if titled else 0)
        if items:
            yield "\n".join(items)
            items, counters = [], {}
        if code:
            yield _fenced(code)
            code = []
        if block:
            yield block
    if items:
        yield "\n".join(items)
    if code:
        yield _fenced(code)


def _paragraph(text: str, style: str, shift: int) -> str:
    """A paragraph's block: a heading (its level moved down `shift`), a quote or the text itself."""
    text = text.strip()
    if not text:
        return ""
    if style.lower() == "title":
        return f"# {' '.join(text.split())}"
    heading = _HEADING.match(style)
    if heading:
        return f"{'#' * max(1, min(int(heading.group(1)) + shift, 6))} {' '.join(text.split())}"
    if "quote" in style.lower():
        return "\n".join(f"> {line}" for line in text.splitlines())
    return text


def _fenced(lines: list[str]) -> str:
    body = "\n".join(lines).rstrip()
    return f"```\n{body}\n```"


def _list_item(paragraph: Any, style: str, numbering: dict[tuple[str, int], str]) -> tuple[str, int] | None:
    """``("bullet" | "number", level)`` for a list paragraph, else None."""
    if not paragraph.text.strip():
        return None
    named = _LIST_LEVEL.match(style)
    if named:
        kind = "number" if "number" in style.lower() else "bullet"
        return kind, int(named.group(1) or 1) - 1
    properties = paragraph._p.pPr
    numbered = properties.numPr if properties is not None else None
    if numbered is None or numbered.numId is None or numbered.numId.val == 0:
        return None
    level = numbered.ilvl.val if numbered.ilvl is not None else 0
    fmt = numbering.get((str(numbered.numId.val), level), "bullet")
    return ("bullet" if fmt in ("bullet", "none") else "number"), level


def _numbering_formats(document: Any) -> dict[tuple[str, int], str]:
    """``(numId, level) -> numFmt`` (``"bullet"``, ``"decimal"``...) from the numbering definitions."""
    try:
        root = document.part.numbering_part.element
    except (KeyError, NotImplementedError, AttributeError):
        return {}
    abstract = {}
    for node in root.iter(f"{_W}abstractNum"):
        levels = {}
        for level in node.iter(f"{_W}lvl"):
            fmt = level.find(f"{_W}numFmt")
            levels[int(level.get(f"{_W}ilvl", "0"))] = fmt.get(f"{_W}val") if fmt is not None else "bullet"
        abstract[node.get(f"{_W}abstractNumId")] = levels
    formats = {}
    for num in root.iter(f"{_W}num"):
        ref = num.find(f"{_W}abstractNumId")
        for level, fmt in abstract.get(ref.get(f"{_W}val") if ref is not None else None, {}).items():
            formats[(num.get(f"{_W}numId"), level)] = fmt
    return formats


def _table(table: Any) -> str:
    rows = [[_cell(cell.text) for cell in row.cells] for row in table.rows]
    rows = [row for row in rows if any(row)]
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    lines = [_row(rows[0]), _row(["---"] * width), *(_row(row) for row in rows[1:])]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"
