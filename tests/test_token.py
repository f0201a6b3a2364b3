"""TokenChunker and the token units of the fixed-size chunker: exact spans from tokenizer offsets,
sizes that hold when a chunk is re-tokenized, overlap in tokens, and the truncation measurement."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunklab.core import ParameterError
from chunklab.evaluation.truncation import model_token_count, truncation_of, truncation_table, unread_chars
from chunklab.models.resources import hf_tokenizer, tiktoken_encoding
from chunklab.strategies import FixedSizeChunker, TokenChunker
from chunklab.strategies.token import (
    _BLANK,
    _BREAK,
    _CLASSES,
    _SPACE,
    _SPLITS,
    CL100K_PATTERN,
    _tokenized,
    _window_counter,
)
from chunklab.text.length import count_tokens, token_spans
from chunklab.text.spans import trim_span
from chunklab.text.words import word_spans

TEXT = (
    "Dr. Ellis's naïve café served crème brûlée at 6 a.m. — “unbelievably” good!\r\n\r\n"
    "東京の天気 👨‍👩‍👧 Übergrößenträger pneumonoultramicroscopicsilicovolcanoconiosis "
    "https://example.org/a?b=1&c=2 v2.1.0   $3.50\t(x+y)^2 e\u0301 \u200b end."
) * 3

PIECES = st.sampled_from(
    ["the", "Café", "naïve", "東京", "😀", "e\u0301", "unbelievable", "x" * 30, "3.5%", "—", ".", "\u200b"]
)
TEXTS = st.lists(st.tuples(PIECES, st.sampled_from([" ", "", "\n", "\r\n\r\n", "  "])), max_size=80).map(
    lambda pairs: "".join(p + s for p, s in pairs)
)


@pytest.mark.parametrize("tokenizer", ["minilm", "cl100k"])
@pytest.mark.parametrize("snap", [False, True])
def test_windows_are_exact_and_fit_when_retokenized(tokenizer, snap):
    for size, overlap in [(4, 0), (7, 3), (16, 0), (40, 10)]:
        chunks = TokenChunker(chunk_size=size, chunk_overlap=overlap, tokenizer=tokenizer, snap_to_words=snap)(TEXT)
        assert chunks
        for c in chunks:
            assert TEXT[c.start : c.end] == c.text
            assert c.metadata["token_count"] == count_tokens(c.text, tokenizer) <= size


@given(text=TEXTS, size=st.integers(4, 24), overlap=st.integers(0, 23), snap=st.booleans(),
       tokenizer=st.sampled_from(["minilm", "cl100k"]))
def test_every_token_is_in_some_chunk(text, size, overlap, snap, tokenizer):
    overlap = min(overlap, size - 1)
    chunks = TokenChunker(chunk_size=size, chunk_overlap=overlap, tokenizer=tokenizer, snap_to_words=snap)(text)
    for c in chunks:
        assert count_tokens(c.text, tokenizer) == c.metadata["token_count"] <= size
    for start, end in (trim_span(text, s, e) for s, e in token_spans(text, tokenizer)):
        if start < end:
            assert any(c.start <= start and end <= c.end for c in chunks), f"token at {start} is in no chunk"


#: What cl100k's pre-tokenizer treats specially: whitespace runs before words and line breaks, CRLF,
#: line breaks after symbols, digit runs (split every three), contractions in both cases, letters
#: after symbols, unicode spaces, combining marks, emoji sequences, special-token text.
BPE_PIECES = [
    "the", "Word", " ", "  ", "   ", "\t", "\n", "\r\n", "\r", "\n\n", " \n", "\t\n ", "don't", "'s", "'LL",
    "'", "I'm", "7", "12345", "3.5", "!", "?!", ".\n", ",", ";\r\n", "—", "“", "$", "(", "_", "#", "`", "é", "e\u0301",
    "\u0301", "東京", "😀", "👨‍👩‍👧", "Ωμέγα", "x" * 20, "\u00a0", "\u3000", "\u2028", "\x85", "\x1c", "\x0b", "\u200b",
    "½", "²", "<|endoftext|>", "a1", "1a", "x,y", "<td>", "</p>\n", "--", '"', "%", "==", "ǅ", "ⅷ", "١٢",
]
BPE_TEXTS = st.lists(
    st.one_of(st.sampled_from(BPE_PIECES), st.characters(exclude_categories=("Cs",))), min_size=1, max_size=50
).map("".join)


def test_the_cl100k_shortcut_is_for_the_pattern_it_was_worked_out_for():
    import tiktoken

    encoding = tiktoken_encoding()
    assert encoding._pat_str == CL100K_PATTERN
    assert _tokenized(TEXT, "cl100k").exact is not None and _tokenized(TEXT, encoding).exact is not None
    other = tiktoken.Encoding(
        name="cl100k_words", pat_str=r"\S+|\s+", mergeable_ranks=encoding._mergeable_ranks, special_tokens={}
    )
    assert _tokenized(TEXT, other).exact is None  # another pre-tokenizer: every window is measured
    chunks = TokenChunker(chunk_size=12, tokenizer=other)(TEXT)
    assert all(c.metadata["token_count"] == count_tokens(c.text, other) <= 12 for c in chunks)


def test_whitespace_is_known_up_to_u3000():
    """The cuts look characters up in a table up to U+3000: every character the pattern's ``\\s``
    matches (Unicode White_Space) is whitespace there, and no character above U+3000 is."""
    white_space = [*range(0x09, 0x0E), 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F,
                   0x205F, 0x3000]
    assert all(_CLASSES[code] in (_SPACE, _BREAK, _BLANK) for code in white_space)
    assert not any(chr(code).isspace() for code in range(0x3001, 0x110000))


def test_every_ascii_pair_the_cuts_trust_splits_the_tokens():
    """Every pair of ASCII characters `_SPLITS` marks, in a few contexts each: the text takes the
    tokens of its part up to the pair's first character followed by those of the rest."""
    encode = tiktoken_encoding().encode_ordinary
    chars = [chr(code) for code in range(32, 127)] + ["\t", "\n", "\r"]
    pairs = [(x, y) for x in chars for y in chars if _SPLITS[_CLASSES[ord(x)], _CLASSES[ord(y)]]]
    assert len(pairs) > 2000
    for x, y in pairs:
        for left, right in [("", ""), ("a'", "s b"), ("12", "34 "), (" !", "?\n  x")]:
            assert encode(left + x + y + right) == encode(left + x) + encode(y + right), (left + x, y + right)


