"""Every "try it" sentence of a notebook's explorer, tried: a test moves the control the sentence names,
as a learner would, and asserts what the sentence promises.

Each `TryIt` quotes the notebook: a phrase of the markdown cell that makes the promise (`says`) and the
explorer call of the code cell (`call`), evaluated here in a namespace of the same names (`names`).
An explorer is any control a notebook builds for the learner to move (`EXPLORERS`): `explore` for a
chunker, `similarity_widget` for the semantic curve, `leaderboard_explorer` for the leaderboard.
`test_the_notebook_still_says_it` fails when the notebook's words or call change without this file,
and `test_every_explorer_of_every_notebook_is_tried` when a notebook gains an explorer that no case
tries, or a notebook listed below as having none gains one. The cases, by notebook:

* 00 welcome: the chunk count, the overlap stripes and the error of `explore`; its "Try it" 1;
* 01 fixed size, 02 sentence, 03 paragraph, 05 modality, 06 sliding window: the explorer's paragraph;
* 04 semantic: the explorer's paragraph, and the similarity widget's;
* 07 to 15: the explorer's paragraph (two explorers in 07);
* 16 comparison: the leaderboard's dropdowns, on a small comparison of the same kind (the notebook's
  own measures every strategy on the whole corpus);
* 17 pipeline: no explorer (`WITHOUT_EXPLORER`), so no case.
"""

from __future__ import annotations

import functools
import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from chunklab import Chunk, load_document  # noqa: E402
from chunklab.formats.parse import document_blocks  # noqa: E402
from chunklab.viz.chunks import chunk_stats  # noqa: E402
from chunklab.viz.explorer import Explorer  # noqa: E402

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
#: The calls that build an explorer in a notebook, as a code line starts them (``explorer = `` allowed).
EXPLORERS = ("explore", "similarity_widget", "leaderboard_explorer")
_EXPLORER_CALL = re.compile(rf"^(?:\w+ = )?((?:{'|'.join(EXPLORERS)})\(.*)", re.M)
#: Notebooks that build no explorer, and so have no case.
WITHOUT_EXPLORER = {"17_pipeline"}


@dataclass(frozen=True)
class TryIt:
    """One promise of a notebook about its explorer, and the test that tries it."""

    notebook: str  #: the notebook's file name without ``.ipynb``
    says: str  #: a phrase of the markdown cell above the explorer that makes the promise
    call: str  #: the explorer call, exactly as the notebook's code cell writes it
    names: Callable[[], dict[str, Any]]  #: the names `call` uses
    tried: Callable[[Any], None]  #: moves the controls and asserts the promise

    def explorer(self) -> Any:
        """The notebook's explorer, with its live controls built."""
        from chunklab import explore

        call = re.sub(r"^\w+ = ", "", self.call)  # the call, without the name the notebook gives its result
        explorer = eval(call, {"explore": explore, **self.names()})  # noqa: S307 - the notebook's own call
        if isinstance(explorer, Explorer):
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


#: The stats line as `chunklab.viz.chunks.stats_line` writes it.
_STATS = re.compile(
    r"(?P<chunks>\d+) chunks · size mean (?P<size_mean>\d+) \(min \d+, max (?P<size_max>\d+)\) chars · "
    r"overlap (?P<overlap>\d+) chars · coverage \d+% · (?P<sentences_cut>\d+)/(?P<sentences>\d+) sentences cut · "
    r"(?P<words_cut>\d+)/\d+ words cut"
)


def stats(explorer: Explorer) -> dict[str, int]:
    """The numbers of the stats line the learner reads above the chunks."""
    found = _STATS.search(html.unescape(explorer.output.value))
    assert found, explorer.output.value[:300]
    return {name: int(value) for name, value in found.groupdict().items()}


def shown(explorer: Explorer, **values: Any) -> dict[str, int]:
    """The stats line once the controls are set to `values` (`move`)."""
    move(explorer, **values)
    return stats(explorer)


def striped(explorer: Explorer) -> int:
    """How many characters the view draws striped (in two chunks at once)."""
    pieces = re.findall(r'<span class="cl-seg cl-overlap"[^>]*>([^<]*)</span>', explorer.output.value)
    return sum(len(html.unescape(piece)) for piece in pieces)


def drawn_chunks(explorer: Explorer) -> int:
    """How many chunks start in the part of the text the view draws (each start has its label)."""
    return explorer.output.value.count('class="cl-mark"')


