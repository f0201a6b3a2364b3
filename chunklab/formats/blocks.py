"""Document blocks with exact offsets: the one structural view of markdown, HTML and plain text.

A `Block` is a top-level element of a document (a heading, a paragraph, a list, a table, a code
block, an image with its caption, a quote, raw markup) with its exact character span. The parsers
that produce blocks live beside this module (`chunklab.formats.markdown`, `chunklab.formats.html`);
`chunklab.formats.parse.document_blocks` picks one by format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Sequence

__all__ = ["Block", "BlockKind", "Format", "heading_trails"]

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
