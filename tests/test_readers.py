"""Reading a learner's own files: the corpus's rules, clear errors for bad files, question sets checked."""

from __future__ import annotations

import json
import os
import pathlib

import pytest

from chunklab import list_documents, load_document, load_questions
from chunklab.formats.readers import (
    DocumentError,
    DocumentNotFound,
    read_document,
    read_questions,
    read_text,
)
from chunklab.strategies.page import page_layout

REPORT = load_document("report")


def test_every_corpus_document_reads_the_same_through_the_public_reader():
    for name in list_documents():
        doc = load_document(name)
        mine = read_document(doc.path, name, html_source=True, pdf_furniture=True)
        assert mine.text == doc.text, name
        assert mine.name == name and mine.kind in ("markdown", "text", "csv", "html", "pdf")
        assert mine.metadata["char_count"] == len(doc.text)
        assert mine.metadata.get("pages") == doc.metadata.get("pages")


def test_a_web_page_reads_as_its_main_text_and_the_corpus_keeps_the_source():
    source = load_document("field_guide")
    assert source.text.lstrip().startswith("<!DOCTYPE html>"), "the corpus reads the HTML source"
    page = read_document(source.path)
    assert page.kind == "html" and page.metadata["format"] == "markdown"
    assert page.text.startswith("# Tide Pool Field Guide\n\n## Introduction\n")
    assert "<" not in page.text and "</" not in page.text
    assert page.metadata["char_count"] == len(page.text) < len(source.text)
    for heading in page.metadata["headings"]:
        line = page.text[heading["start"] : heading["end"]]
        assert line == "#" * heading["level"] + " " + heading["title"]
        source_line = source.text.splitlines()[heading["source_line"] - 1]
        assert f">{heading['title']}<" in source_line, (heading, source_line)


def test_text_files_are_read_byte_exactly(tmp_path):
    raw = "\ufeff# Title\r\n\r\nCaf\u00e9 \u2014 na\u00efve\r\nlast line without newline".encode()
    kinds = [(".md", "markdown"), (".txt", "text"), (".html", "html"), (".csv", "csv"), (".MD", "markdown"),
             (".go", "code")]
    for suffix, kind in kinds:
        path = tmp_path / f"doc{suffix}"
        path.write_bytes(raw)
        doc = read_document(path, html_source=True)
        assert doc.text.encode() == raw, suffix
        assert (doc.kind, doc.name, doc.path) == (kind, path.name, path)
        assert doc.metadata["line_count"] == 4 and doc.metadata["word_count"] == 9


def test_pdf_gets_page_spans_and_loses_its_running_header_and_footer():
    doc = read_document(REPORT.path, name="report.pdf")
    assert doc.kind == "pdf" and doc.metadata["page_count"] == len(doc.metadata["pages"]) == 10
    assert "Sustainability Report\n" in doc.text and "Marrow Bay Freight · 2025" not in doc.text
    assert "Page 1 of 10" not in doc.text
    layout = page_layout(REPORT.text)  # the corpus keeps them: its pages less the lines found there
    assert len(layout.furniture) == 20
    for (start, end), (body_start, body_end) in zip(doc.metadata["pages"], layout.bodies):
        assert doc.text[start:end] == REPORT.text[body_start:body_end]


def test_empty_file_is_an_empty_document(tmp_path):
    (tmp_path / "empty.txt").write_bytes(b"")
    doc = read_document(tmp_path / "empty.txt")
    assert doc.text == "" and doc.metadata["char_count"] == 0


