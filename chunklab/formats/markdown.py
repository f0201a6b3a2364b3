"""Markdown parsed by markdown-it-py, with every block's exact character span.

markdown-it-py gives each block token a line map ``[first line, line after last)``; we turn line
numbers into character offsets with the same line breaks it uses (``\\r\\n``, ``\\r`` or ``\\n``),
so spans index the original text, CRLF included. Parsing follows CommonMark plus GitHub's pipe
tables. A ``#`` line inside a code fence is code, never a heading, because the parser says so.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple, Sequence

from ..caches import PER_TEXT, RESOURCE, cached
from ..text.spans import trim_span
from .blocks import Block
from .collector import collector_paused

__all__ = ["fence_spans", "line_starts", "markdown_blocks", "markdown_tokens", "table_line_spans"]

_BREAK = re.compile(r"\r\n|\r|\n")


def markdown_tokens(text: str) -> list[Any]:
    """markdown-it-py's block tokens for `text` (CommonMark + tables), parsed afresh (by one parser,
    `_parser`, made once: making one costs about as much as parsing a short block)."""
    return _parser().parse(text)


@cached(RESOURCE)
def _parser() -> Any:
    """The markdown-it-py parser: CommonMark with GitHub's pipe tables."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


class _Parsed(NamedTuple):
    """What chunklab reads from a markdown text's tokens: its top-level blocks, its fenced code
    blocks (at any depth) and the lines of its pipe tables."""

    blocks: tuple[Block, ...]
    fences: tuple[tuple[int, int], ...]
    table_lines: tuple[tuple[int, int], ...]


@cached(PER_TEXT)
def _parsed(text: str) -> _Parsed:
    """`_Parsed` for `text`, cached per text. The tokens live only while it runs, with the garbage
    collector paused (`collector_paused`): they all stay alive until the parse returns, so a
    collection meanwhile would free nothing, and once they are read they are freed by reference
    counting, so no collection ever walks them (a cache of the tokens themselves kept hundreds of
    thousands of objects alive for every text, which every later full collection walked)."""
    with collector_paused():
        return _read(text, markdown_tokens(text))


def _read(text: str, tokens: Sequence[Any]) -> _Parsed:
    """`_Parsed` from the tokens of `text`."""
    return _Parsed(tuple(_top_blocks(text, tokens)), tuple(_fences(text, tokens)), tuple(_table_lines(text, tokens)))


@cached(PER_TEXT)
def line_starts(text: str) -> tuple[int, ...]:
    """Offset of the first character of every line, plus ``len(text)`` as a sentinel."""
    return (0, *(m.end() for m in _BREAK.finditer(text)), len(text))


def _span(text: str, line_map: Sequence[int]) -> tuple[int, int]:
    """The trimmed character span of lines ``[first, last)``."""
    starts = line_starts(text)
    first, last = line_map
    end = starts[min(last, len(starts) - 1)]
    return trim_span(text, starts[min(first, len(starts) - 1)], end)


def fence_spans(text: str) -> list[tuple[int, int]]:
    """Fenced code blocks at any depth (inside lists and quotes too), opening to closing fence."""
    return list(_parsed(text).fences)


def table_line_spans(text: str) -> list[tuple[int, int]]:
    """Every line of every pipe table (header, delimiter and body rows), trimmed."""
    return list(_parsed(text).table_lines)


def _fences(text: str, tokens: Sequence[Any]) -> list[tuple[int, int]]:
    """`fence_spans` from the tokens of `text`."""
    spans = (_span(text, t.map) for t in tokens if t.type == "fence" and t.map)
    return [(s, e) for s, e in spans if s < e]


def _table_lines(text: str, tokens: Sequence[Any]) -> list[tuple[int, int]]:
    """`table_line_spans` from the tokens of `text`."""
    starts = line_starts(text)
    out = []
    for token in tokens:
        if token.type == "table_open" and token.map:
            for line in range(*token.map):
                s, e = trim_span(text, starts[line], starts[line + 1])
                if s < e:
                    out.append((s, e))
    return out


