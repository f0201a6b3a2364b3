"""Real documentation trees through the web reader: headings kept, code kept, furniture left, time.

The trees are Debian's (``apt-get install python3-doc sqlite3-doc gnu-standards debian-reference-en``):
Sphinx (``/usr/share/doc/python3/html``), hand-made HTML (``/usr/share/doc/sqlite3``), Texinfo
(``/usr/share/doc/gnu-standards``) and DocBook (``/usr/share/debian-reference``). Per tree, over its
``.html`` pages (Sphinx's ``_sources``/``_static``/``_images``/``_downloads`` left out):

* **headings**: the page's ``h1``-``h4`` elements in its content (what `content_elements` keeps: for
  each generator, the part of the page its own markup says is the document; a heading inside a
  link, as SQLite's ``<a href="intro.html"><h2>…</h2></a>`` back to a module's introduction, is a
  link, not a heading of the content), and how many of them
  the reader's text holds as a heading line at the same level with the same words (each line
  counted once);
* **pre**: the content's ``<pre>`` blocks of two or more lines, and how many the text holds line for
  line (trailing spaces aside) as the content of a fenced code block (markdown-it-py's reading);
* **furniture**: the lines of the text that `chunklab.formats.furniture.furniture_lines` flags
  (``¶``, sidebar and menu phrases, "last modified" footers, Texinfo and DocBook navigation lines);
* **time**: the reader's wall time, in ms per page.

The content is defined here, from each generator's markup, independently of the reader's
furniture rules. Run ``python benchmarks/doc_trees.py`` (all pages) or ``--sample 25`` (a seeded
random sample per tree); ``--reader /other/checkout/chunklab/formats/web.py`` measures another
version's ``extract_web_page`` the same way (a file without package-relative imports).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import re
import time
from collections import Counter
from pathlib import Path

from markdown_it import MarkdownIt

from chunklab.formats.furniture import furniture_lines
from chunklab.formats.web import extract_web_page

#: tree name -> (folder, where its content is, XPath of elements inside the content that are not).
TREES = {
    "python (Sphinx)": ("/usr/share/doc/python3/html", '//*[@role="main"]', ".//*[contains(@class, 'headerlink')]"),
    "sqlite (hand-made)": ("/usr/share/doc/sqlite3", "//body",
                           ".//div[@class='nosearch' or contains(@class, 'rightsidebar')]"),
    "gnu-standards (Texinfo)": ("/usr/share/doc/gnu-standards", "//body",
                                (".//div[contains(@class, 'Contents_element') or @class='header' "
                                "or contains(@class, 'nav-panel')]")),
    "debian-reference (DocBook)": ("/usr/share/debian-reference", "//body",
                                   ".//div[@class='navheader' or @class='navfooter' or @class='toc']"),
}
_SKIPPED_DIRS = {"_sources", "_static", "_images", "_downloads"}
_SPACE = re.compile(r"\s+")
_HEADING_LINE = re.compile(r"^(#{1,6}) +(.*?)\s*$")
_MD = MarkdownIt("commonmark")
_BLOCKS = ("div", "p", "ul", "ol", "dl", "table", "pre", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6")


def pages(folder: str) -> list[Path]:
    """The tree's ``.html`` pages, sorted, outside Sphinx's build folders."""
    return sorted(p for p in Path(folder).rglob("*.html") if not _SKIPPED_DIRS & set(p.parts))


def _normal(text: str) -> str:
    return _SPACE.sub(" ", text.replace("¶", "")).strip()


def _heading_text(heading) -> str:
    """A heading's words up to the first block it holds (a mis-nested ``<h2>…</h1><div>`` holds the
    rest of the page: those blocks are not its title)."""
    words = [heading.text or ""]
    for child in heading:
        if child.tag in _BLOCKS or any(True for _ in child.iter(*_BLOCKS)):
            break
        words += [child.text_content() if child.tag not in ("script", "style") else "", child.tail or ""]
    return _normal("".join(words))


def content_elements(source: str, root_path: str, excluded_path: str) -> tuple[list[tuple[int, str]], list[str]]:
    """The content's ``h1``-``h4`` headings as ``(level, text)`` and its multi-line ``<pre>`` texts."""
    import lxml.html

    tree = lxml.html.document_fromstring(source.encode("utf-8"), parser=lxml.html.HTMLParser(encoding="utf-8"))
    roots = tree.xpath(root_path)
    if not roots:
        return [], []
    root = roots[0]
    for element in root.xpath(excluded_path):
        element.drop_tree()
    headings = [(int(h.tag[1]), _heading_text(h)) for h in root.iter("h1", "h2", "h3", "h4")
                if next(h.iterancestors("a"), None) is None]  # a heading inside a link is a link
    pres = []
    for pre in root.iter("pre"):
        lines = [line.rstrip() for line in pre.text_content().removeprefix("\n").rstrip().split("\n")]
        if len(lines) >= 2:
            pres.append("\n".join(lines))
    return [h for h in headings if h[1]], pres


