"""Your own documents and questions, read with the corpus's rules.

`read_document` turns any supported file into a `chunklab.Document`, so that every chunker,
`chunklab.evaluation.comparison.compare` and the command line work on a learner's files exactly as on the course
corpus. The kind comes from the file's extension (`KIND_BY_SUFFIX`) and the reading rules are the
corpus's (`chunklab.formats.corpus.load_document` reads through this module too):

* text-like files (``.md``, ``.txt``, ``.html``, ``.csv``) are decoded as UTF-8 from their bytes,
  byte-exactly: newlines (``\\r\\n`` included) and markup stay as they are on disk;
* PDFs go through `chunklab.formats.pdf.read_pdf`: page texts joined by a blank line and a form feed, running
  headers and footers left out (the corpus keeps its report's), with the span of every page in
  ``metadata["pages"]``.

A file that cannot be read raises `DocumentError`, whose message names the path and the reason (not
UTF-8, with the byte and its offset; a corrupt or truncated PDF; permission denied; ...).
`chunklab.formats.folders.find_documents` expands files and folders into the supported files they
hold, and `read_questions` reads a question set in the JSONL shape of ``data/questions_dev.jsonl``, checking every golden span.
"""

from __future__ import annotations

import io
import json
import os
import pathlib
import types
from collections.abc import Mapping, Sequence
from typing import Any

from .code import LANGUAGE_BY_SUFFIX
from .document import Document
from .json_spans import json_lines_tree, json_tree

__all__ = [
    "KIND_BY_SUFFIX",
    "DocumentError",
    "DocumentNotFound",
    "read_contents",
    "read_document",
    "read_questions",
    "read_text",
]

#: The supported file extensions (lower-case) and the document kind each is read as (every source
#: code extension of `chunklab.formats.code.LANGUAGE_BY_SUFFIX` is read as ``"code"``).
KIND_BY_SUFFIX = types.MappingProxyType(
    {".md": "markdown", ".markdown": "markdown", ".txt": "text", ".rst": "text", ".html": "html", ".htm": "html", ".csv": "csv",
     ".pdf": "pdf", ".docx": "docx", ".json": "json", ".jsonl": "jsonl", ".ipynb": "ipynb",
     **dict.fromkeys(LANGUAGE_BY_SUFFIX, "code")}
)


class DocumentError(ValueError):
    """A file or folder that cannot be read as documents; the message names the path and the reason."""


class DocumentNotFound(DocumentError, FileNotFoundError):
    """The path does not exist (both a `DocumentError` and a `FileNotFoundError`)."""


def _reason(error: OSError) -> str:
    """An `OSError` as a short reason, without the path it repeats."""
    return error.strerror or type(error).__name__


def _read_bytes(path: pathlib.Path) -> bytes:
    """The file's bytes; `DocumentNotFound` or `DocumentError` (folder, permission...) naming the path."""
    try:
        return path.read_bytes()
    except FileNotFoundError as error:
        raise DocumentNotFound(f"{path}: no such file") from error
    except IsADirectoryError as error:
        raise DocumentError(f"{path}: is a folder, not a file") from error
    except OSError as error:
        raise DocumentError(f"{path}: cannot read it: {_reason(error)}") from error


def read_text(path: str | os.PathLike[str]) -> str:
    """The file's bytes decoded as UTF-8, byte-exactly (no newline translation).

    Raises `DocumentNotFound` if it does not exist and `DocumentError` if it is not a readable file
    or not UTF-8 (the message gives the first bad byte and its offset in the file).
    """
    path = pathlib.Path(path)
    data = _read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise DocumentError(
            f"{path}: not UTF-8 text: byte 0x{data[error.start]:02x} at offset {error.start} ({error.reason}); "
            "convert the file to UTF-8 first"
        ) from error


