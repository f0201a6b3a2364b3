"""Document blocks with exact offsets: the one structural view of markdown, HTML and plain text.

A `Block` is a top-level element of a document (a heading, a paragraph, a list, a table, a code
block, an image with its caption, a quote, raw markup) with its exact character span. The parsers
that produce blocks live beside this module (`chunklab.formats.markdown`, `chunklab.formats.html`);
`chunklab.formats.parse.document_blocks` picks one by format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Mapping, Sequence

__all__ = [
    "MODALITIES",
    "Block",
    "BlockKind",
    "DocumentFormat",
    "Format",
    "Modality",
    "breadcrumb_text",
    "heading_trails",
    "modality_of_kinds",
    "section_metadata",
]

BlockKind = Literal["heading", "paragraph", "list", "table", "code", "image", "quote", "markup", "rule"]
#: The parsers a text's blocks come from.
Format = Literal["markdown", "html", "text"]
#: The ``format`` parameter of every chunker that reads structure: a format, or ``"auto"`` to guess it
#: (a chunker that only follows headings reads ``"csv"`` as plain text: a CSV file has none).
DocumentFormat = Literal["auto", "markdown", "html", "csv", "text"]
#: The kind of content of a chunk (its ``modality`` metadata, the same key in every strategy).
Modality = Literal["prose", "table", "code", "list", "image", "mixed"]
#: Every modality a block can have, in the order the course introduces them (a chunk holding blocks
#: of several of them is ``"mixed"``).
MODALITIES: tuple[str, ...] = ("prose", "table", "code", "list", "image")
_BLOCK_MODALITY = {"table": "table", "code": "code", "list": "list", "image": "image"}
#: What joins the titles of a breadcrumb into its text.
BREADCRUMB_SEPARATOR = " > "


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
    trails: list[tuple[str, ...]] = []
    stack: list[tuple[int, str]] = []  # (level, title)
    for block in blocks:
        if block.kind == "heading":
            while stack and stack[-1][0] >= block.level:
                stack.pop()
            stack.append((block.level, block.title))
        trails.append(tuple(title for _, title in stack))
    return trails


def breadcrumb_text(trail: Sequence[str]) -> str:
    """A breadcrumb's titles as one string, outermost first: ``"Install > Linux"`` (the value of a
    chunk's ``section`` metadata; ``breadcrumb`` holds the list)."""
    return BREADCRUMB_SEPARATOR.join(trail)


def section_metadata(trail: Sequence[str]) -> dict[str, Any]:
    """The metadata every strategy gives a chunk whose place in the document's structure it knows:
    ``section`` (the breadcrumb as text) and ``breadcrumb`` (the list of titles, outermost first)."""
    return {"section": breadcrumb_text(trail), "breadcrumb": list(trail)}


def modality_of_kinds(kinds: Iterable[BlockKind]) -> Modality:
    """The ``modality`` of a chunk made of blocks of these kinds: tables, code, lists and images are
    themselves; headings, paragraphs, quotes and other markup are ``"prose"``; a chunk that holds
    more than one modality (headings aside) is ``"mixed"``."""
    found = {_BLOCK_MODALITY.get(kind, "prose") for kind in kinds if kind != "heading"}
    if len(found) > 1:
        return "mixed"
    return found.pop() if found else "prose"  # type: ignore[return-value]
