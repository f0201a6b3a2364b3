"""Measuring chunkers: every chunker on every document, every question through every retriever.

`compare` is the runner behind notebook 16: every strategy sends the reader the same amount of
text per question (a budget; the headline, fair view), and it returns a `Comparison`; `summarize`,
`leaderboard`, `curve` and `guidance` read it, and `paired` says whether a difference is real.
`compare_at_k` measures the k best chunks per question instead (the k view, kept to show why a
budget is fairer). With ``use_context`` a chunk is indexed with a context before its text: its
chunker's own, or the one the context step after chunking writes, by the rule the vector store
follows too (`chunklab.evaluation.indexing`: `contextualized`, `indexed_text`). The pieces it uses
live in their own modules and are re-exported here for convenience:

* `chunklab.evaluation.budget`: the budget rule (`spend`), `Comparison`, `BUDGET_METRICS`,
  `DEFAULT_BUDGETS`;
* `chunklab.evaluation.paired`: `paired` (bootstrap interval, McNemar's exact test, verdict);
* `chunklab.evaluation.verdicts`: `leaderboard`, `curve`;
* `chunklab.evaluation.metrics`: `span_metrics`, `sent_metrics`, `precision_omega` (Smith &
  Troynikov's metrics, exact from offsets), `structure_metrics`, `excerpts_kept_whole`;
* `chunklab.evaluation.retrieval`: `BM25Retriever`, `DenseRetriever`, `RerankRetriever`, `HybridRetriever`,
  `LateChunkingRetriever`, `RETRIEVERS`;
* `chunklab.text.spans`: `CharCounter`.

All documents of a comparison are indexed together, as in a real RAG store: a question may retrieve
chunks of another document, which then count as retrieved text that answers nothing.

`compare` and `compare_at_k_rows` are `chunklab.evaluation.remembered.remembered`: after
``persist_measurements(folder)`` a call measured once is read back from `folder` when it is made
again with the same chunkers, texts, questions and library (a notebook run a second time).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ..core import CHUNKERS, Chunk, Chunker
from ..formats.corpus import Split, list_documents, load_document, load_questions
from ..formats.document import Document
from ..phases import phase
from ..text.length import TokenizerLike
from ..text.spans import CharCounter
from .indexing import contextualized, indexed_text
from .budget import (
    BUDGET_METRICS,
    DEFAULT_BUDGETS,
    ROW_COLUMNS,
    BudgetUnit,
    Comparison,
    Golden,
    Meter,
    budget_scores,
    retrieval_depth,
)
from .metrics import (
    QUESTION_METRICS,
    answer_spans,
    corpus_structure_metrics,
    excerpts_kept_whole,
    precision_omega,
    sent_metrics,
    span_metrics,
    structure_metrics,
)
from .paired import paired
from .remembered import remembered
from .retrieval import (
    RETRIEVERS,
    BM25Retriever,
    DenseRetriever,
    HybridRetriever,
    LateChunkingRetriever,
    RerankRetriever,
    Retriever,
)
from .verdicts import budget_guidance, curve, leaderboard

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BUDGET_METRICS",
    "DEFAULT_BUDGETS",
    "QUESTION_METRICS",
    "RETRIEVERS",
    "BM25Retriever",
    "CharCounter",
    "Comparison",
    "DenseRetriever",
    "ExpandHits",
    "HybridRetriever",
    "LateChunkingRetriever",
    "RerankRetriever",
    "Retriever",
    "Where",
    "compare",
    "compare_at_k",
    "compare_at_k_rows",
    "contextualized",
    "curve",
    "default_chunkers",
    "excerpts_kept_whole",
    "guidance",
    "indexed_pairs",
    "indexed_text",
    "leaderboard",
    "merge_adjacent",
    "paired",
    "precision_omega",
    "sent_metrics",
    "span_metrics",
    "structure_metrics",
    "summarize",
]


#: ``where(question, chunks)``: a boolean mask over every chunk of a comparison, or None for all.
Where = Callable[[Mapping[str, Any], Sequence[Chunk]], np.ndarray | None]
#: ``expand_hits(hits)``: the ``(source, start, end)`` spans sent for a question's retrieved chunks.
ExpandHits = Callable[[Sequence[Chunk]], Sequence[tuple[str, int, int]]]

_WARM_UP = "A short warm-up text. It makes a chunker load what it needs.\n\nA second paragraph follows here."


def default_chunkers() -> dict[str, Chunker]:
    """Every registered chunker built with its defaults, by registry name (for `compare`)."""
    return {name: cls() for name, cls in CHUNKERS.items()}


def _label_chunkers(chunkers: Mapping[str, Chunker] | Sequence[Chunker]) -> dict[str, Chunker]:
    if isinstance(chunkers, Mapping):
        labelled = dict(chunkers)
    else:
        labelled = {}
        for chunker in chunkers:
            if repr(chunker) in labelled:
                raise ValueError(f"two chunkers are both {chunker!r}; pass a dict to name them")
            labelled[repr(chunker)] = chunker
    for label, chunker in labelled.items():
        if not isinstance(chunker, Chunker):
            raise TypeError(f"chunker {label!r} must be a Chunker instance, got {type(chunker).__name__}")
    return labelled


def merge_adjacent(spans: Sequence[tuple[int, int]], counter: CharCounter | None = None) -> list[tuple[int, int]]:
    """Retrieved spans of one document with overlapping or adjacent ones merged into one span.

    Adjacent means that nothing `counter` counts lies between them (with a text counter: only
    whitespace). Overlapping windows otherwise send the same text several times; merged, each
    character is sent once. The result is sorted by start.
    """
    count = counter or CharCounter()
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and (start <= merged[-1][1] or count(merged[-1][1], start) == 0):
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]


def _make_retrievers(retrievers: Sequence[str | Retriever]) -> list[Retriever]:
    built = []
    for r in retrievers:
        if isinstance(r, str):
            if r not in RETRIEVERS:
                raise ValueError(f"unknown retriever {r!r}; choose from {sorted(RETRIEVERS)} or pass a Retriever")
            r = RETRIEVERS[r]()
        built.append(r)
    names = [r.name for r in built]
    if len(set(names)) != len(names):
        raise ValueError(f"retriever names must be distinct, got {names}")
    return built


class _Pool:
    """Every document placed in one coordinate space (documents joined by a newline)."""

    def __init__(self, docs: Sequence[Document]) -> None:
        self.docs = list(docs)
        self.base: dict[str, int] = {}
        pos = 0
        for doc in self.docs:
            if doc.name in self.base:
                raise ValueError(f"document {doc.name!r} is given twice")
            self.base[doc.name] = pos
            pos += len(doc.text) + 1
        self.kind = {doc.name: doc.kind for doc in self.docs}
        self.text = "\n".join(d.text for d in self.docs)
        self.counter = CharCounter(self.text)


def _check_questions(questions: Sequence[Mapping[str, Any]], pool: _Pool) -> None:
    for q in questions:
        if q["doc"] not in pool.base:
            raise ValueError(f"question {q.get('id')!r} is about {q['doc']!r}, which is not among the documents")
        if not q["answers"]:
            raise ValueError(f"question {q.get('id')!r} has no golden excerpt")


def _chunk_all(chunker: Chunker, pool: _Pool) -> tuple[list[tuple[str, Chunk]], float]:
    """Chunk every document; returns (document name, chunk) pairs and the seconds it took."""
    with phase("chunking"):
        chunker(_WARM_UP)
        out: list[tuple[str, Chunk]] = []
        started = time.perf_counter()
        for doc in pool.docs:
            out.extend((doc.name, chunk) for chunk in chunker(doc.text, source=doc.name))
        return out, time.perf_counter() - started


def _chunker_columns(
    label: str, chunker: Chunker, chunks: list[tuple[str, Chunk]], seconds: float, pool: _Pool
) -> dict:
    by_doc = [(doc, [c for name, c in chunks if name == doc.name]) for doc in pool.docs]
    sizes = [len(c) for _, c in chunks]
    source_chars = sum(len(d.text) for d in pool.docs)
    return {
        "chunker": label,
        "strategy": chunker.name,
        "params": repr(chunker.get_params()),
        **corpus_structure_metrics(by_doc),
        "chunk_seconds": seconds,
        "index_ratio": sum(sizes) / source_chars if source_chars else 0.0,
    }


@remembered
def compare(
    chunkers: Mapping[str, Chunker] | Sequence[Chunker],
    docs: Sequence[Document | str] | None = None,
    questions: Sequence[Mapping[str, Any]] | None = None,
    retrievers: Sequence[str | Retriever] = ("bm25", "dense"),
    *,
    budget: int | Sequence[int] = DEFAULT_BUDGETS,
    budget_unit: BudgetUnit = "chars",
    tokenizer: TokenizerLike = "minilm",
    use_context: bool | Literal["both"] = False,
    where: Where | None = None,
    expand_hits: ExpandHits | None = None,
    split: Split = "all",
    progress: bool = True,
) -> Comparison:
    """Chunk `docs` with every chunker, answer `questions` with every retriever, and measure what each
    question receives when every strategy sends the same amount of text: the budget view (see
    `chunklab.evaluation.budget`). `compare_at_k` is the older view, the k best chunks per question.

    Parameters
    ----------
    chunkers:
        ``{label: chunker}``, or a list of chunkers (labelled by their ``repr``);
        `default_chunkers` gives every registered strategy with its defaults.
    docs:
        `Document` objects or corpus names; default: the corpus documents that `split` asks about.
        All are indexed together.
    questions:
        Question dicts as `chunklab.load_questions` returns them; default: the questions of `split`
        about one of `docs`.
    retrievers:
        Names from `RETRIEVERS` (``"bm25"``, ``"dense"``, ``"bm25_rerank"``, ``"hybrid"``, ``"late"``) or
        `Retriever` instances with distinct names. Dense retrievers share one embedding cache, so
        a text that several chunkers (or context settings) produce alike is embedded once.
    budget:
        One budget or several (positive integers; default `DEFAULT_BUDGETS`). Each retriever ranks
        once per chunking, deep enough that its chunks fill the largest budget
        (`chunklab.evaluation.budget.retrieval_depth`), and every budget is read off that ranking:
        chunks are sent in rank order until the budget is spent, the last one cut at the budget
        (`chunklab.evaluation.budget.spend`). (``bm25_rerank`` re-orders the dense top
        ``max(depth, candidates)``, so its pool widens with the depth.)
    budget_unit:
        ``"chars"`` (characters as the metrics count them: whitespace excluded) or ``"tokens"`` (of
        `tokenizer`, no special tokens). Recall, precision and IoU count characters either way.
    tokenizer:
        For ``budget_unit="tokens"``: ``"minilm"``, ``"cl100k"`` or a tokenizer object
        (`chunklab.text.length.TokenizerLike`).
    use_context:
        Index each chunk with a context before its text (`indexed_text`); the metrics still score
        the chunk's own span, and a budget counts the chunk's text only. False (the default, as
        everywhere in chunklab): the text alone. True: every document's chunks are indexed with a
        context, their chunker's own, else the one `ContextStep()` writes (`contextualized` gives
        the rule; the vector store and ``chunklab index --use-context`` follow it too). ``"both"``
        measures each chunker without context and, if it writes a context of its own, also with
        context (by the rule of True) under the label ``"<label> + context"`` (the chunking is done
        once). The ``context`` column says which.
    where:
        A metadata filter: ``where(question, chunks)`` returns a boolean mask over `chunks` (every
        chunk of every document, in order; ``chunk.metadata["source"]`` names its document) of
        the chunks that question may retrieve, or None for all of them.
    expand_hits:
        What is sent for a question's retrieved chunks (best first): ``expand_hits(hits)`` returns
        ``(source, start, end)`` spans. Default: the hits' own spans. The expanded spans are what the
        budget buys, in the order given, by the same rule as plain chunks (the last one cut). Ready
        made in `chunklab.evaluation.expand`: ``small_to_big(trees)`` (each leaf, then the rest of its
        parent section: small-to-big retrieval), ``auto_merge(trees)`` (a parent once most of its
        children are sent) and ``new_text_only`` (overlapping chunks, each character sent once).
    split:
        ``"dev"``, ``"test"`` or ``"all"`` (default): which questions (and so which documents) to
        use when `questions` (`docs`) are not given. Every row says its question's split.
    progress:
        Show a tqdm progress bar while it runs (one step per chunking, context setting and
        retriever, with the time left), removed when the comparison is done.

    Returns
    -------
    chunklab.evaluation.budget.Comparison
        The tidy per-question table ``rows`` (question × chunking × retriever × budget, metrics
        `BUDGET_METRICS`), one row per chunking in ``chunkings`` (structure, sizes, cost: chunking
        time after a warm-up call that loads any model, characters indexed / source characters),
        ``timings`` and the ``chunks`` made. `leaderboard`, `curve`, `summarize`, `guidance` and
        `chunklab.evaluation.paired` read it.
    """
    import pandas as pd

    budgets = _budgets(budget)
    run = _Measurement(chunkers, docs, questions, retrievers, split, use_context)
    meter = Meter(run.pool.text, run.pool.counter, budget_unit, tokenizer)
    view = _BudgetView(run.pool, run.questions, expand_hits, budgets, meter)
    chunkings, timings, made = run.measure(view, where, progress)
    return Comparison(
        rows=pd.DataFrame(view.columns), chunkings=pd.DataFrame(chunkings).set_index("chunker"),
        timings=pd.DataFrame(timings), budget_unit=budget_unit, tokenizer=tokenizer, chunks=made,
    )


def compare_at_k(
    chunkers: Mapping[str, Chunker] | Sequence[Chunker],
    docs: Sequence[Document | str] | None = None,
    questions: Sequence[Mapping[str, Any]] | None = None,
    retrievers: Sequence[str | Retriever] = ("bm25", "dense"),
    *,
    k: int = 5,
    use_context: bool | Literal["both"] = False,
    where: Where | None = None,
    expand_hits: ExpandHits | None = None,
    merge_hits: bool = False,
    split: Split = "dev",
    progress: bool = True,
) -> pd.DataFrame:
    """The k view: the `k` best chunks per question, however long they are (kept beside `compare`,
    the budget view, to show why a budget is fairer: k chunks of a large chunker are more text).

    `chunkers`, `docs`, `questions`, `retrievers`, `use_context`, `where` and `expand_hits` are those
    of `compare`; `split` defaults to ``"dev"``. `merge_hits` merges the overlapping or adjacent
    spans sent for one question in one document (`merge_adjacent`) before scoring, so overlapping
    windows do not send the same text twice.

    Returns a `pandas.DataFrame`, one row per chunker × retriever: the chunker's ``chunker`` label,
    ``strategy``, ``params``; ``retriever``, ``k``, ``questions``; the mean and population standard
    deviation (``_sd``) of each of `QUESTION_METRICS` (see `span_metrics`, `precision_omega`;
    characters counted without whitespace); ``context``; and the chunker's structure columns (see
    `structure_metrics`, over all chunks of all documents) plus ``chunk_seconds`` and
    ``index_ratio``, as in `Comparison.chunkings`. `compare_at_k_rows` gives the rows it averages.
    """
    return _summarize_at_k(compare_at_k_rows(
        chunkers, docs, questions, retrievers, k=k, use_context=use_context, where=where, expand_hits=expand_hits,
        merge_hits=merge_hits, split=split, progress=progress,
    ))


@remembered
def compare_at_k_rows(
    chunkers: Mapping[str, Chunker] | Sequence[Chunker],
    docs: Sequence[Document | str] | None = None,
    questions: Sequence[Mapping[str, Any]] | None = None,
    retrievers: Sequence[str | Retriever] = ("bm25", "dense"),
    *,
    k: int = 5,
    use_context: bool | Literal["both"] = False,
    where: Where | None = None,
    expand_hits: ExpandHits | None = None,
    merge_hits: bool = False,
    split: Split = "dev",
    progress: bool = True,
) -> pd.DataFrame:
    """The k view question by question: what `compare_at_k` averages, one row per chunker ×
    retriever × question (``question``, ``doc``, ``kind``, each metric of `QUESTION_METRICS`, and the
    chunker's columns). The arguments are those of `compare_at_k`."""
    import pandas as pd

    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    run = _Measurement(chunkers, docs, questions, retrievers, split, use_context)
    view = _KView(run.pool, run.questions, expand_hits, k, merge_hits)
    run.measure(view, where, progress)
    return pd.DataFrame(view.rows)


class _Measurement:
    """What both views share: the chunkers labelled, the documents pooled, the questions checked,
    the retrievers built; `measure` chunks, indexes and ranks, and hands every ranking to a view."""

    def __init__(
        self,
        chunkers: Mapping[str, Chunker] | Sequence[Chunker],
        docs: Sequence[Document | str] | None,
        questions: Sequence[Mapping[str, Any]] | None,
        retrievers: Sequence[str | Retriever],
        split: Split,
        use_context: bool | str,
    ) -> None:
        if not (isinstance(use_context, bool) or use_context == "both"):
            raise ValueError(f"use_context must be True, False or 'both', got {use_context!r}")
        self.use_context = use_context
        self.labelled = _label_chunkers(chunkers)
        documents = docs if docs is not None else list_documents(split)
        self.pool = _Pool([load_document(d) if isinstance(d, str) else d for d in documents])
        if questions is None:
            questions = [q for q in load_questions(split=split) if q["doc"] in self.pool.base]
        _check_questions(questions, self.pool)
        self.questions = questions
        self.retrievers = _make_retrievers(retrievers)

    def measure(self, view: _KView | _BudgetView, where: Where | None, progress: bool) -> tuple[list, list, dict]:
        """Every chunking through every retriever, scored by `view`; returns the chunkings' rows,
        the timings and the chunks each chunker made."""
        from tqdm.auto import tqdm

        pool, questions = self.pool, self.questions
        sources = {doc.name: doc.text for doc in pool.docs}
        queries = [q["question"] for q in questions]
        chunkings, timings, made = [], [], {}
        # One step per chunking, context setting and retriever: the bar moves while the slow part
        # (embedding a chunking for dense retrieval) runs, and it is gone when the cell is done.
        settings = 2 if self.use_context == "both" else 1
        steps = len(self.retrievers) * settings
        bar = tqdm(total=len(self.labelled) * steps, disable=not progress, desc="compare", unit="run", leave=False)
        try:
            for label, chunker in self.labelled.items():
                bar.set_postfix_str(f"{label}: chunking", refresh=True)
                try:
                    chunks, seconds = _chunk_all(chunker, pool)
                except Exception as error:
                    raise RuntimeError(f"chunker {label!r} failed: {error}") from error
                columns = _chunker_columns(label, chunker, chunks, seconds, pool)
                spans = np.array([(pool.base[n] + c.start, pool.base[n] + c.end) for n, c in chunks], dtype=np.int64)
                spans = spans.reshape(-1, 2)
                flat = [c for _, c in chunks]
                made[label] = flat
                allowed = [where(q, flat) for q in questions] if where is not None else None
                depth = view.start(chunks, spans)
                runs = _context_settings(self.use_context, label, flat)
                bar.update(steps - len(runs) * len(self.retrievers))  # a setting this chunking does not have
                for with_context, row_label in runs:
                    indexed = indexed_pairs(chunker, chunks, sources) if with_context else chunks
                    texts = [indexed_text(c, with_context) for _, c in indexed]
                    chunkings.append({**columns, "chunker": row_label, "context": with_context})
                    for retriever in self.retrievers:
                        bar.set_postfix_str(f"{row_label}: {retriever.name}", refresh=True)
                        started = time.perf_counter()
                        with phase("retrieval"):
                            retriever.index_chunks(texts, chunks, sources)
                            indexed_at = time.perf_counter()
                            ranked = retriever.search(queries, depth, allowed)
                        searched = time.perf_counter()
                        view.score(ranked, {**columns, "chunker": row_label, "context": with_context,
                                            "retriever": retriever.name})
                        timings.append({"chunker": row_label, "retriever": retriever.name,
                                        "index_seconds": indexed_at - started, "search_seconds": searched - indexed_at,
                                        "score_seconds": time.perf_counter() - searched})
                        bar.update()
        finally:
            bar.close()
        return chunkings, timings, made


def indexed_pairs(
    chunker: Chunker, chunks: Sequence[tuple[str, Chunk]], sources: Mapping[str, str]
) -> list[tuple[str, Chunk]]:
    """``(document name, chunk)`` pairs as ``use_context=True`` indexes them: `contextualized` on
    each document's chunks (consecutive pairs with one name), with the text `sources` maps it to."""
    out: list[tuple[str, Chunk]] = []
    for name, group in itertools.groupby(chunks, key=lambda pair: pair[0]):
        out.extend((name, chunk) for chunk in contextualized(chunker, sources[name], [c for _, c in group]))
    return out


class _View:
    """How `compare` scores one ranking of every question: the k view or the budget view.

    `start` is called with each new chunking (its ``(document, chunk)`` pairs and pooled spans) and
    returns how many chunks to retrieve per question; `score` receives every question's ranking and
    the row's labels."""

    def __init__(self, pool: _Pool, questions: Sequence[Mapping[str, Any]], expand_hits: Any) -> None:
        self.pool, self.questions, self.expand_hits = pool, questions, expand_hits
        golden = [answer_spans(q, pool.base[q["doc"]]) for q in questions]
        self.golden = [spans for spans, _ in golden]
        self.alternatives = [slots for _, slots in golden]  # None for a question without alternatives
        self.chunks: list[tuple[str, Chunk]] = []
        self.spans = np.zeros((0, 2), dtype=np.int64)

    def take(self, chunks: list[tuple[str, Chunk]], spans: np.ndarray) -> None:
        """Remember the chunking being measured."""
        self.chunks, self.spans = chunks, spans

    def sent(self, hits: Sequence[int], merge: bool = False) -> list[tuple[int, int]]:
        """The pooled spans sent for one question's hits (expanded, and merged if asked)."""
        return _sent_spans(hits, self.chunks, self.spans, self.pool, self.expand_hits, merge)


class _KView(_View):
    """The k best chunks per question: one row per question with `span_metrics` and precision-Ω."""

    def __init__(self, pool: _Pool, questions: Sequence[Mapping[str, Any]], expand_hits: Any, k: int,
                 merge_hits: bool) -> None:
        super().__init__(pool, questions, expand_hits)
        self.k, self.merge_hits = k, merge_hits
        self.rows: list[dict] = []
        self.omegas: list[float] = []

    def start(self, chunks: list[tuple[str, Chunk]], spans: np.ndarray) -> int:
        """Take a new chunking and compute its precision-Ω per question; retrieve `k`."""
        self.take(chunks, spans)
        self.omegas = [precision_omega(spans, gold, self.pool.counter) for gold in self.golden]
        return self.k

    def score(self, ranked: Sequence[Sequence[int]], labels: Mapping[str, Any]) -> None:
        """One row per question: its ids, `span_metrics` of what was sent, precision-Ω, `labels`."""
        for q, gold, slots, omega, hits in zip(self.questions, self.golden, self.alternatives, self.omegas, ranked):
            metrics = span_metrics(self.sent(hits, self.merge_hits), gold, self.pool.counter, slots)
            self.rows.append({"retriever": labels["retriever"], "k": self.k, "question": q.get("id"), "doc": q["doc"],
                              "kind": q.get("kind"), **metrics, "precision_omega": omega, **labels})


class _BudgetView(_View):
    """Every budget read off one deep ranking per question: `BUDGET_METRICS` in tidy columns."""

    def __init__(self, pool: _Pool, questions: Sequence[Mapping[str, Any]], expand_hits: Any,
                 budgets: tuple[int, ...], meter: Meter) -> None:
        super().__init__(pool, questions, expand_hits)
        self.budgets, self.meter = budgets, meter
        self.prepared = [Golden(gold, pool.counter, slots) for gold, slots in zip(self.golden, self.alternatives)]
        self.costs = np.zeros(0, dtype=np.int64)
        self.columns: dict[str, list] = {column: [] for column in ROW_COLUMNS}

    def start(self, chunks: list[tuple[str, Chunk]], spans: np.ndarray) -> int:
        """Take a new chunking; retrieve deep enough that its chunks fill the largest budget."""
        self.take(chunks, spans)
        self.costs = self.meter.costs(spans)
        return max(1, retrieval_depth(self.costs, self.budgets[-1]))

    def score(self, ranked: Sequence[Sequence[int]], labels: Mapping[str, Any]) -> None:
        """One row per question and budget (`ROW_COLUMNS`)."""
        for q, golden, hits in zip(self.questions, self.prepared, ranked):
            if self.expand_hits is None:
                sent, costs = self.spans[hits], self.costs[hits]
            else:
                sent = np.array(self.sent(hits), dtype=np.int64).reshape(-1, 2)
                costs = self.meter.costs(sent)
            who = {"question": q.get("id"), "doc": q["doc"], "doc_kind": self.pool.kind[q["doc"]],
                   "kind": q.get("kind"), "split": q.get("split"), "chunker": labels["chunker"],
                   "context": labels["context"], "retriever": labels["retriever"]}
            scores = budget_scores(sent, costs, golden, self.budgets, self.meter)
            for column, value in who.items():  # a column at a time: one row per budget
                self.columns[column].extend([value] * len(self.budgets))
            self.columns["budget"].extend(self.budgets)
            for metric in BUDGET_METRICS:
                self.columns[metric].extend([at_budget[metric] for at_budget in scores])


def _budgets(budget: int | Sequence[int]) -> tuple[int, ...]:
    """The budgets asked for, sorted and distinct."""
    values: list[Any] = list(budget) if isinstance(budget, (list, tuple, range, np.ndarray)) else [budget]
    if not values or any(isinstance(b, bool) or not isinstance(b, (int, np.integer)) or b < 1 for b in values):
        raise ValueError(f"budget must be a positive integer or a non-empty list of them, got {budget!r}")
    return tuple(sorted({int(b) for b in values}))


def _context_settings(use_context: bool | str, label: str, chunks: Sequence[Chunk]) -> list[tuple[bool, str]]:
    """``(index a context?, row label)`` for each setting `compare` measures a chunking with
    (``"both"``: with context only when the chunker writes one of its own on some document)."""
    if use_context == "both":
        with_context = any(c.metadata.get("context") for c in chunks)
        return [(False, label)] + ([(True, f"{label} + context")] if with_context else [])
    return [(bool(use_context), label)]


def _sent_spans(
    hits: Sequence[int],
    chunks: Sequence[tuple[str, Chunk]],
    spans: np.ndarray,
    pool: _Pool,
    expand_hits: Callable[[Sequence[Chunk]], Sequence[tuple[str, int, int]]] | None,
    merge_hits: bool,
) -> list[tuple[int, int]]:
    """The pooled spans sent for one question's hits, expanded and merged as asked."""
    if expand_hits is None:
        by_doc = [(chunks[i][0], int(spans[i][0]), int(spans[i][1])) for i in hits]
    else:
        by_doc = [
            (name, pool.base[name] + s, pool.base[name] + e)
            for name, s, e in expand_hits([chunks[i][1] for i in hits])
        ]
    if not merge_hits:
        return [(s, e) for _, s, e in by_doc]
    out: list[tuple[int, int]] = []
    for name in dict.fromkeys(n for n, _, _ in by_doc):
        out.extend(merge_adjacent([(s, e) for n, s, e in by_doc if n == name], pool.counter))
    return out


def summarize(result: Comparison, split: str | None = None) -> pd.DataFrame:
    """The full table: one row per chunking × retriever × budget, metrics averaged over questions.

    One row per chunking × retriever × budget of `result` (on `split` only, if given) with
    ``questions`` and the mean of each of `BUDGET_METRICS`, then the chunking's columns
    (``strategy``, ``context``, sizes, structure, ``index_ratio``, ``chunk_seconds``: see
    `Comparison.chunkings`). `leaderboard` is the readable view of it.
    """
    import pandas as pd

    rows = result.rows if split is None else result.rows[result.rows["split"] == split]
    groups = rows.groupby(["chunker", "retriever", "budget"], sort=False)
    table = pd.concat([groups.size().rename("questions"), groups[list(BUDGET_METRICS)].mean()], axis=1)
    return table.reset_index().join(result.chunkings, on="chunker")


def _summarize_at_k(per_question: pd.DataFrame) -> pd.DataFrame:
    """`compare_at_k`'s per-question rows as one row per chunker × retriever: question metrics as
    their mean and population standard deviation (``<metric>_sd``), the chunker's own columns
    carried over. Row order follows first appearance."""
    import pandas as pd

    keys = ["chunker", "retriever"]
    metric_cols = [m for m in QUESTION_METRICS if m in per_question.columns]
    chunker_cols = [c for c in per_question.columns if c not in (*keys, *metric_cols, "question", "doc", "kind")]
    groups = per_question.groupby(keys, sort=False)
    means = groups[metric_cols].mean()
    sds = groups[metric_cols].std(ddof=0).add_suffix("_sd")
    firsts = groups[chunker_cols].first()
    counts = groups.size().rename("questions")
    table = pd.concat([firsts, counts, means, sds], axis=1).reset_index()
    ordered = ["chunker", "strategy", "params", "retriever", "k", "questions"]
    ordered += [c for m in metric_cols for c in (m, f"{m}_sd")]
    return table[ordered + [c for c in table.columns if c not in ordered]]


def guidance(
    result: Comparison,
    *,
    budget: int | None = None,
    retriever: str | None = None,
    split: str | None = None,
    metric: str = "answered",
) -> str:
    """"Which strategy when", as markdown bullets computed from measurements (never asserted).

    `result` is what `compare` returns: for each
    retriever at `budget` (required when several were measured), over all questions, then per
    document kind and per question kind, the best chunking by `metric`, the ones with no measurable
    difference from it and how many are measurably worse, or "no measurable difference" when that is
    the truth (`chunklab.evaluation.verdicts.budget_guidance`; `split` keeps one question split).
    The k view (`compare_at_k`) has no guidance: ranked by means at a fixed k, it favours large
    chunks, which send more text.
    """
    if not isinstance(result, Comparison):
        raise TypeError(f"guidance reads what compare returns (a Comparison), not a {type(result).__name__}: "
                        "the k view has no guidance")
    return budget_guidance(result, budget=budget, retriever=retriever, split=split, metric=metric)
