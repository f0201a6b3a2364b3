"""`Granularities`: several chunkers' chunks indexed together, and sent de-duplicated."""

from __future__ import annotations

import pickle

import pytest

from chunklab import load_document
from chunklab.core import ParameterError
from chunklab.evaluation.comparison import compare
from chunklab.evaluation.expand import new_text_only
from chunklab.strategies import FixedSizeChunker, HybridChunker
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
    with pytest.raises(ParameterError, match="at least two"):
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
