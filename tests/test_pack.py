"""Packing units under a size limit, and cutting what is too big at word boundaries."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunklab.text.length import length_function
from chunklab.text.pack import fit, pack
from chunklab.text.sentences import sentence_spans

TEXT = "One two three. Four five six seven. Eight. Nine ten eleven twelve thirteen. Fourteen."
UNITS = sentence_spans(TEXT)


def test_pack_joins_whole_units_up_to_the_limit():
    chunks = pack(TEXT, UNITS, limit=40)
    assert [TEXT[s:e] for s, e, _, _ in chunks] == [
        "One two three. Four five six seven.", "Eight. Nine ten eleven twelve thirteen.", "Fourteen.",
    ]
    assert [(a, b) for _, _, a, b in chunks] == [(0, 1), (2, 3), (4, 4)]


def test_pack_overlap_repeats_whole_units_and_always_progresses():
    chunks = pack(TEXT, UNITS, limit=50, overlap=1)
    firsts = [a for _, _, a, _ in chunks]
    assert firsts == sorted(set(firsts)), "every chunk starts at a later unit"
    for (_, _, _, last), (_, _, first, _) in zip(chunks, chunks[1:]):
        assert first <= last, "the next chunk starts with the previous chunk's last unit"
    assert chunks[-1][3] == len(UNITS) - 1


def test_oversized_unit_is_cut_at_word_boundaries():
    text = "short. " + "word " * 30 + "end."
    units = sentence_spans(text)
    chunks = pack(text, units, limit=24)
    assert all(len(text[s:e]) <= 24 for s, e, _, _ in chunks)
    assert all(not text[s:e].endswith("wor") for s, e, _, _ in chunks)


def test_fit_cuts_a_word_longer_than_the_limit_inside_itself():
    assert fit("a" * 10 + " bb", 0, 13, 4) == [(0, 4), (4, 8), (8, 10), (11, 13)]
    assert fit("   ", 0, 3, 5) == []
    with pytest.raises(ValueError, match="limit"):
        fit("x", 0, 1, 0)


@pytest.mark.parametrize("unit", ["chars", "words", "tokens"])
@given(text=st.text(alphabet=st.sampled_from(list("ab .\n😀é東")), max_size=300), limit=st.integers(4, 40),
       overlap=st.integers(0, 3))
def test_pack_properties(unit, text, limit, overlap):
    measure = length_function(unit, "cl100k")
    units = sentence_spans(text)
    chunks = pack(text, units, limit, measure, overlap)
    for s, e, a, b in chunks:
        assert 0 <= s < e <= len(text) and text[s:e].strip()
        assert measure(text[s:e]) <= limit
    assert [s for s, *_ in chunks] == sorted({s for s, *_ in chunks}), "starts strictly increase"
    covered = {i for *_, a, b in chunks for i in range(a, b + 1)}
    assert covered == set(range(len(units))), "every unit is in some chunk"
