"""Per-question retrieval metrics and per-chunking structure metrics, computed from offsets.

* `span_metrics`, `precision_omega`: the metrics of Smith & Troynikov, "Evaluating Chunking
  Strategies for Retrieval" (Chroma technical report, July 2024), computed exactly from character
  offsets (definitions in `span_metrics`);
* `structure_metrics`: how many chunks cut a word, a sentence, a table row or a code block, and the
  size distribution;
* `excerpts_kept_whole`: how many golden excerpts a chunking keeps inside a single chunk;
* `answer_spans`, `chosen_alternatives`: answers with several acceptable excerpts.

An answer (one *slot* of a question's ``answers``) may list ``alternatives``: other excerpts that
answer it as well, for a document that says the same thing twice::

    {"start": 120, "end": 168, "text": "...", "alternatives": [{"start": 940, "end": 990, "text": "..."}]}

The slot is answered when any one of its excerpts (its own or an alternative) is wholly sent. For
recall, precision and IoU the excerpt that counts for a slot is the one the reader was best served
by (`chosen_alternatives`): the first wholly sent, else the one with the most characters sent, else
the slot's own. A question without alternatives is scored exactly as before. precision-Ω scores the
slots' own excerpts.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..caches import PER_TEXT, cached
from ..core import Chunk, Chunker
from ..formats.document import Document
from ..formats.unbreakable import fenced_code_spans, table_row_spans
from ..text.sentences import sentence_spans
from ..text.spans import CharCounter, Span, containing, intersection, union
from ..text.words import word_spans

__all__ = [
    "QUESTION_METRICS",
    "answer_spans",
    "chosen_alternatives",
    "corpus_structure_metrics",
    "excerpts_kept_whole",
    "precision_omega",
    "sent_metrics",
    "span_metrics",
    "structure_metrics",
]

#: Per-question metrics, in the order `chunklab.evaluation.comparison.compare` reports them.
QUESTION_METRICS = ("recall@k", "recall", "precision", "iou", "precision_omega", "retrieved_chars")


# -- answers with alternatives --------------------------------------------------------------------------
def answer_spans(question: Mapping[str, Any], base: int = 0) -> tuple[list[Span], list[tuple[Span, ...]] | None]:
    """A question's golden spans, each slot's own, shifted by `base`; and, when any slot lists
    ``alternatives``, every slot's acceptable spans (its own first), else None."""
    golden = [(base + a["start"], base + a["end"]) for a in question["answers"]]
    if not any(a.get("alternatives") for a in question["answers"]):
        return golden, None
    slots = [(own, *((base + b["start"], base + b["end"]) for b in a.get("alternatives", ())))
             for own, a in zip(golden, question["answers"])]
    return golden, slots


def chosen_alternatives(slots: Sequence[Sequence[Span]], got: Sequence[Span], counter: CharCounter) -> list[Span]:
    """For each slot (its acceptable spans), the span that counts when the reader received the merged
    spans `got`: the first one wholly inside `got`, else the one with the most counted characters
    inside it, the first on ties (the slot's own span when none is reached)."""
    chosen = []
    for slot in slots:
        inside = [counter.total(intersection([span], got)) for span in slot]
        whole = [span for span, n in zip(slot, inside) if 0 < counter(*span) == n]
        chosen.append(whole[0] if whole else slot[int(np.argmax(inside))])
    return chosen


# -- span metrics -----------------------------------------------------------------------------------
def span_metrics(
    retrieved: Sequence[Span],
    golden: Sequence[Span],
    counter: CharCounter | None = None,
    alternatives: Sequence[Sequence[Span]] | None = None,
) -> dict[str, float]:
    """Retrieval metrics of one question from the spans of its retrieved chunks and golden excerpts.

    Let ``r_1 … r_k`` be the retrieved chunks' spans (they may overlap or repeat), ``U`` their union,
    ``G`` the union of the golden excerpts, and ``|·|`` the characters counted by `counter` (all
    characters by default; see `CharCounter`). With ``covered = |G ∩ U|`` and
    ``retrieved_chars = |r_1| + … + |r_k|``:

    * ``recall = covered / |G|`` (character-level recall: the report's "recall");
    * ``precision = covered / retrieved_chars`` (0 when nothing is retrieved);
    * ``iou = covered / (retrieved_chars + |G| - covered)``;
    * ``recall@k`` is 1 if at least one golden excerpt lies wholly inside ``U`` (every counted
      character of it is in some retrieved chunk, possibly spread over several), else 0.

    Overlap: the numerator counts an excerpt character once however many retrieved chunks hold it
    (it is the union); the denominators count each retrieved chunk in full, so text retrieved twice
    (overlapping chunks, duplicates) is paid for twice, as it is in an LLM's context window. This is
    what the reference implementation of Smith & Troynikov does (chunking_evaluation,
    ``base_evaluation.py``). The alternative, ``covered / |U|``, ignores that redundancy and would
    flatter chunkers with large overlaps; without overlap the two are equal.

    With `alternatives` (each slot's acceptable spans, `answer_spans`), `golden` is replaced by
    the span that counts for each slot (`chosen_alternatives`), so ``recall@k`` is 1 when any
    acceptable excerpt of any slot is wholly retrieved.
    """
    count = counter or CharCounter()
    if alternatives is not None:
        golden = chosen_alternatives(alternatives, union(retrieved), count)
    gold_chars, covered, retrieved_chars, got = _coverage(retrieved, golden, count)
    hit = any(_wholly_inside(excerpt, got, count) for excerpt in golden if count(*excerpt) > 0)
    return {
        "recall@k": float(hit),
        "recall": covered / gold_chars,
        "precision": covered / retrieved_chars if retrieved_chars else 0.0,
        "iou": covered / (retrieved_chars + gold_chars - covered),
        "retrieved_chars": float(retrieved_chars),
    }


