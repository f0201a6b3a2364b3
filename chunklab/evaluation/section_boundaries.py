"""How well chunk boundaries find a document's own sections: Pk and WindowDiff against its headings.

A topic or semantic chunker claims to cut where the subject changes. Documents with headings tell
us where their authors thought it changed, so we can measure the claim with the two standard
segmentation metrics, as NLTK implements them (`nltk.metrics.segmentation`):

* **Pk** (Beeferman, Berger & Lafferty, Machine Learning 34, 1999): slide a window of k units
  along the text; count the positions where the reference and the hypothesis disagree on whether
  the window's two ends lie in the same segment. 0 is perfect; about 0.5 is what cutting at random
  or not at all gets.
* **WindowDiff** (Pevzner & Hearst, Computational Linguistics 28(1), 2002): count the windows in
  which the reference and the hypothesis hold a *different number* of boundaries; it also punishes
  near misses and extra cuts that Pk forgives.

Both use k = half the mean length of a reference section. Our units are words
(whitespace-delimited, `chunklab.text.words.word_spans`): a boundary is a word at which a section or a
chunk starts.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

import numpy as np

from ..core import Chunk, Chunker
from ..formats.document import Document
from ..formats.parse import document_blocks, guess_format
from ..text.paragraphs import paragraph_spans
from ..text.words import word_spans

__all__ = [
    "boundary_string",
    "equal_starts",
    "plain_text_headings",
    "section_starts",
    "segmentation_scores",
    "segmentation_table",
]

_CASED = re.compile(r"[^\W\d_]")


def plain_text_headings(text: str, max_chars: int = 80) -> list[int]:
    """Offsets of the heading lines of a plain-text document.

    Plain text has no markup, so we take the convention of the corpus's articles, agreements and
    transcripts: a heading is a paragraph of a single line, at most `max_chars` long, with at least
    three letters and no lower-case letter ("THE NIGHT THE GAUGE WENT QUIET", "4. FEES AND PAYMENT").
    """
    starts = []
    for start, end in paragraph_spans(text):
        line = text[start:end]
        letters = _CASED.findall(line)
        if "\n" not in line and len(line) <= max_chars and len(letters) >= 3 and not any(c.islower() for c in letters):
            starts.append(start)
    return starts


def section_starts(text: str, max_level: int = 2) -> list[int]:
    """Where the sections of `text` start: headings of level <= `max_level` from `chunklab.formats.blocks`
    (markdown by markdown-it-py, HTML by its position-reporting parser), or, when the parser finds
    none (plain text, or text with only a stray table or list), `plain_text_headings`. The start of
    the text is not included."""
    starts: list[int] = []
    if guess_format(text) != "text":
        starts = [b.start for b in document_blocks(text) if b.kind == "heading" and b.level <= max_level]
    if not starts:
        starts = plain_text_headings(text)
    return sorted({s for s in starts if s > 0})


def boundary_string(starts: Sequence[int], words: Sequence[tuple[int, int]]) -> str:
    """One character per word: ``"1"`` where a segment starts at that word (the first word of the
    text excluded), else ``"0"``. A start between two words belongs to the word after it, a start
    inside a word (a cut word) to that word."""
    if not words:
        return ""
    table = np.asarray(words, dtype=np.int64)
    at = np.asarray(starts, dtype=np.int64)
    i = np.searchsorted(table[:, 0], at, side="right") - 1
    after = (i < 0) | (at >= table[np.maximum(i, 0), 1])
    i = np.where(after, i + 1, i)
    marks = np.zeros(len(words), dtype=bool)
    marks[i[(i > 0) & (i < len(words))]] = True
    return "".join("1" if m else "0" for m in marks)


def equal_starts(text: str, pieces: int) -> list[int]:
    """The starts of `pieces` equal parts of `text` (the start of the text not included): the word
    start nearest to each ``i * len(text) / pieces``, for i = 1 … pieces - 1, so exactly
    ``pieces - 1`` cuts (fewer only if the text has fewer words), none inside a word. The blind
    baseline of a segmentation: the right number of cuts, at equal steps."""
    if pieces < 1:
        raise ValueError(f"pieces must be at least 1, got {pieces}")
    starts = np.asarray([start for start, _ in word_spans(text)][1:], dtype=np.int64)
    chosen: list[int] = []
    for i in range(1, pieces):
        free = starts[~np.isin(starts, chosen)] if chosen else starts
        if not len(free):
            break
        chosen.append(int(free[np.argmin(np.abs(free - i * len(text) / pieces))]))
    return sorted(chosen)


def segmentation_scores(
    hypothesis: Sequence[Chunk] | Sequence[int], reference: Sequence[int], text: str, k: int | None = None
) -> dict[str, float]:
    """Pk and WindowDiff of a segmentation of `text` against reference section starts.

    `hypothesis` is a chunking (its chunks' starts are the boundaries) or a list of start offsets;
    `reference` a list of start offsets (e.g. `section_starts`). `k` defaults to half the mean
    reference section length in words. Returns ``pk``, ``windowdiff``, ``k``, the number of
    boundaries in each (``reference``, ``hypothesis``) and ``words``.
    """
    from nltk.metrics.segmentation import pk, windowdiff

    starts = [c.start if isinstance(c, Chunk) else int(c) for c in hypothesis]
    words = word_spans(text)
    ref, hyp = boundary_string(reference, words), boundary_string(starts, words)
    if k is None:
        k = max(1, int(round(len(ref) / (2 * (ref.count("1") + 1)))))
    if not 1 <= k <= len(ref):
        raise ValueError(f"k must be in [1, {len(ref)}] for a text of {len(ref)} words, got {k}")
    return {
        "pk": float(pk(ref, hyp, k=k)),
        "windowdiff": float(windowdiff(ref, hyp, k)),
        "k": k,
        "reference": ref.count("1"),
        "hypothesis": hyp.count("1"),
        "words": len(words),
    }


def segmentation_table(
    chunkers: Mapping[str, Chunker], docs: Sequence[Document], max_level: int = 2, baseline: str | None = "equal parts"
) -> Any:
    """Pk and WindowDiff of every chunker on every document against its `section_starts`.

    With `baseline` (a label), each document also gets the classic baseline row: `equal_starts`,
    as many equal parts as there are real sections, i.e. the right *number* of cuts placed blindly. Returns a pandas DataFrame with one row per chunker
    and document (``chunker``, ``doc``, ``pk``, ``windowdiff``, ``k``, ``reference``,
    ``hypothesis``, ``words``). Documents without any section heading are skipped.
    """
    import pandas as pd

    rows = []
    for doc in docs:
        reference = section_starts(doc.text, max_level)
        if not reference:
            continue
        runs: dict[str, Sequence[Chunk] | Sequence[int]] = {label: chunker(doc.text) for label, chunker in chunkers.items()}
        if baseline:
            runs[baseline] = equal_starts(doc.text, len(reference) + 1)
        for label, hypothesis in runs.items():
            scores = segmentation_scores(hypothesis, reference, doc.text)
            rows.append({"chunker": label, "doc": doc.name, **scores})
    return pd.DataFrame(rows)
