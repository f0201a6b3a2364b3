"""Semantic chunking: breakpoints where distance is high, the minimum and maximum, the optimal
segmentation, caching, and the similarity-curve plot and widget.

Most tests use `WordHashEmbedder`, a tiny deterministic embedder (a sentence is the normalised sum
of one fixed random vector per word), so that topics are easy to build and no model is loaded.
"""

from __future__ import annotations

import base64
import itertools
import pickle
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunklab.core import ParameterError
from chunklab.strategies import SemanticChunker, SemanticClusterChunker
from chunklab.strategies.semantic import (
    BREAKPOINT_METHODS,
    breakpoints,
    chunk_cohesion,
    optimal_segments,
    sentence_units,
    similarity_curve,
)
from chunklab.text.paragraphs import paragraph_spans
from chunklab.text.sentences import sentence_spans
from chunklab.viz.explorer import Explorer


class WordHashEmbedder:
    """Each word gets a fixed pseudo-random vector; a text is the normalised sum of its words'."""

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.calls = 0

    def __call__(self, texts):
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                word = word.strip(".,;:!?\"'")
                out[row] += np.random.default_rng(zlib.crc32(word.encode())).standard_normal(self.dim)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


def topic_text(*topics: tuple[str, int]) -> str:
    """Sentences that repeat one topic's words, topic after topic: ``("cat dog fur", 5)`` gives five."""
    sentences = []
    for words, count in topics:
        vocabulary = words.split()
        for i in range(count):
            rotated = vocabulary[i % len(vocabulary) :] + vocabulary[: i % len(vocabulary)]
            sentences.append(" ".join(rotated).capitalize() + ".")
    return " ".join(sentences)


PETS = "cats purr softly while kittens chase yarn and whiskers twitch"
MONEY = "bonds yield interest while markets price inflation and rates climb"
SHIPS = "ships sail harbours where captains anchor hulls near lighthouses"


@pytest.fixture
def embedder() -> WordHashEmbedder:
    return WordHashEmbedder()


# -- breakpoints ---------------------------------------------------------------------------------------
def test_breakpoint_is_where_distance_is_high_not_similarity(embedder) -> None:
    # Ten sentences about pets, ten about money: one gap has a high distance (low similarity).
    text = topic_text((PETS, 10), (MONEY, 10))
    chunker = SemanticChunker(method="percentile", threshold=95, chunk_size=10_000, embedder=embedder)
    chunks = chunker(text)
    change = text.index("Bonds")
    # The common mistake (the 95th percentile of *similarity*, cutting above it) would cut between
    # two of the most alike sentences instead; the cut must be at the change of topic, and only there.
    assert [c.start for c in chunks] == [0, change]
    curve = chunker.curve(text)
    similarities = 1 - curve.distances
    wrong_cut = int(np.argmax(similarities > np.percentile(similarities, 95)))
    assert curve.units[wrong_cut + 1][0] != change


@pytest.mark.parametrize(
    ("method", "threshold", "expected"),
    [
        ("threshold", 0.5, [3, 6]),
        ("percentile", 90, [3]),
        ("std_dev", 1.5, [3]),
        ("interquartile", 1.5, [3, 6]),
        ("gradient", 80, [3, 6]),
    ],
)
def test_each_method_cuts_above_its_cutoff(method, threshold, expected) -> None:
    distances = np.array([0.1, 0.12, 0.11, 0.9, 0.1, 0.12, 0.6, 0.11, 0.1, 0.12])
    cuts, cutoff = breakpoints(distances, method, threshold)
    assert cuts.tolist() == expected
    scores = np.diff(distances, prepend=distances[0]) if method == "gradient" else distances
    assert all(scores[i] > cutoff for i in cuts) and all(scores[i] <= cutoff for i in set(range(10)) - set(cuts))


def test_gradient_ignores_a_slow_drift() -> None:
    # The distance drifts upwards; one abrupt rise. A percentile of the distances cuts at the end of
    # the drift, the gradient method at the jump.
    distances = np.linspace(0.1, 0.8, 30)
    distances[10] += 0.3
    assert 10 in breakpoints(distances, "gradient", 95)[0].tolist()
    assert 10 not in breakpoints(distances, "percentile", 95)[0].tolist()


def test_breakpoints_of_no_gaps() -> None:
    cuts, cutoff = breakpoints(np.zeros(0), "percentile", 95)
    assert cuts.size == 0 and np.isnan(cutoff)


