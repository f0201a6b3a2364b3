"""Structure detection: code fences and table rows, with exact offsets."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunklab.formats.csv import csv_row_spans
from chunklab.formats.unbreakable import (
    fenced_code_spans,
    html_table_row_spans,
    markdown_table_row_spans,
    table_row_spans,
)
from chunklab.text.spans import trim_span


def texts_of(text, spans):
    return [text[s:e] for s, e in spans]


def test_backtick_and_tilde_fences():
    text = "Intro\n\n```python\nx = 1\n```\n\nMiddle\n\n~~~\ny | z\n~~~\nEnd"
    assert texts_of(text, fenced_code_spans(text)) == ["```python\nx = 1\n```", "~~~\ny | z\n~~~"]


def test_fence_closes_only_with_same_character_and_enough_length():
    text = "````\na\n```\n~~~~\nb\n````\nafter"
    # ``` is too short and ~~~~ is the wrong character: the block ends at the second ````.
    assert texts_of(text, fenced_code_spans(text)) == ["````\na\n```\n~~~~\nb\n````"]


def test_unclosed_fence_runs_to_the_end():
    text = "text\n  ```\ncode line\n\n"
    assert texts_of(text, fenced_code_spans(text)) == ["```\ncode line"]


def test_four_space_indent_and_inline_backticks_are_not_fences():
    text = "    ```\nnot a fence\n    ```\nuse ``` inline ``` here"
    assert fenced_code_spans(text) == []


def test_markdown_table_rows_with_and_without_outer_pipes():
    text = (
        "Before\n\n| Port | Use |\n|------|:---:|\n| 7480 | client |\n| 7481 | peer |\n\n"
        "a | b\n--|--\n1 | 2\n\nAfter | not a row"
    )
    assert texts_of(text, markdown_table_row_spans(text)) == [
        "| Port | Use |", "|------|:---:|", "| 7480 | client |", "| 7481 | peer |",
        "a | b", "--|--", "1 | 2",
    ]


def test_markdown_tables_inside_code_blocks_and_setext_headings_are_ignored():
    text = "```\n| a | b |\n|---|---|\n| 1 | 2 |\n```\n\nTitle | x\n---\n"
    assert markdown_table_row_spans(text) == []


def test_html_rows_with_and_without_closing_tags():
    text = "<table>\n <tr><td>a</td></tr>\n <TR class='x'><td>b</td>\n <tr><td>c</td>\n</table>"
    assert texts_of(text, html_table_row_spans(text)) == [
        "<tr><td>a</td></tr>", "<TR class='x'><td>b</td>", "<tr><td>c</td>",
    ]


def test_csv_rows_keep_quoted_line_breaks_and_crlf():
    text = 'id,note\r\n1,"two\nlines"\r\n2,"say ""hi"""\r\n\r\n3,plain'
    assert texts_of(text, csv_row_spans(text)) == ["id,note", '1,"two\nlines"', '2,"say ""hi"""', "3,plain"]


def _records_char_by_char(text):
    """The CSV record rule read one character at a time: a quote toggles quoting, a line break
    outside quotes ends a record (the plain statement `csv_row_spans` must agree with)."""
    bounds, quoted = [0], False
    for pos, char in enumerate(text):
        if char == '"':
            quoted = not quoted
        elif char == "\n" and not quoted:
            bounds += [pos, pos + 1]
    pairs = zip(bounds[::2], [*bounds[1::2], len(text)])
    return [(s, e) for s, e in (trim_span(text, a, b) for a, b in pairs) if s < e]


@given(st.lists(st.sampled_from(['"', '""', "\n", "\r\n", ",", "a", " ", "b c"]), max_size=40).map("".join))
def test_csv_records_follow_the_quote_rule(text):
    assert csv_row_spans(text) == _records_char_by_char(text)


def test_csv_unclosed_quote_keeps_the_rest_in_one_record():
    text = 'a,b\n1,"open\n2,3\n4,5'
    assert texts_of(text, csv_row_spans(text)) == ["a,b", '1,"open\n2,3\n4,5']


def test_table_row_spans_combines_markdown_and_html_or_reads_csv():
    text = "| a | b |\n|---|---|\n| 1 | 2 |\n\n<table><tr><td>3</td></tr></table>\n"
    assert len(table_row_spans(text)) == 4
    assert table_row_spans("x,y\n1,2\n", csv=True) == [(0, 3), (4, 7)]
    assert table_row_spans("x,y\n1,2\n") == []


@pytest.mark.parametrize("finder", [fenced_code_spans, markdown_table_row_spans, html_table_row_spans, csv_row_spans])
def test_spans_are_sorted_trimmed_and_disjoint_on_the_corpus(finder):
    chunklab = pytest.importorskip("chunklab")
    try:
        names = chunklab.list_documents()
    except FileNotFoundError:
        pytest.skip("corpus not present")
    for name in names:
        text = chunklab.load_document(name).text
        spans = finder(text)
        for (s, e), nxt in zip(spans, spans[1:] + [(len(text), len(text))]):
            assert 0 <= s < e <= nxt[0]
            assert not text[s].isspace() and not text[e - 1].isspace()


def test_the_corpus_manual_has_tables_and_code():
    chunklab = pytest.importorskip("chunklab")
    if "manual" not in chunklab.list_documents():
        pytest.skip("corpus manual not present")
    text = chunklab.load_document("manual").text
    rows = markdown_table_row_spans(text)
    assert rows and all(text[s] == "|" for s, _ in rows)
    blocks = fenced_code_spans(text)
    assert blocks and all(text[s:e].startswith("```") and text[s:e].endswith("```") for s, e in blocks)
