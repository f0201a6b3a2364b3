"""Steps after chunking: what a chunk gains once it is cut, for any chunker.

A *step* is a callable ``step(document, chunks) -> chunks`` that returns the same chunks (same
text, offsets and index, in the same order) with metadata added. It never moves a boundary, so it
composes with any chunker, a wrapped splitter of another library included:

* `ContextStep` writes ``metadata["context"]``, the text a retriever indexes before the chunk,
  with a ``contextualize(document, chunk) -> str`` function: `ExtractiveContext` (the default: the
  document's title, the chunk's breadcrumb of section titles, a table's or code piece's header) or
  a model that writes a situating sentence (contextual retrieval:
  ``ContextStep(chunklab.strategies.llm.LLMContext(generate))``);
* `PropositionStep` writes ``metadata["propositions"]``, short statements the chunk makes, with a
  ``propositions(document, chunk) -> list[str]`` function: `extractive_propositions` offline, or
  ``chunklab.strategies.llm.LLMPropositions(generate)``.

`apply_steps` (from `chunklab.core`, where `Chunker.__call__` runs a chunker's `after_chunking`
steps with it) runs steps one after the other and refuses a step that changes a chunk's text,
offsets or index. `Pipeline(chunker, steps=[...])` is a chunker that runs another chunker and then
its steps, usable wherever a chunker is (`chunklab.compare`, the vector store, the command line).
The hybrid chunker runs its ``context`` and ``propositions`` through these steps, and
``compare(..., use_context=True)`` gives a chunking that has no context of its own the context of
`ContextStep()`.

A chunker that knows its document's structure says so in metadata (``title``, ``breadcrumb``,
``header``, ``section_lead``), and `ExtractiveContext` reads it there. For any other chunker it
finds the title and the sections itself, with the hybrid's rules (`chunklab.strategies.sections`:
`document_title`, `structure_sections`), once per document.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..caches import PER_TEXT, cached
from ..core import Chunk, Chunker, ChunkSpan, Step, StepError, apply_steps, as_spans
from ..formats.blocks import breadcrumb_text
from ..formats.tables import resolve_format
from ..text.sentences import sentence_spans
from .sections import common_trail, document_title, structure_sections

__all__ = [
    "ContextFunction",
    "ContextStep",
    "ExtractiveContext",
    "Pipeline",
    "PropositionFunction",
    "PropositionStep",
    "Step",
    "StepError",
    "apply_steps",
    "extractive_propositions",
    "with_metadata",
]

#: ``contextualize(document, chunk) -> str``: the text to index before the chunk ("" for none).
ContextFunction = Callable[[str, Chunk], str]
#: ``propositions(document, chunk) -> list[str]``: short statements the chunk makes.
PropositionFunction = Callable[[str, Chunk], Sequence[str]]


def with_metadata(chunk: Chunk, **fields: Any) -> Chunk:
    """`chunk` with `fields` added to (or replaced in) its metadata; text and offsets unchanged (so
    the chunk is made without checking them again: `Chunk.from_slice`)."""
    return Chunk.from_slice(chunk.text, chunk.start, chunk.end, chunk.index, {**chunk.metadata, **fields})


@cached(PER_TEXT)
def _outline(document: str) -> tuple[str, tuple[int, ...], tuple[tuple[str, ...], ...]]:
    """The document's title, and where its sections start with their trails (cached per text)."""
    fmt = resolve_format(document, "auto")
    sections = structure_sections(document, fmt)
    return document_title(document, fmt), tuple(s.start for s in sections), tuple(s.trail for s in sections)


def _found_trail(document: str, start: int, end: int) -> tuple[str, ...]:
    """The breadcrumb of ``[start, end)`` from the document's own sections: the titles every section
    it overlaps sits under (empty before the first heading)."""
    _, starts, trails = _outline(document)
    first = bisect.bisect_right(starts, start) - 1
    last = bisect.bisect_right(starts, max(start, end - 1)) - 1
    if last < 0:
        return ()
    return common_trail([trails[i] if i >= 0 else () for i in range(first, last + 1)])


