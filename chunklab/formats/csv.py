"""CSV records with exact spans: the quote-aware record scanner every CSV reader in chunklab shares."""

from __future__ import annotations

import re

from ..text.spans import Span, trim_span

__all__ = ["csv_row_spans"]

_QUOTE_OR_BREAK = re.compile(r'["\n]')


def csv_row_spans(text: str) -> list[Span]:
    """CSV records: line breaks inside double-quoted fields do not end a record.

    The scan jumps from one quote or line break to the next (a quoted field to its closing quote);
    an escaped quote (``""``) closes the field and opens it again, leaving it open. A quote that is
    never closed keeps the rest of the text in its record.
    """
    spans: list[Span] = []
    start = pos = 0
    while (found := _QUOTE_OR_BREAK.search(text, pos)) is not None:
        pos = found.start()
        if text[pos] == '"':
            close = text.find('"', pos + 1)
            if close < 0:
                break
            pos = close + 1
        else:
            spans.append(trim_span(text, start, pos))
            start = pos = pos + 1
    spans.append(trim_span(text, start, len(text)))
    return [(s, e) for s, e in spans if s < e]
