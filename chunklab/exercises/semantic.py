"""Notebook 04 (semantic chunking): the standard-deviation rule, why semantic chunking beats fixed
windows but not a recursive splitter, and an optimal segmentation that the best pair first misses."""

from __future__ import annotations

import numpy as np

from ..strategies import semantic
from ..strategies.semantic import breakpoints, optimal_segments
from . import ExerciseFailed, exercise, numbers_of, pick, refuse_library

#: Exercise 1's cases: ``(distances, z)``. Random curves, ties at the cut-off, a flat curve, a short curve.
_RNG = np.random.default_rng(4)
_STD_CASES = [
    *((_RNG.random(50), z) for z in (0.0, 0.5, 1.0, 2.0)),
    (np.array([0.2, 0.2, 0.2, 0.2]), 0.0),
    (np.array([0.0, 0.0, 1.0, 1.0]), 0.0),
    (np.array([0.1, 0.3, 0.2, 0.9, 0.25, 0.15]), 1.0),
    (np.array([0.0, 0.0, 0.0, 0.8, 1.0]), 0.9),  # 0.8 lies between the population and the sample cut-off
    (np.array([0.7]), 0.0),  # one gap: two sentences
]


def solution_std_dev_breakpoints(distances, z):
    distances = np.asarray(distances, dtype=float)
    return np.flatnonzero(distances > distances.mean() + z * distances.std())


@exercise("04.1", "the standard-deviation rule", "implement", solution=solution_std_dev_breakpoints,
          wrong=(lambda: lambda d, z: np.flatnonzero(1 - np.asarray(d) > np.mean(1 - np.asarray(d)) + z * np.std(d)),
                 lambda: lambda d, z: np.flatnonzero(np.asarray(d) >= np.mean(d) + z * np.std(d)),
                 lambda: lambda d, z: np.flatnonzero(np.asarray(d) > np.mean(d) + z * np.std(d, ddof=1)),
                 lambda: lambda d, z: breakpoints(np.asarray(d, dtype=float), "std_dev", z)[0]))
def check_std_dev_breakpoints(candidate) -> str:
    """`candidate(distances, z)` must return the indices of the breakpoint gaps, as the library's
    ``breakpoints(distances, "std_dev", z)`` does, without calling it."""
    candidate = refuse_library(candidate, semantic, what="breakpoints")
    for distances, z in _STD_CASES:
        got = [int(i) for i in candidate(distances.copy(), z)]
        expected = breakpoints(distances, "std_dev", z)[0].tolist()
        if got != expected:
            raise ExerciseFailed(
                f"for the distances {np.round(distances[:8], 3).tolist()}{' ...' if len(distances) > 8 else ''} and "
                f"z={z}, your function returns the gaps {got[:10]}, the library {expected[:10]}. Hint: compare the "
                "distances themselves (high distance = change of subject), strictly above mean + z times the "
                "population standard deviation (numpy's default, ddof=0)."
            )
    return f"it agrees with the library on all {len(_STD_CASES)} cases, ties and a flat curve included."


#: Exercise 2's explanations of why semantic chunking beats fixed windows but not the recursive splitter.
SURPRISE_CHOICES = {
    "A": "BM25 compares the embeddings of the question and of each chunk, so the chunks cut where the meaning "
         "changes match a question better.",
    "B": "Semantic chunks are bigger than fixed windows, so each chunk sent holds more of an answer, and fewer "
         "answers are cut at the chunk edges.",
    "C": "Fixed windows end wherever 600 characters run out, mid-sentence; recursive and semantic chunks end "
         "between sentences: most of the gain.",
    "D": "The test questions were written after looking at the semantic chunks, so their golden answers happen "
         "to line up with semantic boundaries.",
}
_SURPRISE_HINTS = {
    "A": "BM25 counts the question's words in each chunk; it never sees an embedding.",
    "B": "every row sends the same budget whatever the chunk sizes, and the semantic chunks are smaller on "
         "average than the fixed windows (the chunkings table).",
    "D": "each golden answer is a span of the document fixed before any chunking; and the recursive splitter, "
         "which knows nothing of meaning, does as well as the semantic chunkers.",
}


