"""Notebook 07 (hierarchical chunking): the breadcrumb of an offset, what small-to-big sends for two
hits, and a measured surprise about sending parents."""

from __future__ import annotations

from ..core import Chunk
from ..evaluation.expand import small_to_big
from ..formats import load_document
from ..strategies import HierarchicalChunker
from . import ExerciseFailed, exercise, pick


def solution_breadcrumb(root, offset):
    node = root
    while True:
        inside = [child for child in node.children if child.start <= offset < child.end]
        if not inside:
            return node.breadcrumb
        node = inside[0]


def _deepest_breadcrumbs() -> tuple[list[tuple[int, tuple[str, ...]]], object]:
    """The agreement's tree, and the breadcrumb of the deepest node at every offset where it may change
    (each node's first and last character, and the character after it)."""
    text = load_document("agreement").text
    tree = HierarchicalChunker().tree(text)
    nodes = list(tree.walk())
    deepest = [0] * len(text)
    for i, node in enumerate(nodes):  # in document order, a node comes after every node that holds it
        deepest[node.start : node.end] = [i] * (node.end - node.start)
    offsets = sorted({o for n in nodes for o in (n.start, n.end - 1, n.end) if 0 <= o < len(text)})
    return [(o, nodes[deepest[o]].breadcrumb) for o in offsets], tree


@exercise("07.1", "where am I?", "implement", solution=solution_breadcrumb,
          wrong=(lambda: lambda root, offset: root.breadcrumb,
                 lambda: lambda root, offset: next((c.breadcrumb for c in root.children if c.start <= offset < c.end),
                                                   root.breadcrumb),
                 lambda: lambda root, offset: _inclusive_end(root, offset)))
def check_breadcrumb(candidate) -> str:
    """`candidate(root, offset)`: the breadcrumb of the deepest node of `root` holding `offset`."""
    cases, tree = _deepest_breadcrumbs()
    for offset, expected in cases:
        got = tuple(candidate(tree, offset))
        if got != expected:
            raise ExerciseFailed(
                f"at offset {offset} of the agreement your function says {' > '.join(got) or '()'}, the deepest "
                f"node there says {' > '.join(expected) or '()'}. Hint: step from the root into the child whose span "
                "holds the offset (start inclusive, end exclusive), and keep stepping until a node has no such child."
            )
    return f"right at all {len(cases)} offsets where a node of the agreement starts or ends."


def _inclusive_end(root, offset):
    """A wrong answer: a span's end counted as inside it, so the walk can step into the node before."""
    node = root
    while True:
        inside = [child for child in node.children if child.start <= offset <= child.end]
        if not inside:
            return node.breadcrumb
        node = inside[0]


#: Exercise 2's document: a guide whose Install section holds two small subsections.
GUIDE = (
    "# Guide\n\nIntro.\n\n## Install\n\nSteps to install the tool on any machine.\n\n"
    "### Linux\n\nRun apt install tidewell.\n\n### macOS\n\nRun brew install tidewell.\n\n"
    "## Use\n\nStart it with tidewell serve."
)
#: Exercise 2's retrieved leaves, best first (their sections' titles).
GUIDE_HITS = ("Linux", "Use")


def _guide_sent() -> list[tuple[int, int]]:
    """The spans small-to-big sends for `GUIDE_HITS`, in order."""
    chunker = HierarchicalChunker()
    tree = chunker.tree(GUIDE)
    leaves = {c.metadata["breadcrumb"][-1]: c for c in chunker(GUIDE, source="guide")}
    hits: list[Chunk] = [leaves[title] for title in GUIDE_HITS]
    return [(start, end) for _, start, end in small_to_big({"guide": tree})(hits)]


def solution_guide_sent() -> list[tuple[int, int]]:
    return [(72, 108), (17, 72), (108, 147), (149, 186), (0, 17), (147, 149)]


def _costing(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans that hold a non-space character of `GUIDE`: a blank stretch costs nothing of the budget,
    so an answer may leave it out."""
    return [(start, end) for start, end in spans if GUIDE[start:end].strip()]


@exercise("07.2", "what does small-to-big send?", "predict", solution=solution_guide_sent,
          wrong=(lambda: [(17, 147), (0, 186)], lambda: [(72, 108), (149, 186)],
                 lambda: [(72, 108), (17, 72), (108, 147), (149, 186), (0, 186)],
                 lambda: [(72, 108), (17, 147), (149, 186), (0, 186)],
                 lambda: [(72, 108), (17, 72), (108, 147), (149, 186), (147, 149)],
                 lambda: [(72, 108), (149, 186), (17, 72), (108, 147), (0, 17)]))
def check_guide_sent(spans) -> str:
    """A list of ``(start, end)`` pairs: the spans small-to-big sends, in order (those holding only
    whitespace, which cost nothing, may be left out)."""
    try:
        got = [(int(start), int(end)) for start, end in spans]
    except (TypeError, ValueError):
        raise ExerciseFailed(f"write a list of (start, end) pairs such as [(72, 108), (149, 186)], got {spans!r}") from None
    expected = _guide_sent()
    if _costing(got) != _costing(expected):
        raise ExerciseFailed(
            f"small-to-big does not send {got}. Hint: for each hit, best first, it sends the leaf, then the rest of "
            "the nearest ancestor that holds more text than the leaf (never the document node). Nothing is sent "
            "twice: of a span partly sent already, only the parts not yet sent go, in document order."
        )
    return (f"it sends {expected}: the second hit's parent, Guide, holds the first hit's parent, Install, already "
            "sent, so only the two short stretches around it are new.")


#: Exercise 3's explanations of why sending the parents of 200-character leaves answers no measurably
#: larger share of questions than sending the leaves themselves.
PARENT_CHOICES = {
    "A": "BM25 searches the parents rather than the leaves, and a parent is too long to rank well, so the best "
         "sections fall down the ranking.",
    "B": "Small-to-big sends less text than the leaves alone, because a parent that does not fit is skipped, "
         "so it holds fewer answers in all.",
    "C": "The parents never fit in the budget, so small-to-big falls back to the leaf every time and sends the "
         "very same leaves as the flat row.",
    "D": "It wins some questions the leaves miss and loses about as many: each parent spends budget that the "
         "next leaves would have used.",
}
_PARENT_HINTS = {
    "A": "the index holds the leaves only, with their breadcrumbs; a parent is sent, never searched.",
    "B": "both send the same amount of text, within 1 % (the line printed under the verdicts).",
    "C": "what it sends differs from the leaves alone for most questions at 4,000 characters (the line printed "
         "under the verdicts).",
}


def solution_parent_choice() -> str:
    return "D"


@exercise("07.3", "why do parents not help?", "explain", solution=solution_parent_choice,
          wrong=(lambda: "A", lambda: "B", lambda: "C"))
def check_parent_choice(choice) -> str:
    """One letter of `PARENT_CHOICES`."""
    pick(choice, PARENT_CHOICES, _PARENT_HINTS, solution_parent_choice())
    return "the questions won and lost (printed under the verdicts) nearly cancel."
