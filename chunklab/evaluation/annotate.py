"""Questions about your own document, with exact answer spans: the annotation helper.

To measure chunkers on your own document you need questions whose answers are exact spans of its
text. Type or paste the answer as it reads in the document, and the helper finds where:

* `check_excerpt` reports what it found, without raising (for a form or a widget): the one span
  (``"found"``), every occurrence of an excerpt that occurs more than once (``"ambiguous"``), or, for
  one that does not occur (``"missing"``), the nearest passage: the same words in other letter case,
  else the most similar run of as many words (`difflib`), with the words in which it differs. A
  near match is only *offered*: to use it, pass its text, which is the document's own.
* Whitespace does not count: an excerpt pasted with a line break where the document has a space, or
  with a trailing newline, is found, and its span and text are the document's own; the check says
  so (``whitespace=True``), and `locate` and `make_question` warn (`AnnotationNote`).
* `locate` returns the answer span, and raises `AmbiguousExcerpt` or `ExcerptNotFound` (whose
  message shows the occurrences or the nearest match and how it differs) unless one span is meant:
  an ambiguous excerpt is settled by `after` (text that comes before it: the first occurrence after
  it is taken) or by `occurrence` (its number, from 0); `make_question` takes both too.
* `make_question` builds a question record in the course's format (``data/questions_dev.jsonl``):
  ``{"id", "doc", "question", "kind", "answers": [{"start", "end", "text"}]}``; an answer the
  document gives in several places is `either` of them (its other spans are its ``"alternatives"``,
  any one of which answers it).
* `save_questions` appends records to a JSON Lines file after checking the whole file with the reader
  that ``chunklab evaluate --questions`` uses (`chunklab.formats.readers.read_questions`), and returns
  the questions as read back, ready for `chunklab.compare`. A question already in the file (about
  the same document, with the same answer spans or the same wording) is not added again: the very
  same record is left as it is, another one is refused, or replaces the saved one with
  ``duplicates="replace"``; an `AnnotationNote` names the question and the saved id.
"""

from __future__ import annotations

import difflib
import json
import os
import pathlib
import re
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..formats.corpus import QUESTION_KINDS
from ..formats.document import Document
from ..formats.readers import DocumentError, read_questions
from ..text.words import word_spans

__all__ = [
    "AmbiguousExcerpt",
    "AnnotationNote",
    "Either",
    "ExcerptCheck",
    "ExcerptNotFound",
    "NearMatch",
    "check_excerpt",
    "differences",
    "either",
    "locate",
    "make_question",
    "nearest_match",
    "occurrences",
    "save_questions",
    "saved_twin",
]

#: How similar (difflib's ratio) a passage must be to be offered for an excerpt that does not occur.
CLOSE_ENOUGH = 0.6
_CONTEXT = 30  # characters shown on each side of an occurrence
_ANCHORS = 5  # the excerpt's rarest words whose places in the document are tried
_SHOWN_DIFFERENCES = 3  # the differences a near match lists before counting the rest


class AnnotationNote(UserWarning):
    """What the helper did that you should know: an excerpt matched with other whitespace than the
    document's, a question already saved left as it was or replaced. Always shown."""


warnings.simplefilter("always", AnnotationNote)


@dataclass(frozen=True)
class NearMatch:
    """A passage of the document close to an excerpt that does not occur in it: offered, never taken.

    ``text`` is the document's own ``text[start:end]``; ``why`` says how it was found
    (``"whitespace"``, ``"letter case"``, or ``"similar words (87%)"``) and ``differences`` where it
    differs from the excerpt, word by word (`differences`)."""

    start: int
    end: int
    text: str
    why: str
    differences: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExcerptCheck:
    """What `check_excerpt` found for an excerpt: ``status`` ``"found"`` (``span`` set),
    ``"ambiguous"`` (every occurrence in ``occurrences``) or ``"missing"`` (``nearest`` if any).
    ``whitespace`` is True when the occurrences were found only with other whitespace than the
    excerpt's: their spans and texts are the document's."""

    excerpt: str
    status: Literal["found", "ambiguous", "missing"]
    occurrences: tuple[tuple[int, int], ...] = ()
    nearest: NearMatch | None = None
    span: tuple[int, int] | None = field(default=None)
    whitespace: bool = False

    def describe(self, text: str) -> str:
        """One paragraph for the annotator: where the excerpt is, or why it cannot be used as it is."""
        short = _shorten(self.excerpt)
        spaced = (" with other whitespace than yours (the answer is the document's text, as it has it)"
                  if self.whitespace else "")
        if self.status == "found":
            start, end = self.span  # type: ignore[misc]
            found = f"{short} found at [{start}, {end}){spaced}"
            return found + (f": {text[start:end]!r}" if self.whitespace else "")
        if self.status == "ambiguous":
            places = "\n".join(
                f"  occurrence={i}: [{s}, {e}) ...{_around(text, s, e)}..." for i, (s, e) in enumerate(self.occurrences)
            )
            return (f"{short} occurs {len(self.occurrences)} times{spaced}; choose one with occurrence=N or with "
                    f"after='text that comes before it':\n{places}")
        if self.nearest is None:
            return f"{short} does not occur in the document, and no passage is close to it"
        near = self.nearest
        return (f"{short} does not occur in the document. The nearest passage ({near.why}, at [{near.start}, "
                f"{near.end})) is different text: {'; '.join(near.differences)}. It reads {near.text!r}; if that is "
                f"what you mean, pass that text (it is never taken for you)")


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