def sent_metrics(
    sent: Sequence[Span],
    golden: Sequence[Span],
    counter: CharCounter | None = None,
    alternatives: Sequence[Sequence[Span]] | None = None,
) -> dict[str, float]:
    """The metrics of one question from the spans sent to the reader (the budget view).

    ``answered`` is 1 if **every** golden excerpt lies wholly inside the union of `sent` (each
    counted character of it in some sent span, possibly spread over several), else 0: the reader
    has the whole answer. ``recall``, ``precision`` and ``iou`` are those of `span_metrics`, with
    `sent` as the retrieved spans: overlapping sent text counts again in the denominators, the
    coverage is the union. With `alternatives` (`answer_spans`), a slot is answered when any of its
    acceptable spans is wholly sent (`chosen_alternatives`).
    """
    count = counter or CharCounter()
    if alternatives is not None:
        golden = chosen_alternatives(alternatives, union(sent), count)
    gold_chars, covered, sent_chars, got = _coverage(sent, golden, count)
    answered = all(_wholly_inside(excerpt, got, count) for excerpt in golden if count(*excerpt) > 0)
    return {
        "answered": float(answered),
        "recall": covered / gold_chars,
        "precision": covered / sent_chars if sent_chars else 0.0,
        "iou": covered / (sent_chars + gold_chars - covered),
    }


def _coverage(
    retrieved: Sequence[Span], golden: Sequence[Span], count: CharCounter
) -> tuple[int, int, int, list[Span]]:
    """``(|G|, |G ∩ U|, |r_1| + … + |r_k|, U)`` in `count`'s characters (see `span_metrics`)."""
    gold = union(golden)
    gold_chars = count.total(gold)
    if gold_chars == 0:
        raise ValueError("the golden excerpts contain no countable characters")
    got = union(retrieved)
    covered = count.total(intersection(gold, got))
    return gold_chars, covered, int(sum(count(s, e) for s, e in retrieved)), got


def _wholly_inside(excerpt: Span, got: Sequence[Span], count: CharCounter) -> bool:
    """Is every counted character of `excerpt` inside the merged spans `got`?"""
    return count.total(intersection([excerpt], got)) == count(*excerpt)


def precision_omega(
    chunks: Sequence[Span] | np.ndarray, golden: Sequence[Span], counter: CharCounter | None = None
) -> float:
    """Precision under perfect retrieval: `span_metrics`' precision if exactly the chunks holding
    golden characters were retrieved (Smith & Troynikov's precision-Ω).

    `chunks` are the spans of every chunk of the chunking (a list of pairs or an ``(n, 2)`` array).
    Without overlapping chunks it is the best precision any retriever can reach at full recall with
    this chunking (with overlap, fewer chunks may already cover the excerpts): large chunks drag it
    down however good the retriever. The denominator counts each of those chunks in full, like
    `span_metrics`; the reference implementation counts their union instead, which differs only
    where chunks overlap. A golden span that touches a chunk only at uncounted characters
    (whitespace, with a text `counter`) does not select it.
    """
    count = counter or CharCounter()
    spans = np.asarray(chunks, dtype=np.int64).reshape(-1, 2)
    gold = union(golden)
    holding = np.zeros(len(spans), dtype=bool)
    for gs, ge in gold:
        lo, hi = np.maximum(spans[:, 0], gs), np.minimum(spans[:, 1], ge)
        holding |= (hi > lo) & (count(lo, np.maximum(lo, hi)) > 0)
    chosen = [(int(s), int(e)) for s, e in spans[holding]]
    denominator = sum(count(s, e) for s, e in chosen)
    return count.total(intersection(gold, union(chosen))) / denominator if denominator else 0.0