@given(text=BPE_TEXTS, data=st.data())
def test_cl100k_exact_cuts_split_the_tokenization(text, data):
    """At an exact cut ``p``, any slice around it takes the tokens of its part before ``p`` followed
    by those of its part after (token ids, not just counts)."""
    encoding = tiktoken_encoding()
    _, bounds, exact, _ = _tokenized(text, "cl100k")
    cuts = [int(bounds[k]) for k in range(1, len(bounds) - 1) if exact[k]]
    for p in data.draw(st.lists(st.sampled_from(cuts), max_size=4)) if cuts else []:
        a, b = data.draw(st.integers(0, p)), data.draw(st.integers(p, len(text)))
        assert encoding.encode_ordinary(text[a:b]) == encoding.encode_ordinary(text[a:p]) + encoding.encode_ordinary(
            text[p:b]
        ), (text[a:p], text[p:b])


@pytest.mark.parametrize("tokenizer", ["cl100k", "minilm"])
@given(text=BPE_TEXTS, data=st.data())
def test_window_counts_are_the_counts_of_the_window_text(tokenizer, text, data):
    """The count of a window from its document tokens between exact cuts, and its edges
    re-tokenized, is the count of its text tokenized alone: for windows trimmed of whitespace as
    `token_windows` makes them, and for any span of their tokens' text."""
    table = _tokenized(text, tokenizer).table
    if not len(table):
        return
    window_tokens = _window_counter(text, tokenizer)
    for _ in range(4):
        i = data.draw(st.integers(0, len(table) - 1))
        j = data.draw(st.integers(i + 1, len(table)))
        stop = int(table[j, 0]) if j < len(table) else len(text)
        start, end = trim_span(text, int(table[i, 0]), stop)
        if data.draw(st.booleans()):
            start = data.draw(st.integers(int(table[i, 0]), stop))
            end = data.draw(st.integers(start, stop))
        if start < end:
            assert window_tokens(i, j, start, end) == count_tokens(text[start:end], tokenizer)


def test_cl100k_windows_reuse_the_document_tokens_in_prose(monkeypatch):
    """In prose nearly every word ends at an exact cut, so a window re-tokenizes only a word or so at
    each edge; its count is still the count of its text."""
    import chunklab.strategies.token as token_module
    from chunklab import load_document

    text = load_document("lab_notes").text
    table, _, exact, _ = _tokenized(text, "cl100k")
    assert exact.count(1) > 0.5 * len(exact)
    windows = [trim_span(text, int(table[i, 0]), int(table[i + 128, 0])) for i in range(0, len(table) - 128, 128)]
    expected = [count_tokens(text[start:end], "cl100k") for start, end in windows]
    fragments: list[str] = []
    spy = lambda piece, tok: fragments.append(piece) or count_tokens(piece, tok)  # noqa: E731
    monkeypatch.setattr(token_module, "count_tokens", spy)
    window_tokens = _window_counter(text, "cl100k")
    counted = [window_tokens(i * 128, i * 128 + 128, start, end) for i, (start, end) in enumerate(windows)]
    assert counted == expected and len(counted) > 10
    assert len(fragments) <= 2 * len(windows) and max(map(len, fragments)) < 60