def _spaced_occurrences(text: str, excerpt: str) -> list[tuple[int, int]]:
    """Every span of `text` that reads `excerpt`'s words with any whitespace between them (at least
    one whitespace character wherever the excerpt has some), none before or after."""
    pattern = r"\s+".join(map(re.escape, excerpt.split()))
    return [(found.start(), found.end()) for found in re.finditer(pattern, text)]


def check_excerpt(text: str, excerpt: str) -> ExcerptCheck:
    """Where `excerpt` is in `text`: found once, ambiguous, or missing with the nearest passage
    offered. An excerpt that does not occur as it is, but does with other whitespace, is found
    (``whitespace=True``), with the document's spans."""
    if not excerpt.strip():
        raise ValueError("the excerpt is empty: paste the words of the answer as the document has them")
    spans, whitespace = occurrences(text, excerpt), False
    if not spans:
        spans = _spaced_occurrences(text, excerpt)
        whitespace = bool(spans)
    if len(spans) == 1:
        return ExcerptCheck(excerpt, "found", tuple(spans), span=spans[0], whitespace=whitespace)
    if spans:
        return ExcerptCheck(excerpt, "ambiguous", tuple(spans), whitespace=whitespace)
    return ExcerptCheck(excerpt, "missing", nearest=nearest_match(text, excerpt))


def locate(text: str, excerpt: str, *, after: str | None = None, occurrence: int | None = None) -> dict[str, Any]:
    """The answer ``{"start", "end", "text"}`` for `excerpt`, an exact span of `text`.

    An excerpt that occurs more than once needs `after` (text before the wanted occurrence, which must
    itself occur once: the first occurrence after it is taken) or `occurrence` (0 for the first);
    otherwise `AmbiguousExcerpt`. One that does not occur raises `ExcerptNotFound`, naming the
    nearest passage and how it differs; it is not taken. An excerpt found only with other whitespace
    gives the document's span and text, with an `AnnotationNote` saying so."""
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
    if check.whitespace:
        warnings.warn(f"{_shorten(excerpt)} was found with other whitespace than yours at [{start}, {end}); the "
                      f"answer is the document's text: {_shorten(text[start:end])}", AnnotationNote, stacklevel=2)
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
            return NearMatch(found.start(), found.end(), found.group(), why,
                             differences(excerpt, found.group(), found.start()))
    return _similar_words(text, excerpt)


def differences(excerpt: str, passage: str, start: int = 0) -> tuple[str, ...]:
    """Where `passage` (the document's text from `start`) differs from `excerpt`, word by word, in
    plain words: ``"yours has 'eight' where the document has 'seven' (at 1,204)"``, ``"yours has
    'very' where the document has nothing (at 88)"``, ``"the document has 'all' where yours has
    nothing (at 90)"``; whitespace alone is ``"only the whitespace differs"``. At most three are
    listed, then how many more."""
    mine, theirs = excerpt.split(), [(m.group(), m.start()) for m in re.finditer(r"\S+", passage)]
    words = [word for word, _ in theirs]
    said = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, mine, words, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        at = start + (theirs[j1][1] if j1 < len(theirs) else len(passage))
        yours, document = " ".join(mine[i1:i2]), " ".join(words[j1:j2])
        if op == "replace":
            said.append(f"yours has {yours!r} where the document has {document!r} (at {at:,})")
        elif op == "delete":
            said.append(f"yours has {yours!r} where the document has nothing (at {at:,})")
        else:
            said.append(f"the document has {document!r} where yours has nothing (at {at:,})")
    if not said:
        return ("only the whitespace differs",)
    if len(said) > _SHOWN_DIFFERENCES:
        said = [*said[:_SHOWN_DIFFERENCES], f"and {len(said) - _SHOWN_DIFFERENCES} more differences"]
    return tuple(said)


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
    passage = text[best[0] : best[1]]
    return NearMatch(best[0], best[1], passage, f"similar words ({best_ratio:.0%})",
                     differences(excerpt, passage, best[0]))


