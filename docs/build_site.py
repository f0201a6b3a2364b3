"""Build the course site (`make site`): every notebook executed once, the API reference, the side pages.

Steps, each skipped when its inputs have not changed:

1. **Execute** each notebook of ``notebooks/`` in a fresh kernel (nbclient), in its own folder, and
   keep the executed copy in ``.cache/site/executed/``. A copy is reused while its key holds: the
   notebook's cells, every file of ``chunklab/`` and ``data/``, and this script's
   `EXECUTION_VERSION`. A failing cell stops the build with the notebook and cell named.
   Why not myst-nb's cache mode (jupyter-cache, pinned in requirements-site.txt for myst-nb):
   jupyter-cache keys a notebook by its code cells (and kernel), and has no way to add other files
   to that key, so after a change to ``chunklab/`` or ``data/`` it would serve the outputs of the
   old library, numbers the prose quotes included. Here the library and the data are part of the
   key; myst-nb only renders the executed copies (``nb_execution_mode = "off"``).
2. **Prepare** the copies Sphinx reads (``docs/course/``): progress bars dropped (a
   bar in a saved notebook is frozen where it was first drawn), check cells folded, widget state
   dropped (the site shows each widget's static view, `chunklab.viz.static`), and the first mention
   of each public name on a page linked to the API reference.
3. **Generate** the API reference (``docs/api/``: every public name of ``chunklab`` and
   of each layer, each chunker's parameters as ``chunklab strategies`` prints them) and the side
   pages' sections taken from the executed notebooks (``docs/_generated/sections/``).
4. **Render** with Sphinx (myst-nb, sphinx-book-theme) into ``_site/``. Any warning fails the build
   (a broken link or reference, a missing page), except the reStructuredText style of docstrings.

Usage: ``python docs/build_site.py [--only 00 01 ...] [--jobs N] [--out DIR]``. ``--only`` builds a
site of those notebooks alone (the side pages then use the other notebooks' sources, without outputs).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import copy
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import nbformat

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
NOTEBOOKS = REPO / "notebooks"
GENERATED = DOCS / "_generated"
CACHE = REPO / ".cache" / "site"
EXECUTED = CACHE / "executed"
#: Bump when the way notebooks are executed changes, so every cached copy is run again.
EXECUTION_VERSION = "1"
CELL_TIMEOUT = 1800  # seconds; notebook 16's comparison cell embeds the corpus when the cache is cold

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
#: A tqdm bar's text form: ``compare:   0%|          | 0/12 [00:00<?, ?it/s]``.
PROGRESS_BAR = re.compile(r"^[^\n|]*\d+%\|[^\n]*\|\s*\d+/\d+")
#: Layers of the package the reference leaves out: the notebooks' exercise checks are not an API.
UNDOCUMENTED = {"exercises"}


def layer_contract() -> list[list[str]]:
    """The layers of the import-linter contract in pyproject.toml (the one place the order is
    written), top layer first, each as its modules' names without ``chunklab.``."""
    import tomllib

    contracts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = next(contract for contract in contracts if contract["type"] == "layers")["layers"]
    return [[name.strip().removeprefix("chunklab.") for name in layer.split("|")] for layer in layers]


#: The layers whose public names the reference documents, in the order of their pages: bottom first.
LAYERS = [name for layer in reversed(layer_contract()) for name in layer if name not in UNDOCUMENTED]
#: Modules documented whole on their layer's page (they are the layer's public face but not in its
#: ``__all__``: importing them needs an optional framework).
EXTRA_MODULES = {"integrations": ["chunklab.integrations.langchain", "chunklab.integrations.llama_index"]}


def _write(path: Path, text: str) -> None:
    """Write `text` only when it differs, so Sphinx rebuilds only the pages whose sources changed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


# -- 1. execution ----------------------------------------------------------------------------------
def _tree_digest(*folders: Path) -> str:
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(REPO)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def execution_key(path: Path, library: str) -> str:
    """What an executed copy depends on: the notebook's cells, the library and the corpus."""
    cells = [(c["cell_type"], c["source"]) for c in nbformat.read(path, as_version=4).cells]
    blob = json.dumps([EXECUTION_VERSION, library, cells]).encode()
    return hashlib.sha256(blob).hexdigest()


