"""Semantic chunking: cut where the meaning of neighbouring sentences shifts.

Both chunkers here read the text as a sequence of sentences (never crossing a paragraph break, see
`sentence_units`) and embed each sentence once with an embedder from `chunklab.models.embed`:

* `SemanticChunker` walks along the document and cuts at *breakpoints*, the gaps between sentences
  where the cosine **distance** between what comes before and what comes after is high. Which
  distances count as high is decided by a rule (`BreakpointMethod`): an absolute threshold, a
  percentile, a number of standard deviations above the mean, an interquartile fence, or a sharp
  rise (gradient). Then a minimum size merges chunks that are too small and a hard `chunk_size`
  splits those that are too big.
* `SemanticClusterChunker` chooses all boundaries at once: among every way of cutting the document
  into chunks of at most `chunk_size`, the one whose chunks hold the most similar sentences together
  (dynamic programming).

The sentence vectors and the similarity curve are computed once per text, embedder and splitter and
kept in `chunklab.caches` (``PER_TEXT``), so moving a threshold slider re-runs only the cheap part.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Callable, Iterator, Literal, Sequence

import numpy as np

from ..caches import PER_TEXT, cached
from ..constraints import Param
from ..core import Chunker, ChunkSpan, ParameterError, register
from ..models.embed import Embedder, unit_rows
from ..text.length import DEFAULT_CHUNK_SIZE, TokenizerParam, UnitParam, UnitSized, span_measure
from ..text.pack import fit, pack
from ..text.paragraphs import paragraph_spans
from ..text.sentences import SentenceMethod, SentenceSplitterParam, sentence_spans

__all__ = [
    "BREAKPOINT_METHODS",
    "BreakpointMethod",
    "SemanticChunker",
    "SemanticClusterChunker",
    "SimilarityCurve",
    "breakpoints",
    "chunk_cohesion",
    "sentence_units",
    "sentence_vectors",
    "similarity_curve",
]

BreakpointMethod = Literal["percentile", "threshold", "std_dev", "interquartile", "gradient"]

#: Per method: what `threshold` means, its allowed range and a customary value.
BREAKPOINT_METHODS: dict[str, dict[str, Any]] = {
    "percentile": {"means": "percentile of the distances", "range": (0.0, 100.0), "default": 95.0},
    "threshold": {"means": "cosine distance (1 - similarity)", "range": (0.0, 2.0), "default": 0.5},
    "std_dev": {"means": "standard deviations above the mean distance", "range": (0.0, 10.0), "default": 3.0},
    "interquartile": {"means": "interquartile ranges above the third quartile", "range": (0.0, 10.0), "default": 1.5},
    "gradient": {"means": "percentile of the rises in distance", "range": (0.0, 100.0), "default": 95.0},
}
#: The explorer's `threshold` slider per method (`SemanticChunker`): its range in 200 steps, starting
#: at the customary value.
_THRESHOLD_SLIDERS = {
    method: (low, high, (high - low) / 200, info["default"])
    for method, info in BREAKPOINT_METHODS.items()
    for low, high in [info["range"]]
}


def sentence_units(text: str, method: SentenceMethod = "regex") -> list[tuple[int, int]]:
    """The sentences of `text`, split paragraph by paragraph so that none crosses a blank line.

    A heading or a list item without final punctuation would otherwise be glued to the sentence
    after it; splitting within paragraphs keeps a paragraph break a possible boundary. Cached per
    text and splitter: a slider move (or another chunker on the same text) splits nothing again,
    which matters for the slow splitters on a text of more paragraphs than `sentence_spans` keeps.
    """
    return list(_sentence_units(text, method))


@cached(PER_TEXT)
def _sentence_units(text: str, method: SentenceMethod) -> tuple[tuple[int, int], ...]:
    units: list[tuple[int, int]] = []
    for start, end in paragraph_spans(text):
        units.extend((start + s, start + e) for s, e in sentence_spans(text[start:end], method, cache=False))
    return tuple(units)


# -- the similarity curve -----------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class SimilarityCurve:
    """Sentences of a text, their unit vectors, and the cosine distance across every gap.

    ``distances[i]`` is the distance between the sentences up to ``units[i]`` and those from
    ``units[i + 1]`` on (`buffer` more sentences on each side, averaged), so there is one distance
    per gap: ``len(distances) == max(len(units) - 1, 0)``.
    """

    units: list[tuple[int, int]]
    vectors: np.ndarray
    distances: np.ndarray
    buffer: int

    @property
    def gap_positions(self) -> np.ndarray:
        """The character offset of every gap: where the sentence after it starts."""
        return np.array([start for start, _ in self.units[1:]], dtype=np.int64)


#: Sentences (and gaps) `similarity_curve` handles at once: a few MB of float64 per array.
_CURVE_BLOCK = 2048


def _resolve(embedder: Embedder | None) -> Embedder:
    if embedder is None:
        from ..models.embed import default_embedder

        return default_embedder()
    return embedder


def sentence_vectors(
    text: str, sentence_method: SentenceMethod = "regex", embedder: Embedder | None = None
) -> tuple[list[tuple[int, int]], np.ndarray]:
    """`sentence_units` of `text` and one unit vector per sentence; `embedder` None means
    `chunklab.models.embed.default_embedder`.

    Results are cached per text, splitter and embedder object (`chunklab.caches`: an embedder that
    cannot be hashed is not cached). The embedder should be a fixed function of its input: one that
    changes state later (say, a `TfidfEmbedder` fitted afterwards) keeps its cached vectors for
    texts seen before.
    """
    return _sentence_vectors(text, sentence_method, embedder)


@cached(PER_TEXT)
def _sentence_vectors(
    text: str, sentence_method: SentenceMethod, embedder: Embedder | None
) -> tuple[list[tuple[int, int]], np.ndarray]:
    units = sentence_units(text, sentence_method)
    if not units:
        return units, np.zeros((0, 1), dtype=np.float32)
    return units, unit_rows(_resolve(embedder)([text[s:e] for s, e in units]))


def similarity_curve(
    text: str, buffer: int = 1, sentence_method: SentenceMethod = "regex", embedder: Embedder | None = None
) -> SimilarityCurve:
    """The cosine distance across every gap between sentences of `text`.

    Each side of a gap is the mean vector of the sentence next to it and `buffer` more sentences
    further out (fewer at the ends of the text). With ``buffer=0`` it is plain adjacent-sentence
    distance. The two sides never share a sentence, so a topic change is not blurred by text that
    both windows contain. Cached like `sentence_vectors` (a chunker reads the curve several times
    per call, and a slider move reads it again).
    """
    return _similarity_curve(text, buffer, sentence_method, embedder)


@cached(PER_TEXT)
def _similarity_curve(
    text: str, buffer: int, sentence_method: SentenceMethod, embedder: Embedder | None
) -> SimilarityCurve:
    units, vectors = sentence_vectors(text, sentence_method, embedder)
    n = len(units)
    if n < 2:
        return SimilarityCurve(units, vectors, np.zeros(0), buffer)
    # With S[k] the sum of the first k vectors, `padded` holds `buffer` copies of S[0] = 0, then
    # S[0..n], then `buffer` copies of S[n], so both sides of every gap are differences of two
    # slices (no index arrays). The running sums are taken block by block of sentences, along rows
    # of a transposed copy of the block, each block starting from the last sum of the one before:
    # the same additions in the same order as one cumulative sum down axis 0, several times faster,
    # and the arrays of a block stay in the processor's cache however long the text.
    b = buffer
    padded = np.empty((n + 1 + 2 * b, vectors.shape[1]))
    padded[: b + 1] = 0.0
    for lo in range(0, n, _CURVE_BLOCK):
        hi = min(lo + _CURVE_BLOCK, n)
        block = np.ascontiguousarray(vectors[lo:hi].T, dtype=np.float64)
        if lo:
            block[:, 0] += padded[b + lo]
        padded[b + 1 + lo : b + 1 + hi] = np.cumsum(block, axis=1).T
    padded[b + 1 + n :] = padded[b + n]
    distances = np.empty(n - 1)
    # Gap i (before sentence i + 1): left = S[i + 1] - S[max(i - b, 0)], right = S[min(i + 2 + b, n)] -
    # S[i + 1].
    for lo in range(0, n - 1, _CURVE_BLOCK):
        hi = min(lo + _CURVE_BLOCK, n - 1)
        left = padded[b + 1 + lo : b + 1 + hi] - padded[lo:hi]
        right = padded[2 * b + 2 + lo : 2 * b + 2 + hi] - padded[b + 1 + lo : b + 1 + hi]
        left /= np.maximum(np.linalg.norm(left, axis=1, keepdims=True), 1e-12)
        right /= np.maximum(np.linalg.norm(right, axis=1, keepdims=True), 1e-12)
        distances[lo:hi] = 1.0 - np.einsum("ij,ij->i", left, right)
    return SimilarityCurve(units, vectors, np.clip(distances, 0.0, 2.0), buffer)


def breakpoints(distances: np.ndarray, method: BreakpointMethod, threshold: float) -> tuple[np.ndarray, float]:
    """The gaps whose distance makes them breakpoints, and the cut-off that decided it.

    A gap is a breakpoint when its *distance* (dissimilarity) is above the cut-off; the cut-off is:

    * ``"threshold"``: `threshold` itself (a cosine distance in [0, 2]; 0.5 means similarity < 0.5);
    * ``"percentile"``: the `threshold`-th percentile of the distances (95: the top 5 % of gaps);
    * ``"std_dev"``: the mean distance plus `threshold` standard deviations;
    * ``"interquartile"``: the third quartile plus `threshold` interquartile ranges (Tukey's fence
      for outliers with 1.5);
    * ``"gradient"``: applied to the *rise* of the distance into each gap (its distance minus the
      previous one) instead of the distance: the `threshold`-th percentile of the rises. It finds
      abrupt changes even where the general level of distance drifts along the document.

    Returns the indices of the breakpoint gaps (sorted) and the cut-off, in the units of the scores
    it was applied to (NaN when there are no gaps).
    """
    scores = np.asarray(distances, dtype=np.float64)
    if len(scores) == 0:
        return np.zeros(0, dtype=np.int64), float("nan")
    if method == "gradient":
        scores = np.diff(scores, prepend=scores[0])
    if method == "threshold":
        cutoff = float(threshold)
    elif method in ("percentile", "gradient"):
        cutoff = float(np.percentile(scores, threshold))
    elif method == "std_dev":
        cutoff = float(scores.mean() + threshold * scores.std())
    elif method == "interquartile":
        q1, q3 = np.percentile(scores, [25, 75])
        cutoff = float(q3 + threshold * (q3 - q1))
    else:
        raise ValueError(f"method must be one of {list(BREAKPOINT_METHODS)}, got {method!r}")
    return np.flatnonzero(scores > cutoff), cutoff


def chunk_cohesion(
    text: str,
    spans: Sequence[tuple[int, int]],
    sentence_splitter: SentenceMethod = "regex",
    embedder: Embedder | None = None,
) -> list[float | None]:
    """For each span, the mean cosine similarity of the pairs of sentences that start inside it
    (None for a span with fewer than two): how much a chunk is about one thing, in the embedder's
    eyes. Works for any chunking of `text`; sentence vectors come from the same cache as the
    chunkers'."""
    units, vectors = sentence_vectors(text, sentence_splitter, embedder)
    starts = np.array([s for s, _ in units], dtype=np.int64)
    out: list[float | None] = []
    for start, end in spans:
        a, b = np.searchsorted(starts, start, side="left"), np.searchsorted(starts, end, side="left")
        out.append(_mean_pair_similarity(vectors[a:b]) if b - a >= 2 else None)
    return out