@dataclass(frozen=True)
class ExtractiveContext:
    """The default ``contextualize``: a contextual chunk header taken from the document itself.

    One line per part that is switched on and present: the document `title`; the `breadcrumb` of
    section titles (without the title when it opens the breadcrumb); the `header` of a table
    chunk (caption and header row) or of a code piece cut out of a larger definition (the
    enclosing signatures); and with `lead`, the first sentence of the chunk's section when the
    chunk does not hold it. The parts come from the chunk's metadata (``title``, ``breadcrumb``,
    ``header``, ``section_lead``, as the hybrid chunker writes them); a chunk without a ``title``
    or ``breadcrumb`` key gets the document's (`chunklab.strategies.sections.document_title`, and
    the sections `chunklab.strategies.sections.structure_sections` finds that the chunk overlaps).
    Deterministic and offline; an instance pickles and compares by value.
    """

    title: bool = True
    breadcrumb: bool = True
    header: bool = True
    lead: bool = False

    def get_params(self, deep: bool = False) -> dict[str, bool]:
        """Which parts are on (for ``HybridChunker.get_params(deep=True)`` and nested
        ``set_params(context__breadcrumb=False)``)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def __call__(self, document: str, chunk: Chunk) -> str:
        """The header lines for `chunk` of `document`, joined by newlines."""
        meta = chunk.metadata
        trail = list(meta["breadcrumb"] if "breadcrumb" in meta else _found_trail(document, chunk.start, chunk.end))
        title = (meta["title"] if "title" in meta else _outline(document)[0]) if self.title else ""
        lines = []
        if title and not (self.breadcrumb and trail and trail[0] == title):
            lines.append(title)
        if self.breadcrumb and trail:
            lines.append(breadcrumb_text(trail))
        if self.header and meta.get("header"):
            lines.append(meta["header"])
        if self.lead and meta.get("section_lead"):
            start, end = meta["section_lead"]
            if not (chunk.start <= start and end <= chunk.end):
                lines.append(document[start:end])
        return "\n".join(lines)


_CLAUSE_BREAK = re.compile(r";\s+")


def extractive_propositions(document: str, chunk: Chunk) -> list[str]:
    """The offline ``propositions`` default: the chunk's sentences, cut again at semicolons, each
    prefixed with the chunk's section title so that it can be read on its own. A model rewrites
    propositions into self-contained statements (resolving "it" and "this"); this only extracts."""
    title = (chunk.metadata.get("breadcrumb") or [""])[-1]
    out = []
    for s, e in sentence_spans(chunk.text):
        for part in _CLAUSE_BREAK.split(" ".join(chunk.text[s:e].split())):
            part = part.lstrip("#").strip()
            if len(part) > 1 and part != title:
                out.append(f"{title}: {part}" if title else part)
    return out


@dataclass(frozen=True)
class ContextStep:
    """The step that writes ``metadata["context"] = contextualize(document, chunk)`` on every chunk.

    An empty answer leaves the chunk as it was (no ``context`` key added). ``ContextStep()`` is the
    extractive header (`ExtractiveContext`); ``ContextStep(ExtractiveContext(title=False))`` leaves
    the title out; ``ContextStep(LLMContext(generate))`` lets a model write it.
    """

    contextualize: ContextFunction = ExtractiveContext()

    def __call__(self, document: str, chunks: Sequence[Chunk]) -> list[Chunk]:
        """`chunks` with their context (`with_metadata`, written out: this runs once per chunk)."""
        contextualize, make = self.contextualize, Chunk.from_slice
        out = []
        for chunk in chunks:
            context = contextualize(document, chunk)
            if context:
                chunk = make(chunk.text, chunk.start, chunk.end, chunk.index, {**chunk.metadata, "context": context})
            out.append(chunk)
        return out


@dataclass(frozen=True)
class PropositionStep:
    """The step that writes ``metadata["propositions"] = list(propositions(document, chunk))``."""

    propositions: PropositionFunction = extractive_propositions

    def __call__(self, document: str, chunks: Sequence[Chunk]) -> list[Chunk]:
        """`chunks` with their propositions."""
        return [with_metadata(c, propositions=list(self.propositions(document, c))) for c in chunks]


class Pipeline(Chunker):
    """A chunker, then steps after chunking: ``Pipeline(RecursiveChunker(), steps=[ContextStep()])``.

    Calling it chunks the text with `chunker` and runs `steps` over the chunks (`apply_steps`): the
    chunks are `chunker`'s, with the metadata the steps add. It is a `Chunker` (not registered: it
    needs a chunker to wrap), so it goes wherever one goes; its size contract and unit are
    `chunker`'s, and ``set_params(chunker__chunk_size=300)`` reaches the wrapped chunker's parameters.
    """

    name = "pipeline"

    def __init__(self, chunker: Chunker, steps: Sequence[Step] = ()) -> None:
        self.chunker = chunker
        self.steps = tuple(steps)
        self.validate()

    def spans(self, text: str) -> Iterable[ChunkSpan]:
        """The wrapped chunker's chunks, with their metadata and its own steps' (steps never move one)."""
        return as_spans(self.chunker(text))

    def after_chunking(self) -> Sequence[Step]:
        """`steps`, run by `Chunker.__call__` over the wrapped chunker's chunks."""
        return self.steps

    def size_limit(self) -> int | None:
        """The wrapped chunker's size limit."""
        return self.chunker.size_limit()

    def measure(self, text: str) -> int:
        """The wrapped chunker's measure."""
        return self.chunker.measure(text)
