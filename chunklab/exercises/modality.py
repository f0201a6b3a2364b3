"""Notebook 05 (modality-specific chunking): a metadata filter by modality, which chunks a short
mixed document becomes, and why the modality chunker does not beat a recursive splitter."""

from __future__ import annotations

import numpy as np

from ..core import Chunk
from ..strategies import ModalityChunker
from . import ExerciseFailed, exercise, pick


def _chunk(i: int, modality: str) -> Chunk:
    return Chunk(text="x", start=i, end=i + 1, index=i, metadata={"modality": modality, "source": "doc"})


#: Exercise 1's cases: the chunks of an index, and questions of each kind.
_FILTER_CHUNKS = [_chunk(i, m) for i, m in enumerate(["prose", "table", "code", "table", "list", "image", "prose"])]
_FILTER_KINDS = ["table", "fact", "multi_sentence", "cross_boundary", "multi_excerpt"]


def solution_where(question, chunks):
    if question["kind"] != "table":
        return None
    return np.array([c.metadata["modality"] == "table" for c in chunks])


def _allowed(mask, n: int) -> list[bool]:
    """The chunks a `where` result lets through: all of them for None."""
    if mask is None:
        return [True] * n
    values = np.asarray(mask)
    if values.shape != (n,) or values.dtype != bool:
        raise ExerciseFailed(f"return None or a boolean array with one entry per chunk ({n} here), got {mask!r}")
    return values.tolist()


@exercise("05.1", "a metadata filter by modality", "implement", solution=solution_where,
          wrong=(lambda: lambda question, chunks: np.array([c.metadata["modality"] == "table" for c in chunks]),
                 lambda: lambda question, chunks: None,
                 lambda: lambda question, chunks: (np.array([c.metadata["modality"] != "table" for c in chunks])
                                                   if question["kind"] == "table" else None)))
def check_where(candidate) -> str:
    """`candidate(question, chunks)` must let a table question see table chunks only, and any other
    question every chunk."""
    n = len(_FILTER_CHUNKS)
    for kind in _FILTER_KINDS:
        question = {"id": f"q-{kind}", "kind": kind, "doc": "doc", "question": "?"}
        got = _allowed(candidate(question, list(_FILTER_CHUNKS)), n)
        expected = _allowed(solution_where(question, _FILTER_CHUNKS), n)
        if got != expected:
            shown = [c.metadata["modality"] for c, ok in zip(_FILTER_CHUNKS, got) if ok]
            raise ExerciseFailed(
                f"for a question of kind {kind!r} your filter lets through the chunks {shown}. Hint: only a "
                "question of kind 'table' is restricted, to chunks whose metadata['modality'] is 'table'."
            )
    return f"right for a question of each of the {len(_FILTER_KINDS)} kinds."


#: Exercise 2's document: a heading over prose, a heading directly over a table, a line that
#: introduces a list, and a heading directly over a code block.
SNIPPET = """# Setup

Install the package with pip. Then start the server.

## Ports

| name | port |
|---|---|
| api | 7480 |
| admin | 7481 |

Check both ports before you go on:

- the api answers on 7480
- the admin page on 7481

## Run it

```bash
harbor serve --port 7480
```
"""


def solution_snippet_modalities() -> list[str]:
    return [c.metadata["modality"] for c in ModalityChunker()(SNIPPET)]


@exercise("05.2", "which chunks does a mixed document become?", "predict", solution=solution_snippet_modalities,
          wrong=(lambda: ["prose", "prose", "table", "prose", "list", "prose", "code"],
                 lambda: ["prose", "table", "list", "code"],
                 lambda: ["prose", "table", "prose", "list", "prose", "code"]))
def check_snippet_modalities(modalities) -> str:
    """The list of the chunks' modalities, in order, for `SNIPPET` with the default settings."""
    if isinstance(modalities, str) or not isinstance(modalities, (list, tuple)):
        raise ExerciseFailed("answer with a list of modalities, e.g. ['prose', 'table']")
    got = [str(m).strip().lower() for m in modalities]
    expected = solution_snippet_modalities()
    if got == expected:
        return f"{len(expected)} chunks: a heading travels with the table or code right under it."
    if got.count("prose") > expected.count("prose"):
        raise ExerciseFailed(
            f"you have {got.count('prose')} prose chunks; there are fewer. Hint: a heading followed directly by a "
            "table, a list, code or an image stays with that block instead of becoming a chunk of its own."
        )
    raise ExerciseFailed(
        f"not {got}. Hint: chunks never mix two modalities, and a paragraph is prose even when it ends with a "
        "colon that introduces a list."
    )


#: Exercise 3's explanations of why the modality chunker shows no measurable difference from the
#: recursive splitter, when it beats size-matched fixed windows.
RECURSIVE_CHOICES = {
    "A": "The recursive splitter indexes each chunk's context in front of it and the modality chunker does "
         "not, which evens out the table questions.",
    "B": "The recursive splitter's chunks are larger on average, so at the same budget of characters it sends "
         "more text and catches the answers that the other one keeps.",
    "C": "BM25 ignores table markup such as pipes and dashes, so keeping a table whole cannot change which "
         "chunk it ranks first for a question.",
    "D": "Cutting at paragraphs, then lines, the recursive splitter keeps nearly all table rows and code lines "
         "whole too; where they differ, it goes both ways.",
}
_RECURSIVE_HINTS = {
    "A": "the recursive splitter sets no context; the modality rows are measured with and without theirs.",
    "B": "the budget view sends the same amount of text for every chunking, and both have a mean size near "
         "430.",
    "C": "against size-matched fixed windows, which cut table rows, the modality chunker answers measurably "
         "more table questions at 2,000 characters.",
}


def solution_recursive_choice() -> str:
    return "D"


@exercise("05.3", "why no win over the recursive splitter?", "explain", solution=solution_recursive_choice,
          wrong=(lambda: "A", lambda: "B", lambda: "C"))
def check_recursive_choice(choice) -> str:
    """One letter of `RECURSIVE_CHOICES`."""
    pick(choice, RECURSIVE_CHOICES, _RECURSIVE_HINTS, solution_recursive_choice())
    return "structure is mostly kept by both; what fixed windows lose, the recursive splitter keeps too."
