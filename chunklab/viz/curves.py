"""Signals along a document, with the chunk boundaries drawn on them (matplotlib).

* `similarity_plot`: the semantic chunker's picture: the distance between neighbouring sentences
  along the document, the cut-off line, the breakpoints, and the chunks as coloured bars beneath;
  `similarity_widget` redraws it as the learner moves the method, threshold and sizes.
* `topic_plot`: the topic chunker's picture: the topic mixture of every sentence (LDA, NMF) or
  TextTiling's lexical similarity and depth scores, with the cuts and the document's real section
  starts.

The x axis is always the character offset in the document, so the signal, the chunks and the
sections line up. Every function returns the matplotlib Figure (and closes nothing: in Jupyter it
is drawn once).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..core import Chunk
from ..strategies.semantic import BREAKPOINT_METHODS, SemanticChunker
from ..strategies.topic import TopicChunker
from .chunks import PALETTE
from .static import figure_png, with_static_view

__all__ = ["TOPIC_COLOURS", "similarity_plot", "similarity_widget", "topic_plot"]

#: Paul Tol's "muted" qualitative scheme (SRON technical note EPS/TN/09-002), for topics: distinct
#: from the chunk palette of `chunklab.viz.chunks.PALETTE` and readable with colour-vision deficiencies.
TOPIC_COLOURS = (
    "#CC6677", "#332288", "#DDCC77", "#117733", "#88CCEE", "#882255", "#44AA99", "#999933", "#AA4499", "#DDDDDD",
)

_SECTION_COLOUR = "#B2182B"


def _window(text: str, span: tuple[int, int] | None) -> tuple[int, int]:
    start, end = span if span is not None else (0, len(text))
    if not 0 <= start < end <= len(text):
        raise ValueError(f"span must satisfy 0 <= start < end <= {len(text)}, got {span}")
    return start, end


def _figure(height_ratios: Sequence[float], width: float = 12, height: float = 4.2) -> tuple[Any, Any]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(
        len(height_ratios), 1, figsize=(width, height), sharex=True, gridspec_kw={"height_ratios": list(height_ratios)}
    )
    return fig, axes


def _chunk_bars(ax: Any, chunks: Sequence[Chunk], start: int, end: int) -> None:
    """The chunks as coloured bars, one row, labelled with their index when there is room."""
    for chunk in chunks:
        if chunk.end <= start or chunk.start >= end:
            continue
        colour = PALETTE[chunk.index % len(PALETTE)]
        ax.barh(0, chunk.end - chunk.start, left=chunk.start, height=0.8, color=colour, edgecolor="#333", linewidth=0.5)
        if (chunk.end - chunk.start) > (end - start) / 60:
            middle = (max(chunk.start, start) + min(chunk.end, end)) / 2
            ax.text(middle, 0, str(chunk.index), ha="center", va="center", fontsize=7)
    ax.set_yticks([])
    ax.set_ylabel("chunks", rotation=0, ha="right", va="center")
    ax.set_xlim(start, end)
    ax.set_xlabel("position in the document (characters)")


def _sections(ax: Any, sections: Sequence[int] | None, start: int, end: int, label: bool = True) -> None:
    """The document's real section starts as dashed red lines."""
    shown = [s for s in sections or () if start <= s <= end]
    for i, s in enumerate(shown):
        legend = "section start" if label and i == 0 else None
        ax.axvline(s, color=_SECTION_COLOUR, linestyle="--", linewidth=1.2, label=legend)


