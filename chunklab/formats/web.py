"""A web page's visible main text, as markdown-like text the structure-aware chunkers understand.

`extract_web_page` turns the HTML source of a page into its main content: headings as ``#`` lines,
lists as ``-``/``1.`` items, tables as pipe tables, code as fenced blocks, images as ``![alt](src)``,
with navigation, headers and footers, scripts, styles, inline SVG, forms, cookie banners, share
bars, related links and comments left out. `chunklab.formats.readers.read_document` reads ``.html``
files through it, so `Document.text` *is* the extracted text and every chunk's offsets are exact
against it; the raw source stays available (``read_document(path, html_source=True)``) for the
course's lesson on markup and for the course corpus, whose question spans index the source.

**Why trafilatura.** The extraction is trafilatura's (a library made for boilerplate removal: it
scores the page's blocks and keeps the main content, then writes it as markdown). It was compared
with markdownify (a faithful HTML-to-markdown converter, given the page's ``<main>``/``<article>``
and the usual furniture rules: no ``nav``, ``aside``, ``form``, ``svg``, cookie/share/comment
classes...) on four pages written to look like real sites (``tests/fixtures/web``: a static-site
documentation page, a news article, a council service page, and a blog on a ``div``-only theme
written after both set-ups were frozen); ``benchmarks/bench_html.py`` reproduces the numbers.
Both kept out every script, style and SVG; on the first three pages both left out all furniture;
on the ``div``-only blog markdownify let 11 of 26 furniture strings through (menu, share and
related links, footer), trafilatura none. trafilatura lost main text, though, in four documented
ways, which the small pre- and post-pass here repairs (all four pages then keep 100% of their main
text): figure and table captions and a quote's attribution (``<footer>`` in ``<blockquote>``) are
dropped, so they become paragraphs first; a table cell or definition term whose whole text is a
share-button word ("Email", "Print", "PDF"...) is dropped, so such texts carry an invisible marker
through the extraction; and a title outside the content block (``<h1>`` in an entry header) is
dropped, so the page's first ``<h1>`` outside headers and navigation is put back on top. It costs
about 25 MB installed (lxml, dateparser, justext...) against under 1 MB for markdownify.

Element positions: lxml reports the source line of every element, so ``headings`` in the metadata
gives, for each heading of the text, its span in the text and the line of its element in the HTML.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["EXTRACTOR", "extract_web_page"]

#: What the metadata's ``extractor`` says (the pinned extraction library).
EXTRACTOR = "trafilatura"

# Carried through the extraction by short table cells and definition terms, removed afterwards: a
# private-use character, which no extraction filter matches and no page needs.
_MARK = "\ue000"
_KEEP_MARKED = ("td", "th", "dt", "dd")
# Where a page's own title is not: its first <h1> outside these (and not just a link, as a site
# logo is) is put back if the extraction lost it.
_FURNITURE = ("nav", "footer", "aside", "form")
_SPACE = re.compile(r"\s+")
_FENCE = re.compile(r"^(```|~~~)")
_HEADING = re.compile(r"^(#{1,6}) +(.*?)[ \t]*$")
_PERMALINK = re.compile(r"[ \t]*[¶§🔗]+$")
# trafilatura's backslash escapes of inline markdown characters (keep\_daily); escapes of a line's
# first character (\# not a heading, 1\. not a list) stay, since they keep the structure right.
_INLINE_ESCAPE = re.compile(r"\\([*_`~\[\]<])")


def extract_web_page(source: str) -> tuple[str, dict[str, Any]]:
    """The visible main text of the HTML page `source`, and what the extraction tells about it.

    Returns ``(text, metadata)``: ``text`` is markdown-like (see the module docstring), without
    trailing spaces, with a blank line around every heading and code block, and without the
    backslashes trafilatura puts before ``_``, ``*``, ``[``... in running text (``keep_daily`` reads
    as on the page; the escape of a line's first character, ``\\#`` or ``1\\.``, stays); ``metadata`` holds
    ``format`` (``"markdown"``), ``extractor``, ``title`` (the page's ``<title>``, if any) and
    ``headings``: ``{"level", "title", "start", "end", "source_line"}`` for each heading of the text
    (``source_line``: the line of its element in `source`, from 1; None when the extraction made the
    heading from another element). A page whose main content trafilatura cannot find (a fragment, a
    page of a few words) gives its visible text, block by block. Needs trafilatura and lxml
    (``pip install 'chunklab[web]'``); raises `ImportError` without them.
    """
    import lxml.html
    import trafilatura
    from lxml.etree import ParserError

    metadata: dict[str, Any] = {"format": "markdown", "extractor": EXTRACTOR, "title": "", "headings": []}
    if not source.strip():
        return "", metadata
    parser = lxml.html.HTMLParser(encoding="utf-8", remove_comments=True)
    try:
        tree = lxml.html.document_fromstring(source.encode("utf-8"), parser=parser)
    except ParserError:  # only comments, a doctype or whitespace
        return "", metadata
    metadata["title"] = _normal(tree.findtext(".//title") or "")
    sources = _heading_lines(tree)
    title = _page_title(tree)
    _prepare(tree)
    extracted = trafilatura.extract(
        tree, output_format="markdown", include_tables=True, include_formatting=True, include_images=True,
        include_links=False, include_comments=False,
    ) or _visible_text(tree)
    text = _tidy(extracted.replace(_MARK, ""))
    if title and _normal(title) not in _normal(text):
        text = f"# {title}\n\n{text}".rstrip()
    metadata["headings"] = _headings(text, sources)
    return text, metadata


def _normal(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _heading_lines(tree: Any) -> dict[str, int]:
    """The source line of the first ``h1``-``h6`` element with each (whitespace-normalised) text."""
    lines: dict[str, int] = {}
    for element in tree.iter("h1", "h2", "h3", "h4", "h5", "h6"):
        key = _PERMALINK.sub("", _normal(element.text_content()))
        if key and element.sourceline is not None:
            lines.setdefault(key, element.sourceline)
    return lines


def _page_title(tree: Any) -> str:
    """The text of the page's first ``<h1>`` that is neither inside navigation, a footer, an aside or
    a form, nor all one link (a site's name linking to its home page)."""
    for element in tree.iter("h1"):
        if any(ancestor.tag in _FURNITURE for ancestor in element.iterancestors()):
            continue
        title = _PERMALINK.sub("", _normal(element.text_content()))
        linked = _normal(" ".join(a.text_content() for a in element.iter("a")))
        if title and linked != title:
            return title
    return ""


def _prepare(tree: Any) -> None:
    """Turn what the extraction would drop from the main text into what it keeps (module docstring)."""
    for caption in list(tree.iter("caption")):
        table = caption.getparent()
        caption.tag = "p"
        table.remove(caption)
        caption.tail = None
        table.addprevious(caption)
    for element in list(tree.iter("figcaption")):
        element.tag = "p"
    for quote in tree.iter("blockquote"):
        for element in quote.iter("footer", "cite"):
            element.tag = "p"
    for element in tree.iter(*_KEEP_MARKED):
        if element.text and element.text.strip():
            element.text = element.text + _MARK


def _visible_text(tree: Any) -> str:
    """The page's visible text, one paragraph per block-level element (scripts and styles left out)."""
    from lxml.html.clean import Cleaner

    cleaned = Cleaner(scripts=True, javascript=True, style=True, forms=True, comments=True, embedded=True,
                      frames=True, kill_tags=["svg", "template", "noscript", "title"]).clean_html(tree)
    for element in cleaned.iter("p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "br", "dt", "dd"):
        element.tail = "\n\n" + (element.tail or "")
    blocks = (_normal(block) for block in cleaned.text_content().split("\n\n"))
    return "\n\n".join(block for block in blocks if block)


def _tidy(text: str) -> str:
    """Trailing spaces, permalink marks and escapes of inline characters off, a blank line around every
    heading and code block, no runs of blank lines outside code blocks (whose lines are kept as they
    are, but for trailing spaces)."""
    out: list[str] = []
    fenced = after_block = False  # inside a code block; the last line was a heading or closed a block
    for line in (raw.rstrip() for raw in text.splitlines()):
        if fenced:
            out.append(line)
            fenced = _FENCE.match(line) is None
            after_block = not fenced
            continue
        if not line:
            if out and out[-1]:
                out.append("")
            after_block = False
            continue
        line = _INLINE_ESCAPE.sub(r"\1", line)
        opens, heading = _FENCE.match(line) is not None, _HEADING.match(line) is not None
        if heading:
            line = _PERMALINK.sub("", line)
        if (opens or heading or after_block) and out and out[-1]:
            out.append("")
        out.append(line)
        fenced, after_block = opens, heading
    return "\n".join(out).strip()


def _headings(text: str, sources: dict[str, int]) -> list[dict[str, Any]]:
    """Each heading line of `text` outside code fences, with its span and its element's source line."""
    headings, fenced, offset = [], False, 0
    for line in text.splitlines(keepends=True):
        stripped = line.rstrip("\r\n")
        if _FENCE.match(stripped):
            fenced = not fenced
        elif not fenced and (match := _HEADING.match(stripped)):
            title = match.group(2)
            headings.append({"level": len(match.group(1)), "title": title, "start": offset,
                             "end": offset + len(stripped), "source_line": sources.get(_normal(title))})
        offset += len(line)
    return headings