def _markdown_and_code(notebook: str) -> list[tuple[str, str]]:
    cells = json.loads((NOTEBOOKS / f"{notebook}.ipynb").read_text(encoding="utf-8"))["cells"]
    return [(c["cell_type"], "".join(c["source"])) for c in cells]


def squashed(text: str) -> str:
    return " ".join(text.split())


def _strategies(*classes: str) -> dict[str, Any]:
    import chunklab.strategies

    return {name: getattr(chunklab.strategies, name) for name in classes}


def _documents(*names: str, **renamed: str) -> dict[str, Any]:
    """The corpus documents `names` under their own names, and `renamed` under the notebook's."""
    return {**{name: load_document(name) for name in names}, **{k: load_document(v) for k, v in renamed.items()}}


# -- 00 · welcome ---------------------------------------------------------------------------------


def _fixed_on(document: str) -> Callable[[], dict[str, Any]]:
    return lambda: {**_strategies("FixedSizeChunker"), **_documents(document)}


def _welcome_explorer(explorer: Explorer) -> None:
    counts = [shown(explorer, chunk_size=size)["chunks"] for size in (100, 600, 1500)]
    assert counts[0] > counts[1] > counts[2], counts  # drag chunk_size: the count in the stats line follows
    assert explorer.max_chars == 6_000 and stats(explorer)["chunks"] == len(explorer.chunks()) > drawn_chunks(explorer)
    assert explorer.chunks()[-1].end > 6_000  # the stats line counts the whole manual; the view draws 6,000
    move(explorer, chunk_size=600)
    overlap, stripes = [], []
    for amount in (0, 100, 200):
        move(explorer, chunk_overlap=amount)
        overlap.append(stats(explorer)["overlap"])
        stripes.append(striped(explorer))
    assert overlap[0] == stripes[0] == 0 and overlap[0] < overlap[1] < overlap[2], overlap
    assert stripes[0] < stripes[1] < stripes[2], stripes  # raise chunk_overlap: the stripes grow
    explorer.controls["chunk_size"].value = 200  # an overlap as large as the size
    assert "data-error" in explorer.output.value and "chunk_overlap" in explorer.output.value


def _welcome_try_it(explorer: Explorer) -> None:
    spec = explorer.specs["chunk_size"]
    for size in range(spec.low, spec.high + 1, 290):  # no chunk_size on the slider cuts no sentence
        assert shown(explorer, chunk_size=size)["sentences_cut"] > 0, size
    at_most = shown(explorer, chunk_size=spec.high)
    snapped = shown(explorer, snap_to_words=True)
    assert at_most["words_cut"] > 0 and snapped["words_cut"] == 0  # one count falls to zero...
    assert snapped["sentences_cut"] > 0  # ...the other does not


# -- 01 · fixed size ------------------------------------------------------------------------------


def _fixed_stats(explorer: Explorer) -> None:
    counts = [shown(explorer, chunk_size=size)["chunks"] for size in (100, 600, 1500)]
    assert counts[0] > counts[1] > counts[2], counts
    assert stats(explorer)["chunks"] == len(explorer.chunks()) > drawn_chunks(explorer)  # the whole article
    move(explorer, chunk_size=600)
    overlaps = [shown(explorer, chunk_overlap=amount)["overlap"] for amount in (0, 150, 300)]
    assert overlaps[0] == 0 < overlaps[1] < overlaps[2], overlaps
    chars = shown(explorer, chunk_overlap=0)
    assert chars["words_cut"] > 0 and chars["sentences_cut"] > 0
    words = shown(explorer, unit="words")  # the size becomes words, about as much text
    assert explorer.specs["chunk_size"].value < 150 and abs(words["size_mean"] - chars["size_mean"]) < 0.1 * 600
    assert words["words_cut"] == 0 < words["sentences_cut"]
    move(explorer, unit="chars")
    assert shown(explorer, snap_to_words=True)["words_cut"] == 0


# -- 02 · sentence --------------------------------------------------------------------------------


