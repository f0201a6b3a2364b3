"""Measuring chunkers: retrieval over their chunks, span metrics against golden excerpts, structure.

The pieces, each usable on its own:

* `CharCounter`, `span_metrics`, `precision_omega`: the per-question metrics of Smith & Troynikov,
  "Evaluating Chunking Strategies for Retrieval" (Chroma technical report, July 2024), computed
  exactly from character offsets (definitions in `span_metrics`);
* `structure_metrics`: how many chunks cut a word, a sentence, a table row or a code block, and the
  size distribution;
* retrievers over a list of chunk texts: `BM25Retriever` (``bm25s``), `DenseRetriever` (MiniLM
  embeddings), `RerankRetriever` (dense candidates re-ranked by BM25) and `HybridRetriever`
  (reciprocal rank fusion); `RETRIEVERS` maps their short names to them;
* `compare`: every chunker on every document, every question through every retriever, one table.

All documents of a comparison are indexed together, as in a real RAG store: a question may retrieve
chunks of another document, which then count as retrieved text that answers nothing.
"""

from __future__ import annotations

import functools
import time
from typing import Any, Mapping, Sequence

import numpy as np

from .core import CHUNKERS, Chunk, Chunker
from .corpus import Document, list_documents, load_document, load_questions
from .embed import Embedder, default_embedder
from .segment import sentence_spans, word_spans
from .spans import CharCounter, Span, containing, intersection, union
from .structure import code_block_spans, table_row_spans

__all__ = [
    "QUESTION_METRICS",
    "RETRIEVERS",
    "BM25Retriever",
    "CharCounter",
    "DenseRetriever",
    "HybridRetriever",
    "RerankRetriever",
    "Retriever",
    "compare",
    "default_chunkers",
    "excerpts_kept_whole",
    "guidance",
    "precision_omega",
    "span_metrics",
    "structure_metrics",
    "summarize",
]

#: Per-question metrics, in the order `compare` reports them (each gets a ``_sd`` column too).
QUESTION_METRICS = ("recall@k", "recall", "precision", "iou", "precision_omega", "retrieved_chars")


