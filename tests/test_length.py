"""The shared size measure: characters, words and tokens, and exact token spans."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunklab.text.length import (
    count_tokens, count_words, length_function, token_span_array, token_span_arrays, token_spans,
)
from chunklab.text.words import word_spans

TEXT = "Dr. Ellis said “naïve” 東京 👨‍👩‍👧 café.\r\n\r\nVersion v2.1.0 costs $3.50 — see https://x.org/a?b=1."


def test_units():
    assert length_function("chars")(TEXT) == len(TEXT)
    assert length_function("words")("a  b\tc\r\nd") == count_words("a  b\tc\r\nd") == 4
    assert length_function("tokens", "minilm")(TEXT) == count_tokens(TEXT, "minilm") > 10
    assert length_function("tokens", "cl100k")(TEXT) == count_tokens(TEXT, "cl100k") > 10
    with pytest.raises(ValueError, match="unit"):
        length_function("lines")
    with pytest.raises(ValueError, match="tokenizer"):
        length_function("tokens", "gpt2")


@pytest.mark.parametrize("tokenizer", ["minilm", "cl100k"])
def test_token_spans_are_exact_ordered_and_counted(tokenizer):
    spans = token_spans(TEXT, tokenizer)
    assert len(spans) == count_tokens(TEXT, tokenizer)
    assert all(0 <= s <= e <= len(TEXT) for s, e in spans)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), "token spans never overlap"
    assert token_spans("", tokenizer) == [] and count_tokens("", tokenizer) == 0


@pytest.mark.parametrize("tokenizer", ["minilm", "cl100k", str.split])
def test_batch_token_spans_are_those_of_each_text(tokenizer):
    texts = [TEXT, "", "   ", "short", TEXT[::-1], "word " * 300]
    batch = token_span_arrays(texts, tokenizer)
    assert len(batch) == len(texts)
    for text, table in zip(texts, batch):
        assert table.tolist() == token_span_array(text, tokenizer).tolist()


def test_cl100k_spans_tile_the_text():
    spans = token_spans(TEXT, "cl100k")
    assert spans[0][0] == 0 and spans[-1][1] == len(TEXT)
    assert "".join(TEXT[s:e] for s, e in spans) == TEXT


def test_minilm_counts_add_up_over_whitespace():
    a, b = "The weir was built in 1911.", "Salmon were counted by hand."
    assert count_tokens(f"{a} {b}") == count_tokens(a) + count_tokens(b)


def test_tokenizer_objects_measure_like_their_names():
    from chunklab.models.resources import hf_tokenizer, tiktoken_encoding

    for obj, name in [(hf_tokenizer("minilm"), "minilm"), (tiktoken_encoding(), "cl100k")]:
        assert token_spans(TEXT, obj) == token_spans(TEXT, name)
        assert count_tokens(TEXT, obj) == count_tokens(TEXT, name) == length_function("tokens", obj)(TEXT)
    assert count_tokens(TEXT, word_spans) == count_words(TEXT) == len(TEXT.split()) + 1  # 東京: two words
    with pytest.raises(ValueError, match="tokenizer"):
        length_function("tokens", 3.5)
    with pytest.raises(ValueError, match="spans"):
        count_tokens("a b", lambda text: [(2, 3), (0, 1)])


def test_a_truncating_tokenizer_object_is_read_whole():
    from tokenizers import Tokenizer

    from chunklab.models.resources import hf_tokenizer

    truncating = Tokenizer.from_str(hf_tokenizer("minilm").backend_tokenizer.to_str())
    truncating.enable_truncation(max_length=8)
    long = "one two three four five six seven eight nine ten eleven twelve"
    assert len(truncating.encode(long, add_special_tokens=False).ids) == 8
    assert count_tokens(long, truncating) == count_tokens(long) == 12


TRICKY_PIECES = ["a", " ", "é", "e\u0301", "😀", "👍🏽", "東", "\n", "ß", "🇬🇧", "\u200b"]


@given(st.lists(st.sampled_from(TRICKY_PIECES), max_size=60).map("".join))
def test_cl100k_token_starts_are_tiktokens_own(text):
    """The array arithmetic behind `token_spans` for tiktoken gives `decode_with_offsets`' offsets,
    tokens that start inside a multi-byte character included."""
    from chunklab.models.resources import tiktoken_encoding
    from chunklab.text.length import _tiktoken_bounds

    encoding = tiktoken_encoding()
    ids = encoding.encode_ordinary(text)
    assert _tiktoken_bounds(encoding, ids, text).tolist() == [*encoding.decode_with_offsets(ids)[1], len(text)]


@pytest.mark.parametrize("text", ["<|endoftext|> is text here", "lone \ud800 surrogate, pair \ud83d\ude00 and é", ""])
def test_cl100k_spans_of_special_token_text_and_surrogates_are_tiktokens_own(text):
    """Special-token text is ordinary text (as for ``encode_ordinary``), and a text with surrogates,
    which tiktoken repairs before encoding, gets the offsets tiktoken reports."""
    from chunklab.models.resources import tiktoken_encoding

    encoding = tiktoken_encoding()
    ids = encoding.encode_ordinary(text)
    assert [s for s, _ in token_spans(text, "cl100k")] == (encoding.decode_with_offsets(ids)[1] if ids else [])
    assert count_tokens(text, "cl100k") == len(ids)


def test_a_tiktoken_like_object_without_the_byte_api_uses_decode_with_offsets():
    from chunklab.models.resources import tiktoken_encoding

    encoding = tiktoken_encoding()

    class Minimal:
        encode_ordinary = staticmethod(encoding.encode_ordinary)
        decode_with_offsets = staticmethod(encoding.decode_with_offsets)

    assert token_spans(TEXT, Minimal()) == token_spans(TEXT, "cl100k")


@given(st.lists(st.sampled_from(["a", "bc", " ", "\n", "\u3000", "é"]), max_size=40).map("".join), st.data())
def test_span_measure_answers_like_measuring_the_slice(text, data):
    from chunklab.text.length import span_measure

    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    for measure in (len, count_words, length_function("tokens", "cl100k")):
        assert span_measure(text, measure)(start, end) == measure(text[start:end])


@given(
    st.lists(
        st.sampled_from(["word", "Naïve", "e\u0301", " ", "\n", ",", "東京", "😀", "don't", "x" * 30, "\u200b", "3.5"]),
        max_size=30,
    ).map("".join),
    st.data(),
)
def test_minilm_span_counts_are_the_counts_of_the_slices(text, data):
    """Counting MiniLM tokens of spans from the text's own tokenization gives the count of the
    slice tokenized alone, wherever the span's ends fall (inside a word, next to an accent...)."""
    from chunklab.text.length import span_measure

    tokens = span_measure(text, length_function("tokens", "minilm"))
    for _ in range(5):
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, len(text)))
        assert tokens(start, end) == count_tokens(text[start:end], "minilm")
