"""Folders as people have them: symlinks, loops, build artefacts, unsupported files, globs, names."""

from __future__ import annotations

import json
import os
import pathlib

import pytest
from test_cli import run

from chunklab.formats.folders import find_documents

PAGE = "<html><body><h1>{title}</h1><p>{title} explains one thing in a sentence or two.</p></body></html>"


def write(path: pathlib.Path, text: str = "text") -> pathlib.Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def tree(tmp_path) -> pathlib.Path:
    """A documentation tree as a generator leaves it, and a folder linked into it from outside."""
    docs = tmp_path / "docs"
    write(docs / "index.html", PAGE.format(title="Home"))
    write(docs / "library" / "index.html", PAGE.format(title="Library"))
    write(docs / "library" / "os.html", PAGE.format(title="Os"))
    write(docs / "guide.md", "# Guide\n\nRead the library pages first.\n")
    write(docs / "_sources" / "library" / "os.rst.txt", "os\n==\n")
    write(docs / "_sources" / "index.rst.txt", "Home\n====\n")
    write(docs / "_static" / "basic.css", "body { margin: 0 }")
    write(docs / ".buildinfo", "config: 1")
    write(docs / "library" / "style.css", "h1 { color: red }")
    (docs / "images").mkdir()
    (docs / "images" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    write(tmp_path / "shared" / "faq.md", "# FAQ\n\nAsk in the forum.\n")
    (docs / "shared").symlink_to(tmp_path / "shared", target_is_directory=True)
    (docs / "library" / "up").symlink_to(docs, target_is_directory=True)  # a loop back to the top
    return docs


def test_a_tree_is_walked_as_people_expect(tree):
    found = find_documents([tree])
    assert [name for name, _ in found.files] == [
        "guide.md", "index.html", "library/index.html", "library/os.html", "shared/faq.md"]
    assert found.files[-1][1] == tree / "shared" / "faq.md", "the symlinked folder is followed, named as it is seen"
    assert found.problems == []
    assert dict(found.unsupported) == {".css": 1, ".png": 1}
    assert dict(found.excluded) == {"_sources": 2, "_static": 1, "hidden": 1}
    assert found.repeats == [tree / "library" / "up"], "the loop is seen once and not followed"


def test_the_command_line_summarises_the_tree_in_one_line_and_exits_0(tree, tmp_path, capsys):
    target = tmp_path / "out.jsonl"
    status, _, err = run(["chunk", str(tree), "--strategy", "fixed", "--out", str(target), "--jobs", "1"], capsys)
    assert status == 0, err
    sources = [json.loads(line)["metadata"]["source"] for line in target.read_text().splitlines()]
    assert sorted(set(sources)) == ["guide.md", "index.html", "library/index.html", "library/os.html", "shared/faq.md"]
    assert err.splitlines() == [(
        f"chunklab: {len(sources)} chunks from 5 documents to {target}; 0 failed; not read: "
        "2 files of types chunklab does not read (.css 1, .png 1), "
        "4 build artefacts and hidden files (_sources 2, _static 1, hidden 1; --no-default-excludes reads them), "
        f"1 symlinked folder already walked ({tree / 'library' / 'up'})"
    )]
    assert "supported:" not in err, "no list of extensions"
    status, _, err = run(["chunk", str(tree), "--strategy", "fixed", "--out", str(target), "--strict"], capsys)
    assert status == 1 and f"{len(sources)} chunks from 5 documents" in err


def test_only_a_supported_file_that_fails_makes_the_run_fail(tree, tmp_path, capsys):
    (tree / "library" / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    status, _, err = run(["chunk", str(tree), "--strategy", "fixed", "--out", str(tmp_path / "o.jsonl")], capsys)
    assert status == 1
    assert f"chunklab: failed: {tree / 'library' / 'latin1.txt'}: not UTF-8 text" in err
    assert f"; 1 failed: {tree / 'library' / 'latin1.txt'}; not read: 2 files" in err.splitlines()[-1]


def test_include_exclude_and_the_default_excludes(tree, tmp_path, capsys):
    found = find_documents([tree], include=["*.html"])
    assert [name for name, _ in found.files] == ["index.html", "library/index.html", "library/os.html"]
    assert found.excluded["--include"] == 4 and not found.unsupported  # guide.md, faq.md and the two others
    found = find_documents([tree], exclude=["library", "*.md"])
    assert [name for name, _ in found.files] == ["index.html"]
    assert found.excluded["--exclude"] == 2 + 3  # two markdown files and the three files of library
    found = find_documents([tree], exclude=["library/*.html"])
    assert [name for name, _ in found.files] == ["guide.md", "index.html", "shared/faq.md"]
    found = find_documents([tree], default_excludes=False)
    assert "_sources/index.rst.txt" in dict(found.files) and ".buildinfo" not in dict(found.files)
    assert found.unsupported["(no extension)"] == 1 and found.unsupported[".css"] == 2
    status, _, err = run(["chunk", str(tree), "--strategy", "fixed", "--out", str(tmp_path / "o.jsonl"), "-j", "1",
                          "--include", "*.html", "--exclude", "os.html", "--strict"], capsys)
    assert status == 1, "the default excludes are skips for --strict"
    assert "2 chunks from 2 documents" in err and "1 file left out by --exclude, 4 files left out by --include" in err
    status, _, err = run(["chunk", str(tree), "--strategy", "fixed", "--out", str(tmp_path / "o.jsonl"), "-j", "1",
                          "--include", "*.html", "--exclude", "_*", "--exclude", ".*", "--exclude", "images",
                          "--exclude", "up", "--no-default-excludes", "--strict"], capsys)
    assert status == 0, err


def test_files_given_directly_are_named_inside_their_common_folder(tree, capsys):
    pages = [tree / "index.html", tree / "library" / "index.html", tree / "library" / "os.html"]
    found = find_documents(pages)
    assert [name for name, _ in found.files] == ["index.html", "library/index.html", "library/os.html"]
    assert found.problems == []
    assert [name for name, _ in find_documents([tree / "library" / "index.html"]).files] == ["index.html"]
    found = find_documents([tree / "library", tree / "index.html", tree / "images" / "logo.png"], exclude=["up"])
    assert [name for name, _ in found.files] == ["index.html", "os.html"]
    assert [str(p) for p in found.problems] == [(
        f"{tree / 'index.html'}: another document is also named 'index.html' ({tree / 'library' / 'index.html'}); "
        "give the folder that holds both instead, or rename one")]
    assert dict(found.unsupported) == {".css": 1, ".png": 1}, "an image given directly is counted, not an error"
    assert find_documents([tree / "guide.md", tree / "guide.md"]).files == [("guide.md", tree / "guide.md")]


def test_missing_and_empty_paths_are_problems(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    write(tmp_path / "only_build" / "_static" / "x.css")
    found = find_documents([tmp_path / "empty", tmp_path / "missing", tmp_path / "only_build"])
    assert [str(p) for p in found.problems] == [f"{tmp_path / 'empty'}: no file in this folder",
                                              f"{tmp_path / 'missing'}: no such file or folder"]
    assert found.excluded == {"_static": 1} and found.files == []
    status, out, err = run(["chunk", str(tmp_path / "only_build"), "--strategy", "fixed"], capsys)
    assert status == 0 and out == ""
    assert "0 chunks from 0 documents; 0 failed; not read: 1 build artefact or hidden file (_static 1;" in err


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads every folder")
def test_an_unreadable_folder_is_a_problem(tree):
    locked = tree / "library"
    locked.chmod(0)
    try:
        found = find_documents([tree])
    finally:
        locked.chmod(0o755)
    assert any("library: cannot read this folder" in str(p) for p in found.problems)
