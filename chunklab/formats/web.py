"""A web page's visible main text, as markdown the structure-aware chunkers understand.

`extract_web_page` turns the HTML source of a page into its main content: every ``h1``-``h6`` as a
``#`` heading at its level, every ``<pre>`` as a fenced block with its lines and indentation exact,
lists as ``-``/``1.`` items, tables as pipe tables, images as ``![alt](src)``, no markdown escape the
page did not have (but a backslash before a paragraph line that would read as a heading, a fence or
an HTML block: ``\\# chmod -R ug+rwX .``), with navigation, menus, sidebars, site headers and footers,
permalink signs, "last modified" lines, Texinfo's "Next: … Up: … [Contents][Index]" lines, scripts,
styles, SVG, forms, cookie banners, share bars, related links and comments left out.
`chunklab.formats.readers.read_document` reads ``.html`` files through it, so `Document.text` *is*
the extracted text and every chunk's offsets are exact against it; the raw source stays available
(``read_document(path, html_source=True)``).

**How.** A structural pass of our own on lxml's tree (`chunklab.formats.html_structure`) writes the
blocks; furniture is left out by what elements are (`chunklab.formats.furniture`: tags, ARIA roles,
generators' class names). Which part of the page is read: the element the page declares as its main
content (``[role=main]``, ``<main>``, its one ``<article>``), else the body. When the page declares
neither a main element nor a documentation generator (``<meta name="generator">``: Docutils/Sphinx,
Texinfo, DocBook, Doxygen, MkDocs...), trafilatura (a boilerplate remover that scores a page's blocks)
chooses among headings and link-heavy blocks (a third or more link text): such a block stays when
most of its word trigrams are in trafilatura's text, a heading also when text of its section stays,
a list or table of links also right under a heading ("See also"); prose blocks always stay.

**Why, measured** (``benchmarks/doc_trees.py``, 25 random pages per Debian tree, seed 0; content
headings h1-h4 kept at their level / multi-line ``<pre>`` kept line for line in a fence / furniture
lines; Sphinx ``python3-doc``, hand-made ``sqlite3-doc``, Texinfo ``gnu-standards``, DocBook
``debian-reference-en``):

* trafilatura alone (the reader before): Sphinx 393/401, 152/390, 778; SQLite 11/63, 5/21, 24;
  Texinfo 1/145, 34/110, 142; DocBook 15/466, 14/163, 0. It writes what it keeps well only on
  Sphinx, and flattens code inside definition lists and Texinfo examples.
* html2text (whole page): 393/401, 370/390, 1109; 50/63, 19/21, 57; 141/145, 101/110, 150;
  461/466, 150/163, 0.
* markdownify (whole page): 394/401, 362/390, 1109; 63/63, 21/21, 82; 145/145, 100/110, 150;
  466/466, 161/163, 0. Both converters keep structure far better than trafilatura but write every
  page's furniture and escape inline characters (``add\\_mutually``), and neither chooses the main text.
* this reader: 401/401, 390/390, 0; 63/63, 21/21, 0; 145/145, 110/110, 0; 466/466, 163/163, 0.
  On the full trees (530 Sphinx, 766 SQLite, 2 Texinfo, 16 DocBook pages): 4620/4620 and 4620/4620;
  3044/3046 and 839/840; 145/145 and 110/110; 466/466 and 163/163; 0 furniture lines.

A structural pass of our own won over both converters because the goals are about what the tree
says (heading levels, ``<pre>`` text, furniture classes) and neither converter knows furniture or
can be told to add no escapes; trafilatura is kept for what it alone does, telling a blog's share
bar or "Posted in" line from its text on pages that say nothing about themselves
(``tests/fixtures/web``). Speed: 25 ms a page on the Sphinx sample (trafilatura alone: 101 ms).

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
    a few words) gives all its blocks. Needs trafilatura and lxml (``pip install -e '.[web]' in a chunklab clone``);
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


def _kept(block: MarkdownBlock, kept_text: str, kept_grams: set[tuple[str, str, str]]) -> bool:
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