# -- span metrics -----------------------------------------------------------------------------------
def span_metrics(
    retrieved: Sequence[Span], golden: Sequence[Span], counter: CharCounter | None = None
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
    """
    count = counter or CharCounter()
    gold = union(golden)
    gold_chars = count.total(gold)
    if gold_chars == 0:
        raise ValueError("the golden excerpts contain no countable characters")
    got = union(retrieved)
    covered = count.total(intersection(gold, got))
    retrieved_chars = int(sum(count(s, e) for s, e in retrieved))
    hit = any(
        count.total(intersection([(s, e)], got)) == count(s, e) for s, e in golden if count(s, e) > 0
    )
    return {
        "recall@k": float(hit),
        "recall": covered / gold_chars,
        "precision": covered / retrieved_chars if retrieved_chars else 0.0,
        "iou": covered / (retrieved_chars + gold_chars - covered),
        "retrieved_chars": float(retrieved_chars),
    }


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
@functools.lru_cache(maxsize=64)
def _structures(text: str, csv: bool) -> dict[str, np.ndarray]:
    """The spans a boundary should not cut, per kind, as ``(n, 2)`` arrays."""
    found = {
        "words": word_spans(text),
        "sentences": sentence_spans(text),
        "table_rows": table_row_spans(text, csv=csv),
        "code_blocks": code_block_spans(text),
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
        summary[f"{name}_cut"] = float(np.mean(cut)) if n else 0.0
    return summary


def structure_metrics(chunks: Sequence[Chunk], text: str, csv: bool = False) -> dict[str, float]:
    """Chunk count, size distribution (characters) and how often chunks cut structure.

    ``words_cut``, ``sentences_cut``, ``table_rows_cut`` and ``code_blocks_cut`` are the fraction of
    chunks whose start or end lies strictly inside a word (whitespace-delimited), a sentence (the
    regex splitter of `chunklab.segment`), a table row or a fenced code block (`chunklab.structure`;
    with ``csv=True`` the text's CSV records are its table rows). A boundary between two units does
    not cut either. Sizes: ``size_mean``, ``size_sd`` (population), ``size_min``, ``size_median``,
    ``size_max``.
    """
    return _structure_summary(_cut_flags(chunks, text, csv), [len(c) for c in chunks])


def excerpts_kept_whole(
    chunker: Chunker, docs: Sequence[Document], questions: Sequence[Mapping[str, Any]]
) -> float:
    """Share of golden excerpts that lie entirely inside at least one chunk of their document.

    A retrieval-free view of what boundaries do to answers: an excerpt cut by every chunk that
    touches it can only be retrieved in pieces. Questions about documents not in `docs` are skipped;
    an empty set of excerpts gives 0.0.
    """
    spans_by_doc = {doc.name: [(c.start, c.end) for c in chunker(doc.text)] for doc in docs}
    excerpts = [(q["doc"], a) for q in questions if q["doc"] in spans_by_doc for a in q["answers"]]
    whole = sum(
        any(start <= a["start"] and a["end"] <= end for start, end in spans_by_doc[name]) for name, a in excerpts
    )
    return whole / len(excerpts) if excerpts else 0.0


# -- retrieval ----------------------------------------------------------------------------------
def _top_k(scores: np.ndarray, k: int) -> list[int]:
    """Indices of the `k` highest scores, best first; ties go to the lower index."""
    return [int(i) for i in np.argsort(-scores, kind="stable")[:k]]


class Retriever:
    """Ranks indexed texts for a query. Subclasses set `name` and implement `index` and `search`."""

    #: Short name, the ``retriever`` column of `compare`'s table.
    name = ""

    def index(self, texts: Sequence[str]) -> None:
        """Replace the index with `texts` (chunk texts, in chunk order)."""
        raise NotImplementedError

    def search(self, queries: Sequence[str], k: int) -> list[list[int]]:
        """For each query, the indices of the `k` best texts, best first (fewer if fewer are indexed)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


@functools.cache
def _snowball() -> Any:
    from nltk.stem.snowball import SnowballStemmer

    return SnowballStemmer("english")


def _stem_all(words: list[str]) -> list[str]:
    stem = _snowball().stem
    return [stem(w) for w in words]


class BM25Retriever(Retriever):
    """Okapi BM25 over chunk texts with the ``bm25s`` package (Lucene variant, in memory).

    Tokens: lower-cased runs of two or more word characters (bm25s' default pattern), English stop
    words removed (bm25s' built-in list), and, with ``stem=True``, NLTK's Snowball English stemmer
    (pure Python, no download), so "caches" matches "caching". Nothing is saved or fetched.
    """

    name = "bm25"

    def __init__(self, k1: float = 1.5, b: float = 0.75, stem: bool = True) -> None:
        self.k1, self.b, self.stem = k1, b, stem
        self._bm25: Any = None
        self._size = 0

    def __repr__(self) -> str:
        return f"BM25Retriever(k1={self.k1}, b={self.b}, stem={self.stem})"

    def _tokenize(self, texts: Sequence[str]) -> list[list[str]]:
        import bm25s

        return bm25s.tokenize(
            list(texts), stopwords="en", stemmer=_stem_all if self.stem else None, return_ids=False, show_progress=False
        )

    def index(self, texts: Sequence[str]) -> None:
        """Tokenise and index `texts`."""
        import bm25s

        self._size = len(texts)
        self._bm25 = bm25s.BM25(k1=self.k1, b=self.b) if texts else None
        if self._bm25 is not None:
            self._bm25.index(self._tokenize(texts), show_progress=False)

    def scores(self, queries: Sequence[str]) -> np.ndarray:
        """BM25 score of every indexed text for every query: shape ``(len(queries), n_texts)``."""
        out = np.zeros((len(queries), self._size), dtype=np.float32)
        if self._bm25 is None:
            return out
        for row, tokens in enumerate(self._tokenize(queries)):
            if tokens:
                out[row] = self._bm25.get_scores(tokens)
        return out

    def search(self, queries: Sequence[str], k: int) -> list[list[int]]:
        """Top-`k` texts by BM25 score."""
        return [_top_k(row, k) for row in self.scores(queries)]


class DenseRetriever(Retriever):
    """Cosine similarity between embedded query and chunk texts.

    `embedder` is any callable ``list[str] -> (n, d)`` array with unit rows; by default the shared
    `chunklab.embed.default_embedder` (all-MiniLM-L6-v2, cached). An embedder with a ``fit`` method
    (e.g. `chunklab.embed.TfidfEmbedder`) is fitted on the indexed texts first. MiniLM reads at most
    256 word pieces, so chunks longer than about 1,000 characters are judged by their beginning.
    """

    name = "dense"

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder
        self._matrix: np.ndarray | None = None

    def __repr__(self) -> str:
        return f"DenseRetriever(embedder={self.embedder!r})"

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.embedder is None:
            self.embedder = default_embedder()
        return self.embedder(list(texts))

    def index(self, texts: Sequence[str]) -> None:
        """Embed `texts` (fitting the embedder on them if it can be fitted)."""
        if texts and hasattr(self.embedder, "fit"):
            self.embedder.fit(list(texts))
        self._matrix = self._embed(texts) if texts else np.zeros((0, 1), dtype=np.float32)

    def scores(self, queries: Sequence[str]) -> np.ndarray:
        """Cosine similarity of every indexed text to every query: ``(len(queries), n_texts)``."""
        if self._matrix is None or len(self._matrix) == 0:
            return np.zeros((len(queries), 0), dtype=np.float32)
        return self._embed(queries) @ self._matrix.T

    def search(self, queries: Sequence[str], k: int) -> list[list[int]]:
        """Top-`k` texts by cosine similarity."""
        return [_top_k(row, k) for row in self.scores(queries)]


class _DenseAndBM25(Retriever):
    """Base of the retrievers that combine a dense and a BM25 index over the same texts."""

    def __init__(self, embedder: Embedder | None = None, stem: bool = True) -> None:
        self.dense = DenseRetriever(embedder)
        self.bm25 = BM25Retriever(stem=stem)

    def index(self, texts: Sequence[str]) -> None:
        """Index `texts` in both the dense and the BM25 index."""
        self.dense.index(texts)
        self.bm25.index(texts)


class RerankRetriever(_DenseAndBM25):
    """BM25 re-ranking: the dense retriever proposes `candidates` chunks, BM25 orders them.

    The final top-`k` are the candidates (at least `k` of them) with the highest BM25 scores; ties
    keep the dense order.
    Dense retrieval finds paraphrases; BM25 then promotes candidates that share the query's exact
    terms (names, numbers, identifiers), which embeddings blur.
    """

    name = "bm25_rerank"

    def __init__(self, candidates: int = 20, embedder: Embedder | None = None, stem: bool = True) -> None:
        if candidates < 1:
            raise ValueError(f"RerankRetriever: candidates must be >= 1, got {candidates}")
        super().__init__(embedder, stem)
        self.candidates = candidates

    def __repr__(self) -> str:
        return f"RerankRetriever(candidates={self.candidates})"

    def search(self, queries: Sequence[str], k: int) -> list[list[int]]:
        """Dense top-`candidates`, re-ordered by BM25 score, cut to `k`."""
        pools = self.dense.search(queries, max(k, self.candidates))
        bm25 = self.bm25.scores(queries)
        ranked = []
        for pool, row in zip(pools, bm25):
            order = sorted(range(len(pool)), key=lambda p: (-row[pool[p]], p))
            ranked.append([pool[p] for p in order[:k]])
        return ranked


class HybridRetriever(_DenseAndBM25):
    """Reciprocal rank fusion of BM25 and dense rankings (Cormack, Clarke & Büttcher, SIGIR 2009).

    Each text scores ``1/(c + rank_bm25) + 1/(c + rank_dense)`` with ranks starting at 1 and
    ``c = 60`` as in that paper; fusing ranks avoids calibrating BM25 scores against cosines.
    """

    name = "hybrid"

    def __init__(self, c: int = 60, embedder: Embedder | None = None, stem: bool = True) -> None:
        super().__init__(embedder, stem)
        self.c = c

    def __repr__(self) -> str:
        return f"HybridRetriever(c={self.c})"

    def search(self, queries: Sequence[str], k: int) -> list[list[int]]:
        """Top-`k` texts by fused reciprocal rank."""
        fused = sum(1.0 / (self.c + _ranks(s)) for s in (self.bm25.scores(queries), self.dense.scores(queries)))
        return [_top_k(row, k) for row in fused]


def _ranks(scores: np.ndarray) -> np.ndarray:
    """Rank (1 = best, ties in index order) of every column in each row of `scores`."""
    ranks = np.empty(scores.shape, dtype=np.float64)
    order = np.argsort(-scores, axis=1, kind="stable")
    np.put_along_axis(ranks, order, np.arange(1, scores.shape[1] + 1, dtype=np.float64)[None, :], axis=1)
    return ranks


#: Retrievers by short name; `compare` builds each with its defaults.
RETRIEVERS: dict[str, type[Retriever]] = {
    cls.name: cls for cls in (BM25Retriever, DenseRetriever, RerankRetriever, HybridRetriever)
}


# -- the runner -------------------------------------------------------------------------------------
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
        self.counter = CharCounter("\n".join(d.text for d in self.docs))


def _check_questions(questions: Sequence[Mapping[str, Any]], pool: _Pool) -> None:
    for q in questions:
        if q["doc"] not in pool.base:
            raise ValueError(f"question {q.get('id')!r} is about {q['doc']!r}, which is not among the documents")
        if not q["answers"]:
            raise ValueError(f"question {q.get('id')!r} has no golden excerpt")


def _chunk_all(chunker: Chunker, pool: _Pool) -> tuple[list[tuple[str, Chunk]], float]:
    """Chunk every document; returns (document name, chunk) pairs and the seconds it took."""
    chunker(_WARM_UP)
    out: list[tuple[str, Chunk]] = []
    started = time.perf_counter()
    for doc in pool.docs:
        out.extend((doc.name, chunk) for chunk in chunker(doc.text, source=doc.name))
    return out, time.perf_counter() - started


def _chunker_columns(label: str, chunker: Chunker, chunks: list[tuple[str, Chunk]], seconds: float, pool: _Pool) -> dict:
    flags: dict[str, list[np.ndarray]] = {}
    for doc in pool.docs:
        mine = [c for name, c in chunks if name == doc.name]
        for kind, cut in _cut_flags(mine, doc.text, doc.kind == "csv").items():
            flags.setdefault(kind, []).append(cut)
    sizes = [len(c) for _, c in chunks]
    source_chars = sum(len(d.text) for d in pool.docs)
    return {
        "chunker": label,
        "strategy": chunker.name,
        "params": repr(chunker.get_params()),
        **_structure_summary({kind: np.concatenate(parts) for kind, parts in flags.items()}, sizes),
        "chunk_seconds": seconds,
        "index_ratio": sum(sizes) / source_chars if source_chars else 0.0,
    }


def compare(
    chunkers: Mapping[str, Chunker] | Sequence[Chunker],
    docs: Sequence[Document | str] | None = None,
    questions: Sequence[Mapping[str, Any]] | None = None,
    retrievers: Sequence[str | Retriever] = ("bm25", "dense"),
    k: int = 5,
    progress: bool = True,
    per_question: bool = False,
) -> Any:
    """Chunk `docs` with every chunker, answer `questions` with every retriever, measure it all.

    Parameters
    ----------
    chunkers:
        ``{label: chunker}``, or a list of chunkers (labelled by their ``repr``);
        `default_chunkers` gives every registered strategy with its defaults.
    docs:
        `Document` objects or corpus names; default: the whole corpus. All are indexed together.
    questions:
        Question dicts as `chunklab.load_questions` returns them; default: every corpus question about
        one of `docs`.
    retrievers:
        Names from `RETRIEVERS` (``"bm25"``, ``"dense"``, ``"bm25_rerank"``, ``"hybrid"``) or
        `Retriever` instances with distinct names. Dense retrievers share one embedding cache, so
        chunks that several chunkers produce alike are embedded once.
    k:
        Chunks retrieved per question.
    progress:
        Show a tqdm progress bar.
    per_question:
        Return one row per chunker × retriever × question instead of the summary.

    Returns
    -------
    pandas.DataFrame
        By default one row per chunker × retriever (`summarize` of the per-question rows): the
        chunker's ``chunker`` label, ``strategy``, ``params``; ``retriever``, ``k``, ``questions``;
        the mean and population standard deviation (``_sd``) of each of `QUESTION_METRICS` (see
        `span_metrics`, `precision_omega`; characters counted without whitespace); and the chunker's
        structure columns (see `structure_metrics`, over all chunks of all documents) plus
        ``chunk_seconds`` (chunking all documents, after a warm-up call that loads any model) and
        ``index_ratio`` (characters indexed / source characters; above 1 with overlap).
    """
    import pandas as pd
    from tqdm.auto import tqdm

    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    labelled = _label_chunkers(chunkers)
    documents = [load_document(d) if isinstance(d, str) else d for d in (docs if docs is not None else list_documents())]
    pool = _Pool(documents)
    if questions is None:
        questions = [q for q in load_questions() if q["doc"] in pool.base]
    _check_questions(questions, pool)
    built = _make_retrievers(retrievers)
    golden = [[(pool.base[q["doc"]] + a["start"], pool.base[q["doc"]] + a["end"]) for a in q["answers"]] for q in questions]
    queries = [q["question"] for q in questions]

    rows = []
    bar = tqdm(total=len(labelled) * len(built), disable=not progress, desc="compare")
    try:
        for label, chunker in labelled.items():
            bar.set_postfix_str(label)
            try:
                chunks, seconds = _chunk_all(chunker, pool)
            except Exception as error:
                raise RuntimeError(f"chunker {label!r} failed: {error}") from error
            columns = _chunker_columns(label, chunker, chunks, seconds, pool)
            spans = np.array([(pool.base[n] + c.start, pool.base[n] + c.end) for n, c in chunks], dtype=np.int64)
            omegas = [precision_omega(spans, gold, pool.counter) for gold in golden]
            texts = [c.text for _, c in chunks]
            for retriever in built:
                retriever.index(texts)
                ranked = retriever.search(queries, k)
                for q, gold, omega, hits in zip(questions, golden, omegas, ranked):
                    metrics = span_metrics([tuple(spans[i]) for i in hits], gold, pool.counter)
                    rows.append(
                        {"retriever": retriever.name, "k": k, "question": q.get("id"), "doc": q["doc"],
                         "kind": q.get("kind"), **metrics, "precision_omega": omega, **columns}
                    )
                bar.update()
    finally:
        bar.close()
    table = pd.DataFrame(rows)
    return table if per_question else summarize(table)


def summarize(per_question: Any) -> Any:
    """Collapse `compare(..., per_question=True)` rows to one row per chunker × retriever.

    Question metrics become their mean and population standard deviation (``<metric>_sd``); the
    chunker's own columns are carried over. Row order follows first appearance.
    """
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


def guidance(summary: Any, per_question: Any = None) -> str:
    """"Which strategy when", as markdown bullets computed from a `compare` summary (never asserted).

    Each bullet states a measured winner or a measured trend with its numbers, so the advice changes
    when the measurements do: the best chunker per retriever for recall@k and for IoU; which
    retriever wins most often; how chunk size relates to recall and IoU (Spearman rank correlation
    over the chunkers, with at least four of them); what storing text twice (index ratio above 1.05)
    bought; the cheapest chunker and the one that breaks the least structure; and, given the
    per-question rows, the best chunker × retriever for each kind of question.
    """
    k = int(summary["k"].iloc[0])
    lines = []
    for retriever, table in summary.groupby("retriever", sort=False):
        recall, iou = table.loc[table["recall@k"].idxmax()], table.loc[table["iou"].idxmax()]
        lines.append(
            f"- **To find the answer at all** with {retriever}: **{recall['chunker']}** "
            f"(recall@{k} {recall['recall@k']:.0%}). **To keep the context lean**: **{iou['chunker']}** "
            f"(IoU {iou['iou']:.1%}, precision {iou['precision']:.1%}, recall@{k} {iou['recall@k']:.0%})."
        )
    recall = summary.pivot_table(index="chunker", columns="retriever", values="recall@k", sort=False)
    if recall.shape[1] > 1:
        wins = recall.idxmax(axis=1).value_counts()
        means = recall.mean()
        lines.append(
            f"- **Retriever**: {wins.index[0]} gives the best recall@{k} for {wins.iloc[0]} of {len(recall)} "
            f"chunkers; mean recall@{k} over chunkers: "
            + ", ".join(f"{name} {value:.0%}" for name, value in means.sort_values(ascending=False).items())
            + "."
        )
    chunkers = summary.groupby("chunker", sort=False).first()
    if len(chunkers) >= 4:
        by_size = summary.groupby("retriever", sort=False)[["size_mean", "recall@k", "iou"]]
        rho = by_size.apply(lambda t: t.rank().corr()["size_mean"]).mean()
        lines.append(
            f"- **Chunk size**: across the chunkers, larger chunks go with "
            f"{'higher' if rho['recall@k'] > 0 else 'lower'} recall@{k} (Spearman ρ {rho['recall@k']:+.2f}) and "
            f"{'higher' if rho['iou'] > 0 else 'lower'} IoU (ρ {rho['iou']:+.2f}), averaged over retrievers."
        )
    stored_twice = summary["index_ratio"] > 1.05
    if stored_twice.any() and not stored_twice.all():
        lines.append(
            f"- **Overlap**: chunkers that index the text more than once (index ratio "
            f"{summary.loc[stored_twice, 'index_ratio'].mean():.2f}×) average recall@{k} "
            f"{summary.loc[stored_twice, 'recall@k'].mean():.0%} and IoU {summary.loc[stored_twice, 'iou'].mean():.1%}; "
            f"the others {summary.loc[~stored_twice, 'recall@k'].mean():.0%} and "
            f"{summary.loc[~stored_twice, 'iou'].mean():.1%}."
        )
    fastest, slowest = chunkers["chunk_seconds"].idxmin(), chunkers["chunk_seconds"].idxmax()
    lines.append(
        f"- **Chunking cost**: {fastest} is fastest ({chunkers.loc[fastest, 'chunk_seconds'] * 1000:.0f} ms for "
        f"the corpus), {slowest} slowest ({chunkers.loc[slowest, 'chunk_seconds'] * 1000:.0f} ms)."
    )
    broken = chunkers[["sentences_cut", "table_rows_cut", "code_blocks_cut"]].sum(axis=1)
    intact = broken.idxmin()
    lines.append(
        f"- **Structure**: {intact} breaks the least: {chunkers.loc[intact, 'sentences_cut']:.0%} of its chunks cut "
        f"a sentence, {chunkers.loc[intact, 'table_rows_cut']:.0%} a table row, "
        f"{chunkers.loc[intact, 'code_blocks_cut']:.0%} a code block."
    )
    if per_question is not None:
        by_kind = per_question.groupby(["kind", "chunker", "retriever"], sort=False)["recall@k"].mean()
        best = by_kind.groupby(level="kind", sort=False).idxmax()
        lines.append(
            f"- **By kind of question** (best recall@{k}): "
            + "; ".join(f"{kind}: {c} with {r} ({by_kind[(kind, c, r)]:.0%})" for kind, (_, c, r) in best.items())
            + "."
        )
    return "\n".join(lines)
