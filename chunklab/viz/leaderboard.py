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
    it, at most six) are coloured and named at the right end of their line, and `baseline` (if
    measured) is a dashed black line; the others are thin grey lines. A chunking in `references`
    (what practitioners use) is drawn dotted and named with "↳" wherever it is drawn. The budget
    labels are slanted when two budgets lie close together on the log axis (2,000, 2,900 and 4,000),
    and the legend sits below the panels, where it hides no line. Returns the Figure.
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
        ends = _spread([float(table[label].iloc[-1]) for label in shown], 0.04 * float(table.max().max() or 1))
        for label, y in zip(shown, ends):
            ax.annotate(_tagged(label, references), (budgets[-1], y), xytext=(6, 0), textcoords="offset points",
                        fontsize=8, va="center", color=colours.get(label, "black"))
        ax.set_xscale("log")
        ax.set_xticks(budgets)
        crowded = len(budgets) > 6 or any(high / low < _CROWDED_RATIO for low, high in zip(budgets, budgets[1:]))
        ax.set_xticklabels([f"{b:,}" for b in budgets], rotation=45 if crowded else 0, ha="right" if crowded else "center",
                           rotation_mode="anchor" if crowded else "default")
        ax.minorticks_off()
        ax.set_xlim(budgets[0] * 0.9, budgets[-1] * 1.6)
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
    return fig


#: Neighbouring budgets closer than this ratio get slanted labels: on the log axis their upright labels
#: would run into each other (2,900 is 1.45 times 2,000; a doubling series is 2 apart).
_CROWDED_RATIO = 1.6


def _tagged(label: str, references: Collection[str]) -> str:
    """`label`, prefixed "↳ " when it is a reference row."""
    return f"↳ {label}" if label in references else label


def _spread(values: Sequence[float], gap: float) -> list[float]:
    """`values` with each one, from the lowest up, raised just enough to stand at least `gap` above
    the one below it (for the labels at the end of lines that end close together)."""
    placed = list(values)
    previous = None
    for i in sorted(range(len(values)), key=lambda i: values[i]):
        if previous is not None:
            placed[i] = max(values[i], previous + gap)
        previous = placed[i]
    return placed
