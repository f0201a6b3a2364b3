"""Notebook 16's readable views of a budget comparison: the leaderboard, its dropdowns, the curves.

All of them read the `chunklab.evaluation.budget.Comparison` that ``compare(..., budget=[...])``
returns, and every mark comes from `chunklab.evaluation.verdicts.leaderboard` (paired tests):

* `leaderboard_beside`: one row per chunking for one retriever and budget, ranked on one question
  split (``"test"``), with another split's numbers beside it (``"dev"``, the questions the defaults
  were tuned on);
* `render_leaderboard`: that table as HTML, the best rows and those with no measurable difference
  from them marked, reference rows (what practitioners use, `chunklab.integrations.references`)
  flagged "↳ reference", a chunking's aliases named beside it (a pure function: the dropdowns only
  call it, so a test can call it too);
* `leaderboard_explorer`: a retriever and a budget dropdown above the rendered table;
* `curve_plot`: a metric against the text sent, one line per chunking and one panel per retriever,
  with the front (the best mean at each budget) drawn under the lines and reference rows dotted.

The viz layer does not import the integrations: the caller passes the reference labels
(``references=list(reference_chunkers())``).
"""

from __future__ import annotations

import html
import textwrap
from typing import Any, Collection, Sequence

from ..evaluation.budget import Comparison
from ..evaluation.verdicts import NO_DIFFERENCE, curve, gate, leaderboard, named
from .static import with_static_view

__all__ = ["FRONT_COLOURS", "curve_plot", "leaderboard_beside", "leaderboard_explorer", "render_leaderboard"]

#: Paul Tol's "bright" qualitative scheme (SRON technical note EPS/TN/09-002) without its grey, for
#: the chunkings a curve plot names; every other chunking is drawn in grey.
FRONT_COLOURS = ("#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377")
_OTHER_COLOUR = "#BBBBBB"

_MARKS = {"best": "★ best", NO_DIFFERENCE: "○ no measurable difference", "": ""}
#: The row class of each mark (shading).
_ROW_CLASSES = {"best": "lb-best", NO_DIFFERENCE: "lb-undecided", "": ""}
_REFERENCE = ' <span class="lb-ref">↳ reference</span>'

_STYLE = """<style>
.chunklab-leaderboard{font-family:var(--jp-content-font-family,system-ui,sans-serif);font-size:13px}
.chunklab-leaderboard .lb-caption{margin:0 0 6px;color:#333}
.chunklab-leaderboard table{border-collapse:collapse}
.chunklab-leaderboard th,.chunklab-leaderboard td{padding:2px 8px;border-bottom:1px solid #e4e4e4;text-align:right;\
white-space:nowrap}
.chunklab-leaderboard th{border-bottom:2px solid #999;vertical-align:bottom}
.chunklab-leaderboard td.lb-name{text-align:left;font-family:var(--jp-code-font-family,monospace)}
.chunklab-leaderboard th.lb-beside,.chunklab-leaderboard td.lb-beside{color:#555;background:#f6f6f6}
.chunklab-leaderboard tr.lb-best td{background:#cfe8cf;font-weight:600}
.chunklab-leaderboard tr.lb-undecided td{background:#eaf5ea}
.chunklab-leaderboard .lb-ref{font-style:italic;color:#7a4b00}
.chunklab-leaderboard .lb-note{font-size:11px;color:#666;margin-top:4px}
</style>"""


def leaderboard_beside(
    result: Comparison,
    retriever: str,
    budget: int,
    split: str = "test",
    beside: str | None = "dev",
    metric: str = "answered",
) -> Any:
    """`chunklab.evaluation.verdicts.leaderboard` on `split`, with `beside` alongside.

    The rows, their order, ``rank`` (the index) and ``mark`` are those of the leaderboard on
    `split`. With `beside`, three columns are added from the leaderboard of the same retriever and
    budget on that split: ``<metric> (<beside>)``, ``rank (<beside>)`` and ``mark (<beside>)``;
    a chunking not measured there gets empty cells.
    """
    board = leaderboard(result, retriever, budget, metric=metric, split=split)
    if beside is None:
        return board
    other = leaderboard(result, retriever, budget, metric=metric, split=beside)
    other = other.reset_index().set_index("chunker")
    extra = other[[metric, "rank", "mark"]].rename(columns=lambda c: f"{c} ({beside})")
    return board.join(extra, on="chunker")


