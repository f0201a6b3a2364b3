"""chunklab's one cache policy: every module-level memo is a `cached` function, with one of three
named limits, and `clear_caches` empties them all.

The three limits, by what a cache is keyed on:

* `RESOURCE` (unbounded): models and resources loaded once per process (a tokenizer, an embedding
  model, a spaCy pipeline, the corpus manifest, a table worked out once per class), keyed by
  nothing or by a name from a short list;
* `PER_TEXT` (32 entries): results for one document or one setting (a text's sentences, tokens,
  vectors or parsed structure; a compiled pattern; a splitter built for some parameters), so
  moving a slider in `explore` re-runs only the cheap part of a chunker, and a comparison over the
  course corpus (18 documents) finds every document's analysis still there for its next chunker;
* `PER_PIECE` (65,536 entries): results for short strings asked about again and again (a word's
  stem, a chunk's token count, a prompt's answer).

Bounded caches drop the least recently used entry first. Every cache is keyed by its arguments
(texts and parameter values, never chunker objects), lives at module level, and is registered
here when its function is defined, so a chunker pickles without its caches and
``chunklab.clear_caches()`` frees the memory of all of them (a model is loaded again the next
time it is needed).

Arguments that cannot be hashed (a tokenizer or embedder object without a hash) are handled one
way, here: the function is computed every time, without caching. ``tests/test_caches.py`` fails
when a module of chunklab memoises outside the registry (through `functools`, or in a container
of its own that a function fills) or leaves something behind after `clear_caches`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["PER_PIECE", "PER_TEXT", "RESOURCE", "cached", "clear_caches", "registered_caches"]

F = TypeVar("F", bound=Callable[..., Any])

#: Models and resources: loaded once, kept until `clear_caches`.
RESOURCE: int | None = None
#: Results for one document or one setting: the few in use.
PER_TEXT = 32
#: Results for short strings asked about again and again.
PER_PIECE = 65_536
_LIMITS = (RESOURCE, PER_TEXT, PER_PIECE)

_REGISTRY: list[Any] = []


def cached(maxsize: int | None) -> Callable[[F], F]:
    """Decorator: memoise a module-level function in a least-recently-used cache of `maxsize`
    entries, one of `RESOURCE`, `PER_TEXT` or `PER_PIECE` (any other value raises `ValueError`),
    registered for `clear_caches`. A call whose arguments cannot be hashed is computed uncached."""
    if maxsize not in _LIMITS:
        raise ValueError(
            f"cached: parameter 'maxsize' must be one of the named limits RESOURCE (None), PER_TEXT ({PER_TEXT}) "
            f"or PER_PIECE ({PER_PIECE}), got {maxsize!r}"
        )

    def decorate(function: F) -> F:
        memo = functools.lru_cache(maxsize=maxsize)(function)

        @functools.wraps(function)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return memo(*args, **kwargs)
            except TypeError:
                if _hashable(args, kwargs):
                    raise  # raised by the function itself
                return function(*args, **kwargs)

        call.cache_info = memo.cache_info  # type: ignore[attr-defined]
        call.cache_clear = memo.cache_clear  # type: ignore[attr-defined]
        _REGISTRY.append(call)
        return call  # type: ignore[return-value]

    return decorate


def _hashable(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    try:
        hash((args, tuple(kwargs.items())))
    except TypeError:
        return False
    return True


def registered_caches() -> tuple[Any, ...]:
    """Every function made by `cached` so far (each has ``cache_info()`` and ``cache_clear()``)."""
    return tuple(_REGISTRY)


def clear_caches() -> None:
    """Empty every chunklab cache: models, resources and per-text results are computed again
    when next needed."""
    for memo in _REGISTRY:
        memo.cache_clear()