def solution_surprise_choice() -> str:
    return "C"


@exercise("04.2", "why no better than recursive?", "explain", solution=solution_surprise_choice,
          wrong=(lambda: "A", lambda: "B", lambda: "D"))
def check_surprise_choice(choice) -> str:
    """One letter of `SURPRISE_CHOICES`."""
    pick(choice, SURPRISE_CHOICES, _SURPRISE_HINTS, solution_surprise_choice())
    return "compare the chunkings' chunks_cutting_sentences: all of the fixed windows, far fewer of the others."


#: Exercise 3's four sentences: cosine similarities (their mean over the six pairs is 0.5).
SIMILARITY = np.array([
    [1.0, 0.7, 0.4, 0.0],
    [0.7, 1.0, 0.8, 0.4],
    [0.4, 0.8, 1.0, 0.7],
    [0.0, 0.4, 0.7, 1.0],
])
#: At most this many sentences per chunk.
MAX_SENTENCES = 2


def _score(segments: list[tuple[int, int]]) -> float:
    """The summed centred similarity of the pairs inside the segments."""
    pairs = SIMILARITY[np.triu_indices(len(SIMILARITY), 1)]
    centred = SIMILARITY - pairs.mean()
    return float(sum(centred[i, j] for a, b in segments for i in range(a, b) for j in range(i + 1, b)))


def _optimum() -> list[tuple[int, int]]:
    """What the library's dynamic programme chooses for `SIMILARITY` and `MAX_SENTENCES`."""
    vectors = np.linalg.cholesky(SIMILARITY)  # unit vectors with exactly these cosine similarities
    n = len(SIMILARITY)
    earliest = np.array([max(0, j - MAX_SENTENCES) for j in range(n + 1)])
    return optimal_segments(vectors, earliest)


def solution_segments() -> list[tuple[int, int]]:
    return [(0, 2), (2, 4)]


@exercise("04.3", "optimal segmentation by hand", "predict", solution=solution_segments,
          wrong=(lambda: [(0, 1), (1, 3), (3, 4)], lambda: [(0, 1), (1, 2), (2, 3), (3, 4)], lambda: [(0, 3), (3, 4)],
                 lambda: [(0, 1), (1, 2), (2, 4)], lambda: [(0, 2), (3, 4)], lambda: [(0, 1.5), (1.5, 4)],
                 lambda: [(1, 3)], lambda: "[(0, 2), (2, 4)]"))
def check_segments(segments) -> str:
    """A list of ``(first, end)`` pairs (end exclusive) that cut the four sentences into chunks of at
    most `MAX_SENTENCES`, with the highest score."""
    if isinstance(segments, (str, bytes)) or not hasattr(segments, "__iter__"):
        raise ExerciseFailed(f"write a list of (first, end) pairs such as [(0, 1), (1, 3), (3, 4)], got {segments!r}")
    segments = [numbers_of(pair, 2, "a list of (first, end) pairs such as [(0, 1), (1, 3), (3, 4)]") for pair in segments]
    n = len(SIMILARITY)
    ends = [0, *(b for _, b in segments)]
    if not segments or [a for a, _ in segments] != ends[:-1] or ends[-1] != n or any(b <= a for a, b in segments):
        raise ExerciseFailed(f"the pairs must cut sentences 0 to {n - 1} in order, each chunk starting where the "
                             f"previous one ends (end exclusive), got {segments}")
    if any(b - a > MAX_SENTENCES for a, b in segments):
        raise ExerciseFailed(f"a chunk may hold at most {MAX_SENTENCES} sentences, got {segments}")
    best = _optimum()
    if _score(segments) < _score(best) - 1e-9:
        raise ExerciseFailed(
            f"{segments} scores {_score(segments):.1f}; another segmentation scores more. Hint: a chunk of two "
            "scores its pair's similarity minus 0.5 and a single sentence 0; the best pair may not be part of "
            "the best whole."
        )
    return f"{segments} scores {_score(segments):.1f}, the optimum the dynamic programme finds ({best})."
