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

import bisect
from typing import Callable, Mapping, Sequence

from ..core import Chunk
from ..strategies.hierarchical import Node

__all__ = ["auto_merge", "new_text_only", "small_to_big"]

ExpandHits = Callable[[Sequence[Chunk]], list[tuple[str, int, int]]]


class _Sent:
    """The text sent so far for one question, per source, as sorted disjoint ``[start, end)``
    intervals, and the spans sent, in order."""

    def __init__(self) -> None:
        self.starts: dict[str, list[int]] = {}
        self.ends: dict[str, list[int]] = {}
        self.out: list[tuple[str, int, int]] = []

    def send(self, source: str, start: int, end: int) -> None:
        """Send the parts of ``[start, end)`` of `source` that no earlier span has sent, in order."""
        starts, ends = self.starts.setdefault(source, []), self.ends.setdefault(source, [])
        first = bisect.bisect_left(ends, start)  # the first interval that ends at `start` or later
        last = bisect.bisect_right(starts, end)  # the intervals before it start at `end` or earlier
        position = start
        for covered_start, covered_end in zip(starts[first:last], ends[first:last]):
            if covered_start > position:
                self.out.append((source, position, covered_start))
            position = max(position, covered_end)
        if position < end:
            self.out.append((source, position, end))
        if first < last:  # merge the span with the intervals it overlaps or touches
            start, end = min(start, starts[first]), max(end, ends[last - 1])
        starts[first:last], ends[first:last] = [start], [end]

    def holds(self, source: str, start: int, end: int) -> bool:
        """Whether every character of ``[start, end)`` has been sent."""
        starts, ends = self.starts.get(source, []), self.ends.get(source, [])
        i = bisect.bisect_right(starts, start) - 1
        return i >= 0 and ends[i] >= end


def new_text_only(hits: Sequence[Chunk]) -> list[tuple[str, int, int]]:
    """Each hit, best first, minus the text that better-ranked hits of its document
    (``metadata["source"]``) have sent already. A hit that overlaps earlier ones on both sides sends
    the pieces in between; a hit inside them sends nothing.

    With a budget (`chunklab.evaluation.comparison.compare`), the budget then buys new text instead
    of paying again for a window's overlap with its neighbours.
    """
    sent = _Sent()
    for chunk in hits:
        sent.send(chunk.metadata.get("source", ""), chunk.start, chunk.end)
    return sent.out


def _index(trees: Mapping[str, Node]) -> dict[tuple[str, str], Node]:
    return {(source, node.id): node for source, root in trees.items() for node in root.walk()}


def _hit_node(index: Mapping[tuple[str, str], Node], chunk: Chunk) -> tuple[str, Node]:
    source, node_id = chunk.metadata.get("source", ""), chunk.metadata.get("node", "")
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
    then, when more than `ratio` of its parent's children have been sent (as hits, or as parents
    merged in turn), the rest of the parent, and the same one level up (never the whole document).
    A hit that a parent sent before already holds adds nothing.
    """
    if not 0 <= ratio < 1:
        raise ValueError(f"ratio must be in [0, 1), got {ratio}")
    index = _index(trees)

    def expand(hits: Sequence[Chunk]) -> list[tuple[str, int, int]]:
        sent = _Sent()
        children_sent: dict[tuple[str, int], int] = {}  # per parent node, how many of its children were sent
        for chunk in hits:
            source, node = _hit_node(index, chunk)
            if sent.holds(source, *node.span):
                continue  # a parent sent before holds it already
            sent.send(source, *node.span)
            parent = node.parent
            while parent is not None and parent.kind != "document":
                key = (source, id(parent))
                children_sent[key] = children_sent.get(key, 0) + 1
                if children_sent[key] <= ratio * len(parent.children):
                    break
                sent.send(source, *parent.span)
                parent = parent.parent
        return sent.out

    return expand