def test_consecutive_windows_share_overlap_tokens():
    text = " ".join(f"word{i}" for i in range(400))  # every word is several WordPiece tokens
    chunks = TokenChunker(chunk_size=50, chunk_overlap=12)(text)
    for a, b in zip(chunks, chunks[1:]):
        assert b.metadata["first_token"] == a.metadata["end_token"] - 12
    assert chunks[-1].metadata["end_token"] == count_tokens(text)


def test_chunk_text_is_the_source_not_decoded_tokens():
    text = "Café NAÏVE Übergröße 😀 don't"
    chunk = TokenChunker(chunk_size=50)(text)[0]
    tokenizer = hf_tokenizer("minilm")
    decoded = tokenizer.decode(tokenizer(text, add_special_tokens=False)["input_ids"])
    assert chunk.text == text
    assert decoded != text and "[UNK]" in decoded and "cafe" in decoded


def test_snapping_never_cuts_a_word_unless_it_is_longer_than_the_window():
    chunks = TokenChunker(chunk_size=12, snap_to_words=True)(TEXT)
    long_words = {(s, e) for s, e in word_spans(TEXT) if count_tokens(TEXT[s:e]) > 12}
    for c in chunks:
        for s, e in word_spans(TEXT):
            cut = s < c.start < e or s < c.end < e
            assert not cut or (s, e) in long_words


@pytest.mark.parametrize("tokenizer", ["minilm", "cl100k"])
def test_fixed_size_in_tokens_is_the_token_chunker(tokenizer):
    for params in [dict(chunk_size=30, chunk_overlap=5), dict(chunk_size=9, chunk_overlap=0, snap_to_words=True)]:
        fixed = FixedSizeChunker(unit="tokens", tokenizer=tokenizer, **params)
        token = TokenChunker(tokenizer=tokenizer, **params)
        assert [(c.start, c.end) for c in fixed(TEXT)] == [(c.start, c.end) for c in token(TEXT)]
        assert all(fixed.measure(c.text) <= fixed.size_limit() for c in fixed(TEXT))
    with pytest.raises(ParameterError, match="chunk_size"):
        FixedSizeChunker(chunk_size=3, unit="tokens")


def test_any_tokenizer_object_or_function():
    spans = lambda text: word_spans(text)  # noqa: E731  (a tokenizer whose tokens are words)
    by_words = TokenChunker(chunk_size=5, chunk_overlap=1, tokenizer=spans)(TEXT)
    fixed_words = FixedSizeChunker(chunk_size=5, chunk_overlap=1, unit="words")(TEXT)
    assert [(c.start, c.end) for c in by_words] == [(c.start, c.end) for c in fixed_words]
    for obj, name in [(hf_tokenizer("minilm"), "minilm"), (tiktoken_encoding(), "cl100k")]:
        custom = TokenChunker(chunk_size=20, tokenizer=obj)(TEXT)
        named = TokenChunker(chunk_size=20, tokenizer=name)(TEXT)
        assert [(c.start, c.end) for c in custom] == [(c.start, c.end) for c in named]
    with pytest.raises(ParameterError, match="'tokenizer' is not usable"):
        TokenChunker(tokenizer=42)
    with pytest.raises(ParameterError, match="'tokenizer' is not usable"):
        TokenChunker(tokenizer=lambda text: [(3, 1)])
    with pytest.raises(ParameterError, match="needs spans"):
        TokenChunker(tokenizer=lambda text: len(text.split()))


def test_parameters_are_checked():
    with pytest.raises(ParameterError, match="chunk_size"):
        TokenChunker(chunk_size=3)
    with pytest.raises(ParameterError, match="chunk_overlap"):
        TokenChunker(chunk_size=10, chunk_overlap=10)
    with pytest.raises(ParameterError, match="tokenizer"):
        TokenChunker(tokenizer="gpt2")


def test_tokens_are_computed_once_per_text_and_the_chunker_pickles():
    text = "A text tokenized once. " * 50
    _tokenized.cache_clear()
    TokenChunker(chunk_size=16)(text)
    TokenChunker(chunk_size=24, chunk_overlap=4)(text)
    info = _tokenized.cache_info()
    assert info.misses == 1 and info.hits >= 1
    chunker = TokenChunker(chunk_size=64, chunk_overlap=8, tokenizer="cl100k")
    assert pickle.loads(pickle.dumps(chunker)) == chunker


