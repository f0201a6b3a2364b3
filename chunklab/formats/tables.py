"""Tables in a text, with exact spans: markdown pipe tables, HTML ``<table>`` elements, CSV text.

One parser per format, as everywhere in chunklab: markdown and HTML tables are the ``table`` blocks
of `chunklab.formats.parse.document_blocks` (markdown-it-py, the position-reporting HTML parser), CSV
records come from the quote-aware scanner `chunklab.formats.csv.csv_row_spans` and are split into
fields by the standard library's `csv` module. A `Table` holds the span of each data row, the
header's column names and every row's cells as plain text, so a chunker can cut between rows and
render any group of rows again (as markdown, or as records for pandas) without re-parsing.

`row_groups` is the shared rule for cutting a table into chunks: consecutive whole rows, at most
`rows` of them and at most a size limit, the header lines travelling with the first group.
"""

from __future__ import annotations

import csv
import functools
import io
from dataclasses import dataclass
from typing import Any, Callable, Literal, Sequence

from ..caches import PER_TEXT, cached
from ..text.pack import fit, last_fitting
from .blocks import Block, DocumentFormat, Modality, heading_trails, modality_of_kinds
from .csv import csv_row_spans
from .parse import document_blocks, guess_format

__all__ = [
    "Table",
    "TableFormat",
    "csv_table",
    "document_parts",
    "looks_like_csv",
    "modality_of",
    "records",
    "render_markdown",
    "resolve_format",
    "row_groups",
    "table_from_block",
    "table_metadata",
]

TableFormat = Literal["markdown", "html", "csv"]

#: How much of a text `looks_like_csv` reads, and how many of its records it checks.
_SNIFF_CHARS = 65_536
_SNIFF_RECORDS = 50


@dataclass(frozen=True)
class Table:
    """One table of a text.

    ``text[start:end]`` is the whole table (header included). `rows` are the spans of the data
    rows (the header row excluded), `cells` their cells as plain text, one tuple per row;
    `columns` are the header's cells (empty when the table has no header row). `caption` is an
    HTML ``<caption>``, else empty.
    """

    fmt: TableFormat
    start: int
    end: int
    columns: tuple[str, ...]
    rows: tuple[tuple[int, int], ...]
    cells: tuple[tuple[str, ...], ...]
    caption: str = ""

    @property
    def header_line(self) -> str:
        """The header as one markdown table line, e.g. ``| Year | Total |`` (empty without one)."""
        return _markdown_line(self.columns) if self.columns else ""

    @functools.cached_property
    def names(self) -> tuple[str, ...]:
        """Distinct column names for every column any row has: the header's, numbered where a
        name is missing or repeated (computed once per table)."""
        width = max([len(self.columns), *(len(row) for row in self.cells)])
        names: list[str] = []
        for i in range(width):
            name = self.columns[i].strip() if i < len(self.columns) and self.columns[i].strip() else f"column {i + 1}"
            while name in names:
                name += "'"
            names.append(name)
        return tuple(names)

    @functools.cached_property
    def padded(self) -> tuple[tuple[str, ...], ...]:
        """Every data row's cells, short rows padded with empty cells to ``len(names)``."""
        width = len(self.names)
        return tuple((*row, *[""] * (width - len(row))) for row in self.cells)

    @functools.cached_property
    def markdown_head(self) -> str:
        """The header line and delimiter line of a markdown table of this table's `names`."""
        return _markdown_line(self.names) + "\n|" + "---|" * len(self.names)

    @functools.cached_property
    def markdown_lines(self) -> tuple[str, ...]:
        """Every data row as one markdown table line."""
        return tuple(_markdown_line(row) for row in self.padded)


def table_from_block(block: Block, fmt: Literal["markdown", "html"]) -> Table:
    """The `Table` of a ``table`` block from `chunklab.formats.parse.document_blocks`."""
    cells = tuple(block.attrs.get("cells", ()))
    rows = tuple(block.parts)
    headed = block.header is not None and bool(rows)
    return Table(
        fmt=fmt,
        start=block.start,
        end=block.end,
        columns=cells[0] if headed and cells else (),
        rows=rows[1:] if headed else rows,
        cells=cells[1:] if headed else cells,
        caption=str(block.attrs.get("caption", "")),
    )


def _fields(record: str) -> tuple[str, ...]:
    """The fields of one CSV record (a quoted field may hold commas, quotes and line breaks)."""
    try:
        return tuple(field for row in csv.reader(io.StringIO(record, newline="")) for field in row)
    except csv.Error:  # malformed quoting: keep the record as one field rather than fail
        return (record,)


def csv_table(text: str) -> Table | None:
    """The whole of a CSV text as one table: its first record is the header (None if no records)."""
    spans = csv_row_spans(text)
    if not spans:
        return None
    header, *body = spans
    return Table(
        fmt="csv",
        start=header[0],
        end=spans[-1][1],
        columns=_fields(text[header[0] : header[1]]),
        rows=tuple(body),
        cells=tuple(_fields(text[s:e]) for s, e in body),
    )


