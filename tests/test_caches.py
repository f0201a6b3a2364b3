"""The one cache policy (`chunklab.caches`): every module-level memo is a registered `cached` function
with a named limit, `chunklab.clear_caches` empties them all, and an argument that cannot be hashed is
computed uncached.

Each check is first shown to catch the defect it names, planted in a scratch module."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import chunklab
from chunklab.caches import PER_PIECE, PER_TEXT, RESOURCE, cached

PACKAGE = Path(chunklab.__file__).parent

#: Run in a fresh interpreter: import every module of chunklab (or only the modules named after the
#: workload), note how many items each module-level container holds, run the workload, call
#: `clear_caches`, and report what is left behind: containers that grew (a memo of its own),
#: memoised functions that are not registered, and registered caches still holding entries.
_PROBE = """
import collections.abc, importlib, json, pkgutil, sys
import chunklab
from chunklab.caches import clear_caches, registered_caches

names = sys.argv[2:] or [m.name for m in pkgutil.walk_packages(chunklab.__path__, "chunklab.")
                         if m.name != "chunklab.__main__"]
modules = [importlib.import_module(name) for name in names]
kinds = (collections.abc.MutableMapping, collections.abc.MutableSequence, collections.abc.MutableSet)

def sizes():
    return {f"{m.__name__}.{k}": len(v) for m in modules for k, v in vars(m).items() if isinstance(v, kinds)}

before = sizes()
exec(sys.argv[1])
registered = {id(memo) for memo in registered_caches()}
filled = sum(memo.cache_info().currsize > 0 for memo in registered_caches())
unregistered = sorted({f"{m.__name__}.{k}" for m in modules for k, v in vars(m).items()
                       if callable(getattr(v, "cache_info", None)) and id(v) not in registered})
clear_caches()
grown = sorted(k for k, n in sizes().items() if n > before.get(k, 0))
full = sorted(memo.__qualname__ for memo in registered_caches() if memo.cache_info().currsize)
print(json.dumps({"filled": filled, "grown": grown, "unregistered": unregistered, "full": full}))
"""

#: Every registered chunker on a short corpus document (a cheap embedder where a chunker takes one),
#: and BM25's stemmed tokens, so caches of every kind fill.
_WORKLOAD = """
import numpy as np
from chunklab import CHUNKERS, load_document
from chunklab.evaluation.retrieval import bm25_tokens

text = load_document("lab_notes").text
cheap = lambda texts: np.array([[len(t), t.count(" ") + 1.0, t.count("e") + 1.0] for t in texts])
for cls in CHUNKERS.values():
    cls(**({"embedder": cheap} if "embedder" in cls.param_specs() else {}))(text)
bm25_tokens([text])
"""


def _probe(workload: str, scratch: str | None = None, tmp_path: Path | None = None) -> dict:
    """What `_PROBE` reports after `workload`, with `scratch` (a module's source) importable as
    ``scratch_memo`` and imported."""
    env = dict(os.environ)
    extra: list[str] = []
    if scratch is not None and tmp_path is not None:
        (tmp_path / "scratch_memo.py").write_text(textwrap.dedent(scratch))
        env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
        extra = ["scratch_memo"]
    done = subprocess.run([sys.executable, "-c", _PROBE, workload, *extra], capture_output=True, text=True,
                          timeout=600, env=env, cwd=PACKAGE.parent)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_clear_caches_leaves_nothing_behind() -> None:
    report = _probe(_WORKLOAD)
    assert report["filled"] > 20, "the workload filled caches of many modules"
    assert not report["grown"], f"module-level containers kept what the workload put in: {report['grown']}"
    assert not report["unregistered"], f"memoised outside chunklab.caches: {report['unregistered']}"
    assert not report["full"], f"still holding entries after clear_caches: {report['full']}"


_OWN_CACHE = """
from collections import OrderedDict

_VECTORS = OrderedDict()

def _memo(cache, key, compute):
    if key not in cache:
        cache[key] = compute()
    return cache[key]

def vectors(text):
    return _memo(_VECTORS, text, lambda: [len(text)])
"""

_FUNCTOOLS_CACHE = """
import functools as tools

@tools.lru_cache(maxsize=8)
def vectors(text):
    return [len(text)]
"""


def test_the_probe_catches_a_cache_of_its_own(tmp_path: Path) -> None:
    """A module that keeps embeddings in an OrderedDict filled through a helper (what
    `strategies/semantic.py` did) is reported: `clear_caches` leaves the container full."""
    report = _probe("import scratch_memo; scratch_memo.vectors('some text')", _OWN_CACHE, tmp_path)
    assert report["grown"] == ["scratch_memo._VECTORS"]


def test_the_probe_catches_an_unregistered_memo(tmp_path: Path) -> None:
    report = _probe("import scratch_memo; scratch_memo.vectors('some text')", _FUNCTOOLS_CACHE, tmp_path)
    assert report["unregistered"] == ["scratch_memo.vectors"]


def functools_memos(source: str) -> list[int]:
    """Lines of `source` that reach functools' ``lru_cache`` or ``cache`` (under any import name)."""
    tree = ast.parse(source)
    aliases = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
               if a.name == "functools"}
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "functools":
            lines += [node.lineno for a in node.names if a.name in ("lru_cache", "cache", "*")]
        elif isinstance(node, ast.Attribute) and node.attr in ("lru_cache", "cache"):
            if isinstance(node.value, ast.Name) and node.value.id in aliases:
                lines.append(node.lineno)
    return lines


def test_no_module_memoises_through_functools() -> None:
    assert functools_memos(_FUNCTOOLS_CACHE) == [4], "the check sees an aliased functools"
    assert functools_memos("from functools import partial, lru_cache as memo\n") == [1]
    assert functools_memos("import functools\nf = functools.partial(len)\n") == []
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in PACKAGE.rglob("*.py")
        if path.name != "caches.py"
        for line in functools_memos(path.read_text(encoding="utf-8"))
    ]
    assert not offenders, f"use chunklab.caches.cached(RESOURCE | PER_TEXT | PER_PIECE), not functools: {offenders}"


def test_a_limit_outside_the_policy_is_refused() -> None:
    for limit in (RESOURCE, PER_TEXT, PER_PIECE):
        cached(limit)(lambda: None)
    with pytest.raises(ValueError, match="maxsize.*PER_TEXT"):
        cached(17)


@cached(PER_TEXT)
def _length(items: object) -> int:
    if items == "boom":
        raise TypeError("raised by the function")
    return len(items)  # type: ignore[arg-type]


def test_unhashable_arguments_are_computed_uncached() -> None:
    _length.cache_clear()  # type: ignore[attr-defined]
    assert _length([1, 2, 3]) == 3 and _length([1, 2, 3]) == 3
    assert _length.cache_info().currsize == 0  # type: ignore[attr-defined]
    assert _length((1, 2)) == 2 and _length.cache_info().currsize == 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="raised by the function"):
        _length("boom")