def _sentence_packing(explorer: Explorer) -> None:
    from chunklab.text.sentences import sentence_spans

    text = explorer.text
    sizes = []
    for splitter in ("regex", "pysbd"):
        sentences = sentence_spans(text, splitter)
        starts, ends = {s for s, _ in sentences}, {e for _, e in sentences}
        for size in (100, 300, 600, 1500):
            chunks = move(explorer, sentence_splitter=splitter, chunk_size=size)
            longer = sum(e - s > size for s, e in sentences)
            assert stats(explorer)["sentences_cut"] == longer, (splitter, size)  # none, unless longer than chunk_size
            if not longer:  # whole sentences: every chunk starts and ends where the splitter's sentences do
                assert all(c.start in starts and c.end in ends for c in chunks), (splitter, size)
            sizes.append(stats(explorer)["size_mean"])
        assert sizes[-4] < sizes[-3] < sizes[-2] < sizes[-1], sizes  # the chunks grow
    assert spans(move(explorer, sentence_splitter="regex", chunk_size=300)) != spans(
        move(explorer, sentence_splitter="pysbd"))  # where the splitters disagree
    sentences = sentence_spans(text)
    starts, ends = {s for s, _ in sentences}, {e for _, e in sentences}
    assert shown(explorer, sentence_splitter="regex", chunk_size=600)["overlap"] == 0
    repeated = move(explorer, overlap_sentences=2)
    assert stats(explorer)["overlap"] > 0
    shared = [(b.start, a.end) for a, b in zip(repeated, repeated[1:]) if b.start < a.end]
    assert shared and all(s in starts and e in ends for s, e in shared)  # whole sentences repeated
    words = move(explorer, overlap_sentences=0, unit="words")
    limit = explorer.specs["chunk_size"].value
    assert 80 < limit < 130 and all(len(c.text.split()) <= limit for c in words)  # the size counts words


# -- 03 · paragraph -------------------------------------------------------------------------------


def _chapter() -> dict[str, Any]:
    manual = load_document("manual").text
    chapter = manual[manual.index("## 3. Configuration") : manual.index("## 4. Cluster topology")]
    return {**_strategies("ParagraphChunker"), "chapter": chapter}


def _fence_and_table(explorer: Explorer) -> None:
    text = explorer.text
    blocks = document_blocks(text)
    fence = next(b for b in blocks if b.kind == "code")
    table = next(b for b in blocks if b.kind == "table")
    rows = [len(row) for row in text[table.start : table.end].split("\n")]
    pieces = []
    for size in range(100, 4001, 50):
        chunks = move(explorer, min_chunk_size=0, chunk_size=size)
        assert any(c.start <= fence.start and fence.end <= c.end for c in chunks) == (size >= fence.end - fence.start)
        parts = [c for c in chunks if c.start < table.end and table.start < c.end]
        cuts = [b for c in parts for b in (c.start, c.end) if table.start < b < table.end]
        between_rows = all(text[b] == "\n" or text[b - 1] == "\n" for b in cuts)
        assert between_rows or size < max(rows), size  # inside a row only while chunk_size is shorter than it
        assert (len(parts) == 1) == (size >= table.end - table.start), size  # whole once it fits
        pieces.append(len(parts))
    assert not all(text[b] == "\n" or text[b - 1] == "\n" for c in move(explorer, chunk_size=100)
                   for b in (c.start, c.end) if table.start < b < table.end), "a row longer than 100 is cut"
    assert all(a >= b for a, b in zip(pieces, pieces[1:])) and pieces[0] > 10 * pieces[-1]  # fewer, longer pieces
    merged = [len(move(explorer, chunk_size=1000, min_chunk_size=size)) for size in (0, 200, 600)]
    assert merged[0] > merged[1] > merged[2], merged  # min_chunk_size merges small paragraphs


# -- 04 · semantic --------------------------------------------------------------------------------


