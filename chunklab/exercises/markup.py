"""Notebook 08b (structure-aware chunking): the chunk size that keeps every table whole, the heading
trail behind every breadcrumb, and why reading the markup adds little over the cascade on our
questions."""

from __future__ import annotations

from ..evaluation.metrics import excerpts_kept_whole
from ..formats.blocks import heading_trails
from ..formats.corpus import load_document, load_questions
from ..formats.parse import document_blocks
from ..strategies import HtmlChunker, MarkdownChunker, RecursiveChunker
from . import ExerciseFailed, exercise, pick, refuse_library, whole_number


def tables_cut(chunk_size: int) -> int:
    """How many tables of the manual ``MarkdownChunker(chunk_size=...)`` puts a chunk boundary inside."""
    text = load_document("manual").text
    tables = [b for b in document_blocks(text, "markdown") if b.kind == "table"]
    edges = {e for c in MarkdownChunker(chunk_size=chunk_size)(text) for e in (c.start, c.end)}
    return sum(any(t.start < e < t.end for e in edges) for t in tables)


def solution_table_size() -> int:
    manual = load_document("manual").text
    # a block that fits is never cut: the longest table must fit
    return max(b.end - b.start for b in document_blocks(manual, "markdown") if b.kind == "table")


@exercise("08b.1", "the size that keeps every table whole", "predict", solution=solution_table_size,
          wrong=(lambda: 600, lambda: solution_table_size() + 1, lambda: 50 * -(-solution_table_size() // 50)))
def check_table_size(size) -> str:
    """`size` must be the smallest `chunk_size` at which no table of the manual is cut."""
    size = whole_number(size, "the chunk_size (in characters)")
    if size < 1:
        raise ExerciseFailed(f"answer with a positive chunk_size in characters, got {size!r}")
    cut = tables_cut(size)
    if cut:
        raise ExerciseFailed(
            f"at chunk_size={size}, {cut} tables of the manual are cut between rows. Hint: the chunker never cuts a "
            "block that fits; which block must fit? document_blocks(manual.text, 'markdown') gives every "
            "block's span and kind.")
    if tables_cut(size - 1) == 0:
        raise ExerciseFailed(
            f"at chunk_size={size} no table is cut, but at {size - 1} none is either: the exercise asks for the "
            "smallest. Hint: no rounding, no margin: the exact length of one block.")
    return f"at {size} characters no table is cut; at {size - 1}, {tables_cut(size - 1)} is."


def _headings(name: str, fmt: str) -> list:
    return [b for b in document_blocks(load_document(name).text, fmt) if b.kind == "heading"]


def solution_trails(headings):
    trails, stack = [], []  # stack of (level, title), outermost first
    for level, title in headings:
        while stack and stack[-1][0] >= level:  # a heading closes every section at its level or deeper
            stack.pop()
        stack.append((level, title))
        trails.append(tuple(t for _, t in stack))
    return trails


def _never_pops(headings):
    stack = []
    return [tuple(stack := stack + [title]) for _, title in headings]


def _keeps_siblings(headings):
    trails, stack = [], []
    for level, title in headings:
        while stack and stack[-1][0] > level:
            stack.pop()
        stack.append((level, title))
        trails.append(tuple(t for _, t in stack))
    return trails


def _pops_once(headings):
    trails, stack = [], []
    for level, title in headings:
        if stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        trails.append(tuple(t for _, t in stack))
    return trails


def _sliced_by_level(headings):
    """A wrong answer: the trail cut to `level - 1` titles, as if no level were ever skipped."""
    trails, trail = [], []
    for level, title in headings:
        trail = trail[: level - 1] + [title]
        trails.append(tuple(trail))
    return trails


#: Made-up outlines and the trail of each heading: one whose last two headings climb back up, one
#: that skips levels (an h4 right under an h1, then an h3), and one that starts below level 1.
_OUTLINES = [
    ([(1, "Guide"), (2, "Install"), (3, "Linux"), (4, "Debian"), (2, "Run"), (1, "Appendix")],
     [("Guide",), ("Guide", "Install"), ("Guide", "Install", "Linux"), ("Guide", "Install", "Linux", "Debian"),
      ("Guide", "Run"), ("Appendix",)]),
    ([(1, "Manual"), (4, "Note"), (3, "Limits"), (4, "Memory")],
     [("Manual",), ("Manual", "Note"), ("Manual", "Limits"), ("Manual", "Limits", "Memory")]),
    ([(3, "Intro"), (2, "Setup"), (3, "Ports")], [("Intro",), ("Setup",), ("Setup", "Ports")]),
]


@exercise("08b.2", "the heading trail behind a breadcrumb", "implement", solution=solution_trails,
          wrong=(lambda: _never_pops, lambda: _keeps_siblings, lambda: _pops_once, lambda: _sliced_by_level,
                 lambda: lambda headings: heading_trails(
                     [b for name, fmt in (("manual", "markdown"), ("field_guide", "html")) for b in _headings(name, fmt)
                      if (b.level, b.title) in headings][: len(headings)])))
def check_trails(candidate) -> str:
    """`candidate([(level, title), ...])` must give each heading's trail, as `heading_trails` does,
    without calling it."""
    candidate = refuse_library(candidate, heading_trails, what="heading_trails")
    cases = [(f"made-up outline {i}", outline, trails) for i, (outline, trails) in enumerate(_OUTLINES, 1)]
    for name, fmt in (("manual", "markdown"), ("field_guide", "html")):
        blocks = _headings(name, fmt)
        cases.append((f"the {name}'s headings", [(b.level, b.title) for b in blocks], heading_trails(blocks)))
    for label, headings, expected in cases:
        got = [tuple(t) for t in candidate(headings)]
        if len(got) != len(expected):
            raise ExerciseFailed(f"on {label} you return {len(got)} trails for {len(expected)} headings: one each")
        for (level, title), mine, right in zip(headings, got, expected):
            if mine != right:
                raise ExerciseFailed(
                    f"on {label}, the heading {title!r} (level {level}) gets the trail {' > '.join(mine)!r}; it sits "
                    f"under {' > '.join(right[:-1]) or 'nothing'}. Hint: a new heading closes every open section "
                    "of its own level or deeper, however many there are, before it opens its own; levels can be skipped.")
    return "every trail matches, on the three outlines, the manual's headings and the field guide's."


#: Exercise 3's explanations of why the structure-aware chunkers, indexed without their breadcrumb, do
#: not measurably beat the cascade.
MARKUP_CHOICES = {
    "A": "The structure-aware chunkers cut more prose sentences than the cascade does, which undoes what they "
         "gain by keeping tables whole.",
    "B": "Both keep nearly every golden excerpt of these questions whole: most answers are sentences or "
         "paragraphs, and the cascade keeps those.",
    "C": "The structure-aware chunks are larger than the cascade's, so fewer of them fit in the budget and the "
         "reader gets fewer passages.",
    "D": "The parsers miss most of the headings of these documents, so the structure-aware chunks end up "
         "nearly the same as the cascade's own chunks.",
}
_MARKUP_HINTS = {
    "A": "look at the 'prose sentences cut' column of the structure table: neither cuts a prose sentence.",
    "C": "the budget view sends the same amount of text for every chunking, whatever the sizes: a chunk that "
         "does not fit is cut at the budget.",
    "D": "the from-scratch comparison shows the parser finding every heading the regex finds outside code.",
}


def solution_markup_choice() -> str:
    return "B"


@exercise("08b.3", "why is reading the markup not measurably better?", "explain", solution=solution_markup_choice,
          wrong=(lambda: "A", lambda: "C", lambda: "D"))
def check_markup_choice(choice) -> str:
    """One letter of `MARKUP_CHOICES`."""
    pick(choice, MARKUP_CHOICES, _MARKUP_HINTS, solution_markup_choice())
    questions = load_questions(split="test")
    parts = []
    for names, aware in ((("manual", "lab_notes"), MarkdownChunker), (("field_guide", "faq_page"), HtmlChunker)):
        docs = [load_document(name) for name in names]
        asked = [q for q in questions if q["doc"] in names]
        parts.append(f"on {' and '.join(names)}, recursive {excerpts_kept_whole(RecursiveChunker(), docs, asked):.0%}, "
                     f"{aware.name} {excerpts_kept_whole(aware(), docs, asked):.0%}")
    return "golden excerpts of the test questions kept whole in one chunk: " + "; ".join(parts) + "."
