"""Notebook 16's views of a budget comparison, on comparisons built by hand with known answers: the
leaderboard with dev beside test (data, HTML, dropdowns), the curves, `versus` and `combine`."""

import itertools
import re

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from chunklab.evaluation.budget import ROW_COLUMNS, Comparison, combine  # noqa: E402
from chunklab.evaluation.paired import paired  # noqa: E402
from chunklab.evaluation.verdicts import versus  # noqa: E402
from chunklab.viz.leaderboard import (  # noqa: E402
    curve_plot,
    leaderboard_beside,
    leaderboard_explorer,
    render_leaderboard,
)

BUDGETS = (250, 1000)


def build(answers, retrievers=("bm25", "dense"), budgets=BUDGETS, unit="chars"):
    """A Comparison whose rows say ``answers[chunker][split]`` = answered (0/1) per question, at the
    largest budget and for every retriever; at the smaller budgets every question counts as
    answered when its index is even and the chunking is ``"small"``, else not."""
    rows = []
    for chunker, by_split in answers.items():
        for split, values in by_split.items():
            for i, value in enumerate(values):
                for retriever in retrievers:
                    for budget in budgets:
                        got = value if budget == budgets[-1] else float(chunker == "small" and i % 2 == 0)
                        rows.append({"question": f"{split}-{i}", "doc": "d", "doc_kind": "text", "kind": "fact",
                                     "split": split, "chunker": chunker, "context": chunker.endswith("context"),
                                     "retriever": retriever, "budget": budget, "answered": got, "recall": got,
                                     "precision": got / 4, "iou": got / 5, "sent": float(budget),
                                     "chunks_sent": 2.0})
    chunkings = pd.DataFrame({"chunker": list(answers), "chunks": 10}).set_index("chunker")
    timings = pd.DataFrame({"chunker": list(answers), "retriever": retrievers[0], "index_seconds": 0.1})
    return Comparison(rows=pd.DataFrame(rows, columns=list(ROW_COLUMNS)), chunkings=chunkings, timings=timings,
                      budget_unit=unit)


def yes(n, k):
    return [1.0] * k + [0.0] * (n - k)


# On test: "good" 30/40, "close" 29/40 (no measurable difference), "bad" 10/40 (worse). On dev the order flips: "bad" is best.
RESULT = build({
    "good": {"test": yes(40, 30), "dev": yes(30, 5)},
    "close": {"test": yes(40, 29), "dev": yes(30, 6)},
    "bad": {"test": yes(40, 10), "dev": yes(30, 25)},
})


def test_leaderboard_beside_ranks_on_test_and_shows_dev_alongside():
    board = leaderboard_beside(RESULT, "bm25", 1000)
    assert list(board["chunker"]) == ["good", "close", "bad"]
    assert list(board["mark"]) == ["best", "no measurable difference", ""]
    assert list(board["answered (dev)"]) == pytest.approx([5 / 30, 6 / 30, 25 / 30])
    assert list(board["rank (dev)"]) == [3, 2, 1]
    assert list(board["mark (dev)"]) == ["", "", "best"]
    assert (board["questions"] == 40).all()
    alone = leaderboard_beside(RESULT, "bm25", 1000, beside=None)
    assert "answered (dev)" not in alone.columns and list(alone["chunker"]) == ["good", "close", "bad"]


def test_leaderboard_beside_leaves_blank_a_chunking_the_other_split_lacks():
    result = build({"a": {"test": yes(20, 15), "dev": yes(20, 3)}, "b": {"test": yes(20, 5)}})
    board = leaderboard_beside(result, "bm25", 1000)
    assert board.loc[board["chunker"] == "b", "answered (dev)"].isna().all()
    html = render_leaderboard(result, "bm25", 1000)
    assert html.count("<tr") == 3


def rows_of(html):
    """The table's body rows as lists of cell texts."""
    body = re.findall(r"<tr[^>]*>(.*?)</tr>", html)[1:]
    return [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in body]


def test_render_leaderboard_marks_the_best_and_the_ties_and_says_what_it_shows():
    html = render_leaderboard(RESULT, "bm25", 1000)
    assert 'class="chunklab-leaderboard"' in html and 'data-best="good"' in html and 'data-undecided="1"' in html
    assert 'data-retriever="bm25"' in html and 'data-budget="1000"' in html and 'data-split="test"' in html
    assert "chunklab-view" not in html  # not an explorer of chunks: the browser test must not drive it
    rows = rows_of(html)
    assert [r[1] for r in rows] == ["good", "close", "bad"]
    assert rows[0][2] == "75.0 %" and rows[0][4] == "★ best" and rows[0][3] == ""
    assert rows[1][4] == "○ no measurable difference" and rows[2][4] == ""
    # close is one question worse out of 40: -2.5 points
    assert rows[1][3] == "−2.5 points (95% interval −7.5 to 0.0; McNemar p = 1.000)"
    assert rows[2][3].startswith("−50.0 points (95% interval ")
    # dev beside: rate, rank, mark
    assert rows[2][-3:] == ["83.3 %", "1", "★ best"]
    assert re.search(r'<tr class="lb-best">', html) and re.search(r'<tr class="lb-undecided">', html)
    assert "1,000 characters sent per question, 40 test questions" in html