def read_contents(
    path: str | os.PathLike[str], html_source: bool = False, pdf_furniture: bool = False
) -> tuple[str, dict[str, Any]]:
    """The text chunkers receive from `path`, and what reading it tells about it.

    How the file is read follows its extension (`KIND_BY_SUFFIX`; an unknown one is read as text):

    * text, markdown, CSV, JSON, JSON Lines and source code: the file's text, byte-exactly (a JSON
      or JSON Lines file must hold valid JSON, so that its chunks can follow its values);
    * a web page: its visible main text as markdown (`chunklab.formats.web.extract_web_page`), unless
      `html_source` is True: then its HTML source, markup included, as the course corpus reads its
      pages (their question spans index the source, and the markup lessons chunk it);
    * a PDF: its pages' text without running headers and footers (`chunklab.formats.pdf.read_pdf`),
      unless `pdf_furniture` is True: then with them, as the course corpus reads its report (its
      question spans index that text, and the page lesson strips them itself); a Word document: markdown-like text
      (`chunklab.formats.docx.read_docx`); a notebook: its cells as markdown, code fenced
      (`chunklab.formats.notebook.read_notebook`).

    The metadata always holds ``char_count``, ``word_count`` (whitespace-separated) and
    ``line_count``; for a PDF also ``pages`` (the ``(start, end)`` span of each page in the text) and
    ``page_count``; ``format`` (``"markdown"``) for text converted to markdown (a web page, a Word
    document, a notebook), with the ``title``, the web page's ``extractor`` and ``headings``, the
    notebook's ``cells``; ``language`` for source code and notebooks. Raises `DocumentError` (or
    `DocumentNotFound`) naming the path.
    """
    path = pathlib.Path(path)
    kind = KIND_BY_SUFFIX.get(path.suffix.lower(), "text")
    metadata: dict[str, Any] = {}
    if kind == "pdf":
        text = _read_pdf(path, metadata, strip_furniture=not pdf_furniture)
    elif kind == "docx":
        text = _converted(path, "docx", metadata)
    else:
        text = read_text(path)
        if kind == "html" and not html_source:
            text = _converted(path, "html", metadata, text)
        elif kind == "ipynb":
            text = _converted(path, "ipynb", metadata, text)
        elif kind in ("json", "jsonl"):
            _check_json(path, text, kind)
        elif kind == "code":
            metadata["language"] = LANGUAGE_BY_SUFFIX[path.suffix.lower()]
    metadata["char_count"] = len(text)
    metadata["word_count"] = len(text.split())
    metadata["line_count"] = len(text.splitlines())
    return text, metadata


def _read_pdf(path: pathlib.Path, metadata: dict[str, Any], strip_furniture: bool) -> str:
    from .pdf import read_pdf

    try:
        text, pages = read_pdf(path, strip_furniture=strip_furniture)
    except ImportError as error:
        raise DocumentError(f"{path}: reading a PDF needs pypdfium2 (pip install -e '.[pdf]' in a chunklab clone)") from error
    except FileNotFoundError as error:
        raise DocumentNotFound(f"{path}: no such file") from error
    except ValueError as error:
        raise DocumentError(str(error)) from error
    except OSError as error:
        raise DocumentError(f"{path}: cannot read it: {_reason(error)}") from error
    metadata["pages"] = [tuple(span) for span in pages]
    metadata["page_count"] = len(pages)
    return text


#: What each converted kind needs installed, for the error message when it is missing.
_NEEDS = {"html": "trafilatura (pip install -e '.[web]' in a chunklab clone)", "docx": "python-docx (pip install -e '.[docx]' in a chunklab clone)"}


def _converted(path: pathlib.Path, kind: str, metadata: dict[str, Any], source: str | None = None) -> str:
    """The text of a web page, Word document or notebook, its reader's metadata added to `metadata`."""
    data = _read_bytes(path) if kind == "docx" else b""
    try:
        if kind == "html":
            from .web import extract_web_page

            text, found = extract_web_page(source or "")
        elif kind == "docx":
            from .docx import read_docx

            text, found = read_docx(io.BytesIO(data))
        else:
            from .notebook import read_notebook

            text, found = read_notebook(source or "")
    except ImportError as error:
        raise DocumentError(f"{path}: reading it needs {_NEEDS[kind]}") from error
    except ValueError as error:
        raise DocumentError(f"{path}: {error}") from error
    metadata.update(found)
    return text


def _check_json(path: pathlib.Path, text: str, kind: str) -> None:
    """Raise `DocumentError` unless `text` is one JSON value (``json``) or JSON Lines (``jsonl``)."""
    if not text.strip():
        return
    try:
        json_tree(text) if kind == "json" else json_lines_tree(text)
    except ValueError as error:
        raise DocumentError(f"{path}: not valid {'JSON' if kind == 'json' else 'JSON Lines'}: {error}") from error


def _kind(path: pathlib.Path) -> str:
    kind = KIND_BY_SUFFIX.get(path.suffix.lower())
    if kind is None:
        supported = ", ".join(KIND_BY_SUFFIX)
        suffix = path.suffix or "(no extension)"
        raise DocumentError(f"{path}: unsupported file type {suffix!r}; supported: {supported}")
    return kind