def kept_headings(text: str, headings: list[tuple[int, str]]) -> int:
    """How many of `headings` the text holds as heading lines (level and words), each line used once."""
    lines = Counter()
    for line in text.splitlines():
        match = _HEADING_LINE.match(line)
        if match:
            lines[(len(match.group(1)), _normal(match.group(2).replace("`", "")))] += 1
    return _matched(lines, headings)


def kept_pres(text: str, pres: list[str]) -> int:
    """How many of `pres` are, line for line, the content of a fenced code block of the text."""
    fences = Counter("\n".join(line.rstrip() for line in token.content.rstrip().split("\n"))
                     for token in _MD.parse(text) if token.type in ("fence", "code_block"))
    return _matched(fences, pres)


def _matched(found: Counter, wanted: list) -> int:
    """How many of `wanted` are in `found`, each found item used once (`found` is consumed)."""
    kept = 0
    for item in wanted:
        if found[item] > 0:
            found[item] -= 1
            kept += 1
    return kept


def reader_from(path: str):
    """The ``extract_web_page`` function of the Python file `path`."""
    spec = importlib.util.spec_from_file_location("measured_web_reader", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.extract_web_page


def measure(name: str, sample: int | None, seed: int, read=extract_web_page) -> dict[str, float]:
    """The row of the table for tree `name` (all its pages, or a seeded sample of `sample`)."""
    folder, root_path, excluded_path = TREES[name]
    files = pages(folder)
    if sample:
        files = sorted(random.Random(seed).sample(files, min(sample, len(files))))
    row = Counter()
    for path in files:
        source = path.read_text(encoding="utf-8", errors="replace")
        started = time.perf_counter()
        text, _ = read(source)
        row["seconds"] += time.perf_counter() - started
        headings, pres = content_elements(source, root_path, excluded_path)
        row["pages"] += 1
        row["headings"] += len(headings)
        row["headings kept"] += kept_headings(text, headings)
        row["pre"] += len(pres)
        row["pre kept"] += kept_pres(text, pres)
        row["furniture"] += len(furniture_lines(text))
    return row


def main() -> None:
    """Print the table (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=None, help="pages per tree, drawn at random (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reader", help="a web.py whose extract_web_page is measured (default: chunklab's)")
    parser.add_argument("--tree", action="append", choices=sorted(TREES), help="only this tree (repeatable)")
    args = parser.parse_args()
    print("| tree | pages | headings kept | multi-line pre kept | furniture lines | ms/page | total s |")
    print("|---|---|---|---|---|---|---|")
    for name in args.tree or TREES:
        if not Path(TREES[name][0]).is_dir():
            print(f"| {name} | not installed | | | | | |")
            continue
        r = measure(name, args.sample, args.seed, reader_from(args.reader) if args.reader else extract_web_page)
        print(f"| {name} | {r['pages']} | {r['headings kept']}/{r['headings']} | {r['pre kept']}/{r['pre']} | "
              f"{r['furniture']} | {1000 * r['seconds'] / max(r['pages'], 1):.1f} | {r['seconds']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
