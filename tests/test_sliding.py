"""SlidingWindowChunker: windows of `window` units every `stride` units, in four units."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunklab.core import ParameterError
from chunklab.strategies import SlidingWindowChunker
from chunklab.text.length import token_spans
from chunklab.text.sentences import sentence_spans
from chunklab.text.words import word_spans

PROSE = (
    "The creek rose 0.8 metres in forty minutes. Dr. Okafor read the gauge at 6 a.m. and called the chief. "
    "Crews moved 2,300 people before dawn. Nobody was hurt. The damage was half that of 2019. "
    "Insurers paid most of it. The town kept the gauges."
)


def test_stride_larger_than_window_is_a_clear_error() -> None:
    with pytest.raises(ParameterError, match=r"'stride'.*1 <= stride <= 50"):
        SlidingWindowChunker(chunk_size=50, stride=51)
    SlidingWindowChunker(chunk_size=50, stride=50)


def test_char_windows_start_every_stride() -> None:
    text = "abcdefghij" * 10
    chunks = SlidingWindowChunker(chunk_size=30, stride=20)(text)
    assert [c.start for c in chunks] == [0, 20, 40, 60, 80]
    assert [c.end for c in chunks] == [30, 50, 70, 90, 100]


def test_word_windows() -> None:
    words = word_spans(PROSE)
    chunks = SlidingWindowChunker(chunk_size=10, stride=4, unit="words")(PROSE)
    assert [c.start for c in chunks] == [words[i][0] for i in range(0, len(words) - 6, 4)]
    assert all(len(c.text.split()) == 10 for c in chunks[:-1]) and chunks[-1].end == len(PROSE)


def test_sentence_windows() -> None:
    sentences = sentence_spans(PROSE)
    chunks = SlidingWindowChunker(chunk_size=3, stride=2, unit="sentences")(PROSE)
    assert [(c.start, c.end) for c in chunks] == [
        (sentences[i][0], sentences[min(i + 3, len(sentences)) - 1][1]) for i in (0, 2, 4)
    ]


@pytest.mark.parametrize("tokenizer", ["minilm", "cl100k"])
def test_token_windows_keep_the_size_contract(tokenizer: str) -> None:
    chunker = SlidingWindowChunker(chunk_size=16, stride=8, unit="tokens", tokenizer=tokenizer)
    chunks = chunker(PROSE)
    tokens = token_spans(PROSE, tokenizer)
    assert len(chunks) >= len(tokens) // 8 - 1
    assert all(c.metadata["token_count"] == chunker.measure(c.text) <= 16 for c in chunks)
    assert [c.metadata["window_start_unit"] for c in chunks] == list(range(0, 8 * len(chunks), 8))


def test_stride_equal_to_window_gives_back_to_back_chunks() -> None:
    chunks = SlidingWindowChunker(chunk_size=6, stride=6, unit="words")(PROSE)
    assert all(a.end < b.start for a, b in zip(chunks, chunks[1:]))
    assert " ".join(c.text for c in chunks) == " ".join(PROSE.split())


@given(text=st.text(alphabet=st.sampled_from(list("ab .\n")), min_size=1, max_size=400),
       window=st.integers(2, 60), data=st.data())
def test_an_excerpt_no_longer_than_the_overlap_lies_whole_in_a_window(text: str, window: int, data) -> None:
    stride = data.draw(st.integers(1, window))
    overlap = window - stride
    chunks = SlidingWindowChunker(chunk_size=window, stride=stride)(text)
    start = data.draw(st.integers(0, len(text) - 1))
    end = min(len(text), start + data.draw(st.integers(1, max(1, overlap))))
    if overlap and text[start:end].strip():
        s, e = start, end
        while text[s].isspace():
            s += 1
        while text[e - 1].isspace():
            e -= 1
        assert any(c.start <= s and e <= c.end for c in chunks), "overlap >= L keeps an excerpt of L whole"