def looks_like_csv(text: str) -> bool:
    """Does `text` read as CSV? True when its first records (up to 50, from its first 64 KB) number
    at least three and all have the same number of fields, at least two, and the header's fields
    are short names. A heuristic for texts that come without a file name; pass the format
    explicitly when you know it."""
    head = text[:_SNIFF_CHARS]
    spans = csv_row_spans(head)
    if len(text) > len(head):
        spans = spans[:-1]  # the last record may be cut off by the sample
    spans = spans[:_SNIFF_RECORDS]
    if len(spans) < 3:
        return False
    widths = {len(_fields(head[s:e])) for s, e in spans}
    header = _fields(head[spans[0][0] : spans[0][1]])
    return len(widths) == 1 and len(header) >= 2 and all(0 < len(name.strip()) <= 64 for name in header)


def records(table: Table, first: int, last: int) -> list[dict[str, str]]:
    """Data rows ``first..last`` (inclusive, 0-based) as ``{column: cell}`` dicts, the shape
    ``pandas.DataFrame(records)`` reads (columns named by `Table.names`; short rows padded)."""
    return [dict(zip(table.names, row)) for row in table.padded[first : last + 1]]


def _markdown_cell(cell: str) -> str:
    return " ".join(cell.split()).replace("|", "\\|")


def _markdown_line(cells: Sequence[str]) -> str:
    return "| " + " | ".join(_markdown_cell(c) for c in cells) + " |"


def render_markdown(table: Table, first: int, last: int) -> str:
    """The header and data rows ``first..last`` (inclusive, 0-based) as a markdown pipe table."""
    return "\n".join([table.markdown_head, *table.markdown_lines[first : last + 1]])


def row_groups(
    text: str, table: Table, rows: int, limit: int, measure: Callable[[str], int] = len
) -> list[tuple[int, int, int, int, bool]]:
    """Cut `table` into chunks of consecutive whole data rows.

    Each group holds at most `rows` rows and measures at most `limit`; the first group starts at
    the table's start, so the header (and a markdown table's delimiter line) travel with it. A
    row that alone measures more than `limit` (or the header, if it does not fit even with one row)
    is cut at word boundaries by `chunklab.text.pack.fit`: the only way a row is ever split.

    Returns ``(start, end, first_row, last_row, partial)`` per chunk, rows 0-based and inclusive;
    `partial` marks a piece of a cut row (or of the header alone, with ``first_row == -1``).
    """
    out: list[tuple[int, int, int, int, bool]] = []
    spans, n = table.rows, len(table.rows)
    if not n:
        pieces = fit(text, table.start, table.end, limit, measure)
        return [(s, e, -1, -1, len(pieces) > 1) for s, e in pieces]
    head = table.start
    if head < spans[0][0] and measure(text[head : spans[0][1]]) > limit:
        out.extend((s, e, -1, -1, True) for s, e in fit(text, head, spans[0][0], limit, measure))
        head = spans[0][0]
    i, guess = 0, rows
    while i < n:
        start = head if i == 0 else spans[i][0]
        if measure(text[start : spans[i][1]]) > limit:
            out.extend((s, e, i, i, True) for s, e in fit(text, start, spans[i][1], limit, measure))
            i += 1
            continue
        j = last_fitting(i, min(i + rows, n) - 1, lambda j: measure(text[start : spans[j][1]]) <= limit, i + guess - 1)
        out.append((start, spans[j][1], i, j, False))
        guess, i = j - i + 1, j + 1
    return out


def table_metadata(table: Table, first: int, last: int) -> dict[str, Any]:
    """What a chunk of data rows ``first..last`` carries about them: the 1-based row numbers, the
    columns, and the rows rendered as markdown and as records."""
    if first < 0:
        return {"rows": [], "columns": list(table.columns)}
    return {
        "rows": list(range(first + 1, last + 2)),
        "columns": list(table.columns),
        "markdown": render_markdown(table, first, last),
        "records": records(table, first, last),
    }


def resolve_format(text: str, fmt: DocumentFormat = "auto") -> Literal["markdown", "html", "csv", "text"]:
    """`fmt`, or for ``"auto"``: `chunklab.formats.parse.guess_format`, and ``"csv"`` for a text it calls
    plain that `looks_like_csv`."""
    if fmt != "auto":
        return fmt
    guessed = guess_format(text)
    return "csv" if guessed == "text" and looks_like_csv(text) else guessed


@cached(PER_TEXT)
def document_parts(text: str, fmt: DocumentFormat = "auto") -> tuple[tuple[Block | Table, tuple[str, ...]], ...]:
    """The top-level parts of `text` in order, each with its heading trail: `Block` objects
    (`chunklab.formats.parse.document_blocks`) with every ``table`` block turned into a `Table`. A CSV text
    is one `Table`; plain text is its paragraphs. Cached per text, so re-chunking with other
    parameters does not parse again."""
    resolved = resolve_format(text, fmt)
    if resolved == "csv":
        table = csv_table(text)
        return ((table, ()),) if table is not None else ()
    blocks = document_blocks(text, resolved)
    trails = heading_trails(blocks)
    return tuple(
        (table_from_block(b, resolved) if b.kind == "table" and resolved != "text" else b, trail)
        for b, trail in zip(blocks, trails)
    )


def modality_of(part: Block | Table) -> Modality:
    """The modality of one part of `document_parts`: a `Table` is ``"table"``, a block is its kind's
    (`chunklab.formats.blocks.modality_of_kinds`: code, lists and images are themselves, headings,
    paragraphs, quotes and other markup ``"prose"``). The one rule by which the modality chunker
    and the hybrid's routes sort the parts of a document."""
    return "table" if isinstance(part, Table) else modality_of_kinds((part.kind,))
