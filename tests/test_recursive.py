"""The recursive separator cascade: exact offsets on repeated text, overlap that is really applied,
cuts at the strongest separator, and agreement with a plain reference implementation."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunklab import load_document
from chunklab.core import ParameterError
from chunklab.strategies import RecursiveChunker
from chunklab.strategies.recursive import _CR_LINE, LEVELS, _Cascade, recursive_runs
from chunklab.text.length import count_tokens
from chunklab.text.pack import fit, pack
from chunklab.text.paragraphs import line_spans, paragraph_spans
from chunklab.text.sentences import sentence_spans
from chunklab.text.spans import trim_span
from chunklab.text.words import word_spans

PARAGRAPH = "Paragraph {}: the pump stops when the float switch trips, and the alarm sounds in the control room."


def search_offsets(text: str, pieces: list[str], overlap: int) -> list[int]:
    """Offsets recovered the way a splitter that returns only strings must do it: search the source
    for each chunk from where the previous one ended, less the overlap (LangChain's add_start_index)."""
    found, index, previous = [], 0, 0
    for piece in pieces:
        index = text.find(piece, max(0, index + previous - overlap))
        previous = len(piece)
        found.append(index)
    return found


# -- offsets ----------------------------------------------------------------------------------------
def test_identical_paragraphs_get_their_own_offsets():
    text = "\n\n".join([PARAGRAPH.format(1)] * 10)
    chunks = RecursiveChunker(chunk_size=len(PARAGRAPH) + 5)(text)
    step = len(PARAGRAPH.format(1)) + 2
    assert [c.start for c in chunks] == [i * step for i in range(10)]
    assert len({c.text for c in chunks}) == 1, "ten identical chunks, told apart only by their offsets"


def test_offsets_stay_exact_where_searching_goes_wrong():
    """Repetitive text (langchain #21475): searching for a chunk's text finds an earlier copy."""
    text = "na na na na na na na na\nna na na na na jude na na\nna na jude na na"
    chunks = RecursiveChunker(chunk_size=13, chunk_overlap=2)(text)
    assert all(text[c.start : c.end] == c.text for c in chunks)
    assert [c.start for c in chunks] == sorted({c.start for c in chunks}), "starts strictly increase"
    searched = search_offsets(text, [c.text for c in chunks], overlap=2)
    assert searched != [c.start for c in chunks], "this text does fool a search for offsets"


# -- overlap ----------------------------------------------------------------------------------------
def test_overlap_is_applied_when_every_piece_is_longer_than_the_overlap():
    """Paragraphs shorter than a chunk but longer than the overlap: LangChain carries no whole piece,
    so its overlap vanishes (langchain #8142, #30200). Here every neighbouring pair overlaps."""
    text = "\n\n".join(PARAGRAPH.format(i) for i in range(6))
    chunks = RecursiveChunker(chunk_size=150, chunk_overlap=40)(text)
    assert len(chunks) >= 6
    for a, b in zip(chunks, chunks[1:]):
        shared = a.end - b.start
        assert 0 < shared <= 40, (a.text, b.text)
        assert b.start == 0 or text[b.start - 1].isspace(), "the overlap starts at a word"
    assert all(len(c) <= 150 for c in chunks)


def test_overlap_prefers_whole_pieces():
    text = " ".join(f"Sentence number {i} is short." for i in range(20))
    chunks = RecursiveChunker(chunk_size=120, chunk_overlap=60)(text)
    sentence_starts = {s for s, _ in sentence_spans(text)}
    for a, b in zip(chunks, chunks[1:]):
        assert b.start < a.end and b.start in sentence_starts, "the overlap is the last whole sentences"


@st.composite
def prose(draw: st.DrawFn) -> str:
    words = st.text(alphabet="abcdefghij", min_size=1, max_size=12)
    separators = st.sampled_from([" ", " ", " ", ". ", "\n", "\n\n", "  "])
    parts = draw(st.lists(st.tuples(words, separators), min_size=1, max_size=120))
    return "".join(w + s for w, s in parts)


@given(text=prose(), size=st.integers(10, 200), share=st.floats(0.05, 0.5))
def test_overlap_is_applied_wherever_it_can_be(text, size, share):
    """No overlap between two neighbours only when no word start in the last `overlap` characters
    of the first would keep the second within `size` (the documented exceptions)."""
    overlap = max(1, int(size * share))
    chunks = RecursiveChunker(chunk_size=size, chunk_overlap=overlap)(text)
    word_starts = [s for s, _ in word_spans(text)]
    for a, b in zip(chunks, chunks[1:]):
        if b.start < a.end:
            assert a.end - b.start <= overlap
            continue
        possible = [p for p in word_starts if a.start < p < a.end and a.end - p <= overlap and b.end - p <= size]
        assert not possible, f"no overlap between {a.text!r} and {b.text!r}, though {possible} would do"


@given(text=prose(), size=st.integers(5, 200), overlap=st.integers(0, 60))
def test_every_word_is_in_a_chunk_and_no_chunk_holds_another(text, size, overlap):
    if overlap >= size:
        overlap = size - 1
    chunks = RecursiveChunker(chunk_size=size, chunk_overlap=overlap)(text)
    for s, e in word_spans(text):
        assert any(c.start <= s and e <= c.end for c in chunks) or e - s > size - overlap
    for a, b in zip(chunks, chunks[1:]):
        assert a.start < b.start and a.end < b.end


# -- the cascade ------------------------------------------------------------------------------------
def test_cuts_fall_at_the_strongest_separator_that_works():
    short = "A short paragraph that fits."
    long = " ".join(f"This is sentence {i} of a long paragraph." for i in range(12))
    text = f"{short}\n\n{long}\n\n{short}"
    chunks = RecursiveChunker(chunk_size=120)(text)
    assert chunks[0].text == short and chunks[-1].text == short
    sentences = sentence_spans(text)
    inside = [c for c in chunks[1:-1]]
    assert all(c.metadata["separator"] == "sentence" for c in inside)
    ends = {e for _, e in sentences}
    assert all(c.end in ends for c in inside), "the long paragraph is cut between sentences only"


def test_a_sentence_longer_than_size_is_cut_between_words():
    text = "word " * 60
    chunks = RecursiveChunker(chunk_size=50)(text)
    assert all(c.metadata["separator"] == "word" for c in chunks)
    assert all(not c.text.startswith(" ") and not c.text.endswith(" ") for c in chunks)
    assert all(len(c) <= 50 for c in chunks)


def test_literal_separators_start_or_end_pieces():
    code = "import os\n\ndef a():\n    return 1\n\ndef b():\n    return 2\n\ndef c():\n    return 3\n"
    runs = recursive_runs(code, 0, len(code), ("\ndef ",), 25)
    assert [code[s:e] for s, e in runs[0].pieces] == [
        "import os", "def a():\n    return 1", "def b():\n    return 2", "def c():\n    return 3",
    ]
    runs = recursive_runs("one; two; three", 0, 15, ("; ",), 8)
    assert [("one; two; three")[s:e] for s, e in runs[0].pieces] == ["one;", "two;", "three"]


def test_crlf_text_is_cut_at_its_line_ends():
    text = "First line here.\r\nSecond line here.\r\n\r\nThird line.\r\n"
    chunks = RecursiveChunker(chunk_size=20)(text)
    assert [c.text for c in chunks] == ["First line here.", "Second line here.", "Third line."]


def reference_chunks(text: str, size: int) -> list[tuple[int, int]]:
    """The recursive splitter written plainly: cut at each level with `chunklab.text.sentences`, recurse
    into what is too big, merge consecutive siblings while they fit."""
    levels = [paragraph_spans, line_spans, sentence_spans, word_spans]

    def chunk(start: int, end: int, depth: int) -> list[tuple[int, int]]:
        if depth == len(levels):  # one word longer than size: windows of `size` characters
            return [(s, min(s + size, end)) for s in range(start, end, size)]
        pieces = [(start + s, start + e) for s, e in levels[depth](text[start:end])]
        out, current = [], None
        for s, e in pieces:
            if e - s > size:
                if current:
                    out.append(current)
                out.extend(chunk(s, e, depth + 1))
                current = None
            elif current and e - current[0] <= size:
                current = (current[0], e)
            else:
                if current:
                    out.append(current)
                current = (s, e)
        return out + ([current] if current else [])

    return chunk(0, len(text), 0)


@pytest.mark.parametrize("name", ["manual", "article", "stations", "support"])
@pytest.mark.parametrize("size", [80, 400, 1000])
def test_agrees_with_the_plain_reference_on_the_corpus(name, size):
    text = load_document(name).text
    assert [(c.start, c.end) for c in RecursiveChunker(chunk_size=size)(text)] == reference_chunks(text, size)


def test_size_in_words_and_tokens():
    text = load_document("article").text[:6000]
    by_words = RecursiveChunker(chunk_size=40, unit="words")(text)
    assert all(len(c.text.split()) <= 40 for c in by_words)
    by_tokens = RecursiveChunker(chunk_size=64, chunk_overlap=16, unit="tokens", tokenizer="cl100k")(text)
    assert all(c.metadata["token_count"] == count_tokens(c.text, "cl100k") <= 64 for c in by_tokens)
    assert all(b.start < a.end for a, b in zip(by_tokens, by_tokens[1:]))


def test_larger_size_never_gives_more_chunks():
    text = load_document("manual").text
    counts = [len(RecursiveChunker(chunk_size=size)(text)) for size in range(100, 2001, 50)]
    assert counts == sorted(counts, reverse=True)


def test_bad_parameters_name_themselves():
    with pytest.raises(ParameterError, match="chunk_overlap"):
        RecursiveChunker(chunk_size=100, chunk_overlap=100)
    with pytest.raises(ParameterError, match="separators"):
        RecursiveChunker(separators=())
    with pytest.raises(ParameterError, match="separators"):
        RecursiveChunker(separators=("paragraph", ""))


def test_a_misspelt_level_name_is_refused_and_a_literal_word_needs_its_spaces():
    with pytest.raises(ParameterError, match=r"'lines', which is no level name.*' lines '"):
        RecursiveChunker(separators=("paragraph", "lines", "word"))
    text = "cats and dogs and birds and fish"
    chunks = RecursiveChunker(chunk_size=12, separators=(" and ",))(text)
    assert [c.text for c in chunks] == ["cats and", "dogs and", "birds and", "fish"]
    assert RecursiveChunker(separators=("\ndef ", "paragraph", "line", "word"))  # literals with markup stay literals


# -- the character fast paths of chunklab.text.pack ------------------------------------------------------
@given(
    text=st.text(alphabet=st.sampled_from(list("ab \n\t\u3000é😀")), max_size=300),
    limit=st.integers(1, 40),
    data=st.data(),
)
def test_character_fast_paths_of_pack_agree_with_the_general_ones(text, limit, data):
    slow = lambda piece: len(piece)  # noqa: E731  (any measure but `len` itself takes the general path)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert fit(text, start, end, limit) == fit(text, start, end, limit, slow)
    units = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    assert pack(text, units, limit) == pack(text, units, limit, slow)


# -- the character fast paths of the cascade --------------------------------------------------------
#: Pieces of drawn text: words, and what the cascade cuts at (blank lines, line ends of three kinds,
#: sentence ends, an abbreviation, CJK terminators, bullets, literals) or must not cut at.
CASCADE_PARTS = st.sampled_from([
    " ", " ", " ", " ", "  ", "\t", ". ", ". ", "! ", "? ", "… ", ".\n", "\n", "\n", "\n", "\n\n", "\n\n", "\n\n",
    " \n", "\n \n", "\n\n\n ", "\r\n", "\r\n\r\n", "\r", "; ", "\ndef ", "。", "Dr. ", "\n- ", "\n1. ", " • ",
    "\f", "\u3000", "\n  ", "\n\t\t",
])
CASCADE_WORDS = st.text(alphabet="abcXYé", min_size=1, max_size=8)
LITERALS = ["; ", "\ndef ", "\n- ", "。"]


@st.composite
def cascade_texts(draw: st.DrawFn, carriage_returns: bool | None = None) -> str:
    """Drawn text; with a "\\r" somewhere or none (drawn when `carriage_returns` is None): the fast
    paths for line feeds alone are taken only without one."""
    # A few kinds of separator per text, so that each text is dense in some (blank lines, say).
    kinds = draw(st.lists(CASCADE_PARTS, min_size=1, max_size=4))
    parts = draw(st.lists(st.tuples(CASCADE_WORDS, st.sampled_from(kinds)), min_size=1, max_size=90))
    text = draw(st.sampled_from(["", " ", "\n"])) + "".join(w + s for w, s in parts)
    keep = draw(st.booleans()) if carriage_returns is None else carriage_returns
    return text if keep else text.replace("\r", "")


#: Cascades the fast paths single out: LangChain's, blank lines or line breaks alone above words.
CASCADES = [LEVELS, ("paragraph", "line", "word", "char"), ("paragraph",), ("line",), ("paragraph", "word"),
            ("line", "paragraph"), ("sentence",), ("paragraph", "sentence", "word")]


@st.composite
def cascades(draw: st.DrawFn) -> tuple[str, ...]:
    """A separator cascade: a usual one, or some level names in their order; maybe a literal in front."""
    drawn = [level for level in LEVELS if draw(st.booleans())] or ["paragraph"]
    levels = list(draw(st.sampled_from([*CASCADES, tuple(drawn)])))
    literal = draw(st.sampled_from([None, *LITERALS]))
    return tuple([literal, *levels] if literal else levels)


@given(text=cascade_texts(), size=st.integers(1, 160), overlap_share=st.floats(0, 0.9), separators=cascades())
def test_character_fast_paths_of_the_cascade_agree_with_the_general_path(text, size, overlap_share, separators):
    """In characters (the measure ``len``), the cascade merges pieces by binary search and lines
    without listing them (`_merge_lines`), and finds each overlap by string searches
    (`_char_overlap_starts`, `_first_boundary`, `_break_boundary`); any other measure takes the
    general path (`chunklab.text.pack.pack`, `_overlap_starts` over `_boundaries`). Both give the same
    chunks."""
    overlap = min(size - 1, int(size * overlap_share))
    fast = RecursiveChunker(chunk_size=size, chunk_overlap=overlap, separators=separators)
    general = RecursiveChunker(chunk_size=size, chunk_overlap=overlap, separators=separators)
    general.measure_function = lambda: (lambda piece: len(piece))  # any measure but `len` itself
    assert fast.spans(text) == general.spans(text)


@given(text=cascade_texts(carriage_returns=False), limit=st.integers(1, 160), separators=cascades(), data=st.data())
def test_the_split_fast_path_of_the_cascade_agrees_with_the_pattern_scan(text, limit, separators, data):
    """Without a "\\r", blank lines and line ends are cut by one `re.split` and a running sum of the
    parts' lengths; the general path (taken for text with a "\\r") scans the separators one match at a
    time and trims every piece. On text without a "\\r" the two patterns match the same separators,
    so both give the same runs."""
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    runs = recursive_runs(text, start, end, separators, limit)
    cascade = _Cascade(text, *trim_span(text, start, end), separators, limit, len, merge=False)
    cascade.line = _CR_LINE  # the pattern of text with a "\r": its line ends are those of `_LINE` here
    assert [(r.level, r.pieces) for r in runs] == [(level, list(zip(s, e))) for level, s, e in cascade.run()]
