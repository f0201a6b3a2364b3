"""The benchmark corpus: texts of several shapes, built on any machine without a download.

A chunker tuned on one kind of text can be slow on another (issue 23: the recursive chunker led
LangChain on the course documents and trailed it on the standard library's docstrings), so every
peer comparison runs on each of these shapes:

* ``course``: every course document (markdown, prose, legal text, CSV, a chat, the PDF's text,
  HTML), the corpus the benchmarks used before there were shapes;
* ``prose``: the course article (long paragraphs of sentences);
* ``markdown``: the READMEs of the installed Python packages (``importlib.metadata`` descriptions
  whose content type is markdown): headings, lists, tables, code fences, links;
* ``code``: the Python standard library's own source files (code, comments, docstrings);
* ``docstrings``: the triple-quoted strings of those files, dedented: many short paragraphs and
  short lines, where issue 23 measured the recursive chunker at 0.37x LangChain;
* ``chat``: the course's support transcript (a line per message, short Q/A blocks);
* ``csv``: the course's weather CSV (a short line per row, no spaces in most fields);
* ``line-free``: the course article with every run of whitespace made one space: one long line,
  no paragraph or line break to cut at.

Every shape is a list of source documents, copied until the size asked for. Each copy is varied
with a seeded generator: documents in another order, paragraphs (CSV rows) shuffled where that
keeps the shape (prose, chat, CSV, the course's documents), and every digit mapped through a
permutation of the ten digits drawn for the copy (so every number keeps its width: a time stays
``[09:14]``-shaped, a date ``2025-10-01``-shaped). The text repeats as real corpora do, without
one string over and over. A document that no variation changes (no digits, nothing shuffled: a
short docstring) is skipped where it would come back within `WINDOW` documents of its last copy,
and `shape_corpora` draws every round of every setting of a shape from one stream: so no text is
chunked twice within more documents than chunklab's per-text caches keep (48 texts at most), and
no round is served from an earlier round's cache.

The same shape, size and seed give the same texts on a given Python and package set; the
``markdown`` and ``code`` shapes follow the installed packages and the Python version, which is
why `describe` reports each shape's sources.
"""

from __future__ import annotations

import functools
import importlib.metadata
import inspect
import pathlib
import random
import re
import sysconfig
from typing import Iterator

from chunklab import list_documents, load_document

__all__ = ["SHAPES", "WINDOW", "describe", "shape_corpora", "shape_text", "shape_texts", "sources", "vary"]

#: The shapes, in the order the tables list them.
SHAPES = ("course", "prose", "markdown", "code", "docstrings", "chat", "csv", "line-free")

_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
_TRIPLE_QUOTED = re.compile(r'("""|\'\'\')(.*?)\1', re.DOTALL)
# Standard-library folders that are tests, a GUI or a retired tool rather than library code.
_SKIPPED = {"site-packages", "test", "tests", "idlelib", "lib2to3", "turtledemo"}
#: Documents within which the same text never comes twice (see the module docstring).
WINDOW = 64
_seeds = iter(range(1, 1 << 30))
_streams: dict[str, Iterator[str]] = {}


_DIGITS = "0123456789"


def _fences(text: str) -> list[tuple[int, int]]:
    """The spans of the fenced code blocks of a markdown text: from a line opening with three or more
    backticks or tildes to the next line opening with at least as many of the same (or the end).
    (Not chunklab's parser: its per-text cache would keep the sources' tokens alive in the timed runs.)"""
    spans, opening = [], None
    for m in _FENCE_LINE.finditer(text):
        if opening is None:
            opening = m
        elif m.group(1)[0] == opening.group(1)[0] and len(m.group(1)) >= len(opening.group(1)):
            spans.append((opening.start(), m.end()))
            opening = None
    if opening is not None:
        spans.append((opening.start(), len(text)))
    return spans


def _parts(text: str, separator: str) -> list[str]:
    """`text` split at `separator`, except inside a fenced code block (see `_fences`).

    A fence holding a blank line, split and shuffled, would leave its opening and closing lines in
    other places: the text between them would turn into code and the rest of the document into a
    code block that runs until the next fence of another copy, so the shape's share of code (cheap
    for a structure-aware chunker) would vary from text to text."""
    fences = _fences(text)
    parts: list[str] = []
    offset = 0
    for part in text.split(separator):
        if parts and any(start < offset - len(separator) < end for start, end in fences):
            parts[-1] += separator + part
        else:
            parts.append(part)
        offset += len(part) + len(separator)
    return parts


