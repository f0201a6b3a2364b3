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

from .html_structure import MarkdownBlock, blocks_text, main_element, page_blocks

__all__ = ["extract_web_page"]

# Where a page's own title is not: its first <h1> outside these (and not just a link, as a site
# logo is) is put back if the extraction lost it.
_FURNITURE = ("nav", "footer", "aside", "form")
_SPACE = re.compile(r"\s+")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_HEADING = re.compile(r"^(#{1,6}) +(.*?)[ \t]*$")
_PERMALINK = re.compile(r"[ \t]*[¶§🔗]+$")
_WORD = re.compile(r"\w+")
# A documentation generator's <meta name="generator">: its pages hold nothing but the document and
# the generator's own furniture, which the structural pass knows.
_DOC_GENERATOR = re.compile(r"docutils|sphinx|docbook|makeinfo|texi2any|texinfo|doxygen|mkdocs|asciidoctor|"
                            r"pandoc|javadoc|rustdoc|jsdoc|hugo|jekyll|gitbook|docusaurus|pdoc|epydoc|org mode",
                            re.IGNORECASE)
# A block is trafilatura's main text when at least this share of its word trigrams is in its output;
# a block it left out is left out when at least this share of its characters is link text.
_KEPT_SHARE = 0.5
_LINKED_SHARE = 1 / 3


def extract_web_page(source: str) -> tuple[str, dict[str, Any]]:
    """The visible main text of the HTML page `source`, and what the extraction tells about it.

    Returns ``(text, metadata)``: ``text`` is markdown (see the module docstring and
    `chunklab.formats.html_structure`), without trailing spaces, a blank line between blocks;
    ``metadata`` holds ``format`` (``"markdown"``), ``extractor`` (``"structure"`` when the page
    declares its main content or its generator, ``"structure+trafilatura"`` when trafilatura chose
    the blocks), ``title`` (the page's ``<title>``, if any) and ``headings``:
    ``{"level", "title", "start", "end", "source_line"}`` for each heading of the text
    (``source_line``: the line of its element in `source`, from 1; None when the heading was made
    from another element). A page whose main content trafilatura cannot find (a fragment, a page of
    a few words) gives all its blocks. Needs trafilatura and lxml (``pip install 'chunklab[web]'``);
    raises `ImportError` without them.
    """
    import lxml.html
    from lxml.etree import ParserError

    metadata: dict[str, Any] = {"format": "markdown", "extractor": "structure", "title": "", "headings": []}
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
    main, declared = main_element(tree), _declares_generator(tree)
    body = tree.find("body")
    blocks = page_blocks(main if main is not None else body if body is not None else tree, web_names=not declared)
    if main is None and not declared:
        metadata["extractor"] = "structure+trafilatura"
        blocks = _chosen_by_trafilatura(blocks, tree)
    text = blocks_text(blocks)
    if title and _normal(title) not in _normal(text):
        text = f"# {title}\n\n{text}".rstrip()
    metadata["headings"] = _headings(text, sources)
    return text, metadata


def _declares_generator(tree: Any) -> bool:
    return any(_DOC_GENERATOR.search(meta.get("content") or "")
               for meta in tree.iter("meta") if (meta.get("name") or "").lower() == "generator")


def _chosen_by_trafilatura(blocks: list[MarkdownBlock], tree: Any) -> list[MarkdownBlock]:
    """The blocks of an undeclared page that are main text: trafilatura's choice for headings and
    blocks of links (at least a third link text), which are kept when most of their word trigrams are
    in trafilatura's output, a heading also when a text block of its section is kept, a list or
    table of links also when it comes right under a heading (a "See also" list, a list of functions);
    every other block; all blocks when trafilatura finds no main text."""
    import trafilatura

    _prepare(tree)
    extracted = trafilatura.extract(tree, output_format="txt", include_tables=True, include_formatting=False,
                                    include_images=False, include_links=False, include_comments=False)
    if not extracted:
        return blocks
    words = _WORD.findall(extracted.lower())
    kept_text, kept_grams = f" {' '.join(words)} ", set(zip(words, words[1:], words[2:]))
    kept = [(block.kind != "heading" and block.linked < _LINKED_SHARE) or _kept(block, kept_text, kept_grams)
            or (block.kind in ("list", "table") and index > 0 and blocks[index - 1].kind == "heading")
            for index, block in enumerate(blocks)]
    for index, heading in enumerate(blocks):  # a heading stays when text of its section does
        if heading.kind == "heading" and not kept[index]:
            for block, keep in zip(blocks[index + 1:], kept[index + 1:]):
                if block.kind == "heading" and _level(block) <= _level(heading):
                    break
                if keep and block.kind != "heading":
                    kept[index] = True
                    break
    return [block for block, keep in zip(blocks, kept) if keep]


def _level(heading: MarkdownBlock) -> int:
    return len(heading.text) - len(heading.text.lstrip("#"))


def _kept(block: MarkdownBlock, kept_text: str, kept_grams: set[tuple[str, ...]]) -> bool:
    """Whether trafilatura kept `block`: most of its word trigrams (all its words, in order, when it
    has fewer than three) are in trafilatura's text (`kept_text`, its trigrams `kept_grams`)."""
    words = _WORD.findall(block.text.lower())
    if len(words) < 3:
        return bool(words) and f" {' '.join(words)} " in kept_text
    grams = list(zip(words, words[1:], words[2:]))
    return sum(gram in kept_grams for gram in grams) >= _KEPT_SHARE * len(grams)


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


def _headings(text: str, sources: dict[str, int]) -> list[dict[str, Any]]:
    """Each heading line of `text` outside code fences, with its span and its element's source line."""
    headings, fence, offset = [], "", 0  # fence: the run of backticks or tildes of the open code block
    for line in text.splitlines(keepends=True):
        stripped = line.rstrip("\r\n")
        opener = _FENCE.match(stripped)
        if fence:
            fence = "" if stripped.strip() == fence else fence
        elif opener:
            fence = opener.group(1)
        elif match := _HEADING.match(stripped):
            title = match.group(2)
            headings.append({"level": len(match.group(1)), "title": title, "start": offset,
                             "end": offset + len(stripped), "source_line": sources.get(_normal(title))})
        offset += len(line)
    return headings
