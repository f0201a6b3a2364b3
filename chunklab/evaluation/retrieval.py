"""Retrievers over a list of chunk texts: BM25, dense, BM25 re-ranking, hybrid fusion, late chunking.

(Dense retrieval served by a real vector database, `chunklab.pipeline.store.ChromaRetriever`, builds
on `DenseRetriever` from the pipeline layer.)

Each `Retriever` indexes a list of texts, then returns the indices of the top-k texts per query.
`index_chunks` is the variant `chunklab.evaluation.comparison.compare` calls: it also passes each chunk's
document and offsets, which late chunking needs (the others index the texts alone).
`search` can be restricted per query to a subset of the texts (``allowed``: one boolean mask per
query, or None for no restriction), which is how metadata filters (an entity, a page, a section)
reach the retrievers. `RETRIEVERS` maps their short names to them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

import numpy as np

from ..caches import PER_PIECE, RESOURCE, cached
from ..models.embed import MINILM_DIM, MINILM_MAX_POSITIONS, Embedder, default_embedder, token_vectors

if TYPE_CHECKING:
    from ..core import Chunk

__all__ = [
    "RETRIEVERS",
    "Allowed",
    "BM25Retriever",
    "DenseRetriever",
    "HybridRetriever",
    "LateChunkingRetriever",
    "RerankRetriever",
    "Retriever",
    "allowed_masks",
    "bm25_tokens",
]

#: Per query, a boolean mask over the indexed texts (True: may be returned), or None: all may.
Allowed = Optional[Sequence[Optional[np.ndarray]]]


def _top_k(scores: np.ndarray, k: int, mask: np.ndarray | None = None) -> list[int]:
    """Indices of the `k` highest scores, best first; ties go to the lower index.

    With a `mask`, only indices where it is True are candidates (so fewer than `k` may come back).
    Only the candidates scoring at least the `k`-th best score are sorted (all of them on a tie), so
    a ranking costs little more than a pass over the scores when `k` is small.
    """
    candidates = np.arange(len(scores)) if mask is None else np.flatnonzero(np.asarray(mask, dtype=bool))
    values = scores[candidates]
    if 0 < k < len(values):
        kth = np.partition(values, len(values) - k)[len(values) - k]
        keep = np.flatnonzero(values >= kth)
        candidates, values = candidates[keep], values[keep]
    return candidates[np.argsort(-values, kind="stable")[:k]].tolist()


def allowed_masks(allowed: Allowed, n_queries: int) -> list[np.ndarray | None]:
    """One mask (or None) per query, checked for length."""
    if allowed is None:
        return [None] * n_queries
    masks = list(allowed)
    if len(masks) != n_queries:
        raise ValueError(f"allowed has {len(masks)} masks for {n_queries} queries")
    return masks


class Retriever:
    """Ranks indexed texts for a query. Subclasses set `name` and implement `index` and `search`."""

    #: Short name, the ``retriever`` column of `compare`'s table.
    name = ""

    def index(self, texts: Sequence[str]) -> None:
        """Replace the index with `texts` (chunk texts, in chunk order)."""
        raise NotImplementedError

    def index_chunks(
        self, texts: Sequence[str], chunks: Sequence[tuple[str, Chunk]], sources: Mapping[str, str]
    ) -> None:
        """Replace the index, knowing where each chunk comes from: `texts` as for `index`, `chunks`
        the ``(document name, chunk)`` pairs in the same order, `sources` every document's text by
        name. By default the texts alone are indexed."""
        self.index(texts)

    def search(self, queries: Sequence[str], k: int, allowed: Allowed = None) -> list[list[int]]:
        """For each query, the indices of the `k` best texts, best first (fewer if fewer are indexed
        or allowed). `allowed`: per query, a boolean mask over the indexed texts, or None."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


@cached(RESOURCE)
def _snowball() -> Any:
    from nltk.stem.snowball import SnowballStemmer

    return SnowballStemmer("english")


@cached(PER_PIECE)
def _stem(word: str) -> str:
    """Snowball stem of `word`, remembered: every chunking of a comparison has the same vocabulary."""
    return _snowball().stem(word)


#: bm25s' default token pattern (scikit-learn's): runs of two or more word characters.
_WORD = re.compile(r"(?u)\b\w\w+\b")


@cached(RESOURCE)
def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


def bm25_tokens(texts: Sequence[str], stem: bool = True) -> list[list[str]]:
    """The tokens `BM25Retriever` indexes for each text: what ``bm25s.tokenize(texts, stopwords="en",
    stemmer=..., return_ids=False)`` returns (lower-cased words of two or more characters, English
    stop words dropped, then Snowball stems), in one pass over each text with remembered stems. The
    tokens of the last 32,768 texts are remembered too: a comparison indexes the same chunk under
    many chunkings (each list returned is the caller's own)."""
    return [list(_text_tokens(t, stem)) for t in texts]