def execute(path: Path, key: str) -> tuple[str, float]:
    """Run `path` top to bottom in a fresh kernel and cache the result; returns (name, seconds)."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    started = time.perf_counter()
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    try:
        client.execute()
    except CellExecutionError as error:
        raise SystemExit(f"site: a cell of {path.name} failed:\n{error}") from None
    notebook.metadata["chunklab_site"] = {"key": key}
    EXECUTED.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, EXECUTED / path.name)
    return path.name, time.perf_counter() - started


def cached(path: Path, key: str) -> bool:
    copy_path = EXECUTED / path.name
    if not copy_path.exists():
        return False
    return nbformat.read(copy_path, as_version=4).metadata.get("chunklab_site", {}).get("key") == key


def execute_all(paths: list[Path], jobs: int) -> None:
    library = _tree_digest(REPO / "chunklab", REPO / "data")
    keys = {path: execution_key(path, library) for path in paths}
    stale = [path for path in paths if not cached(path, keys[path])]
    print(f"site: {len(paths) - len(stale)} of {len(paths)} notebooks cached, executing {len(stale)}", flush=True)
    # The longest first, so that the other notebooks run beside it.
    stale.sort(key=lambda p: not p.name.startswith("16"))
    with concurrent.futures.ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        for name, seconds in pool.map(execute, stale, [keys[p] for p in stale]):
            print(f"site: executed {name} in {seconds:.0f} s", flush=True)


# -- 2. the pages' notebooks -----------------------------------------------------------------------
def is_progress_bar(output: dict[str, Any]) -> bool:
    """A tqdm bar: a widget whose text form is a progress meter (static, it is stuck where it began)."""
    data = output.get("data", {})
    return WIDGET_VIEW in data and bool(PROGRESS_BAR.match(str(data.get("text/plain", "")).strip()))


def _strip_progress(text: str) -> str:
    """Stream text without the frames a text-mode tqdm bar wrote (lines joined by carriage returns)."""
    lines = re.split(r"(?<=\n)", text)
    return "".join(line for line in lines if not PROGRESS_BAR.match(line.split("\r")[-1].strip()))


def prepare(notebook: Any, links: dict[str, str]) -> Any:
    """The copy Sphinx renders: no progress bars, checks folded, no widget state, names linked."""
    notebook = copy.deepcopy(notebook)
    notebook.metadata.pop("widgets", None)
    seen: set[str] = set()
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cell.source = link_first_mentions(cell.source, links, seen)
            continue
        if cell.cell_type != "code":
            continue
        tags = cell.metadata.setdefault("tags", [])
        hidden = cell.metadata.get("jupyter", {}).get("source_hidden") or "checks" in tags
        if hidden and "hide-input" not in tags:
            tags.append("hide-input")
        outputs = []
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                output["text"] = _strip_progress(output["text"])
                if not output["text"].strip():
                    continue
            elif is_progress_bar(output):
                continue
            outputs.append(output)
        cell.outputs = outputs
    return notebook


_FENCE = re.compile(r"^(```|~~~)", re.M)
_INLINE = re.compile(r"(?<![`\w])`(chunklab\.[\w.]+|[A-Za-z_]\w*)(\(\))?`(?!`)")


def link_first_mentions(source: str, links: dict[str, str], seen: set[str]) -> str:
    """`source` with the first inline-code mention of each public name on the page made a link to
    its reference entry (``{py:obj}`` role); code fences and later mentions are left alone."""
    parts = _FENCE.split(source)
    # Outside fences: even chunks of the split on fence markers, counting the markers themselves.
    out, inside = [], False
    for part in parts:
        if part in ("```", "~~~"):
            inside = not inside
            out.append(part)
            continue
        out.append(part if inside else _INLINE.sub(lambda m: _link(m, links, seen), part))
    return "".join(out)


def _link(match: re.Match[str], links: dict[str, str], seen: set[str]) -> str:
    name = match.group(1)
    target = links.get(name)
    if target is None or target in seen:
        return match.group(0)
    seen.add(target)
    return f"{{py:obj}}`{name}{match.group(2) or ''} <{target}>`"


# -- 3. the API reference --------------------------------------------------------------------------
def public_names() -> dict[str, list[str]]:
    """Every layer's public names (its ``__all__``), and the package's own under ``"chunklab"``."""
    import importlib

    names = {"chunklab": list(importlib.import_module("chunklab").__all__)}
    for layer in LAYERS:
        names[layer] = list(importlib.import_module(f"chunklab.{layer}").__all__)
    return names


def strategies_listing() -> dict[str, tuple[str, str, list[tuple[str, str, str]], str]]:
    """``chunklab strategies`` read back: name -> (class path, summary, [(parameter, default, allowed)],
    the rules between parameters)."""
    from chunklab.pipeline.cli import main

    out = io.StringIO()
    main(["strategies"], out=out)
    listing: dict[str, tuple[str, str, list[tuple[str, str, str]], str]] = {}
    current = ""
    for line in out.getvalue().splitlines():
        header = re.fullmatch(r"(\S+)\s+\((\S+)\)", line)
        param = re.fullmatch(r"\s+--param ([^=\s]+)=(.*?)\s{2,}(.*)", line)
        rules = re.fullmatch(r"\s+rules: (.*)", line)
        if header:
            current = header.group(1)
            listing[current] = (header.group(2), "", [], "")
        elif param and current:
            listing[current][2].append(param.groups())
        elif rules and current:
            listing[current] = (*listing[current][:3], rules.group(1))
        elif line.strip() and current and not listing[current][1]:
            listing[current] = (listing[current][0], line.strip(), *listing[current][2:])
    return listing


def _attribute_doc(package: str, name: str) -> str:
    """The ``#:`` comment of a module-level name defined in `package` or one of its modules."""
    import importlib
    import pkgutil

    try:
        from sphinx.pycode import ModuleAnalyzer
    except ImportError:  # the tests read the reference's names and targets without Sphinx installed
        return ""

    module = importlib.import_module(package)
    candidates = [package] + [f"{package}.{m.name}" for m in pkgutil.iter_modules(getattr(module, "__path__", []))]
    if package.count(".") > 1:  # a module below a layer: its own comments first, then its layer's modules
        layer = package.rsplit(".", 1)[0]
        candidates += [f"{layer}.{m.name}" for m in pkgutil.iter_modules(importlib.import_module(layer).__path__)]
    for candidate in candidates:
        try:
            found = ModuleAnalyzer.for_module(candidate).find_attr_docs().get(("", name))
        except Exception:  # a module Sphinx cannot analyse (an optional framework missing)
            continue
        if found:
            return "\n".join(found)
    return ""


