"""Unit tests of the exact-offset text primitives."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunklab.text.paragraphs import line_spans, paragraph_spans
from chunklab.text.sentences import sentence_blocks, sentence_spans
from chunklab.text.spans import cut_spans, trim_span
from chunklab.text.words import word_spans

TRICKY = (
    'Dr. Smith paid $3.5 million to the U.S. agency, e.g. for sensors. '
    'He said: "It works." Then he left at 3 p.m. on Jan. 5. Mr. Jones agreed!'
)
EXPECTED = [
    "Dr. Smith paid $3.5 million to the U.S. agency, e.g. for sensors.",
    'He said: "It works."',
    "Then he left at 3 p.m. on Jan. 5.",
    "Mr. Jones agreed!",
]


def texts(text: str, spans: list[tuple[int, int]]) -> list[str]:
    return [text[s:e] for s, e in spans]


@pytest.mark.parametrize("method", ["regex", "punkt", "spacy"])
def test_sentence_splitters_are_exact_and_ordered(method: str) -> None:
    spans = sentence_spans(TRICKY, method)
    assert spans == sorted(spans)
    assert all(TRICKY[s:e].strip() == TRICKY[s:e] != "" for s, e in spans)


def test_regex_splitter_handles_abbreviations_decimals_and_quotes() -> None:
    assert texts(TRICKY, sentence_spans(TRICKY, "regex")) == EXPECTED


def test_punkt_is_loaded_with_trained_parameters() -> None:
    # An untrained Punkt splits after "Dr." and "Mr."; the trained English model does not.
    got = texts(TRICKY, sentence_spans(TRICKY, "punkt"))
    assert not any(s in ("Dr.", "Mr.") or s.endswith(" Dr.") for s in got)
    assert got[-1] == "Mr. Jones agreed!"


def test_unknown_sentence_method() -> None:
    with pytest.raises(ValueError, match="regex"):
        sentence_spans("x", "magic")  # type: ignore[arg-type]


def test_paragraphs_with_crlf_and_blank_lines_with_spaces() -> None:
    text = "First para\r\nstill first.\r\n\r\nSecond.\n  \n\n\tThird. \n"
    assert texts(text, paragraph_spans(text)) == ["First para\r\nstill first.", "Second.", "Third."]


def test_words_lines_and_trim() -> None:
    text = " a  bc\r\n d\n\n"
    assert texts(text, word_spans(text)) == ["a", "bc", "d"]
    assert texts(text, line_spans(text)) == ["a  bc", "d"]
    assert trim_span(text, 0, 4) == (1, 2)
    assert trim_span("   ", 0, 3)[0] == trim_span("   ", 0, 3)[1]


def test_cut_spans_counts_each_span_once_and_ignores_edges() -> None:
    spans = [(0, 5), (6, 10), (12, 20)]
    assert cut_spans(spans, [0, 5, 6, 10, 12, 20]) == 0
    assert cut_spans(spans, [3, 4, 13]) == 2
    assert cut_spans(spans, [11, 25, -1]) == 0
    assert cut_spans([], [3]) == 0


def test_sentence_blocks_cut_at_blank_lines_and_list_table_heading_chat_dialogue_lines() -> None:
    text = (
        "THE HEADING\n\nA sentence that wraps\nonto a second line.\n"
        "- first item\n- second item\n  continued\nAfter the list.\n"
        "| a | b |\n=== Ticket 7 ===\n[09:16] Maya: Hi\n[09:17] Jo: Yes\n## Title\n> quoted\n"
        "— Oui ? demanda-t-il.\n— Non.\nIl sortit.\n• 9. Check • 10. Clean"
    )
    assert texts(text, sentence_blocks(text)) == [
        "THE HEADING", "A sentence that wraps\nonto a second line.", "- first item",
        "- second item\n  continued", "After the list.", "| a | b |", "=== Ticket 7 ===", "[09:16] Maya: Hi",
        "[09:17] Jo: Yes", "## Title", "> quoted", "— Oui ? demanda-t-il.", "— Non.", "Il sortit.",
        "• 9. Check • 10. Clean",
    ]


def test_a_table_row_is_one_unit_and_a_numbered_bullet_one_marker() -> None:
    text = "| `a` | Size of the tier. Restart required. |\n| `b` | Path. |\n• 9. Check it. It is old."
    # "pysbd" gives pySBD's own sentences, list markers included (tests/test_sentences_gold.py holds it
    # to the library); the splitters written here keep a numbered bullet's marker with its sentence.
    for method in ("regex", "punkt"):
        assert texts(text, sentence_spans(text, method)) == [
            "| `a` | Size of the tier. Restart required. |", "| `b` | Path. |", "• 9. Check it.", "It is old."
        ], method


@pytest.mark.parametrize("method", ["regex", "punkt", "spacy", "spacy_model"])
def test_headings_and_list_markers_are_not_sentences(method: str) -> None:
    text = "Steps\r\n\r\n1. Stop the node.\r\n2. Replace it\r\n- done"
    assert texts(text, sentence_spans(text, method)) == ["Steps", "1. Stop the node.", "2. Replace it", "- done"]


def test_spacy_model_uses_the_parser_and_is_cached() -> None:
    text = "The fix shipped in release 3.4.2. Install it before the end of the month."
    first = sentence_spans(text, "spacy_model")
    assert texts(text, first) == ["The fix shipped in release 3.4.2.", "Install it before the end of the month."]
    assert sentence_spans(text, "spacy_model") == first and sentence_spans(text, "spacy_model") is not first
    assert sentence_spans(text, "spacy_model", cache=False) == first


def test_sentences_flow_across_a_page_break_but_not_a_blank_line() -> None:
    text = (
        "The fleet drove far, and we\nPage 3 of 10\n\n\fReport header\n"
        "moved more freight. Next one.\n\nNew paragraph."
    )
    assert texts(text, sentence_spans(text)) == [
        "The fleet drove far, and we\nPage 3 of 10\n\n\fReport header\nmoved more freight.",
        "Next one.",
        "New paragraph.",
    ]


_ANY_BREAK = re.compile(r"\r?\n[ \t\f\v]*(?:\r?\n[ \t\f\v]*)+")


@given(st.lists(st.sampled_from(["a", "b c", " ", "\t", "\n", "\r\n", "\r", "\f", "\n \n"]), max_size=40).map("".join))
def test_paragraph_breaks_found_from_the_line_feed_give_the_same_paragraphs(text: str) -> None:
    """The break pattern starts at a line feed (fast); a pattern that also starts at the "\r" of a
    CRLF finds the same paragraphs once both are trimmed."""
    bounds = [0, *(b for m in _ANY_BREAK.finditer(text) for b in m.span()), len(text)]
    spans = (trim_span(text, s, e) for s, e in zip(bounds[::2], bounds[1::2]))
    assert paragraph_spans(text) == [(s, e) for s, e in spans if s < e]


@given(
    st.lists(
        st.sampled_from(["Dr.", "e.g.", "approx.", "x" * 60 + ".", "(dr.", "A.", "U.S.", "Word.", "etc.", "No.",
                         "5", "p.m.", "z. B.", "1.)", "• 2.", "(ii)", "“Yes.”", "why?", "。", "これ", " ", "\n", "\n\n"]),
        max_size=16,
    ).map(" ".join),
    st.sampled_from(["auto", "en", "de", "ru", "ja"]),
)
def test_regex_sentences_are_exact_ordered_and_cover_every_word(text: str, language: str) -> None:
    """Whatever the abbreviations, markers and terminators, the regex splitter returns trimmed,
    ordered, non-overlapping spans that leave out nothing but whitespace."""
    spans = sentence_spans(text, "regex", language, cache=False)
    pos = 0
    for start, end in spans:
        assert pos <= start < end <= len(text) and text[start:end] == text[start:end].strip()
        assert not text[pos:start].strip()
        pos = end
    assert not text[pos:].strip()


PYSBD_TEXTS = st.lists(
    st.sampled_from(["Dr.", "Mr. Smith", "U.S.", "e.g.", "It works.", "Why?", "Stop!", " ", "  ", "\n", "\r\n",
                     "\t", "3.5", "a", "aa", "(1)", "“Quoted.”", "Jan. 5.", "東京。", "...", "!!", "\u00a0"]),
    max_size=30,
).map("".join)


@given(PYSBD_TEXTS, st.lists(st.sampled_from(["", "a", "aa", " ", "Dr.", "It works.", "x"]), max_size=6))
def test_pysbd_spans_are_those_pysbd_finds_with_its_patterns(text, extra):
    """`_pysbd_char_spans` finds with str.find what pySBD's char_span mode finds with one compiled
    pattern per sentence: on pySBD's own sentences, and on arbitrary ones (empty, repeated, absent)."""
    pytest.importorskip("pysbd")
    from chunklab.models.resources import pysbd_segmenter
    from chunklab.text.sentences import _pysbd_char_spans

    segmenter = pysbd_segmenter("en")
    expected = [(span.start, span.end) for span in segmenter.segment(text)]
    assert _pysbd_char_spans(text, segmenter.processor(text).process() if text else []) == expected
    sentences = list(segmenter.processor(text).process()) if text else []
    segmenter.original_text = text  # what segment() sets before it finds the spans
    expected = [(span.start, span.end) for span in segmenter.sentences_with_char_spans(sentences + extra)]
    assert _pysbd_char_spans(text, sentences + extra) == expected


