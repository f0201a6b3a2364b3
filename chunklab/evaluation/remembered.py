"""Measurements kept on disk, so that running a notebook again does not measure again.

`compare` and the other measurements decorated with `remembered` are pure: their result depends
only on their arguments, the corpus, the library's code and the installed packages. After
``persist_measurements(folder)`` each result is stored in `folder` under a key made of all of
that, and a later call with the same key (a restarted kernel, a notebook run again) reads it back
instead of chunking, indexing and scoring again. Nothing is stored or read:

* before `persist_measurements` is called (scripts and tests measure every time);
* for an argument the key cannot describe with certainty: an object or a function defined outside
  chunklab (a learner's own chunker class, a ``where`` function written in a notebook, a custom
  embedder), whose code may change between two runs while its name stays.

The key covers the text of every argument (documents, questions, chunk texts), each chunker's
class and parameters (nested ones included), the source of every chunklab module, the files of the
corpus folder (the shipped embeddings aside: the vectors a model computes are the same within
1e-4, `tests/test_shipped_embeddings.py`), and the name and version of every installed
distribution this library may run (its requirements, with their own, recursively: installing
Sphinx for the site keeps every stored measurement). Change any of them and the measurement runs again. A damaged file is ignored with a
warning and measured again. The folder keeps the `KEEP` files used last.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import hashlib
import importlib.metadata
import inspect
import os
import pathlib
import pickle
import sys
import types
import warnings
import zlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import numpy as np

from ..caches import RESOURCE, cached
from ..core import Chunk
from ..formats.corpus import data_dir
from ..formats.document import Document
from ..models.resources import replace_atomically

__all__ = ["KEEP", "persist_measurements", "remembered"]

#: How many stored measurements the folder keeps (the least recently used go first).
KEEP = 512

F = TypeVar("F", bound=Callable[..., Any])

_FOLDER: list[pathlib.Path | None] = [None]
#: This library's distribution, whose requirements are what the key records (`_dependencies`).
_DISTRIBUTION = "chunklab-course"
#: Arguments that change only what is shown while a measurement runs, never its result.
_SHOWN_ONLY = frozenset({"progress"})


#: Types described by their ``repr`` (exact types: a subclass may hold more than its repr shows).
_PLAIN = frozenset({int, float, bool, type(None), bytes, complex})


class _Unknown(Exception):
    """An argument the key cannot describe with certainty: the call is measured, not stored."""


def persist_measurements(folder: str | os.PathLike | None) -> None:
    """Keep the results of `remembered` measurements in `folder` (created when first written), and
    read them back when the same measurement is asked for again; None stops it."""
    _FOLDER[0] = None if folder is None else pathlib.Path(folder)


def remembered(function: F) -> F:
    """Decorate a pure measurement: once `persist_measurements` names a folder, a call whose
    arguments the key can describe is stored there, and the same call later reads it back."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        folder = _FOLDER[0]
        if folder is None:
            return function(*args, **kwargs)
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        try:
            key = _key(function, bound.arguments)
        except _Unknown:
            return function(*args, **kwargs)
        path = folder / f"{function.__name__}-{key}.pickle.z"
        stored = _read(path)
        if stored is not None:
            return stored
        result = function(*args, **kwargs)
        _write(path, result)
        return result

    return call  # type: ignore[return-value]


def _read(path: pathlib.Path) -> Any:
    """The result stored in `path`, or None when there is none or it cannot be read (warned)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        result = pickle.loads(zlib.decompress(data))  # noqa: S301 - a file this library wrote
    except Exception as error:  # a truncated or foreign file: measure again
        warnings.warn(f"ignoring the stored measurement {path.name} ({type(error).__name__}: {error}); "
                      "measuring again", stacklevel=3)
        return None
    with contextlib.suppress(FileNotFoundError):  # another process may have just trimmed it
        os.utime(path)  # recently used: kept when the folder is trimmed
    return result


def _write(path: pathlib.Path, result: Any) -> None:
    """Store `result` in `path` atomically (a temporary file, then a rename), then trim the folder to
    the `KEEP` files used last (files another process removes meanwhile are passed over)."""
    data = zlib.compress(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL), 1)
    with replace_atomically(path) as out:
        out.write(data)
    used = {}
    for stored in path.parent.glob("*.pickle.z"):
        with contextlib.suppress(FileNotFoundError):
            used[stored] = stored.stat().st_mtime
    for old in sorted(used, key=used.__getitem__, reverse=True)[KEEP:]:
        old.unlink(missing_ok=True)


def _key(function: Callable[..., Any], arguments: Mapping[str, Any]) -> str:
    """The hex key of a call: the function, its arguments and the environment (`_environment`)."""
    digest = hashlib.sha256(_environment().encode())
    digest.update(f"{function.__module__}.{function.__qualname__}".encode())
    _describe({name: value for name, value in arguments.items() if name not in _SHOWN_ONLY}, digest)
    return digest.hexdigest()[:32]


@cached(RESOURCE)
def _environment() -> str:
    """The hash of what every measurement depends on besides its arguments: chunklab's source, the
    corpus folder (embeddings aside), the installed distributions and Python's version."""
    digest = hashlib.sha256(sys.version.encode())
    package = pathlib.Path(__file__).resolve().parents[1]
    _digest_files(digest, package, package.rglob("*.py"))
    data = data_dir()
    _digest_files(digest, data, (p for p in data.rglob("*") if p.is_file() and "embeddings" not in p.relative_to(data).parts))
    digest.update("\n".join(_dependencies()).encode())
    return digest.hexdigest()


