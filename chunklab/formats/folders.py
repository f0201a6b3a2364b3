"""Files and folders as people have them, expanded into the documents to read.

`find_documents` turns the paths a user gives (files, folders, symlinks to either) into the supported
files to read, each with a stable name, and counts everything it leaves unread and why:

* **folders are walked recursively**, following symlinked folders; a folder already walked (a link
  back to an ancestor, or a second link to the same folder) is not walked again, so a symlink loop
  cannot hang the walk;
* **build artefacts and hidden files are left out by default**: folders named in `BUILD_ARTEFACTS`
  (Sphinx's ``_sources`` copies of every page and its ``_static`` theme files, ``__pycache__``,
  ``node_modules``) and every file or folder whose name starts with a dot; ``default_excludes=False``
  reads them too;
* ``exclude`` and ``include`` globs (`fnmatch` rules, case-sensitive, ``*`` also matches ``/``) are
  matched against a file's path inside the folder given and against its name; an excluded folder is
  not walked; with ``include``, only files matching one of its globs are read;
* **files of a type chunklab does not read** (images, stylesheets, scripts, fonts...) found in a
  folder or given directly are counted by extension, not reported one by one;
* **names**: a document found in a folder is named by its path inside that folder
  (``library/index.html``); files given directly are named by their path inside the deepest folder
  holding all of them, so ``$(find docs -name '*.html')`` gives ``library/index.html`` and
  ``tutorial/index.html``, not two ``index.html`` (a single file keeps its file name).

What cannot be read for a reason the user must fix (a path that does not exist, an empty folder, two
inputs that give the same name) is a problem (`DocumentError`) in ``FoundDocuments.problems``.
"""

from __future__ import annotations

import collections
import fnmatch
import os
import pathlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .readers import KIND_BY_SUFFIX, DocumentError, DocumentNotFound

__all__ = ["BUILD_ARTEFACTS", "HIDDEN", "FoundDocuments", "file_type", "find_documents"]

#: Folder names left out by default: copies of sources and theme files that documentation generators
#: and tools write beside the pages (Sphinx's ``_sources`` and ``_static``), caches and dependencies.
BUILD_ARTEFACTS = ("_sources", "_static", "__pycache__", "node_modules")
#: The reason counted for hidden files and folders (names starting with a dot), left out by default.
HIDDEN = "hidden"


@dataclass(frozen=True)
class FoundDocuments:
    """What `find_documents` found and what it left unread.

    ``files``: ``(name, path)`` of each supported file to read, in a stable order. ``problems``: one
    `DocumentError` per path that needs the user's attention. ``unsupported``: files of a type
    chunklab does not read, counted by extension (``".png"``, ``"(no extension)"``). ``excluded``:
    files left out by rule, counted by reason (a `BUILD_ARTEFACTS` name or `HIDDEN` for the defaults,
    ``"--exclude"`` or ``"--include"`` for the user's globs). ``repeats``: symlinked folders not
    walked because their target was already walked (a loop, or a second link to it).
    """

    files: list[tuple[str, pathlib.Path]] = field(default_factory=list)
    problems: list[DocumentError] = field(default_factory=list)
    unsupported: collections.Counter[str] = field(default_factory=collections.Counter)
    excluded: collections.Counter[str] = field(default_factory=collections.Counter)
    repeats: list[pathlib.Path] = field(default_factory=list)


def file_type(path: pathlib.Path) -> str:
    """The type an unsupported file is counted under: its lower-case extension, or ``(no extension)``."""
    return path.suffix.lower() or "(no extension)"


@dataclass(frozen=True)
class _Rules:
    """Which files and folders of a walk are left out, and under which reason."""

    include: tuple[str, ...]
    exclude: tuple[str, ...]
    default_excludes: bool

    def folder_reason(self, relative: str, name: str) -> str | None:
        if self.default_excludes and name.startswith("."):
            return HIDDEN
        if self.default_excludes and name in BUILD_ARTEFACTS:
            return name
        if _matches(self.exclude, relative, name):
            return "--exclude"
        return None

    def file_reason(self, relative: str, name: str) -> str | None:
        if self.default_excludes and name.startswith("."):
            return HIDDEN
        if _matches(self.exclude, relative, name):
            return "--exclude"
        if self.include and not _matches(self.include, relative, name):
            return "--include"
        return None


