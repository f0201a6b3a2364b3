"""HTML parsed into an element tree with exact character spans, and its top-level blocks.

The standard library's `html.parser.HTMLParser` reports the line and column of every tag; we turn
those into offsets into the original string, so an element's span is exactly its source, from the
``<`` of its start tag to the ``>`` of its end tag. End tags that HTML lets authors omit (``</p>``,
``</li>``, ``</tr>``, ``</td>``...) are closed where the next sibling or the parent's end tag
begins, as browsers do in the common cases; void elements (``<img>``, ``<br>``...) have no end tag.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Iterator, NamedTuple

from ..caches import PER_TEXT, cached
from ..text.spans import trim_span
from .blocks import Block
from .collector import collector_paused

__all__ = ["Element", "html_blocks", "html_row_spans", "iter_elements", "parse_html", "text_content"]

VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
_BLOCK_LEVEL = frozenset(
    "address article aside blockquote details div dl fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 "
    "header hgroup hr main menu nav ol p pre section table ul".split()
)
#: tag -> the open tags its start implicitly closes (when one of them is the current element).
_CLOSES = {
    "li": {"li"},
    "dt": {"dt", "dd"},
    "dd": {"dt", "dd"},
    "tr": {"tr", "td", "th"},
    "td": {"td", "th"},
    "th": {"td", "th"},
    "thead": {"tbody", "tfoot", "tr", "td", "th"},
    "tbody": {"thead", "tbody", "tfoot", "tr", "td", "th"},
    "tfoot": {"thead", "tbody", "tr", "td", "th"},
    "option": {"option"},
    **{tag: {"p"} for tag in _BLOCK_LEVEL},
}
_CONTAINERS = frozenset("html body main article section div header footer nav aside details form hgroup".split())
_SKIPPED = frozenset("head script style template noscript title".split())
_SPACE = re.compile(r"\s+")


@dataclass
class Element:
    """An HTML element: ``text[start:end]`` is its whole source, ``text[inner_start:inner_end]`` its
    content between the tags (empty for void elements)."""

    tag: str
    start: int
    end: int
    inner_start: int
    inner_end: int
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Element] = field(default_factory=list)


class _TreeBuilder(HTMLParser):
    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.text = text
        self.newlines = [0, *(m.end() for m in re.finditer("\n", text))]
        self.root = Element("#document", 0, len(text), 0, len(text))
        self.stack = [self.root]

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.newlines[line - 1] + column

    def _close_top(self, at: int) -> None:
        element = self.stack.pop()
        element.end = max(element.inner_start, trim_span(self.text, element.start, at)[1])
        element.inner_end = max(element.inner_start, trim_span(self.text, element.inner_start, at)[1])

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        start = self._offset()
        tag_text = self.get_starttag_text() or ""
        closes = _CLOSES.get(tag, set())
        while len(self.stack) > 1 and self.stack[-1].tag in closes:
            self._close_top(start)
        end = start + len(tag_text)
        element = Element(tag, start, end, end, end, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        start = self._offset()
        end = start + len(self.get_starttag_text() or "")
        self.stack[-1].children.append(Element(tag, start, end, end, end, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        start = self._offset()
        if not any(e.tag == tag for e in self.stack[1:]):
            return  # a stray end tag closes nothing
        close = self.text.find(">", start)
        end = len(self.text) if close < 0 else close + 1
        while self.stack[-1].tag != tag:
            self._close_top(start)
        element = self.stack.pop()
        element.inner_end = max(element.inner_start, trim_span(self.text, element.inner_start, start)[1])
        element.end = end

    def finish(self) -> Element:
        self.close()
        while len(self.stack) > 1:
            self._close_top(len(self.text))
        return self.root


def parse_html(text: str) -> Element:
    """The element tree of `text` under a ``#document`` root spanning the whole text, parsed afresh."""
    builder = _TreeBuilder(text)
    builder.feed(text)
    return builder.finish()


class _Parsed(NamedTuple):
    """What chunklab reads from an HTML text's element tree: its blocks and its ``<tr>`` rows."""

    blocks: tuple[Block, ...]
    rows: tuple[tuple[int, int], ...]


@cached(PER_TEXT)
def _parsed(text: str) -> _Parsed:
    """`_Parsed` for `text`, cached per text. The tree lives only while it runs, with the garbage
    collector paused (`collector_paused`), and is freed by reference counting once read, so no
    collection walks it (as in `chunklab.formats.markdown`: a cache of the trees kept three objects
    per element alive, which every later full collection walked)."""
    with collector_paused():
        return _read(text, parse_html(text))


def _read(text: str, root: Element) -> _Parsed:
    """`_Parsed` from the element tree of `text`."""
    blocks: list[Block] = []
    _walk(text, root, blocks)
    rows = tuple((e.start, e.end) for e in iter_elements(root, {"tr"}) if e.start < e.end)
    return _Parsed(tuple(blocks), rows)


