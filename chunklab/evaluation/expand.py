"""What to send to the model for the chunks a retriever found: the chunks, or their parents.

Hierarchical chunking indexes small leaves (precise matches) but may send bigger context:

* **small-to-big**: match a leaf, send its parent section (`small_to_big`);
* **auto-merging**: send the leaves, but when more than `ratio` of a parent's children are among
  them, send the parent instead, and so on up the tree (`auto_merge`);
* **flat**: send the retrieved leaves themselves (`flat`), the baseline.

Overlapping chunks (sliding windows, or fixed windows with overlap) raise the opposite problem: the
hits repeat text. `new_text_only` sends each hit's text that no better-ranked hit has sent already.

A fair comparison holds the amount of text sent fixed: each function fills a budget of characters
with the best-ranked hits first, skipping a hit whose text would overflow it and going on with the
next, so all three send at most `budget` characters. Text already sent is never paid twice: a
parent replaces the leaves it contains.

Each function returns an ``expand_hits`` callable for `chunklab.evaluation.comparison.compare`: it receives one
question's retrieved chunks, best first, and returns ``(source, start, end)`` spans. The chunks must
come from a `HierarchicalChunker` (``metadata["node"]`` and ``metadata["source"]``), and `trees`
maps each source name to that chunker's tree of the document (`HierarchicalChunker.tree`).
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from ..core import Chunk
from ..strategies.hierarchical import Node
from ..text.spans import union

__all__ = ["auto_merge", "flat", "new_text_only", "small_to_big"]

ExpandHits = Callable[[Sequence[Chunk]], list[tuple[str, int, int]]]


class _Budget:
    """The outermost nodes chosen so far, in order of choice, and the characters they cost.

    Kept up to date at each choice (as `_outermost` of every node chosen), so that a hit is judged
    in time proportional to the nodes chosen, however many hits are tried."""

    def __init__(self, budget: int) -> None:
        if budget < 1:
            raise ValueError(f"budget must be >= 1 character, got {budget}")
        self.budget = budget
        self.chosen: list[tuple[str, Node]] = []
        self.spent = 0

    def extra(self, source: str, node: Node) -> int | None:
        """The characters that choosing `node` adds: its size minus the chosen nodes it holds, or
        None when a chosen node holds it already (choosing it changes nothing)."""
        held = 0
        for s, n in self.chosen:
            if s != source:
                continue
            if n.start <= node.start and node.end <= n.end:
                return None
            if node.start <= n.start and n.end <= node.end:
                held += n.end - n.start
        return node.end - node.start - held

    def add(self, source: str, node: Node) -> bool:
        """Choose `node` if the budget allows; nodes inside it are then covered by it."""
        extra = self.extra(source, node)
        if extra is None:
            return True
        if self.spent + extra > self.budget:
            return False
        self.replace(_outermost([*self.chosen, (source, node)]))
        return True

    def replace(self, chosen: list[tuple[str, Node]]) -> None:
        """Make `chosen` (outermost nodes, none inside another) the choice."""
        self.chosen = chosen
        self.spent = _size(chosen)

    def spans(self) -> list[tuple[str, int, int]]:
        return [(source, node.start, node.end) for source, node in self.chosen]


def _size(chosen: Sequence[tuple[str, Node]]) -> int:
    return sum(node.end - node.start for _, node in chosen)


def _outermost(chosen: Sequence[tuple[str, Node]]) -> list[tuple[str, Node]]:
    """The chosen nodes that no other chosen node contains, in order of choice (duplicates once).

    Nodes of one tree are nested or disjoint, so containment is all there is to check."""
    out: list[tuple[str, Node]] = []
    for source, node in chosen:
        if any(s == source and n.start <= node.start and node.end <= n.end for s, n in out):
            continue
        out = [(s, n) for s, n in out if not (s == source and node.start <= n.start and n.end <= node.end)]
        out.append((source, node))
    return out


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


def flat(trees: Mapping[str, Node], budget: int) -> ExpandHits:
    """Send the retrieved leaves themselves, best first, as long as they fit in `budget` characters."""
    index = _index(trees)

    def expand(hits: Sequence[Chunk]) -> list[tuple[str, int, int]]:
        chosen = _Budget(budget)
        for chunk in hits:
            chosen.add(*_hit_node(index, chunk))
        return chosen.spans()

    return expand


def small_to_big(trees: Mapping[str, Node], budget: int) -> ExpandHits:
    """Send each retrieved leaf's parent section instead of the leaf (best first, within `budget`).

    The parent is the nearest ancestor that holds more text than the leaf (a section that is one
    leaf expands to the section around it), never the whole document. A parent that does not fit
    in what is left of the budget is replaced by the leaf itself, if that fits.
    """
    index = _index(trees)

    def expand(hits: Sequence[Chunk]) -> list[tuple[str, int, int]]:
        chosen = _Budget(budget)
        for chunk in hits:
            source, leaf = _hit_node(index, chunk)
            if not chosen.add(source, _enclosing(leaf)):
                chosen.add(source, leaf)
        return chosen.spans()

    return expand


def auto_merge(trees: Mapping[str, Node], budget: int, ratio: float = 0.5) -> ExpandHits:
    """Send the retrieved leaves, merged upwards: when more than `ratio` of a parent's children are
    sent, send the parent instead, and repeat one level up (never the whole document).

    Hits are taken best first; each is added, merges are applied, and the hit is dropped again if
    the merged result no longer fits in `budget` characters (a later hit may still fit).
    """
    if not 0 <= ratio < 1:
        raise ValueError(f"ratio must be in [0, 1), got {ratio}")
    index = _index(trees)

    def expand(hits: Sequence[Chunk]) -> list[tuple[str, int, int]]:
        chosen = _Budget(budget)
        for chunk in hits:
            source, leaf = _hit_node(index, chunk)
            extra = chosen.extra(source, leaf)  # merging only adds to it
            if extra is None or chosen.spent + extra > budget:
                continue
            trial = _merged([*chosen.chosen, (source, leaf)], ratio)
            if _size(trial) <= budget:
                chosen.replace(trial)
        return chosen.spans()

    return expand


def _merged(chosen: list[tuple[str, Node]], ratio: float) -> list[tuple[str, Node]]:
    """Replace children by their parent while more than `ratio` of the parent's children are chosen."""
    while True:
        outer = _outermost(chosen)
        by_parent: dict[tuple[str, int], list[int]] = {}
        for i, (source, node) in enumerate(outer):
            if node.parent is not None and node.parent.kind != "document":
                by_parent.setdefault((source, id(node.parent)), []).append(i)
        merge = next(
            ((key, members) for key, members in by_parent.items()
             if len(members) > ratio * len(outer[members[0]][1].parent.children)),
            None,
        )
        if merge is None:
            return outer
        (source, _), members = merge
        parent = outer[members[0]][1].parent
        first = members[0]
        chosen = [
            *outer[:first],
            (source, parent),
            *(item for i, item in enumerate(outer) if i > first and i not in members),
        ]


def new_text_only(hits: Sequence[Chunk]) -> list[tuple[str, int, int]]:
    """An ``expand_hits`` for overlapping chunks: each hit, best first, minus the text that
    better-ranked hits of its document (``metadata["source"]``) have sent already. A hit that
    overlaps earlier ones on both sides sends the pieces in between; a hit inside them sends nothing.

    With a budget (`chunklab.evaluation.comparison.compare` with ``budget=...``), the budget then buys
    new text instead of paying again for a window's overlap with its neighbours.
    """
    sent: dict[str, list[tuple[int, int]]] = {}
    out: list[tuple[str, int, int]] = []
    for chunk in hits:
        source, start = chunk.metadata.get("source"), chunk.start
        for covered_start, covered_end in union(sent.get(source, [])):
            if covered_end <= start:
                continue
            if covered_start >= chunk.end:
                break
            if covered_start > start:
                out.append((source, start, covered_start))
            start = max(start, covered_end)
        if start < chunk.end:
            out.append((source, start, chunk.end))
        sent.setdefault(source, []).append((chunk.start, chunk.end))
    return out
