"""Topic chunking: cut where the vocabulary, or the mixture of topics, changes.

Three methods, one chunker (`TopicChunker`):

* ``"texttiling"``: Hearst's TextTiling (Computational Linguistics 23(1), 1997) through NLTK's
  `TextTilingTokenizer`: pseudo-sentences of 20 words, the lexical similarity of the blocks on each
  side of every gap, cuts at the deepest valleys, moved to the nearest paragraph break. It needs
  paragraph breaks (blank lines): a text without them stays one segment.
* ``"lda"`` and ``"nmf"``: a topic model (LDA as scikit-learn's `LatentDirichletAllocation` fits
  it, vectorised here, or scikit-learn's `NMF`) is fitted to windows of a few sentences of the
  document; every sentence gets a topic mixture from its window of `buffer` neighbours and a
  dominant topic, and a boundary falls where the dominant topic changes, after runs shorter than
  `min_sentences` are absorbed by their neighbours.

Each chunk's ``topic`` metadata holds the top words of its topic. Segments longer than `chunk_size`
are split by packing their sentences (`chunklab.text.pack`). Models and scores are computed once per
text and cached at module level: a topic model is fitted once per text, method and number of
topics (0.01-0.2 s of CPU on 50 KB of text), and `buffer`, `min_sentences` and `chunk_size` changes
only re-read and regroup it.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left
from dataclasses import dataclass
from typing import Annotated, Any, Iterator, Literal, Sequence, cast

import numpy as np

from ..caches import PER_TEXT, RESOURCE, cached
from ..constraints import Param
from ..core import Chunker, ChunkSpan, register
from ..models.lda import fit_lda, lda_e_step
from ..text.length import DEFAULT_CHUNK_SIZE, TokenizerParam, UnitParam, UnitSized
from ..text.pack import pack
from ..text.sentences import SentenceMethod, SentenceSplitterParam
from .semantic import sentence_units

__all__ = ["TextTiler", "TilingResult", "TopicChunker", "TopicMethod", "TopicProfile", "topic_profile"]

TopicMethod = Literal["texttiling", "lda", "nmf"]
#: When a parameter of the topic models acts: with ``method`` one of them (`TopicChunker`).
_MODELS = {"method": ("lda", "nmf")}

#: Words the topic models and the topic labels read: letters only, at least three of them.
_WORD_PATTERN = r"(?u)\b[^\W\d_]{3,}\b"
_TOP_WORDS = 6


# -- TextTiling -----------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class TilingResult:
    """What TextTiling computed for a text: one score per gap between pseudo-sentences, and the cuts.

    `gap_scores` (lexical similarity of the blocks on either side), `smoothed`, `depths` and
    `marked` (1 where a boundary was chosen) have one entry per gap; `gap_offsets` places each gap
    in the text (the start of the first word after it); `boundaries` are the final cut offsets,
    each at a paragraph break.
    """

    gap_scores: np.ndarray
    smoothed: np.ndarray
    depths: np.ndarray
    marked: np.ndarray
    gap_offsets: np.ndarray
    boundaries: list[int]


class TextTiler:
    """NLTK's TextTiling with scikit-learn's English stop words and linear-time steps.

    NLTK's `TextTilingTokenizer` needs the ``stopwords`` corpus from nltk_data (a download); this
    one hands it scikit-learn's built-in list instead. NLTK's block comparison loops over the whole
    vocabulary at every gap (3.7 s on the 37 KB article here, growing with the square of the text),
    and its depth scores, boundary choice and snapping to paragraphs copy or rescan lists per gap.
    Those steps are re-implemented here with sparse matrices and single passes (with NLTK's default
    cut-off policy); the rest (the tokenisation into pseudo-sentences, the paragraph breaks, the
    smoothing) is NLTK's own tokenizer at work. The tests check that the output is NLTK's,
    boundary for boundary.

    `boundaries(text)` returns the cut offsets; `tokenize(text)` the segments, as NLTK does.
    """

    def __init__(self, w: int = 20, k: int = 10, stopwords: Sequence[str] | None = None) -> None:
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        self.w, self.k = w, k
        self.stopwords = frozenset(ENGLISH_STOP_WORDS if stopwords is None else stopwords)

    @functools.cached_property
    def nltk(self):  # noqa: ANN201 - nltk.tokenize.TextTilingTokenizer, imported on first use
        """The NLTK tokenizer doing the tokenisation and smoothing (NLTK loads only when needed)."""
        from nltk.tokenize.texttiling import TextTilingTokenizer

        return TextTilingTokenizer(w=self.w, k=self.k, stopwords=sorted(self.stopwords))

    def tokenize(self, text: str) -> list[str]:
        """The segments of `text`, exactly as NLTK's tokenizer returns them (they join to `text`)."""
        bounds = [0, *self.boundaries(text), len(text)]
        return [text[a:b] for a, b in zip(bounds, bounds[1:]) if a < b] or [text]

    def boundaries(self, text: str) -> list[int]:
        """The offsets at which a new segment starts (never 0), sorted."""
        return self.analyse(text).boundaries

    def analyse(self, text: str) -> TilingResult:
        """Run TextTiling on `text` and keep every intermediate score (see `TilingResult`).

        A text NLTK would reject (no paragraph break between its words, too few pseudo-sentences
        to smooth) gets no boundaries.
        """
        nothing = np.zeros(0)
        empty = TilingResult(nothing, nothing, nothing, nothing.astype(np.int64), nothing.astype(np.int64), [])
        tiler = self.nltk
        paragraph_breaks = tiler._mark_paragraph_breaks(text)
        nopunct = re.sub(r"[^a-z\-' \n\t]", "", text.lower())  # the characters NLTK keeps
        if len(tiler._mark_paragraph_breaks(nopunct)) < 2:
            return empty
        sequences = tiler._divide_to_tokensequences(nopunct)
        kept = [[word for word, _ in ts.wrdindex_list if word not in self.stopwords] for ts in sequences]
        gap_scores = self._block_scores(kept)
        if len(gap_scores) < tiler.smoothing_width + 1:
            return empty
        smoothed = np.asarray(tiler._smooth_scores(list(gap_scores)), dtype=np.float64)
        depths = _depth_scores(smoothed)
        marked = _mark_boundaries(depths)
        offsets = _gap_offsets(text, len(gap_scores), self.w)
        cuts = self._normalise(text, marked, paragraph_breaks)
        return TilingResult(gap_scores, smoothed, depths, marked, offsets, [b for b in cuts if b != 0])

    def _block_scores(self, words: list[list[str]]) -> np.ndarray:
        """NLTK's block comparison: cosine similarity of the word counts of the (up to) `k`
        pseudo-sentences before and after each gap, as sparse matrix products."""
        from scipy import sparse

        gaps = len(words) - 1
        if gaps < 1:
            return np.zeros(0)
        vocabulary: dict[str, int] = {}
        rows, cols = [], []
        for row, sequence in enumerate(words):
            for word in sequence:
                rows.append(row)
                cols.append(vocabulary.setdefault(word, len(vocabulary)))
        counts = sparse.csr_matrix(
            (np.ones(len(rows)), (rows, cols)), shape=(len(words), max(len(vocabulary), 1))
        )
        gap = np.arange(gaps)
        size = np.where(gap < self.k - 1, gap + 1, np.where(gap > gaps - self.k, gaps - gap, self.k))
        left = _band(gap - size + 1, gap + 1, len(words))
        right = _band(gap + 1, np.minimum(gap + size + 1, len(words)), len(words))
        before, after = left @ counts, right @ counts

        def row_sums(matrix) -> np.ndarray:  # noqa: ANN001 - a scipy sparse matrix
            return np.asarray(matrix.sum(axis=1)).ravel()

        dividend = row_sums(before.multiply(after))
        divisor = np.sqrt(row_sums(before.multiply(before)) * row_sums(after.multiply(after)))
        return np.divide(dividend, divisor, out=np.zeros(gaps), where=divisor > 0)

    def _normalise(self, text: str, marked: np.ndarray, paragraph_breaks: list[int]) -> list[int]:
        """NLTK's `_normalize_boundaries` in one pass: each marked gap moves to the paragraph break
        nearest to where NLTK's word count places it (the earlier break on a tie)."""
        ends = [m.end() for m in re.finditer(r"[^ \t\n]+[ \t\n]", text)]
        cuts: list[int] = []
        best: int | None = None
        trigger = 0
        for g in range(len(marked)):
            needed = max(g * self.w, self.w)  # NLTK moves to gap g once more than this many words are seen
            if needed >= len(ends):
                break
            trigger = max(ends[needed], trigger + 1)
            if trigger > len(text):
                break
            if marked[g] != 1:
                continue
            if trigger < len(text) and paragraph_breaks:
                i = bisect_left(paragraph_breaks, trigger)
                if i == len(paragraph_breaks):  # past the last break: that break is the nearest
                    best = paragraph_breaks[-1]
                elif i > 0 and trigger - paragraph_breaks[i - 1] <= paragraph_breaks[i] - trigger:
                    best = paragraph_breaks[i - 1]
                else:
                    best = paragraph_breaks[i]
            if best is not None and best not in cuts:
                cuts.append(best)
        return cuts


