"""Headless Chromium (Debian's build) driven by Playwright, with a throw-away profile.

Playwright's own browser download is never used: the context is launched on ``/usr/bin/chromium``
(installed by ``scripts/e2e_setup.sh``). Its profile, HOME and caches live in a temporary folder.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

__all__ = ["CHROMIUM", "browser_context"]

CHROMIUM = Path(os.environ.get("CHUNKLAB_E2E_CHROMIUM", "/usr/bin/chromium"))
VIEWPORT = {"width": 1400, "height": 1000}
_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextlib.contextmanager
def browser_context(workdir: Path) -> Iterator[BrowserContext]:
    """A persistent Chromium context whose profile and HOME are under `workdir`; closed on exit."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        raise FileNotFoundError(f"{CHROMIUM} is missing: run scripts/e2e_setup.sh (installs Debian's chromium)")
    home = workdir / "browser-home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            workdir / "chromium-profile",
            executable_path=str(CHROMIUM),
            headless=True,
            args=_ARGS,
            env=env,
            viewport=VIEWPORT,
        )
        try:
            yield context
        finally:
            context.close()
