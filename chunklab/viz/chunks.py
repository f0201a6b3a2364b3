"""Drawing chunks: coloured spans over the source text, a stats line, a size histogram.

Everything is computed from the chunks' own offsets; the source is never searched. `render_html`
is a pure function (string in, string out) so it can be tested, and `show` wraps it for Jupyter.
"""

from __future__ import annotations

import html
import json
import statistics
from typing import Any, Callable, Mapping, Sequence

from ..caches import PER_TEXT, cached
from ..core import Chunk
from ..text.sentences import SentenceMethod, sentence_spans
from ..text.spans import CharCounter, cut_spans, union
from ..text.words import word_spans

__all__ = ["PALETTE", "chunk_stats", "data_attributes", "render_html", "show", "size_histogram", "stats_line"]

#: Paul Tol's "light" qualitative scheme (SRON technical note EPS/TN/09-002), chosen to stay
#: distinguishable under the common colour-vision deficiencies while keeping black text legible.
PALETTE = ("#77AADD", "#99DDFF", "#44BB99", "#BBCC33", "#AAAA00", "#EEDD88", "#EE8866", "#FFAABB")
_GAP_COLOUR = "#9a9a9a"

_STYLE = """<style>
.chunklab-view{font-family:var(--jp-content-font-family,system-ui,sans-serif);font-size:13px;line-height:1.75}
.chunklab-view .cl-stats{font-family:var(--jp-code-font-family,monospace);font-size:12px;margin:0 0 6px;color:#333}
.chunklab-view .cl-text{white-space:pre-wrap;word-break:break-word;border:1px solid #ddd;padding:8px 10px;\
max-height:%dpx;overflow-y:auto;color:#111;background:#fff}
.chunklab-view .cl-seg{border-radius:2px}
.chunklab-view .cl-gap{color:%s}
.chunklab-view .cl-overlap{outline:1px dashed #222;outline-offset:-1px}
.chunklab-view .cl-mark{font-size:9px;font-weight:700;color:#fff;background:#222;border-radius:3px;padding:0 3px;\
margin-right:1px;vertical-align:super;user-select:none}
.chunklab-view .cl-note{font-size:11px;color:#666;margin-top:4px}
.chunklab-view .cl-legend{font-size:12px;margin:0 0 6px}
.chunklab-view .cl-key{padding:0 6px;margin-right:6px;border-radius:2px;color:#111}
</style>"""


def chunk_stats(chunks: Sequence[Chunk], source: str, sentence_splitter: SentenceMethod = "regex") -> dict[str, Any]:
    """Summary numbers for a chunking of `source`.

    ``overlap_chars`` counts characters that belong to more than one chunk (each extra copy once);
    ``coverage`` is the share of non-whitespace source characters inside at least one chunk;
    ``words_cut``/``sentences_cut`` **count** the words (whitespace-delimited) and sentences (found
    by `sentence_splitter`, the chunker's own when it has one, so a chunking along its splitter's
    sentences cuts none) that have a chunk boundary strictly inside them (not to be confused with
    `chunklab.evaluation.metrics.structure_metrics`' ``chunks_cutting_*``: shares of chunks);
    ``size_mean``, ``size_min`` and ``size_max`` are in characters, as there.
    """
    sizes = [len(c) for c in chunks]
    spans = [(c.start, c.end) for c in chunks]
    boundaries = [b for span in spans for b in span]
    words, sentences, counter = _units(source, sentence_splitter)
    content = counter(0, len(source))
    return {
        "chunks": len(chunks),
        "size_mean": statistics.fmean(sizes) if sizes else 0.0,
        "size_min": min(sizes, default=0),
        "size_max": max(sizes, default=0),
        "overlap_chars": sum(sizes) - sum(e - s for s, e in union(spans)),
        "coverage": counter.total(spans) / content if content else 1.0,
        "words": len(words),
        "words_cut": cut_spans(words, boundaries),
        "sentences": len(sentences),
        "sentences_cut": cut_spans(sentences, boundaries),
    }


