"""Hierarchical chunking: the document's section tree, one level of it per call.

A document with headings (markdown, HTML) or numbered clauses (a contract) is a tree: the document
holds sections, sections hold subsections, and the text of each section is cut into size-limited
pieces. The leaves of that tree are small, precise retrieval units; their ancestors are the
context they sit in. `HierarchicalChunker` returns one level of the tree per call (the leaves by
default) and `HierarchicalChunker.tree` the whole tree, so a retriever can match a leaf and send
its parent (`chunklab.evaluation.expand`).

A document without headings has a flat tree. With ``parents="semantic"`` the parents are built from
meaning instead: consecutive blocks whose embeddings are similar are grouped under one parent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Callable, Iterator, Literal, Sequence

import numpy as np

from ..caches import PER_TEXT, cached
from ..constraints import Param
from ..core import Chunker, ChunkSpan, register
from ..formats.blocks import Block, DocumentFormat, section_metadata
from ..models.embed import Embedder
from ..text.length import DEFAULT_CHUNK_SIZE, SizeUnit, TokenizerLike, TokenizerParam, UnitParam, UnitSized, length_function
from ..text.spans import trim_span
from .sections import cached_blocks, heading_blocks, section_pieces, structure_format

__all__ = ["HierarchicalChunker", "Node"]

ParentKind = Literal["structure", "semantic"]
#: Cuts ``text[start:end]`` into size-limited pieces (`chunklab.strategies.sections.section_pieces` with the
#: chunker's size settings bound).
_Pieces = Callable[[int, int], list[tuple[int, int]]]


@dataclass(eq=False)
class Node:
    """One node of a section tree: the document, a section, a semantic group, or a piece of text.

    ``text[start:end]`` is the node's span; a node contains its children's spans, and siblings
    never overlap. `depth` is 0 for the document, 1 for its children, and so on. A *leaf* (no
    children) is a retrieval unit: a piece of a section's text, or a whole section small enough to
    be one. `id` is the path from the root (``"0.3.2"``: the second child of the root's third
    child). `breadcrumb` holds the titles of the sections the node is in, outermost first, its own
    title last (a piece has no title of its own).
    """

    id: str
    kind: Literal["document", "section", "group", "piece"]
    depth: int
    start: int
    end: int
    title: str = ""
    breadcrumb: tuple[str, ...] = ()
    children: list[Node] = field(default_factory=list)
    parent: Node | None = field(default=None, repr=False)

    @property
    def span(self) -> tuple[int, int]:
        """``(start, end)``."""
        return self.start, self.end

    @property
    def is_leaf(self) -> bool:
        """Has no children."""
        return not self.children

    def walk(self) -> Iterator[Node]:
        """This node and all below it, in document order (pre-order)."""
        yield self
        for child in self.children:
            yield from child.walk()

    def leaves(self) -> list[Node]:
        """The leaves below this node (itself, if it is one), in document order."""
        return [node for node in self.walk() if node.is_leaf]

    def level(self, depth: int) -> list[Node]:
        """One level of the tree below this node, in document order: the nodes at `depth`, plus the
        leaves of branches that end above it, so that the level covers every leaf exactly once.
        ``depth=0`` means the leaves."""
        if self.is_leaf or (depth > 0 and self.depth >= depth):
            return [self]
        return [node for child in self.children for node in child.level(depth)]


@register
class HierarchicalChunker(UnitSized, Chunker):
    """The section tree of a document; returns one level of it (the leaves by default).

    Structure (``parents="structure"``): markdown headings (markdown-it-py), HTML headings
    (the position-reporting HTML parser) or, in plain text, numbered clauses and capitalised
    heading lines (`chunklab.formats.clauses`). Each heading opens a section that runs to the next heading
    of the same or a higher rank. A section's own text (its heading and what comes before its first
    subsection) is cut into pieces of at most `chunk_size` units, whole blocks packed together
    (`chunklab.strategies.sections.section_pieces`); a section with no subsections whose text fits one piece is
    itself a leaf, and a heading directly followed by its first subsection is a piece of its own: every
    level (the leaves, the sections at each depth) covers every character of the text exactly once
    (in HTML, of its content blocks).

    Semantic parents (``parents="semantic"``): headings are ignored; consecutive blocks are grouped
    under one parent until two neighbours are less similar (cosine of their embeddings) than
    `similarity`; each group's text is cut into pieces as above. `embedder` embeds the blocks
    (default: the shared all-MiniLM-L6-v2 embedder); embeddings are computed once per text.

    `depth` picks what a call returns: 0 the leaves; 1 the children of the document; 2 their
    children, and so on (a branch that ends above `depth` gives its leaves). Metadata per chunk:
    ``node`` (its id), ``node_kind``, ``depth``, ``breadcrumb`` (a list of titles, outermost first),
    ``section`` and ``context`` (the breadcrumb joined by " > "), ``parent`` (``{"id", "start",
    "end"}`` of the enclosing node) and ``children`` (their ids).

    Size contract: with ``depth=0`` every chunk measures at most `chunk_size` (a single character that
    a tokenizer counts as more tokens excepted, see `chunklab.text.pack.fit`); higher levels promise
    no size.
    """

    name = "hierarchical"
    main_control = "depth"

    def __init__(
        self,
        *,
        chunk_size: Annotated[int, Param(low=1, slider=(100, 3000, 50), counted_in_unit=True)] = DEFAULT_CHUNK_SIZE,
        depth: Annotated[int, Param(low=0, high=12, slider=(0, 4, 1))] = 0,
        format: DocumentFormat = "auto",
        parents: ParentKind = "structure",
        similarity: Annotated[
            float, Param(low=-1.0, high=1.0, slider=(0.0, 1.0, 0.05), active_when={"parents": ("semantic",)})
        ] = 0.25,
        unit: UnitParam = "chars",
        tokenizer: TokenizerParam = "minilm",
        embedder: Annotated[Embedder | None, Param(active_when={"parents": ("semantic",)})] = None,
    ) -> None:
        self.chunk_size = chunk_size
        self.depth = depth
        self.format = format
        self.parents = parents
        self.similarity = similarity
        self.unit = unit
        self.tokenizer = tokenizer
        self.embedder = embedder
        self.validate()

    def size_limit(self) -> int | None:  # type: ignore[override]  # no limit above the leaves
        """`chunk_size` for the leaves (``depth=0``); no promise for higher levels."""
        return self.chunk_size if self.depth == 0 else None

    def tree(self, text: str) -> Node:
        """The whole tree of `text` (cached per text and parameters; treat it as read-only)."""
        if not isinstance(text, str):
            raise TypeError(f"HierarchicalChunker expects a str, got {type(text).__name__}")
        return _tree(text, self.format, self.parents, self.similarity, self.chunk_size, self.unit, self.tokenizer,
                     self.embedder)

    def spans(self, text: str) -> Iterator[ChunkSpan]:
        """The nodes of the chosen level, in order, with their place in the tree as metadata."""
        root = self.tree(text)
        if not root.children:  # no content block at all (whitespace, or markup only)
            return
        for node in root.level(self.depth):
            yield node.start, node.end, _node_metadata(node)


def _node_metadata(node: Node) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "node": node.id,
        "node_kind": node.kind,
        "depth": node.depth,
        **section_metadata(node.breadcrumb),
        "parent": (
            None if node.parent is None else {"id": node.parent.id, "start": node.parent.start, "end": node.parent.end}
        ),
        "children": [child.id for child in node.children],
    }
    if node.breadcrumb:
        metadata["context"] = metadata["section"]
    return metadata


@cached(PER_TEXT)
def _tree(
    text: str,
    format: DocumentFormat,
    parents: ParentKind,
    similarity: float,
    chunk_size: int,
    unit: SizeUnit,
    tokenizer: TokenizerLike,
    embedder: Embedder | None,
) -> Node:
    start, end = trim_span(text, 0, len(text))
    root = Node("0", "document", 0, start, end)
    if start == end:
        return root
    blocks = cached_blocks(text, structure_format(text, format))
    measure = length_function(unit, tokenizer)

    def pieces(s: int, e: int) -> list[tuple[int, int]]:
        return section_pieces(text, blocks, s, e, chunk_size, measure)

    if parents == "semantic":
        _semantic_groups(text, root, blocks, similarity, embedder, pieces)
    else:
        _sections(text, root, heading_blocks(text, format), pieces)
    _number(root)
    return root


def _sections(text: str, root: Node, headings: Sequence[Block], pieces: _Pieces) -> None:
    """Build the section tree under `root` from `headings`, then cut each section's own text."""
    stack: list[tuple[int, Node]] = [(0, root)]
    for heading in headings:
        while len(stack) > 1 and stack[-1][0] >= heading.level:
            _close(text, stack.pop()[1], heading.start)
        parent = stack[-1][1]
        node = Node("", "section", parent.depth + 1, heading.start, root.end, heading.title,
                    (*parent.breadcrumb, heading.title), parent=parent)
        parent.children.append(node)
        stack.append((heading.level, node))
    while len(stack) > 1:
        _close(text, stack.pop()[1], root.end)
    for node in list(root.walk()):
        _add_pieces(text, node, pieces)