def _percent(value: float) -> str:
    return f"{value:.1%}".replace("%", " %")


def render_leaderboard(
    result: Comparison,
    retriever: str,
    budget: int,
    split: str = "test",
    beside: str | None = "dev",
    metric: str = "answered",
    references: Collection[str] = (),
) -> str:
    """The leaderboard of `leaderboard_beside` as an HTML table, best first.

    Columns: rank, chunking (with its aliases, ``(= json, code)``, and "↳ reference" for a label
    in `references`), `metric` on `split`, its difference from the best with the paired 95 %
    interval and McNemar's p (the leaderboard's ``versus best``), the mark (★ best: every chunking
    with the highest mean; ○ no measurable difference: not measurably worse than the best), character
    recall and IoU, then `metric`, rank and mark on `beside`. The best rows and the rows with no
    measurable difference from the best are shaded. The outer
    ``div.chunklab-leaderboard`` carries ``data-retriever``, ``data-budget``, ``data-split``,
    ``data-best`` (the best labels, joined by " | "), ``data-undecided`` (how many rows have no
    measurable difference from the best) and ``data-recommended`` (the chunking the resampling gate
    recommends on `split`, `chunklab.evaluation.verdicts.gate`; empty when it refuses), whose
    sentence is shown under the caption.
    """
    board = leaderboard_beside(result, retriever, budget, split, beside, metric)
    questions = int(board["questions"].iloc[0])
    head = ["rank", "chunking", f"{metric} ({split})", "vs the best (95 % interval; McNemar's p)", "mark",
            f"recall ({split})", f"IoU ({split})"]
    beside_head = [f"{metric} ({beside})", f"rank ({beside})", f"mark ({beside})"] if beside else []
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    cells += "".join(f'<th class="lb-beside">{html.escape(h)}</th>' for h in beside_head)
    rows = [f"<tr>{cells}</tr>"]
    for rank, row in board.iterrows():
        values = [str(rank), named(row["chunker"], {row["chunker"]: row["aliases"]}), _percent(row[metric]),
                  row["versus best"], _MARKS[row["mark"]], _percent(row["recall"]), _percent(row["iou"])]
        tds = "".join(
            f'<td class="lb-name">{html.escape(v)}{_REFERENCE if row["chunker"] in references else ""}</td>' if i == 1
            else f"<td>{html.escape(v)}</td>"
            for i, v in enumerate(values)
        )
        if beside:
            known = row[f"{metric} ({beside})"] == row[f"{metric} ({beside})"]  # NaN when not measured there
            shown = [_percent(row[f"{metric} ({beside})"]), str(int(row[f"rank ({beside})"])),
                     _MARKS[row[f"mark ({beside})"]]] if known else ["", "", ""]
            tds += "".join(f'<td class="lb-beside">{html.escape(v)}</td>' for v in shown)
        css = f' class="{_ROW_CLASSES[row["mark"]]}"' if row["mark"] else ""
        rows.append(f"<tr{css}>{tds}</tr>")
    best = list(board.loc[board["mark"] == "best", "chunker"])
    undecided, others = int((board["mark"] == NO_DIFFERENCE).sum()), len(board) - len(best)
    parts = [f"{len(best)} chunkings share the best mean"] if len(best) > 1 else []
    if others:
        parts.append(f"{undecided} of {others} other {'chunking' if others == 1 else 'chunkings'} not measurably worse "
                     "than the best")
    caption = (
        f"<b>{html.escape(retriever)}</b>, {budget:,} {html.escape(result.unit_label())} sent per question, "
        f"{questions} {html.escape(split)} questions, ranked by {html.escape(metric)}: {'; '.join(parts)}."
    )
    note = (
        "★ best: the highest mean on these questions (every chunking that has it). ○ no measurable difference: not "
        "measurably worse than the best (the paired 95 % interval of the difference includes zero, or McNemar's exact test gives "
        "p ≥ 0.05); a lower mean is not proof of a worse chunking."
        + (" ↳ reference: what practitioners use (LangChain, LlamaIndex), not a chunklab strategy." if references
           else "")
        + (f" The {html.escape(beside)} columns rank the same chunkings on the {html.escape(beside)} questions." if beside
           else "")
    )
    verdict = gate(result, retriever, budget, metric, split)
    attrs = (f'data-retriever="{html.escape(retriever)}" data-budget="{budget}" data-split="{html.escape(split)}" '
             f'data-best="{html.escape(" | ".join(best))}" data-undecided="{undecided}" '
             f'data-recommended="{html.escape(verdict.recommended or "")}"')
    return (f'{_STYLE}<div class="chunklab-leaderboard" {attrs}><div class="lb-caption">{caption}</div>'
            f'<div class="lb-caption">{html.escape(verdict.text()[0].upper() + verdict.text()[1:])}.</div>'
            f'<table>{"".join(rows)}</table><div class="lb-note">{note}</div></div>')


