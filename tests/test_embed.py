"""Embedders: shape, unit rows, determinism, the cache, TF-IDF/LSA."""

import numpy as np
import pytest

from chunklab.embed import MiniLMEmbedder, TfidfEmbedder, default_embedder

TEXTS = ["The cat sat on the mat.", "A kitten rested on a rug.", "Bond yields rose after the central bank spoke.", ""]


@pytest.fixture(scope="module")
def minilm():
    return MiniLMEmbedder()


def test_minilm_shape_dtype_and_unit_rows(minilm):
    vectors = minilm(TEXTS)
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert minilm([]).shape == (0, 384)


def test_minilm_is_deterministic_and_batching_does_not_change_vectors(minilm):
    fresh = MiniLMEmbedder(batch_size=1)
    np.testing.assert_allclose(fresh(TEXTS), minilm(TEXTS), atol=1e-5)


def test_minilm_captures_meaning(minilm):
    cat, kitten, bonds, _ = minilm(TEXTS)
    assert cat @ kitten > cat @ bonds + 0.2


def test_minilm_cache_counts_hits_and_misses():
    embedder = MiniLMEmbedder()
    first = embedder(["alpha beta", "gamma delta", "alpha beta"])
    assert (embedder.misses, embedder.hits) == (2, 1)
    again = embedder(["gamma delta"])
    assert (embedder.misses, embedder.hits) == (2, 2)
    np.testing.assert_array_equal(again[0], first[1])


def test_minilm_truncates_long_texts_to_max_tokens():
    short = MiniLMEmbedder(max_tokens=8)
    long_text = "harbor cache " * 50
    # Only the first 8 word pieces count, so the vector matches that of a text with the same start.
    np.testing.assert_allclose(short([long_text]), short(["harbor cache harbor cache harbor cache"]), atol=1e-5)
    with pytest.raises(ValueError, match="max_tokens"):
        MiniLMEmbedder(max_tokens=1000)


def test_minilm_rejects_a_bare_string(minilm):
    with pytest.raises(TypeError):
        minilm("one string")


def test_persist_round_trip(tmp_path):
    path = tmp_path / "cache" / "minilm.npz"
    first = MiniLMEmbedder().persist(path)
    vectors = first(TEXTS)
    assert path.is_file()
    second = MiniLMEmbedder().persist(path)
    again = second(TEXTS)
    assert (second.misses, second.hits) == (0, 4)
    np.testing.assert_array_equal(again, vectors)
    other = MiniLMEmbedder(max_tokens=16).persist(path)  # different settings: the file is not used
    other(TEXTS[:1])
    assert other.misses == 1


def test_default_embedder_is_shared():
    assert default_embedder() is default_embedder()


def test_tfidf_unfitted_fits_each_call():
    embedder = TfidfEmbedder(n_components=2)
    vectors = embedder(["red apple", "green apple", "blue sky", "grey sky"])
    assert vectors.shape == (4, 2) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


def test_tfidf_fitted_embeds_new_texts_in_the_same_space():
    corpus = ["red apple pie", "green apple tart", "blue sky today", "grey sky rain"]
    embedder = TfidfEmbedder(n_components=2).fit(corpus)
    query = embedder(["apple"])
    docs = embedder(corpus)
    assert query.shape == (1, 2)
    assert int(np.argmax(docs @ query[0])) in (0, 1)
    np.testing.assert_array_equal(embedder(corpus), docs)


def test_tfidf_without_room_for_svd_returns_tfidf_vectors():
    vectors = TfidfEmbedder()(["only one text here"])
    assert vectors.shape == (1, 4)
    np.testing.assert_allclose(np.linalg.norm(vectors), 1.0, atol=1e-6)
