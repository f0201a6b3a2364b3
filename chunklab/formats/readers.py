"""Your own documents and questions, read with the corpus's rules.

`read_document` turns any supported file into a `chunklab.Document`, so that every chunker,
`chunklab.evaluation.comparison.compare` and the command line work on a learner's files exactly as on the course
corpus. The kind comes from the file's extension (`KIND_BY_SUFFIX`) and the reading rules are the
corpus's (`chunklab.formats.corpus.load_document` reads through this module too):

* text-like files (``.md``, ``.txt``, ``.html``, ``.csv``) are decoded as UTF-8 from their bytes,
  byte-exactly: newlines (``\\r\\n`` included) and markup stay as they are on disk;
* PDFs go through `chunklab.formats.pdf.read_pdf`: page texts joined by a blank line, with the span of every
  page in ``metadata["pages"]``.

A file that cannot be read raises `DocumentError`, whose message names the path and the reason (not
UTF-8, with the byte and its offset; a corrupt or truncated PDF; permission denied; ...).
`find_documents` expands files and folders into the supported files they hold, and `read_questions`
reads a question set in the JSONL shape of ``data/questions_dev.jsonl``, checking every golden span.
"""

from __future__ import annotations

import json
import os
import pathlib
import types
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .document import Document

__all__ = [
    "KIND_BY_SUFFIX",
    "DocumentError",
    "DocumentNotFound",
    "FoundDocuments",
    "find_documents",
    "read_contents",
    "read_document",
    "read_questions",
    "read_text",
]

#: The supported file extensions (lower-case) and the document kind each is read as.
KIND_BY_SUFFIX = types.MappingProxyType(
    {".md": "markdown", ".markdown": "markdown", ".txt": "text", ".html": "html", ".htm": "html", ".csv": "csv",
     ".pdf": "pdf"}
)


class DocumentError(ValueError):
    """A file or folder that cannot be read as documents; the message names the path and the reason."""


class DocumentNotFound(DocumentError, FileNotFoundError):
    """The path does not exist (both a `DocumentError` and a `FileNotFoundError`)."""


def _reason(error: OSError) -> str:
    """An `OSError` as a short reason, without the path it repeats."""
    return error.strerror or type(error).__name__


def read_text(path: str | os.PathLike[str]) -> str:
    """The file's bytes decoded as UTF-8, byte-exactly (no newline translation).

    Raises `DocumentNotFound` if it does not exist and `DocumentError` if it is not a readable file
    or not UTF-8 (the message gives the first bad byte and its offset in the file).
    """
    path = pathlib.Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError as error:
        raise DocumentNotFound(f"{path}: no such file") from error
    except IsADirectoryError as error:
        raise DocumentError(f"{path}: is a folder, not a file") from error
    except OSError as error:
        raise DocumentError(f"{path}: cannot read it: {_reason(error)}") from error
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise DocumentError(
            f"{path}: not UTF-8 text: byte 0x{data[error.start]:02x} at offset {error.start} ({error.reason}); "
            "convert the file to UTF-8 first"
        ) from error


def read_contents(path: str | os.PathLike[str], pdf: bool = False) -> tuple[str, dict[str, Any]]:
    """The text chunkers receive from `path`, and what reading it tells about it.

    The metadata always holds ``char_count``, ``word_count`` (whitespace-separated) and
    ``line_count``; for a PDF also ``pages`` (the ``(start, end)`` span of each page in the text) and
    ``page_count``. Raises `DocumentError` (or `DocumentNotFound`) naming the path.
    """
    metadata: dict[str, Any] = {}
    if pdf:
        from .pdf import read_pdf

        path = pathlib.Path(path)
        try:
            text, pages = read_pdf(path)
        except ImportError as error:
            raise DocumentError(f"{path}: reading a PDF needs pypdf (pip install 'chunklab[pdf]')") from error
        except FileNotFoundError as error:
            raise DocumentNotFound(f"{path}: no such file") from error
        except ValueError as error:
            raise DocumentError(str(error)) from error
        except OSError as error:
            raise DocumentError(f"{path}: cannot read it: {_reason(error)}") from error
        metadata["pages"] = [tuple(span) for span in pages]
        metadata["page_count"] = len(pages)
    else:
        text = read_text(path)
    metadata["char_count"] = len(text)
    metadata["word_count"] = len(text.split())
    metadata["line_count"] = len(text.splitlines())
    return text, metadata