def _semantic(explorer: Explorer) -> None:
    import numpy as np

    def chunker() -> Any:
        return explorer.chunker_class(**explorer.params)

    counts = [len(move(explorer, threshold=t)) for t in (60.0, 80.0, 95.0, 99.5)]
    assert counts[0] > counts[1] > counts[2] > counts[3], counts  # a higher threshold, fewer breakpoints
    sized = [len(move(explorer, threshold=95.0, chunk_size=size)) for size in (300, 600, 1500, 3000)]
    assert sized[0] > sized[1] > sized[2] > sized[3], sized
    move(explorer, chunk_size=3000, threshold=80.0)
    by_sentences = {n: move(explorer, min_sentences=n) for n in (1, 3, 6)}
    assert len(by_sentences[1]) > len(by_sentences[3]) > len(by_sentences[6])
    assert all(c.metadata["sentences"] >= 6 for c in by_sentences[6][:-1] if c.metadata["boundary"] != "size")
    move(explorer, min_sentences=1)
    by_size = {n: move(explorer, min_chunk_size=n) for n in (0, 300, 800)}
    assert len(by_size[0]) > len(by_size[300]) > len(by_size[800])
    assert all(len(c) >= 800 for c in by_size[800][1:-1] if c.metadata["boundary"] == "breakpoint")  # merged longer
    move(explorer, min_chunk_size=0)
    rough = [float(np.abs(np.diff(chunker().clone(buffer=b).curve(explorer.text).distances)).mean()) for b in (0, 1, 3)]
    assert rough[0] > rough[1] > rough[2], rough  # buffer smooths the curve
    assert spans(move(explorer, buffer=0)) != spans(move(explorer, buffer=3))
    threshold = explorer.controls["threshold"]
    ranges = {}
    for method in ("threshold", "std_dev", "interquartile", "gradient", "percentile"):
        move(explorer, method=method)
        ranges[method] = (threshold.min, threshold.max, threshold.value)
        assert chunker().threshold == threshold.value
    assert ranges == {"threshold": (0.0, 2.0, 0.5), "std_dev": (0.0, 10.0, 3.0), "interquartile": (0.0, 10.0, 1.5),
                      "gradient": (50.0, 100.0, 95.0), "percentile": (50.0, 100.0, 95.0)}, ranges


def _article_sections() -> dict[str, Any]:
    from chunklab.evaluation.section_boundaries import section_starts
    from chunklab.viz.curves import similarity_widget

    article = load_document("article")
    return {"similarity_widget": similarity_widget, "article": article, "sections": section_starts(article.text)}


def _similarity_widget(box: Any) -> None:
    import matplotlib.pyplot as plt

    import chunklab.viz.curves as curves

    drawn: list[tuple[Any, Any]] = []
    plot = curves.similarity_plot

    def spy(chunker: Any, text: str, **options: Any) -> Any:
        figure = plot(chunker, text, **options)
        drawn.append((chunker, figure))
        return figure

    def shows(chunker: Any, figure: Any) -> None:
        """The figure draws `chunker`'s curve, its cut-off and its chunks."""
        text = load_document("article").text
        top, bottom = figure.axes
        cutoff = chunker.breakpoints(text)[1]
        lines = {line.get_label(): line for line in top.get_lines()}
        assert list(lines["distance between neighbours"].get_ydata()) == list(chunker.curve(text).distances)
        assert next(line for label, line in lines.items() if label.startswith("cut-off")).get_ydata()[0] == cutoff
        assert len(bottom.patches) == sum(c.start < 12_000 for c in chunker(text))  # a bar per chunk in the span

    curves.similarity_plot = spy
    try:
        controls = box.controls
        controls["threshold"].value = 80.0
        ((chunker, figure),) = drawn  # one redraw, with the threshold moved
        assert (chunker.method, chunker.threshold) == ("percentile", 80.0)
        shows(chunker, figure)
        controls["method"].value = "threshold"
        threshold = controls["threshold"]
        assert (threshold.min, threshold.max, threshold.value) == (0.0, 2.0, 0.5)  # the slider moves to its range
        assert len(drawn) == 2 and (drawn[-1][0].method, drawn[-1][0].threshold) == ("threshold", 0.5)
        shows(*drawn[-1])
        controls["method"].value = "std_dev"
        assert (threshold.min, threshold.max, threshold.value) == (0.0, 10.0, 3.0) and len(drawn) == 3
    finally:
        curves.similarity_plot = plot
        for _, figure in drawn:
            plt.close(figure)


# -- 05 · modality --------------------------------------------------------------------------------