@cached(PER_TEXT)
def _units(source: str, sentence_splitter: SentenceMethod) -> tuple[list[tuple[int, int]], list[tuple[int, int]], CharCounter]:
    """Word spans, sentence spans and a non-whitespace counter of a source, cached: a slider drag
    re-chunks the same text."""
    return word_spans(source), sentence_spans(source, sentence_splitter), CharCounter(source)


def stats_line(stats: Mapping[str, Any]) -> str:
    """One line of text summarising `chunk_stats`."""
    return (
        f"{stats['chunks']} chunks · size mean {stats['size_mean']:.0f} "
        f"(min {stats['size_min']}, max {stats['size_max']}) chars · "
        f"overlap {stats['overlap_chars']} chars · coverage {stats['coverage']:.0%} · "
        f"{stats['sentences_cut']}/{stats['sentences']} sentences cut · "
        f"{stats['words_cut']}/{stats['words']} words cut"
    )


def _tooltip(chunk: Chunk) -> str:
    extras = [
        f"{k}: {v}"
        for k, v in chunk.metadata.items()
        if k not in {"chunk_index", "total_chunks", "char_count", "content_hash"}
    ]
    return " · ".join([f"chunk {chunk.index}", f"{len(chunk)} chars", f"[{chunk.start}, {chunk.end})", *extras])


def render_html(
    chunks: Sequence[Chunk],
    source: str,
    *,
    max_chars: int | None = 20_000,
    offset: int = 0,
    height: int = 420,
    attrs: Mapping[str, Any] | None = None,
    colour_by: str | None = None,
    colours: Mapping[Any, str] | None = None,
    sentence_splitter: SentenceMethod = "regex",
) -> str:
    """The source with every chunk's span coloured, as an HTML string.

    Consecutive chunks take consecutive palette colours; characters in two or more chunks are
    striped in their colours and outlined; characters in no chunk are grey. A small dark label marks
    where each chunk starts, and hovering a span shows its chunk's index, size, offsets and metadata.
    Only `max_chars` characters from `offset` on are drawn (None: to the end); the stats line
    always describes the whole text. The outer ``div`` carries
    ``data-nchunks`` and, from `attrs`, further ``data-*`` attributes (dicts as JSON).

    With `colour_by` (a metadata key, e.g. ``"modality"``), a chunk is coloured by its value of that
    key instead of by its position, and a legend names the colours: `colours` fixes the colour of
    given values; other values take the palette's colours in order of first appearance.
    `sentence_splitter` is the splitter whose sentences the stats line counts as cut (`chunk_stats`).
    """
    if not 0 <= offset <= len(source):
        raise ValueError(f"offset must be in [0, {len(source)}], got {offset}")
    limit = len(source) if max_chars is None else min(len(source), offset + max_chars)
    stats = chunk_stats(chunks, source, sentence_splitter)
    data = {"nchunks": len(chunks), "source-chars": len(source), **(attrs or {})}
    parts = [
        _STYLE % (height, _GAP_COLOUR),
        f'<div class="chunklab-view" {data_attributes(data)}>',
        f'<div class="cl-stats">{html.escape(stats_line(stats))}</div>',
        '<div class="cl-text">',
    ]
    colour_of: Callable[[Chunk], str] = _position_colour
    if colour_by is not None:
        colour_of, legend = _value_colours(chunks, colour_by, colours or {})
        parts.insert(-1, legend)
    parts.extend(_segments_html(chunks, source, offset, limit, colour_of))
    parts.append("</div>")
    if offset > 0 or limit < len(source):
        parts.append(
            f'<div class="cl-note">showing characters {offset:,} to {limit:,} of {len(source):,}</div>'
        )
    parts.append("</div>")
    return "".join(parts)


def data_attributes(data: Mapping[str, Any]) -> str:
    """``data-<key>="<value>"`` for every item, escaped for HTML (dicts and lists as JSON): the
    hooks a browser test reads."""
    return " ".join(
        f'data-{k}="{html.escape(json.dumps(v) if isinstance(v, (dict, list)) else str(v), quote=True)}"'
        for k, v in data.items()
    )


