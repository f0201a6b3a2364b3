"""Drawing chunks and measurements: coloured spans, the explorer's controls, curves and trees."""

from .chunks import chunk_stats, render_html, show, size_histogram
from .explorer import explore

__all__ = ["chunk_stats", "explore", "render_html", "show", "size_histogram"]
