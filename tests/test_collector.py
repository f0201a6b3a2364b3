"""The local garbage-collector pause around a parse: it always gives back the collector's state."""

import gc

import pytest

from chunklab.formats.collector import collector_paused
from chunklab.formats.html import html_blocks, html_row_spans
from chunklab.formats.markdown import markdown_blocks


def test_pause_disables_then_restores():
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_pause_restores_after_an_exception():
    with pytest.raises(ValueError):
        with collector_paused():
            raise ValueError("parse failed")
    assert gc.isenabled()


def test_pause_leaves_a_disabled_collector_disabled():
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_markdown_parse_leaves_the_collector_on():
    blocks = markdown_blocks("# Title\n\nA paragraph of a text parsed only by this test, 7f3a.\n")
    assert [b.kind for b in blocks] == ["heading", "paragraph"]
    assert gc.isenabled()


def test_html_parse_leaves_the_collector_on():
    text = "<h1>Title</h1><table><tr><th>a</th></tr><tr><td>1, 9c2e</td></tr></table>"
    assert [b.kind for b in html_blocks(text)] == ["heading", "table"]
    assert [text[s:e] for s, e in html_row_spans(text)] == ["<tr><th>a</th></tr>", "<tr><td>1, 9c2e</td></tr>"]
    assert gc.isenabled()
