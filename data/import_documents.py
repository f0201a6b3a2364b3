"""Rebuild the six test-only documents written by others from the Debian packages that ship them.

Run once on a Debian 12 machine with the packages of `data/README.md` ("Documents written by
others") installed; it writes the files into `data/documents/`. The result is committed, and
chunklab reads those files exactly as stored, so nothing here runs at course time. The reStructuredText
sources are copied unchanged; the SQLite pages are rendered to text once with w3m and the manual
page with man-db and groff, then cut at section boundaries (`FIRST`/`STOP` below), dropping the
site's navigation bar before the title and everything from the first section left out.

    python data/import_documents.py
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

DOCUMENTS = pathlib.Path(__file__).resolve().parent / "documents"
PYTHON_SOURCES = pathlib.Path("/usr/share/doc/python3.11/html/_sources")
SQLITE_PAGES = pathlib.Path("/usr/share/doc/sqlite3")

#: Copied byte for byte: target name -> reStructuredText source of the Python 3.11 documentation.
COPIED = {
    "python_json.rst": PYTHON_SOURCES / "library" / "json.rst.txt",
    "logging_howto.rst": PYTHON_SOURCES / "howto" / "logging.rst.txt",
}

#: Rendered to text, then excerpted: target name -> (page, first line kept, first line dropped or None).
RENDERED = {
    "sqlite_faq.txt": ("faq.html", "Frequently Asked Questions", "This page last modified"),
    "sqlite_changes.txt": ("changes.html", "Release History", "2020-08-14 (3.33.0)"),
    "sqlite_fileformat.txt": ("fileformat2.html", "Database File Format", "2.2. Record Sort Order"),
}


def render_page(page: pathlib.Path) -> str:
    """An HTML page as w3m lays it out on an 80-column screen, UTF-8."""
    command = ["w3m", "-dump", "-cols", "80", "-O", "UTF-8", "-T", "text/html", str(page)]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def excerpt(text: str, first: str, stop: str | None) -> str:
    """The lines from the first one equal to `first` (stripped) up to the body's first line starting with `stop`.

    In the file-format page the table of contents repeats the section titles: the table of contents
    (from its marker to the body's first section) is dropped, and `stop` is searched after it.
    """
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.strip() == first)
    kept = [lines[start]]
    i = start + 1
    if lines[i].startswith("► Table Of Contents"):
        body = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("1. ") and j > i + 2
                    and lines[j].strip() == lines[i + 1].strip())
        kept.append("\n")
        i = body
    for line in lines[i:]:
        if line.strip().startswith(stop):
            break
        kept.append(line)
    return "".join(kept).rstrip() + "\n"


def manual_page() -> str:
    """python3.11(1) formatted by man-db and groff at 80 columns, without hyphenation or justification."""
    env = {**os.environ, "MANWIDTH": "80", "LANG": "C.UTF-8"}
    formatted = subprocess.run(["man", "--nh", "--nj", "-P", "cat", "/usr/share/man/man1/python3.11.1.gz"],
                               check=True, capture_output=True, env=env).stdout
    plain = subprocess.run(["col", "-bx"], input=formatted, check=True, capture_output=True).stdout
    return plain.decode("utf-8")


def python_licence() -> str:
    """The Python documentation's copyright page and its licence terms, up to the incorporated software's."""
    terms = (PYTHON_SOURCES / "license.rst.txt").read_text(encoding="utf-8")
    terms = terms[: terms.index("Licenses and Acknowledgements for Incorporated Software")].rstrip() + "\n"
    return (PYTHON_SOURCES / "copyright.rst.txt").read_text(encoding="utf-8") + "\n" + terms


def main() -> None:
    """Write the six documents and the Python documentation's licence."""
    for name, source in COPIED.items():
        shutil.copyfile(source, DOCUMENTS / name)
    for name, (page, first, stop) in RENDERED.items():
        (DOCUMENTS / name).write_text(excerpt(render_page(SQLITE_PAGES / page), first, stop), encoding="utf-8")
    (DOCUMENTS / "python_manpage.txt").write_text(manual_page(), encoding="utf-8")
    (DOCUMENTS.parent / "licenses" / "PSF-LICENSE.txt").write_text(python_licence(), encoding="utf-8")


if __name__ == "__main__":
    main()
