"""The course site (`make site`) read in headless Chromium, as a reader uses it.

The site is the one in ``_site/`` (`make e2e` builds it first); when it is missing the test builds
it with ``docs/build_site.py``. It is served over HTTP on the loopback interface. Every notebook page
must load without console errors, with every image loaded, no raw widget text (``VBox(``) and no
progress bar, its solutions folded and every link of the site answering; search finds a chunker;
previous/next walk the course in order; the reference lists each registered chunker's parameters.
Screenshots of three pages go to the e2e screenshot folder.

``CHUNKLAB_SITE_ONLY="00 01"`` limits the notebook pages checked to those of a partial build
(``docs/build_site.py --only 00 01``), for development.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urldefrag, urljoin

import pytest

from .conftest import REPO

SITE = REPO / "_site"
ONLY = os.environ.get("CHUNKLAB_SITE_ONLY", "").split()
NOTEBOOKS = [p.stem for p in sorted((REPO / "notebooks").glob("[0-9]*.ipynb")) if not ONLY or p.stem.split("_")[0] in ONLY]
RAW_WIDGET = re.compile(r"\b[VH]Box\(|\b0%\|")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def serving(folder: Path) -> Iterator[str]:
    """`folder` over HTTP on 127.0.0.1 (a free port); stopped on exit."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The built site's address; built first if ``_site/`` holds none."""
    if not (SITE / "index.html").exists():
        subprocess.run([sys.executable, str(REPO / "docs" / "build_site.py"), *(["--only", *ONLY] if ONLY else [])],
                       cwd=REPO, check=True)
    with serving(SITE) as url:
        yield url


@pytest.fixture(scope="module")
def checked_links() -> dict[str, int]:
    """Every internal address already requested, with its HTTP status (shared across pages)."""
    return {}


def _open(browser, url: str):
    """A new page at `url`, with its console errors and uncaught exceptions collected."""
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url, wait_until="networkidle")
    return page, errors


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_notebook_page_reads_as_the_notebook_ran(site, browser, checked_links, notebook: str) -> None:
    page, errors = _open(browser, f"{site}course/{notebook}.html")
    try:
        assert page.locator("article h1").count() >= 1, "the page has no title: was the notebook rendered?"
        broken = page.eval_on_selector_all(
            "article img", "imgs => imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src.slice(0, 80))"
        )
        assert not broken, f"images that did not load: {broken}"
        text = page.inner_text("article")
        raw = sorted(set(RAW_WIDGET.findall(text)))
        assert not raw, f"raw widget text or a frozen progress bar on the page: {raw}"
        assert page.locator("article .cell_output").count() > 0, "no cell output on the page"
        opened = page.eval_on_selector_all("article details", "ds => ds.filter(d => d.open).length")
        assert opened == 0, f"{opened} folded solutions or checks are open"
        links = page.eval_on_selector_all("a[href]", "as => as.map(a => a.href)")
        for link in {urldefrag(link).url for link in links if link.startswith(site)} - checked_links.keys():
            checked_links[link] = page.request.get(link).status
        dead = sorted(link for link in links if checked_links.get(urldefrag(link).url, 200) != 200)
        assert not dead, f"links that do not answer: {dead}"
        assert not errors, f"console errors: {errors}"
    finally:
        page.close()


def test_previous_and_next_walk_the_course_in_order(site, browser) -> None:
    if ONLY:
        pytest.skip("a partial build links to pages it did not build")
    page, _ = _open(browser, f"{site}course/{NOTEBOOKS[0]}.html")
    try:
        for before, after in zip(NOTEBOOKS, NOTEBOOKS[1:]):
            following = page.locator("a.right-next")
            assert following.count() == 1, f"{before} has no next link"
            following.click()
            page.wait_for_load_state("networkidle")
            assert page.url.split("#")[0].endswith(f"course/{after}.html"), f"next of {before} is {page.url}"
            back = page.locator("a.left-prev").get_attribute("href") or ""
            assert urljoin(page.url, back).endswith(f"course/{before}.html"), f"previous of {after} is {back}"
    finally:
        page.close()


def test_search_finds_a_chunker(site, browser) -> None:
    page, errors = _open(browser, f"{site}search.html?q=SemanticClusterChunker")
    try:
        results = page.locator("#search-results ul.search li a")
        results.first.wait_for(timeout=20_000)
        targets = results.evaluate_all("as => as.map(a => a.href)")
        assert any("api/strategies.html" in target for target in targets), targets
        assert not errors, f"console errors: {errors}"
    finally:
        page.close()


def test_every_registered_chunker_has_its_parameters_on_the_reference(site, browser) -> None:
    from chunklab import CHUNKERS

    page, errors = _open(browser, f"{site}api/strategies.html")
    try:
        for name, cls in sorted(CHUNKERS.items()):
            entry = page.locator(f"dl.py.class:has(> dt[id$='.{cls.__name__}'])").first
            assert entry.count() == 1, f"no reference entry for {cls.__name__}"
            text = entry.inner_text()
            assert f"Registered as {name}" in text, f"{cls.__name__}: no 'Registered as {name}'"
            table = entry.locator("table").last.inner_text()
            missing = [param for param in cls().get_params(deep=False) if param not in table]
            assert not missing, f"{name}: parameters missing from the reference: {missing}"
        assert not errors, f"console errors: {errors}"
    finally:
        page.close()


def test_screenshots_of_three_pages(site, browser, shots) -> None:
    pages = {"site-course": f"course/{NOTEBOOKS[-1]}.html", "site-choosing": "choosing.html",
             "site-reference": "api/strategies.html"}
    for name, address in pages.items():
        page, _ = _open(browser, site + address)
        try:
            page.screenshot(path=str(shots / f"{name}.png"))
            assert (shots / f"{name}.png").stat().st_size > 10_000
        finally:
            page.close()
