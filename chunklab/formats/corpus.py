"""The course corpus: the documents in ``data/`` and the questions about them.

The manifest ``data/corpus.json`` names every document (its key, file, kind
and title; for a document written outside the project also its ``origin`` and the ``licence`` file
shipped beside it; for a document of the real-documents dev collection, ``"collection": "dev_real"``). :func:`load_document` turns one entry into a :class:`Document`
whose ``text`` is *exactly* the string chunkers receive and that the
question spans in ``data/questions_dev.jsonl`` and ``data/questions_test.jsonl`` index into:

* text-like files (markdown, text, reStructuredText, legal, csv, transcript, html, mixed) are
  read as they are on disk: UTF-8, no newline translation, markup included (the HTML pages too: the
  question spans index their source, and the course's markup lessons chunk it, where a learner's
  own web pages are read as their main text by `chunklab.formats.readers.read_document`);
* the PDF is read with :func:`chunklab.formats.pdf.read_pdf`: page texts joined with a
  blank line and a form feed (``"\\n\\n\\f"``), running headers and footers kept (a learner's
  own PDFs are read without them; the page lesson, notebook 13, finds and strips them itself),
  and the character span of every page in ``metadata["pages"]``.

Example::

    from chunklab.formats.corpus import list_documents, load_document, load_questions
    doc = load_document("report")
    q = load_questions("report")[0]
    span = q["answers"][0]
    assert doc.text[span["start"]:span["end"]] == span["text"]
"""

from __future__ import annotations

import json
import os
import pathlib
import types
from typing import Any, Literal

from ..caches import RESOURCE, cached
from .document import Document
from .readers import read_contents, read_text

__all__ = [
    "KINDS",
    "QUESTION_KINDS",
    "SPLITS",
    "DEV_REAL",
    "Split",
    "data_dir",
    "list_documents",
    "load_document",
    "load_questions",
]

#: The document kinds the manifest may use.
KINDS = ("markdown", "text", "legal", "csv", "transcript", "pdf", "html", "mixed", "paper", "minutes",
         "reference", "tutorial", "specification", "changelog", "faq", "manpage",
         "talk", "email", "news", "notes", "release_notes", "guide", "essay")

#: The kinds of question in the question set (see ``data/README.md``).
QUESTION_KINDS = ("fact", "multi_sentence", "table", "cross_boundary", "multi_excerpt")

Split = Literal["dev", "test", "all", "dev_real"]
#: The collection of real documents (written by others) that only dev questions ask about, kept out
#: of the course corpus: ``list_documents()`` and the ``dev``, ``test`` and ``all`` splits leave it
#: out, so that the notebooks index and ask exactly what they did before it existed.
DEV_REAL = "dev_real"
#: The question sets: ``dev`` (``questions_dev.jsonl``, on the course documents) is what defaults,
#: caps and thresholds are chosen on; ``test`` (``questions_test.jsonl``) is what nothing was tuned
#: on, and what the course's verdicts are measured on; ``all`` is both; ``dev_real`` is the dev
#: questions (also in ``questions_dev.jsonl``) on the real-documents dev collection.
SPLITS: tuple[str, ...] = ("dev", "test", "all", DEV_REAL)


def data_dir() -> pathlib.Path:
    """Return the folder holding the course corpus (``corpus.json``, the question files, ``documents/``).

    In order: the folder named by the ``CHUNKLAB_DATA`` environment variable; the repository's
    ``data/`` folder when chunklab runs from a clone (``chunklab/../data``); the copy shipped inside
    the installed package (``chunklab/data``). Raises `FileNotFoundError` saying how to point
    chunklab at a corpus when none of them holds one.
    """
    package = pathlib.Path(__file__).resolve().parent.parent
    override = os.environ.get("CHUNKLAB_DATA")
    if override:
        folder = pathlib.Path(override).expanduser()
        if not (folder / "corpus.json").is_file():
            raise FileNotFoundError(
                f"CHUNKLAB_DATA={override!r} has no corpus.json; point it at a chunklab clone's data/ folder"
            )
        return folder
    for folder in (package.parent / "data", package / "data"):
        if (folder / "corpus.json").is_file():
            return folder
    raise FileNotFoundError(
        "chunklab's course corpus was not found: neither next to the package (a clone's data/ folder) nor inside "
        f"it ({package / 'data'}). Reinstall chunklab from a wheel or the repository, or set CHUNKLAB_DATA to the "
        "data/ folder of a clone of the chunklab repository."
    )


@cached(RESOURCE)
def _manifest() -> dict[str, dict[str, Any]]:
    """Read ``data/corpus.json`` once; keys keep the file's order."""
    with open(data_dir() / "corpus.json", encoding="utf-8") as fh:
        return json.load(fh)


def _in_dev_real(name: str) -> bool:
    return _manifest()[name].get("collection") == DEV_REAL