def _close(text: str, node: Node, at: int) -> None:
    """A section ends where the next heading of its rank or higher starts."""
    node.end = trim_span(text, node.start, at)[1]


def _add_pieces(text: str, node: Node, pieces: _Pieces) -> None:
    """Cut the node's own text (its heading and what precedes its first subsection) into leaves.

    A section without subsections whose text is one piece becomes a leaf itself (its span the
    piece's); a section whose own text is only its heading line gets that line as its one piece, so
    that every level of the tree covers the whole text.
    """
    own_end = trim_span(text, node.start, node.children[0].start if node.children else node.end)[1]
    if own_end <= node.start:  # nothing before the first subsection (a document that opens with one)
        return
    cut = pieces(node.start, own_end)
    if node.kind == "section" and not node.children and len(cut) <= 1:
        if cut:
            node.start, node.end = cut[0]
        return
    leaves = [Node("", "piece", node.depth + 1, s, e, "", node.breadcrumb, parent=node) for s, e in cut]
    node.children[:0] = leaves


def _number(node: Node) -> None:
    """Give every node its path id (the root is "0")."""
    for i, child in enumerate(node.children, 1):
        child.id = f"{node.id}.{i}"
        _number(child)


def _semantic_groups(
    text: str, root: Node, blocks: tuple[Block, ...], similarity: float, embedder: Embedder | None,
    pieces: _Pieces,
) -> None:
    """Group consecutive blocks whose neighbours are similar; each group is a parent of pieces."""
    if not blocks:
        return
    spans = tuple(block.span for block in blocks)
    neighbours = _neighbour_similarity(text, spans, embedder)
    groups, first = [], 0
    for i, value in enumerate(neighbours, 1):
        if value < similarity:
            groups.append((first, i - 1))
            first = i
    groups.append((first, len(spans) - 1))
    for a, b in groups:
        group = Node("", "group", 1, spans[a][0], spans[b][1], parent=root)
        cut = pieces(group.start, group.end)
        if len(cut) == 1:
            group.start, group.end = cut[0]
        else:
            group.children = [Node("", "piece", 2, s, e, parent=group) for s, e in cut]
        root.children.append(group)


@cached(PER_TEXT)
def _neighbour_similarity(text: str, blocks: tuple[tuple[int, int], ...], embedder: Embedder | None) -> np.ndarray:
    """Cosine similarity of each block with the next (cached per text, blocks and embedder)."""
    if len(blocks) < 2:
        return np.zeros(0)
    if embedder is None:
        from ..models.embed import default_embedder

        embedder = default_embedder()
    vectors = np.asarray(embedder([text[s:e] for s, e in blocks]), dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1)
    norms[norms == 0] = 1.0
    unit = vectors / norms[:, None]
    return np.einsum("ij,ij->i", unit[:-1], unit[1:])
