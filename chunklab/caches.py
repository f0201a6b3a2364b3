"""chunklab's one cache policy: every module-level memo is a `cached` function, and `clear_caches`
empties them all.

What is cached, and why:

* **models and resources** (a tokenizer, an embedding model, a spaCy pipeline, the corpus
  manifest) are loaded once per process: ``@cached(maxsize=None)`` on a loader without
  arguments, or with a handful of names;
* **per-text results** (a text's sentences, tokens, embeddings, parsed structure) are kept for
  the few texts in use, so moving a slider in `explore` re-runs only the cheap part of a
  chunker: ``@cached(maxsize=n)``, bounded, least recently used first out.

Every cache is keyed by its arguments (texts and parameter values, never chunker objects),
lives at module level, and is registered here when its function is defined, so a chunker
pickles without its caches and ``chunklab.clear_caches()`` frees the memory of all of them (a
model is loaded again the next time it is needed). ``tests/test_caches.py`` fails when a module
of chunklab memoises through `functools` directly.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["cached", "clear_caches", "registered_caches"]

F = TypeVar("F", bound=Callable[..., Any])

_REGISTRY: list[Any] = []


def cached(maxsize: int | None) -> Callable[[F], F]:
    """Decorator: memoise a module-level function in a least-recently-used cache of `maxsize`
    entries (None: unbounded, for models and resources loaded once), registered for
    `clear_caches`."""

    def decorate(function: F) -> F:
        memo = functools.lru_cache(maxsize=maxsize)(function)
        _REGISTRY.append(memo)
        return memo  # type: ignore[return-value]

    return decorate


def registered_caches() -> tuple[Any, ...]:
    """Every function made by `cached` so far (each has ``cache_info()`` and ``cache_clear()``)."""
    return tuple(_REGISTRY)


def clear_caches() -> None:
    """Empty every chunklab cache: models, resources and per-text results are computed again
    when next needed."""
    for memo in _REGISTRY:
        memo.cache_clear()
