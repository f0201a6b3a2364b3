"""Questions about your own document, with exact answer spans: the annotation helper.

To measure chunkers on your own document you need questions whose answers are exact spans of its
text. Type or paste the answer as it reads in the document, and the helper finds where:

* `check_excerpt` reports what it found, without raising (for a form or a widget): the one span
  (``"found"``), every occurrence of an excerpt that occurs more than once (``"ambiguous"``), or, for
  one that does not occur (``"missing"``), the nearest passage: the same words with other whitespace
  or letter case, else the most similar run of as many words (`difflib`). A near match is only
  *offered*: to use it, pass its text, which is the document's own.
* `locate` returns the answer span, and raises `AmbiguousExcerpt` or `ExcerptNotFound` (whose
  message shows the occurrences or the nearest match) unless one span is meant: an ambiguous
  excerpt is settled by `after` (text that comes before it: the first occurrence after it is taken)
  or by `occurrence` (its number, from 0).
* `make_question` builds a question record in the course's format (``data/questions_dev.jsonl``):
  ``{"id", "doc", "question", "kind", "answers": [{"start", "end", "text"}]}``.
* `save_questions` appends records to a JSON Lines file after checking the whole file with the reader
  that ``chunklab evaluate --questions`` uses (`chunklab.formats.readers.read_questions`), and returns
  the questions as read back, ready for `chunklab.compare`.
"""

from __future__ import annotations

import difflib
import json
import os
import pathlib
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..formats.corpus import QUESTION_KINDS
from ..formats.document import Document
from ..formats.readers import DocumentError, read_questions
from ..text.words import word_spans

__all__ = [
    "AmbiguousExcerpt",
    "ExcerptCheck",
    "ExcerptNotFound",
    "NearMatch",
    "check_excerpt",
    "locate",
    "make_question",
    "nearest_match",
    "occurrences",
    "save_questions",
]

#: How similar (difflib's ratio) a passage must be to be offered for an excerpt that does not occur.
CLOSE_ENOUGH = 0.6
_CONTEXT = 30  # characters shown on each side of an occurrence
_ANCHORS = 5  # the excerpt's rarest words whose places in the document are tried


@dataclass(frozen=True)
class NearMatch:
    """A passage of the document close to an excerpt that does not occur in it: offered, never taken.

    ``text`` is the document's own ``text[start:end]``; ``why`` says how it differs (``"whitespace"``,
    ``"letter case"``, or ``"similar words (87%)"``)."""

    start: int
    end: int
    text: str
    why: str


@dataclass(frozen=True)
class ExcerptCheck:
    """What `check_excerpt` found for an excerpt: ``status`` ``"found"`` (``span`` set),
    ``"ambiguous"`` (every occurrence in ``occurrences``) or ``"missing"`` (``nearest`` if any)."""

    excerpt: str
    status: Literal["found", "ambiguous", "missing"]
    occurrences: tuple[tuple[int, int], ...] = ()
    nearest: NearMatch | None = None
    span: tuple[int, int] | None = field(default=None)

    def describe(self, text: str) -> str:
        """One paragraph for the annotator: where the excerpt is, or why it cannot be used as it is."""
        short = _shorten(self.excerpt)
        if self.status == "found":
            start, end = self.span  # type: ignore[misc]
            return f"{short} found at [{start}, {end})"
        if self.status == "ambiguous":
            places = "\n".join(
                f"  occurrence={i}: [{s}, {e}) ...{_around(text, s, e)}..." for i, (s, e) in enumerate(self.occurrences)
            )
            return (f"{short} occurs {len(self.occurrences)} times; choose one with occurrence=N or with after='text "
                    f"that comes before it':\n{places}")
        if self.nearest is None:
            return f"{short} does not occur in the document, and no passage is close to it"
        near = self.nearest
        return (f"{short} does not occur in the document. Nearest ({near.why}) at [{near.start}, {near.end}): "
                f"{near.text!r}; to use it, pass that text")


class ExcerptNotFound(ValueError):
    """The excerpt does not occur in the document; ``nearest`` is the closest passage, if any."""

    def __init__(self, message: str, nearest: NearMatch | None) -> None:
        super().__init__(message)
        self.nearest = nearest


