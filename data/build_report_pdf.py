"""Build ``data/documents/report.pdf`` from ``data/documents/report_source.md``.

The corpus PDF (manifest key ``report``) is generated, not hand-made, so it can
be rebuilt after editing its markdown source::

    python data/build_report_pdf.py

It needs fpdf2 (``pip install fpdf2==2.8.9``), a build-time tool for the data
only: chunklab itself reads the PDF with pypdfium2 and never imports fpdf2.

The source uses a small markdown subset: ``#`` title (the lines after it form
the cover), ``##`` sections, ``###`` subsections, paragraphs, ``- `` bullets,
one pipe table, and a caption paragraph starting with ``Table``. Only the
PDF core font Helvetica is used, so the source must stay within Latin-1
(write "-" rather than an en dash, straight quotes, "CO2e").

The layout is what the page notebook needs: A4 pages, a running header and a
"Page N of M" footer on every page, and body text that flows across page
breaks, so some sentences start on one page and end on the next. The output
is deterministic (fixed creation date, no timestamps): rebuilding gives
identical bytes.
"""

from __future__ import annotations

import datetime as dt
import pathlib
import re
import sys

from fpdf import FPDF
from fpdf.fonts import FontFace

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE / "documents" / "report_source.md"
OUTPUT = HERE / "documents" / "report.pdf"

RUNNING_HEADER = "Marrow Bay Freight \u00b7 2025 Sustainability Report"
CREATION_DATE = dt.datetime(2026, 3, 2, 9, 0, 0, tzinfo=dt.timezone.utc)

FONT = "Helvetica"
BODY_SIZE = 10.5  # pt
LINE_H = 5.6  # mm per body line
MARGIN = 22  # mm, left/right/top
BOTTOM = 22  # mm, auto page break distance from the bottom edge


def parse(markdown: str) -> list[tuple[str, object]]:
    """Split the markdown subset into ``(kind, content)`` blocks, in order.

    Kinds: ``title``, ``h2``, ``h3``, ``para``, ``caption``, ``bullets``
    (content: list of items) and ``table`` (content: list of rows of cells).
    """
    blocks: list[tuple[str, object]] = []
    for chunk in re.split(r"\n\s*\n", markdown.strip()):
        lines = [line.strip() for line in chunk.strip().splitlines()]
        first = lines[0]
        if first.startswith("### "):
            blocks.append(("h3", first[4:]))
        elif first.startswith("## "):
            blocks.append(("h2", first[3:]))
        elif first.startswith("# "):
            blocks.append(("title", first[2:]))
        elif first.startswith("|"):
            rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
            rows = [r for r in rows if not all(set(c) <= set("-: ") for c in r)]
            blocks.append(("table", rows))
        elif first.startswith("- "):
            blocks.append(("bullets", [line[2:] for line in lines]))
        elif re.match(r"Table \d+:", first):
            blocks.append(("caption", " ".join(lines)))
        else:
            blocks.append(("para", " ".join(lines)))
    return blocks


class ReportPDF(FPDF):
    """FPDF with the report's running header and "Page N of M" footer."""

    def header(self) -> None:
        """Draw the running header and a rule under it on every page."""
        self.set_font(FONT, "", 8.5)
        self.set_text_color(90, 90, 90)
        self.set_xy(MARGIN, 11)
        self.cell(0, 5, RUNNING_HEADER, align="L")
        self.set_draw_color(170, 170, 170)
        self.line(MARGIN, 17, self.w - MARGIN, 17)
        self.set_text_color(0, 0, 0)
        self.set_xy(MARGIN, 24)

    def footer(self) -> None:
        """Draw "Page N of M" centred at the bottom of every page."""
        self.set_y(-14)
        self.set_font(FONT, "", 8.5)
        self.set_text_color(90, 90, 90)
        self.cell(0, 5, f"Page {self.page_no()} of {{nb}}", align="C")
        self.set_text_color(0, 0, 0)


def keep_room(pdf: FPDF, needed: float) -> None:
    """Start a new page if less than ``needed`` mm are left (no orphan headings)."""
    if pdf.get_y() + needed > pdf.page_break_trigger:
        pdf.add_page()


def paragraph(pdf: FPDF, text: str, style: str = "", size: float = BODY_SIZE) -> None:
    """Write one left-aligned paragraph that may flow onto the next page."""
    pdf.set_font(FONT, style, size)
    pdf.multi_cell(0, LINE_H, text, align="L", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2.4)