def test_undecodable_bytes_name_the_path_byte_and_offset(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("ok so far, then caf\u00e9".encode("latin-1"))
    with pytest.raises(DocumentError, match=r"latin1\.txt: not UTF-8 text: byte 0xe9 at offset 19"):
        read_document(path)


def test_truncated_and_fake_pdfs_name_the_path(tmp_path):
    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes(REPORT.path.read_bytes()[:5000])
    with pytest.raises(DocumentError, match="truncated.pdf"):
        read_document(truncated)
    fake = tmp_path / "fake.pdf"
    fake.write_text("just text")
    with pytest.raises(DocumentError, match=r"fake\.pdf.*not a PDF"):
        read_document(fake)


def test_unreadable_file_names_the_path_and_reason(tmp_path, monkeypatch):
    path = tmp_path / "secret.md"
    path.write_text("# hidden")
    real = pathlib.Path.read_bytes

    def denied(self):
        if self == path:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    # Root can read a chmod-000 file, so the refusal is simulated.
    monkeypatch.setattr(pathlib.Path, "read_bytes", denied)
    with pytest.raises(DocumentError, match=r"secret\.md: cannot read it: Permission denied"):
        read_document(path)


def test_missing_folder_and_unsupported_files(tmp_path):
    with pytest.raises(DocumentNotFound, match="nope.md: no such file") as info:
        read_document(tmp_path / "nope.md")
    assert isinstance(info.value, FileNotFoundError) and isinstance(info.value, ValueError)
    (tmp_path / "dir.md").mkdir()
    with pytest.raises(DocumentError, match="is a folder"):
        read_text(tmp_path / "dir.md")
    (tmp_path / "sheet.xlsx").write_bytes(b"PK")
    with pytest.raises(DocumentError, match=r"sheet\.xlsx: unsupported file type '\.xlsx'; supported: \.md"):
        read_document(tmp_path / "sheet.xlsx")
    (tmp_path / "notes.docx").write_bytes(b"PK")
    with pytest.raises(DocumentError, match=r"notes\.docx: not a readable Word document: BadZipFile"):
        read_document(tmp_path / "notes.docx")
    with pytest.raises(DocumentNotFound, match=r"gone\.docx: no such file"):
        read_document(tmp_path / "gone.docx")


# --- question sets ---------------------------------------------------------------------------------

def _write_questions(path: pathlib.Path, records: list) -> pathlib.Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_read_questions_accepts_the_corpus_shape(tmp_path):
    docs = [load_document("manual"), load_document("report")]
    corpus_questions = load_questions("manual")[:3] + load_questions("report")[:2]
    path = _write_questions(tmp_path / "q.jsonl", corpus_questions + [""])
    assert read_questions(path, docs) == corpus_questions


def test_read_questions_defaults_ids(tmp_path):
    doc = read_document(_text_file(tmp_path))
    question = {"doc": "guide.md", "question": "Which?", "answers": [_span(doc, "beta")]}
    path = _write_questions(tmp_path / "q.jsonl", [question])
    assert read_questions(path, [doc])[0]["id"] == "q.jsonl:1"


def _text_file(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "guide.md"
    path.write_text("alpha beta gamma\n", encoding="utf-8")
    return path


def _span(doc, word: str) -> dict:
    start = doc.text.index(word)
    return {"start": start, "end": start + len(word), "text": word}


@pytest.mark.parametrize(
    "bad, message",
    [
        ('{"doc": "guide.md", "question": "q", "answers": [', "invalid JSON"),
        ('["not", "an", "object"]', "expected a JSON object"),
        ({"doc": "other.md", "question": "q", "answers": []}, "'doc' is 'other.md', which is not one of the documents"),
        ({"doc": "guide.md", "question": "q", "answers": []}, "'answers' is empty"),
        ({"doc": "guide.md", "answers": []}, "'question' must be a str"),
        ({"doc": "guide.md", "question": "q", "answers": [{"start": "6", "end": 10, "text": "beta"}]},
         "answer 1: needs integer"),
        ({"doc": "guide.md", "question": "q", "answers": [{"start": 6, "end": 99, "text": "beta"}]},
         r"answer 1: span \[6, 99\) is not inside"),
        ({"doc": "guide.md", "question": "q", "answers": [{"start": 0, "end": 4, "text": "beta"}]},
         "answer 1: 'text' does not match 'guide.md' at \\[0, 4\\): the document has 'alph'"),
        ({"id": "q1", "doc": "guide.md", "question": "again", "answers": [{"start": 6, "end": 10, "text": "beta"}]},
         "id 'q1' is already used on line 1"),
    ],
)
def test_bad_question_lines_are_named(tmp_path, bad, message):
    doc = read_document(_text_file(tmp_path))
    good = {"id": "q1", "doc": "guide.md", "question": "Which word?", "answers": [_span(doc, "beta")]}
    path = _write_questions(tmp_path / "questions.jsonl", [good, bad])
    with pytest.raises(DocumentError, match=f"questions.jsonl:2: {message}"):
        read_questions(path, [doc])


def test_empty_question_file_is_an_error(tmp_path):
    doc = read_document(_text_file(tmp_path))
    (tmp_path / "none.jsonl").write_text("\n\n")
    with pytest.raises(DocumentError, match="no questions"):
        read_questions(tmp_path / "none.jsonl", [doc])


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True, reason="root reads chmod-000 files")
def test_really_unreadable_file(tmp_path):
    path = tmp_path / "locked.txt"
    path.write_text("x")
    path.chmod(0)
    with pytest.raises(DocumentError, match="locked.txt: cannot read it"):
        read_document(path)