class AmbiguousExcerpt(ValueError):
    """The excerpt occurs more than once; ``occurrences`` lists the spans to choose from."""

    def __init__(self, message: str, occurrences: Sequence[tuple[int, int]]) -> None:
        super().__init__(message)
        self.occurrences = tuple(occurrences)


def occurrences(text: str, excerpt: str) -> list[tuple[int, int]]:
    """Every span of `text` that reads `excerpt` exactly, overlapping ones included."""
    spans, found = [], text.find(excerpt)
    while found >= 0 and excerpt:
        spans.append((found, found + len(excerpt)))
        found = text.find(excerpt, found + 1)
    return spans


def check_excerpt(text: str, excerpt: str) -> ExcerptCheck:
    """Where `excerpt` is in `text`: found once, ambiguous, or missing with the nearest passage offered."""
    if not excerpt.strip():
        raise ValueError("the excerpt is empty: paste the words of the answer as the document has them")
    spans = occurrences(text, excerpt)
    if len(spans) == 1:
        return ExcerptCheck(excerpt, "found", tuple(spans), span=spans[0])
    if spans:
        return ExcerptCheck(excerpt, "ambiguous", tuple(spans))
    return ExcerptCheck(excerpt, "missing", nearest=nearest_match(text, excerpt))


def locate(text: str, excerpt: str, *, after: str | None = None, occurrence: int | None = None) -> dict[str, Any]:
    """The answer ``{"start", "end", "text"}`` for `excerpt`, an exact span of `text`.

    An excerpt that occurs more than once needs `after` (text before the wanted occurrence, which must
    itself occur once: the first occurrence after it is taken) or `occurrence` (0 for the first);
    otherwise `AmbiguousExcerpt`. One that does not occur raises `ExcerptNotFound`, naming the
    nearest passage, which is not taken."""
    check = check_excerpt(text, excerpt)
    if check.status == "missing":
        raise ExcerptNotFound(check.describe(text), check.nearest)
    spans = list(check.occurrences)
    if after is not None:
        anchors = occurrences(text, after)
        if len(anchors) != 1:
            raise ValueError(f"after={_shorten(after)} occurs {len(anchors)} times; it must occur exactly once")
        spans = [span for span in spans if span[0] >= anchors[0][1]][:1]
        if not spans:
            raise ExcerptNotFound(f"{_shorten(excerpt)} does not occur after {_shorten(after)}", None)
    if occurrence is not None:
        if not 0 <= occurrence < len(spans):
            raise ValueError(f"occurrence must be in [0, {len(spans) - 1}] for {_shorten(excerpt)}, got {occurrence}")
        spans = [spans[occurrence]]
    if len(spans) > 1:
        raise AmbiguousExcerpt(check.describe(text), spans)
    start, end = spans[0]
    return {"start": start, "end": end, "text": text[start:end]}


def nearest_match(text: str, excerpt: str) -> NearMatch | None:
    """The passage of `text` nearest to `excerpt` (which does not occur in it): the same words with
    other whitespace, then with other letter case, else the run of as many words most similar to it
    (at least `CLOSE_ENOUGH`); None when nothing is that close."""
    words = excerpt.split()
    if not words:
        return None
    pattern = r"\s+".join(map(re.escape, words))
    for flags, why in ((0, "whitespace"), (re.IGNORECASE, "letter case")):
        found = re.search(pattern, text, flags)
        if found:
            return NearMatch(found.start(), found.end(), found.group(), why)
    return _similar_words(text, excerpt)


def _similar_words(text: str, excerpt: str) -> NearMatch | None:
    """The run of as many words as `excerpt` most similar to it (difflib's ratio, at least
    `CLOSE_ENOUGH`), among the runs placed by its rarest words where the document has them."""
    spans = word_spans(text)
    wanted = [excerpt[s:e] for s, e in word_spans(excerpt)]
    where: dict[str, list[int]] = {}
    for index, (start, end) in enumerate(spans):
        where.setdefault(text[start:end], []).append(index)
    rarest = sorted({w for w in wanted if w in where}, key=lambda w: len(where[w]))[:_ANCHORS]
    # each place of a rare word, and a word either side (an excerpt cut inside its first word)
    firsts = {max(0, index - wanted.index(word) + shift) for word in rarest for index in where[word]
              for shift in (-1, 0, 1)}
    best, best_ratio = None, CLOSE_ENOUGH
    for first in sorted(firsts):
        start, end = spans[first][0], spans[min(first + len(wanted), len(spans)) - 1][1]
        ratio = difflib.SequenceMatcher(None, excerpt, text[start:end]).ratio()
        if ratio >= best_ratio:
            best, best_ratio = (start, end), ratio
    if best is None:
        return None
    return NearMatch(best[0], best[1], text[best[0] : best[1]], f"similar words ({best_ratio:.0%})")