# -- greedy breakpoints -------------------------------------------------------------------------------
@register
class SemanticChunker(UnitSized, Chunker):
    """Cut between sentences where the meaning shifts: at breakpoints of the similarity curve.

    1. Split the text into sentences (`sentence_splitter`, within paragraphs) and embed each one.
    2. For every gap between two sentences, measure the cosine distance between the sentence before
       it and the one after it, each averaged with `buffer` more sentences on its side.
    3. Mark the gaps whose distance is above a cut-off as breakpoints; `method` and `threshold`
       choose the cut-off (see `breakpoints`): ``"threshold"`` (an absolute distance in [0, 2]),
       ``"percentile"`` and ``"gradient"`` (a percentile in [0, 100]), ``"std_dev"`` and
       ``"interquartile"`` (a multiplier in [0, 10]).
    4. Walk the sentences and cut at a breakpoint only when the chunk so far has at least
       `min_sentences` sentences and measures at least `min_chunk_size`; a last chunk below that minimum
       joins the one before it.
    5. Split every chunk that measures more than `chunk_size` by packing its sentences greedily
       (`chunklab.text.pack.pack`), cutting a single sentence longer than that at word boundaries.

    Size contract: every chunk measures at most `chunk_size` in `unit` (the minimum is a preference:
    the pieces of a split chunk may be smaller). Metadata: ``boundary`` says why the chunk starts where
    it does (``"start"``, ``"breakpoint"`` or ``"size"``), ``distance`` is the distance across that
    breakpoint, ``sentences`` the number of sentences the chunk holds (whole or in part).

    `embedder` is any callable ``list[str] -> (n, d)`` array; None uses the shared all-MiniLM-L6-v2
    embedder. Vectors are cached per text, so changing the other parameters does not re-embed.
    """

    name = "semantic"
    main_control = "threshold"

    def __init__(
        self,
        *,
        method: BreakpointMethod = "percentile",
        # What `threshold` means depends on `method`: its slider follows it.
        threshold: Annotated[
            float, Param(low=0.0, high=100.0, slider=(0.0, 100.0, 0.5), slider_by=("method", _THRESHOLD_SLIDERS))
        ] = 95.0,
        buffer: Annotated[int, Param(low=0, high=50, slider=(0, 5, 1))] = 1,
        min_sentences: Annotated[int, Param(low=1, slider=(1, 10, 1))] = 1,
        min_chunk_size: Annotated[int, Param(low=0, slider=(0, 1000, 10), counted_in_unit=True)] = 0,
        chunk_size: Annotated[int, Param(low=1, slider=(100, 4000, 50), counted_in_unit=True)] = DEFAULT_CHUNK_SIZE,
        unit: UnitParam = "chars",
        tokenizer: TokenizerParam = "minilm",
        sentence_splitter: SentenceSplitterParam = "regex",
        embedder: Embedder | None = None,
    ) -> None:
        self.method = method
        self.threshold = threshold
        self.buffer = buffer
        self.min_sentences = min_sentences
        self.min_chunk_size = min_chunk_size
        self.chunk_size = chunk_size
        self.unit = unit
        self.tokenizer = tokenizer
        self.sentence_splitter = sentence_splitter
        self.embedder = embedder
        self.validate()

    def check(self) -> None:
        """`threshold` must suit `method`."""
        low, high = BREAKPOINT_METHODS[self.method]["range"]
        if not low <= self.threshold <= high:
            raise ParameterError(
                f"SemanticChunker: parameter 'threshold' must be in [{low:g}, {high:g}] for method={self.method!r} "
                f"({BREAKPOINT_METHODS[self.method]['means']}), got {self.threshold!r}"
            )

    def curve(self, text: str) -> SimilarityCurve:
        """The similarity curve of `text` for this chunker's `buffer`, splitter and embedder."""
        return similarity_curve(text, self.buffer, self.sentence_splitter, self.embedder)

    def breakpoints(self, text: str) -> tuple[np.ndarray, float]:
        """The breakpoint gaps of `text` and the cut-off (see `breakpoints`)."""
        return breakpoints(self.curve(text).distances, self.method, self.threshold)

    def groups(self, text: str) -> list[tuple[int, int, int | None]]:
        """Sentence groups after the minimum rule, before the size cap: ``(first, last, gap)``, the
        sentence indices inclusive and the breakpoint gap that opens the group (None for the first)."""
        curve = self.curve(text)
        n = len(curve.units)
        if n == 0:
            return []
        cuts, _ = self.breakpoints(text)
        measure = self.measure_function()
        groups: list[tuple[int, int, int | None]] = []
        first, opened_by = 0, None
        for gap in cuts.tolist():  # gap g lies between sentence g and g + 1
            if gap + 1 - first >= self.min_sentences and (
                self.min_chunk_size == 0 or measure(text[curve.units[first][0] : curve.units[gap][1]]) >= self.min_chunk_size
            ):
                groups.append((first, gap, opened_by))
                first, opened_by = gap + 1, gap
        last_too_small = groups and (
            n - first < self.min_sentences
            or (self.min_chunk_size and measure(text[curve.units[first][0] : curve.units[-1][1]]) < self.min_chunk_size)
        )
        if last_too_small:
            head, _, opener = groups.pop()
            first, opened_by = head, opener
        groups.append((first, n - 1, opened_by))
        return groups

    def spans(self, text: str) -> Iterator[ChunkSpan]:
        """Yield each group's span, or the spans of its packed pieces when it is too big."""
        curve = self.curve(text)
        measure = self.measure_function()
        for first, last, gap in self.groups(text):
            units = curve.units[first : last + 1]
            reason = "start" if gap is None else "breakpoint"
            distance = None if gap is None else round(float(curve.distances[gap]), 4)
            for start, end, a, b in pack(text, units, self.chunk_size, measure):
                yield start, end, {"boundary": reason, "distance": distance, "sentences": b - a + 1}
                reason, distance = "size", None


