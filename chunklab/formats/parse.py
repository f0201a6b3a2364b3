"""A document's format, guessed, and its blocks, parsed: the one structural view of every format.

Markdown is parsed by markdown-it-py (`chunklab.formats.markdown`), HTML by the standard library's
position-reporting parser (`chunklab.formats.html`), plain text by blank lines. Strategies that
follow structure (recursive markdown/HTML, hierarchical, modality, table, hybrid) and the structure
metrics (`chunklab.formats.unbreakable`) read the same blocks, so what a chunker keeps whole and
what the metrics count as cut cannot disagree.
"""

from __future__ import annotations

import re

from ..text.paragraphs import paragraph_spans
from .blocks import Block, Format
from .html import html_blocks
from .markdown import markdown_blocks

__all__ = ["document_blocks", "guess_format"]

_HTML_START = re.compile(r"\A\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.IGNORECASE | re.DOTALL)
_MARKDOWN_SIGNS = re.compile(r"^(?: {0,3}#{1,6} \S| {0,3}(?:```|~~~)| {0,3}\|.*\|\s*$| {0,3}[-*+] \S)", re.MULTILINE)


def guess_format(text: str) -> Format:
    """``"html"`` for a text that opens like an HTML document, ``"markdown"`` for one with markdown
    headings, fences, pipe tables or bullet lists, else ``"text"``."""
    if _HTML_START.match(text):
        return "html"
    if _MARKDOWN_SIGNS.search(text):
        return "markdown"
    return "text"


def document_blocks(text: str, fmt: Format | None = None) -> list[Block]:
    """The top-level blocks of `text`, parsed as `fmt` (guessed by `guess_format` when None).

    Plain text gives one ``"paragraph"`` block per blank-line paragraph.
    """
    fmt = fmt or guess_format(text)
    if fmt == "markdown":
        return markdown_blocks(text)
    if fmt == "html":
        return html_blocks(text)
    if fmt == "text":
        return [Block("paragraph", s, e) for s, e in paragraph_spans(text)]
    raise ValueError(f"fmt must be one of ['markdown', 'html', 'text'], got {fmt!r}")
