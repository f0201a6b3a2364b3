"""Document blocks with exact offsets: the one structural view of markdown, HTML and plain text.

A `Block` is a top-level element of a document (a heading, a paragraph, a list, a table, a code
block, an image with its caption, a quote, raw markup) with its exact character span. Markdown is
parsed by markdown-it-py (`chunklab.markdown_blocks`), HTML by the standard library's position
reporting parser (`chunklab.html_blocks`), plain text by blank lines. Strategies that follow
structure (recursive markdown/HTML, hierarchical, modality, table, hybrid) and the structure
metrics (`chunklab.structure`) read the same blocks, so what a chunker keeps whole and what the
metrics count as cut cannot disagree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Sequence

from .segment import paragraph_spans

__all__ = ["Block", "BlockKind", "Format", "document_blocks", "guess_format", "heading_trails"]

BlockKind = Literal["heading", "paragraph", "list", "table", "code", "image", "quote", "markup", "rule"]
Format = Literal["markdown", "html", "text"]


@dataclass(frozen=True)
class Block:
    """One top-level block of a document.

    ``text[start:end]`` is the block's source, trimmed of surrounding whitespace. `level` is a
    heading's level (1-6; 0 otherwise). `title` is a heading's text or an image's alt text.
    `info` is a code block's language or an image's file path. `parts` are the spans of a table's
    rows (header row first) or a list's items; `header` is a table's header row span. `attrs`
    holds anything else a strategy may need (an image's caption, an element's tag...).
    """

    kind: BlockKind
    start: int
    end: int
    level: int = 0
    title: str = ""
    info: str = ""
    parts: tuple[tuple[int, int], ...] = ()
    header: tuple[int, int] | None = None
    attrs: Mapping[str, Any] = field(default_factory=dict)

    @property
    def span(self) -> tuple[int, int]:
        """``(start, end)``."""
        return self.start, self.end


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
        from .markdown_blocks import markdown_blocks

        return markdown_blocks(text)
    if fmt == "html":
        from .html_blocks import html_blocks

        return html_blocks(text)
    if fmt == "text":
        return [Block("paragraph", s, e) for s, e in paragraph_spans(text)]
    raise ValueError(f"fmt must be one of ['markdown', 'html', 'text'], got {fmt!r}")


def heading_trails(blocks: Sequence[Block]) -> list[tuple[str, ...]]:
    """For each block, the titles of the headings it sits under, outermost first (a heading's own
    trail ends with its title). Joined with " > " this is the breadcrumb, e.g. "Install > Linux"."""
    trails, stack = [], []  # stack of (level, title)
    for block in blocks:
        if block.kind == "heading":
            while stack and stack[-1][0] >= block.level:
                stack.pop()
            stack.append((block.level, block.title))
        trails.append(tuple(title for _, title in stack))
    return trails