def _modality_units(explorer: Explorer) -> None:
    from chunklab.text.sentences import sentence_spans

    text = explorer.text
    sentences = sentence_spans(text)
    starts, ends = {s for s, _ in sentences}, {e for _, e in sentences}

    def at_line_edges(chunk: Chunk) -> bool:  # from a line's start (its indentation aside) to a line's end
        line_end = text.find("\n", chunk.end)
        return (text[text.rfind("\n", 0, chunk.start) + 1 : chunk.start].strip() == ""
                and text[chunk.end : len(text) if line_end < 0 else line_end].strip() == "")

    def inside_longer(at: int, size: int) -> bool:
        return any(s < at < e and e - s > size for s, e in sentences)

    counts = {}
    inside_sentences = 0
    for size in (100, 200, 400, 600, 1200, 3000):
        chunks = move(explorer, chunk_size=size)
        by = {m: [c for c in chunks if c.metadata["modality"] == m] for m in ("prose", "table", "code")}
        counts[size] = {m: len(found) for m, found in by.items()}
        assert all(map(at_line_edges, by["table"] + by["code"])), size  # rows and lines
        cuts = [at for c in by["prose"] for at, edge in ((c.start, starts), (c.end, ends)) if at not in edge]
        assert all(inside_longer(at, size) for at in cuts), size  # inside a sentence only when it is longer
        inside_sentences += len(cuts)
    assert inside_sentences > 0, "a sentence longer than the smallest chunk_size is cut"
    for modality in ("prose", "table", "code"):
        assert counts[100][modality] > counts[3000][modality], (modality, counts)  # each breaks smaller
    assert 'data-colour-by="modality"' in explorer.output.value  # the view is coloured by modality
    move(explorer, chunk_size=600)
    whole = [c for c in explorer.chunks() if c.metadata["modality"] == "code"]
    by_definition = [c for c in move(explorer, code="definitions") if c.metadata["modality"] == "code"]
    assert spans(by_definition) != spans(whole) and any(c.metadata.get("definitions") for c in by_definition)
    move(explorer, code="whole", sentence_splitter="punkt")
    assert stats(explorer)["sentences"] == len(sentence_spans(text, "punkt")) != len(sentences)


# -- 06 · sliding window --------------------------------------------------------------------------


def _sliding(explorer: Explorer) -> None:
    from chunklab.viz.controls import chars_per_unit

    by_window = {size: shown(explorer, chunk_size=size) for size in (300, 600, 1200, 1500)}
    counts = [row["chunks"] for row in by_window.values()]
    assert counts[0] >= counts[-1] > 0.95 * counts[0], counts  # hardly fewer: the stride sets the count
    assert abs(counts[0] - len(explorer.text) / 300) < 3
    means = [row["size_mean"] for row in by_window.values()]
    overlaps = [row["overlap"] for row in by_window.values()]
    assert means == sorted(means) and means[-1] > 4 * means[0] and overlaps == sorted(overlaps)  # longer, more overlap
    move(explorer, chunk_size=600)
    by_stride = [shown(explorer, stride=step) for step in (600, 300, 150)]
    assert by_stride[0]["chunks"] < by_stride[1]["chunks"] < by_stride[2]["chunks"]
    assert by_stride[0]["overlap"] == 0 < by_stride[1]["overlap"] < by_stride[2]["overlap"]
    explorer.controls["stride"].value = 700  # above chunk_size
    assert "data-error" in explorer.output.value and "stride" in explorer.output.value
    before = shown(explorer, stride=300)
    assert explorer.controls["tokenizer"].disabled
    for unit in ("words", "sentences", "tokens"):
        now = shown(explorer, unit=unit)
        ratio = chars_per_unit(explorer.text, unit)
        for name, chars, high in (("chunk_size", 600, 1500), ("stride", 300, 800)):
            control = explorer.controls[name]
            assert abs(control.value * ratio - chars) < 0.25 * chars, (unit, name)  # about as much text as before
            assert abs(control.max * ratio - high) < 0.25 * high, (unit, name)  # and the range with it
        assert abs(now["size_mean"] - before["size_mean"]) < 0.1 * before["size_mean"], unit
        assert explorer.controls["tokenizer"].disabled == (unit != "tokens")  # greyed out until tokens
        move(explorer, unit="chars")
        assert (explorer.controls["chunk_size"].value, explorer.controls["stride"].value) == (600, 300)


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


# -- 14 · keyword --------------------------------------------------------------------------------


