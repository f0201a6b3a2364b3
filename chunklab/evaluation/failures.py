"""Why a chunking misses a question that another one answers: each miss given one cause, computed.

`rank` chunks the documents, indexes them together with one retriever (as `compare` does) and
keeps every question's ranking. `miss_causes` then takes two such rankings, A (the chunking under
study) and B (the one it is compared with), and for every question and budget that A does not
answer and B does, looks at what A's chunks did with the golden excerpt it failed to send:

* ``"longer than chunk_size"``: the excerpt has more characters than A's largest chunk may have,
  so no chunk of A can hold it and several must be sent;
* ``"split at a section boundary"``, ``"split between paragraphs"``, ``"split inside a paragraph"``:
  no chunk of A holds the excerpt, and A's cut inside it falls where a section starts (the two
  chunks carry different ``section`` metadata), at a blank line, or inside a paragraph;
* ``"cut by the budget"``: a chunk holding the excerpt was reached but was the last one sent, cut
  before the excerpt's end (the chunk was too long for what was left of the budget);
* ``"ranked too low, the context pushed it down"``: a chunk holds the excerpt but ranked too low to
  be sent, and without the chunks' context indexed (a third ranking, `plain`) it would have been;
* ``"ranked too low"``: the same, with no such explanation.

For a question with several excerpts the first excerpt A failed to send decides. Beside the cause
each row gives the sizes that explain it: the chunk of A that holds the excerpt (or the pieces it
was split into, and the size of the piece sent, when one was), and the chunk of B that holds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from ..core import Chunk, Chunker
from ..formats.document import Document
from ..text.spans import intersection, union
from .budget import Meter, retrieval_depth, spend
from .comparison import _make_retrievers, _Pool, indexed_pairs, indexed_text
from .retrieval import Retriever

__all__ = ["CAUSES", "Ranking", "miss_causes", "rank"]

#: The causes `miss_causes` gives, in the order it tests them.
CAUSES = (
    "longer than chunk_size",
    "split at a section boundary",
    "split between paragraphs",
    "split inside a paragraph",
    "cut by the budget",
    "ranked too low, the context pushed it down",
    "ranked too low",
)


@dataclass(frozen=True)
class Ranking:
    """One chunking's ranked chunks for every question, with what is needed to replay a budget.

    `chunks` are ``(document name, chunk)`` pairs in index order, `spans` their pooled offsets (the
    documents joined as `compare` joins them, `pool`), `ranked` one list of chunk indices per
    question (best first, deep enough to fill `depth_budget`), `questions` the questions in order.
    """

    label: str
    chunks: list[tuple[str, Chunk]]
    spans: np.ndarray
    ranked: list[list[int]]
    questions: list[Mapping[str, Any]]
    pool: _Pool
    meter: Meter
    costs: np.ndarray
    depth_budget: int

    def sent(self, question: int, budget: int) -> list[tuple[int, int]]:
        """The pooled spans question number `question` receives at `budget` (the last one cut)."""
        if budget > self.depth_budget:
            raise ValueError(f"ranked deep enough for a budget of {self.depth_budget}, not {budget}")
        hits = self.ranked[question]
        return spend(self.spans[hits], self.costs[hits], budget, self.meter)[0]

    def golden(self, question: int) -> list[tuple[int, int]]:
        """The pooled spans of a question's golden excerpts."""
        q = self.questions[question]
        base = self.pool.base[q["doc"]]
        return [(base + a["start"], base + a["end"]) for a in q["answers"]]

    def holds(self, spans: Sequence[tuple[int, int]], excerpt: tuple[int, int]) -> bool:
        """Do `spans` together hold every counted character of `excerpt`?"""
        counter = self.pool.counter
        return counter.total(intersection(union([excerpt]), union(spans))) == counter(*excerpt)


def rank(
    chunker: Chunker,
    docs: Sequence[Document],
    questions: Sequence[Mapping[str, Any]],
    retriever: str | Retriever = "bm25",
    use_context: bool = False,
    budget: int = 2000,
    label: str | None = None,
) -> Ranking:
    """Chunk `docs`, index every chunk together (with a context first when `use_context`, by the
    rule `compare` and the vector store follow: `chunklab.evaluation.indexing.contextualized`), and
    rank the chunks for every question deep enough to fill `budget` characters (as `compare` does)."""
    pool = _Pool(docs)
    chunks = [(doc.name, c) for doc in pool.docs for c in chunker(doc.text, source=doc.name)]
    spans = np.array([(pool.base[n] + c.start, pool.base[n] + c.end) for n, c in chunks], dtype=np.int64).reshape(-1, 2)
    meter = Meter(pool.text, pool.counter)
    costs = meter.costs(spans)
    (built,) = _make_retrievers([retriever])
    sources = {d.name: d.text for d in pool.docs}
    indexed = indexed_pairs(chunker, chunks, sources) if use_context else chunks
    built.index_chunks([indexed_text(c, use_context) for _, c in indexed], chunks, sources)
    ranked = built.search([q["question"] for q in questions], max(1, retrieval_depth(costs, budget)))
    name = label or (f"{chunker.name} + context" if use_context else chunker.name)
    return Ranking(name, chunks, spans, ranked, list(questions), pool, meter, costs, budget)


def _answered(ranking: Ranking, question: int, budget: int) -> bool:
    sent = ranking.sent(question, budget)
    return all(ranking.holds(sent, excerpt) for excerpt in ranking.golden(question))


