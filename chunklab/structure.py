"""Structures a chunk boundary should not cut: fenced code blocks and table rows, with exact offsets.

Every function returns ``list[tuple[int, int]]``: half-open character spans into the text it was
given, sorted and non-overlapping, trimmed of surrounding whitespace, so they can be handed to
`chunklab.segment.cut_spans` or to the structure metrics of `chunklab.evaluate`.

Detection is rule-based and deliberately modest:

* code blocks: CommonMark fences (three or more backticks or tildes, indented at most three spaces,
  closed by a fence of the same character at least as long; an unclosed fence runs to the end);
* markdown tables: a header line with pipes, a delimiter line such as ``|---|:--:|`` with the same
  number of cells, then every following non-blank line that contains a pipe; lines inside code
  blocks are never table rows;
* HTML rows: ``<tr ...>`` up to its ``</tr>``, or, where the closing tag is omitted, up to the next
  ``<tr``, ``</tbody>``, ``</thead>``, ``</tfoot>`` or ``</table>`` (nested tables are not handled);
* CSV rows: records separated by line breaks outside double quotes (a quoted field may span lines).
  Only text known to be CSV should be read this way, which is why `table_row_spans` asks for it.
"""

from __future__ import annotations

import re
from typing import Iterator

from .segment import trim_span
from .spans import Span

__all__ = [
    "code_block_spans",
    "csv_row_spans",
    "html_table_row_spans",
    "markdown_table_row_spans",
    "table_row_spans",
]


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_DELIMITER_CELL = re.compile(r"^\s*:?-+:?\s*$")
_TR_OPEN = re.compile(r"<tr\b[^>]*>", re.IGNORECASE)
_TR_END = re.compile(r"</tr\s*>|<tr\b|</(?:tbody|thead|tfoot|table)\s*>", re.IGNORECASE)


def _lines(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of every line, without its line terminator."""
    pos = 0
    for line in text.splitlines(keepends=True):
        content = line.rstrip("\r\n")
        yield pos, pos + len(content)
        pos += len(line)


def code_block_spans(text: str) -> list[Span]:
    """Fenced code blocks, from the opening fence to the end of the closing fence."""
    spans: list[Span] = []
    opening: tuple[int, str] | None = None  # (start offset, fence string)
    last_end = 0
    for start, end in _lines(text):
        line = text[start:end]
        match = _FENCE.match(line)
        if opening is None:
            if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
                opening = (start + match.start(1), match.group(1))
        elif match and match.group(1)[0] == opening[1][0] and len(match.group(1)) >= len(opening[1]):
            if not match.group(2).strip():
                spans.append(trim_span(text, opening[0], end))
                opening = None
        last_end = end
    if opening is not None:
        spans.append(trim_span(text, opening[0], last_end))
    return spans


def _cells(line: str) -> list[str]:
    """The cells of a markdown table line (outer pipes optional, ``\\|`` is not a separator)."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return re.split(r"(?<!\\)\|", body)


def _is_delimiter(line: str) -> bool:
    return "-" in line and all(_DELIMITER_CELL.match(cell) for cell in _cells(line))


def markdown_table_row_spans(text: str) -> list[Span]:
    """Every line of every pipe table (header, delimiter and body rows), outside code blocks."""
    blocks = code_block_spans(text)
    lines = [
        (s, e) for s, e in _lines(text) if not any(bs <= s < be for bs, be in blocks)
    ]
    spans: list[Span] = []
    i = 0
    while i + 1 < len(lines):
        header, delimiter = (text[s:e] for s, e in lines[i : i + 2])
        contiguous = lines[i + 1][0] - lines[i][1] <= 2  # the delimiter is the very next line
        if contiguous and "|" in header and _is_delimiter(delimiter) and len(_cells(header)) == len(_cells(delimiter)):
            j = i + 2
            while j < len(lines) and "|" in text[lines[j][0] : lines[j][1]] and lines[j][0] - lines[j - 1][1] <= 2:
                j += 1
            spans.extend(trim_span(text, s, e) for s, e in lines[i:j])
            i = j
        else:
            i += 1
    return [(s, e) for s, e in spans if s < e]


def html_table_row_spans(text: str) -> list[Span]:
    """HTML ``<tr>`` elements, including their closing tag when there is one."""
    spans: list[Span] = []
    for match in _TR_OPEN.finditer(text):
        if spans and match.start() < spans[-1][1]:
            continue
        end_match = _TR_END.search(text, match.end())
        if end_match is None:
            end = len(text)
        elif end_match.group(0).lower().startswith("</tr"):
            end = end_match.end()
        else:
            end = end_match.start()
        s, e = trim_span(text, match.start(), end)
        if s < e:
            spans.append((s, e))
    return spans


def csv_row_spans(text: str) -> list[Span]:
    """CSV records: line breaks inside double-quoted fields do not end a record."""
    spans: list[Span] = []
    start, quoted = 0, False
    for pos, char in enumerate(text):
        if char == '"':
            quoted = not quoted  # an escaped quote ("") toggles twice, leaving the state unchanged
        elif char == "\n" and not quoted:
            spans.append(trim_span(text, start, pos))
            start = pos + 1
    spans.append(trim_span(text, start, len(text)))
    return [(s, e) for s, e in spans if s < e]


def table_row_spans(text: str, csv: bool = False) -> list[Span]:
    """Markdown and HTML table rows of `text`, or, with ``csv=True``, its CSV records.

    A row found by both detectors (an HTML table inside markdown, say) is kept once: where spans
    overlap, the one that starts first wins, so the result stays sorted and non-overlapping.
    """
    if csv:
        return csv_row_spans(text)
    merged: list[Span] = []
    for span in sorted(markdown_table_row_spans(text) + html_table_row_spans(text)):
        if not merged or span[0] >= merged[-1][1]:
            merged.append(span)
    return merged