# -- optimal segmentation by dynamic programming --------------------------------------------------------
@register
class SemanticClusterChunker(UnitSized, Chunker):
    """Choose every boundary at once: the segmentation whose chunks hold the most similar sentences.

    Sentences (a sentence longer than `chunk_size` is first cut at word boundaries; its pieces share
    its vector) are embedded, and every pair gets a *centred* similarity: cosine similarity minus
    the mean similarity of all pairs of sentences in the document. A chunk scores the sum of the
    centred similarities of all pairs of sentences inside it, so putting two sentences together pays
    when they are more alike than two sentences of this document usually are, and costs when they
    are less. Dynamic programming finds, among all ways to cut the document into chunks of at most
    `chunk_size`, the one with the highest total score (ties: fewer chunks).

    This is the idea of Chroma's ``ClusterSemanticChunker`` (Smith & Troynikov, "Evaluating
    Chunking Strategies for Retrieval", Chroma technical report, July 2024), which reached the best
    IoU in their evaluation. It runs in O(n * m) time and O(n + m) memory (times the vector size)
    for n sentences when at most m consecutive sentences fit in `chunk_size`: the limit bounds how
    far back a chunk can start.

    Size contract: every chunk measures at most `chunk_size` in `unit`. Metadata: ``cohesion``, the
    mean cosine similarity of the pairs of sentences in the chunk (None for a single sentence).
    """

    name = "semantic_cluster"

    def __init__(
        self,
        *,
        chunk_size: Annotated[int, Param(low=1, slider=(100, 4000, 50), counted_in_unit=True)] = DEFAULT_CHUNK_SIZE,
        unit: UnitParam = "chars",
        tokenizer: TokenizerParam = "minilm",
        sentence_splitter: SentenceSplitterParam = "regex",
        embedder: Embedder | None = None,
    ) -> None:
        self.chunk_size = chunk_size
        self.unit = unit
        self.tokenizer = tokenizer
        self.sentence_splitter = sentence_splitter
        self.embedder = embedder
        self.validate()

    def _fitting_units(self, text: str) -> tuple[list[tuple[int, int]], np.ndarray]:
        """Sentence units with any sentence longer than `chunk_size` cut by `fit` at word boundaries
        (its pieces share the sentence's vector), and one vector per unit."""
        units, vectors = sentence_vectors(text, self.sentence_splitter, self.embedder)
        measure = self.measure_function()
        pieces: list[tuple[int, int]] = []
        rows: list[int] = []
        for row, (start, end) in enumerate(units):
            too_big = measure(text[start:end]) > self.chunk_size
            parts = fit(text, start, end, self.chunk_size, measure) if too_big else [(start, end)]
            pieces.extend(parts)
            rows.extend([row] * len(parts))
        return pieces, vectors[rows] if len(rows) else vectors

    def spans(self, text: str) -> Iterator[ChunkSpan]:
        """Yield the chunks of the best segmentation, in order."""
        units, vectors = self._fitting_units(text)
        if not units:
            return
        measure = self.measure_function()
        earliest = earliest_starts(text, units, self.chunk_size, measure)
        for a, b in optimal_segments(vectors, earliest):
            cohesion = round(_mean_pair_similarity(vectors[a:b]), 4) if b - a >= 2 else None
            yield units[a][0], units[b - 1][1], {"cohesion": cohesion}


