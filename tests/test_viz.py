"""Tests of the chunk drawing: pure HTML rendering from offsets, stats, histogram."""

from __future__ import annotations

import html
import re

import matplotlib

matplotlib.use("Agg")

from chunklab import Chunk
from chunklab.strategies import FixedSizeChunker
from chunklab.viz.chunks import PALETTE, chunk_stats, render_html, show, size_histogram, stats_line

TEXT = "Alpha beta. Gamma <delta> & epsilon. Zeta eta theta."


def visible_text(markup: str) -> str:
    """The text a reader sees in the chunk view, without chunk-start labels."""
    body = markup.split('<div class="cl-text">', 1)[1]
    body = re.sub(r'<span class="cl-mark"[^>]*>\d+</span>', "", body)
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def test_render_preserves_and_escapes_the_source() -> None:
    chunks = FixedSizeChunker(chunk_size=15, chunk_overlap=5)(TEXT)
    markup = render_html(chunks, TEXT)
    assert "<delta>" not in markup and "&lt;" in markup and "&amp;" in markup
    assert visible_text(markup) == TEXT


def test_render_marks_overlaps_gaps_and_starts() -> None:
    chunks = [Chunk(TEXT[0:11], 0, 11, 0), Chunk(TEXT[6:20], 6, 20, 1), Chunk(TEXT[37:41], 37, 41, 2)]
    markup = render_html(chunks, TEXT)
    assert markup.count('class="cl-mark"') == 3
    assert 'data-chunks="0 1"' in markup and "cl-overlap" in markup
    assert f'data-chunks="1" style="background:{PALETTE[1]}"' in markup
    assert '<span class="cl-gap">' in markup  # characters 20..37 belong to no chunk
    assert 'data-nchunks="3"' in markup
    assert "title=\"chunk 0 · 11 chars · [0, 11)" in markup


def test_render_attrs_and_truncation() -> None:
    long = "word " * 1000
    chunks = FixedSizeChunker(chunk_size=100)(long)
    markup = render_html(chunks, long, max_chars=300, attrs={"chunker": "fixed", "params": {"size": 100}})
    assert 'data-params="{&quot;size&quot;: 100}"' in markup and 'data-chunker="fixed"' in markup
    assert "showing characters 0 to 300 of 5,000" in markup
    assert len(visible_text(markup.split('<div class="cl-note">')[0] + "</div>")) == 300


def test_render_a_window_from_an_offset() -> None:
    chunks = [Chunk(TEXT[0:11], 0, 11, 0), Chunk(TEXT[12:36], 12, 36, 1)]
    markup = render_html(chunks, TEXT, offset=6, max_chars=20)
    assert visible_text(markup.split('<div class="cl-note">')[0]) == TEXT[6:26]
    assert markup.count('class="cl-mark"') == 1  # chunk 0 starts before the window
    assert "showing characters 6 to 26 of 52" in markup


def test_stats_count_cuts_overlap_and_coverage() -> None:
    text = "One two three. Four five six."
    chunks = [Chunk(text[0:9], 0, 9, 0), Chunk(text[4:22], 4, 22, 1)]
    stats = chunk_stats(chunks, text)
    assert stats["chunks"] == 2 and stats["size_min"] == 9 and stats["size_max"] == 18
    assert stats["overlap_chars"] == 5  # "two t" is in both chunks
    assert stats["words_cut"] == 2  # "three." cut at 9, "five" cut at 22
    assert stats["sentences_cut"] == 2
    assert abs(stats["coverage"] - 18 / 24) < 1e-9  # 18 of 24 non-space characters are covered
    assert "2 chunks" in stats_line(stats) and "2/2 sentences cut" in stats_line(stats)


def test_stats_of_nothing() -> None:
    stats = chunk_stats([], "")
    assert stats["chunks"] == 0 and stats["coverage"] == 1.0


def test_show_and_histogram() -> None:
    chunks = FixedSizeChunker(chunk_size=10)(TEXT)
    assert "chunklab-view" in show(chunks, TEXT).data
    ax = size_histogram(chunks)
    assert sum(p.get_height() for p in ax.patches) == len(chunks)


def test_colour_by_a_metadata_value_with_a_legend() -> None:
    chunks = [
        Chunk(TEXT[0:11], 0, 11, 0, {"kind": "a"}),
        Chunk(TEXT[12:36], 12, 36, 1, {"kind": "b"}),
        Chunk(TEXT[37:52], 37, 52, 2, {"kind": "a"}),
    ]
    markup = render_html(chunks, TEXT, colour_by="kind", colours={"b": "#123456"})
    assert 'data-chunks="1" style="background:#123456"' in markup
    first, third = (re.search(f'data-chunks="{i}" style="background:([^"]+)"', markup).group(1) for i in (0, 2))
    assert first == third != "#123456"  # same value, same colour, whatever the position
    assert 'data-colour-by="kind"' in markup and markup.count('class="cl-key"') == 2
    assert visible_text(markup) == TEXT  # the legend sits above the text
