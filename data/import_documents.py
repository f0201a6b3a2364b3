"""Rebuild the documents written by others from the Debian packages that ship them.

Two groups: the six test-only documents (data/README.md, "Documents written by others") and the
ten documents of the real-documents dev collection ("The real-documents dev collection"). Run once
on a Debian 12 machine with the packages installed::

    apt-get install -y python3-doc sqlite3-doc w3m man-db groff-base \
        git-doc bash-doc postgresql-doc-15 postgresql-client-15 apache2-doc linux-doc-6.1 debian-policy
    python data/import_documents.py

It writes the files into `data/documents/` and the licence texts into `data/licenses/`. The result
is committed, and chunklab reads those files exactly as stored, so nothing here runs at course
time. Sources (reStructuredText, AsciiDoc, plain text) are copied unchanged, decompressed when
gzipped; HTML pages are rendered to text once with w3m and manual pages with man-db and groff;
the SQLite pages are then cut at section boundaries (`RENDERED` below: the site's navigation bar
before the title and everything from the first section left out is dropped) and bash's NEWS
after the bash-5.1 entry (`BASH_NEWS`).
"""

from __future__ import annotations

import gzip
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


#: The dev collection, copied unchanged (gzip-compressed sources are decompressed): target -> source.
DEV_COPIED = {
    "git_bisect_talk.txt": pathlib.Path("/usr/share/doc/git-doc/git-bisect-lk2009.txt"),
    "git_maintainer_mail.txt": pathlib.Path("/usr/share/doc/git-doc/howto/maintain-git.txt"),
    "git_faq.txt": pathlib.Path("/usr/share/doc/git-doc/gitfaq.txt"),
    "bash_compat.txt": pathlib.Path("/usr/share/doc/bash/COMPAT.gz"),
    "kernel_management_style.rst": pathlib.Path("/usr/share/doc/linux-doc-6.1/html/_sources/process/management-style.rst.txt"),
    "debian_copyright_format.txt": pathlib.Path("/usr/share/doc/debian-policy/copyright-format-1.0.txt.gz"),
}

#: bash's NEWS, cut before the first release left out (the bash-5.2 and bash-5.1 entries are kept).
BASH_NEWS = (pathlib.Path("/usr/share/doc/bash/NEWS.gz"), "This is a terse description of the new features added to bash-5.0")

#: Pages of the dev collection rendered with w3m, whole: target -> page.
DEV_RENDERED = {
    "apache_security_tips.txt": pathlib.Path("/usr/share/doc/apache2-doc/manual/en/misc/security_tips.html"),
    "pg_release_15_14.txt": pathlib.Path("/usr/share/doc/postgresql-doc-15/html/release-15-14.html"),
}

#: Manual pages of the dev collection, formatted as the Python one: target -> page.
DEV_MANUAL_PAGES = {
    "pg_basebackup_manpage.txt": pathlib.Path("/usr/share/postgresql/15/man/man1/pg_basebackup.1.gz"),
}

#: Licence texts shipped beside the dev collection, copied whole: target -> Debian's copy.
LICENCES = {
    "GPL-2.txt": pathlib.Path("/usr/share/common-licenses/GPL-2"),
    "GPL-3.txt": pathlib.Path("/usr/share/common-licenses/GPL-3"),
    "APACHE-2.0.txt": pathlib.Path("/usr/share/common-licenses/Apache-2.0"),
}


def read_source(path: pathlib.Path) -> str:
    """A text file as stored, decompressed when its name ends in ``.gz``."""
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return data.decode("utf-8")


def copyright_stanza(path: pathlib.Path, line: str, *, first: bool = False) -> str:
    """The first stanza of a machine-readable Debian copyright file holding the line `line` (its
    first line when `first`), up to the next blank line; one leading space of the continuation lines
    is removed and ``.`` lines become blank lines."""
    stanzas = [stanza.splitlines() for stanza in path.read_text(encoding="utf-8").split("\n\n")]
    lines = next(stanza for stanza in stanzas if len(stanza) > 1
                 and line in [kept.strip() for kept in (stanza[:1] if first else stanza)])
    body = ["" if kept.strip() == "." else kept[1:] if kept.startswith(" ") else kept for kept in lines]
    return "\n".join(body) + "\n"


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


def manual_page(page: str = "/usr/share/man/man1/python3.11.1.gz") -> str:
    """A manual page (python3.11(1) unless told) formatted by man-db and groff at 80 columns, without
    hyphenation or justification."""
    env = {**os.environ, "MANWIDTH": "80", "LANG": "C.UTF-8"}
    formatted = subprocess.run(["man", "--nh", "--nj", "-P", "cat", page],
                               check=True, capture_output=True, env=env).stdout
    plain = subprocess.run(["col", "-bx"], input=formatted, check=True, capture_output=True).stdout
    return plain.decode("utf-8")


def python_licence() -> str:
    """The Python documentation's copyright page and its licence terms, up to the incorporated software's."""
    terms = (PYTHON_SOURCES / "license.rst.txt").read_text(encoding="utf-8")
    terms = terms[: terms.index("Licenses and Acknowledgements for Incorporated Software")].rstrip() + "\n"
    return (PYTHON_SOURCES / "copyright.rst.txt").read_text(encoding="utf-8") + "\n" + terms


def dev_collection() -> None:
    """Write the ten documents of the dev collection and their licence texts."""
    for name, source in DEV_COPIED.items():
        (DOCUMENTS / name).write_text(read_source(source), encoding="utf-8", newline="")
    news, stop = BASH_NEWS
    text = read_source(news)
    (DOCUMENTS / "bash_news.txt").write_text(text[: text.index(stop)].rstrip() + "\n", encoding="utf-8", newline="")
    for name, page in DEV_RENDERED.items():
        (DOCUMENTS / name).write_text(render_page(page).strip("\n") + "\n", encoding="utf-8")
    for name, page in DEV_MANUAL_PAGES.items():
        (DOCUMENTS / name).write_text(manual_page(str(page)), encoding="utf-8")
    licences = DOCUMENTS.parent / "licenses"
    for name, source in LICENCES.items():
        shutil.copyfile(source, licences / name)
    postgresql = pathlib.Path("/usr/share/doc/postgresql-doc-15/copyright")
    (licences / "POSTGRESQL-LICENSE.txt").write_text(
        copyright_stanza(postgresql, "Files: *") + "\n" + copyright_stanza(postgresql, "License: PostgreSQL", first=True),
        encoding="utf-8")
    policy = pathlib.Path("/usr/share/doc/debian-policy/copyright")
    (licences / "DEBIAN-COPYRIGHT-FORMAT-NOTICE.txt").write_text(
        copyright_stanza(policy, "copyright-format*.xml"),
        encoding="utf-8")


def main() -> None:
    """Write the six test-only documents, the Python documentation's licence and the dev collection."""
    for name, source in COPIED.items():
        shutil.copyfile(source, DOCUMENTS / name)
    for name, (page, first, stop) in RENDERED.items():
        (DOCUMENTS / name).write_text(excerpt(render_page(SQLITE_PAGES / page), first, stop), encoding="utf-8")
    (DOCUMENTS / "python_manpage.txt").write_text(manual_page(), encoding="utf-8")
    (DOCUMENTS.parent / "licenses" / "PSF-LICENSE.txt").write_text(python_licence(), encoding="utf-8")
    dev_collection()


if __name__ == "__main__":
    main()
