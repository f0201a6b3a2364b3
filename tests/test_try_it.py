"""Every "try it" sentence of a notebook's explorer, tried: a test moves the control the sentence names,
as a learner would, and asserts what the sentence promises.

Each `TryIt` quotes the notebook: a phrase of the markdown cell that makes the promise (`says`) and the
explorer call of the code cell (`call`), evaluated here in a namespace of the same names (`names`).
`test_the_notebook_still_says_it` fails when the notebook's words or call change without this file,
and `test_every_explorer_of_a_covered_notebook_is_tried` when a covered notebook gains an explorer
that no case tries. To cover another notebook, add its cases to `CASES`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from chunklab import Chunk, load_document
from chunklab.formats.parse import document_blocks
from chunklab.viz.chunks import chunk_stats
from chunklab.viz.explorer import Explorer

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


@dataclass(frozen=True)
class TryIt:
    """One promise of a notebook about its explorer, and the test that tries it."""

    notebook: str  #: the notebook's file name without ``.ipynb``
    says: str  #: a phrase of the markdown cell above the explorer that makes the promise
    call: str  #: the explorer call, exactly as the notebook's code cell writes it
    names: Callable[[], dict[str, Any]]  #: the names `call` uses
    tried: Callable[[Explorer], None]  #: moves the controls and asserts the promise

    def explorer(self) -> Explorer:
        """The notebook's explorer, with its live controls built."""
        from chunklab import explore

        explorer = eval(self.call, {"explore": explore, **self.names()})  # noqa: S307 - the notebook's own call
        explorer.widget  # builds the controls, as displaying it does
        return explorer


def move(explorer: Explorer, **values: Any) -> list[Chunk]:
    """Set each control to its value through the widget, as a learner does; the chunks shown then."""
    for name, value in values.items():
        control = explorer.controls[name]
        control.value = value
    assert "data-error" not in explorer.output.value, explorer.output.value[:300]
    return explorer.chunks()


def spans(chunks: list[Chunk]) -> list[tuple[int, int]]:
    return [(c.start, c.end) for c in chunks]


def _markdown_and_code(notebook: str) -> list[tuple[str, str]]:
    cells = json.loads((NOTEBOOKS / f"{notebook}.ipynb").read_text(encoding="utf-8"))["cells"]
    return [(c["cell_type"], "".join(c["source"])) for c in cells]


def squashed(text: str) -> str:
    return " ".join(text.split())


# -- 07 · hierarchical ----------------------------------------------------------------------------


def _agreement() -> dict[str, Any]:
    from chunklab.strategies import HierarchicalChunker

    return {"HierarchicalChunker": HierarchicalChunker, "agreement": load_document("agreement")}


def _agreement_levels(explorer: Explorer) -> None:
    def definitions(chunks: list[Chunk]) -> int:
        return sum(c.metadata["section"].startswith("1. DEFINITIONS AND INTERPRETATION > 1.1") for c in chunks)

    assert definitions(move(explorer, depth=0, chunk_size=300)) > definitions(move(explorer, chunk_size=1200)) > 1
    assert spans(move(explorer, depth=1, chunk_size=100)) == spans(move(explorer, chunk_size=2000))  # whole clauses
    small, large = move(explorer, depth=2, chunk_size=100), move(explorer, chunk_size=2000)
    kept = set(spans(large)) & set(spans(small))
    assert len(small) > len(large) and len(kept) > len(large) / 2  # most come whole; some sections are cut


def _article_without_headings() -> dict[str, Any]:
    """The article with its heading lines taken out, as notebook 07 builds it."""
    from chunklab.strategies import HierarchicalChunker

    article = load_document("article").text
    headings = [n for n in HierarchicalChunker().tree(article).children if n.kind == "section"]
    kept, pos = [], 0
    for node in headings:
        kept.append(article[pos : node.start])
        pos = article.index("\n\n", node.start) + 2
    return {"HierarchicalChunker": HierarchicalChunker, "no_headings": "".join(kept) + article[pos:]}


def _semantic_parents(explorer: Explorer) -> None:
    assert explorer.max_chars is None, "the explorer draws the whole article"
    fewer, more = len(move(explorer, similarity=0.1)), len(move(explorer, similarity=0.4))
    assert fewer < more, (fewer, more)  # a lower similarity gives fewer, larger parents
    assert max(map(len, move(explorer, similarity=0.1))) > max(map(len, move(explorer, similarity=0.4)))


# -- 08a · recursive ------------------------------------------------------------------------------


def _manual(**classes: Any) -> Callable[[], dict[str, Any]]:
    return lambda: {**classes, "manual": load_document("manual")}


def _drop_sentence(explorer: Explorer) -> None:
    def changed(size: int) -> int:
        before = set(spans(move(explorer, chunk_size=size, separators="paragraph, line, sentence, word, char")))
        after = spans(move(explorer, separators="paragraph, line, word, char"))
        return sum(span not in before for span in after)

    at_200, at_600 = changed(200), changed(600)
    assert at_200 > 10 * max(at_600, 1) / 2 and at_200 > 20, (at_200, at_600)  # "almost nothing" at 600
    explorer.controls["separators"].value = "paragraph, lines"
    refused = explorer.output.value
    assert "data-error" in refused and all(level in refused for level in ("line", "sentence", "word"))