# -- the curve -------------------------------------------------------------------------------------------
def test_buffer_zero_is_adjacent_sentence_distance(embedder) -> None:
    text = topic_text((PETS, 4), (SHIPS, 4))
    curve = similarity_curve(text, buffer=0, embedder=embedder)
    vectors = embedder([text[s:e] for s, e in curve.units])
    expected = 1 - np.einsum("ij,ij->i", vectors[:-1], vectors[1:])
    np.testing.assert_allclose(curve.distances, expected, atol=1e-6)
    assert len(curve.gap_positions) == len(curve.units) - 1


def test_buffer_averages_sentences_on_each_side(embedder) -> None:
    text = topic_text((PETS, 4), (SHIPS, 4))
    curve = similarity_curve(text, buffer=1, embedder=embedder)
    v = embedder([text[s:e] for s, e in curve.units])
    left, right = v[2] + v[3], v[4] + v[5]  # the gap before sentence 4 (index 3 in distances)
    expected = 1 - left @ right / np.linalg.norm(left) / np.linalg.norm(right)
    assert curve.distances[3] == pytest.approx(expected, abs=1e-6)


def test_the_curve_is_computed_once_per_text_buffer_and_embedder(embedder) -> None:
    text = topic_text((PETS, 3), (SHIPS, 3))
    first = similarity_curve(text, buffer=1, embedder=embedder)
    assert similarity_curve(text, buffer=1, embedder=embedder) is first
    assert similarity_curve(text, buffer=2, embedder=embedder) is not first
    wrapper = type("Unhashable", (), {"__call__": lambda self, texts: embedder(texts), "__hash__": None})()
    again = similarity_curve(text, buffer=1, embedder=wrapper)
    assert again is not similarity_curve(text, buffer=1, embedder=wrapper)
    np.testing.assert_array_equal(again.distances, first.distances)


@pytest.mark.parametrize("buffer", [0, 1, 3])
def test_the_curve_of_a_long_text_is_the_plain_formula(embedder, buffer) -> None:
    """More sentences than one block of the curve's running sums: the blocks give exactly the
    distances of one cumulative sum over all sentences."""
    text = " ".join(f"Sentence {i} is about {('pets', 'ships', 'money')[i % 7 % 3]}." for i in range(2_500))
    curve = similarity_curve(text, buffer=buffer, embedder=embedder)
    v = curve.vectors
    n = len(v)
    totals = np.concatenate([np.zeros((1, v.shape[1])), np.cumsum(v, axis=0, dtype=np.float64)])
    gaps = np.arange(1, n)
    left = totals[gaps] - totals[np.maximum(gaps - 1 - buffer, 0)]
    right = totals[np.minimum(gaps + 1 + buffer, n)] - totals[gaps]
    left /= np.maximum(np.linalg.norm(left, axis=1, keepdims=True), 1e-12)
    right /= np.maximum(np.linalg.norm(right, axis=1, keepdims=True), 1e-12)
    assert n == 2_500
    np.testing.assert_array_equal(curve.distances, np.clip(1.0 - np.einsum("ij,ij->i", left, right), 0.0, 2.0))


def test_sentence_units_are_cached_but_handed_out_as_fresh_lists() -> None:
    text = "One sentence. Two sentences.\n\nA new paragraph. " * 60  # more paragraphs than segment caches
    first = sentence_units(text, "punkt")
    first.append((0, 0))
    again = sentence_units(text, "punkt")
    assert again == first[:-1] and again is not first
    paragraphs = paragraph_spans(text)
    by_paragraph = [(p0 + s, p0 + e) for p0, p1 in paragraphs for s, e in sentence_spans(text[p0:p1], "punkt")]
    assert again == by_paragraph


def test_sentence_units_never_cross_a_paragraph_break() -> None:
    text = "## A heading without a period\n\nFirst sentence here. Second one.\n\n- a list item\n- another"
    units = sentence_units(text)
    assert all("\n\n" not in text[s:e] for s, e in units)
    assert text[units[0][0] : units[0][1]] == "## A heading without a period"
    assert [text[s:e] for s, e in units][1:3] == ["First sentence here.", "Second one."]


def test_vectors_are_computed_once_per_text(embedder) -> None:
    text = topic_text((PETS, 6), (MONEY, 6), (SHIPS, 6))
    for threshold in (50, 80, 95):
        for max_size in (200, 400):
            SemanticChunker(threshold=threshold, chunk_size=max_size, buffer=threshold % 3, embedder=embedder)(text)
    assert embedder.calls == 1


def test_an_unhashable_embedder_works_but_is_not_cached() -> None:
    class Unhashable(WordHashEmbedder):
        __hash__ = None  # type: ignore[assignment]

    embedder = Unhashable()
    text = topic_text((PETS, 4), (SHIPS, 4))
    first = SemanticChunker(embedder=embedder, chunk_size=10_000)(text)
    calls = embedder.calls
    assert SemanticChunker(embedder=embedder, chunk_size=10_000)(text) == first
    assert embedder.calls > calls


