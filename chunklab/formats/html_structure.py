"""A parsed HTML page written as markdown blocks, element by element: the structural pass of the web reader.

`page_blocks` walks an lxml element and writes every block it holds, in page order, as one
`MarkdownBlock`: ``h1``-``h6`` as ``#`` headings at their level (and nothing else: a ``<summary>`` is
a paragraph), ``<pre>`` as a fenced code block whose lines and indentation are the element's
text exactly (the language from a ``highlight-*``/``language-*`` class as the info string), lists as
``-``/``1.`` items (nested ones indented, a code block inside an item indented with it), tables of
one line per cell as pipe tables (a table whose cells hold paragraphs, lists or code is a layout
table: its cells are written as blocks), definition lists as a paragraph per term followed by its
description's blocks, captions as paragraphs, everything else (``div``, ``section``, ``blockquote``,
``figure``...) as the blocks it holds. Inline, ``<code>``/``<kbd>``/``<samp>``/``<tt>`` become
backticked spans, ``<br>`` a line break, an image with alternative text ``![alt](src)``; no other
markdown escape is added, except a backslash before a paragraph line that would otherwise read as a
heading, a fence, a setext underline or an HTML block (``\\# chmod -R ug+rwX .``, a root prompt
outside ``<pre>``; ``\\<script>``, a placeholder).
Furniture (`chunklab.formats.furniture.is_furniture_element`), hidden elements and ``¶`` permalink
signs are left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .furniture import is_furniture_element, is_furniture_paragraph

__all__ = ["MarkdownBlock", "blocks_text", "main_element", "page_blocks"]

_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_INLINE_CODE = frozenset(["code", "kbd", "samp", "tt"])
_LIST = frozenset(("ul", "ol"))
_BLOCK = frozenset((
    "address", "article", "blockquote", "body", "caption", "center", "dd", "details", "div", "dl", "dt", "fieldset",
    "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "html", "li",
    "main", "ol", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
))
# A table cell holding one of these is not one line: the table is for layout.
_CELL_BLOCKS = ("p", "div", "pre", "ul", "ol", "dl", "table", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6")
_SPACE = re.compile(r"\s+")
_PERMALINK = re.compile(r"[ \t]*[¶🔗]+")
_LANGUAGE = re.compile(r"^(?:highlight|language|lang)-([\w+#.-]+)$")
_NO_LANGUAGE = frozenset(("default", "none", "text", "plain", "console-none"))
# A paragraph line that markdown would read as structure: a heading, a fence, a setext underline, the
# start of an HTML block (``<script>``, a placeholder in a command's synopsis).
_LINE_STRUCTURE = re.compile(r"^(?:#{1,6}(?:\s|$)|```|~~~|=+\s*$|-{2,}\s*$|<[A-Za-z/!?])")
# DocBook's admonition icons ("[Note]", "[Tip]"...): the word is written beside them.
_ICON_ALT = re.compile(r"^\[\w+\]$")


@dataclass(frozen=True)
class MarkdownBlock:
    """One block of a page as markdown: ``kind`` is ``"heading"``, ``"paragraph"``, ``"code"``,
    ``"list"`` or ``"table"``; ``text`` its markdown (without a trailing newline); ``linked`` the
    share of its characters that are the text of links (0 to 1)."""

    kind: str
    text: str
    linked: float = 0.0


# Put around the text of a link while a block is written, to measure its share of the block.
_LINK_START, _LINK_END = "\ue001", "\ue002"
_LINK = re.compile(f"{_LINK_START}(.*?){_LINK_END}", re.DOTALL)


def _unlinked(text: str) -> tuple[str, float]:
    """`text` without link marks, and the share of its characters between them."""
    linked = sum(len(match.group(1).replace(_LINK_START, "")) for match in _LINK.finditer(text))
    plain = text.replace(_LINK_START, "").replace(_LINK_END, "")
    return plain, linked / max(len(plain.strip()), 1)


def main_element(tree: Any) -> Any | None:
    """The element a page declares as its main content: the first ``[role=main]`` element, else the
    first ``<main>``, else its only ``<article>``; None when it declares none."""
    for path in ('//*[@role="main"]', "//main"):
        found = tree.xpath(path)
        if found:
            return found[0]
    articles = tree.xpath("//article")
    return articles[0] if len(articles) == 1 else None


def page_blocks(root: Any, web_names: bool = True) -> list[MarkdownBlock]:
    """The blocks of the element `root` as markdown, in page order (module docstring); `web_names` as
    in `chunklab.formats.furniture.is_furniture_element`."""
    writer = _Writer(web_names)
    writer.walk(root)
    writer.flush()
    return writer.blocks


def blocks_text(blocks: Iterable[MarkdownBlock]) -> str:
    """The blocks as one markdown text: a blank line between blocks, no trailing spaces."""
    text = "\n\n".join(block.text for block in blocks)
    return "\n".join(line.rstrip() for line in text.split("\n"))


def _tag(element: Any) -> str:
    tag = element.tag
    return tag.rpartition("}")[2].lower() if isinstance(tag, str) else ""


def _hidden(element: Any) -> bool:
    style = (element.get("style") or "").replace(" ", "").lower()
    return element.get("hidden") is not None or element.get("aria-hidden") == "true" or "display:none" in style




def _backticks(code: str) -> str:
    fence = "`"
    while fence in code:
        fence += "`"
    pad = " " if code.startswith("`") or code.endswith("`") else ""
    return f"{fence}{pad}{code}{pad}{fence}"


def _one_line(parts: list[str]) -> str:
    """Inline markdown parts joined on one line, without link marks or permalink signs."""
    return _SPACE.sub(" ", _PERMALINK.sub("", _unlinked("".join(parts))[0])).strip()


def _is_block(element: Any) -> bool:
    """Whether `element` is a block, or an inline element holding one (``<a><h2>…</h2></a>``)."""
    tag = _tag(element)
    return tag in _BLOCK or tag in _LIST or next(element.iter(*_CELL_BLOCKS), None) is not None


class _Writer:
    """Collects blocks while walking the tree; inline text gathers in a paragraph until a block starts."""

    def __init__(self, web_names: bool) -> None:
        self.blocks: list[MarkdownBlock] = []
        self.paragraph: list[str] = []
        self.web_names = web_names

    def skipped(self, element: Any) -> bool:
        """Whether `element` is furniture or hidden."""
        return is_furniture_element(element, self.web_names) or _hidden(element)

    def walk(self, element: Any, children: list[Any] | None = None) -> None:
        """Write the children of `element` (its own text first, each child's tail after it); only
        `children` and their tails when given."""
        if element.text and children is None:
            self.paragraph.append(_SPACE.sub(" ", element.text))
        for child in element if children is None else children:
            if not self.skipped(child):
                if _is_block(child):
                    self.flush()
                    self.block(child)
                else:
                    self.inline(child, self.paragraph)
            if child.tail:
                self.paragraph.append(_SPACE.sub(" ", child.tail))

    def flush(self) -> None:
        """End the paragraph being gathered."""
        text, linked = _unlinked("".join(self.paragraph))
        self.paragraph = []
        lines = [_PERMALINK.sub("", _SPACE.sub(" ", line)).strip() for line in text.split("\n")]
        text = "\n".join("\\" + line if _LINE_STRUCTURE.match(line) else line for line in lines if line)
        if text and not is_furniture_paragraph(text):
            self.blocks.append(MarkdownBlock("paragraph", text, linked))

    def inline(self, element: Any, parts: list[str], code_marks: bool = True) -> None:
        """Append `element`'s inline markdown (and not its tail) to `parts`; code in backticks unless
        not `code_marks`."""
        if self.skipped(element):
            return
        tag = _tag(element)
        if tag == "br":
            parts.append("\n")
        elif tag in _INLINE_CODE and code_marks:
            code = _SPACE.sub(" ", element.text_content()).strip()
            if code:
                parts.append(_backticks(code))
        elif tag == "img":
            alt = _SPACE.sub(" ", element.get("alt") or "").strip()
            if alt and not _ICON_ALT.match(alt):
                parts.append(f"![{alt}]({element.get('src') or ''})")
        else:
            if tag == "a":
                parts.append(_LINK_START)
            if element.text:
                parts.append(_SPACE.sub(" ", element.text))
            for child in element:
                self.inline(child, parts, code_marks)
                if child.tail:
                    parts.append(_SPACE.sub(" ", child.tail))
            if tag == "a":
                parts.append(_LINK_END)

    def inline_text(self, element: Any, code_marks: bool = True) -> str:
        """`element`'s text on one line, as inline markdown (code in backticks unless not `code_marks`)."""
        parts: list[str] = []
        self.inline(element, parts, code_marks)
        return _one_line(parts)

    def block(self, element: Any) -> None:
        """Write the block element `element` (the paragraph before it already ended)."""
        tag = _tag(element)
        if tag in _HEADINGS:
            self._heading(element)
        elif tag == "pre":
            self._code(element)
        elif tag in _LIST:
            self._list(element)
        elif tag == "table":
            self._table(element)
        elif tag != "hr":
            self.walk(element)
        self.flush()

    def _heading(self, element: Any) -> None:
        """A heading line; blocks a mis-nested heading holds (``<h2>…</h1><div>…``) follow it."""
        children = list(element)
        first_block = next((i for i, child in enumerate(children) if _is_block(child)), len(children))
        parts = [element.text or ""]
        for child in children[:first_block]:
            self.inline(child, parts, code_marks=False)
            parts.append(child.tail or "")
        text = _one_line(parts)
        if text:
            self.blocks.append(MarkdownBlock("heading", "#" * _HEADINGS[_tag(element)] + " " + text))
        self.walk(element, children[first_block:])

    def _code(self, element: Any) -> None:
        code = element.text_content()
        code = code.removeprefix("\n")
        code = "\n".join(line.rstrip() for line in code.rstrip().split("\n"))
        if not code.strip():
            return
        fence = "```"
        while fence in code:
            fence += "`"
        self.blocks.append(MarkdownBlock("code", f"{fence}{_language(element)}\n{code}\n{fence}"))

    def _list(self, element: Any) -> None:
        number = int(element.get("start") or 1) if (element.get("start") or "1").isdigit() else 1
        items: list[str] = []
        linked = total = 0.0
        for item in element:
            if self.skipped(item):
                continue
            writer = _Writer(self.web_names)
            writer.walk(item) if _tag(item) == "li" else writer.block(item)
            writer.flush()
            if not writer.blocks:
                continue
            marker = f"{number}. " if _tag(element) == "ol" else "- "
            number += _tag(item) == "li"
            for block in writer.blocks:
                linked, total = linked + block.linked * len(block.text), total + len(block.text)
            lines = "\n\n".join(block.text for block in writer.blocks).split("\n")
            pad = " " * len(marker)
            items.append("\n".join([marker + lines[0], *(pad + line if line else "" for line in lines[1:])]))
        if items:
            self.blocks.append(MarkdownBlock("list", "\n".join(items), linked / max(total, 1)))

    def _table(self, element: Any) -> None:
        rows = [row for row in element.iter("tr") if next(row.iterancestors("table"), None) is element]
        cells = [[cell for cell in row if _tag(cell) in ("td", "th") and not self.skipped(cell)] for row in rows]
        for caption in element.iterchildren("caption"):
            self.walk(caption)
            self.flush()
        layout = any(
            next(cell.iter(*_CELL_BLOCKS), None) is not None for row in cells for cell in row)
        if layout:
            for row in cells:
                for cell in row:
                    self.walk(cell)
                    self.flush()
            return
        lines = []
        for row in cells:
            texts = []
            for cell in row:
                texts += [self.inline_text(cell).replace("|", "\\|")] * max(1, int(cell.get("colspan") or 1)
                                                                       if (cell.get("colspan") or "1").isdigit() else 1)
            lines.append(texts)
        lines = [row for row in lines if any(row)]
        if not lines:
            return
        width = max(len(row) for row in lines)
        rows_md = ["| " + " | ".join(row + [""] * (width - len(row))) + " |" for row in lines]
        rows_md.insert(1, "|" + "---|" * width)
        self.blocks.append(MarkdownBlock("table", "\n".join(rows_md)))


def _language(pre: Any) -> str:
    for element in (pre, pre.getparent(), *(pre.getparent().iterancestors() if pre.getparent() is not None else ())):
        if element is None:
            continue
        for name in (element.get("class") or "").split():
            match = _LANGUAGE.match(name)
            if match and match.group(1).lower() not in _NO_LANGUAGE:
                return match.group(1).lower()
    return ""