def test_render_leaderboard_escapes_labels_and_knows_its_unit():
    result = build({"<b>x</b>": {"test": yes(10, 5)}, "y": {"test": yes(10, 4)}}, unit="tokens")
    html = render_leaderboard(result, "dense", 1000, beside=None)
    assert "<b>x</b>" not in html.split("</style>")[1].split("sent per question")[1]
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "minilm tokens sent per question" in html
    assert "(dev)" not in html
    assert "1 of 1 other chunking not measurably worse" in html, "one other chunking is a chunking, not chunkings"
    assert "of 2 other chunkings not measurably worse" in render_leaderboard(RESULT, "bm25", 1000)


def test_the_explorer_re_renders_when_a_dropdown_moves():
    explorer = leaderboard_explorer(RESULT, retriever="bm25", budget=1000)
    controls, view = explorer.children
    pick_retriever, pick_budget = controls.children
    assert view.value == render_leaderboard(RESULT, "bm25", 1000)
    assert list(pick_retriever.options) == ["bm25", "dense"]
    assert [value for _, value in pick_budget.options] == [250, 1000]
    pick_budget.value = 250
    assert view.value == render_leaderboard(RESULT, "bm25", 250) and 'data-best="small"' not in view.value
    pick_retriever.value = "dense"
    assert 'data-retriever="dense"' in view.value and 'data-budget="250"' in view.value


def test_the_explorer_starts_at_the_middle_budget_of_the_first_retriever():
    result = build({"a": {"test": yes(10, 5)}, "b": {"test": yes(10, 4)}}, budgets=(250, 500, 1000))
    view = leaderboard_explorer(result, beside=None).children[1]
    assert 'data-retriever="bm25"' in view.value and 'data-budget="500"' in view.value


def test_curve_plot_draws_every_chunking_and_names_the_leaders():
    result = build({"small": {"test": yes(10, 2)}, "big": {"test": yes(10, 9)}, "other": {"test": yes(10, 5)}})
    fig = curve_plot(result)
    try:
        axes = fig.axes
        assert [ax.get_title() for ax in axes] == ["bm25, test questions", "dense, test questions"]
        # small leads at 250 (half its questions), big at 1000: both named, other in grey
        ax = axes[0]
        labels = [line.get_label() for line in ax.get_lines()]
        assert "small" in labels and "big" in labels and "1 other chunking" in labels
        front = next(line for line in ax.get_lines() if line.get_label().startswith("front"))
        assert list(front.get_ydata()) == pytest.approx([0.5, 0.9])  # small's five even questions, then big's nine
        assert [t.get_text() for t in ax.texts] == ["small", "big"]
        assert list(ax.get_xticks()) == [250, 1000]
    finally:
        matplotlib.pyplot.close(fig)
    with pytest.raises(ValueError, match="at most"):
        curve_plot(result, highlight=[f"c{i}" for i in range(7)])


def test_versus_pairs_each_variant_with_its_base_at_every_budget():
    result = build({
        "base": {"test": yes(40, 30)}, "variant": {"test": yes(40, 29)}, "worse": {"test": yes(40, 10)},
    })
    table = versus(result, [("base", "variant"), ("base", "worse")], "bm25")
    assert list(zip(table["budget"], table["b"])) == [(250, "variant"), (250, "worse"), (1000, "variant"),
                                                     (1000, "worse")]
    last = table[table["budget"] == 1000].set_index("b")
    assert last.loc["variant", "verdict"] == "no measurable difference"
    assert last.loc["worse", "verdict"] == "base beats worse"
    assert last.loc["worse", "difference"] == pytest.approx(0.5)
    expected = paired(yes(40, 30), yes(40, 10), ("base", "worse"))
    assert (last.loc["worse", "low"], last.loc["worse", "p_value"]) == (expected.low, expected.p_value)
    assert (last.loc["worse", "a_only"], last.loc["worse", "b_only"]) == (20, 0)
    assert (table[table["budget"] == 250]["verdict"] == "no measurable difference").all()  # all zero there
    one = versus(result, [("variant", "base")], "dense", budgets=[1000], split="test")
    assert len(one) == 1 and one.loc[0, "difference"] == pytest.approx(-1 / 40)
    with pytest.raises(ValueError, match="no rows for chunking"):
        versus(result, [("base", "nothing")], "bm25")
    with pytest.raises(ValueError, match="budget"):
        versus(result, [("base", "worse")], "bm25", budgets=[500])