# -- minimum and maximum ----------------------------------------------------------------------------------
def test_seed_setting_threshold_with_at_least_five_sentences(embedder) -> None:
    # Two sentences about money between pets and ships: too few for a chunk of their own.
    text = topic_text((PETS, 7), (MONEY, 2), (SHIPS, 8))
    chunker = SemanticChunker(method="threshold", threshold=0.5, min_sentences=5, chunk_size=100_000, embedder=embedder)
    chunks = chunker(text)
    assert [c.metadata["sentences"] for c in chunks] == [7, 10]
    assert [c.metadata["sentences"] for c in chunker.clone(min_sentences=1)(text)] == [7, 2, 8]


def test_min_size_merges_small_chunks(embedder) -> None:
    text = topic_text((PETS, 3), (MONEY, 3), (SHIPS, 3), (PETS, 3))
    loose = SemanticChunker(method="threshold", threshold=0.3, chunk_size=5_000, embedder=embedder)(text)
    tight = SemanticChunker(method="threshold", threshold=0.3, min_chunk_size=300, chunk_size=5_000, embedder=embedder)(text)
    assert len(tight) < len(loose)
    assert all(len(c) >= 300 for c in tight)


def test_max_size_is_never_exceeded_even_without_breakpoints(embedder) -> None:
    text = topic_text((PETS, 40))
    for unit, limit in [("chars", 150), ("words", 25)]:
        chunker = SemanticChunker(method="std_dev", threshold=10, chunk_size=limit, unit=unit, embedder=embedder)
        chunks = chunker(text)
        assert len(chunks) > 1 and all(chunker.measure(c.text) <= limit for c in chunks)
        assert {c.metadata["boundary"] for c in chunks[1:]} == {"size"}


def test_metadata_says_why_a_chunk_starts(embedder) -> None:
    text = topic_text((PETS, 10), (MONEY, 10))
    chunks = SemanticChunker(threshold=95, chunk_size=10_000, embedder=embedder)(text)
    assert [c.metadata["boundary"] for c in chunks] == ["start", "breakpoint"]
    assert chunks[0].metadata["distance"] is None and chunks[1].metadata["distance"] > 0.5


def test_larger_max_size_never_gives_more_chunks(embedder) -> None:
    text = topic_text((PETS, 12), (MONEY, 5), (SHIPS, 14))
    counts = [len(SemanticChunker(chunk_size=m, min_sentences=2, embedder=embedder)(text)) for m in range(100, 2000, 50)]
    assert counts == sorted(counts, reverse=True)


# -- parameters ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", list(BREAKPOINT_METHODS))
def test_threshold_range_depends_on_method(method) -> None:
    low, high = BREAKPOINT_METHODS[method]["range"]
    SemanticChunker(method=method, threshold=BREAKPOINT_METHODS[method]["default"])
    if high < 100:
        with pytest.raises(ParameterError, match=rf"threshold.*\[{low:g}, {high:g}\].*{method}"):
            SemanticChunker(method=method, threshold=high + 1)


def test_other_parameter_errors() -> None:
    with pytest.raises(ParameterError, match="min_chunk_size"):
        SemanticChunker(min_chunk_size=500, chunk_size=400)
    with pytest.raises(ParameterError, match="embedder"):
        SemanticChunker(embedder="minilm")
    with pytest.raises(ParameterError, match="method"):
        SemanticChunker(method="median")
    with pytest.raises(ParameterError, match="chunk_size"):
        SemanticClusterChunker(chunk_size=0)


def test_chunkers_pickle_to_equal_chunkers() -> None:
    for chunker in (SemanticChunker(threshold=90), SemanticClusterChunker(chunk_size=500)):
        assert pickle.loads(pickle.dumps(chunker)) == chunker


# -- optimal segmentation ----------------------------------------------------------------------------------
def brute_force(vectors: np.ndarray, earliest: np.ndarray) -> float:
    """The best total centred similarity over every segmentation allowed by `earliest`."""
    n = len(vectors)
    sims = vectors @ vectors.T
    mean = (sims.sum() - np.trace(sims)) / (n * (n - 1)) if n > 1 else 0.0
    best = -np.inf
    for cuts in itertools.product([False, True], repeat=n - 1):
        bounds = [0, *[i + 1 for i, cut in enumerate(cuts) if cut], n]
        if any(a < earliest[b] for a, b in zip(bounds, bounds[1:])):
            continue
        total = sum(sims[i, j] - mean for a, b in zip(bounds, bounds[1:]) for i in range(a, b) for j in range(i + 1, b))
        best = max(best, total)
    return best