# -- 08b · markup ---------------------------------------------------------------------------------


def _snap_to_headings(explorer: Explorer) -> None:
    text = explorer.text
    at_headings = []
    for level in (1, 2, 3):
        chunks = move(explorer, chunk_size=1500, heading_level=level)
        headings = {b.start for b in document_blocks(text) if b.kind == "heading" and b.level <= level}
        at_headings.append(sum(c.start in headings for c in chunks) / len(chunks))
    assert at_headings[0] < at_headings[1] < at_headings[2] and at_headings[2] > 0.8, at_headings
    assert len(move(explorer, chunk_size=200)) > len(move(explorer, chunk_size=1500))


# -- 09 · table -----------------------------------------------------------------------------------


def _lab() -> dict[str, Any]:
    from chunklab.strategies import TableChunker

    return {"TableChunker": TableChunker, "lab": load_document("lab_notes")}


def _rows_and_context(explorer: Explorer) -> None:
    def tables(chunks: list[Chunk]) -> list[Chunk]:
        return [c for c in chunks if c.metadata["modality"] == "table"]

    one = tables(move(explorer, rows=1, chunk_size=2000))
    three = tables(move(explorer, rows=3))
    assert max(len(c.metadata["records"]) for c in three) == 3 > len(three) / len(one)
    prose = [c for c in move(explorer, chunk_size=300) if c.metadata["modality"] != "table"]
    assert max(map(len, prose)) <= 300 < max(map(len, [c for c in move(explorer, chunk_size=2000)
                                                         if c.metadata["modality"] != "table"]))
    by_context = {context: move(explorer, context=context) for context in ("header", "section+header", "none")}
    assert len({tuple((c.start, c.end, c.text) for c in chunks) for chunks in by_context.values()}) == 1
    assert len({tuple(c.metadata.get("context") for c in tables(chunks)) for chunks in by_context.values()}) == 3
    assert all(c.metadata["modality"] == "table" for c in move(explorer, other_text="skip"))


# -- 10 · token -----------------------------------------------------------------------------------


def _token_window(explorer: Explorer) -> None:
    spec = explorer.specs["chunk_size"]
    assert spec.value == 150 and (spec.value - spec.low) % spec.step == 0, "the default is on the slider's grid"
    assert explorer.controls["chunk_size"].value == 150
    text = explorer.text
    assert len(move(explorer, chunk_size=300)) < len(move(explorer, chunk_size=150))
    minilm = spans(explorer.chunks())
    assert spans(move(explorer, tokenizer="cl100k")) != minilm
    assert chunk_stats(move(explorer, snap_to_words=False), text)["words_cut"] > 0
    assert chunk_stats(move(explorer, snap_to_words=True), text)["words_cut"] == 0
    assert 'data-nchunks' in explorer.output.value and "sentences" in explorer.output.value


# -- 11 · entity ----------------------------------------------------------------------------------


def _entity_limits(explorer: Explorer) -> None:
    counts = [len(move(explorer, chunk_size=size)) for size in (500, 1000, 2000, 4000)]
    drops = [a - b for a, b in zip(counts, counts[1:])]
    assert all(d >= 0 for d in drops) and drops[0] > drops[-1], counts  # the count falls more and more slowly
    move(explorer, chunk_size=500)
    everyone = spans(explorer.chunks())
    default = explorer.specs["labels"].shown()
    explorer.controls["labels"].value = "PERSON"
    assert spans(explorer.chunks()) != everyone
    explorer.controls["labels"].value = f"{default}, DATE"
    assert "DATE" in explorer.params["labels"] and spans(explorer.chunks()) != everyone
    assert spans(move(explorer, group_by="paragraphs")) != spans(move(explorer, group_by="entities"))


# -- 12 · topic -----------------------------------------------------------------------------------


def _topic_methods(explorer: Explorer) -> None:
    move(explorer, method="texttiling")
    greyed = set(explorer.inactive())
    assert {"n_topics", "buffer", "min_sentences"} <= greyed and "block" not in greyed
    assert all(explorer.controls[name].disabled for name in ("n_topics", "buffer", "min_sentences"))
    before = spans(explorer.chunks())
    assert spans(move(explorer, n_topics=explorer.specs["n_topics"].high)) == before  # greyed: changes nothing
    move(explorer, method="nmf")
    assert "block" in explorer.inactive() and explorer.controls["block"].disabled
    assert spans(explorer.chunks()) != before


# -- 13 · page ------------------------------------------------------------------------------------


def _report() -> dict[str, Any]:
    from chunklab.strategies import PageChunker

    return {"PageChunker": PageChunker, "report": load_document("report")}