@dataclass(frozen=True)
class Either:
    """One answer that the document gives in several places, any one of which answers it (`either`)."""

    excerpts: tuple[str | Mapping[str, Any], ...]


def either(*excerpts: str | Mapping[str, Any]) -> Either:
    """One answer with several acceptable excerpts, for a document that says the same thing twice:
    pass it to `make_question` in place of an excerpt. Each is a string or a `locate` answer; the
    first becomes the answer's span, the others its ``"alternatives"``, and a reader sent any one of
    them has the answer (`chunklab.evaluation.metrics`)."""
    if len(excerpts) < 2:
        raise ValueError(f"either needs at least two excerpts of the same answer, got {len(excerpts)}")
    return Either(tuple(excerpts))


def make_question(
    document: Document,
    question: str,
    answers: str | Mapping[str, Any] | Either | Sequence[str | Mapping[str, Any] | Either],
    *,
    kind: str | None = None,
    id: str | None = None,
    after: str | None = None,
    occurrence: int | None = None,
) -> dict[str, Any]:
    """A question record about `document` in the course's format.

    `answers` is one answer or several (a question whose answer is in several places needs each):
    each a string, located with `locate` (so it must occur exactly once, unless `after` or
    `occurrence` says which occurrence is meant, as for `locate`), an answer ``{"start", "end",
    "text"}`` that `locate` returned (checked to be exact), or `either` of several excerpts that
    each answer it. `after` and `occurrence` choose among the occurrences of a single excerpt; with
    several, locate the ambiguous one with `locate` and pass what it returns. `kind` defaults to
    ``"fact"`` for one answer and ``"multi_excerpt"`` for several (one of
    `chunklab.formats.corpus.QUESTION_KINDS`); `id` may be left for `save_questions` to assign."""
    if not question.strip():
        raise ValueError("the question is empty")
    items = [answers] if isinstance(answers, (str, Mapping, Either)) else list(answers)
    if not items:
        raise ValueError("a question needs at least one answer excerpt")
    if (after is not None or occurrence is not None) and not (len(items) == 1 and isinstance(items[0], str)):
        raise ValueError("after= and occurrence= choose among the occurrences of one excerpt; with several answers, "
                         "pass locate(document.text, excerpt, after=...) in place of the ambiguous excerpt")
    located = []
    for item in items:
        if not isinstance(item, Either):
            located.append(_answer(document, item, len(items) == 1, after, occurrence))
            continue
        spans = [_answer(document, excerpt, False) for excerpt in item.excerpts]
        if len({(a["start"], a["end"]) for a in spans}) < len(spans):
            raise ValueError(f"the excerpts of either(...) must be different places of {document.name!r}, got "
                             f"{[(a['start'], a['end']) for a in spans]}")
        located.append({**spans[0], "alternatives": spans[1:]})
    kind = kind or ("fact" if len(located) == 1 else "multi_excerpt")
    if kind not in QUESTION_KINDS:
        raise ValueError(f"kind must be one of {list(QUESTION_KINDS)}, got {kind!r}")
    record: dict[str, Any] = {} if id is None else {"id": id}
    record.update({"doc": document.name, "question": question.strip(), "kind": kind, "answers": located})
    return record


def _answer(document: Document, item: str | Mapping[str, Any], alone: bool, after: str | None = None,
            occurrence: int | None = None) -> dict[str, Any]:
    """One excerpt of `make_question` as an answer: located, or checked to be exact. An ambiguous
    excerpt that is not `alone` gets the advice to locate it first."""
    if not isinstance(item, str):
        return _exact(document, item)
    try:
        return locate(document.text, item, after=after, occurrence=occurrence)
    except AmbiguousExcerpt as error:
        if alone:
            raise
        raise AmbiguousExcerpt(f"{error}\nWith several excerpts, pass locate(document.text, excerpt, occurrence=N) "
                               f"or locate(..., after='...') in place of this one", error.occurrences) from None


def _exact(document: Document, answer: Mapping[str, Any]) -> dict[str, Any]:
    start, end, text = answer.get("start"), answer.get("end"), answer.get("text")
    if not (isinstance(start, int) and isinstance(end, int)) or document.text[start:end] != text:
        raise ValueError(f"answer {dict(answer)!r} is not an exact span of {document.name!r}")
    return {"start": start, "end": end, "text": text}