def leaderboard_explorer(
    result: Comparison,
    retriever: str | None = None,
    budget: int | None = None,
    split: str = "test",
    beside: str | None = "dev",
    metric: str = "answered",
    references: Collection[str] = (),
) -> Any:
    """Two dropdowns (retriever, budget) above `render_leaderboard`, re-rendered on every change.

    Starts at `retriever` and `budget` (default: the first retriever measured and the budget in
    the middle of those measured). Each table is computed once and remembered. Returns an
    ipywidgets ``VBox``: ``children[0]`` holds the dropdowns, ``children[1]`` is the ``HTML`` widget.
    """
    import ipywidgets as widgets

    retrievers = list(result.rows["retriever"].unique())
    budgets = sorted(int(b) for b in result.rows["budget"].unique())
    retriever = retrievers[0] if retriever is None else retriever
    budget = budgets[len(budgets) // 2] if budget is None else budget
    rendered: dict[tuple[str, int], str] = {}

    def render(name: str, amount: int) -> str:
        if (name, amount) not in rendered:
            rendered[name, amount] = render_leaderboard(result, name, amount, split, beside, metric, references)
        return rendered[name, amount]

    pick_retriever = widgets.Dropdown(options=retrievers, value=retriever, description="retriever")
    pick_budget = widgets.Dropdown(
        options=[(f"{b:,} {result.unit_label()}", b) for b in budgets], value=budget, description="budget"
    )
    view = widgets.HTML(value=render(retriever, budget))

    def update(_change: Any) -> None:
        view.value = render(pick_retriever.value, pick_budget.value)

    pick_retriever.observe(update, names="value")
    pick_budget.observe(update, names="value")
    box = widgets.VBox([widgets.HBox([pick_retriever, pick_budget]), view])
    label = f"leaderboard ({pick_retriever.value}, {pick_budget.value:,} {result.unit_label()})"
    return with_static_view(box, lambda: {"text/html": view.value}, label)


def curve_plot(
    result: Comparison,
    retrievers: Sequence[str] | None = None,
    metric: str = "answered",
    split: str | None = "test",
    highlight: Sequence[str] | None = None,
    baseline: str | None = "fixed",
    references: Collection[str] = (),
) -> Any:
    """`metric` against the budget, one line per chunking, one panel per retriever (matplotlib).

    The x axis is the text sent per question (log scale, a tick at every budget measured). A thick
    pale band traces the front: the best mean at each budget. The chunkings in `highlight` (default:
    every chunking with the best mean at some budget of some panel, all of them when several share
    it, at most six) are coloured and named beside the panel, right of the end of their line (a thin
    stroke joins each name to its line), and `baseline` (if measured) is a dashed black line; the
    others are thin grey lines. A chunking in `references` (what practitioners use) is drawn dotted
    and named with "↳" wherever it is drawn. No two words of the figure overlap: the names beside a
    panel are wrapped when long, stacked apart within the panel's height, and kept out of the next
    panel by the constrained layout; a budget label that would touch the one before it goes one line
    lower (2,000, 2,900 and 4,000), and is left out only when even that leaves no room. The legend
    sits below the panels, where it hides no line. Returns the Figure.
    """
    import matplotlib.pyplot as plt

    retrievers = list(result.rows["retriever"].unique()) if retrievers is None else list(retrievers)
    tables = {name: curve(result, name, metric, split) for name in retrievers}
    if highlight is None:
        leaders = [label for table in tables.values() for _, means in table.iterrows()
                   for label in means.index[means == means.max()]]
        highlight = list(dict.fromkeys(leaders))[: len(FRONT_COLOURS)]
    if len(highlight) > len(FRONT_COLOURS):
        raise ValueError(f"at most {len(FRONT_COLOURS)} chunkings can be highlighted, got {len(highlight)}")
    colours = dict(zip(highlight, FRONT_COLOURS))
    named = [*highlight, *([baseline] if baseline is not None and baseline not in colours else [])]
    fig, axes = plt.subplots(1, len(retrievers), figsize=(6.2 * len(retrievers), 5.2), sharey=True, squeeze=False,
                             layout="constrained")
    for ax, name in zip(axes[0], retrievers):
        table = tables[name]
        budgets = list(table.index)
        ax.plot(budgets, table.max(axis=1), color="#FFD966", linewidth=9, alpha=0.6, solid_capstyle="round",
                zorder=1, label="front (best at each budget)")
        others = [label for label in table.columns if label not in named]
        for i, label in enumerate(others):
            ax.plot(budgets, table[label], color=_OTHER_COLOUR, linewidth=0.9, zorder=2,
                    linestyle=":" if label in references else "-",
                    label=f"{len(others)} other chunking{'s' * (len(others) != 1)}" if i == 0 else None)
        shown = [label for label in named if label in table.columns]
        for label in shown:
            style = (dict(color=colours[label], linewidth=2.2, marker="o", markersize=3.5) if label in colours
                     else dict(color="black", linewidth=1.4, linestyle="--"))
            if label in references:
                style["linestyle"] = ":"
            ax.plot(budgets, table[label], zorder=3, label=_tagged(label, references), **style)
        for label in shown:
            end, colour = float(table[label].iloc[-1]), colours.get(label, "black")
            # The name starts just right of the panel, level with its line's end; `_settle` moves it up
            # or down when names would overlap.
            ax.annotate(_wrapped(_tagged(label, references)), (budgets[-1], end), xytext=(_NAME_X, end),
                        textcoords=("axes fraction", "data"), fontsize=8, va="center", ha="left", color=colour,
                        annotation_clip=False,
                        arrowprops=dict(arrowstyle="-", color=colour, linewidth=0.6, shrinkA=1, shrinkB=3))
        ax.set_xscale("log")
        ax.set_xticks(budgets, labels=[f"{b:,}" for b in budgets])
        ax.minorticks_off()
        ax.set_xlim(budgets[0] / _X_MARGIN, budgets[-1] * _X_MARGIN)
        where = f", {split} questions" if split else ""
        ax.set(xlabel=f"{result.unit_label()} sent per question (log scale)", title=f"{name}{where}")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(f"{metric} (mean over questions)")
    entries: dict[str, Any] = {}  # one entry per label, over every panel, in the order they were drawn
    for ax in axes[0]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(label, handle)
    fig.legend(handles=list(entries.values()), labels=list(entries), loc="outside lower center", fontsize=8,
               ncol=min(len(entries), 2 * len(retrievers) + 1), frameon=False)
    _settle(fig, list(axes[0]))
    return fig


#: Where the names of the lines start: just right of the panel (in axes fraction).
_NAME_X = 1.04
#: The log x axis reaches this factor beyond the smallest and the largest budget.
_X_MARGIN = 1.15
#: Names of lines are wrapped to lines of at most this many characters (a word is never broken).
_NAME_WIDTH = 24
#: The space kept between two labels, in points.
_LABEL_GAP = 2.0


def _wrapped(label: str) -> str:
    """`label` on lines of at most `_NAME_WIDTH` characters (a longer word stays whole)."""
    return textwrap.fill(label, _NAME_WIDTH, break_long_words=False, break_on_hyphens=False)


def _settle(fig: Any, axes: Sequence[Any]) -> None:
    """Lay the figure out, then move what would overlap: in every panel, the budget labels
    (`_budget_rows`) and the names beside it (`_stack_names`). Measured on the laid-out figure, so
    with the fonts, the size and the margins it is shown with (a PNG at another resolution scales
    all of them alike)."""
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    for ax in axes:
        _budget_rows(ax, renderer)
    fig.draw_without_rendering()
    for ax in axes:
        _stack_names(ax, renderer)


def _budget_rows(ax: Any, renderer: Any) -> None:
    """Each budget label on the first line under the axis where it clears the label before it by
    `_LABEL_GAP`, else on a second line, else (no room on either) left out. The second line is
    drawn by minor ticks as long as the major ones, their labels further down; every budget keeps
    its tick."""
    gap = renderer.points_to_pixels(_LABEL_GAP)
    lines: tuple[list, list] = ([], [])  # (budget, label) on the first and the second line
    ends = [float("-inf"), float("-inf")]  # the right end of the last label on each line
    for tick, label in zip(ax.get_xticks(), ax.get_xticklabels()):
        box = label.get_window_extent(renderer)
        row = next((r for r in (0, 1) if box.x0 >= ends[r] + gap), None)
        if row is not None:
            ends[row] = box.x1
        lines[1 if row is None else row].append((tick, label.get_text() if row is not None else ""))
    if not lines[1]:
        return
    major, size = ax.xaxis.get_major_ticks()[0], ax.get_xticklabels()[0].get_size()
    for minor, line in enumerate(lines):
        ax.set_xticks([tick for tick, _ in line], labels=[text for _, text in line], minor=bool(minor))
    ax.tick_params(axis="x", which="minor", length=major.tick1line.get_markersize(), labelsize=size,
                   width=major.tick1line.get_markeredgewidth(), pad=major.get_pad() + 1.25 * size)


def _stack_names(ax: Any, renderer: Any) -> None:
    """The names beside `ax` moved apart just enough that none overlaps another (by `_LABEL_GAP`),
    each as near its line's end as that allows, all within the panel's height."""
    from matplotlib.text import Annotation, Text

    names = [text for text in ax.texts if isinstance(text, Annotation)]
    if not names:
        return
    gap = renderer.points_to_pixels(_LABEL_GAP)
    heights = [Text.get_window_extent(name, renderer).height for name in names]  # the words, not the stroke
    wanted = [ax.transData.transform(name.xy)[1] for name in names]
    order = sorted(range(len(names)), key=lambda i: wanted[i])
    centre, floor = {}, float("-inf")  # from the lowest up: each above the one below
    for i in order:
        centre[i] = max(wanted[i], floor + gap + heights[i] / 2)
        floor = centre[i] + heights[i] / 2
    ceiling = ax.bbox.y1 + gap  # from the highest down: within the panel, each below the one above
    for i in reversed(order):
        centre[i] = min(centre[i], ceiling - gap - heights[i] / 2)
        ceiling = centre[i] - heights[i] / 2
    to_data = ax.transData.inverted()
    for i, name in enumerate(names):
        name.xyann = (name.xyann[0], float(to_data.transform((0.0, centre[i]))[1]))


def _tagged(label: str, references: Collection[str]) -> str:
    """`label`, prefixed "↳ " when it is a reference row."""
    return f"↳ {label}" if label in references else label