def _inline_text(token: Any) -> str:
    """The plain text of an inline token (markup dropped)."""
    return (
        "".join(c.content for c in (token.children or ()) if c.type in ("text", "code_inline", "image"))
        or token.content
    )


def markdown_blocks(text: str) -> list[Block]:
    """The top-level blocks of a markdown text, in order, with exact spans.

    Kinds: ``heading`` (level and title), ``paragraph``, ``list`` (parts: the items), ``table``
    (parts: the rows, header first; header: the header row; attrs ``cells``: each row's cells as
    plain text), ``code`` (fenced or indented; info:
    the fence's language; attrs ``fenced``), ``image`` (a paragraph that starts with an image:
    title = alt text, info = path, attrs ``caption`` = the paragraph's other text), ``quote``,
    ``markup`` (raw HTML blocks) and ``rule``.
    """
    return list(_parsed(text).blocks)


def _top_blocks(text: str, tokens: Sequence[Any]) -> list[Block]:
    """`markdown_blocks` from the tokens of `text`."""
    blocks: list[Block] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        close = _closing(tokens, i)
        if token.level == 0 and token.map is not None:
            block = _block(text, tokens, i, close)
            if block is not None and block.start < block.end:
                blocks.append(block)
        i = close + 1
    return blocks


def _closing(tokens: Sequence[Any], i: int) -> int:
    """Index of the token that closes the one at `i` (itself for a self-contained token)."""
    if tokens[i].nesting != 1:
        return i
    depth = 0
    for j in range(i, len(tokens)):
        depth += tokens[j].nesting
        if depth == 0:
            return j
    return len(tokens) - 1


def _table_rows(text: str, inner: Sequence[Any]) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[str, ...], ...]]:
    """The span and the cells' plain text of every row of a table (header row first)."""
    rows: list[tuple[int, int]] = []
    cells: list[tuple[str, ...]] = []
    current: list[str] | None = None
    for t in inner:
        if t.type == "tr_open":
            current = [] if t.map else None
            if t.map:
                rows.append(_span(text, t.map))
        elif t.type == "inline" and current is not None:
            current.append(_inline_text(t).strip())
        elif t.type == "tr_close" and current is not None:
            cells.append(tuple(current))
            current = None
    return tuple(rows), tuple(cells)


def _block(text: str, tokens: Sequence[Any], i: int, close: int) -> Block | None:
    token = tokens[i]
    start, end = _span(text, token.map)
    inner = tokens[i + 1 : close]
    kind = token.type
    if kind == "heading_open":
        return Block("heading", start, end, level=int(token.tag[1]), title=_inline_text(inner[0]).strip())
    if kind == "paragraph_open":
        children = inner[0].children or []
        if children and children[0].type == "image":
            image = children[0]
            caption = "".join(c.content for c in children[1:] if c.type in ("text", "code_inline")).strip()
            return Block("image", start, end, title=image.content, info=image.attrs.get("src", ""),
                         attrs={"caption": caption})
        return Block("paragraph", start, end)
    if kind in ("bullet_list_open", "ordered_list_open"):
        items = tuple(_span(text, t.map) for t in inner if t.type == "list_item_open" and t.level == token.level + 1)
        return Block("list", start, end, parts=items, attrs={"ordered": kind == "ordered_list_open"})
    if kind == "table_open":
        rows, cells = _table_rows(text, inner)
        return Block("table", start, end, parts=rows, header=rows[0] if rows else None, attrs={"cells": cells})
    if kind in ("fence", "code_block"):
        language = token.info.strip().split()[0] if token.info.strip() else ""
        return Block("code", start, end, info=language, attrs={"fenced": kind == "fence"})
    if kind == "blockquote_open":
        return Block("quote", start, end)
    if kind == "html_block":
        return Block("markup", start, end)
    if kind == "hr":
        return Block("rule", start, end)
    return None