def test_combine_joins_comparisons_and_refuses_a_label_measured_twice():
    first = build({"a": {"test": yes(10, 5)}})
    second = build({"b": {"test": yes(10, 7)}})
    both = combine(first, second)
    assert list(both.chunkings.index) == ["a", "b"] and len(both.rows) == len(first.rows) + len(second.rows)
    assert len(both.timings) == 2 and both.budget_unit == "chars"
    assert versus(both, [("b", "a")], "bm25", budgets=[1000]).loc[0, "difference"] == pytest.approx(0.2)
    with pytest.raises(ValueError, match="more than one"):
        combine(first, build({"a": {"test": yes(10, 1)}}))
    with pytest.raises(ValueError, match="units"):
        combine(first, build({"c": {"test": yes(10, 1)}}, unit="tokens"))
    with pytest.raises(ValueError, match="at least one"):
        combine()


def test_curve_plot_draws_the_baseline_dashed_and_names_each_line_at_its_end():
    result = build({"small": {"test": yes(10, 2)}, "big": {"test": yes(10, 9)}, "fixed": {"test": yes(10, 9)}})
    fig = curve_plot(result, retrievers=["bm25"], highlight=["small", "big"])
    try:
        (ax,) = fig.axes
        fixed = next(line for line in ax.get_lines() if line.get_label() == "fixed")
        assert fixed.get_linestyle() == "--"
        assert not any(line.get_label().endswith("other chunking") for line in ax.get_lines())
        names = {t.get_text(): t for t in ax.texts}
        assert set(names) == {"small", "big", "fixed"}
        assert {name: t.xy for name, t in names.items()} == {"small": (1000, 0.2), "big": (1000, 0.9),
                                                              "fixed": (1000, 0.9)}  # each stroke starts at its line's end
        # big and fixed both end at 0.9: their names are moved apart; small (0.2) keeps its place
        boxes = dict(word_boxes(fig))
        assert not boxes[names["big"]].overlaps(boxes[names["fixed"]])
        assert names["small"].xyann[1] == pytest.approx(0.2)
        assert all(boxes[t].x0 > ax.bbox.x1 for t in names.values()), "the names stand beside the panel"
    finally:
        matplotlib.pyplot.close(fig)


def test_a_saved_explorer_keeps_the_table_it_shows_not_its_widget_repr():
    explorer = leaderboard_explorer(RESULT, retriever="bm25", budget=1000)
    explorer.children[0].children[1].value = 250
    bundle = explorer._repr_mimebundle_()
    assert bundle["text/html"] == render_leaderboard(RESULT, "bm25", 250)
    assert "VBox(" not in bundle["text/plain"] and "leaderboard" in bundle["text/plain"]
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_references_are_flagged_in_the_table_and_dotted_in_the_curves():
    html = render_leaderboard(RESULT, "bm25", 1000, references=["close"])
    rows = rows_of(html)
    assert rows[1][1] == 'close <span class="lb-ref">↳ reference</span>' and rows[0][1] == "good"
    assert "↳ reference: what practitioners use" in html
    assert "↳ reference" not in render_leaderboard(RESULT, "bm25", 1000)
    fig = curve_plot(RESULT, retrievers=["bm25"], highlight=["good", "close"], references=["close", "bad"])
    try:
        (ax,) = fig.axes
        lines = {line.get_label(): line for line in ax.get_lines()}
        assert lines["↳ close"].get_linestyle() == ":" and lines["good"].get_linestyle() == "-"
        assert lines["1 other chunking"].get_linestyle() == ":"  # bad, drawn grey, is a reference too
        assert "↳ close" in [t.get_text() for t in ax.texts]
    finally:
        matplotlib.pyplot.close(fig)


def test_every_leader_is_named_in_the_table_and_the_curves():
    result = build({"one": {"test": yes(10, 9)}, "two": {"test": [0.0] + yes(9, 9)}, "low": {"test": yes(10, 1)}})
    html = render_leaderboard(result, "bm25", 1000, beside=None)
    assert 'data-best="one | two"' in html and "2 chunkings share the best mean" in html
    assert [r[4] for r in rows_of(html)] == ["★ best", "★ best", ""]
    fig = curve_plot(result, retrievers=["bm25"], baseline=None)
    try:
        # both lead at 1,000 (and all three, with nothing answered, at 250)
        assert [t.get_text() for t in fig.axes[0].texts] == ["one", "two", "low"]
    finally:
        matplotlib.pyplot.close(fig)


