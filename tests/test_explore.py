"""Tests of `explore`: controls from signatures, pure rendering, and the live widget callback."""

from __future__ import annotations

import enum
import json
import re
from typing import Callable, Literal

import pytest

from chunklab import CHUNKERS, Chunker, explore
from chunklab.strategies import FixedSizeChunker
from chunklab.viz.explorer import control_specs

TEXT = "The tide turned at noon. Gulls rose over the pier, and the boats came home. " * 20


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Every(Chunker):
    """One parameter of each kind, for the control mapping."""

    name = "every"
    bounds = {"count": (2, 50), "ratio": (0.0, 1.0)}

    def __init__(
        self,
        count: int = 10,
        ratio: float = 0.5,
        mode: Literal["a", "b"] = "a",
        colour: Colour = Colour.RED,
        flag: bool = False,
        hook: Callable[[str], str] | None = None,
    ):
        self.count, self.ratio, self.mode, self.colour, self.flag, self.hook = count, ratio, mode, colour, flag, hook
        self.validate()

    def spans(self, text):
        yield from ((i, min(i + self.count, len(text))) for i in range(0, len(text), self.count))


def params_of(markup: str) -> dict:
    raw = re.search(r'data-params="([^"]*)"', markup).group(1)
    return json.loads(raw.replace("&quot;", '"'))


def nchunks(markup: str) -> int:
    return int(re.search(r'data-nchunks="(\d+)"', markup).group(1))


def test_control_kinds_follow_type_hints() -> None:
    specs = control_specs(Every)
    assert {n: s.kind for n, s in specs.items()} == {
        "count": "int", "ratio": "float", "mode": "choice", "colour": "choice", "flag": "bool", "hook": "fixed"
    }
    assert (specs["count"].low, specs["count"].high) == (2, 50)  # bounds become the slider range
    assert specs["mode"].options == ("a", "b") and specs["colour"].options == tuple(Colour)


def test_ranges_from_hints_and_overrides() -> None:
    specs = control_specs(FixedSizeChunker)
    assert (specs["chunk_size"].low, specs["chunk_size"].high, specs["chunk_size"].step) == FixedSizeChunker.widget_hints["chunk_size"]
    specs = control_specs(FixedSizeChunker, chunk_size=(50, 500, 25), chunk_overlap=30, unit=["words"])
    assert (specs["chunk_size"].low, specs["chunk_size"].high, specs["chunk_size"].step) == (50, 500, 25)
    assert specs["chunk_overlap"].value == 30 and specs["unit"].options == ("words",)
    with pytest.raises(ValueError, match="no parameter"):
        control_specs(FixedSizeChunker, colour=1)


def test_render_is_pure_and_carries_data_hooks() -> None:
    explorer = explore(FixedSizeChunker, TEXT, chunk_size=200)
    first = explorer.render()
    assert params_of(first)["chunk_size"] == 200 and 'data-chunker="fixed"' in first
    assert explorer.render() == first
    smaller = explorer.render(chunk_size=100)
    assert nchunks(smaller) > nchunks(first)
    assert explorer.params["chunk_size"] == 200, "render(**params) does not change the explorer's state"


def test_invalid_combination_renders_the_error() -> None:
    markup = explore(FixedSizeChunker, TEXT).render(chunk_size=100, chunk_overlap=100)
    assert 'data-nchunks="0"' in markup and "data-error=" in markup and "smaller than" in markup


def test_moving_a_slider_rerenders_through_the_widget_callback() -> None:
    explorer = explore(FixedSizeChunker, TEXT, chunk_size=300)
    explorer.widget  # builds the controls
    before = nchunks(explorer.output.value)
    explorer.controls["chunk_size"].value = 100
    after = explorer.output.value
    assert params_of(after)["chunk_size"] == 100 and nchunks(after) > before
    explorer.controls["unit"].value = "words"
    assert params_of(explorer.output.value)["unit"] == "words"


def test_headless_display_includes_static_html() -> None:
    bundle = explore(FixedSizeChunker, TEXT)._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "chunklab-view" in bundle["text/html"]


@pytest.mark.parametrize("name", sorted(CHUNKERS))
def test_every_registered_chunker_can_be_explored(name: str) -> None:
    cls = CHUNKERS[name]
    markup = explore(cls, TEXT).render()
    assert "data-error" not in markup
    start_values = {param: spec.value for param, spec in control_specs(cls).items()}
    assert nchunks(markup) == len(cls(**start_values)(TEXT))


class Keyed(Chunker):
    """Cuts before every keyword; for the text-box controls."""

    name = "keyed"

    def __init__(self, keywords: tuple[str, ...] = ("tide",), note: str = ""):
        self.keywords, self.note = keywords, note
        self.validate()

    def spans(self, text):
        cuts = sorted({0, len(text), *(i for k in self.keywords for i in range(len(text)) if text.startswith(k, i))})
        yield from ((a, b) for a, b in zip(cuts, cuts[1:]) if text[a:b].strip())


def test_text_parameters_get_text_boxes_and_commas_split_tuples():
    specs = control_specs(Keyed, keywords="Gulls, boats")
    assert specs["keywords"].kind == "text" and specs["keywords"].value == ("Gulls", "boats")
    assert specs["note"].kind == "text" and specs["note"].value == ""
    explorer = explore(Keyed, TEXT)
    explorer.widget
    before = nchunks(explorer.output.value)
    explorer.controls["keywords"].value = "tide, Gulls ,, boats"
    assert explorer.params["keywords"] == ("tide", "Gulls", "boats")
    assert params_of(explorer.output.value)["keywords"] == ["tide", "Gulls", "boats"]
    assert nchunks(explorer.output.value) > before
    with pytest.raises(ValueError, match="tuple of str"):
        Keyed(keywords="tide")
