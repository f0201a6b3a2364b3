"""Word documents, notebooks, JSON and source code read into documents; notebook cells kept apart when chunked."""

from __future__ import annotations

import json

import docx
import pytest

from chunklab.formats.markdown import markdown_blocks
from chunklab.formats.readers import DocumentError, read_document
from chunklab.pipeline.files import chunk_document, fitted
from chunklab.strategies import CodeChunker, FixedSizeChunker, MarkdownChunker


def write_docx(path):
    document = docx.Document()
    document.core_properties.title = "Harbour operations"
    document.add_heading("Harbour operations", 0)
    document.add_paragraph("The harbour office opens at eight and closes when the last ferry is in.")
    document.add_heading("Before a departure", level=1)
    document.add_paragraph("Check the tide table", style="List Bullet")
    document.add_paragraph("Ask the pilot station for the | channel", style="List Bullet 2")
    document.add_paragraph("Log the departure time", style="List Number")
    document.add_paragraph("Sign the book", style="List Number")
    table = document.add_table(rows=3, cols=2)
    for r, row in enumerate([("Berth", "Length"), ("North quay", "120 m"), ("South\npier", "85 m")]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.add_paragraph("")
    document.add_paragraph("Never moor without a fender.", style="Quote")
    document.add_heading("Radio", level=3)
    document.add_paragraph("Channel 14 is watched day and night.")
    document.save(path)
    return path


def test_a_word_document_reads_as_markdown(tmp_path):
    doc = read_document(write_docx(tmp_path / "ops.docx"))
    assert doc.kind == "docx" and doc.metadata["title"] == "Harbour operations"
    assert doc.text == (
        "# Harbour operations\n\n"
        "The harbour office opens at eight and closes when the last ferry is in.\n\n"
        "## Before a departure\n\n"
        "- Check the tide table\n   - Ask the pilot station for the | channel\n"
        "1. Log the departure time\n2. Sign the book\n\n"
        "| Berth | Length |\n| --- | --- |\n| North quay | 120 m |\n| South pier | 85 m |\n\n"
        "> Never moor without a fender.\n\n"
        "#### Radio\n\nChannel 14 is watched day and night."
    )
    kinds = [b.kind for b in markdown_blocks(doc.text)]
    assert kinds == ["heading", "paragraph", "heading", "list", "list", "table", "quote", "heading", "paragraph"]
    sections = {c.metadata["section"] for c in MarkdownChunker()(doc.text)}
    assert "Harbour operations > Before a departure" in sections


def notebook(cells, language="python"):
    return json.dumps({"nbformat": 4, "nbformat_minor": 5,
                       "metadata": {"language_info": {"name": language}},
                       "cells": [{"cell_type": kind, "metadata": {}, "source": source} for kind, source in cells]})


def test_a_notebook_reads_as_markdown_with_fenced_code_and_cell_spans(tmp_path):
    path = tmp_path / "tides.ipynb"
    path.write_text(notebook([
        ("markdown", ["# Tides\n", "\n", "We load the table."]),
        ("code", "import csv\nrows = list(csv.reader(open('tides.csv')))"),
        ("code", ""),
        ("markdown", "The ```fence``` in prose stays prose."),
        ("code", "print('```')\n"),
    ]), encoding="utf-8")
    doc = read_document(path)
    assert doc.kind == "ipynb" and doc.metadata["language"] == "python"
    cells = doc.metadata["cells"]
    assert [(c["index"], c["type"]) for c in cells] == [(0, "markdown"), (1, "code"), (3, "markdown"), (4, "code")]
    assert doc.text[cells[1]["start"] : cells[1]["end"]].startswith("```python\nimport csv")
    assert doc.text[cells[3]["start"] : cells[3]["end"]] == "````python\nprint('```')\n````"
    assert [b.kind for b in markdown_blocks(doc.text)] == ["heading", "paragraph", "code", "paragraph", "code"]


def test_notebook_chunks_never_mix_markdown_and_code(tmp_path):
    path = tmp_path / "nb.ipynb"
    cells = [("markdown", "## Setup"), ("markdown", "Load the tide table first."), ("code", "x = 1\ny = 2"),
             ("markdown", "Then plot it."), ("code", "plot(x, y)")]
    path.write_text(notebook(cells), encoding="utf-8")
    doc = read_document(path)
    records = chunk_document(FixedSizeChunker(), doc)  # one window would hold the whole notebook
    assert [(r["metadata"]["cells"], r["metadata"]["cell_type"]) for r in records] == [
        ([0, 1], "markdown"), ([2], "code"), ([3], "markdown"), ([4], "code")]
    assert [r["metadata"]["chunk_index"] for r in records] == [0, 1, 2, 3]
    assert all(r["metadata"]["total_chunks"] == 4 and doc.text[r["start"] : r["end"]] == r["text"] for r in records)
    code = chunk_document(CodeChunker(), doc)
    assert [r["metadata"]["modality"] for r in code if r["metadata"]["cell_type"] == "code"] == ["code", "code"]


def test_json_and_json_lines_must_be_valid(tmp_path):
    good = tmp_path / "stations.json"
    good.write_text('{"stations": [{"id": 1}, {"id": 2}]}\n', encoding="utf-8")
    assert read_document(good).kind == "json" and read_document(good).text.endswith("}\n")
    lines = tmp_path / "events.jsonl"
    lines.write_text('{"a": 1}\n\n{"a": 2}\n', encoding="utf-8")
    assert read_document(lines).kind == "jsonl"
    (tmp_path / "bad.json").write_text('{"a": 1,}', encoding="utf-8")
    with pytest.raises(DocumentError, match=r"bad\.json: not valid JSON: expected a key in double quotes at line 1, column 9"):
        read_document(tmp_path / "bad.json")
    (tmp_path / "bad.jsonl").write_text('{"a": 1}\n{"a": \n', encoding="utf-8")
    with pytest.raises(DocumentError, match=r"bad\.jsonl: not valid JSON Lines: line 2"):
        read_document(tmp_path / "bad.jsonl")
    (tmp_path / "broken.ipynb").write_text("{}", encoding="utf-8")
    with pytest.raises(DocumentError, match=r"broken\.ipynb: not a notebook: no 'cells' list"):
        read_document(tmp_path / "broken.ipynb")


def test_source_files_carry_their_language_and_the_code_chunker_follows_it(tmp_path):
    path = tmp_path / "ring.rs"
    path.write_text("fn a() -> u32 {\n    1\n}\n\nfn b() -> u32 {\n    2\n}\n", encoding="utf-8")
    doc = read_document(path)
    assert (doc.kind, doc.metadata["language"]) == ("code", "rust")
    assert fitted(CodeChunker(), doc) == CodeChunker(language="rust")
    assert fitted(CodeChunker(language="text"), doc) == CodeChunker(language="text")
    assert fitted(FixedSizeChunker(), doc) == FixedSizeChunker()
    records = chunk_document(CodeChunker(chunk_size=30), doc)
    assert [r["metadata"]["definitions"] for r in records] == [("function a",), ("function b",)]
