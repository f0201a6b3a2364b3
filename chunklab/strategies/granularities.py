"""More than one granularity indexed together: small chunks for small budgets, larger overlapping
ones for large budgets.

`Granularities(chunkers)` chunks a text with every chunker and returns all their chunks together,
in source order (a chunk that starts earlier first; of two that start together, the longer). The
chunks overlap by design: a large chunk holds several small ones. A retriever then ranks them all,
and a question may receive a small chunk and, later, the large one around it. Measure it with
`chunklab.evaluation.comparison.compare` and ``expand_hits=chunklab.evaluation.expand.new_text_only``,
so that what is sent is de-duplicated: each hit sends only the text that better-ranked hits have not
sent, and the budget never pays for a character twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Annotated

from ..constraints import InstanceOf, Items
from ..core import Chunker, ChunkSpan, ParameterError, as_spans

__all__ = ["Granularities"]


class Granularities(Chunker):
    """Every chunk of every chunker in `chunkers`, in source order, each with the metadata its own
    chunker gave it (its context, for instance) and ``granularity``: the index of that chunker.

    It is a `Chunker` (not registered: it needs chunkers to combine), so `compare` takes it; its
    chunks overlap, so send them with `chunklab.evaluation.expand.new_text_only`. Its size limit is
    the largest of its chunkers' (None if one of them promises none); every chunker must measure in
    the same unit, which is the one `measure` uses.
    """

    name = "granularities"

    def __init__(
        self, chunkers: Annotated[Sequence[Chunker], Items(each=InstanceOf(kinds=(Chunker,)), min_items=2)] = ()
    ) -> None:
        self.chunkers = tuple(chunkers)
        self.validate()

    def check(self) -> None:
        """The chunkers (at least two, checked by their constraint) must measure in one unit."""
        units = {getattr(c, "unit", "chars") for c in self.chunkers}
        if len(units) > 1:
            raise ParameterError(f"Granularities: parameter 'chunkers' must measure in one unit, got {sorted(units)}")

    def spans(self, text: str) -> Iterable[ChunkSpan]:
        """Every chunker's chunks (with their metadata and ``granularity``), in source order: the
        longer first where two start together, the earlier chunker's first where two are the same."""
        spans = [
            (start, end, {**metadata, "granularity": granularity})
            for granularity, chunker in enumerate(self.chunkers)
            for start, end, metadata in as_spans(chunker(text))
        ]
        return sorted(spans, key=lambda span: (span[0], -span[1]))

    def size_limit(self) -> int | None:
        """The largest of the chunkers' size limits (None when one of them promises none)."""
        limits = [c.size_limit() for c in self.chunkers]
        return None if any(limit is None for limit in limits) else max(limits)  # type: ignore[type-var]

    def measure(self, text: str) -> int:
        """The first chunker's measure (every chunker measures in the same unit)."""
        return self.chunkers[0].measure(text)
