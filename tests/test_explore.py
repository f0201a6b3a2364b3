"""Tests of `explore`: controls from signatures, pure rendering, the live widget callback, controls
that follow the state (disabled when inactive, sizes in the unit, ranges by choice), and explorers
that open where their main control moves the boundaries."""

from __future__ import annotations

import enum
import json
import re
from typing import Annotated, Callable, Literal

import pytest

from chunklab import CHUNKERS, Chunker, explore, load_document
from chunklab.constraints import Param
from chunklab.core import ParameterError
from chunklab.strategies import FixedSizeChunker
from chunklab.viz.controls import ControlSpec, chars_per_unit, rescaled, snapped
from chunklab.viz.explorer import control_specs
from chunklab.viz.start_check import check_start, visible_boundaries

TEXT = "The tide turned at noon. Gulls rose over the pier, and the boats came home. " * 20


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Every(Chunker):
    """One parameter of each kind, for the control mapping."""

    name = "every"

    def __init__(
        self,
        count: Annotated[int, Param(low=2, high=50)] = 10,
        ratio: Annotated[float, Param(low=0.0, high=1.0)] = 0.5,
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
    slider = FixedSizeChunker.declarations()["chunk_size"].slider
    assert (specs["chunk_size"].low, specs["chunk_size"].high, specs["chunk_size"].step) == slider == (20, 2000, 10)
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


# -- what a chunker declares for its controls --------------------------------------------------------------
NAMES = sorted(CHUNKERS)


@pytest.mark.parametrize("name", NAMES)
def test_declarations_name_real_parameters_and_options(name: str) -> None:
    """What each `Param` declares (when it acts, sizes counted in the unit, ranges by choice) and
    `main_control` refer to values the deciding parameters can take and to sliders (that they name
    parameters the chunker has is checked when the class is made)."""
    cls = CHUNKERS[name]
    specs = control_specs(cls)
    unit = [param for param, declared in cls.declarations().items() if declared.size_measure == "unit"]
    for param, declared in cls.declarations().items():
        for decider, values in declared.active_when.items():
            assert specs[decider].kind == "choice" and set(values) <= set(specs[decider].options), (param, decider)
        if declared.counted_in_unit:
            assert specs[param].kind == "int" and specs[unit[0]].kind == "choice", f"{name}: {param!r} in the unit"
        if declared.slider_by is not None:
            decider, table = declared.slider_by
            assert specs[param].kind in ("int", "float") and set(table) <= set(specs[decider].options)
            assert all(low <= start <= high for low, high, _, start in table.values())
    assert specs[cls.main_control].kind in ("int", "float"), f"{name}.main_control must be a slider"


@pytest.mark.parametrize("name", [n for n in NAMES if {"unit", "tokenizer"} <= set(CHUNKERS[n].param_specs())])
def test_a_tokenizer_acts_only_on_sizes_in_tokens(name: str) -> None:
    cls = CHUNKERS[name]
    assert cls.declarations()["tokenizer"].active_when == {"unit": ("tokens",)}
    assert not cls.is_active("tokenizer", {"unit": "chars"}) and cls.is_active("tokenizer", {"unit": "tokens"})
    assert cls.active_condition("tokenizer") == "only with unit=tokens"


def _tripwire(texts):
    raise AssertionError("the embedder was called although it was declared inactive")


#: For each declared dependency: a state where the parameter is inactive, and two of its values.
INACTIVE = [
    ("fixed", {"unit": "chars"}, "tokenizer", ("minilm", "cl100k")),
    ("sentence", {"unit": "words"}, "tokenizer", ("minilm", "cl100k")),
    ("sliding_window", {"unit": "sentences"}, "tokenizer", ("minilm", "cl100k")),
    ("fixed", {"unit": "words"}, "snap_to_words", (False, True)),
    ("hierarchical", {"parents": "structure"}, "similarity", (0.0, 0.9)),
    ("hierarchical", {"parents": "structure"}, "embedder", (None, _tripwire)),
    ("hybrid", {"prose": "sentences"}, "embedder", (None, _tripwire)),
    ("entity", {"group_by": "paragraphs"}, "min_chunk_size", (0, 500)),
    ("topic", {"method": "texttiling"}, "n_topics", (2, 9)),
    ("topic", {"method": "texttiling"}, "buffer", (0, 6)),
    ("topic", {"method": "texttiling"}, "min_sentences", (1, 9)),
    ("topic", {"method": "nmf"}, "block", (3, 20)),
]


@pytest.mark.parametrize("name, state, param, values", INACTIVE, ids=lambda v: v if isinstance(v, str) else "")
def test_a_parameter_declared_inactive_changes_nothing(name: str, state: dict, param: str, values: tuple) -> None:
    """The declarations are true: where a parameter is declared inactive, its value does not change
    the chunks of a corpus document (an embedder declared inactive is never even called)."""
    cls = CHUNKERS[name]
    assert not cls.is_active(param, state)
    text = load_document("article").text[:12_000]
    first, second = (cls(**state, **{param: value})(text) for value in values)
    assert [(c.start, c.end) for c in first] == [(c.start, c.end) for c in second]


# -- the explorer follows the state -------------------------------------------------------------------------
def test_controls_that_change_nothing_are_disabled_and_follow_their_deciding_control() -> None:
    explorer = explore(FixedSizeChunker, TEXT)
    explorer.widget
    tokenizer = explorer.controls["tokenizer"]
    assert tokenizer.disabled and "only with unit=tokens" in tokenizer.tooltip
    assert not explorer.controls["snap_to_words"].disabled
    explorer.controls["unit"].value = "words"
    assert tokenizer.disabled and explorer.controls["snap_to_words"].disabled
    explorer.controls["unit"].value = "tokens"
    assert not tokenizer.disabled and tokenizer.tooltip is None and not explorer.controls["snap_to_words"].disabled
    assert explorer.inactive() == {}


def test_the_main_control_comes_first_and_is_named_in_the_view() -> None:
    explorer = explore(CHUNKERS["paragraph"], TEXT)
    explorer.widget
    assert list(explorer.controls)[0] == "min_chunk_size" == explorer.main
    assert 'data-main="min_chunk_size"' in explorer.output.value
    assert explore(FixedSizeChunker, TEXT, main="chunk_overlap").main == "chunk_overlap"
    with pytest.raises(ValueError, match="not a slider"):
        explore(FixedSizeChunker, TEXT, main="unit")
    markup = explore(FixedSizeChunker, TEXT).render()
    assert json.loads(_attr(markup, "active-when")) == {
        "snap_to_words": {"unit": ["chars", "tokens"]}, "tokenizer": {"unit": ["tokens"]}
    }
    assert json.loads(_attr(markup, "in-unit")) == ["chunk_size", "chunk_overlap"]


def _attr(markup: str, name: str) -> str:
    return re.search(rf'data-{name}="([^"]*)"', markup).group(1).replace("&quot;", '"')


def test_size_ranges_and_values_follow_the_unit_and_come_back() -> None:
    text = load_document("article").text
    explorer = explore(FixedSizeChunker, text, chunk_size=(50, 1500, 10), chunk_overlap=80)
    start = dict(explorer.specs)
    per_word, per_token = chars_per_unit(text, "words"), chars_per_unit(text, "tokens", "minilm")
    assert 5 < per_word < 7 and 3.5 < per_token < 5.5  # English prose
    assert explorer.change("unit", "words") == ["chunk_size", "chunk_overlap"]
    size = explorer.specs["chunk_size"]
    assert size.high == pytest.approx(1500 / per_word, abs=size.step) and size.step == 2
    assert size.value == pytest.approx(600 / per_word, abs=size.step / 2 + 1e-9) == explorer.params["chunk_size"]
    assert explorer.specs["chunk_overlap"].value == pytest.approx(80 / per_word, abs=1)
    explorer.change("unit", "tokens")
    assert explorer.specs["chunk_size"].high == pytest.approx(1500 / per_token, abs=2)
    explorer.change("tokenizer", "cl100k")  # in tokens, another tokenizer counts another size
    assert explorer.specs["chunk_size"].high == pytest.approx(1500 / chars_per_unit(text, "tokens", "cl100k"), abs=2)
    explorer.change("unit", "chars")
    assert explorer.specs == start, "switching back restores the ranges and the values the sliders had"
    explorer.change("unit", "words")
    explorer.change("chunk_size", 100)  # the learner moves a slider: the next switch converts the new value
    explorer.change("unit", "chars")
    assert explorer.params["chunk_size"] == round(100 * per_word, -1)
    explorer.change("tokenizer", "minilm")  # in characters, the tokenizer changes no range
    assert explorer.specs["chunk_size"].high == 1500


def test_ranges_given_in_another_unit_stay_in_it() -> None:
    """A range the caller gives is in the starting unit; ranges from the class's hints are in characters."""
    explorer = explore(FixedSizeChunker, TEXT, unit="words", chunk_size=(5, 200, 5))
    assert (explorer.specs["chunk_size"].low, explorer.specs["chunk_size"].high) == (5, 200)
    overlap_high = explorer.specs["chunk_overlap"].high
    assert overlap_high == pytest.approx(500 / chars_per_unit(TEXT, "words"), abs=2)
    explorer.change("unit", "chars")
    assert explorer.specs["chunk_size"].high == pytest.approx(200 * chars_per_unit(TEXT, "words"), abs=10)
    assert explorer.specs["chunk_overlap"].high == 500


def test_the_threshold_range_follows_the_breakpoint_method() -> None:
    explorer = explore(CHUNKERS["semantic"], TEXT, threshold=(50.0, 100.0, 0.5))
    assert explorer.change("method", "gradient") == []  # a percentile too: the caller's range stays
    assert explorer.change("method", "threshold") == ["threshold"]
    spec = explorer.specs["threshold"]
    assert (spec.low, spec.high, spec.value) == (0.0, 2.0, 0.5)
    explorer.change("method", "std_dev")
    assert (explorer.specs["threshold"].high, explorer.params["threshold"]) == (10.0, 3.0)
    assert explorer.change("method", "interquartile") == ["threshold"]  # same range, its own customary value
    assert (explorer.specs["threshold"].high, explorer.params["threshold"]) == (10.0, 1.5)
    explorer.change("threshold", 2.0)  # a value the learner set stays when the range stays
    assert explorer.change("method", "std_dev") == [] and explorer.params["threshold"] == 2.0
    explorer.change("method", "percentile")
    assert explorer.specs["threshold"] == explorer.start_specs["threshold"]
    assert "data-error" not in explorer.render()


def test_a_unit_switch_in_the_widget_moves_the_sliders_and_redraws_once_consistent() -> None:
    explorer = explore(FixedSizeChunker, TEXT, chunk_size=300, chunk_overlap=60)
    explorer.widget
    explorer.controls["unit"].value = "words"
    slider = explorer.controls["chunk_size"]
    assert (slider.min, slider.max, slider.value) == (
        explorer.specs["chunk_size"].low, explorer.specs["chunk_size"].high, explorer.params["chunk_size"]
    )
    assert slider.max < 500 and params_of(explorer.output.value)["chunk_size"] == slider.value
    assert "data-error" not in explorer.output.value
    explorer.controls["unit"].value = "chars"
    assert (slider.max, slider.value, explorer.controls["chunk_overlap"].value) == (2000, 300, 60)


def test_a_slider_moved_by_the_explorer_does_not_report_the_move_back() -> None:
    """The front end may apply a message's value before its range and snap it to the old steps; a
    slider reports its own moves only while ``continuous_update`` is on, so that is off meanwhile."""
    explorer = explore(FixedSizeChunker, TEXT)
    explorer.widget
    sent: list[dict] = []
    explorer.controls["chunk_size"]._send = lambda msg, buffers=None: sent.append(msg["state"])
    explorer.controls["unit"].value = "words"
    assert sent[0] == {"continuous_update": False} and sent[2:] == [{"continuous_update": True}]
    assert set(sent[1]) == {"min", "max", "step", "value"} and sent[1]["value"] == explorer.params["chunk_size"]


def test_rescaled_ranges_end_on_round_steps_and_respect_bounds() -> None:
    spec = ControlSpec("chunk_size", "int", 400, 20, 2000, 10)
    words = rescaled(spec, 1 / 6)
    assert (words.low, words.high, words.step) == (2, 334, 2)
    assert rescaled(spec, 1 / 6, floor=4).low == 4
    assert rescaled(spec, 1 / 120, floor=1) == ControlSpec("chunk_size", "int", 17, 1, 17, 1)
    assert snapped(67.4, words) == 68 and snapped(10_000, words) == 334
    ratio = ControlSpec("similarity", "float", 0.3, 0.0, 1.0, 0.05)
    assert rescaled(ratio, 2).step == 0.1 and snapped(0.33, ratio) == 0.35


# -- the opening state ---------------------------------------------------------------------------------------
#: A corpus document each strategy is made for.
DOCUMENT_FOR = {
    "table": "stations", "page": "report", "keyword": "agreement", "hierarchical": "agreement", "html": "field_guide",
    "entity": "article", "semantic": "article", "semantic_cluster": "article", "topic": "article",
    "sentence": "article", "paragraph": "manual",
}


@pytest.mark.parametrize("name", NAMES)
def test_every_explorer_opens_where_its_main_control_moves_boundaries(name: str) -> None:
    """With the chunker's defaults on a corpus document: a quarter of the main slider's range toward
    the side with more room changes the chunk boundaries drawn."""
    document = load_document(DOCUMENT_FOR.get(name, "manual"))
    check = check_start(explore(CHUNKERS[name], document.text))
    assert check.ok, check.describe()


class Deaf(Chunker):
    """Windows of 100 characters, whatever `count` says."""

    name = "deaf"
    main_control = "count"

    def __init__(self, count: Annotated[int, Param(low=1, high=500)] = 10, other: int = 5):
        self.count, self.other = count, other
        self.validate()

    def check(self):
        if self.other > 9:
            raise ParameterError("Deaf: parameter 'other' must be at most 9")

    def spans(self, text):
        yield from ((i, min(i + 100, len(text))) for i in range(0, len(text), 100))


def test_the_start_check_catches_a_main_control_that_moves_nothing() -> None:
    check = check_start(explore(Deaf, TEXT))  # count from 10 on a slider of 1 to 500, step 4
    assert not check.ok and check.main == "count" and check.decisive == 133
    assert check.tried == ((1, False), (133, False)) and "DEAD START" in check.describe()
    live = check_start(explore(FixedSizeChunker, TEXT, chunk_size=(50, 500, 10)))
    assert live.ok and live.tried == ((390, True),) and live.decisive == 390  # opens at the top: the default 600 is above 500
    broken = check_start(explore(Deaf, TEXT, other=(0, 20, 1), main="other"))
    assert broken.tried == ((0, False), (10, None)) and not broken.ok  # 10 is an error, not a move
    assert visible_boundaries(explore(Deaf, TEXT, max_chars=250)) == ((0, 100), (100, 200), (200, 250))


def test_the_stats_line_counts_the_sentences_of_the_splitter_chosen() -> None:
    """pySBD (like Punkt and spaCy) ends a sentence after "approx." where the regex splitter does not:
    a chunking along pySBD's sentences cuts none of pySBD's sentences, and the explorer says so."""
    from chunklab.strategies import SentenceChunker
    from chunklab.viz.chunks import chunk_stats

    text = "The gauge read approx. 3 metres at dawn. Then it fell. Dr. Okafor left at 6 a.m. sharp."
    chunks = SentenceChunker(sentence_splitter="pysbd", chunk_size=35)(text)
    assert chunk_stats(chunks, text)["sentences_cut"] == 1  # counted against the regex sentences
    assert chunk_stats(chunks, text, "pysbd")["sentences_cut"] == 0
    explorer = explore(SentenceChunker, text, chunk_size=(20, 200, 5))
    explorer.change("chunk_size", 35)
    assert "0/4 sentences cut" in explorer.render(sentence_splitter="pysbd")
    assert "/3 sentences cut" in explorer.render(sentence_splitter="regex")
