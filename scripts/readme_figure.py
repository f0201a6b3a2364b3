"""Draw the README's picture, docs/readme.png: a chunking drawn on the text, and the comparison curve.

Left: the recursive chunker's chunks on the opening of the corpus manual, each chunk in its own
colour (the picture `chunklab.show` draws in a notebook). Right: the share of test questions
answered against the text sent per question, for four strategies with BM25 (notebook 16 draws the
same curve for every strategy and both retrievers). Everything is computed here, from the corpus.

Usage: ``python scripts/readme_figure.py [OUT]`` (default: docs/readme.png). About 20 s.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from chunklab import CHUNKERS, compare, list_documents, load_document  # noqa: E402
from chunklab.evaluation import curve  # noqa: E402
from chunklab.viz.chunks import PALETTE  # noqa: E402
from chunklab.viz.leaderboard import FRONT_COLOURS  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
STRATEGIES = ("fixed", "sentence", "recursive", "hybrid")
BUDGETS = (250, 500, 1000, 2000, 4000)
WIDTH = 64  # characters per drawn line
EXCERPT = 900  # characters of the manual drawn


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each drawn line: the text's own lines, wrapped at `WIDTH` characters."""
    spans, start = [], 0
    for piece in text.split("\n"):
        for offset in range(0, max(len(piece), 1), WIDTH):
            spans.append((start + offset, start + min(offset + WIDTH, len(piece))))
        start += len(piece) + 1
    return spans


def draw_chunks(ax, text: str, chunks) -> None:
    """`text` in a monospace grid, each chunk's characters on its colour."""
    colour_at = {}
    for chunk in chunks:
        for i in range(chunk.start, min(chunk.end, len(text))):
            colour_at[i] = PALETTE[chunk.index % len(PALETTE)]
    lines = _lines(text)
    for row, (start, end) in enumerate(lines):
        y = len(lines) - row
        for i in range(start, end):
            if i in colour_at:
                ax.add_patch(Rectangle((i - start, y - 0.45), 1, 0.9, color=colour_at[i], linewidth=0))
        for i in range(start, end):  # one character per cell, so the colours stay under their text
            ax.text(i - start + 0.5, y, text[i], family="monospace", fontsize=7, ha="center", va="center")
    ax.set_xlim(0, WIDTH)
    ax.set_ylim(0, len(lines) + 1)
    ax.axis("off")
    ax.set_title(f"RecursiveChunker(chunk_size=200) on the manual: {len(chunks)} chunks", fontsize=10)


def draw_curve(ax) -> None:
    chunkers = {name: CHUNKERS[name]() for name in STRATEGIES}
    result = compare(chunkers, list_documents(), retrievers=("bm25",), budget=list(BUDGETS), split="test",
                     progress=False)
    table = curve(result, "bm25", "answered", "test")
    for colour, name in zip(FRONT_COLOURS, table.columns):
        ax.plot(table.index, table[name], marker="o", markersize=3.5, color=colour, label=name)
    ax.set_xscale("log")
    ax.set_xticks(list(table.index), [f"{b:,}" for b in table.index])
    ax.minorticks_off()
    ax.set(xlabel="characters sent per question (log scale)", ylabel="share of test questions answered")
    ax.set_title("BM25, the same budget of text for every strategy", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)


def main(out: Path) -> None:
    manual = load_document("manual")
    text = manual.text[:EXCERPT]
    chunks = CHUNKERS["recursive"](chunk_size=200)(text)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.4), gridspec_kw={"width_ratios": [1.25, 1]})
    draw_chunks(left, text, chunks)
    draw_curve(right)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=90)
    print(f"wrote {out} ({out.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "readme.png")