def _matches(patterns: Sequence[str], relative: str, name: str) -> bool:
    return any(fnmatch.fnmatchcase(relative, p) or fnmatch.fnmatchcase(name, p) for p in patterns)


def find_documents(
    paths: Iterable[str | os.PathLike[str]],
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    default_excludes: bool = True,
) -> FoundDocuments:
    """Expand files and folders into the supported files to read, in a stable order (see the module
    docstring for the walk, the rules and the names).

    `include` and `exclude` are glob patterns applied to files found in folders (a file given
    directly is read whatever they say); `default_excludes` leaves out `BUILD_ARTEFACTS` folders and
    hidden files and folders. Files are returned folder by folder, in sorted order within each.
    """
    rules = _Rules(tuple(include), tuple(exclude), default_excludes)
    found = FoundDocuments()
    given = [pathlib.Path(p) for p in paths]
    direct = [p for p in given if not p.is_dir()]
    base = _common_folder([p for p in direct if p.exists() or p.is_symlink()])
    owner: dict[str, pathlib.Path] = {}
    for path in given:
        if path.is_dir():
            left_out = found.excluded.total() + len(found.repeats)
            named = _walk(path, rules, found)
            if not named and found.excluded.total() + len(found.repeats) == left_out:
                found.problems.append(DocumentError(f"{path}: no file in this folder"))
        elif path.exists() or path.is_symlink():
            named = [(_relative_name(path, base), path)]
        else:
            found.problems.append(DocumentNotFound(f"{path}: no such file or folder"))
            continue
        for name, file in named:
            if file.suffix.lower() not in KIND_BY_SUFFIX:
                found.unsupported[file_type(file)] += 1
            elif name not in owner:
                owner[name] = file
                found.files.append((name, file))
            elif os.path.abspath(owner[name]) != os.path.abspath(file):
                found.problems.append(DocumentError(
                    f"{file}: another document is also named {name!r} ({owner[name]}); give the folder that "
                    "holds both instead, or rename one"))
    return found


def _common_folder(files: Sequence[pathlib.Path]) -> pathlib.Path | None:
    """The deepest folder holding every file of `files` (as given, symlinks not resolved), or None."""
    if not files:
        return None
    try:
        return pathlib.Path(os.path.commonpath([os.path.dirname(os.path.abspath(f)) for f in files]))
    except ValueError:  # files on different drives (Windows): no common folder
        return None


def _relative_name(file: pathlib.Path, base: pathlib.Path | None) -> str:
    if base is None:
        return file.name
    return pathlib.Path(os.path.relpath(os.path.abspath(file), base)).as_posix()


def _walk(root: pathlib.Path, rules: _Rules, found: FoundDocuments) -> list[tuple[str, pathlib.Path]]:
    """Every file under `root` that no rule leaves out, named by its path inside `root`, in sorted
    order; symlinked folders followed once each (`found.repeats` gets the others)."""
    walked = {_identity(root)}
    named = []
    def unreadable(error: OSError) -> None:
        found.problems.append(DocumentError(f"{error.filename}: cannot read this folder: {error.strerror}"))

    for folder, folders, files in os.walk(root, onerror=unreadable, followlinks=True):
        here = pathlib.Path(folder)
        inside = here.relative_to(root)
        kept = []
        for name in sorted(folders):
            relative = (inside / name).as_posix()
            reason = rules.folder_reason(relative, name)
            if reason is not None:
                found.excluded[reason] += _file_count(here / name)
                continue
            identity = _identity(here / name)
            if identity in walked:
                found.repeats.append(here / name)
                continue
            walked.add(identity)
            kept.append(name)
        folders[:] = kept
        for name in sorted(files):
            relative = (inside / name).as_posix()
            reason = rules.file_reason(relative, name)
            if reason is not None:
                found.excluded[reason] += 1
            else:
                named.append((relative, here / name))
    return sorted(named, key=lambda item: item[0])


def _identity(folder: pathlib.Path) -> tuple[int, int]:
    """The device and inode of the folder a path leads to (the same for every link to it)."""
    status = os.stat(folder)
    return status.st_dev, status.st_ino


def _file_count(folder: pathlib.Path) -> int:
    """How many files a folder left out holds (its symlinked folders are not followed)."""
    return sum(len(files) for _, _, files in os.walk(folder))