def similarity_plot(
    chunker: SemanticChunker,
    text: str,
    *,
    span: tuple[int, int] | None = None,
    sections: Sequence[int] | None = None,
    chunks: Sequence[Chunk] | None = None,
    title: str | None = None,
) -> Any:
    """The similarity curve of `text` under `chunker`, with its cut-off, breakpoints and chunks.

    Top: the cosine distance across every gap between sentences (high = the meaning shifts), the
    cut-off line the chunker's `method` and `threshold` give, and the breakpoints (gaps above it) as
    dots, filled where a chunk really starts there and hollow where the minimum size vetoed it.
    For ``method="gradient"`` the rise of the distance, which the cut-off applies to, is drawn too.
    Bottom: the chunks. `span` restricts the view to ``(start, end)`` characters; `sections`
    marks real section starts; `chunks` saves re-chunking when the caller has them.
    """
    start, end = _window(text, span)
    curve = chunker.curve(text)
    cuts, cutoff = chunker.breakpoints(text)
    chunks = chunker(text) if chunks is None else chunks
    fig, (top, bottom) = _figure((4, 1))
    x = curve.gap_positions
    top.plot(x, curve.distances, color="#4477AA", linewidth=1.2, label="distance between neighbours")
    scores = curve.distances
    if chunker.method == "gradient" and len(scores):
        scores = np.diff(scores, prepend=scores[0])
        top.plot(x, scores, color="#228833", linewidth=0.9, linestyle=":", label="rise in distance")
    if np.isfinite(cutoff):
        legend = f"cut-off {cutoff:.3f} ({chunker.method} {chunker.threshold:g})"
        top.axhline(cutoff, color="#EE6677", linewidth=1.2, label=legend)
    started = {c.start for c in chunks}
    used = np.array([curve.units[g + 1][0] in started for g in cuts.tolist()], dtype=bool)
    if len(cuts):
        top.scatter(x[cuts][used], scores[cuts][used], color="#EE6677", zorder=3, s=22, label="breakpoint (cut)")
        if (~used).any():
            top.scatter(x[cuts][~used], scores[cuts][~used], facecolors="none", edgecolors="#EE6677", zorder=3, s=22,
                        label="breakpoint vetoed by the minimum")
    _sections(top, sections, start, end)
    top.set_ylabel("cosine distance")
    top.set_title(title or f"{type(chunker).__name__}: {len(chunks)} chunks, {int(used.sum())} cut at breakpoints")
    top.grid(alpha=0.3)
    top.legend(fontsize=7, loc="upper right")
    _chunk_bars(bottom, chunks, start, end)
    fig.tight_layout()
    return fig


def similarity_widget(
    text: str, *, span: tuple[int, int] | None = None, sections: Sequence[int] | None = None, **params: Any
) -> Any:
    """An interactive `similarity_plot`: a method menu and sliders for the threshold, the buffer,
    the minimum sentences and the maximum size; the plot redraws on every change.

    Changing the method moves the threshold slider to that method's range and customary value (see
    `chunklab.strategies.semantic.BREAKPOINT_METHODS`). `params` are the starting parameters of
    the `SemanticChunker` (its embedder, say). Sentence vectors are cached per text, so only the
    first drawing runs the embedding model. A saved notebook keeps the plot of the moment it was
    displayed as a PNG (`chunklab.viz.static`).
    """
    import ipywidgets as w
    from IPython.display import display

    chunker = SemanticChunker(**params)
    style = {"description_width": "initial"}
    common = {"style": style, "continuous_update": False}
    method = w.Dropdown(options=list(BREAKPOINT_METHODS), value=chunker.method, description="method", style=style)
    low, high = BREAKPOINT_METHODS[chunker.method]["range"]
    threshold = w.FloatSlider(value=chunker.threshold, min=low, max=high, step=(high - low) / 200,
                              description="threshold", readout_format=".3g", **common)
    buffer = w.IntSlider(value=chunker.buffer, min=0, max=5, description="buffer", **common)
    minimum = w.IntSlider(value=chunker.min_sentences, min=1, max=10, description="min_sentences", **common)
    maximum = w.IntSlider(value=chunker.chunk_size, min=200, max=6000, step=100, description="chunk_size", **common)
    output = w.Output()
    switching = {"method": False}

    def figure() -> Any:
        current = chunker.clone(method=method.value, threshold=threshold.value, buffer=buffer.value,
                                min_sentences=minimum.value, chunk_size=maximum.value)
        return similarity_plot(current, text, span=span, sections=sections)

    def redraw(*_: Any) -> None:
        if switching["method"]:
            return
        with output:
            output.clear_output(wait=True)
            drawn = figure()
            display(drawn)
            import matplotlib.pyplot as plt

            plt.close(drawn)

    def static() -> dict[str, str]:
        import matplotlib.pyplot as plt

        drawn = figure()
        try:
            return {"image/png": figure_png(drawn)}
        finally:
            plt.close(drawn)

    def switch_method(change: dict[str, Any]) -> None:
        low, high = BREAKPOINT_METHODS[change["new"]]["range"]
        switching["method"] = True
        try:
            threshold.min, threshold.max = min(low, threshold.min), max(high, threshold.max)
            threshold.value = BREAKPOINT_METHODS[change["new"]]["default"]
            threshold.min, threshold.max, threshold.step = low, high, (high - low) / 200
        finally:
            switching["method"] = False
        redraw()

    method.observe(switch_method, names="value")
    for control in (threshold, buffer, minimum, maximum):
        control.observe(redraw, names="value")
    redraw()
    box = w.VBox([w.HBox([method, threshold, buffer], layout=w.Layout(flex_flow="row wrap")),
                  w.HBox([minimum, maximum], layout=w.Layout(flex_flow="row wrap")), output])
    box.controls = {
        "method": method, "threshold": threshold, "buffer": buffer, "min_sentences": minimum, "chunk_size": maximum,
    }
    return with_static_view(box, static, f"similarity curve ({method.value} {threshold.value:g})")


