"""The PDF reader: words spaced as printed, running headers and footers left out by the rule the page
chunker uses, page spans exact."""

from __future__ import annotations

import pytest

from chunklab.formats.pdf import PAGE_SEPARATOR, page_furniture, page_spans, read_pdf
from chunklab.strategies import FixedSizeChunker, PageChunker
from chunklab.strategies.page import page_layout


def composite_font_pdf(pages: list[list[str]]) -> bytes:
    """A PDF of these pages (each a list of lines) in a composite font without a space glyph, as TeX
    and DocBook tool chains write them: words are spaced only by moving the pen inside a TJ array,
    and character code 32 is another glyph (564 units wide, "=" in the font's numbering)."""
    letters = sorted({c for page in pages for line in page for c in line if c != " "})
    cid = {c: ord(c) - 29 for c in letters}  # as font subsets number their glyphs: "a" is 68
    tounicode = "\n".join(f"<{cid[c]:04x}> <{ord(c):04x}>" for c in letters)
    cmap = (f"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def 1 begincodespacerange "
            f"<0000> <ffff> endcodespacerange\n{len(letters)} beginbfchar\n{tounicode}\nendbfchar endcmap "
            "CMapName currentdict /CMap defineresource pop end end").encode()
    first_page = 5
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>"
        % (b" ".join(b"%d 0 R" % (first_page + 2 * i) for i in range(len(pages))), len(pages)),
        (b"<< /Type /Font /Subtype /Type0 /BaseFont /ABCDEF+Serif /Encoding /Identity-H /DescendantFonts [4 0 R] "
         b"/ToUnicode %d 0 R >>" % (first_page + 2 * len(pages))),
        (b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /ABCDEF+Serif /CIDSystemInfo << /Registry (Adobe) "
         b"/Ordering (Identity) /Supplement 0 >> /DW 500 /W [32 [564]] /CIDToGIDMap /Identity >>"),
    ]
    for number, lines in enumerate(pages):
        shown = []
        for i, line in enumerate(lines):
            words = ("<" + "".join(f"{cid[c]:04x}" for c in word) + ">" for word in line.split(" "))
            shown.append(f"BT /F1 10 Tf 72 {720 - 14 * i} Td [{' -249 '.join(words)}] TJ ET")
        content = "\n".join(shown).encode()
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                       b"/Resources << /Font << /F1 3 0 R >> >> >>" % (first_page + 2 * number + 1))
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content))
    objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(cmap), cmap))
    out, offsets = bytearray(b"%PDF-1.7\n"), []
    for number, obj in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, obj)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def almanac(tmp_path, bodies: list[list[str]]):
    """A PDF with a running header and a numbered footer on every page around these bodies."""
    pages = [["Harbour Almanac", *body, f"Page {i} of {len(bodies)}"] for i, body in enumerate(bodies, 1)]
    path = tmp_path / "almanac.pdf"
    path.write_bytes(composite_font_pdf(pages))
    return path


BODIES = [
    ["The tide tables are printed weekly.", "Ferries leave on the hour."],
    ["The pilot station answers on channel nine."],
    [],
    ["Moorings are let by the season.", "Ask at the harbour office."],
]


def test_words_spaced_by_pen_moves_are_words(tmp_path):
    path = tmp_path / "emacs.pdf"
    path.write_bytes(composite_font_pdf([["The regular expression of emacs is basically BRE", "Second line"]]))
    text, pages = read_pdf(path)
    assert text == "The regular expression of emacs is basically BRE\nSecond line"
    assert pages == [(0, len(text))]


def test_running_header_and_footer_are_left_out_and_pages_stay_exact(tmp_path):
    text, pages = read_pdf(almanac(tmp_path, BODIES))
    assert "Harbour Almanac" not in text and "Page" not in text
    assert [text[s:e] for s, e in pages] == ["\n".join(body) for body in BODIES]
    assert page_spans(text) == pages and text.count("\f") == len(BODIES) - 1
    assert pages[2][0] == pages[2][1]  # a page of nothing but furniture is a blank page, still counted
    assert not page_layout(text).furniture  # nothing left for the page chunker to strip
    chunks = PageChunker()(text)
    assert [c.metadata["pages"] for c in chunks] == [[1], [2], [4]]
    assert all(text[c.start : c.end] == c.text for c in chunks)


def test_one_rule_for_the_reader_and_the_page_chunker(tmp_path):
    path = almanac(tmp_path, BODIES)
    kept, kept_pages = read_pdf(path, strip_furniture=False)
    stripped, _ = read_pdf(path)
    assert kept.startswith("Harbour Almanac\n") and kept.endswith("Page 4 of 4")
    assert page_spans(kept) == kept_pages
    layout = page_layout(kept)
    assert [kept[s:e] for s, e in layout.furniture] == [
        line for i in range(1, 5) for line in ("Harbour Almanac", f"Page {i} of 4")
    ]
    bodies = [kept[s:e] for s, e in layout.bodies]
    assert PAGE_SEPARATOR.join(bodies) == stripped
    assert [kept[s:e] for page in page_furniture(kept) for s, e in page.body] == [line for b in BODIES for line in b]
    # Every chunker sees the stripped text: no window holds a running line.
    windows = FixedSizeChunker(chunk_size=40, chunk_overlap=0)(stripped)
    assert not any("Almanac" in c.text or "Page" in c.text for c in windows)


def test_a_hyphen_at_a_line_end_is_kept_with_its_line_break(tmp_path):
    path = tmp_path / "hyphen.pdf"
    path.write_bytes(composite_font_pdf([["It is distri-", "buted freely to non-", "developers."]]))
    text, _ = read_pdf(path)
    assert text == "It is distri-\nbuted freely to non-\ndevelopers."


def test_a_broken_pdf_is_refused_by_name(tmp_path):
    good = composite_font_pdf([["One line"]])
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(good[: len(good) // 3])
    with pytest.raises(ValueError, match=r"broken\.pdf"):
        read_pdf(broken)


def test_a_pdf_locked_by_a_password_is_refused_and_one_only_restricted_is_read(tmp_path):
    from fpdf import FPDF

    for name, passwords in [("locked.pdf", {"user_password": "u"}), ("restricted.pdf", {})]:
        pdf = FPDF()
        pdf.add_page()
        pdf.set_font("helvetica")
        pdf.cell(text="Tide tables")
        pdf.set_encryption(owner_password="o", **passwords)
        pdf.output(str(tmp_path / name))
    with pytest.raises(ValueError, match=r"locked\.pdf.*password"):
        read_pdf(tmp_path / "locked.pdf")
    assert read_pdf(tmp_path / "restricted.pdf") == ("Tide tables", [(0, 11)])


def test_a_pdf_without_pages_is_refused(tmp_path):
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(composite_font_pdf([]))
    with pytest.raises(ValueError, match=r"cannot read PDF .*empty\.pdf"):
        read_pdf(empty)


def test_threads_read_pdfs_at_the_same_time(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    paths = [almanac(tmp_path, BODIES), tmp_path / "emacs.pdf"]
    paths[1].write_bytes(composite_font_pdf([["The regular expression of emacs"]] * 30))
    alone = [read_pdf(path) for path in paths]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(read_pdf, paths * 8))
    assert together == alone * 8