def make_question(
    document: Document,
    question: str,
    answers: str | Mapping[str, Any] | Sequence[str | Mapping[str, Any]],
    *,
    kind: str | None = None,
    id: str | None = None,
) -> dict[str, Any]:
    """A question record about `document` in the course's format.

    `answers` is one excerpt or several: each a string, located with `locate` (so it must occur
    exactly once), or an answer ``{"start", "end", "text"}`` that `locate` returned for an
    ambiguous one (checked to be exact). `kind` defaults to ``"fact"`` for one answer and
    ``"multi_excerpt"`` for several (one of `chunklab.formats.corpus.QUESTION_KINDS`); `id` may be
    left for `save_questions` to assign."""
    if not question.strip():
        raise ValueError("the question is empty")
    items = [answers] if isinstance(answers, (str, Mapping)) else list(answers)
    if not items:
        raise ValueError("a question needs at least one answer excerpt")
    located = [locate(document.text, item) if isinstance(item, str) else _exact(document, item) for item in items]
    kind = kind or ("fact" if len(located) == 1 else "multi_excerpt")
    if kind not in QUESTION_KINDS:
        raise ValueError(f"kind must be one of {list(QUESTION_KINDS)}, got {kind!r}")
    record: dict[str, Any] = {} if id is None else {"id": id}
    record.update({"doc": document.name, "question": question.strip(), "kind": kind, "answers": located})
    return record


def _exact(document: Document, answer: Mapping[str, Any]) -> dict[str, Any]:
    start, end, text = answer.get("start"), answer.get("end"), answer.get("text")
    if not (isinstance(start, int) and isinstance(end, int)) or document.text[start:end] != text:
        raise ValueError(f"answer {dict(answer)!r} is not an exact span of {document.name!r}")
    return {"start": start, "end": end, "text": text}


def save_questions(
    path: str | os.PathLike[str],
    questions: Sequence[Mapping[str, Any]],
    documents: Document | Sequence[Document],
) -> list[dict[str, Any]]:
    """Append `questions` to the JSON Lines file `path` (created if need be) and return every question
    of the file as ``chunklab evaluate --questions`` reads it.

    A question without an ``id`` gets ``"<document stem>-NNN"``, the next number free in the file.
    The file is written only if all of it reads back through
    `chunklab.formats.readers.read_questions` against `documents` (exact spans, known documents,
    unique ids); otherwise it is left as it was and `chunklab.formats.readers.DocumentError` says why."""
    path = pathlib.Path(path)
    documents = [documents] if isinstance(documents, Document) else list(documents)
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    taken = {json.loads(line).get("id") for line in existing.splitlines() if line.strip()}
    lines = []
    for question in questions:
        record = dict(question)
        if "id" not in record:
            record = {"id": _free_id(pathlib.PurePath(record["doc"]).stem, taken), **record}
        taken.add(record["id"])
        lines.append(json.dumps(record, ensure_ascii=False))
    separator = "" if not existing or existing.endswith("\n") else "\n"
    content = existing + separator + "".join(line + "\n" for line in lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, prefix=f".{path.name}.",
                                     suffix=".jsonl", delete=False) as draft:
        draft.write(content)
    try:
        read_questions(draft.name, documents)
    except DocumentError as error:
        raise DocumentError(str(error).replace(draft.name, str(path))) from None
    else:
        os.replace(draft.name, path)
    finally:
        if os.path.exists(draft.name):
            os.unlink(draft.name)
    return read_questions(path, documents)


def _free_id(stem: str, taken: set[Any]) -> str:
    number = 1
    while f"{stem}-{number:03d}" in taken:
        number += 1
    return f"{stem}-{number:03d}"


def _shorten(text: str, width: int = 60) -> str:
    return repr(text if len(text) <= width else text[: width - 3] + "...")


def _around(text: str, start: int, end: int) -> str:
    return text[max(0, start - _CONTEXT) : min(len(text), end + _CONTEXT)].replace("\n", " ")
