"""What to send to the model for the chunks a retriever found: the chunks, or more around them.

Each function here is an ``expand_hits`` option of `chunklab.evaluation.comparison.compare`: it
receives one question's retrieved chunks, best first, and returns the ``(source, start, end)`` spans
to send, in the order they are sent. `compare` then spends its budget on those spans exactly as on
plain chunks (non-space characters, the last span cut at the budget), so a variant is measured by
the same rule as every other row. Text already sent is never sent, nor paid for, twice: each span
is only the part of a hit's text (or of its parent) that no earlier span has sent.

* `new_text_only`: overlapping chunks (sliding windows, fixed windows with overlap) repeat text;
  send each hit's text that better-ranked hits have not sent.
* `small_to_big` (hierarchical chunking): match a small leaf, send its parent section: the leaf
  first, then the rest of the parent, so a cut at the budget keeps the matched text.
* `auto_merge`: send the leaves, and when more than `ratio` of a parent's children have been sent,
  the rest of the parent too, and so on up the tree (never the whole document).

Without an ``expand_hits``, `compare` sends the leaves themselves: the flat baseline. The chunks
given to `small_to_big` and `auto_merge` must come from a `HierarchicalChunker` (``metadata["node"]``
and ``metadata["source"]``), and `trees` maps each source name to that chunker's tree of the
document (`HierarchicalChunker.tree`).
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from ..core import Chunk
from ..strategies.hierarchical import Node
from ..text.spans import union

__all__ = ["auto_merge", "new_text_only", "small_to_big"]

ExpandHits = Callable[[Sequence[Chunk]], list[tuple[str, int, int]]]


class _Sent:
    """The spans sent so far for one question, per source, and the new pieces of a span."""

    def __init__(self) -> None:
        self.by_source: dict[str, list[tuple[int, int]]] = {}
        self.out: list[tuple[str, int, int]] = []

    def send(self, source: str, start: int, end: int) -> None:
        """Send the parts of ``[start, end)`` of `source` that no earlier span has sent, in order."""
        span = (start, end)
        for covered_start, covered_end in union(self.by_source.get(source, [])):
            if covered_end <= start:
                continue
            if covered_start >= end:
                break
            if covered_start > start:
                self.out.append((source, start, covered_start))
            start = max(start, covered_end)
        if start < end:
            self.out.append((source, start, end))
        self.by_source.setdefault(source, []).append(span)

    def covers(self, source: str, node: Node) -> bool:
        """Whether every character of `node` has been sent."""
        return any(s <= node.start and node.end <= e for s, e in union(self.by_source.get(source, [])))


def new_text_only(hits: Sequence[Chunk]) -> list[tuple[str, int, int]]:
    """Each hit, best first, minus the text that better-ranked hits of its document
    (``metadata["source"]``) have sent already. A hit that overlaps earlier ones on both sides sends
    the pieces in between; a hit inside them sends nothing.

    With a budget (`chunklab.evaluation.comparison.compare`), the budget then buys new text instead
    of paying again for a window's overlap with its neighbours.
    """
    sent = _Sent()
    for chunk in hits:
        sent.send(chunk.metadata.get("source"), chunk.start, chunk.end)
    return sent.out


def _index(trees: Mapping[str, Node]) -> dict[tuple[str, str], Node]:
    return {(source, node.id): node for source, root in trees.items() for node in root.walk()}


def _hit_node(index: Mapping[tuple[str, str], Node], chunk: Chunk) -> tuple[str, Node]:
    source, node_id = chunk.metadata.get("source"), chunk.metadata.get("node")
    node = index.get((source, node_id))
    if node is None or node.span != (chunk.start, chunk.end):
        raise ValueError(
            f"chunk [{chunk.start}, {chunk.end}) of {source!r} (node {node_id!r}) is not a node of the given trees; "
            "chunk the documents with the same HierarchicalChunker that built them"
        )
    return source, node


def _enclosing(node: Node) -> Node:
    """The nearest ancestor that holds more text than `node` (not the whole document), else `node`."""
    parent = node.parent
    while parent is not None and parent.kind != "document" and parent.span == node.span:
        parent = parent.parent
    return node if parent is None or parent.kind == "document" else parent


def small_to_big(trees: Mapping[str, Node]) -> ExpandHits:
    """Send each retrieved leaf's parent section: for each hit, best first, the leaf's own text,
    then the rest of its parent (the parts not sent yet).

    The parent is the nearest ancestor that holds more text than the leaf (a section that is one
    leaf expands to the section around it), never the whole document. A parent that holds text
    already sent costs only the rest; `compare` cuts the last span at the budget.
    """
    index = _index(trees)

    def expand(hits: Sequence[Chunk]) -> list[tuple[str, int, int]]:
        sent = _Sent()
        for chunk in hits:
            source, leaf = _hit_node(index, chunk)
            sent.send(source, *leaf.span)
            sent.send(source, *_enclosing(leaf).span)
        return sent.out

    return expand


def auto_merge(trees: Mapping[str, Node], ratio: float = 0.5) -> ExpandHits:
    """Send the retrieved leaves, merged upwards: for each hit, best first, the leaf's own text;
    then, when more than `ratio` of its parent's children have been sent whole, the rest of the
    parent, and the same one level up (never the whole document).
    """
    if not 0 <= ratio < 1:
        raise ValueError(f"ratio must be in [0, 1), got {ratio}")
    index = _index(trees)

    def expand(hits: Sequence[Chunk]) -> list[tuple[str, int, int]]:
        sent = _Sent()
        for chunk in hits:
            source, node = _hit_node(index, chunk)
            sent.send(source, *node.span)
            parent = node.parent
            while parent is not None and parent.kind != "document":
                whole = sum(sent.covers(source, child) for child in parent.children)
                if whole <= ratio * len(parent.children):
                    break
                sent.send(source, *parent.span)
                parent = parent.parent
        return sent.out

    return expand