def _summary(obj: Any, package: str, name: str) -> str:
    import inspect

    documented = inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj)
    doc = (obj.__doc__ if documented else _attribute_doc(package, name)) or ""
    doc = doc.strip().split("\n\n")[0]
    text = " ".join(doc.split())
    if text.count("`") % 2:
        text = text.replace("`", "'")
    # Outside `code`, characters that are markup in reST are escaped.
    pieces = re.split(r"(`[^`]*`)", text)
    return "".join(p if p.startswith("`") else re.sub(r"([*|\\]|(?<=\w)_(?!\w))", r"\\\1", p) for p in pieces)


def _rst_table(rows: list[list[str]], header: list[str]) -> str:
    """A list-table (cells may hold inline markup)."""
    lines = [".. list-table::", "   :header-rows: 1", "", "   * - " + "\n     - ".join(header)]
    for row in rows:
        lines.append("   * - " + "\n     - ".join(cell or " " for cell in row))
    return "\n".join(lines) + "\n"


def _code(text: str) -> str:
    return f"``{text}``" if text else ""


#: The pages that tell readers which names to use; the reference has an entry for each (`guide_names`).
GUIDES = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted(DOCS.glob("*.md")), *sorted(NOTEBOOKS.glob("[0-9]*.ipynb"))]
_PYTHON_FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.M | re.S)
_IMPORT_LINE = re.compile(r"^\s*from (chunklab(?:\.\w+)*) import ([\w, ]+)", re.M)
_DOTTED = re.compile(r"`(chunklab(?:\.\w+)+)")


def _imports(code: str) -> list[tuple[str, str]]:
    """``(module, name)`` of every ``from chunklab... import name`` in `code` (a line at a time when the
    code is not plain Python, as a notebook cell with a magic)."""
    import ast

    try:
        tree = ast.parse(code)
    except SyntaxError:
        return [(m, n.strip()) for m, names in _IMPORT_LINE.findall(code) for n in names.split(",") if n.strip()]
    return [(node.module, alias.name) for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "chunklab" and not node.level
            for alias in node.names]


