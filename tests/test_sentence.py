"""SentenceChunker: whole sentences packed under a size, sentence overlap, oversized sentences."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunklab.core import ParameterError
from chunklab.strategies import SentenceChunker
from chunklab.text.length import count_tokens
from chunklab.text.sentences import SENTENCE_METHODS, sentence_spans

TEXT = (
    "Dr. Okafor checked gauge No. 5 at 6 a.m. on Friday. It read 3.45 metres, up 0.8 in an hour. "
    '"Call the chief," she said. The U.S. team sent v2.1.0 of the firmware.\r\n\r\n'
    "A new paragraph starts here. It is short. This one is a little longer than the others were."
)


def texts(chunks) -> list[str]:
    return [c.text for c in chunks]


@pytest.mark.parametrize("splitter", SENTENCE_METHODS)
def test_chunks_are_runs_of_whole_sentences(splitter: str) -> None:
    sentences = sentence_spans(TEXT, splitter)
    starts, ends = {s for s, _ in sentences}, {e for _, e in sentences}
    chunks = SentenceChunker(chunk_size=120, sentence_splitter=splitter)(TEXT)
    assert len(chunks) > 1
    for chunk in chunks:
        assert TEXT[chunk.start : chunk.end] == chunk.text and len(chunk.text) <= 120
        assert chunk.start in starts and chunk.end in ends, "chunks start and end at sentence boundaries"
        assert not chunk.metadata["cut"]
    assert sum(c.metadata["sentences"] for c in chunks) == len(sentences)


def test_packing_is_greedy_and_keeps_abbreviations_whole() -> None:
    chunks = SentenceChunker(chunk_size=80)(TEXT)
    assert chunks[0].text == "Dr. Okafor checked gauge No. 5 at 6 a.m. on Friday."
    assert chunks[1].text == "It read 3.45 metres, up 0.8 in an hour. \"Call the chief,\" she said."
    joined = [TEXT[a.start : b.end] for a, b in zip(chunks, chunks[1:])]
    assert all(len(j) > 80 for j in joined), "the next sentence never fitted into the previous chunk"


def test_overlap_repeats_whole_sentences() -> None:
    sentences = sentence_spans(TEXT)
    chunks = SentenceChunker(chunk_size=150, overlap_sentences=1)(TEXT)
    assert len(chunks) > 2
    for a, b in zip(chunks, chunks[1:]):
        shared = [s for s in sentences if a.start <= s[0] and s[1] <= a.end and b.start <= s[0]]
        assert len(shared) <= 1 and b.start < b.end > a.end
        if shared:
            assert b.start == shared[0][0], "the next chunk starts with the previous chunk's last sentence"


def test_an_oversized_sentence_is_cut_at_word_boundaries() -> None:
    long = "This sentence goes on " + "and on " * 40 + "until it stops. Short one."
    chunks = SentenceChunker(chunk_size=60)(long)
    assert all(len(c.text) <= 60 for c in chunks)
    cut = [c for c in chunks if c.metadata["cut"]]
    assert len(cut) >= 5 and chunks[-1].text == "Short one." and not chunks[-1].metadata["cut"]
    assert all(c.end == len(long) or long[c.end].isspace() for c in chunks), "no word is cut"


@pytest.mark.parametrize("unit, limit", [("words", 12), ("tokens", 20)])
def test_words_and_tokens(unit: str, limit: int) -> None:
    chunker = SentenceChunker(chunk_size=limit, unit=unit, tokenizer="cl100k")
    chunks = chunker(TEXT)
    assert all(chunker.measure(c.text) <= limit for c in chunks)
    if unit == "tokens":
        assert all(c.metadata["token_count"] == count_tokens(c.text, "cl100k") for c in chunks)


def test_parameters_are_checked_and_chunkers_pickle() -> None:
    for bad, name in [(dict(chunk_size=0), "chunk_size"), (dict(overlap_sentences=-1), "overlap_sentences"),
                      (dict(sentence_splitter="magic"), "sentence_splitter"), (dict(unit="lines"), "unit")]:
        with pytest.raises(ParameterError, match=name):
            SentenceChunker(**bad)
    chunker = SentenceChunker(chunk_size=200, overlap_sentences=1, sentence_splitter="punkt")
    assert pickle.loads(pickle.dumps(chunker)) == chunker
    assert SentenceChunker().sentence_splitter == "regex"


@given(
    text=st.lists(st.sampled_from(["Dr. Lee left.", "It rained!", "v2.1.0 shipped.", "- item", "e.g. this",
                                   "\n\n", "\r\n"]),
                  max_size=40).map(" ".join),
    limit=st.integers(5, 80),
    overlap=st.integers(0, 3),
)
def test_every_sentence_is_in_some_chunk(text: str, limit: int, overlap: int) -> None:
    chunks = SentenceChunker(chunk_size=limit, overlap_sentences=overlap)(text)
    covered = [False] * len(text)
    for c in chunks:
        assert len(c.text) <= limit
        covered[c.start : c.end] = [True] * (c.end - c.start)
    assert all(covered[i] or text[i].isspace() for i in range(len(text))), "no text is lost"
