"""The MiniLM vectors the course ships (data/embeddings/minilm-int8.npz, scripts/build_embeddings.py)
are what the model computes: a random sample of them is embedded again and compared. They are a
shortcut, never a source of numbers: tests/test_embed.py checks that an embedder without the file
gives the same vectors."""

from __future__ import annotations

import numpy as np
import pytest

from chunklab.models.embed import MiniLMEmbedder, text_key
from chunklab.models.resources import shipped_embeddings_path

SAMPLE = 64


def _texts_with_keys():
    """Texts the course embeds (every chunk of the default chunkers, every question) by their key."""
    from chunklab import CHUNKERS, list_documents, load_document, load_questions

    texts = {}
    for name in list_documents():
        doc = load_document(name)
        for strategy in ("recursive", "fixed", "sentence", "paragraph"):
            for chunk in CHUNKERS[strategy]()(doc.text, source=name):
                texts[text_key(chunk.text)] = chunk.text
    for question in load_questions():
        texts[text_key(question["question"])] = question["question"]
    return texts


def test_a_random_sample_of_the_shipped_vectors_is_what_the_model_computes():
    path = shipped_embeddings_path()
    if not path.is_file():
        pytest.skip("no shipped vectors in this checkout")
    with np.load(path, allow_pickle=False) as stored:
        assert str(stored["settings"]) == "onnx-int8 max_tokens=256"
        keys, vectors = stored["keys"], stored["vectors"]
    assert keys.shape == (len(vectors), 16) and vectors.shape[1] == 384 and vectors.dtype == np.float32
    index = {row.tobytes(): i for i, row in enumerate(keys)}
    known = {key: text for key, text in _texts_with_keys().items() if key in index}
    assert len(known) >= SAMPLE, "the shipped file lacks the corpus's chunks: rebuild it (scripts/build_embeddings.py)"
    rng = np.random.default_rng(0)
    chosen = rng.choice(sorted(known), size=SAMPLE, replace=False)
    fresh = MiniLMEmbedder(use_shipped=False)([known[key] for key in chosen])
    shipped = vectors[[index[key] for key in chosen]]
    cosines = np.sum(fresh * shipped, axis=1)
    assert cosines.min() > 0.99999, f"shipped vectors differ from the model's: min cosine {cosines.min():.6f}"
    np.testing.assert_allclose(shipped, fresh, atol=1e-4)