@settings(max_examples=40)
@given(data=st.data(), n=st.integers(1, 8), dim=st.integers(2, 5))
def test_dynamic_programming_finds_the_optimum(data, n, dim) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 10_000)))
    vectors = rng.standard_normal((n, dim))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    reach = data.draw(st.integers(1, n))
    earliest = np.array([0] + [max(0, j - reach) for j in range(1, n + 1)])
    segments = optimal_segments(vectors, earliest)
    assert segments[0][0] == 0 and segments[-1][1] == n
    assert all(a == b for (_, a), (b, _) in zip(segments, segments[1:]))
    assert all(a >= earliest[b] for a, b in segments)
    sims = vectors @ vectors.T
    mean = (sims.sum() - np.trace(sims)) / (n * (n - 1)) if n > 1 else 0.0
    total = sum(sims[i, j] - mean for a, b in segments for i in range(a, b) for j in range(i + 1, b))
    assert total == pytest.approx(brute_force(vectors, earliest), abs=1e-9)


def test_cluster_chunker_recovers_topic_blocks(embedder) -> None:
    text = topic_text((PETS, 5), (MONEY, 5), (SHIPS, 5))
    chunks = SemanticClusterChunker(chunk_size=600, embedder=embedder)(text)
    assert [c.start for c in chunks] == [0, text.index("Bonds"), text.index("Ships")]
    assert all(c.metadata["cohesion"] > 0.5 for c in chunks)


def test_chunk_cohesion_is_the_mean_pairwise_similarity(embedder) -> None:
    text = topic_text((PETS, 3), (SHIPS, 3))
    units = sentence_units(text)
    v = embedder([text[s:e] for s, e in units])
    whole, single = chunk_cohesion(text, [(0, len(text)), units[0]], embedder=embedder)
    pairs = [v[i] @ v[j] for i in range(6) for j in range(i + 1, 6)]
    assert whole == pytest.approx(np.mean(pairs), abs=1e-6) and single is None


def test_cluster_chunker_size_contract_and_long_sentences(embedder) -> None:
    text = topic_text((PETS, 6)) + " " + "word " * 400 + ". " + topic_text((SHIPS, 6))
    chunker = SemanticClusterChunker(chunk_size=120, embedder=embedder)
    chunks = chunker(text)
    assert all(len(c) <= 120 and text[c.start : c.end] == c.text for c in chunks)
    assert [c.start for c in chunks] == sorted(c.start for c in chunks)


# -- explore speed and the picture ------------------------------------------------------------------------
def test_explore_rerender_does_not_re_embed(embedder) -> None:
    text = topic_text((PETS, 30), (MONEY, 30), (SHIPS, 30))
    explorer = Explorer(SemanticChunker, text, embedder=embedder)
    first = explorer.render()
    for max_size in (300, 450, 900):
        assert explorer.render(chunk_size=max_size) != first
    explorer.render(threshold=80.0, buffer=2)
    assert embedder.calls == 1


def test_similarity_plot_draws_curve_cutoff_breakpoints_and_chunks(embedder) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from chunklab.viz.curves import similarity_plot

    text = topic_text((PETS, 10), (MONEY, 10), (SHIPS, 10))
    chunker = SemanticChunker(threshold=90, chunk_size=10_000, embedder=embedder)
    figure = similarity_plot(chunker, text, sections=[text.index("Bonds")])
    top, bottom = figure.axes
    cuts, cutoff = chunker.breakpoints(text)
    assert len(top.lines[0].get_xdata()) == len(chunker.curve(text).units) - 1
    assert any(np.allclose(line.get_ydata(), cutoff) for line in top.lines)
    assert sum(len(c.get_offsets()) for c in top.collections) == len(cuts)
    assert len(bottom.patches) == len(chunker(text))


def test_similarity_widget_switches_threshold_range_with_method(embedder) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from chunklab.viz.curves import similarity_widget

    text = topic_text((PETS, 8), (MONEY, 8))
    widget = similarity_widget(text, embedder=embedder)
    threshold = widget.controls["threshold"]
    assert (threshold.min, threshold.max, threshold.value) == (0, 100, 95)
    widget.controls["method"].value = "threshold"
    assert (threshold.min, threshold.max, threshold.value) == (0, 2, 0.5)
    threshold.value = 0.2
    widget.controls["chunk_size"].value = 400
    assert embedder.calls == 1
    bundle = widget._repr_mimebundle_()  # a saved notebook keeps the plot, not "VBox(...)"
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG") and "VBox(" not in bundle["text/plain"]