def bullets(pdf: FPDF, items: list[str]) -> None:
    """Write a list with "-" bullets and a hanging indent."""
    pdf.set_font(FONT, "", BODY_SIZE)
    for item in items:
        pdf.set_x(MARGIN + 2)
        pdf.cell(5, LINE_H, "-")
        pdf.multi_cell(0, LINE_H, item, align="L", new_x="LMARGIN", new_y="NEXT")
        pdf.ln(0.8)
    pdf.ln(1.6)


def table(pdf: FPDF, rows: list[list[str]]) -> None:
    """Draw the emissions table: bold shaded heading row, numbers right-aligned."""
    keep_room(pdf, 60)
    pdf.set_font(FONT, "", 9)
    widths = (14, 25, 23, 26, 22, 28, 28)
    with pdf.table(
        col_widths=widths,
        width=sum(widths),
        align="LEFT",
        line_height=5,
        padding=(1.2, 1.5),
        text_align=("LEFT",) + ("RIGHT",) * (len(widths) - 1),
        headings_style=FontFace(emphasis="BOLD", fill_color=(225, 230, 236)),
        borders_layout="HORIZONTAL_LINES",
    ) as tbl:
        for row in rows:
            tbl.row(row)
    pdf.ln(4)


def cover(pdf: FPDF, title: str, paras: list[str], sections: list[str]) -> None:
    """Draw the cover page: title, date line, introduction and contents."""
    pdf.set_y(60)
    pdf.set_font(FONT, "B", 26)
    pdf.multi_cell(0, 12, title, align="L", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    for i, text in enumerate(paras):
        paragraph(pdf, text, style="B" if i == 0 else "", size=12 if i == 0 else BODY_SIZE)
    pdf.ln(10)
    pdf.set_font(FONT, "B", 13)
    pdf.cell(0, 8, "Contents", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font(FONT, "", BODY_SIZE)
    for name in sections:
        pdf.cell(0, 6.5, name, new_x="LMARGIN", new_y="NEXT")
    pdf.add_page()


def build(source: pathlib.Path = SOURCE, output: pathlib.Path = OUTPUT) -> pathlib.Path:
    """Render ``source`` to ``output`` and return the output path."""
    blocks = parse(source.read_text(encoding="utf-8"))
    kind, title = blocks[0]
    if kind != "title":
        raise ValueError(f"{source} must start with a '# ' title line")
    first_section = next(i for i, (k, _) in enumerate(blocks) if k == "h2")
    intro = [str(content) for _, content in blocks[1:first_section]]
    sections = [str(content) for k, content in blocks if k == "h2"]

    pdf = ReportPDF(orientation="portrait", unit="mm", format="A4")
    pdf.set_margins(MARGIN, 24, MARGIN)
    pdf.set_auto_page_break(True, margin=BOTTOM)
    pdf.set_creation_date(CREATION_DATE)
    pdf.set_producer("fpdf2")
    pdf.set_creator("data/build_report_pdf.py")
    pdf.set_title(str(title))
    pdf.set_author("Marrow Bay Freight Inc.")
    pdf.set_subject("Fictional sustainability report written for the chunklab course")
    pdf.set_lang("en")

    pdf.add_page()
    cover(pdf, str(title), intro, sections)
    for kind, content in blocks[first_section:]:
        if kind == "h2":
            if pdf.get_y() > 30:
                pdf.ln(4)
            keep_room(pdf, 30)
            pdf.set_font(FONT, "B", 15)
            pdf.multi_cell(0, 8, str(content), new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
        elif kind == "h3":
            keep_room(pdf, 22)
            pdf.ln(1.5)
            pdf.set_font(FONT, "B", 11.5)
            pdf.multi_cell(0, 6.5, str(content), new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1)
        elif kind == "para":
            paragraph(pdf, str(content))
        elif kind == "caption":
            keep_room(pdf, 60)
            paragraph(pdf, str(content), style="B", size=9.5)
        elif kind == "bullets":
            bullets(pdf, list(content))  # type: ignore[arg-type]
        elif kind == "table":
            table(pdf, list(content))  # type: ignore[arg-type]
        else:
            raise ValueError(f"unexpected block {kind!r} after the cover")
    pdf.output(str(output))
    return output


if __name__ == "__main__":
    path = build()
    print(f"wrote {path.relative_to(HERE.parent)} ({path.stat().st_size:,} bytes)", file=sys.stderr)