def _position_colour(chunk: Chunk) -> str:
    """Consecutive chunks, consecutive palette colours."""
    return PALETTE[chunk.index % len(PALETTE)]


def _value_colours(
    chunks: Sequence[Chunk], key: str, fixed: Mapping[Any, str]
) -> tuple[Callable[[Chunk], str], str]:
    """A colour per value of ``metadata[key]`` (`fixed` first, then unused palette colours in order
    of first appearance), and the legend's HTML."""
    mapping = {str(value): colour for value, colour in fixed.items()}
    spare = [c for c in PALETTE if c not in mapping.values()] or list(PALETTE)
    seen = dict.fromkeys(str(c.metadata.get(key)) for c in chunks)
    for i, value in enumerate(v for v in seen if v not in mapping):
        mapping[value] = spare[i % len(spare)]
    keys = "".join(
        f'<span class="cl-key" style="background:{mapping[v]}">{html.escape(v)}</span>' for v in seen
    )
    legend = f'<div class="cl-legend" data-colour-by="{html.escape(key, quote=True)}">{html.escape(key)}: {keys}</div>'
    return (lambda chunk: mapping[str(chunk.metadata.get(key))]), legend


def _segments_html(
    chunks: Sequence[Chunk], source: str, offset: int, limit: int, colour_of: Callable[[Chunk], str]
) -> list[str]:
    """Split [offset, limit) at every chunk boundary and render each piece with its covering chunks."""
    starts_at: dict[int, list[Chunk]] = {}
    for chunk in chunks:
        if offset <= chunk.start < limit:
            starts_at.setdefault(chunk.start, []).append(chunk)
    cuts = sorted({offset, limit, *(b for c in chunks for b in (c.start, c.end) if offset < b < limit)})
    ordered = sorted(chunks, key=lambda c: (c.start, c.end))
    active: list[Chunk] = []
    nxt = 0
    out = []
    for a, b in zip(cuts, cuts[1:]):
        while nxt < len(ordered) and ordered[nxt].start <= a:
            active.append(ordered[nxt])
            nxt += 1
        active = [c for c in active if c.end > a]
        for chunk in starts_at.get(a, ()):
            out.append(f'<span class="cl-mark" data-chunk="{chunk.index}">{chunk.index}</span>')
        text = html.escape(source[a:b])
        if not active:
            out.append(f'<span class="cl-gap">{text}</span>')
            continue
        colours = [colour_of(c) for c in active]
        title = html.escape("\n".join(_tooltip(c) for c in active), quote=True)
        ids = " ".join(str(c.index) for c in active)
        if len(active) == 1:
            style = f"background:{colours[0]}"
            cls = "cl-seg"
        else:
            stops = ",".join(f"{col} {i * 6}px {(i + 1) * 6}px" for i, col in enumerate(colours))
            style = f"background:repeating-linear-gradient(135deg,{stops})"
            cls = "cl-seg cl-overlap"
        out.append(f'<span class="{cls}" data-chunks="{ids}" style="{style}" title="{title}">{text}</span>')
    return out


def show(chunks: Sequence[Chunk], source: str, **options: Any) -> Any:
    """Display `chunks` over `source` in Jupyter (returns an ``IPython.display.HTML``).

    Options are those of `render_html` (``max_chars``, ``offset``, ``height``, ``attrs``,
    ``colour_by``, ``colours``, ``sentence_splitter``).
    """
    from IPython.display import HTML

    return HTML(render_html(chunks, source, **options))


def size_histogram(chunks: Sequence[Chunk], ax: Any = None, bins: int = 20, label: str | None = None) -> Any:
    """A matplotlib histogram of chunk sizes in characters; returns the Axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3))
    sizes = [len(c) for c in chunks]
    ax.hist(sizes, bins=bins, color=PALETTE[0], edgecolor="#333", alpha=0.85, label=label)
    ax.set_xlabel("chunk size (characters)")
    ax.set_ylabel("chunks")
    if sizes:
        ax.axvline(statistics.fmean(sizes), color="#222", linestyle="--", linewidth=1)
    if label:
        ax.legend()
    return ax
