"""`Granularities`: several chunkers' chunks indexed together, and sent de-duplicated."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_chunker_properties import AWKWARD, texts

from chunklab import load_document
from chunklab.core import ParameterError
from chunklab.evaluation.comparison import compare
from chunklab.evaluation.expand import new_text_only
from chunklab.strategies import FixedSizeChunker, HybridChunker, RecursiveChunker, SentenceChunker
from chunklab.strategies.granularities import Granularities

SMALL, LARGE = HybridChunker(chunk_size=300), HybridChunker(chunk_size=1000, min_chunk_size=300)


def test_every_chunk_of_both_chunkers_in_source_order_with_its_own_metadata():
    text = load_document("manual").text
    both = Granularities([SMALL, LARGE])
    chunks = both(text, source="manual")
    small, large = SMALL(text, source="manual"), LARGE(text, source="manual")
    assert sorted((c.start, c.end) for c in chunks) == sorted((c.start, c.end) for c in small + large)
    assert [(c.start, -c.end) for c in chunks] == sorted((c.start, -c.end) for c in chunks)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert all(text[c.start : c.end] == c.text and c.metadata["total_chunks"] == len(chunks) for c in chunks)
    assert sum(c.metadata["granularity"] == 0 for c in chunks) == len(small)
    assert all(c.metadata["context"] and c.metadata["source"] == "manual" for c in chunks)
    assert [(s, e) for s, e, _ in both.spans(text)] == [(c.start, c.end) for c in chunks]
    assert both.size_limit() == 1000 and pickle.loads(pickle.dumps(both)) == both


def test_one_chunker_or_two_units_are_refused():
    with pytest.raises(ParameterError, match="at least 2"):
        Granularities([SMALL])
    with pytest.raises(ParameterError, match="one unit"):
        Granularities([FixedSizeChunker(), HybridChunker(unit="tokens")])


def test_sent_de_duplicated_no_question_pays_twice_for_a_character():
    docs = [load_document("lab_notes")]
    both = Granularities([SMALL, LARGE])
    result = compare({"both": both}, docs, retrievers=("bm25",), budget=[500, 2000], split="dev",
                     progress=False, expand_hits=new_text_only)
    rows = result.rows
    assert (rows["sent"] <= rows["budget"]).all() and (rows.loc[rows["budget"] == 2000, "sent"] > 1500).mean() > 0.9


def check_granularities(both: Granularities, text: str) -> None:
    """Every promise `Granularities` makes: exact offsets, its own order (earlier start first, the
    longer of two that start together), each chunk within its own chunker's size limit, every chunk
    of every chunker present once, determinism."""
    chunks = both(text, source="doc")
    for i, chunk in enumerate(chunks):
        assert text[chunk.start : chunk.end] == chunk.text and chunk.text.strip()
        assert chunk.index == i and chunk.metadata["total_chunks"] == len(chunks)
        own = both.chunkers[chunk.metadata["granularity"]]
        assert own.size_limit() is None or own.measure(chunk.text) <= own.size_limit() or len(chunk.text) == 1
    assert [(c.start, -c.end) for c in chunks] == sorted((c.start, -c.end) for c in chunks)
    expected = sorted((s, e, k) for k, chunker in enumerate(both.chunkers) for s, e, _ in chunker.spans(text))
    assert sorted((c.start, c.end, c.metadata["granularity"]) for c in chunks) == expected
    assert both(text, source="doc") == chunks


@given(text=texts, small=st.integers(20, 200), large=st.integers(200, 1200))
def test_properties_hold_on_drawn_texts_and_sizes(text: str, small: int, large: int) -> None:
    check_granularities(Granularities([SentenceChunker(chunk_size=small), RecursiveChunker(chunk_size=large)]), text)


@pytest.mark.parametrize("case", sorted(AWKWARD))
def test_awkward_inputs(case: str) -> None:
    check_granularities(Granularities([SMALL, LARGE]), AWKWARD[case])


def test_rejects_non_string_input() -> None:
    with pytest.raises(TypeError):
        Granularities([SMALL, LARGE])(b"bytes are not text")