def _holders(ranking: Ranking, excerpt: tuple[int, int]) -> list[int]:
    """Indices of the chunks that hold `excerpt` whole."""
    overlapping = np.flatnonzero((ranking.spans[:, 0] < excerpt[1]) & (ranking.spans[:, 1] > excerpt[0]))
    return [int(i) for i in overlapping if ranking.holds([tuple(ranking.spans[i])], excerpt)]


def _pieces(ranking: Ranking, excerpt: tuple[int, int]) -> list[int]:
    """Indices of the chunks holding counted characters of `excerpt`, in source order."""
    counter = ranking.pool.counter
    overlapping = np.flatnonzero((ranking.spans[:, 0] < excerpt[1]) & (ranking.spans[:, 1] > excerpt[0]))
    keep = [int(i) for i in overlapping
            if counter(max(excerpt[0], int(ranking.spans[i, 0])), min(excerpt[1], int(ranking.spans[i, 1]))) > 0]
    return sorted(keep, key=lambda i: tuple(ranking.spans[i]))


def _split_kind(ranking: Ranking, pieces: Sequence[int]) -> str:
    """Where the excerpt was cut: at a section boundary, at a blank line, or inside a paragraph."""
    text = ranking.pool.text
    kinds = []
    for a, b in zip(pieces, pieces[1:]):
        first, second = ranking.chunks[a][1], ranking.chunks[b][1]
        if first.metadata.get("section") != second.metadata.get("section"):
            kinds.append(0)
        else:
            end, start = int(ranking.spans[a, 1]), int(ranking.spans[b, 0])
            gap = text[min(end, start) : max(end, start)] if start != end else ""
            kinds.append(1 if "\n\n" in gap or "\n\r\n" in gap else 2)
    return CAUSES[1 + min(kinds)] if kinds else CAUSES[3]


def _cause(ranking: Ranking, question: int, budget: int, chunk_size: int | None,
           plain: Ranking | None) -> tuple[str, tuple[int, int], dict[str, Any]]:
    """The cause of one miss, the excerpt it concerns and the sizes that explain it."""
    sent = ranking.sent(question, budget)
    excerpt = next(e for e in ranking.golden(question) if not ranking.holds(sent, e))
    counted = int(ranking.pool.counter(*excerpt))
    holders = _holders(ranking, excerpt)
    detail: dict[str, Any] = {"excerpt_chars": counted}
    if not holders:
        pieces = _pieces(ranking, excerpt)
        detail["pieces"] = len(pieces)
        detail["piece_chars"] = [int(ranking.costs[i]) for i in pieces]
        reached = [i for i in pieces if any(s <= ranking.spans[i, 0] < e for s, e in sent)]
        detail["piece_sent_chars"] = int(ranking.costs[reached[0]]) if reached else None
        if chunk_size is not None and excerpt[1] - excerpt[0] > chunk_size:
            return CAUSES[0], excerpt, detail
        return _split_kind(ranking, pieces), excerpt, detail
    order = {index: position for position, index in enumerate(ranking.ranked[question])}
    best = min(holders, key=lambda i: order.get(i, len(order)))
    detail["holder_chars"] = int(ranking.costs[best])
    detail["holder_rank"] = order.get(best)
    if any(s == ranking.spans[best, 0] for s, _ in sent):
        return CAUSES[4], excerpt, detail
    if plain is not None and plain.holds(plain.sent(question, budget), excerpt):
        return CAUSES[5], excerpt, detail
    return CAUSES[6], excerpt, detail


def miss_causes(
    a: Ranking,
    b: Ranking,
    budgets: Sequence[int],
    chunk_size: int | None = None,
    plain: Ranking | None = None,
) -> Any:
    """Every question and budget that `a` misses and `b` answers, with the cause of `a`'s miss.

    `a` and `b` rank the same questions over the same documents (`rank`); `chunk_size` is `a`'s
    largest chunk in characters, for the cause ``"longer than chunk_size"``; `plain` ranks `a`'s
    chunks without their context, for ``"ranked too low, the context pushed it down"``. Returns a
    DataFrame: ``question``, ``doc``, ``kind``, ``budget``, ``cause`` (one of `CAUSES`),
    ``excerpt_chars`` (counted characters of the excerpt missed), ``pieces`` and ``piece_chars``
    (when no chunk of `a` holds it whole: how many chunks share it and their sizes),
    ``piece_sent_chars`` (the size of the first of them that was sent, if any), ``holder_chars`` and
    ``holder_rank`` (otherwise: `a`'s chunk holding it and its rank, from 0; None when it ranked
    below the depth a ranking needs to fill the largest budget), ``winner_chars`` (the
    smallest chunk of `b` that holds it whole, if any).
    """
    import pandas as pd

    if [q.get("id") for q in a.questions] != [q.get("id") for q in b.questions]:
        raise ValueError("a and b must rank the same questions in the same order")
    rows = []
    for budget in budgets:
        for i, q in enumerate(a.questions):
            if _answered(a, i, budget) or not _answered(b, i, budget):
                continue
            cause, excerpt, detail = _cause(a, i, budget, chunk_size, plain)
            winner = [int(b.costs[j]) for j in _holders(b, excerpt)]
            rows.append({"question": q.get("id"), "doc": q["doc"], "kind": q.get("kind"), "budget": budget,
                         "cause": cause, **detail, "winner_chars": min(winner) if winner else None})
    columns = ["question", "doc", "kind", "budget", "cause", "excerpt_chars", "pieces", "piece_chars",
               "piece_sent_chars", "holder_chars", "holder_rank", "winner_chars"]
    return pd.DataFrame(rows, columns=columns)