def save_questions(
    path: str | os.PathLike[str],
    questions: Sequence[Mapping[str, Any]],
    documents: Document | Sequence[Document],
    *,
    duplicates: Literal["refuse", "replace"] = "refuse",
) -> list[dict[str, Any]]:
    """Append `questions` to the JSON Lines file `path` (created if need be) and return every question
    of the file as ``chunklab evaluate --questions`` reads it.

    A question without an ``id`` gets ``"<document stem>-NNN"``, the next number free in the file.
    A question already saved (`saved_twin`: the same document and answer spans, or the same document
    and wording) is never added twice, so running the same cell again changes nothing: a record the
    same as the saved one in document, wording, kind and spans is left as it is; any other is refused
    (`chunklab.formats.readers.DocumentError`, nothing written) unless ``duplicates="replace"``, which
    puts it in the saved one's place under the saved id. An `AnnotationNote` names each question
    left or replaced and its id. The file is written only if all of it reads back through
    `chunklab.formats.readers.read_questions` against `documents` (exact spans, known documents,
    unique ids); otherwise it is left as it was and `chunklab.formats.readers.DocumentError` says why."""
    if duplicates not in ("refuse", "replace"):
        raise ValueError(f"duplicates must be 'refuse' or 'replace', got {duplicates!r}")
    path = pathlib.Path(path)
    documents = [documents] if isinstance(documents, Document) else list(documents)
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    lines = existing.splitlines()
    saved = {number: json.loads(line) for number, line in enumerate(lines) if line.strip()}
    taken = {record.get("id") for record in saved.values()}
    for question in questions:
        record = dict(question)
        twin = saved_twin(record, saved)
        if twin is not None:
            number, why = twin
            old = saved[number]
            name = old.get("id", f"{path.name}:{number + 1}")
            if _key(old) == _key(record):
                warnings.warn(f"{_shorten(record['question'])} is already saved as {name!r}: left as it is",
                              AnnotationNote, stacklevel=2)
                continue
            if duplicates == "refuse":
                raise DocumentError(f"{path}: {_shorten(record['question'])} has {why} as {name!r} "
                                    f"({_shorten(old['question'])}), saved on line {number + 1}; pass "
                                    "duplicates='replace' to put it in that one's place")
            record = {"id": name, **{k: v for k, v in record.items() if k != "id"}} if "id" in old else record
            warnings.warn(f"{_shorten(record['question'])} replaces {name!r} ({_shorten(old['question'])}), "
                          f"which had {why}", AnnotationNote, stacklevel=2)
        else:
            if "id" not in record:
                record = {"id": _free_id(pathlib.PurePath(record["doc"]).stem, taken), **record}
            number = len(lines)
            lines.append("")
        taken.add(record.get("id"))
        saved[number] = record
        lines[number] = json.dumps(record, ensure_ascii=False)
    content = "".join(line + "\n" for line in lines)
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


def saved_twin(record: Mapping[str, Any], saved: Mapping[int, Mapping[str, Any]]) -> tuple[int, str] | None:
    """The first of `saved` (line number: record) that `record` repeats, with why: ``"the same answer
    spans"`` (the same document and set of spans) or ``"the same wording"`` (the same document and
    question, letter case and whitespace aside); None when it repeats none."""
    spans, wording = _spans(record), _wording(record)
    for number, old in saved.items():
        if old.get("doc") != record.get("doc"):
            continue
        if _spans(old) == spans:
            return number, "the same answer spans"
        if _wording(old) == wording:
            return number, "the same wording"
    return None


def _spans(record: Mapping[str, Any]) -> frozenset[tuple[Any, Any]]:
    return frozenset((a.get("start"), a.get("end")) for a in record.get("answers", ()) if isinstance(a, Mapping))


def _wording(record: Mapping[str, Any]) -> str:
    return " ".join(str(record.get("question", "")).split()).casefold()


def _key(record: Mapping[str, Any]) -> tuple[Any, ...]:
    """What makes two records the same question, whatever their ids."""
    return record.get("doc"), _wording(record), record.get("kind"), json.dumps(record.get("answers"), sort_keys=True)


def _free_id(stem: str, taken: set[Any]) -> str:
    number = 1
    while f"{stem}-{number:03d}" in taken:
        number += 1
    return f"{stem}-{number:03d}"


def _shorten(text: str, width: int = 60) -> str:
    return repr(text if len(text) <= width else text[: width - 3] + "...")


def _around(text: str, start: int, end: int) -> str:
    return text[max(0, start - _CONTEXT) : min(len(text), end + _CONTEXT)].replace("\n", " ")