def _split_dotted(dotted: str) -> tuple[str, str] | None:
    """``chunklab.evaluation.paired.holm`` -> ``("chunklab.evaluation.paired", "holm")``: the longest
    importable module and the name after it; None for a module itself or a name that does not resolve."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        return ".".join(parts[:cut]), parts[cut]
    return None


def guide_names() -> dict[str, list[str]]:
    """What the guides (`GUIDES`) tell readers to use: every name their Python imports from a chunklab
    module, and every ``chunklab.module.name`` their prose writes in backticks: module -> names."""
    found: dict[str, dict[str, None]] = {}
    for path in GUIDES:
        if path.suffix == ".ipynb":
            cells = nbformat.read(path, as_version=4).cells
            code = [c.source for c in cells if c.cell_type == "code"]
            prose = [c.source for c in cells if c.cell_type == "markdown"]
        else:
            code, prose = [], [path.read_text()]
        code += [block for text in prose for block in _PYTHON_FENCE.findall(text)]
        pairs = [pair for block in code for pair in _imports(block)]
        pairs += [pair for text in prose for dotted in _DOTTED.findall(text) if (pair := _split_dotted(dotted))]
        for module, name in pairs:
            if not name.startswith("_"):
                found.setdefault(module, {})[name] = None
    return {module: list(names) for module, names in found.items()}


def api_pages() -> tuple[dict[str, str], dict[str, str]]:
    """The reference pages (file name -> reST) and the link targets (name as written -> target).

    Each layer's page documents its ``__all__``, then every other name the guides use from a module of
    that layer (`guide_names`), under that module's path; a name the guides import from a path other
    than the one it is documented under links there, and its entry lists the path."""
    import importlib
    import importlib.util
    import inspect

    names = public_names()
    home: dict[int, str] = {}  # id(object) -> where it is documented in full
    links: dict[str, str] = {}
    pages: dict[str, str] = {}
    listing = strategies_listing()
    chunker_names = {cls_path.rsplit(".", 1)[1]: name for name, (cls_path, _, _, _) in listing.items()}
    whole = {module for modules in EXTRA_MODULES.values() for module in modules}
    planned: dict[int, str] = {}  # id(object) -> where it will be documented: the layers' own names first
    for layer in LAYERS:
        for name in names[layer]:
            planned.setdefault(id(getattr(importlib.import_module(f"chunklab.{layer}"), name)), f"chunklab.{layer}.{name}")
    sections: dict[str, dict[str, list[tuple[str, Any]]]] = {}  # layer -> module -> its names the guides use
    also: dict[str, list[str]] = {}  # documented target -> the other paths the guides use for it
    for module, used in guide_names().items():
        layer = module.split(".")[1] if module.count(".") else ""
        if layer not in LAYERS:
            continue
        for name in used:
            path = f"{module}.{name}"
            obj = getattr(importlib.import_module(module), name, None)
            if obj is None and importlib.util.find_spec(module).submodule_search_locations:
                obj = importlib.import_module(path)  # a module of a package, not imported yet
            if obj is None:
                continue
            if module in whole:  # documented whole, member by member
                links[path] = path
            elif inspect.ismodule(obj):
                if obj.__name__.count(".") > 1 and obj.__name__ not in whole:
                    sections.setdefault(layer, {}).setdefault(obj.__name__, [])
                    links[path] = obj.__name__
                continue
            # Constants equal by value share an id (two names for "hybrid"); only a function, a class or a
            # container is one object under two paths.
            target = planned.setdefault(id(obj), path) if not isinstance(obj, _VALUES) else path
            if target == path:
                if module != f"chunklab.{layer}" and (name, obj) not in sections.get(layer, {}).get(module, []):
                    sections.setdefault(layer, {}).setdefault(module, []).append((name, obj))
            else:
                also.setdefault(target, []).append(path)
            links[path] = target
    for layer in LAYERS:
        module_name = f"chunklab.{layer}"
        module = importlib.import_module(module_name)
        title = f"``{module_name}``"
        body = [title, "=" * len(title), "", f".. py:module:: {module_name}", ""]
        doc = (module.__doc__ or "").strip()
        if doc:
            body += [doc, ""]
        rows, entries = [], []
        for name in names[layer]:
            obj = getattr(module, name)
            target = f"{module_name}.{name}"
            documented = home.get(id(obj))
            if documented is None:
                documented = target
                home[id(obj)] = target
                entries.append((name, obj))
            links.setdefault(name, documented)
            links[target] = documented
            rows.append([f":py:obj:`{name} <{documented}>`", _summary(obj, module_name, name)])
        body += [_rst_table(rows, ["name", "what it is"]), ""]
        for name, obj in entries:
            body += _entry(module_name, name, obj, listing, chunker_names) + _also(also, f"{module_name}.{name}")
        for extra in EXTRA_MODULES.get(layer, []):
            heading = f"``{extra}``"
            body += [heading, "-" * len(heading), "", f".. automodule:: {extra}", "   :members:", ""]
        for module, here in sections.get(layer, {}).items():  # what the guides use beyond the layer's __all__
            heading = f"``{module}``"
            if module in EXTRA_MODULES.get(layer, []):  # documented in full just above
                continue
            # a module named like an object documented above (the function `paired` in the module
            # `paired`) is described once: its own section then only lists its names
            same_name = [":no-index:"] if module in home.values() else []
            body += [heading, "-" * len(heading), "", f".. automodule:: {module}", *(f"   {o}" for o in same_name), ""]
            if here:
                body += [f"Used by the course and the guides from this module (not in ``{module_name}``'s ``__all__``):", ""]
            links[module] = module
            for name, obj in here:
                body += _entry(module, name, obj, listing, chunker_names) + _also(also, f"{module}.{name}")
                links.setdefault(name, f"{module}.{name}")
        pages[layer] = "\n".join(body)
    top = ["``chunklab``", "============", "", "The package's own names: each is documented on its layer's page.", ""]
    rows = []
    for name in names["chunklab"]:
        obj = getattr(importlib.import_module("chunklab"), name)
        target = home.get(id(obj)) or links.get(name)
        if target is None:
            raise SystemExit(f"site: chunklab.{name} is in no layer's __all__, so the reference cannot place it")
        links[f"chunklab.{name}"] = target
        links[name] = target
        rows.append([f":py:obj:`{name} <{target}>`", _code(target), _summary(obj, target.rsplit(".", 1)[0], name)])
    top += [_rst_table(rows, ["name", "documented as", "what it is"])]
    pages["chunklab"] = "\n".join(top)
    pages["index"] = "\n".join([
        "API reference", "=============", "",
        "Generated from the docstrings. Each layer imports only the ones below it:",
        " > ".join(" | ".join(f"``{name}``" for name in layer) for layer in layer_contract()) + ";",
        "the parameters of every chunker are listed as ``chunklab strategies`` prints them.",
        "", ".. toctree::", "   :maxdepth: 1", "", "   chunklab",
        *[f"   {layer}" for layer in LAYERS], "",
    ])
    for module_path in (f"chunklab.{layer}" for layer in LAYERS):
        links.setdefault(module_path, module_path)
    return pages, links


#: Constants compared by value: two names for the same string or number are not one object.
_VALUES = (str, bytes, int, float, complex, bool, tuple, frozenset, type(None))


def _also(also: dict[str, list[str]], target: str) -> list[str]:
    """The line under an entry that names the other paths the guides import it from (none: no line)."""
    paths = sorted(set(also.get(target, [])))
    return [f"   Also imported as {', '.join(_code(p) for p in paths)}.", ""] if paths else []


def _entry(module_name: str, name: str, obj: Any, listing: dict, chunker_names: dict[str, str]) -> list[str]:
    import inspect

    target = f"{module_name}.{name}"
    if inspect.isclass(obj):
        lines = [f".. autoclass:: {target}", "   :members:", "   :show-inheritance:", ""]
        registered = chunker_names.get(name)
        if registered is not None:
            _, _, params, rules = listing[registered]
            lines = [f".. _chunker-{registered}:", "", *lines]
            rows = [[_code(p), _code(default), allowed] for p, default, allowed in params]
            lines += [f"   Registered as ``{registered}``. Parameters, as ``chunklab strategies`` prints them:", "",
                      "   " + _rst_table(rows, ["parameter", "default", "allowed values"]).replace("\n", "\n   "), ""]
            if rules:
                lines += [f"   Rules between parameters, beyond each one's own bounds: {_code(rules)}", ""]
        return lines
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or callable(obj) and hasattr(obj, "__wrapped__"):
        return [f".. autofunction:: {target}", ""]
    # A constant is described by its own ``#:`` comment; autodoc would show its type's docstring (dict's,
    # for a registry) when the comment sits in the module that defines it rather than the one documented.
    doc = _attribute_doc(module_name, name)
    return [f".. py:data:: {name}", f"   :module: {module_name}", "", *(f"   {line}" for line in doc.splitlines()), ""]


# -- side pages' sections --------------------------------------------------------------------------
def section(notebook: Any, heading: str) -> str:
    """The markdown of the section under `heading` (to the next heading of its level or higher), with
    the code cells' markdown, HTML and text outputs in place of the code."""
    level = len(heading) - len(heading.lstrip("#"))
    parts: list[str] = []
    inside = found = False
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            kept = []
            for line in cell.source.split("\n"):
                starts = re.match(r"(#+) ", line)
                if inside and starts and len(starts.group(1)) <= level:
                    inside = False
                if line.strip() == heading:
                    inside = found = True
                    continue
                if inside:
                    kept.append(line)
            parts.append("\n".join(kept))
        elif inside and cell.cell_type == "code":
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                if "text/markdown" in data:
                    parts.append(data["text/markdown"])
                elif "text/html" in data:
                    parts.append("```{raw} html\n" + data["text/html"] + "\n```")
        if found and not inside:
            break
    if not found:
        raise SystemExit(f"site: no section {heading!r} in the notebook the side pages quote")
    return "\n\n".join(part.strip() for part in parts if part.strip()) + "\n"