def _band(first: np.ndarray, stop: np.ndarray, width: int):
    """A sparse 0/1 matrix with row g holding ones in columns ``first[g] .. stop[g] - 1``."""
    from scipy import sparse

    lengths = np.maximum(stop - first, 0)
    rows = np.repeat(np.arange(len(first)), lengths)
    cols = np.concatenate([np.arange(a, b) for a, b in zip(first, stop)]) if len(first) else np.zeros(0, dtype=np.int64)
    return sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(first), width))


def _depth_scores(scores: np.ndarray) -> np.ndarray:
    """NLTK's depth scores (how far each gap lies below the peaks it climbs to on either side) in
    linear time; the first and last `clip` gaps keep depth 0, as in NLTK."""
    n = len(scores)
    left, right = scores.copy(), scores.copy()
    for i in range(1, n):
        if scores[i - 1] >= scores[i]:
            left[i] = left[i - 1]
    for i in range(n - 2, -1, -1):
        if scores[i + 1] >= scores[i]:
            right[i] = right[i + 1]
    depths = np.zeros(n)
    clip = min(max(n // 10, 2), 5)
    for i in range(clip, n - clip):
        depths[i] = left[i] + right[i] - 2 * scores[i]
    return depths


def _mark_boundaries(depths: np.ndarray) -> np.ndarray:
    """NLTK's boundary choice with its default cut-off policy: gaps deeper than the mean depth
    minus half a standard deviation, deepest first, each skipped if a chosen gap lies within 3."""
    marked = np.zeros(len(depths), dtype=np.int64)
    if len(depths) == 0:
        return marked
    average = sum(depths.tolist()) / len(depths)
    spread = np.std(depths)
    cutoff = average - spread / 2.0
    candidates = sorted(((d, i) for i, d in enumerate(depths.tolist()) if d > cutoff), reverse=True)
    for _, i in candidates:
        if not marked[max(0, i - 3) : i + 4].any():
            marked[i] = 1
    return marked


def _gap_offsets(text: str, gaps: int, w: int) -> np.ndarray:
    """Where each gap falls in `text`: the start of word ``(g + 1) * w`` (words split at whitespace,
    close to NLTK's own placement)."""
    starts = [m.start() for m in re.finditer(r"\S+", text)]
    at = [min((g + 1) * w, len(starts) - 1) for g in range(gaps)]
    return np.array([starts[i] for i in at], dtype=np.int64) if starts else np.zeros(gaps, dtype=np.int64)


@cached(PER_TEXT)
def _tiling(text: str, k: int) -> TilingResult:
    return TextTiler(k=k).analyse(text)


# -- topic models -----------------------------------------------------------------------------------------
#: The topic models learn their topics from windows of this many sentences on each side of a sentence.
_FIT_CONTEXT = 2
#: LDA learns from the windows around every third sentence only (NMF from all of them): neighbouring
#: windows share most of their sentences, and a third of the documents makes its fit three times cheaper.
_LDA_STRIDE = 3
#: At most this many E-step updates per document and pass (scikit-learn's ``max_doc_update_iter``,
#: 100 by default): a few documents that never settle cost the whole vectorised E-step an update
#: each; 30 makes the fit about a third faster and leaves the segmentation measured in notebook 12
#: as good (mean Pk and WindowDiff over five random seeds within one standard deviation).
_LDA_DOCUMENT_STEPS = 30


@dataclass(frozen=True, eq=False)
class TopicProfile:
    """A topic model's view of a text: sentences, their topic mixtures and the topics' top words.

    ``mixtures[i]`` is sentence i's distribution over topics (rows sum to 1); ``words[t]`` the top
    words of topic t. Empty (no topics) when the text has fewer than two sentences or no words.
    """

    units: list[tuple[int, int]]
    mixtures: np.ndarray
    words: list[tuple[str, ...]]

    @property
    def dominant(self) -> np.ndarray:
        """Each sentence's most likely topic."""
        return self.mixtures.argmax(axis=1) if self.mixtures.size else np.zeros(len(self.units), dtype=np.int64)


def topic_profile(
    text: str, method: Literal["lda", "nmf"] = "lda", n_topics: int = 5, buffer: int = 2,
    sentence_splitter: SentenceMethod = "regex",
) -> TopicProfile:
    """Fit a topic model to the sentences of `text` and return every sentence's topic mixture.

    A sentence alone has too few words for a topic model, so the model learns its topics from
    windows of five sentences (a sentence and two on each side): ``"lda"`` fits LDA (the batch
    variational Bayes of scikit-learn's `LatentDirichletAllocation`, vectorised here) to the word
    counts of the windows around every third sentence; ``"nmf"`` fits scikit-learn's `NMF` to the
    TF-IDF weights of all the windows. Each sentence's mixture is then read from its window of
    `buffer` sentences on each side: for LDA, the sum over the window of every sentence's expected
    topic counts (how many of its words the fitted model assigns to each topic); for NMF, the
    window's TF-IDF weights projected on the fitted topics.

    English stop words (scikit-learn's list) and words of fewer than three letters are left out.
    A text with fewer sentences or distinct words than `n_topics` gets that many topics instead.
    Deterministic (fixed random state). The model is fitted once per text, method and `n_topics`
    and reused for every `buffer`; mixtures are cached per setting.
    """
    return _profile(text, method, n_topics, buffer, sentence_splitter)


@dataclass(frozen=True, eq=False)
class _SentenceCounts:
    """The sentences of a text, their word counts (a sparse sentences x words matrix), the words."""

    units: list[tuple[int, int]]
    counts: Any  # scipy.sparse.csr_matrix of float64
    vocabulary: np.ndarray


@cached(PER_TEXT)
def _sentence_counts(text: str, sentence_method: SentenceMethod) -> _SentenceCounts | None:
    """The word counts of the sentences of `text`; None if it has fewer than two sentences or no word."""
    from sklearn.feature_extraction.text import CountVectorizer

    units = sentence_units(text, sentence_method)
    if len(units) < 2:
        return None
    vectorizer = CountVectorizer(stop_words="english", token_pattern=_WORD_PATTERN)
    try:
        counts = vectorizer.fit_transform([text[s:e] for s, e in units])
    except ValueError:  # not a single word left
        return None
    return _SentenceCounts(units, counts.astype(np.float64).tocsr(), vectorizer.get_feature_names_out())


def _windows(n: int, context: int, stride: int = 1):
    """The band matrix that sums, for every `stride`-th sentence of `n`, the rows of the sentences
    within `buffer` of it (clipped at the ends of the text)."""
    centres = np.arange(0, n, stride)
    return _band(np.maximum(centres - context, 0), np.minimum(centres + context + 1, n), n)


@dataclass(frozen=True, eq=False)
class _FittedTopics:
    """A topic model fitted to a text: the topics' top words, and what `_profile` needs to read
    any window's topic mixture (LDA: each sentence's expected topic counts; NMF: the model, its
    TF-IDF weighting and the mixtures of the windows it was fitted to)."""

    words: list[tuple[str, ...]]
    sentence_topics: np.ndarray | None = None
    nmf: Any = None
    tfidf: Any = None
    fitted_mixtures: np.ndarray | None = None


#: Enough NMF iterations for every corpus document to converge (the slowest needs 488).
_NMF_MAX_ITER = 1000


@cached(PER_TEXT)
def _fitted(text: str, method: str, n_topics: int, sentence_method: SentenceMethod) -> _FittedTopics | None:
    """The topic model of `text` for `method` and `n_topics` (independent of `buffer`)."""
    sentences = _sentence_counts(text, sentence_method)
    if sentences is None:
        return None
    counts = sentences.counts
    n_topics = min(n_topics, *counts.shape)  # NMF cannot find more topics than sentences or words
    if method == "lda":
        windows = (_windows(counts.shape[0], _FIT_CONTEXT, _LDA_STRIDE) @ counts).tocsr()
        components, exp_topic_word = fit_lda(windows, n_topics, max_doc_update_iter=_LDA_DOCUMENT_STEPS)
        prior = 1.0 / n_topics
        start = np.ones((counts.shape[0], n_topics))
        gamma = lda_e_step(counts, exp_topic_word, prior, start, max_iter=_LDA_DOCUMENT_STEPS)
        return _FittedTopics(_topic_words(components, sentences.vocabulary), sentence_topics=gamma - prior)
    from sklearn.decomposition import NMF
    from sklearn.feature_extraction.text import TfidfTransformer

    windows = (_windows(counts.shape[0], _FIT_CONTEXT) @ counts).tocsr()
    tfidf = TfidfTransformer(sublinear_tf=True).fit(windows)
    # max_iter: the corpus's slowest documents (the stations CSV, the FAQ page) converge within 500
    # iterations at scikit-learn's tolerance; 400 stopped them short with a ConvergenceWarning.
    model = NMF(n_components=n_topics, init="nndsvda", max_iter=_NMF_MAX_ITER, random_state=0)
    # errstate: on tiny inputs NMF's error report takes the square root of a rounding-error negative
    with _one_blas_thread(), np.errstate(invalid="ignore"):
        mixtures = model.fit_transform(tfidf.transform(windows))
    return _FittedTopics(_topic_words(model.components_, sentences.vocabulary), nmf=model, tfidf=tfidf,
                         fitted_mixtures=mixtures)


@cached(PER_TEXT)
def _profile(text: str, method: str, n_topics: int, context: int, sentence_method: SentenceMethod) -> TopicProfile:
    units = sentence_units(text, sentence_method)
    fitted = _fitted(text, method, n_topics, sentence_method)
    if fitted is None:
        return TopicProfile(units, np.zeros((len(units), 0)), [])
    n = len(units)
    if method == "lda":
        mixtures = _windows(n, context) @ fitted.sentence_topics
    elif context == _FIT_CONTEXT:
        mixtures = fitted.fitted_mixtures
    else:
        windows = (_windows(n, context) @ cast(_SentenceCounts, _sentence_counts(text, sentence_method)).counts).tocsr()
        with _one_blas_thread():
            mixtures = fitted.nmf.transform(fitted.tfidf.transform(windows))
    k = len(fitted.words)
    totals = mixtures.sum(axis=1, keepdims=True)
    mixtures = np.where(totals > 0, mixtures / np.where(totals > 0, totals, 1), 1.0 / k)
    return TopicProfile(units, mixtures, fitted.words)


def _topic_words(components: np.ndarray, vocabulary: Sequence[str] | np.ndarray) -> list[tuple[str, ...]]:
    return [_top_words(row, vocabulary) for row in components]


@cached(RESOURCE)
def _blas_controller():  # noqa: ANN202 - a threadpoolctl.ThreadpoolController (finding the libraries takes ms)
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _one_blas_thread():  # noqa: ANN202 - a context manager
    """Run the BLAS calls inside on one thread (call it once scikit-learn's NMF is imported, so that
    every BLAS library is loaded). NMF's products here are of a few hundred rows by a few topics: on
    several threads they cost more CPU, and on a busy machine more time, than on one (several times
    more for a 50 KB text on two shared cores, where idle OpenBLAS threads spin)."""
    return _blas_controller().limit(limits=1, user_api="blas")


def _top_words(weights: np.ndarray, vocabulary: Sequence[str] | np.ndarray) -> tuple[str, ...]:
    """The (at most six) words with the highest positive weights, best first."""
    return tuple(str(vocabulary[j]) for j in np.argsort(-weights, kind="stable")[:_TOP_WORDS] if weights[j] > 0)


def _runs(labels: np.ndarray, min_length: int) -> list[tuple[int, int]]:
    """Runs of equal labels as ``(first, end)`` (end exclusive). A run shorter than `min_length`
    joins the run before it (a short first run joins the run after it, taking its label), and
    neighbours that end up with the same label merge."""
    runs: list[list[int]] = []  # [first, end, label]
    for i, label in enumerate(labels.tolist()):
        if runs and runs[-1][2] == label:
            runs[-1][1] = i + 1
        else:
            runs.append([i, i + 1, label])
    merged: list[list[int]] = []
    for first, end, label in runs:
        if merged and (end - first < min_length or merged[-1][2] == label):
            merged[-1][1] = end
        elif merged and merged[-1][1] - merged[-1][0] < min_length:
            merged[-1][1:] = [end, label]
        else:
            merged.append([first, end, label])
    return [(a, b) for a, b, _ in merged]


# -- the chunker -------------------------------------------------------------------------------------------
@register
class TopicChunker(UnitSized, Chunker):
    """Cut where the topic changes: TextTiling, or the dominant topic of an LDA or NMF model.

    * ``method="texttiling"``: NLTK's TextTiling (`TextTiler`) with blocks of `block`
      pseudo-sentences of 20 words on each side of a gap; cuts fall on paragraph breaks, so a text
      without blank lines stays one segment.
    * ``method="lda"`` / ``"nmf"``: a topic model with `n_topics` topics over the sentences, each
      seen with `buffer` sentences on either side (`topic_profile`); a segment is a run of
      sentences with the same dominant topic, runs shorter than `min_sentences` joining a
      neighbour.

    Segments are then split into chunks of at most `chunk_size` (in `unit`) by packing their
    sentences. Metadata: ``topic`` (the top words of the segment's topic, comma-separated; for
    TextTiling the segment's most distinctive words), ``topic_id`` (the topic number, or the segment
    number for TextTiling), ``segment`` (the segment's index, shared by the chunks it was split
    into).

    Size contract: every chunk measures at most `chunk_size` in `unit`.
    """

    name = "topic"
    main_control = "block"

    def __init__(
        self,
        *,
        method: TopicMethod = "texttiling",
        block: Annotated[int, Param(low=1, slider=(2, 30, 1), active_when={"method": ("texttiling",)})] = 10,
        n_topics: Annotated[int, Param(low=2, high=50, slider=(2, 15, 1), active_when=_MODELS)] = 5,
        buffer: Annotated[int, Param(low=0, high=20, slider=(0, 8, 1), active_when=_MODELS)] = 2,
        min_sentences: Annotated[int, Param(low=1, slider=(1, 20, 1), active_when=_MODELS)] = 3,
        chunk_size: Annotated[int, Param(low=1, slider=(200, 6000, 100), counted_in_unit=True)] = DEFAULT_CHUNK_SIZE,
        unit: UnitParam = "chars",
        tokenizer: TokenizerParam = "minilm",
        sentence_splitter: SentenceSplitterParam = "regex",
    ) -> None:
        self.method = method
        self.block = block
        self.n_topics = n_topics
        self.buffer = buffer
        self.min_sentences = min_sentences
        self.chunk_size = chunk_size
        self.unit = unit
        self.tokenizer = tokenizer
        self.sentence_splitter = sentence_splitter
        self.validate()

    def profile(self, text: str) -> TopicProfile:
        """The topic model's view of `text` (`topic_profile`) for ``"lda"``/``"nmf"``."""
        if self.method == "texttiling":
            raise ValueError("profile() needs method 'lda' or 'nmf'; use tiling() for TextTiling")
        return topic_profile(text, self.method, self.n_topics, self.buffer, self.sentence_splitter)

    def tiling(self, text: str) -> TilingResult:
        """TextTiling's scores and cuts for `text` (cached per text and `block`)."""
        return _tiling(text, self.block)

    def segments(self, text: str) -> list[tuple[int, int, int, str]]:
        """The topic segments before the size cap: ``(first, end, topic_id, topic words)`` over
        `sentence_units` (end exclusive)."""
        units = sentence_units(text, self.sentence_splitter)
        if not units:
            return []
        if self.method == "texttiling":
            return self._tiling_segments(text, units)
        profile = self.profile(text)
        if not profile.words:
            return [(0, len(units), 0, "")]
        out = []
        for first, end in _runs(profile.dominant, self.min_sentences):
            topic = int(profile.mixtures[first:end].mean(axis=0).argmax())
            out.append((first, end, topic, ", ".join(profile.words[topic])))
        return out

    def _tiling_segments(self, text: str, units: list[tuple[int, int]]) -> list[tuple[int, int, int, str]]:
        starts = [s for s, _ in units]
        cuts = [bisect_left(starts, b) for b in self.tiling(text).boundaries]
        edges = sorted({0, *(c for c in cuts if 0 < c < len(units)), len(units)})
        pieces = list(zip(edges, edges[1:]))
        labels = _distinctive_words(text, units, pieces)
        return [(a, b, i, labels[i]) for i, (a, b) in enumerate(pieces)]

    def spans(self, text: str) -> Iterator[ChunkSpan]:
        """Yield each segment, split into packed pieces where it exceeds `chunk_size`."""
        units = sentence_units(text, self.sentence_splitter)
        measure = self.measure_function()
        for index, (first, end, topic, words) in enumerate(self.segments(text)):
            for start, stop, _, _ in pack(text, units[first:end], self.chunk_size, measure):
                yield start, stop, {"topic": words, "topic_id": topic, "segment": index}


@cached(PER_TEXT)
def _label_cache(text: str, units: tuple, pieces: tuple) -> tuple[str, ...]:
    from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

    documents = [text[units[a][0] : units[b - 1][1]] for a, b in pieces]
    try:
        counts = CountVectorizer(stop_words="english", token_pattern=_WORD_PATTERN).fit(documents)
    except ValueError:
        return tuple("" for _ in pieces)
    vocabulary = counts.get_feature_names_out()
    weights = TfidfTransformer(sublinear_tf=True).fit_transform(counts.transform(documents)).toarray()
    return tuple(", ".join(_top_words(row, vocabulary)) for row in weights)


def _distinctive_words(text: str, units: list[tuple[int, int]], pieces: list[tuple[int, int]]) -> tuple[str, ...]:
    """For each segment, its words with the highest TF-IDF weight among the document's segments."""
    return _label_cache(text, tuple(units), tuple(pieces))