def test_identical_chunkings_collapse_into_one_row_that_names_its_aliases():
    from chunklab import compare
    from chunklab.evaluation.aliases import collapse_identical
    from chunklab.strategies import FixedSizeChunker

    chunkers = {"fixed 300": FixedSizeChunker(chunk_size=300), "other name": FixedSizeChunker(chunk_size=300),
                "fixed 500": FixedSizeChunker(chunk_size=500), "third name": FixedSizeChunker(chunk_size=300)}
    result = compare(chunkers, docs=["minutes"], retrievers=("bm25",), budget=[500], progress=False)
    collapsed = collapse_identical(result)
    assert list(dict.fromkeys(collapsed.rows["chunker"])) == ["fixed 300", "fixed 500"]
    assert list(collapsed.chunkings.index) == ["fixed 300", "fixed 500"]
    assert collapsed.chunkings.loc["fixed 300", "aliases"] == ("other name", "third name")
    assert collapsed.chunkings.loc["fixed 500", "aliases"] == ()
    assert set(collapsed.chunks) == {"fixed 300", "fixed 500"} and set(collapsed.timings["chunker"]) == set(collapsed.chunks)
    kept = result.rows[result.rows["chunker"] == "fixed 300"].reset_index(drop=True)
    assert collapsed.rows[collapsed.rows["chunker"] == "fixed 300"].reset_index(drop=True).equals(kept)
    board = leaderboard_beside(collapsed, "bm25", 500, split=None, beside=None).set_index("chunker")
    assert board.loc["fixed 300", "aliases"] == "other name, third name" and board.loc["fixed 500", "aliases"] == ""
    html = render_leaderboard(collapsed, "bm25", 500, split="test", beside=None)
    assert "fixed 300 (= other name, third name)" in html
    # a comparison built by hand has no chunks: nothing collapses
    assert list(collapse_identical(RESULT).rows["chunker"].unique()) == ["good", "close", "bad"]


def word_boxes(fig):
    """Every text the figure draws, with the box of its words (an annotation's stroke left out), once
    laid out; tick labels only for the ticks inside the axis' limits (the others are not drawn)."""
    from matplotlib.text import Text

    renderer = fig.canvas.get_renderer()
    fig.draw(renderer)
    shown = {}
    for ax in fig.axes:
        for axis, limits in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            for tick in axis.get_major_ticks():
                inside = min(limits) <= tick.get_loc() <= max(limits)
                shown.update({id(tick.label1): inside, id(tick.label2): inside})
    return [(text, Text.get_window_extent(text, renderer)) for text in fig.findobj(Text)
            if text.get_visible() and text.get_text().strip() and shown.get(id(text), True)]


def rising(curves, questions=40, budgets=(250, 500, 1000, 2000, 2900, 4000)):
    """A Comparison on test questions where ``curves[chunker][retriever]`` is the number of questions
    answered at each budget (the first ones, so every curve rises)."""
    rows = []
    for chunker, by_retriever in curves.items():
        for retriever, counts in by_retriever.items():
            for budget, count in zip(budgets, counts):
                for i in range(questions):
                    got = float(i < count)
                    rows.append({"question": f"test-{i}", "doc": "d", "doc_kind": "text", "kind": "fact",
                                 "split": "test", "chunker": chunker, "context": False, "retriever": retriever,
                                 "budget": budget, "answered": got, "recall": got, "precision": got / 4,
                                 "iou": got / 5, "sent": float(budget), "chunks_sent": 2.0})
    chunkings = pd.DataFrame({"chunker": list(curves), "chunks": 10}).set_index("chunker")
    timings = pd.DataFrame({"chunker": list(curves), "retriever": "bm25", "index_seconds": 0.1})
    return Comparison(rows=pd.DataFrame(rows, columns=list(ROW_COLUMNS)), chunkings=chunkings, timings=timings,
                      budget_unit="chars")


LONG_REFERENCE = "LangChain RecursiveCharacterTextSplitter 1000/200"


