"""Lines and paragraphs with exact offsets.

Both functions return trimmed, non-empty, ordered ``(start, end)`` spans into the text they are given;
a paragraph is what lies between blank lines, in LF or CRLF text.
"""

from __future__ import annotations

import re

from .spans import trim_span

__all__ = ["line_spans", "paragraph_spans"]

# A blank-line break. It starts at the first line feed, not at a "\r" before it: a pattern that
# starts with a literal lets the regex engine jump between line feeds (one that starts with "\r?"
# tries every position, ten times slower), and the "\r" it leaves out is trimmed off the paragraph.
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\f\v]*(?:\r?\n[ \t\f\v]*)+")
_LINE = re.compile(r"[^\r\n]+")


def line_spans(text: str) -> list[tuple[int, int]]:
    """Non-blank lines, trimmed (handles LF and CRLF)."""
    spans = (trim_span(text, *m.span()) for m in _LINE.finditer(text))
    return [(s, e) for s, e in spans if s < e]


def paragraph_spans(text: str) -> list[tuple[int, int]]:
    """Blocks separated by one or more blank lines, trimmed."""
    spans, start = [], 0
    for m in _PARAGRAPH_BREAK.finditer(text):
        spans.append(trim_span(text, start, m.start()))
        start = m.end()
    spans.append(trim_span(text, start, len(text)))
    return [(s, e) for s, e in spans if s < e]
