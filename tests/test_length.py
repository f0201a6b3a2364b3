"""The shared size measure: characters, words and tokens, and exact token spans."""

import pytest

from chunklab.length import count_tokens, count_words, length_function, token_spans

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


def test_cl100k_spans_tile_the_text():
    spans = token_spans(TEXT, "cl100k")
    assert spans[0][0] == 0 and spans[-1][1] == len(TEXT)
    assert "".join(TEXT[s:e] for s, e in spans) == TEXT


def test_minilm_counts_add_up_over_whitespace():
    a, b = "The weir was built in 1911.", "Salmon were counted by hand."
    assert count_tokens(f"{a} {b}") == count_tokens(a) + count_tokens(b)
