"""The section tree drawn: one indented row per node, with where it lies in the document.

Each row shows the node's title (a piece shows the start of its text instead), its kind and size,
and a small bar locating its span in the whole document; hovering a row shows its id, span and the
start of its text. `render_tree` is a pure function (tree in, HTML out) so it can be tested;
`show_tree` wraps it for Jupyter. The outer ``div`` carries ``data-nodes`` (rows drawn) and every
row ``data-node``, ``data-level``, ``data-start`` and ``data-end``, so a test reads what is shown.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any, Iterator

from .chunks import PALETTE

if TYPE_CHECKING:
    from ..strategies.hierarchical import Node

__all__ = ["render_tree", "show_tree"]

_STYLE = """<style>
.chunklab-tree{font-family:var(--jp-content-font-family,system-ui,sans-serif);font-size:12.5px;line-height:1.5;\
max-height:%dpx;overflow-y:auto;border:1px solid #ddd;padding:6px 8px;background:#fff;color:#111}
.chunklab-tree .ct-row{display:flex;align-items:center;gap:8px;white-space:nowrap;border-radius:3px}
.chunklab-tree .ct-row:hover{background:#f1f1f1}
.chunklab-tree .ct-title{flex:1 1 auto;overflow:hidden;text-overflow:ellipsis}
.chunklab-tree .ct-piece{color:#666;font-style:italic}
.chunklab-tree .ct-kind{font-size:10px;color:#fff;border-radius:3px;padding:0 4px;background:#555}
.chunklab-tree .ct-size{font-family:var(--jp-code-font-family,monospace);font-size:11px;color:#444;\
width:64px;text-align:right}
.chunklab-tree .ct-track{position:relative;width:140px;height:8px;background:#eee;border-radius:2px;flex:none}
.chunklab-tree .ct-span{position:absolute;top:0;height:8px;border-radius:2px;min-width:2px}
.chunklab-tree .ct-note{font-size:11px;color:#666;margin-top:4px}
</style>"""


def _rows(node: Node, max_depth: int | None, pieces: bool) -> Iterator[Node]:
    if max_depth is not None and node.depth > max_depth:
        return
    if node.kind == "piece" and not pieces:
        return
    yield node
    for child in node.children:
        yield from _rows(child, max_depth, pieces)


def render_tree(
    root: Node,
    text: str,
    *,
    max_depth: int | None = None,
    pieces: bool = True,
    max_rows: int = 400,
    height: int = 460,
) -> str:
    """An HTML drawing of the tree under `root` (a `chunklab.strategies.hierarchical.Node`).

    `text` is the document the tree was built from. Rows deeper than `max_depth` are left out, and
    the pieces (the leaves cut from a section's own text) too unless `pieces`; at most `max_rows`
    rows are drawn (a note says how many were left out).
    """
    if root.end > len(text):
        raise ValueError(f"the tree spans [{root.start}, {root.end}) but the text has {len(text)} characters")
    rows = list(_rows(root, max_depth, pieces))
    shown, hidden = rows[:max_rows], len(rows) - max_rows
    total = max(len(text), 1)
    parts = [_STYLE % height, f'<div class="chunklab-tree" data-nodes="{len(shown)}">']
    for node in shown:
        parts.append(_row(node, text, total))
    if hidden > 0:
        parts.append(f'<div class="ct-note">{hidden} more rows not shown (raise max_rows)</div>')
    parts.append("</div>")
    return "".join(parts)


def _row(node: Node, text: str, total: int) -> str:
    size = node.end - node.start
    excerpt = " ".join(text[node.start : node.start + 240].split())
    if node.title:
        # A clause titled by its number ("4.2") reads better with the words that follow it.
        rest = excerpt[len(node.title) :].strip() if excerpt.startswith(node.title) else ""
        more = f' <span class="ct-piece">{html.escape(rest[:80])}</span>' if rest and len(node.title) <= 12 else ""
        label = f'<span class="ct-title">{html.escape(node.title)}{more}</span>'
    else:
        label = f'<span class="ct-title ct-piece">{html.escape(excerpt[:90])}</span>'
    children = f" · {len(node.children)} children" if node.children else ""
    hover = html.escape(
        f"node {node.id} · {node.kind} · level {node.depth} · [{node.start}, {node.end}) · {size:,} chars{children}\n"
        f"{excerpt}",
        quote=True,
    )
    colour = PALETTE[node.depth % len(PALETTE)]
    left, width = 100 * node.start / total, 100 * size / total
    return (
        f'<div class="ct-row" style="padding-left:{node.depth * 18}px" title="{hover}" data-node="{node.id}" '
        f'data-level="{node.depth}" data-start="{node.start}" data-end="{node.end}">'
        f'<span class="ct-kind" style="background:{_KIND_COLOUR.get(node.kind, "#555")}">{node.kind}</span>{label}'
        f'<span class="ct-size">{size:,}</span>'
        '<span class="ct-track"><span class="ct-span" '
        f'style="left:{left:.2f}%;width:{width:.2f}%;background:{colour}"></span></span>'
        "</div>"
    )


_KIND_COLOUR = {"document": "#222", "section": "#4477AA", "group": "#228833", "piece": "#999"}


def show_tree(root: Node, text: str, **options: Any) -> Any:
    """Display the tree in Jupyter (an ``IPython.display.HTML``); options as for `render_tree`."""
    from IPython.display import HTML

    return HTML(render_tree(root, text, **options))