def vary(text: str, rng: random.Random, separator: str | None = None, keep_head: bool = False) -> str:
    """`text` with its digits mapped through a permutation drawn by `rng` and, given a `separator`,
    its parts between separators shuffled (the first part stays first with `keep_head`: a CSV header;
    a fenced code block stays whole, see `_parts`)."""
    if separator is not None:
        parts = _parts(text, separator)
        head, body = (parts[:1], parts[1:]) if keep_head else ([], parts)
        rng.shuffle(body)
        text = separator.join(head + body)
    return text.translate(str.maketrans(_DIGITS, "".join(rng.sample(_DIGITS, 10))))


def _course(name: str) -> str:
    return load_document(name).text


def _stdlib_files() -> list[pathlib.Path]:
    root = pathlib.Path(sysconfig.get_paths()["stdlib"])
    return sorted(p for p in root.rglob("*.py") if not _SKIPPED & set(p.relative_to(root).parts))


@functools.lru_cache(maxsize=None)
def sources(shape: str) -> tuple[str, ...]:
    """The source documents of `shape`, unvaried (see the module docstring)."""
    if shape == "course":
        return tuple(_course(name) for name in list_documents())
    if shape == "prose":
        return (_course("article"),)
    if shape == "line-free":
        return (" ".join(_course("article").split()),)
    if shape == "chat":
        return (_course("support"),)
    if shape == "csv":
        return (_course("stations"),)
    if shape == "markdown":
        readmes = {}
        for dist in importlib.metadata.distributions():
            meta = dist.metadata
            if "markdown" in (meta.get("Description-Content-Type") or "") and (meta.get_payload() or "").strip():
                readmes.setdefault(meta["Name"].lower(), meta.get_payload())
        return tuple(readmes[name] for name in sorted(readmes))
    if shape == "code":
        return tuple(p.read_text(encoding="utf-8", errors="replace") for p in _stdlib_files())
    if shape == "docstrings":
        docs = []
        for source in sources("code"):
            strings = [inspect.cleandoc(m.group(2)) for m in _TRIPLE_QUOTED.finditer(source)]
            if any(s.strip() for s in strings):
                docs.append("\n\n".join(s for s in strings if s.strip()))
        return tuple(docs)
    raise ValueError(f"unknown shape {shape!r}; choose from {list(SHAPES)}")


def _copies(shape: str, rng: random.Random) -> Iterator[str]:
    """Copy after copy of the shape's documents, each copy in a shuffled order, each document
    varied (see `vary`) as it is reached, none the same as one of the last `WINDOW` yielded."""
    separator = {"course": "\n\n", "prose": "\n\n", "chat": "\n\n", "csv": "\n", "line-free": ". "}.get(shape)
    documents = list(sources(shape))
    window = min(WINDOW, len(documents) - 1)
    recent: dict[str, None] = {}
    while True:
        rng.shuffle(documents)
        for doc in documents:
            varied = vary(doc, rng, separator, keep_head=shape == "csv")
            if varied in recent:
                continue
            if window:
                recent[varied] = None
                if len(recent) > window:
                    del recent[next(iter(recent))]
            yield varied


def _take(documents: Iterator[str], chars: int) -> list[str]:
    """Whole documents from `documents` until they hold at least `chars` characters."""
    texts: list[str] = []
    size = 0
    while size < chars:
        texts.append(next(documents))
        size += len(texts[-1])
    return texts


def shape_texts(shape: str, chars: int, seed: int = 0) -> list[str]:
    """Varied copies of the shape's documents, whole, until they hold at least `chars` characters
    (``line-free``: one text of exactly `chars` characters). Another `seed` gives other texts."""
    if shape == "line-free":
        return [shape_text(shape, chars, seed)]
    return _take(_copies(shape, random.Random(seed)), chars)


def shape_text(shape: str, chars: int, seed: int = 0) -> str:
    """One text of exactly `chars` characters: varied copies joined by a blank line (by a space for
    ``line-free``), cut at the end."""
    glue = " " if shape == "line-free" else "\n\n"
    return glue.join(_take(_copies(shape, random.Random(seed)), chars))[:chars]


def shape_corpora(shape: str, chars: int, rounds: int) -> list[list[str]]:
    """`rounds` corpora of the shape of at least `chars` characters each, one per timing round,
    drawn one after another from one stream per shape and process (see the module docstring)."""
    if shape == "line-free":
        return [[shape_text(shape, chars, next(_seeds))] for _ in range(rounds)]
    stream = _streams.setdefault(shape, _copies(shape, random.Random(next(_seeds))))
    return [_take(stream, chars) for _ in range(rounds)]


def describe(shape: str) -> str:
    """The shape's sources in a few words: how many documents, how many characters."""
    docs = sources(shape)
    lines = sum(doc.count("\n") for doc in docs)
    return f"{shape}: {len(docs)} source document(s), {sum(map(len, docs)) / 1e6:.2f} M characters, {lines:,} line breaks"