def read_document(
    path: str | os.PathLike[str], name: str | None = None, html_source: bool = False, pdf_furniture: bool = False
) -> Document:
    """Read one supported file into a `Document` (kind from its extension, see `KIND_BY_SUFFIX`).

    `name` (default: the file name) becomes the document's name, the ``source`` of its chunks and
    the ``doc`` that questions about it refer to. A web page's text is its visible main text as
    markdown, or its HTML source with `html_source`; a PDF's, its pages without running headers and
    footers, or with them with `pdf_furniture` (see `read_contents`). Raises `DocumentError`
    naming the path and the reason when the file is missing, of an unsupported type, unreadable, not
    UTF-8, or a corrupt PDF.
    """
    path = pathlib.Path(path)
    kind = _kind(path)
    text, metadata = read_contents(path, html_source=html_source, pdf_furniture=pdf_furniture)
    name = path.name if name is None else name
    return Document(name=name, title=name, kind=kind, text=text, path=path,
                    metadata=types.MappingProxyType(metadata))


def read_questions(path: str | os.PathLike[str], documents: Sequence[Document]) -> list[dict[str, Any]]:
    """Read a question set (JSON Lines, the shape of ``data/questions_dev.jsonl``) about `documents`.

    Each non-blank line is one question::

        {"id": "q1", "doc": "guide.md", "question": "...", "kind": "fact",
         "answers": [{"start": 120, "end": 168, "text": "..."}]}

    ``doc`` must name one of `documents`; every answer must be an exact span of that document's text
    (``text == document.text[start:end]``). An answer may list ``"alternatives"``, other exact spans
    any one of which answers it as well (`chunklab.evaluation.metrics`), checked the same way.
    ``id`` (default ``"<file name>:<line>"``) must be unique;
    ``kind`` is optional. Any violation raises `DocumentError` naming the file, the line and the
    problem, so a mistyped span is caught before it silently scores zero.
    """
    path = pathlib.Path(path)
    by_name = {doc.name: doc for doc in documents}
    lines = read_text(path).splitlines()
    questions: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise DocumentError(f"{where}: invalid JSON: {error}") from error
        question = _checked_question(record, by_name, where)
        question.setdefault("id", f"{path.name}:{lineno}")
        if question["id"] in seen:
            raise DocumentError(f"{where}: id {question['id']!r} is already used on line {seen[question['id']]}")
        seen[question["id"]] = lineno
        questions.append(question)
    if not questions:
        raise DocumentError(f"{path}: no questions in this file")
    return questions


def _checked_question(record: Any, documents: Mapping[str, Document], where: str) -> dict[str, Any]:
    """`record` if it is a well-formed question about one of `documents`; else `DocumentError`."""
    if not isinstance(record, dict):
        raise DocumentError(f"{where}: expected a JSON object, got {type(record).__name__}")
    for key, kind in (("doc", str), ("question", str), ("answers", list)):
        if not isinstance(record.get(key), kind):
            raise DocumentError(f"{where}: {key!r} must be a {kind.__name__}, got {record.get(key)!r}")
    if "id" in record and not isinstance(record["id"], str):
        raise DocumentError(f"{where}: 'id' must be a str, got {record['id']!r}")
    doc = documents.get(record["doc"])
    if doc is None:
        known = sorted(documents)
        raise DocumentError(f"{where}: 'doc' is {record['doc']!r}, which is not one of the documents {known}")
    if not record["answers"]:
        raise DocumentError(f"{where}: 'answers' is empty; give at least one golden span")
    for number, answer in enumerate(record["answers"], 1):
        _check_answer(answer, doc, f"{where}: answer {number}")
        alternatives = answer.get("alternatives", [])
        if not isinstance(alternatives, list):
            raise DocumentError(f"{where}: answer {number}: 'alternatives' must be a list, got {alternatives!r}")
        for other, alternative in enumerate(alternatives, 1):
            _check_answer(alternative, doc, f"{where}: answer {number}, alternative {other}")
    return dict(record)


def _check_answer(answer: Any, doc: Document, where: str) -> None:
    if not isinstance(answer, dict):
        raise DocumentError(f"{where}: expected an object with start, end and text, got {answer!r}")
    start, end, text = answer.get("start"), answer.get("end"), answer.get("text")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)) or not isinstance(text, str):
        raise DocumentError(f"{where}: needs integer 'start' and 'end' and a string 'text', got {answer!r}")
    if not 0 <= start < end <= len(doc.text):  # type: ignore[operator]  # both checked to be int above
        raise DocumentError(f"{where}: span [{start}, {end}) is not inside {doc.name!r} (0 to {len(doc.text)})")
    if doc.text[start:end] != text:
        raise DocumentError(
            f"{where}: 'text' does not match {doc.name!r} at [{start}, {end}): "
            f"the document has {doc.text[start:end][:60]!r}, the answer says {text[:60]!r}"
        )