def test_no_two_words_of_the_curves_overlap_in_a_panel_or_across_panels():
    # Notebook 16's figure: six budgets (2,900, five chunks of 200 tokens, sits between 2,000 and 4,000 on
    # the log axis), two panels, 25 grey chunkings, and five named lines ending within two questions of each
    # other, one of them a reference with a long name, in another order in each panel.
    named = {"hybrid + context": ([9, 18, 25, 29, 30, 31], [8, 17, 24, 28, 31, 32]),
             "markdown + context": ([6, 16, 23, 28, 30, 31], [6, 16, 22, 27, 30, 31]),
             LONG_REFERENCE: ([4, 11, 21, 27, 30, 32], [5, 11, 20, 25, 28, 31]),
             "hybrid": ([8, 17, 24, 28, 29, 30], [9, 18, 25, 29, 31, 33]),
             "fixed": ([5, 12, 17, 22, 24, 26], [4, 11, 16, 22, 24, 26])}
    grey = {f"other {i}": ([1, 3 + i % 5, 10 + i % 7, 15 + i % 9, 18 + i % 9, 20 + i % 9],) * 2 for i in range(25)}
    curves = {label: {"bm25": bm25, "dense": dense} for label, (bm25, dense) in {**named, **grey}.items()}
    fig = curve_plot(rising(curves), references=[LONG_REFERENCE, "other 3"])
    try:
        boxes = word_boxes(fig)
        names = [text for ax in fig.axes for text in ax.texts]
        assert len(names) == 10 and f"↳ {LONG_REFERENCE}" in {" ".join(t.get_text().split()) for t in names}
        for ax in fig.axes:
            ticks = {tick: label.get_text() for minor in (False, True)
                     for tick, label in zip(ax.get_xticks(minor=minor), ax.get_xticklabels(minor=minor))}
            assert [ticks[b] for b in sorted(ticks)] == ["250", "500", "1,000", "2,000", "2,900", "4,000"], ticks
        collisions = [(a.get_text(), b.get_text()) for (a, box), (b, other) in itertools.combinations(boxes, 2)
                      if box.overlaps(other)]
        assert not collisions, collisions
        inside = fig.bbox
        assert all(inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0 and box.y1 <= inside.y1
                   for _, box in boxes), "a text runs off the figure"
        panels = [ax.get_window_extent() for ax in fig.axes]
        assert not any(box.overlaps(panel) for text, box in boxes if text in names for panel in panels), \
            "a name covers a panel"
        (legend,) = fig.legends
        box = legend.get_window_extent()
        assert not any(box.overlaps(panel) for panel in panels), "the legend covers a panel"
        drawn = {line.get_label() for ax in fig.axes for line in ax.get_lines() if not line.get_label().startswith("_")}
        assert {text.get_text() for text in legend.get_texts()} == drawn, "one legend names every line"
    finally:
        matplotlib.pyplot.close(fig)


def test_budget_labels_too_close_for_one_line_take_a_second_one_or_give_way():
    budgets = (250, 500, 1000, 2000, 2100, 2200, 2300, 4000)
    curves = {"a": {"bm25": [1, 2, 3, 4, 5, 6, 7, 8]}, "b": {"bm25": [0, 1, 2, 3, 4, 5, 6, 7]}}
    fig = curve_plot(rising(curves, budgets=budgets), retrievers=["bm25"])
    try:
        (ax,) = fig.axes
        first = dict(zip(ax.get_xticks(), (label.get_text() for label in ax.get_xticklabels())))
        second = dict(zip(ax.get_xticks(minor=True), (label.get_text() for label in ax.get_xticklabels(minor=True))))
        assert sorted([*first, *second]) == list(budgets), "every budget keeps its tick"
        assert all(text in ("", f"{budget:,}") for budget, text in {**first, **second}.items())
        assert [first[b] for b in (250, 500, 1000, 2000, 4000)] == ["250", "500", "1,000", "2,000", "4,000"]
        assert any(second.values()) and "" in second.values()  # a label on the second line, and one given way
        drawn = word_boxes(fig)
        upper = [box for text, box in drawn if text in ax.get_xticklabels()]
        lower = [box for text, box in drawn if text in ax.get_xticklabels(minor=True)]
        assert (len(upper), len(lower)) == (5, 1)  # 2,100 one line lower; 2,200 and 2,300 give way
        assert not any(a.overlaps(b) for a, b in itertools.combinations(upper + lower, 2))
        assert max(box.y1 for box in lower) < min(box.y0 for box in upper), "the second line is lower"
    finally:
        matplotlib.pyplot.close(fig)


def test_a_comparison_shows_what_it_measured_in_one_line():
    shown = repr(RESULT)
    assert shown == ("Comparison(3 chunkings × retrievers bm25, dense × budgets 250, 1,000 characters; 70 questions "
                     "(30 dev, 40 test); read it with leaderboard(result, retriever, budget), curve or summarize)")
    assert str(RESULT) == shown and len(shown) < 200, "never the tables or the chunks"