def test_model_window_and_truncation():
    text = "flood gauge reading " * 200  # 600 words, 600 MiniLM tokens
    assert model_token_count(text) == count_tokens(text) + 2
    unread = unread_chars(text)
    assert 0 < unread < len(text)
    assert count_tokens(text[: len(text) - unread]) == 254
    assert unread_chars("short text") == 0

    from chunklab import load_document

    doc = load_document("lab_notes")
    table = truncation_table({"token 254": TokenChunker(chunk_size=254), "fixed 3000": FixedSizeChunker(chunk_size=3000)}, [doc])
    assert table.loc["token 254", "truncated"] == 0 and table.loc["token 254", "max_tokens_seen"] <= 256
    assert table.loc["fixed 3000", "truncated"] > 0 and table.loc["fixed 3000", "unread_share"] > 0
    # The same numbers from chunks already made (as `compare` keeps them), without chunking again.
    made = {"fixed 3000": FixedSizeChunker(chunk_size=3000)(doc.text, source=doc.name)}
    assert truncation_of(made).loc["fixed 3000"].equals(table.loc["fixed 3000"])
    assert truncation_of({}).empty
    # Counted chunk by chunk, with the public helpers.
    chunks = made["fixed 3000"]
    row = truncation_of(made).loc["fixed 3000"]
    lengths = [model_token_count(c.text) for c in chunks]
    assert row["truncated"] == sum(n > 256 for n in lengths) and row["max_tokens_seen"] == max(lengths)
    assert row["unread_share"] == sum(unread_chars(c.text) for c in chunks) / sum(len(c) for c in chunks)
    # A tokenizer function that only counts (no spans) is counted text by text: every word a token.
    def words(text):
        return len(text.split())

    counted = truncation_of({"fixed 3000": chunks}, max_tokens=10_000, tokenizer=words, special_tokens=0)
    assert counted.loc["fixed 3000", "max_tokens_seen"] == max(len(c.text.split()) for c in chunks)
    assert counted.loc["fixed 3000", "truncated"] == 0


TRICKY = (
    "Café naïve résumé, 東京タワー日本語テキスト and e\u0301t\u00e9 \u0301accent; CRLF\r\nline\ttab  "
    "unaffable [UNK]-ish ∑∫ emoji 🙂🙂 hyphen-ated 3.14 x_y __init__ " * 40
)


@pytest.mark.parametrize("name", ["article", "stations", "paper", "faq_page"])
def test_minilm_pieces_give_the_whole_text_s_tokens_and_windows(name, monkeypatch):
    """A long text is encoded in pieces cut before a space or line break; the tokens, offsets,
    exact cuts and the chunks must be those of one encoding of the whole text."""
    from chunklab import load_document
    from chunklab.strategies import token as token_module

    text = load_document(name).text + "\n" + TRICKY
    whole = token_module._WordPieces([(0, hf_tokenizer("minilm").backend_tokenizer.encode(
        text, add_special_tokens=False))], len(text))
    expected = [(c.start, c.end, c.metadata) for c in TokenChunker(chunk_size=64, chunk_overlap=8)(text)]
    token_module._tokenized.cache_clear()
    monkeypatch.setattr(token_module, "_PIECE_CHARS", 97)  # hundreds of pieces
    pieces = token_module._wordpiece_encodings(text)
    assert len(pieces) > 100 and all(text[s] in " \n" for s, _ in pieces[1:])
    split = token_module._WordPieces(pieces, len(text))
    assert split.count == whole.count
    assert (split.table == whole.table).all() and split.exact == whole.exact
    a, b = split.cuts(), whole.cuts()
    for k in list(range(0, split.count + 1, 7)) + [split.count]:
        assert a.start(k) == b.start(k) and a.is_exact(k) == b.is_exact(k)
        if k < split.count:
            assert a.end(k) == b.end(k)
    assert [(c.start, c.end, c.metadata) for c in TokenChunker(chunk_size=64, chunk_overlap=8)(text)] == expected
    token_module._tokenized.cache_clear()


def test_piece_starts_cut_before_a_space_or_line_break_or_not_at_all():
    from chunklab.strategies.token import _piece_starts

    assert _piece_starts("abc", 10) == [0]
    assert _piece_starts("aaaa bbbb\ncccc dddd", 6) == [0, 4, 9, 14]
    assert _piece_starts("x" * 50 + " tail", 10) == [0, 50]  # no break within reach: the next one
    assert _piece_starts("x" * 50, 10) == [0]  # none at all: one piece
