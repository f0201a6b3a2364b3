"""Sphinx configuration of the course site; `docs/build_site.py` (``make site``) prepares the sources."""

from __future__ import annotations

project = "chunklab"
author = "the chunklab authors"
copyright = "the chunklab authors"
# The licence is stated once, on the home page (its data part needs a sentence, not a footer line), and
# the theme's footer already names the authors.
html_show_copyright = False

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.viewcode"]
# docs/course, docs/api and docs/_generated are written by docs/build_site.py (git-ignored);
# the sections are included into the side pages, not pages of their own.
exclude_patterns = ["_build", "_generated/*", "**.ipynb_checkpoints"]
root_doc = "index"

# The notebooks arrive executed (docs/build_site.py caches them); Sphinx never runs a cell.
nb_execution_mode = "off"
# A saved widget is shown by its static view (chunklab.viz.static), never by ipywidgets' JavaScript,
# which a page would load from a CDN.
nb_ipywidgets_js: dict = {}
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None)]
# stderr (warnings of libraries, the command line's messages in notebook 17) is not part of a page.
nb_output_stderr = "remove"
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3
# Every cross-reference must resolve: a broken one is a build failure (docs/build_site.py).
nitpicky = True
# Classes named in signatures and bases (other libraries', chunklab's internal ones) are not links
# a page makes; every explicit reference (py:obj, a page, a heading) must resolve.
nitpick_ignore_regex = [(r"py:class", r".*"), (r"py:.*", r"(?!chunklab\.).*")]

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"exclude-members": "__init__, __new__"}
# Docstrings write names as `name` (Markdown habit): each is a link to the entry of that name where
# the Python domain finds one (a name of the same module or class, or a full ``chunklab.…`` path), and
# stays plain code where it does not, without a warning (`_unresolved_as_code`). Explicit references
# (``name <target>``: the reference's tables, the notebooks' links) must still resolve.
default_role = "py:obj"


def _unresolved_as_code(app, env, node, contnode):
    """A Python name written in backticks that no entry documents: keep it as code."""
    if node.get("refdomain") == "py" and not node.get("refexplicit"):
        return contnode
    return None


def _source_module(app, modname, attribute):
    """The module whose source page `viewcode` links for `attribute` of `modname`: the object's own
    module when it is chunklab's, else `modname` itself. A type alias (``Span = tuple[int, int]``)
    reports ``builtins`` or ``typing``, whose source page is never built: the link would be broken."""
    import importlib

    try:
        obj = importlib.import_module(modname)
        for part in attribute.split("."):
            obj = getattr(obj, part)
    except Exception:  # not importable here: viewcode's own rule decides
        return None
    module = getattr(obj, "__module__", None)
    return module if isinstance(module, str) and module.startswith("chunklab") else modname


def setup(app):
    app.connect("missing-reference", _unresolved_as_code)
    app.connect("viewcode-follow-imported", _source_module)

html_theme = "sphinx_book_theme"
html_title = "chunklab: text chunking for RAG, the course"
html_theme_options = {
    "show_navbar_depth": 1,
    "show_toc_level": 2,
    "use_download_button": False,
    "home_page_in_toc": True,
}
html_static_path: list[str] = []
html_favicon = "favicon.svg"  # else the browser asks for /favicon.ico and logs the 404 as an error
# The theme's colour mode is read from the page when the reader has not chosen one; left empty, the
# theme's script logs an error on every page.
html_context = {"default_mode": "light"}
html_show_sourcelink = False