def side_sections(sources: dict[str, Any]) -> dict[str, str]:
    """The notebook sections the side pages include (``docs/_generated/sections/<name>.md``)."""
    return {
        "glossary": section(sources["00"], "## How to read our numbers"),
        "which_strategy_when": section(sources["16"], "## Which strategy when"),
        "leaderboard": section(sources["16"], "## The leaderboard"),
        "hybrid_standing": section(sources["16"], "## The hybrid chunker: the course's goal, on this page's leaderboards"),
        "against_practitioners": section(sources["16"], "## Against what practitioners use, on documents nobody tuned for"),
        "defaults_choice": section(sources["15"], "## Choosing the defaults on dev: a rule sized to the budget"),
    }


# -- 4. Sphinx --------------------------------------------------------------------------------------
def render(out: Path, missing: set[str]) -> None:
    """Sphinx into ``.cache/site/html`` (myst-nb keeps its output files beside that folder, in
    ``.cache/site/jupyter_execute``), then the pages copied to `out`."""
    import shutil

    warnings = CACHE / "sphinx-warnings.log"
    html = CACHE / "html"
    command = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "--keep-going", "-d", str(CACHE / "doctrees"),
               "-w", str(warnings), str(DOCS), str(html)]
    done = subprocess.run(command, cwd=REPO)
    # Docstrings follow the project's plain style, not strict reST: their style warnings do not fail.
    serious = [line for line in warnings.read_text().splitlines()
               if "WARNING" in line or "ERROR" in line
               if "docstring of " not in line
               if not any(f"target not found: '{name}" in line for name in missing)]
    if done.returncode or serious:
        print("\n".join(serious[:50]), file=sys.stderr)
        raise SystemExit(f"site: Sphinx reported {len(serious)} problems (full log: {warnings})")
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(html, out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", default=None, help="notebook numbers to build (default: all)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--out", type=Path, default=REPO / "_site")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    every = sorted(NOTEBOOKS.glob("[0-9]*.ipynb"))
    chosen = [p for p in every if args.only is None or p.name.split("_")[0] in args.only]
    if not chosen:
        raise SystemExit(f"site: no notebook matches {args.only}")
    execute_all(chosen, args.jobs)

    pages, links = api_pages()
    for name, text in pages.items():
        _write(DOCS / "api" / f"{name}.rst", text)
    sources = {}
    target = DOCS / "course"
    target.mkdir(parents=True, exist_ok=True)
    for path in every:
        executed = EXECUTED / path.name
        notebook = nbformat.read(executed if path in chosen and executed.exists() else path, as_version=4)
        sources[path.name.split("_")[0]] = notebook
        if path in chosen:
            _write(target / path.name, nbformat.writes(prepare(notebook, links)))
    # The course's table of contents, written out (a glob in index.md would be read once and kept
    # by Sphinx's incremental build when the set of notebooks changes).
    entries = "\n".join(f"course/{p.stem}" for p in chosen)
    _write(GENERATED / "course_toc.md", f"```{{toctree}}\n:caption: The course\n:maxdepth: 1\n\n{entries}\n```\n")
    for stale in target.glob("*.ipynb"):
        if stale.name not in {p.name for p in chosen}:
            stale.unlink()
    for name, text in side_sections(sources).items():
        _write(GENERATED / "sections" / f"{name}.md", text)
    render(args.out, {p.name for p in every if p not in chosen})
    print(f"site: built {args.out} in {time.perf_counter() - started:.0f} s ({len(chosen)} notebooks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
