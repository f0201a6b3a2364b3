"""Web pages to main text: what chunklab's reader keeps and leaves out, against the two libraries compared.

The pages are the four under ``tests/fixtures/web`` (a static-site documentation page, a news
article, a council service page, and a blog on a ``div``-only theme that was written after the other
three contenders were set up); ``tests/fixtures/web/expected.json`` lists each page's main text
(every heading, paragraph, list item, table row, caption and code line) and furniture strings that
must not come through (navigation, cookie banners, share bars, related links, comments, scripts, SVG
path data). Contenders:

* chunklab ``extract_web_page`` (`chunklab.formats.web`): trafilatura with chunklab's pre- and post-pass;
* trafilatura alone, with the same options (markdown, tables, images, no links, no comments);
* markdownify on the page's ``<main>`` (else ``<article>``, ``[role=main]``, ``<body>``), after the
  usual furniture rules: no ``script``, ``style``, ``svg``, ``nav``, ``aside``, ``form``, buttons,
  inputs, dialogs, ``hidden``/``aria-hidden`` elements, navigation/search/banner roles, and no
  element whose class or id names a cookie banner, an advert, a share bar, a newsletter, comments,
  related links, breadcrumbs, a skip link or visually hidden text.

Per page: main passages found (compared word by word), furniture strings leaked, the headings,
pipe tables and code blocks markdown-it-py finds in the output, and the time. Run:
``.venv/bin/python benchmarks/bench_html.py`` (markdownify: ``benchmarks/requirements.txt``).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Callable

from chunklab.formats.markdown import markdown_blocks
from chunklab.formats.web import extract_web_page

PAGES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "web"
_DROP_TAGS = ["script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "embed", "form",
              "button", "input", "select", "textarea", "label", "nav", "aside", "dialog"]
_DROP_ROLES = {"navigation", "search", "banner", "contentinfo", "dialog", "alertdialog", "complementary"}
_DROP_CLASS = re.compile(r"(^|[-_])(cookie|consent|gdpr|advert|ad-slot|ads|share|social|newsletter|comments?|related|"
                         r"breadcrumbs?|skip-link|visually-hidden|sr-only|headerlink)($|[-_])", re.IGNORECASE)


def trafilatura_alone(html: str) -> str:
    """trafilatura's markdown with the options chunklab uses, without its pre- and post-pass."""
    import trafilatura

    return trafilatura.extract(html, output_format="markdown", include_tables=True, include_formatting=True,
                               include_images=True, include_links=False, include_comments=False) or ""


def markdownify_with_rules(html: str) -> str:
    """markdownify on the main element, after the furniture rules of the module docstring."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    root = soup.find("main") or soup.find("article") or soup.find(attrs={"role": "main"}) or soup.body or soup
    for element in list(root.find_all(True)):
        if element.decomposed:
            continue
        names = [*(element.get("class") or []), element.get("id") or ""]
        footer = element.name == "footer" and element.find_parent(["blockquote", "figure"]) is None
        if (element.name in _DROP_TAGS or footer or element.has_attr("hidden") or element.get("aria-hidden") == "true"
                or element.get("role") in _DROP_ROLES or any(_DROP_CLASS.search(n) for n in names if n)):
            element.decompose()

    def language(element):
        code = element.find("code") or element
        return next((c[9:] for c in code.get("class") or [] if c.startswith("language-")), "")

    converter = MarkdownConverter(heading_style="ATX", bullets="-", strip=["a", "img"], code_language_callback=language)
    return re.sub(r"\n{3,}", "\n\n", converter.convert_soup(root)).strip()


def words(text: str) -> str:
    return " " + " ".join(re.findall(r"\w+", text.lower())) + " "


def score(extract: Callable[[str], str], page: str, expected: dict) -> dict:
    html = (PAGES / page).read_text(encoding="utf-8")
    started = time.perf_counter()
    text = extract(html)
    seconds = time.perf_counter() - started
    found = words(text)
    kinds = [block.kind for block in markdown_blocks(text)]
    return {
        "main": sum(words(passage) in found for passage in expected["main"]),
        "main_total": len(expected["main"]),
        "leaked": [f for f in expected["furniture"] if f in text],
        "furniture_total": len(expected["furniture"]),
        "headings": kinds.count("heading"),
        "tables": kinds.count("table"),
        "code": kinds.count("code"),
        "ms": 1000 * seconds,
    }


def main() -> None:
    expected = {k: v for k, v in json.loads((PAGES / "expected.json").read_text(encoding="utf-8")).items()
                if not k.startswith("_")}
    contenders = {
        "chunklab (trafilatura + passes)": lambda html: extract_web_page(html)[0],
        "trafilatura alone": trafilatura_alone,
        "markdownify + rules": markdownify_with_rules,
    }
    for html in (PAGES / page for page in expected):  # warm-up: imports and first parses
        for extract in contenders.values():
            extract(html.read_text(encoding="utf-8"))
    print(f"{'contender':32} {'page':28} {'main':>7} {'leaked':>7} {'h':>3} {'tab':>3} {'code':>4} {'ms':>6}")
    for name, extract in contenders.items():
        for page, wanted in expected.items():
            row = score(extract, page, wanted)
            print(f"{name:32} {page:28} {row['main']:>3}/{row['main_total']:<3} {len(row['leaked']):>3}/"
                  f"{row['furniture_total']:<3} {row['headings']:>3} {row['tables']:>3} {row['code']:>4} "
                  f"{row['ms']:>6.1f}  {', '.join(row['leaked'][:4])}")


if __name__ == "__main__":
    main()