def _keyword_boxes(explorer: Explorer) -> None:
    text = explorer.text
    assert not explorer.controls["keywords"].continuous_update  # redrawn on Enter, not on every keystroke
    assert not explorer.controls["pattern"].continuous_update

    def typed(box: str, value: str) -> set[str]:
        """What pressing Enter in `box` gives: the lines the chunks start with."""
        explorer.controls[box].value = value
        assert "data-error" not in explorer.output.value
        return {text[c.start : text.find("\n", c.start)] for c in explorer.chunks()}

    def lines(pattern: str) -> set[str]:
        return {line for line in text.splitlines() if re.match(pattern, line)}

    questions, tickets, answers = lines("Q: "), lines("=== Ticket "), lines("A: ")
    assert len(questions) == len(answers) == 16 and len(tickets) == 8
    alone = typed("keywords", "Q:")
    assert questions <= alone and not tickets & alone and not answers & alone
    both = typed("keywords", "Q:, Ticket")
    assert questions | tickets <= both
    assert answers <= typed("keywords", "A:")
    chat = lines(r"\[1[0-2]:[0-5]\d\]")  # every chat line from 10:00 to 12:59
    without = typed("pattern", "")
    assert chat and not chat <= without and chat <= typed("pattern", r"\[1[0-2]:")
    typed("pattern", "")
    typed("keywords", "Q:, Ticket")
    line_start = explorer.chunks()
    anywhere = move(explorer, where="anywhere")  # "ticket" inside a sentence cuts too
    assert len(anywhere) > len(line_start) and any(text.startswith("ticket", c.start) for c in anywhere)
    sensitive = move(explorer, case_sensitive=True)  # and with case_sensitive, "ticket" is not "Ticket"
    assert spans(sensitive) != spans(anywhere) and not any(text.startswith("ticket", c.start) for c in sensitive)
    move(explorer, where="line_start", case_sensitive=False)
    sized = {size: move(explorer, chunk_size=size) for size in (200, 600, 2000)}
    assert len(sized[200]) > len(sized[600]) > len(sized[2000])
    assert all(max(map(len, chunks)) <= size for size, chunks in sized.items())


# -- 15 · hybrid ----------------------------------------------------------------------------------


def _hybrid_rules(explorer: Explorer) -> None:
    text = explorer.text

    def by(chunks: list[Chunk], modality: str) -> list[Chunk]:
        return [c for c in chunks if c.metadata["modality"] == modality]

    def line(at: int) -> tuple[int, int]:
        end = text.find("\n", at)
        return text.rfind("\n", 0, at) + 1, len(text) if end < 0 else end

    def at_line_edges(chunk: Chunk) -> bool:  # from a line's start (its indentation aside) to a line's end
        return (text[line(chunk.start)[0] : chunk.start].strip() == ""
                and text[chunk.end : line(chunk.end)[1]].strip() == "")

    prose, tables, inside = [], [], 0
    for size in (150, 300, 600, 1000, 1500):
        chunks = move(explorer, chunk_size=size)
        found = by(chunks, "prose")
        prose.append(sum(map(len, found)) / len(found))
        tables.append(spans(by(chunks, "table")))
        cut = [c for c in by(chunks, "table") + by(chunks, "code") if not at_line_edges(c)]
        longer = [c for c in cut if any(end - start > size for start, end in map(line, (c.start, c.end)))]
        assert cut == longer, size  # between rows and lines; inside one only when it is longer than chunk_size
        inside += len(cut)
    assert inside > 0, "a row longer than the smallest chunk_size is cut"
    assert prose == sorted(prose) and prose[-1] > 3 * prose[0], prose  # the prose chunks grow...
    assert tables[1] == tables[2] == tables[3] == tables[4], "...while the tables keep theirs"
    move(explorer, chunk_size=600)
    by_minimum = {size: by(move(explorer, min_chunk_size=size), "table") for size in (0, 100, 200, 400)}
    counts = [len(found) for found in by_minimum.values()]
    assert counts == sorted(counts, reverse=True) and counts[0] > 2 * counts[-1], counts  # small table chunks...
    rows = [max(len(c.metadata["records"]) for c in found) for found in by_minimum.values()]
    assert rows == sorted(rows) and rows[-1] > rows[0], rows  # ...absorb their neighbouring rows
    assert all(at_line_edges(c) for found in by_minimum.values() for c in found)
    steps = ("sectioner", "context", "propositions", "embedder")
    assert all(explorer.specs[name].kind == "fixed" and name not in explorer.controls for name in steps)
    before = spans(by(move(explorer, min_chunk_size=100), "prose"))
    assert spans(by(move(explorer, prose="semantic"), "prose")) != before  # sentences grouped by meaning


# -- 16 · comparison ------------------------------------------------------------------------------


@functools.cache
def _small_comparison() -> dict[str, Any]:
    """A comparison of the kind notebook 16 makes (two retrievers, three budgets, a reference row, dev
    and test questions), on one document: the notebook's own measures every strategy on the corpus."""
    from chunklab import compare, load_questions
    from chunklab.integrations.references import LANGCHAIN_DEFAULT, reference_chunkers
    from chunklab.strategies import FixedSizeChunker, RecursiveChunker
    from chunklab.viz.leaderboard import leaderboard_explorer

    references = reference_chunkers()
    chunkers = {"fixed": FixedSizeChunker(), "recursive": RecursiveChunker(),
                LANGCHAIN_DEFAULT: references[LANGCHAIN_DEFAULT]}
    questions = [q for q in load_questions(split="all") if q["doc"] == "agreement"]  # dev beside test, as there
    result = compare(chunkers, [load_document("agreement")], questions, retrievers=("bm25", "dense"),
                     budget=[500, 1000, 2000], progress=False)
    return {"leaderboard_explorer": leaderboard_explorer, "result": result, "REFERENCES": list(references)}