def list_documents(split: Split | None = None) -> list[str]:
    """Return the names (manifest keys) of the corpus documents, in manifest order: all of the
    course corpus, or with a `split` (``"dev"``, ``"test"``, ``"all"``, ``"dev_real"``) those that
    split's questions ask about. The course's notebooks teach and tune on ``list_documents("dev")``,
    the eight course documents; the test set adds documents nothing was tuned on;
    ``list_documents("dev_real")`` is the real-documents dev collection (every document the manifest
    puts in it), which no other call lists; `load_document` loads its documents by name like any
    other."""
    if split is None or split == DEV_REAL:
        return [name for name in _manifest() if _in_dev_real(name) == (split == DEV_REAL)]
    asked = {q["doc"] for q in load_questions(split=split)}
    return [name for name in _manifest() if name in asked]


def _entry(name: str) -> dict[str, Any]:
    manifest = _manifest()
    if name not in manifest:
        known = ", ".join(repr(k) for k in manifest)
        raise KeyError(f"unknown document {name!r}; known documents: {known}")
    return manifest[name]


@cached(RESOURCE)
def load_document(name: str) -> Document:
    """Load one corpus document by its manifest key.

    The result is cached, so repeated calls return the same object.

    Parameters
    ----------
    name:
        A key of ``data/corpus.json``; see :func:`list_documents`.

    Raises
    ------
    KeyError
        If ``name`` is not in the manifest; the message lists the known names.
    FileNotFoundError
        If the manifest names a file that does not exist.
    ValueError
        If the manifest entry has an unknown kind, or the file is unreadable (a
        `chunklab.formats.readers.DocumentError` naming the path and the reason).
    """
    entry = _entry(name)
    root = data_dir()
    path = root / entry["file"]
    kind = entry["kind"]
    if kind not in KINDS:
        raise ValueError(f"document {name!r} has unknown kind {kind!r}; expected one of {KINDS}")

    text, metadata = read_contents(path, html_source=True, pdf_furniture=True)
    if "source" in entry:
        metadata["source_path"] = root / entry["source"]
    if "description" in entry:
        description_path = root / entry["description"]
        metadata["description_path"] = description_path
        metadata["description"] = read_text(description_path)
    if "assets" in entry:
        metadata["assets"] = [root / asset for asset in entry["assets"]]
    if "licence" in entry:
        metadata["origin"] = entry["origin"]
        metadata["licence_path"] = root / entry["licence"]

    return Document(
        name=name,
        title=entry.get("title", name),
        kind=kind,
        text=text,
        path=path,
        metadata=types.MappingProxyType(metadata),
    )


def _read_jsonl(path: pathlib.Path) -> list[dict]:
    records = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: invalid JSON: {exc}") from exc
    return records


def load_questions(doc: str | None = None, split: Split = "dev") -> list[dict]:
    """Return the evaluation questions of one split, optionally only those about ``doc``.

    Each question is a dict::

        {"id": "report-003", "doc": "report", "question": "...",
         "kind": "table", "split": "dev",
         "answers": [{"start": 1234, "end": 1302, "text": "..."}]}

    where every answer satisfies
    ``load_document(q["doc"]).text[start:end] == text``. An answer may also list
    ``"alternatives": [{"start", "end", "text"}, ...]``, other spans that answer it as well (the
    document says it twice; `chunklab.evaluation.metrics` scores the answer as given when any one is
    sent). ``kind`` is one of
    :data:`QUESTION_KINDS`; ``split`` is the set the question comes from.

    ``split="dev"`` (the default) reads ``data/questions_dev.jsonl``, the questions the course's
    defaults were chosen on; ``split="test"`` reads ``data/questions_test.jsonl``, questions nothing
    was tuned on; ``split="all"`` returns both, dev first. The questions on the real-documents dev
    collection (:data:`DEV_REAL`) are left out of these three and are what ``split="dev_real"``
    returns; they are dev questions, so their ``split`` says ``"dev"``. With ``doc`` given, that
    document's questions in the split's files are returned whichever collection it belongs to. A
    fresh list of fresh dicts is returned on every call.

    Raises
    ------
    KeyError
        If ``doc`` is given but is not a document name.
    ValueError
        If ``split`` is not one of :data:`SPLITS`.
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {list(SPLITS)}, got {split!r}")
    if doc is not None:
        _entry(doc)  # raises KeyError for unknown names
    questions: list[dict[str, Any]] = []
    for name in {"all": ("dev", "test"), DEV_REAL: ("dev",)}.get(split, (split,)):
        records = _read_jsonl(data_dir() / f"questions_{name}.jsonl")
        questions.extend({**q, "split": name} for q in records)
    if doc is not None:
        return [q for q in questions if q.get("doc") == doc]
    wanted = split == DEV_REAL
    return [q for q in questions if (q.get("doc") in _manifest() and _in_dev_real(q["doc"])) == wanted]
