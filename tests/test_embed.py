"""Embedders: shape, unit rows, determinism, the cache, TF-IDF/LSA; token vectors and late chunking."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunklab.models.embed import (
    MINILM_MAX_POSITIONS,
    MiniLMEmbedder,
    TfidfEmbedder,
    _owners,
    _window_starts,
    default_embedder,
    token_vectors,
)
from chunklab.text.length import token_spans

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


def test_the_cache_lives_in_the_clone_not_in_the_home(monkeypatch):
    """From a clone, computed files go to the clone's .cache/chunklab (the README promises nothing
    is written to the learner's home); CHUNKLAB_CACHE overrides it."""
    import pathlib

    import chunklab
    from chunklab.models.resources import cache_dir

    monkeypatch.delenv("CHUNKLAB_CACHE", raising=False)
    clone = pathlib.Path(chunklab.__file__).resolve().parent.parent
    assert (clone / "pyproject.toml").is_file()
    assert cache_dir() == clone / ".cache" / "chunklab"
    monkeypatch.setenv("CHUNKLAB_CACHE", "/somewhere/else")
    assert cache_dir() == pathlib.Path("/somewhere/else")


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


# -- token vectors and late chunking ----------------------------------------------------------------------
LONG = (
    "The river rose overnight and the sensors sent their readings every minute. "
    "Volunteers stacked sandbags along Tannery Lane while the fire chief watched the gauge. "
) * 12


def test_token_vectors_have_the_tokenizers_exact_offsets():
    vectors = token_vectors(LONG)
    assert [tuple(span) for span in vectors.offsets.tolist()] == token_spans(LONG, "minilm")
    assert vectors.vectors.shape == (len(vectors), 384) and vectors.vectors.dtype == np.float32
    assert (np.linalg.norm(vectors.vectors, axis=1) > 0).all(), "every piece gets a vector"


def test_pooling_one_window_matches_the_sentence_embedding(minilm):
    text = TEXTS[0]
    pooled = token_vectors(text).pool([(0, len(text))])[0]
    # The sentence embedding also averages [CLS] and [SEP]; without them the vector barely moves.
    assert pooled @ minilm([text])[0] > 0.99


def test_windows_overlap_and_every_piece_has_context():
    narrow = token_vectors(LONG, window=32)
    wide = token_vectors(LONG, window=MINILM_MAX_POSITIONS - 2)
    assert narrow.window == 32 and len(narrow) == len(wide) > 64
    spans = [(0, 160), (160, len(LONG))]
    agreement = np.einsum("ij,ij->i", narrow.pool(spans), wide.pool(spans))
    assert (agreement > 0.8).all()


@settings(max_examples=50)
@given(n=st.integers(1, 3000), window=st.integers(2, 510))
def test_each_piece_is_owned_by_a_window_that_holds_it(n, window):
    starts = _window_starts(n, window)
    width = min(window, n)
    owner = _owners(n, starts, width)
    held = np.asarray(starts)[owner]
    positions = np.arange(n)
    assert ((held <= positions) & (positions < held + width)).all()
    assert starts[-1] + width == n


def test_pool_of_an_empty_span_or_text_is_zero():
    assert not token_vectors(LONG).pool([(5, 5)]).any()
    empty = token_vectors("")
    assert len(empty) == 0 and empty.pool([(0, 0)]).shape == (1, 384)


def test_token_vectors_check_their_arguments():
    with pytest.raises(ValueError, match="window"):
        token_vectors("text", window=511)
    with pytest.raises(TypeError):
        token_vectors(b"bytes")


def test_late_chunking_retriever_through_compare():
    from chunklab import load_document
    from chunklab.evaluation.comparison import RETRIEVERS, LateChunkingRetriever, compare_at_k
    from chunklab.strategies import FixedSizeChunker

    assert RETRIEVERS["late"] is LateChunkingRetriever
    with pytest.raises(TypeError, match="index_chunks"):
        LateChunkingRetriever().index(["a chunk"])
    doc = load_document("lab_notes")
    table = compare_at_k({"fixed": FixedSizeChunker(chunk_size=600)}, [doc], retrievers=("dense", "late"), progress=False)
    assert list(table["retriever"]) == ["dense", "late"]
    assert table["recall@k"].between(0, 1).all() and table["questions"].eq(24).all()


def test_persist_writes_when_the_cache_doubles_and_on_flush(tmp_path):
    path = tmp_path / "minilm.npz"
    embedder = MiniLMEmbedder().persist(path)
    embedder(TEXTS)  # an empty file doubles at once
    written = path.stat().st_mtime_ns
    embedder(["one more sentence that was not there before"])  # 5 < 2 * 4: not yet written
    assert path.stat().st_mtime_ns == written
    embedder.flush()
    reloaded = MiniLMEmbedder().persist(path)
    reloaded(["one more sentence that was not there before"])
    assert reloaded.misses == 0
