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
    first = MiniLMEmbedder(use_shipped=False).persist(path)
    vectors = first(TEXTS)
    first.flush()
    assert path.is_file()
    second = MiniLMEmbedder(use_shipped=False).persist(path)
    again = second(TEXTS)
    assert (second.misses, second.hits) == (0, 4)
    np.testing.assert_array_equal(again, vectors)
    with pytest.warns(UserWarning, match="other settings"):
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


def test_persist_writes_once_the_new_vectors_outnumber_the_file_and_on_flush(tmp_path):
    path = tmp_path / "minilm.npz"
    embedder = MiniLMEmbedder(use_shipped=False).persist(path)
    embedder(TEXTS)  # 4 new vectors: fewer than the 256 a write waits for
    assert not path.exists()
    embedder.flush()
    written = path.stat().st_mtime_ns
    embedder.flush()  # nothing new: the file is not rewritten
    assert path.stat().st_mtime_ns == written
    embedder([f"sentence number {i} about nothing in particular" for i in range(256)])  # 256 >= max(4, 256)
    assert path.stat().st_mtime_ns != written
    reloaded = MiniLMEmbedder(use_shipped=False).persist(path)
    reloaded(["sentence number 7 about nothing in particular", *TEXTS])
    assert reloaded.misses == 0


_WRITER = """
import pathlib, sys, time
from chunklab.models.embed import MiniLMEmbedder
path, me, other = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
embedder = MiniLMEmbedder(use_shipped=False).persist(path)
(path.parent / f"ready-{me}").touch()
deadline = time.time() + 60
while not (path.parent / f"ready-{other}").exists() and time.time() < deadline:
    time.sleep(0.01)
embedder([f"text {i} written by process {me}" for i in range(300)])
"""


def test_two_processes_writing_one_cache_file_lose_no_vector(tmp_path):
    """Both processes read the (empty) file before either writes; each then embeds 300 texts of its
    own. A writer that replaced the file with only its own vectors would leave 300 of the 600."""
    import os
    import subprocess
    import sys

    path = tmp_path / "minilm.npz"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), me, other], env=env)
               for me, other in (("a", "b"), ("b", "a"))]
    assert [w.wait(timeout=300) for w in writers] == [0, 0]
    reader = MiniLMEmbedder(use_shipped=False).persist(path)
    reader([f"text {i} written by process {me}" for me in "ab" for i in range(300)])
    assert (reader.misses, reader.hits) == (0, 600)


@pytest.mark.parametrize("damage", ["truncated", "not an npz", "other settings"])
def test_an_unusable_cache_file_is_ignored_with_a_warning_and_rebuilt(tmp_path, damage):
    path = tmp_path / "minilm.npz"
    maker = MiniLMEmbedder(max_tokens=16 if damage == "other settings" else 256, use_shipped=False).persist(path)
    maker(TEXTS)
    maker.flush()
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif damage == "not an npz":
        path.write_text("this is not an embedding cache")
    with pytest.warns(UserWarning, match="ignored and rebuilt"):
        embedder = MiniLMEmbedder(use_shipped=False).persist(path)
    embedder(TEXTS)
    embedder.flush()
    assert (embedder.misses, embedder.hits) == (4, 0)
    rebuilt = MiniLMEmbedder(use_shipped=False).persist(path)
    rebuilt(TEXTS)
    assert rebuilt.misses == 0


def test_shipped_vectors_are_read_and_never_required(tmp_path, monkeypatch):
    """A text whose vector the course ships is not embedded; without the file it is, the same."""
    from chunklab.models import embed

    shipped = tmp_path / "shipped.npz"
    maker = MiniLMEmbedder(use_shipped=False).persist(shipped)
    expected = maker(TEXTS)
    maker.flush()
    monkeypatch.setattr(embed, "shipped_embeddings_path", lambda: shipped)
    with_file = MiniLMEmbedder()
    np.testing.assert_array_equal(with_file(TEXTS), expected)
    assert with_file.misses == 0 and not with_file._cache  # read from the shipped file, not computed
    monkeypatch.setattr(embed, "shipped_embeddings_path", lambda: tmp_path / "missing.npz")
    without = MiniLMEmbedder()
    np.testing.assert_allclose(without(TEXTS), expected, atol=1e-6)
    assert without.misses == 4
