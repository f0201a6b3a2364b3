"""The one cache policy (`chunklab.caches`): every module-level memo is registered, and
`chunklab.clear_caches` empties them all."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import chunklab
from chunklab.caches import registered_caches

PACKAGE = Path(chunklab.__file__).parent


def _import_every_module() -> None:
    for module in pkgutil.walk_packages([str(PACKAGE)], prefix="chunklab."):
        if module.name == "chunklab.__main__":
            continue
        importlib.import_module(module.name)


def test_clear_caches_empties_every_registered_cache() -> None:
    _import_every_module()
    text = chunklab.load_document("manual").text
    for name in ("sentence", "markdown", "token"):
        chunklab.CHUNKERS[name]()(text)
    caches = registered_caches()
    decorator = re.compile(r"^\s*@cached\(", re.MULTILINE)
    declared = sum(len(decorator.findall(path.read_text(encoding="utf-8"))) for path in PACKAGE.rglob("*.py"))
    assert len(caches) == declared > 60, "every @cached function is registered once"
    assert any(memo.cache_info().currsize for memo in caches), "chunking filled some caches"
    chunklab.clear_caches()
    full = [memo.__qualname__ for memo in caches if memo.cache_info().currsize]
    assert not full, f"still holding entries after clear_caches: {full}"
    assert chunklab.CHUNKERS["sentence"]()(text), "everything works again after clearing"


def test_no_module_memoises_outside_the_registry() -> None:
    pattern = re.compile(r"functools\.(lru_cache|cache)\b|from functools import[^\n]*\b(lru_cache|cache)\b")
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{number}"
        for path in PACKAGE.rglob("*.py")
        if path.name != "caches.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not offenders, f"use chunklab.caches.cached(maxsize) instead of functools: {offenders}"