# -- structure metrics ------------------------------------------------------------------------------
@cached(PER_TEXT)
def _structures(text: str, csv: bool) -> dict[str, np.ndarray]:
    """The spans a boundary should not cut, per kind, as ``(n, 2)`` arrays."""
    found = {
        "words": word_spans(text),
        "sentences": sentence_spans(text),
        "table_rows": table_row_spans(text, csv=csv),
        "code_blocks": fenced_code_spans(text),
    }
    return {name: np.asarray(spans, dtype=np.int64).reshape(-1, 2) for name, spans in found.items()}


def _cut_flags(chunks: Sequence[Chunk], text: str, csv: bool) -> dict[str, np.ndarray]:
    """Per structure kind, a bool per chunk: does its start or end fall strictly inside one?"""
    starts = np.array([c.start for c in chunks], dtype=np.int64)
    ends = np.array([c.end for c in chunks], dtype=np.int64)
    flags = {}
    for name, spans in _structures(text, csv).items():
        flags[name] = (containing(spans, starts) >= 0) | (containing(spans, ends) >= 0)
    return flags


def _structure_summary(flags: Mapping[str, np.ndarray], sizes: Sequence[int]) -> dict[str, float]:
    sizes_arr = np.asarray(sizes, dtype=float)
    n = len(sizes_arr)
    summary: dict[str, float] = {
        "chunks": n,
        "size_mean": float(sizes_arr.mean()) if n else 0.0,
        "size_sd": float(sizes_arr.std()) if n else 0.0,
        "size_min": float(sizes_arr.min()) if n else 0.0,
        "size_median": float(np.median(sizes_arr)) if n else 0.0,
        "size_max": float(sizes_arr.max()) if n else 0.0,
    }
    for name, cut in flags.items():
        summary[f"chunks_cutting_{name}"] = float(np.mean(cut)) if n else 0.0
    return summary


def structure_metrics(chunks: Sequence[Chunk], text: str, csv: bool = False) -> dict[str, float]:
    """Chunk count, size distribution (characters) and how often chunks cut structure.

    ``chunks_cutting_words``, ``chunks_cutting_sentences``, ``chunks_cutting_table_rows`` and
    ``chunks_cutting_code_blocks`` are the share of chunks whose start or end lies strictly inside a word (whitespace-delimited), a sentence (the
    regex splitter of `chunklab.text.sentences`), a table row or a fenced code block (`chunklab.formats.unbreakable`;
    with ``csv=True`` the text's CSV records are its table rows). A boundary between two units does
    not cut either. Sizes: ``size_mean``, ``size_sd`` (population), ``size_min``, ``size_median``,
    ``size_max``.
    """
    return _structure_summary(_cut_flags(chunks, text, csv), [len(c) for c in chunks])


def corpus_structure_metrics(chunked: Sequence[tuple[Document, Sequence[Chunk]]]) -> dict[str, float]:
    """`structure_metrics` over several documents at once: ``(document, its chunks)`` pairs.

    Fractions are over all chunks of all documents; a CSV document's records count as table rows.
    """
    flags: dict[str, list[np.ndarray]] = {}
    for doc, chunks in chunked:
        for kind, cut in _cut_flags(chunks, doc.text, doc.kind == "csv").items():
            flags.setdefault(kind, []).append(cut)
    sizes = [len(c) for _, chunks in chunked for c in chunks]
    return _structure_summary({kind: np.concatenate(parts) for kind, parts in flags.items()}, sizes)


def excerpts_kept_whole(
    chunker: Chunker, docs: Sequence[Document], questions: Sequence[Mapping[str, Any]]
) -> float:
    """Share of golden excerpts that lie entirely inside at least one chunk of their document.

    A retrieval-free view of what boundaries do to answers: an excerpt cut by every chunk that
    touches it can only be retrieved in pieces. An answer with ``alternatives`` counts once, kept
    whole when any of its excerpts is. Questions about documents not in `docs` are skipped; an empty
    set of excerpts gives 0.0.
    """
    spans_by_doc = {doc.name: [(c.start, c.end) for c in chunker(doc.text)] for doc in docs}
    excerpts = [(q["doc"], [a, *a.get("alternatives", ())]) for q in questions if q["doc"] in spans_by_doc
                for a in q["answers"]]
    whole = sum(
        any(start <= a["start"] and a["end"] <= end for a in slot for start, end in spans_by_doc[name])
        for name, slot in excerpts
    )
    return whole / len(excerpts) if excerpts else 0.0