def _pages(explorer: Explorer) -> None:
    from chunklab.strategies.page import page_layout

    open_ends = sum(page_layout(explorer.text).open_ends)
    whole = move(explorer, pages_per_chunk=1)
    small = move(explorer, chunk_size=1000)
    assert len(small) > len(whole)  # a page splits into packed sentences...
    assert sum(len(c.metadata["pages"]) > 1 for c in small) <= open_ends  # ...never across its edges, but to carry
    assert all(len(c.metadata["pages"]) == 1 for c in move(explorer, carry_sentences=False))
    merged = move(explorer, chunk_size=8000, carry_sentences=True, pages_per_chunk=2)
    assert len(merged) < len(whole) and sum(len(c.metadata["pages"]) >= 2 for c in merged) > len(merged) / 2
    move(explorer, pages_per_chunk=1)
    clean = chunk_stats(explorer.chunks(), explorer.text)["sentences_cut"]
    kept_furniture = move(explorer, strip_furniture=False, carry_sentences=False)
    assert sum(map(len, kept_furniture)) > sum(map(len, whole))  # the header and footer come back
    assert chunk_stats(kept_furniture, explorer.text)["sentences_cut"] > clean  # and the cut sentences


CASES = [
    TryIt("07_hierarchical", "At level 0 watch clause 1.1's definitions split into more or fewer pieces",
          "explore(HierarchicalChunker, agreement.text, chunk_size=(100, 2000, 50), depth=(0, 4, 1))",
          _agreement, _agreement_levels),
    TryIt("07_hierarchical", "A lower `similarity` gives fewer, larger parents; a higher one more, smaller parents",
          'explore(HierarchicalChunker, no_headings, parents="semantic", depth=1, main="similarity", '
          "chunk_size=(200, 2000, 50),\n        max_chars=None)",
          _article_without_headings, _semantic_parents),
    TryIt("08a_recursive", "set `chunk_size` to 200 and drop `sentence`",
          "explore(RecursiveChunker, manual.text, chunk_size=(50, 1500, 10), chunk_overlap=(0, 300, 10))",
          _manual(RecursiveChunker=__import__("chunklab.strategies", fromlist=["RecursiveChunker"]).RecursiveChunker),
          _drop_sentence),
    TryIt("08b_markup", "move `chunk_size` and `heading_level` and watch chunks snap to headings",
          "explore(MarkdownChunker, manual.text, chunk_size=(50, 1500, 10))",
          _manual(MarkdownChunker=__import__("chunklab.strategies", fromlist=["MarkdownChunker"]).MarkdownChunker),
          _snap_to_headings),
    TryIt("09_table", "its text never changes, only what would be indexed with it",
          "explore(TableChunker, lab.text, max_chars=10_000, rows=(1, 6, 1), chunk_size=(100, 2000, 50))",
          _lab, _rows_and_context),
    TryIt("10_token", "tick `snap_to_words` to end windows at whitespace",
          "explore(TokenChunker, manual.text, chunk_size=(10, 510, 10), chunk_overlap=(0, 128, 4))",
          _manual(TokenChunker=__import__("chunklab.strategies", fromlist=["TokenChunker"]).TokenChunker),
          _token_window),
    TryIt("11_entity", "drag it up and watch the count fall more and more slowly",
          "explore(EntityChunker, article.text, chunk_size=500, min_chunk_size=100)",
          lambda: {"EntityChunker": __import__("chunklab.strategies", fromlist=["EntityChunker"]).EntityChunker,
                   "article": load_document("article")},
          _entity_limits),
    TryIt("12_topic", "the sliders of the method not chosen change nothing and are greyed out",
          "explore(TopicChunker, article.text, chunk_size=(200, 3000, 50))",
          lambda: {"TopicChunker": __import__("chunklab.strategies", fromlist=["TopicChunker"]).TopicChunker,
                   "article": load_document("article")},
          _topic_methods),
    TryIt("13_page", "then `pages_per_chunk` to 2,\nand pairs of pages merge",
          "explore(PageChunker, report.text, max_chars=8_000, chunk_size=(500, 12_000, 100), pages_per_chunk=(1, 5, 1))",
          _report, _pages),
]
COVERED = sorted({case.notebook for case in CASES})


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.notebook}: {case.says[:40]}")
def test_the_notebook_still_says_it(case: TryIt) -> None:
    cells = _markdown_and_code(case.notebook)
    assert any(kind == "markdown" and squashed(case.says) in squashed(text) for kind, text in cells), case.says
    assert any(kind == "code" and case.call in text for kind, text in cells), case.call


@pytest.mark.parametrize("notebook", COVERED)
def test_every_explorer_of_a_covered_notebook_is_tried(notebook: str) -> None:
    calls = [line for kind, text in _markdown_and_code(notebook) if kind == "code"
             for line in re.findall(r"^explore\(.*", text, re.M)]
    tried = [case.call.splitlines()[0] for case in CASES if case.notebook == notebook]
    assert sorted(calls) == sorted(tried), (calls, tried)


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.notebook}: {case.says[:40]}")
def test_moving_the_control_does_what_the_sentence_says(case: TryIt) -> None:
    case.tried(case.explorer())