def html_row_spans(text: str) -> list[tuple[int, int]]:
    """The spans of every ``<tr>`` element at any depth, closing tag included when there is one."""
    return list(_parsed(text).rows)


def iter_elements(element: Element, tags: frozenset[str] | set[str] | None = None) -> Iterator[Element]:
    """Every element under `element` in document order (those with a tag in `tags`, if given)."""
    for child in element.children:
        if tags is None or child.tag in tags:
            yield child
        yield from iter_elements(child, tags)


def text_content(text: str, element: Element) -> str:
    """An element's text: tags removed, character references decoded, whitespace collapsed."""
    pieces, pos = [], element.inner_start
    for child in element.children:
        pieces.append(text[pos : child.start])
        pieces.append(" " + text_content(text, child) + " ")
        pos = child.end
    pieces.append(text[pos : element.inner_end])
    return _SPACE.sub(" ", html.unescape("".join(pieces))).strip()


def html_blocks(text: str) -> list[Block]:
    """The block-level elements of an HTML text, in order, with exact spans.

    Containers (``body``, ``main``, ``section``, ``div``...) are walked into; ``head``, scripts and
    styles are left out. Kinds: ``heading`` (``h1``-``h6``), ``paragraph`` (``p``, or loose text
    in a container), ``list`` (``ul``/``ol``/``dl``; parts: ``li``/``dt``/``dd``), ``table``
    (parts: the ``tr`` rows; header: the first row if it holds ``th`` cells or sits in
    ``thead``; attrs ``cells``: each row's ``td``/``th`` text), ``code`` (``pre``), ``image``
    (``figure`` with an ``img``, or a lone ``img``; title = alt, info = src, attrs caption),
    ``quote``, ``rule`` and ``markup`` for any other element. Every block's attrs name its ``tag``.
    """
    return list(_parsed(text).blocks)


def _walk(text: str, parent: Element, out: list[Block]) -> None:
    pos = parent.inner_start
    for child in parent.children:
        _loose_text(text, pos, child.start, out)
        if child.tag in _SKIPPED:
            pass
        elif child.tag in _CONTAINERS:
            _walk(text, child, out)
        else:
            out.append(_element_block(text, child))
        pos = max(pos, child.end)
    _loose_text(text, pos, parent.inner_end, out)


def _loose_text(text: str, start: int, end: int, out: list[Block]) -> None:
    """Text directly inside a container, between its child elements, as a paragraph."""
    s, e = trim_span(text, start, end)
    if s < e and not text[s:e].startswith("<!"):
        out.append(Block("paragraph", s, e, attrs={"tag": ""}))


def _element_block(text: str, element: Element) -> Block:
    tag, span = element.tag, (element.start, element.end)
    if re.fullmatch(r"h[1-6]", tag):
        return Block("heading", *span, level=int(tag[1]), title=text_content(text, element), attrs={"tag": tag})
    if tag == "p":
        return Block("paragraph", *span, attrs={"tag": tag})
    if tag in ("ul", "ol", "dl"):
        items = tuple((c.start, c.end) for c in element.children if c.tag in ("li", "dt", "dd"))
        return Block("list", *span, parts=items, attrs={"tag": tag, "ordered": tag == "ol"})
    if tag == "table":
        rows = list(iter_elements(element, {"tr"}))
        first = rows[0] if rows else None
        headed = first is not None and (
            any(c.tag == "th" for c in first.children)
            or any(first in list(iter_elements(h, {"tr"})) for h in element.children if h.tag == "thead")
        )
        caption = next((text_content(text, c) for c in element.children if c.tag == "caption"), "")
        cells = tuple(tuple(text_content(text, c) for c in r.children if c.tag in ("td", "th")) for r in rows)
        return Block("table", *span, parts=tuple((r.start, r.end) for r in rows),
                     header=(first.start, first.end) if headed and first is not None else None,
                     attrs={"tag": tag, "caption": caption, "cells": cells})
    if tag == "pre":
        code = next(iter_elements(element, {"code"}), None)
        classes = (code.attrs.get("class", "") if code else element.attrs.get("class", "")).split()
        language = next((c.split("-", 1)[1] for c in classes if c.startswith("language-")), "")
        return Block("code", *span, info=language, attrs={"tag": tag, "fenced": True})
    if tag in ("figure", "img"):
        image = element if tag == "img" else next(iter_elements(element, {"img"}), None)
        if image is not None:
            caption = next((text_content(text, c) for c in iter_elements(element, {"figcaption"})), "")
            return Block("image", *span, title=image.attrs.get("alt", ""), info=image.attrs.get("src", ""),
                         attrs={"tag": tag, "caption": caption})
    if tag == "blockquote":
        return Block("quote", *span, attrs={"tag": tag})
    if tag == "hr":
        return Block("rule", *span, attrs={"tag": tag})
    return Block("markup", *span, attrs={"tag": tag})