def _leaderboard_dropdowns(box: Any) -> None:
    from chunklab.integrations.references import reference_chunkers
    from chunklab.viz.leaderboard import render_leaderboard

    result = _small_comparison()["result"]  # the one the explorer was built on
    (pick_retriever, pick_budget), view = box.children[0].children, box.children[1]
    saved = box._repr_mimebundle_()["text/html"]
    references = list(reference_chunkers())
    assert saved == render_leaderboard(result, "bm25", 1000, references=references)  # a saved copy: BM25 at 1,000
    assert 'data-retriever="bm25"' in saved and 'data-budget="1000"' in saved
    pick_retriever.value = "dense"
    assert view.value == render_leaderboard(result, "dense", 1000, references=references)
    pick_budget.value = 500
    assert view.value == render_leaderboard(result, "dense", 500, references=references)
    assert box._repr_mimebundle_()["text/html"] == view.value  # a copy saved now shows what is picked


CASES = [
    TryIt("00_welcome", "Drag `chunk_size` and watch the chunk count in the stats line; raise `chunk_overlap` and "
          "watch the stripes grow. Choosing an overlap as large as the size shows the error instead of chunks.",
          "explore(FixedSizeChunker, manual.text, chunk_size=(50, 1500, 10), chunk_overlap=(0, 300, 10))",
          _fixed_on("manual"), _welcome_explorer),
    TryIt("00_welcome", "drag `chunk_size` to its maximum. The stats line (the whole manual) still reports sentences "
          "cut: why does no `chunk_size` on the slider bring that count to zero? Then tick `snap_to_words`: which "
          "count falls to zero, and which does not?",
          "explore(FixedSizeChunker, manual.text, chunk_size=(50, 1500, 10), chunk_overlap=(0, 300, 10))",
          _fixed_on("manual"), _welcome_try_it),
    TryIt("01_fixed_size", "Watch the stats line: the number of chunks, the overlap, and how many sentences and words "
          "the boundaries cut (in the whole article; the view draws its first 6,000 characters).",
          "explore(FixedSizeChunker, article.text, chunk_size=(50, 1500, 10), chunk_overlap=(0, 400, 10))",
          _fixed_on("article"), _fixed_stats),
    TryIt("02_sentence", "Drag `chunk_size` and watch the chunks grow by whole sentences (the stats line counts the "
          "sentences of the splitter you chose that a boundary cuts: none, unless a sentence is longer than "
          "`chunk_size`). Raise `overlap_sentences` to repeat sentences",
          "explore(SentenceChunker, article.text, chunk_size=(50, 1500, 10), overlap_sentences=(0, 4, 1))",
          lambda: {**_strategies("SentenceChunker"), **_documents("article")}, _sentence_packing),
    TryIt("03_paragraph", "The fence stays whole as long as it fits `chunk_size`; the table is one paragraph, so it "
          "is cut between rows (inside a row only while `chunk_size` is shorter than that row), into fewer and "
          "longer pieces as `chunk_size` grows, and kept whole once `chunk_size` reaches its length.",
          "explore(ParagraphChunker, chapter, max_chars=None, min_chunk_size=(0, 1000, 10), chunk_size=(100, 4000, 50))",
          _chapter, _fence_and_table),
    TryIt("04_semantic", "Move the threshold yourself: the widget below redraws the curve, the cut-off and the "
          "chunks. Switch `method` and the threshold slider moves to that rule's range.",
          "similarity_widget(article.text, span=(0, 12_000), sections=sections)",
          _article_sections, _similarity_widget),
    TryIt("04_semantic", "`min_sentences` and `min_chunk_size` merge short chunks into longer ones; `buffer` smooths "
          "the curve. Switch `method` and `threshold` takes that rule's range and customary value",
          "explore(SemanticChunker, article.text, threshold=(50.0, 100.0, 0.5), chunk_size=(200, 3000, 50))",
          lambda: {**_strategies("SemanticChunker"), **_documents("article")}, _semantic),
    TryIt("05_modality", "watch each modality break by its own unit: prose between sentences (inside a sentence only "
          "when the sentence is longer than `chunk_size`), the table between rows, the script between lines.",
          "explore(ModalityChunker, lab.text, max_chars=10_000)",
          lambda: {**_strategies("ModalityChunker"), **_documents(lab="lab_notes")}, _modality_units),
    TryIt("06_sliding_window", "the stride sets the number of chunks: a larger window gives longer chunks and more "
          "overlap, but hardly fewer of them; a smaller stride gives more chunks, and the stats line's overlap grows. "
          "Push `stride` above `chunk_size` to see the error.",
          "explore(SlidingWindowChunker, article.text, chunk_size=(50, 1500, 10), stride=(10, 800, 10))",
          lambda: {**_strategies("SlidingWindowChunker"), **_documents("article")}, _sliding),
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
    TryIt("14_keyword", "Try `Q:` alone, then `Q:, Ticket`, then `A:`; try a regex such as `\\[1[0-2]:` in `pattern` "
          "(every chat line between 10:00 and 12:59); switch `where` and `case_sensitive`; drag `chunk_size`.",
          'explore(KeywordChunker, support.text, keywords="Q:, Ticket", chunk_size=(200, 2000, 50), max_chars=None)',
          lambda: {**_strategies("KeywordChunker"), **_documents("support")}, _keyword_boxes),
    TryIt("15_hybrid", "Drag `chunk_size` and watch the prose chunks shrink and grow while tables and code keep their "
          "rules (they break between rows and lines, inside one only when it is longer than `chunk_size`); drag "
          "`min_chunk_size` and watch small table chunks absorb their neighbouring rows.",
          "explorer = explore(HybridChunker, manual.text, max_chars=9000, chunk_size=(150, 1500, 25), "
          "min_chunk_size=(0, 400, 25))",
          lambda: {**_strategies("HybridChunker"), **_documents("manual")}, _hybrid_rules),
    TryIt("16_comparison", "in JupyterLab, the dropdowns pick another retriever or budget and the table is computed "
          "again from the same rows; a saved or printed copy, such as the course site, shows BM25 at 1,000 characters.",
          'explorer = leaderboard_explorer(result, retriever="bm25", budget=1000, references=REFERENCES)',
          _small_comparison, _leaderboard_dropdowns),
]
ALL_NOTEBOOKS = sorted(path.stem for path in NOTEBOOKS.glob("*.ipynb"))


