"""Numbered clauses: the headings of plain-text legal and formal documents.

Contracts, policies and standards rarely mark their headings up; they number them instead::

    4. FEES AND PAYMENT                      a clause (rank 1)
    4.2 The Supplier shall invoice ...       a sub-clause (rank 2: two numbers)
    (a) provide timely access ...            an item (one rank below the clause it sits in)
    SCHEDULE 2: FEES                         a capitalised heading line (rank 1)

That is text structure, not markup, so a careful line-start pattern is the right tool.
`clause_headings` returns one heading `Block` per clause line, with exact offsets. The rules:

* A **decimal clause** starts a line (after at most three spaces): ``4.`` (one number needs its
  dot), ``4.2`` or ``4.2.1`` (a final dot is allowed), then whitespace and text. Its rank is the
  count of numbers. It must continue the numbering: a top-level number must be larger than the
  previous top-level one, and a sub-clause must sit under its parent's number (``4.2`` inside
  clause 4). A single number that breaks the sequence (the ``1.``, ``2.`` of a list inside a
  schedule) is an item of the section it is in; a longer one (``71.6 million`` at the start of a
  wrapped line) is no heading at all.
* An **item** is ``(a)``, ``(iv)``, ``(B)`` or ``(3)`` at a line start. Its rank is one more than
  the clause or heading it sits in; items inside items are not told apart (a nested ``(i)`` under
  ``(a)`` gets the same rank as ``(a)``).
* A **capitalised heading** is a line that starts after a blank line (or the text's start), has no
  lowercase letter, starts with a capital letter, holds at most 80 characters and does not end in
  a colon (``BETWEEN:`` introduces what follows rather than titling it). Its rank is 1.

A heading's title is its whole line when that line is short and has no punctuation (a title such
as ``4. FEES AND PAYMENT``), else the number or letter alone (``4.2``, ``(a)``).

What it gets wrong, by construction: a hard-wrapped sentence whose next line happens to begin with
a number (``3.5 metres ...``) inside clause 3 looks like clause 3.5; a heading without a number or
capitals (``Part A: Service Levels``) is body text.
"""

from __future__ import annotations

import re

from ..caches import PER_TEXT, cached
from .blocks import Block

__all__ = ["clause_headings"]

_CLAUSE = re.compile(
    r"^[ \t]{0,3}(?:(?P<number>\d{1,3}(?:\.\d{1,3})+\.?|\d{1,3}\.)|\((?P<item>[a-zA-Z]{1,4}|\d{1,3})\))"
    r"[ \t]+(?P<rest>\S[^\r\n]*)",
    re.MULTILINE,
)
_CAPITALS = re.compile(r"^[ \t]{0,3}(?P<line>[A-Z][^a-z\r\n]{0,79})[ \t]*\r?$", re.MULTILINE)
_SHORT_TITLE = 60


@cached(PER_TEXT)
def clause_headings(text: str) -> tuple[Block, ...]:
    """Every clause, item and capitalised heading line of `text`, in order (cached per text).

    Each is a ``Block("heading", start, end, level=rank, title=...)`` spanning its whole line
    (trimmed), with ``attrs["marker"]`` (``"4.2"``, ``"(a)"``, or ``""`` for a capitalised line)
    and ``attrs["clause"]``: ``"decimal"``, ``"item"`` or ``"capitals"``.
    """
    candidates = sorted([*_numbered(text), *_capitalised(text)])
    headings: list[Block] = []
    open_path: list[int] = []  # numbers of the innermost open decimal clause, e.g. [4, 2]
    last_top: int | None = None
    current_rank = 0  # rank of the innermost open clause or capitalised heading
    for start, end, kind, marker, rest in candidates:
        if kind == "decimal":
            numbers = [int(n) for n in marker.rstrip(".").split(".")]
            if _continues(numbers, open_path, last_top):
                open_path = numbers
                last_top = numbers[0] if len(numbers) == 1 else last_top
                current_rank = len(numbers)
                headings.append(_heading(start, end, current_rank, marker, rest, "decimal"))
                continue
            if len(numbers) > 1:
                continue  # "71.6 million ..." on a wrapped line: a number, not a clause
            kind = "item"  # "1." breaking the sequence: a list inside the current section
        if kind == "capitals":
            open_path, current_rank = [], 1
            headings.append(_heading(start, end, 1, "", rest, "capitals"))
        else:
            headings.append(_heading(start, end, current_rank + 1, marker, rest, "item"))
    return tuple(headings)


def _numbered(text: str) -> list[tuple[int, int, str, str, str]]:
    out = []
    for m in _CLAUSE.finditer(text):
        marker = m["number"] or f"({m['item']})"
        out.append((m.start("number") if m["number"] else m.start() + m[0].index("("), m.end("rest"),
                    "decimal" if m["number"] else "item", marker, m["rest"].rstrip()))
    return out


def _capitalised(text: str) -> list[tuple[int, int, str, str, str]]:
    out = []
    for m in _CAPITALS.finditer(text):
        line = m["line"].rstrip()
        if (
            sum(c.isalpha() for c in line) < 2
            or any(c.islower() for c in line)
            or line.endswith(":")
            or _CLAUSE.match(line)
            or not _after_blank_line(text, m.start())
        ):
            continue
        out.append((m.start("line"), m.start("line") + len(line), "capitals", "", line))
    return out


def _continues(numbers: list[int], open_path: list[int], last_top: int | None) -> bool:
    """Does a decimal clause numbered `numbers` continue the document's numbering?"""
    if len(numbers) == 1:
        return last_top is None or numbers[0] > last_top
    return numbers[:-1] == open_path[: len(numbers) - 1]


def _after_blank_line(text: str, pos: int) -> bool:
    """Is the line starting at `pos` the text's first line, or preceded by a blank line?"""
    pos = _skip_back(text, pos, " \t")
    if pos == 0:
        return True
    pos = _skip_back(text, pos - 1, "\r") if text[pos - 1] == "\n" else pos - 1
    pos = _skip_back(text, pos, " \t")
    return pos == 0 or text[pos - 1] in "\r\n"


def _skip_back(text: str, pos: int, chars: str) -> int:
    while pos > 0 and text[pos - 1] in chars:
        pos -= 1
    return pos


def _heading(start: int, end: int, rank: int, marker: str, rest: str, kind: str) -> Block:
    if kind == "capitals":
        title = rest
    elif len(rest) <= _SHORT_TITLE and not any(mark in rest for mark in ".;:,!?"):
        title = f"{marker} {rest}"
    else:
        title = marker
    return Block("heading", start, end, level=rank, title=title, attrs={"marker": marker, "clause": kind})