def topic_plot(
    chunker: TopicChunker,
    text: str,
    *,
    span: tuple[int, int] | None = None,
    sections: Sequence[int] | None = None,
    chunks: Sequence[Chunk] | None = None,
    title: str | None = None,
) -> Any:
    """The topic chunker's signal along `text`, its cuts, and the document's real section starts.

    For ``"lda"``/``"nmf"``: each sentence's topic mixture as stacked bands (legend: each topic's
    top words). For ``"texttiling"``: the lexical similarity of the blocks either side of each gap
    (raw and smoothed) and the depth of each valley. Black lines are the topic cuts (segment
    starts, before any split for size), dashed red lines the `sections`; below, the chunks.
    """
    start, end = _window(text, span)
    chunks = chunker(text) if chunks is None else chunks
    cuts = [c.start for before, c in zip(chunks, chunks[1:]) if c.metadata["segment"] != before.metadata["segment"]]
    fig, (top, bottom) = _figure((4, 1))
    if chunker.method == "texttiling":
        tiling = chunker.tiling(text)
        x = tiling.gap_offsets
        top.plot(x, tiling.gap_scores, color="#BBBBBB", linewidth=0.8, label="block similarity")
        top.plot(x, tiling.smoothed, color="#4477AA", linewidth=1.4, label="smoothed")
        width = max((end - start) / 400, 1)
        top.bar(x, tiling.depths, width=width, color="#CCBB44", alpha=0.8, label="depth of the valley")
        top.set_ylabel("lexical similarity")
    else:
        profile = chunker.profile(text)
        if profile.words:
            x = np.array([s for s, _ in profile.units] + [profile.units[-1][1]])
            mixtures = np.vstack([profile.mixtures, profile.mixtures[-1:]])
            labels = [f"topic {t}: {', '.join(words[:3])}" for t, words in enumerate(profile.words)]
            colours = [TOPIC_COLOURS[t % len(TOPIC_COLOURS)] for t in range(mixtures.shape[1])]
            top.stackplot(x, mixtures.T, labels=labels, colors=colours, step="post", alpha=0.85)
        top.set_ylim(0, 1)
        top.set_ylabel("topic mixture")
    for i, cut in enumerate(c for c in cuts if start <= c <= end):
        top.axvline(cut, color="#111111", linewidth=1.2, label="topic cut" if i == 0 else None)
    _sections(top, sections, start, end)
    segments = len(cuts) + 1 if chunks else 0
    top.set_title(title or f"TopicChunker({chunker.method}): {segments} segments, {len(chunks)} chunks")
    top.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    _chunk_bars(bottom, chunks, start, end)
    fig.tight_layout()
    return fig
