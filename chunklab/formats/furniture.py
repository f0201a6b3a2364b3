"""Page furniture: what a web page or a generated documentation page shows around its main text.

Two views of the same idea, kept in one place so the reader and its measurements cannot drift apart:

* `is_furniture_element` says which elements of a parsed page are furniture by what they *are*
  (navigation, menus, sidebars, site headers and footers, search boxes, permalink anchors, a
  generator's navigation bars and tables of contents), from their tag, ARIA role and class or id
  tokens; `chunklab.formats.html_structure` leaves them out before writing the main text.
* `furniture_lines` finds furniture by what it *says*, in text already extracted: the permalink
  sign, Sphinx's sidebar and related-bar phrases, SQLite's site menu and tagline, "last modified"
  footers, Texinfo's "Next: … Previous: … Up: … [Contents][Index]" lines, DocBook's navigation
  bars. The reader drops a paragraph that is nothing but such a line (`is_furniture_paragraph`);
  ``benchmarks/doc_trees.py`` and the tests count the lines of a reader's output that it flags.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["furniture_lines", "is_furniture_element", "is_furniture_paragraph"]

_TAGS = frozenset((
    "script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "embed", "form", "button",
    "input", "select", "textarea", "nav", "aside", "dialog", "head", "title", "meta", "link",
))
_ROLES = frozenset(("navigation", "search", "banner", "contentinfo", "complementary", "dialog", "alertdialog",
                    "menu", "menubar"))
# Class tokens that name furniture: documentation generators' own (Sphinx, Texinfo, DocBook, SQLite's
# hand-made pages) matched whole...
_TOKENS = frozenset((
    "sphinxsidebar", "sphinxsidebarwrapper", "related", "footer", "mobile-nav", "inline-search", "headerlink",
    "nav-panel", "contents_element", "element-contents", "shortcontents_element", "element-shortcontents",
    "navheader", "navfooter", "toc", "list-of-tables", "list-of-figures", "list-of-examples",
    "nosearch", "menu", "mainmenu", "submenu", "searchmenu", "tagline", "rightsidebar",
    "breadcrumb", "breadcrumbs", "skip-link", "skiplink", "visually-hidden", "sr-only", "screen-reader-text",
))
# ... and the usual names of web furniture, matched as a part of a hyphenated or underscored name.
_PARTS = re.compile(r"(?:^|[-_])(?:cookies?|consent|gdpr|advert|ads|ad-slot|share|sharing|social|newsletter|"
                    r"comments?|related[a-z]*|breadcrumbs?|sidebar|site-header|site-footer|masthead)(?:$|[-_])")
# Texinfo's index pages open and close with a table of letter links, "Jump to: A B C ...".
_JUMP_TO = re.compile(r"^\s*Jump to:")
# Texinfo's navigation header is a <div class="header"> holding a "Next:/Previous:/Up:" paragraph.
_TEXINFO_NAV = re.compile(r"^\s*(?:Next|Previous|Prev|Up):\s.*?(?:\[(?:Contents|Index)\]\s*)*$", re.DOTALL)

_PERMALINK = re.compile(r"¶")
_NAV_LINES = [
    re.compile(r"^(?:Previous topic|Next topic|This Page|Report a Bug|Show Source|Quick search|Navigation)$"),
    re.compile(r"^(?:Next|Previous|Prev|Up): .*(?:\[Contents\]|\[Index\]|, (?:Previous|Up): )"),
    re.compile(r"\[Contents\]\s*\[Index\]"),
    re.compile(r"(?:^|\W)(?:This page|Page) (?:was )?last (?:modified|updated)\b", re.IGNORECASE),
    re.compile(r"Small\. Fast\. Reliable\.|Choose any three\."),
    re.compile(r"^(?:Home|About|Documentation|Download|License|Support|Purchase|Search)(?: (?:Home|About|Menu|"
               r"Documentation|Download|License|Support|Purchase|Search))+$"),
    re.compile(r"^(?:Prev|Up|Home|Next)(?: (?:Prev|Up|Home|Next))+$"),  # DocBook's navigation bars
    re.compile(r"^\|? ?Jump to:"),
]


def _names_furniture(element: Any, web_names: bool) -> bool:
    """A class token naming furniture: one of a generator's whole, or with `web_names` one of the web's
    in part; with `web_names`, an id naming furniture whole (an id only holding such a word, as
    ``how-do-i-share-variables``, is a heading's slug)."""
    classes = (element.get("class") or "").lower().split()
    if any(name in _TOKENS for name in classes):
        return True
    if not web_names:
        return False
    ident = (element.get("id") or "").lower()
    return (any(_PARTS.search(name) for name in classes)
            or ident in _TOKENS or _PARTS.fullmatch(ident.strip("-_")) is not None)


def is_furniture_element(element: Any, web_names: bool = True) -> bool:
    """Whether the lxml `element` is furniture (module docstring): a furniture tag (``nav``, ``form``,
    ``script``, ``svg``...), a ``header`` outside any ``article``/``main``/``section``, a ``footer``
    outside a ``blockquote``, a navigation/search/banner/contentinfo/complementary role, a class
    naming a generator's furniture, Texinfo's ``div.header`` navigation line or "Jump to:" index
    letters, or, with `web_names`, a class or id with a web furniture name (cookie, share, comments,
    related...), or an ``aside``. A generator's page is read without `web_names`: its ids are its
    section names (Texinfo's node "Comments"), its ``aside`` elements sidebar directives of the document."""
    tag = element.tag
    if not isinstance(tag, str):
        return True  # a comment or processing instruction
    tag = tag.rpartition("}")[2].lower()
    if tag == "aside":  # a generator's sidebar directive is content (Sphinx's "Hello World!" example)
        return web_names
    if tag in _TAGS or (element.get("role") or "").lower() in _ROLES:
        return True
    if tag == "header":
        return not any(a.tag in ("article", "main", "section") for a in element.iterancestors())
    if tag == "footer":
        return not any(a.tag == "blockquote" for a in element.iterancestors())
    if tag == "table" and _JUMP_TO.match(element.text_content()):
        return True
    if _names_furniture(element, web_names):
        return True
    return "header" in (element.get("class") or "").split() and bool(_TEXINFO_NAV.match(element.text_content()))


def is_furniture_paragraph(text: str) -> bool:
    """Whether a paragraph of extracted text is nothing but furniture lines: a "last modified" footer,
    a Texinfo navigation line (``Next: … Up: … [Contents][Index]``), a sidebar or menu phrase."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return bool(lines) and all(any(p.search(line) for p in _NAV_LINES) for line in lines)


def _is_furniture_line(line: str) -> bool:
    line = line.strip()
    return bool(_PERMALINK.search(line)) or any(pattern.search(line) for pattern in _NAV_LINES)


def furniture_lines(text: str) -> list[str]:
    """The lines of `text` that hold furniture: a permalink sign, a sidebar or menu phrase, a "last
    modified" footer, a Texinfo or DocBook navigation line (module docstring)."""
    return [line for line in text.splitlines() if _is_furniture_line(line)]
