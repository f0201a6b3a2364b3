"""Sentence boundaries drawn: a gold passage beside each splitter's sentences, errors marked."""

from __future__ import annotations

import html
from typing import Mapping, Sequence

from ..evaluation.sentence_boundaries import GoldPassage, boundaries
from ..text.spans import Span
from .chunks import PALETTE

__all__ = ["boundaries_html"]


def boundaries_html(passage: GoldPassage, predictions: Mapping[str, Sequence[Span]]) -> str:
    """The passage once per splitter (and once as the gold standard), sentences in alternating
    colours, with every false boundary marked by a red ``✂`` and every missed one by an orange ``▲``.
    """
    gold = passage.boundaries()
    rows = [_row_html("gold", passage.text, passage.sentences, gold, gold)]
    rows += [_row_html(name, passage.text, spans, boundaries(spans), gold) for name, spans in predictions.items()]
    traps = html.escape(", ".join(passage.traps))
    return (
        '<div class="chunklab-sentences" style="font-size:13px;line-height:1.7;margin:0 0 10px">'
        f'<div style="font-weight:600">{html.escape(passage.id)} <span style="font-weight:400;color:#666">'
        f"({traps})</span></div>"
        '<table style="border-collapse:collapse">' + "".join(rows) + "</table></div>"
    )


_FALSE = '<span title="false boundary" style="color:#c00;font-weight:700">✂</span>'
_MISSED = '<span title="missed boundary" style="color:#e07000;font-weight:700">▲</span>'


def _row_html(name: str, text: str, spans: Sequence[Span], found: set[int], gold: set[int]) -> str:
    pieces, pos = [], 0
    for i, (start, end) in enumerate(spans):
        pieces.append(_marked(text, pos, start, found, gold))
        colour = PALETTE[i % 2]
        pieces.append(f'<span style="background:{colour}">{_marked(text, start, end, found, gold)}</span>')
        if end in found and end not in gold:
            pieces.append(_FALSE)
        pos = end
    pieces.append(_marked(text, pos, len(text), found, gold))
    errors = len(found ^ gold)
    label = f"{html.escape(name)}" + (f' <span style="color:#c00">({errors} wrong)</span>' if errors else " ✓")
    return (
        '<tr><td style="vertical-align:top;padding:2px 8px 2px 0;white-space:nowrap;'
        f'font-family:monospace;width:9em">{label}</td>'
        f'<td style="white-space:pre-wrap;padding:2px 0">{"".join(pieces)}</td></tr>'
    )


def _marked(text: str, start: int, end: int, found: set[int], gold: set[int]) -> str:
    """``text[start:end]`` escaped, with a ``▲`` after every gold boundary inside it not in `found`."""
    out, pos = [], start
    for cut in sorted(b for b in gold - found if start < b <= end):
        out.append(html.escape(text[pos:cut]))
        out.append(_MISSED)
        pos = cut
    out.append(html.escape(text[pos:end]))
    return "".join(out)
