"""Structures a chunk boundary should not cut: fenced code blocks and table rows, with exact offsets.

Every function returns ``list[tuple[int, int]]``: half-open character spans into the text it was
given, sorted and non-overlapping, trimmed of surrounding whitespace, so they can be handed to
`chunklab.text.spans.cut_spans` or to the structure metrics of `chunklab.evaluation.metrics`.

Detection uses the same parsers as the strategies (see `chunklab.formats.blocks`), so what a chunker keeps
whole and what the metrics count as cut cannot disagree:

* code blocks: CommonMark fenced code blocks found by markdown-it-py, at any depth (an unclosed
  fence runs to the end; indented code blocks are not counted, because plain-text documents indent
  paragraphs too);
* markdown tables: every line of every GitHub pipe table markdown-it-py finds (header, delimiter and
  body rows); lines inside code blocks are never table rows;
* HTML rows: ``<tr>`` elements from the position-reporting HTML parser of `chunklab.formats.html`,
  including their closing tag, or, where it is omitted, up to where the next row or the table ends;
* CSV rows: records separated by line breaks outside double quotes (a quoted field may span lines).
  Only text known to be CSV should be read this way, which is why `table_row_spans` asks for it.
"""

from __future__ import annotations

from ..text.spans import Span
from .csv import csv_row_spans
from .html import html_row_spans
from .markdown import fence_spans, table_line_spans

__all__ = [
    "fenced_code_spans",
    "html_table_row_spans",
    "markdown_table_row_spans",
    "table_row_spans",
]

def fenced_code_spans(text: str) -> list[Span]:
    """Fenced code blocks, from the opening fence to the end of the closing fence."""
    return fence_spans(text)


def markdown_table_row_spans(text: str) -> list[Span]:
    """Every line of every pipe table (header, delimiter and body rows), outside code blocks."""
    return table_line_spans(text)


def html_table_row_spans(text: str) -> list[Span]:
    """HTML ``<tr>`` elements, including their closing tag when there is one."""
    return html_row_spans(text)


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