def earliest_starts(
    text: str, units: list[tuple[int, int]], limit: int, measure: Callable[[str], int]
) -> np.ndarray:
    """For every end ``j`` (exclusive), the first unit ``i`` such that units ``i .. j-1`` fit `limit`.

    Two pointers: the earliest start never moves back as the end moves forward, because a longer
    span never measures less than a shorter one inside it. Every unit alone fits.
    """
    earliest = np.zeros(len(units) + 1, dtype=np.int64)
    size = span_measure(text, measure)
    i = 0
    for j in range(1, len(units) + 1):
        while i < j - 1 and size(units[i][0], units[j - 1][1]) > limit:
            i += 1
        earliest[j] = i
    return earliest


def optimal_segments(vectors: np.ndarray, earliest: np.ndarray) -> list[tuple[int, int]]:
    """The segmentation of n unit vectors that maximises the summed centred similarity of the pairs
    inside each segment, where a segment ending before unit ``j`` may start no earlier than
    ``earliest[j]``. Returns the segments as ``(first, end)`` index pairs (end exclusive).

    One pass over the units: the scores of the segments that could still grow are updated as each
    unit joins them, so time is O(n * m * d) and memory O(n + m * d) for n units of dimension d
    when at most m consecutive units fit in a segment.
    """
    n = len(vectors)
    mean = _mean_pair_similarity(vectors)
    best = np.full(n + 1, -np.inf)
    best[0] = 0.0
    count = np.zeros(n + 1, dtype=np.int64)
    choice = np.zeros(n + 1, dtype=np.int64)
    first, open_scores = 0, np.zeros(0)  # open_scores[i - first]: score of the segment [i, j)
    for j in range(1, n + 1):
        unit = j - 1  # the unit that joins every open segment at this step
        if earliest[j] > first:
            open_scores, first = open_scores[earliest[j] - first :], int(earliest[j])
        joins = vectors[first:unit] @ vectors[unit] - mean  # centred similarity of the unit with each earlier one
        gains = np.cumsum(joins[::-1])[::-1]  # gains[i - first]: with all of units i .. unit - 1
        open_scores = np.append(open_scores + gains, 0.0)  # the unit alone scores 0
        starts = np.arange(first, j)
        totals = best[starts] + open_scores
        pick = _best_index(totals, count[starts] + 1)
        choice[j], best[j], count[j] = starts[pick], totals[pick], count[starts[pick]] + 1
    segments, j = [], n
    while j > 0:
        segments.append((int(choice[j]), j))
        j = int(choice[j])
    return segments[::-1]


def _best_index(totals: np.ndarray, chunks: np.ndarray) -> int:
    """Index of the highest total; among totals equal up to rounding, the fewest chunks, then the
    earliest start (the longest segment)."""
    top = totals.max()
    tied = np.flatnonzero(totals >= top - 1e-9 * max(1.0, abs(top)))
    return int(tied[chunks[tied] == chunks[tied].min()][0])


def _mean_pair_similarity(vectors: np.ndarray) -> float:
    """Mean cosine similarity over all pairs of distinct unit vectors, in O(n * d)."""
    n = len(vectors)
    if n < 2:
        return 0.0
    total = vectors.sum(axis=0, dtype=np.float64)
    squares = float(np.einsum("ij,ij->", vectors, vectors, dtype=np.float64))
    return (float(total @ total) - squares) / (n * (n - 1))