@cached(PER_PIECE)
def _text_tokens(text: str, stem: bool) -> tuple[str, ...]:
    """`bm25_tokens` of one text."""
    stop = _stopwords()
    words = (w for w in _WORD.findall(text.lower()) if w not in stop)
    return tuple(_stem(w) for w in words) if stem else tuple(words)


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
        return bm25_tokens(texts, self.stem)

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

    def search(self, queries: Sequence[str], k: int, allowed: Allowed = None) -> list[list[int]]:
        """Top-`k` (allowed) texts by BM25 score."""
        return [_top_k(row, k, m) for row, m in zip(self.scores(queries), allowed_masks(allowed, len(queries)))]


class DenseRetriever(Retriever):
    """Cosine similarity between embedded query and chunk texts.

    `embedder` is any callable ``list[str] -> (n, d)`` array with unit rows; by default the shared
    `chunklab.models.embed.default_embedder` (all-MiniLM-L6-v2, cached). An embedder with a ``fit`` method
    (e.g. `chunklab.models.embed.TfidfEmbedder`) is fitted on the indexed texts first. MiniLM reads at most
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
            self.embedder.fit(list(texts))  # type: ignore[union-attr]  # hasattr: not None
        self._matrix = self._embed(texts) if texts else np.zeros((0, 1), dtype=np.float32)

    def scores(self, queries: Sequence[str]) -> np.ndarray:
        """Cosine similarity of every indexed text to every query: ``(len(queries), n_texts)``."""
        if self._matrix is None or len(self._matrix) == 0:
            return np.zeros((len(queries), 0), dtype=np.float32)
        return self._embed(queries) @ self._matrix.T

    def search(self, queries: Sequence[str], k: int, allowed: Allowed = None) -> list[list[int]]:
        """Top-`k` (allowed) texts by cosine similarity."""
        return [_top_k(row, k, m) for row, m in zip(self.scores(queries), allowed_masks(allowed, len(queries)))]


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

    def search(self, queries: Sequence[str], k: int, allowed: Allowed = None) -> list[list[int]]:
        """Dense top-`candidates` (among the allowed), re-ordered by BM25 score, cut to `k`."""
        pools = self.dense.search(queries, max(k, self.candidates), allowed)
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

    def search(self, queries: Sequence[str], k: int, allowed: Allowed = None) -> list[list[int]]:
        """Top-`k` (allowed) texts by fused reciprocal rank."""
        fused: np.ndarray = sum(  # type: ignore[assignment]  # two arrays summed
            1.0 / (self.c + _ranks(s)) for s in (self.bm25.scores(queries), self.dense.scores(queries)))
        return [_top_k(row, k, m) for row, m in zip(fused, allowed_masks(allowed, len(queries)))]


def _ranks(scores: np.ndarray) -> np.ndarray:
    """Rank (1 = best, ties in index order) of every column in each row of `scores`."""
    ranks = np.empty(scores.shape, dtype=np.float64)
    order = np.argsort(-scores, axis=1, kind="stable")
    np.put_along_axis(ranks, order, np.arange(1, scores.shape[1] + 1, dtype=np.float64)[None, :], axis=1)
    return ranks


class LateChunkingRetriever(DenseRetriever):
    """Dense retrieval over *late-chunked* vectors.

    Instead of embedding each chunk alone, every document is encoded token by token in windows of
    `window` word pieces (`chunklab.models.embed.token_vectors`), and a chunk's vector is the mean of the
    vectors of the word pieces inside its span: each chunk vector has read the text around the
    chunk (Günther et al., "Late Chunking: Contextual Chunk Embeddings Using Long-Context Embedding
    Models", arXiv:2409.04669, 2024). Queries are embedded as usual by `embedder` (default: the
    shared MiniLM). Chunk offsets are needed, so only `index_chunks` works (`compare` calls it);
    ``metadata["context"]`` is not used, since the document itself is the context.
    """

    name = "late"

    def __init__(self, window: int = MINILM_MAX_POSITIONS - 2, embedder: Embedder | None = None) -> None:
        super().__init__(embedder)
        self.window = window

    def __repr__(self) -> str:
        return f"LateChunkingRetriever(window={self.window})"

    def index(self, texts: Sequence[str]) -> None:
        """Not possible from texts alone: late chunking needs each chunk's document and offsets."""
        raise TypeError("LateChunkingRetriever needs chunk offsets: call index_chunks (evaluate.compare does)")

    def index_chunks(
        self, texts: Sequence[str], chunks: Sequence[tuple[str, Chunk]], sources: Mapping[str, str]
    ) -> None:
        """Pool every chunk's vector from its document's token vectors."""
        matrix = np.zeros((len(chunks), MINILM_DIM), dtype=np.float32)
        by_doc: dict[str, list[int]] = {}
        for row, (name, _) in enumerate(chunks):
            by_doc.setdefault(name, []).append(row)
        for name, rows in by_doc.items():
            spans = [(chunks[r][1].start, chunks[r][1].end) for r in rows]
            matrix[rows] = token_vectors(sources[name], self.window).pool(spans)
        self._matrix = matrix if len(chunks) else np.zeros((0, 1), dtype=np.float32)


#: Retrievers by short name; `compare` builds each with its defaults.
RETRIEVERS: dict[str, type[Retriever]] = {
    cls.name: cls
    for cls in (BM25Retriever, DenseRetriever, RerankRetriever, HybridRetriever, LateChunkingRetriever)
}
