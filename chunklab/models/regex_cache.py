"""A stand-in for Python's `re` module with a larger cache of compiled patterns, for pySBD.

pySBD builds many of its regular expressions while it segments: one set per abbreviation it meets
(``"(?<=\\s{abbr})\\."`` with the abbreviation pasted in), per month name, per quoted word. It calls
``re.sub(pattern, ...)`` with them, and `re` keeps only the 512 most recently compiled patterns, so
on a corpus with more distinct patterns than that every call compiles its pattern again: splitting
the course corpus with pySBD per block compiled 17,692 patterns, and compiling took two thirds of
pySBD's time. `CachedRe` answers the same calls from a larger cache of compiled patterns; the
patterns, and therefore the sentences, are the same.
"""

from __future__ import annotations

import functools
import re
import types
from typing import Any, Iterable

__all__ = ["CachedRe", "use_cached_re"]


class CachedRe:
    """Python's `re` module (every attribute is the module's), whose module-level functions that
    take a pattern (``sub``, ``search``, ``findall``...) compile it through a cache of `size`
    patterns instead of `re`'s own 512."""

    def __init__(self, size: int = 8192) -> None:
        if size < 1:
            raise ValueError(f"CachedRe: size must be >= 1, got {size}")
        self.size = size
        self.compile = functools.lru_cache(maxsize=size)(re.compile)

    def __repr__(self) -> str:
        return f"CachedRe(size={self.size}, cached={self.compile.cache_info().currsize})"

    def __getattr__(self, name: str) -> Any:
        return getattr(re, name)

    def sub(self, pattern: Any, repl: Any, string: str, count: int = 0, flags: int = 0) -> str:
        """`re.sub`."""
        return self.compile(pattern, flags).sub(repl, string, count)

    def subn(self, pattern: Any, repl: Any, string: str, count: int = 0, flags: int = 0) -> tuple[str, int]:
        """`re.subn`."""
        return self.compile(pattern, flags).subn(repl, string, count)

    def search(self, pattern: Any, string: str, flags: int = 0) -> re.Match | None:
        """`re.search`."""
        return self.compile(pattern, flags).search(string)

    def match(self, pattern: Any, string: str, flags: int = 0) -> re.Match | None:
        """`re.match`."""
        return self.compile(pattern, flags).match(string)

    def fullmatch(self, pattern: Any, string: str, flags: int = 0) -> re.Match | None:
        """`re.fullmatch`."""
        return self.compile(pattern, flags).fullmatch(string)

    def findall(self, pattern: Any, string: str, flags: int = 0) -> list[Any]:
        """`re.findall`."""
        return self.compile(pattern, flags).findall(string)

    def finditer(self, pattern: Any, string: str, flags: int = 0) -> Iterable[re.Match]:
        """`re.finditer`."""
        return self.compile(pattern, flags).finditer(string)

    def split(self, pattern: Any, string: str, maxsplit: int = 0, flags: int = 0) -> list[Any]:
        """`re.split`."""
        return self.compile(pattern, flags).split(string, maxsplit)


def use_cached_re(modules: Iterable[types.ModuleType], cached: CachedRe) -> int:
    """Give each of `modules` that uses `re` under that name the `cached` stand-in instead; returns
    how many were changed. Nothing else in the process sees a difference."""
    changed = 0
    for module in modules:
        if getattr(module, "re", None) is re:
            module.re = cached  # type: ignore[attr-defined]
            changed += 1
    return changed
