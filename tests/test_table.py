"""TableChunker and chunklab.formats.tables: rows never cut, the header in every chunk's context, exact spans."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunklab import load_document, load_questions
from chunklab.evaluation.comparison import indexed_text
from chunklab.formats.csv import csv_row_spans
from chunklab.formats.tables import document_parts, looks_like_csv, resolve_format
from chunklab.strategies import TableChunker

MARKDOWN = """# Results

Hit rates, median of three runs.

| Size (MB) | LRU (%) | LFU (%) |
|---|---|---|
| 64 | 41.2 | 46.8 |
| 128 | 55.7 | 59.3 |
| 256 | 68.4 | `70.1` |

## After

A closing paragraph.
"""

HTML = """<html><body><h2>Species</h2>
<table><caption>Quick reference</caption>
<thead><tr><th>Species</th><th>Size</th></tr></thead>
<tbody><tr><td>Gumboot chiton</td><td>30 &amp; more cm</td></tr>
<tr><td>Sea lemon</td><td>12 cm</td></tr></tbody></table>
<p>After the table.</p></body></html>"""

CSV = (
    'date,station,notes\n'
    '2025-10-01,"Port Ellis, North Pier","Waves over\nthe pier, ""severe"""\n'
    '2025-10-02,Skerra Rock,\n'
    '2025-10-03,Tern Island,calm\n'
)


def table_chunks(chunks):
    return [c for c in chunks if c.metadata["modality"] == "table"]


def test_markdown_rows_are_chunks_with_the_header_as_context():
    chunks = TableChunker(rows=1)(MARKDOWN)
    rows = table_chunks(chunks)
    assert [c.metadata["rows"] for c in rows] == [[1], [2], [3]]
    assert rows[0].text.startswith("| Size (MB)")  # the header lines travel with the first rows
    assert rows[1].text == "| 128 | 55.7 | 59.3 |"
    assert all(c.metadata["context"] == "| Size (MB) | LRU (%) | LFU (%) |" for c in rows)
    assert rows[2].metadata["records"] == [{"Size (MB)": "256", "LRU (%)": "68.4", "LFU (%)": "70.1"}]
    assert rows[1].metadata["markdown"] == "| Size (MB) | LRU (%) | LFU (%) |\n|---|---|---|\n| 128 | 55.7 | 59.3 |"
    assert rows[1].metadata["section"] == "Results"
    text = [c for c in chunks if c.metadata["modality"] != "table"]
    assert text[0].text.startswith("# Results") and text[-1].text.endswith("A closing paragraph.")


def test_rows_are_grouped_up_to_rows_and_max_size():
    assert [c.metadata["rows"] for c in table_chunks(TableChunker(rows=2)(MARKDOWN))] == [[1, 2], [3]]
    small = TableChunker(rows=3, chunk_size=60)(MARKDOWN)
    assert all(len(c) <= 60 for c in small)
    assert sum(len(c.metadata["rows"]) for c in table_chunks(small)) == 3


def test_html_rows_cells_and_caption():
    rows = table_chunks(TableChunker()(HTML))
    assert [c.metadata["records"][0]["Species"] for c in rows] == ["Gumboot chiton", "Sea lemon"]
    assert rows[0].metadata["records"][0]["Size"] == "30 & more cm"  # character references decoded
    assert rows[1].text == "<tr><td>Sea lemon</td><td>12 cm</td></tr>"
    assert rows[0].metadata["context"] == "Quick reference\n| Species | Size |"
    assert rows[0].metadata["format"] == "html"


def test_csv_records_with_quoted_commas_and_newlines():
    assert looks_like_csv(CSV) and resolve_format(CSV) == "csv"
    chunks = TableChunker()(CSV)
    records = csv_row_spans(CSV)
    assert [(c.start, c.end) for c in chunks[1:]] == records[2:]
    assert (chunks[0].start, chunks[0].end) == (records[0][0], records[1][1])
    first = chunks[0].metadata["records"][0]
    assert first == {
        "date": "2025-10-01", "station": "Port Ellis, North Pier", "notes": 'Waves over\nthe pier, "severe"'
    }
    frame = pd.DataFrame([r for c in chunks for r in c.metadata["records"]])
    assert frame.shape == (3, 3) and list(frame.columns) == ["date", "station", "notes"]


def test_context_modes_and_skipping_text():
    none = TableChunker(context="none")(MARKDOWN)
    assert not any("context" in c.metadata for c in none)
    with_section = table_chunks(TableChunker(context="section+header")(MARKDOWN))
    assert with_section[0].metadata["context"] == "Results\n| Size (MB) | LRU (%) | LFU (%) |"
    skipped = TableChunker(other_text="skip")(MARKDOWN)
    assert skipped and all(c.metadata["modality"] == "table" for c in skipped)


def test_an_oversized_row_is_the_only_thing_cut():
    wide = "| a | b |\n|---|---|\n| " + "word " * 80 + "| x |\n| short | row |\n"
    chunks = TableChunker(chunk_size=100)(wide)
    assert all(len(c) <= 100 for c in chunks)
    partial = [c for c in chunks if c.metadata.get("cut")]
    assert len(partial) >= 4 and all(c.metadata["rows"] in ([], [1]) for c in partial)
    assert chunks[-1].text == "| short | row |" and "partial_row" not in chunks[-1].metadata


def test_prose_is_not_mistaken_for_csv():
    assert not looks_like_csv("Hello, world. This is prose.\nIt has commas, here and there, and more.\nOne line.\n")
    assert not looks_like_csv("a,b\n1,2\n")  # too few records to tell


def test_forced_format_and_no_tables():
    assert not table_chunks(TableChunker(format="text")(MARKDOWN))
    plain = TableChunker()("Just a paragraph.\n\nAnd another one.")
    assert [c.text for c in plain] == ["Just a paragraph.\n\nAnd another one."]


def test_every_corpus_table_row_lies_whole_in_one_chunk():
    for name in ("manual", "field_guide", "lab_notes", "agreement", "stations"):
        text = load_document(name).text
        chunks = TableChunker(rows=3)(text)
        tables = [part for part, _ in document_parts(text) if hasattr(part, "rows")]
        assert tables, name
        for table in tables:
            for start, end in table.rows:
                assert sum(c.start <= start and end <= c.end for c in chunks) == 1, (name, start)


def test_a_row_that_needs_its_header():
    """lab_notes-010 asks for LFU's hit rate at 128 MB; the row "| 128 | 55.7 | 59.3 | 61.9 |" does
    not say which number is LFU's. Only the context names the columns."""
    question = next(q for q in load_questions("lab_notes") if q["id"] == "lab_notes-010")
    answer = question["answers"][0]
    text = load_document("lab_notes").text
    row = next(c for c in TableChunker()(text) if c.start <= answer["start"] and answer["end"] <= c.end)
    assert "LFU" not in row.text
    assert "LFU" in indexed_text(row, use_context=True)


@given(st.integers(50, 2000), st.integers(50, 2000))
def test_larger_max_size_never_gives_more_chunks(a, b):
    text = load_document("lab_notes").text
    small, large = sorted((a, b))
    assert len(TableChunker(rows=30, chunk_size=large)(text)) <= len(TableChunker(rows=30, chunk_size=small)(text))


@pytest.mark.parametrize("rows", [1, 4])
def test_rows_metadata_counts_each_data_row_once(rows):
    text = load_document("stations").text
    numbers = [n for c in TableChunker(rows=rows)(text) for n in c.metadata["rows"]]
    assert numbers == list(range(1, len(csv_row_spans(text))))