def test_pysbd_spans_on_the_corpus_blocks():
    pytest.importorskip("pysbd")
    import chunklab
    from chunklab.models.resources import pysbd_segmenter
    from chunklab.text.sentences import _pysbd_char_spans

    segmenter = pysbd_segmenter("en")
    for name in ("article", "minutes", "faq_page"):
        text = chunklab.load_document(name).text
        for b0, b1 in sentence_blocks(text)[:150]:
            piece = text[b0:b1]
            expected = [(span.start, span.end) for span in segmenter.segment(piece)]
            assert _pysbd_char_spans(piece, segmenter.processor(piece).process()) == expected


def test_pysbd_blocks_are_remembered_only_when_caching():
    pytest.importorskip("pysbd")
    from chunklab.text.sentences import _pysbd_block_starts

    section = "Dr. Ellis met Mr. Jones. They spoke of weirs.\n\nThe gauge read 3.5 m. Nobody moved."
    whole = "# Notes\n\n" + section + "\n\nA last line."
    expected = [whole.index(s) for s in ("Dr.", "They", "The gauge", "Nobody")]
    _pysbd_block_starts.cache_clear()
    assert [s for s, _ in sentence_spans(whole, "pysbd", cache=False)][1:5] == expected
    assert _pysbd_block_starts.cache_info().currsize == 0, "cache=False remembers nothing"
    first = [s for s, _ in sentence_spans(whole, "pysbd")]
    misses = _pysbd_block_starts.cache_info().misses
    offset = whole.index(section)
    assert [s + offset for s, _ in sentence_spans(section, "pysbd")] == first[1:5]
    assert _pysbd_block_starts.cache_info().misses == misses, "the section's blocks were read with the whole text"