def explorer_calls(notebook: str) -> list[str]:
    """Every explorer call of the notebook's code cells, from the function's name to the line's end."""
    return [call for kind, text in _markdown_and_code(notebook) if kind == "code" for call in _EXPLORER_CALL.findall(text)]


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.notebook}: {case.says[:40]}")
def test_the_notebook_still_says_it(case: TryIt) -> None:
    cells = _markdown_and_code(case.notebook)
    assert any(kind == "markdown" and squashed(case.says) in squashed(text) for kind, text in cells), case.says
    assert any(kind == "code" and case.call in text for kind, text in cells), case.call


@pytest.mark.parametrize("notebook", ALL_NOTEBOOKS)
def test_every_explorer_of_every_notebook_is_tried(notebook: str) -> None:
    calls = explorer_calls(notebook)
    tried = {_EXPLORER_CALL.match(case.call).group(1).splitlines()[0] for case in CASES if case.notebook == notebook}
    assert set(calls) == tried, (calls, tried)
    assert (not calls) == (notebook in WITHOUT_EXPLORER), "WITHOUT_EXPLORER lists the notebooks without an explorer"
    if not calls:
        number, name = notebook.split("_", 1)
        assert f"{number} {name.replace('_', ' ')}: no explorer" in " ".join(__doc__.split()), "say so in the docstring"


def test_the_explorer_calls_are_found_as_the_notebooks_write_them() -> None:
    assert _EXPLORER_CALL.findall("x = 1\nexplorer = explore(A, t)\nexplore(B, t)\nfrom m import similarity_widget\n"
                                  "similarity_widget(t)\n# explore(C, t)\n") == ["explore(A, t)", "explore(B, t)",
                                                                                    "similarity_widget(t)"]
    assert set(ALL_NOTEBOOKS) - set(WITHOUT_EXPLORER) == {case.notebook for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.notebook}: {case.says[:40]}")
def test_moving_the_control_does_what_the_sentence_says(case: TryIt) -> None:
    case.tried(case.explorer())