def _digest_files(digest: Any, root: pathlib.Path, paths: Iterable[pathlib.Path]) -> None:
    """Feed each of `paths` (in sorted order), its name below `root` and its bytes, into `digest`."""
    for path in sorted(paths):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())


def _dependencies() -> list[str]:
    """``name==version`` of chunklab's distribution and of everything it may run: its requirements,
    every extra included, and theirs, recursively (the extras a requirement asks for included).
    Other installed distributions (the site's Sphinx, the benchmarks' peers) change no measurement,
    so installing them keeps the stored ones. Without chunklab installed as a distribution: every
    installed distribution."""
    from packaging.requirements import InvalidRequirement, Requirement  # the eval extra's, read only when storing
    from packaging.utils import canonicalize_name

    installed: dict[str, Any] = {canonicalize_name(d.metadata["Name"]): d for d in importlib.metadata.distributions()}
    if _DISTRIBUTION not in installed:
        return sorted(f"{name}=={d.version}" for name, d in installed.items())
    found: dict[str, set[str]] = {}
    todo = [(_DISTRIBUTION, {"*"})]
    while todo:
        name, extras = todo.pop()
        if name not in installed or (name in found and extras <= found[name]):
            continue
        found.setdefault(name, set()).update(extras)
        for line in installed[name].requires or ():
            try:
                requirement = Requirement(line)
            except InvalidRequirement:
                continue
            marker = requirement.marker
            if "*" not in extras and marker is not None and not any(
                marker.evaluate({"extra": extra}) for extra in extras or {""}
            ):
                continue  # for an extra nobody asked for, or another interpreter
            todo.append((canonicalize_name(requirement.name), set(requirement.extras)))
    return sorted(f"{name}=={installed[name].version}" for name in found)


def _ours(thing: Any) -> bool:
    """Is `thing` (a class or a function) defined in chunklab?"""
    return (getattr(thing, "__module__", "") or "").split(".")[0] == "chunklab"


def _describe(value: Any, digest: Any) -> None:
    """Feed `value` into `digest` unambiguously, or raise `_Unknown` when it cannot be described.
    The commonest types are tested first, by exact type: one key may describe a million values."""
    update = digest.update
    kind = type(value)
    if kind is str:
        update(b"str:%d:" % len(value) + value.encode("utf-8", "surrogatepass"))
    elif kind in _PLAIN or isinstance(value, enum.Enum):
        update(f"{kind.__name__}:{value!r};".encode())
    elif kind is Chunk:
        update(b"chunk:%d:%d;" % (value.start, value.end))
        _describe(value.text, digest)
        _describe(dict(value.metadata), digest)
    elif kind is dict or isinstance(value, Mapping):
        update(b"{%d;" % len(value))
        for key, item in value.items():
            _describe(key, digest)
            _describe(item, digest)
        update(b"}")
    elif kind is tuple or kind is list:
        update(b"[%d;" % len(value))
        for item in value:
            _describe(item, digest)
        update(b"]")
    elif isinstance(value, np.generic):
        update(f"{kind.__name__}:{value.item()!r};".encode())
    elif isinstance(value, np.ndarray):
        update(f"array{value.dtype}{value.shape};".encode() + np.ascontiguousarray(value).tobytes())
    elif isinstance(value, os.PathLike):
        update(f"path:{os.fspath(value)!r};".encode())
    elif kind is Document:  # what it holds, not where its file lies
        update(b"document;")
        _describe({"name": value.name, "title": value.title, "kind": value.kind, "text": value.text,
                   **{k: v for k, v in value.metadata.items() if not isinstance(v, os.PathLike) and "path" not in k}},
                  digest)
    elif kind is set or kind is frozenset:
        parts = []
        for item in value:
            part = hashlib.sha256()
            _describe(item, part)
            parts.append(part.hexdigest())
        update(("set:" + ",".join(sorted(parts)) + ";").encode())
    elif isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
        if not _ours(value):
            raise _Unknown(value)
        update(f"code:{value.__module__}.{value.__qualname__};".encode())
    elif _ours(kind):
        update(f"object:{kind.__module__}.{kind.__qualname__};".encode())
        _describe(_state(value), digest)
    else:  # a subclass of a plain type, or a type from elsewhere: it may hold more than it shows
        raise _Unknown(value)


def _state(value: Any) -> Any:
    """What describes an object of a chunklab class: its parameters (`get_params`), its fields (a
    dataclass), or its public attributes."""
    if hasattr(value, "get_params"):
        return value.get_params()
    if dataclasses.is_dataclass(value):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    try:
        attributes = vars(value)
    except TypeError:  # no __dict__: nothing public to describe it by
        raise _Unknown(value) from None
    return {name: item for name, item in attributes.items() if not name.startswith("_")}