def _kind(path: pathlib.Path) -> str:
    kind = KIND_BY_SUFFIX.get(path.suffix.lower())
    if kind is None:
        supported = ", ".join(KIND_BY_SUFFIX)
        suffix = path.suffix or "(no extension)"
        raise DocumentError(f"{path}: unsupported file type {suffix!r}; supported: {supported}")
    return kind


def read_document(path: str | os.PathLike[str], name: str | None = None) -> Document:
    """Read one supported file into a `Document` (kind from its extension, see `KIND_BY_SUFFIX`).

    `name` (default: the file name) becomes the document's name, the ``source`` of its chunks and
    the ``doc`` that questions about it refer to. Raises `DocumentError` naming the path and the
    reason when the file is missing, of an unsupported type, unreadable, not UTF-8, or a corrupt PDF.
    """
    path = pathlib.Path(path)
    kind = _kind(path)
    text, metadata = read_contents(path, pdf=kind == "pdf")
    name = path.name if name is None else name
    return Document(name=name, title=name, kind=kind, text=text, path=path,
                    metadata=types.MappingProxyType(metadata))


@dataclass(frozen=True)
class FoundDocuments:
    """What `find_documents` found: ``(name, path)`` of each supported file, and the problems."""

    files: list[tuple[str, pathlib.Path]] = field(default_factory=list)
    problems: list[DocumentError] = field(default_factory=list)


def find_documents(paths: Iterable[str | os.PathLike[str]]) -> FoundDocuments:
    """Expand files and folders into the supported files to read, in a stable order.

    A file given directly must have a supported extension and is named by its file name. A folder is
    searched recursively for supported files (hidden files and folders skipped), each named by its
    path inside the folder (``guides/install.md``), in sorted order. A path that does not exist, a
    file of an unsupported type, a folder without a supported file and two documents with the same
    name are reported in ``problems`` (one `DocumentError` each); everything else is still returned.
    """
    found = FoundDocuments()
    owner: dict[str, pathlib.Path] = {}
    for given in paths:
        path = pathlib.Path(given)
        try:
            for name, file in _expand(path):
                if name in owner:
                    found.problems.append(
                        DocumentError(f"{file}: another document is also named {name!r} ({owner[name]}); rename one")
                    )
                    continue
                owner[name] = file
                found.files.append((name, file))
        except DocumentError as problem:
            found.problems.append(problem)
    return found


def _expand(path: pathlib.Path) -> list[tuple[str, pathlib.Path]]:
    if path.is_dir():
        files = sorted(
            (p for p in path.rglob("*") if p.suffix.lower() in KIND_BY_SUFFIX and not _hidden(p.relative_to(path))),
            key=lambda p: p.relative_to(path).as_posix(),
        )
        files = [p for p in files if not p.is_dir()]
        if not files:
            raise DocumentError(f"{path}: no {', '.join(KIND_BY_SUFFIX)} file in this folder")
        return [(p.relative_to(path).as_posix(), p) for p in files]
    if not path.exists() and not path.is_symlink():
        raise DocumentNotFound(f"{path}: no such file or folder")
    _kind(path)
    return [(path.name, path)]


def _hidden(relative: pathlib.Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def read_questions(path: str | os.PathLike[str], documents: Sequence[Document]) -> list[dict[str, Any]]:
    """Read a question set (JSON Lines, the shape of ``data/questions_dev.jsonl``) about `documents`.

    Each non-blank line is one question::

        {"id": "q1", "doc": "guide.md", "question": "...", "kind": "fact",
         "answers": [{"start": 120, "end": 168, "text": "..."}]}

    ``doc`` must name one of `documents`; every answer must be an exact span of that document's text
    (``text == document.text[start:end]``). ``id`` (default ``"<file name>:<line>"``) must be unique;
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
    return dict(record)


def _check_answer(answer: Any, doc: Document, where: str) -> None:
    if not isinstance(answer, dict):
        raise DocumentError(f"{where}: expected an object with start, end and text, got {answer!r}")
    start, end, text = answer.get("start"), answer.get("end"), answer.get("text")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)) or not isinstance(text, str):
        raise DocumentError(f"{where}: needs integer 'start' and 'end' and a string 'text', got {answer!r}")
    if not 0 <= start < end <= len(doc.text):
        raise DocumentError(f"{where}: span [{start}, {end}) is not inside {doc.name!r} (0 to {len(doc.text)})")
    if doc.text[start:end] != text:
        raise DocumentError(
            f"{where}: 'text' does not match {doc.name!r} at [{start}, {end}): "
            f"the document has {doc.text[start:end][:60]!r}, the answer says {text[:60]!r}"
        )
