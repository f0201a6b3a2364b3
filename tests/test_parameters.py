"""Each parameter is declared once (its type hint and its `Param`, made into a `Constraint`), and
validation, the command line and the explorer all read that one declaration; a value set directly
on an attribute is refused when the chunker runs."""

from __future__ import annotations

import inspect
from typing import Annotated

import numpy as np
import pytest

from chunklab import CHUNKERS, Chunker, ParameterError
from chunklab.constraints import Callables, Choice, Flag, NameOrObject, Number, Param, Text, TextList
from chunklab.pipeline.cli import main, make_chunker, parse_value
from chunklab.strategies.fixed import FixedSizeChunker
from chunklab.viz.controls import control_specs

NAMES = sorted(CHUNKERS)


def _declared(cls: type) -> list[tuple[str, object, object]]:
    """``(name, constraint, default)`` of every parameter of `cls`."""
    specs = cls.param_specs()
    return [(name, constraint, specs[name].default) for name, constraint in cls.constraints().items()]


def _refused_value(constraint: object) -> object:
    """A value `constraint` refuses: just outside its interval, no option, or the wrong type."""
    if isinstance(constraint, Number):
        return constraint.low - 1 if constraint.low is not None else "not a number"
    if isinstance(constraint, Choice):
        return "no-such-option"
    return 42 if isinstance(constraint, (Callables, Text, TextList, Flag)) else None


@pytest.mark.parametrize("name", NAMES)
def test_constructors_are_keyword_only(name: str) -> None:
    parameters = list(inspect.signature(CHUNKERS[name].__init__).parameters.values())[1:]
    assert parameters and all(p.kind is p.KEYWORD_ONLY for p in parameters)


@pytest.mark.parametrize("name", NAMES)
def test_validation_reads_the_declaration(name: str) -> None:
    cls = CHUNKERS[name]
    for param, constraint, default in _declared(cls):
        assert constraint.problem(default) is None, f"{name}.{param}: the default breaks its own constraint"
        bad = _refused_value(constraint)
        if bad is None:
            continue
        with pytest.raises(ParameterError) as error:
            cls(**{param: bad})
        message = str(error.value)
        assert f"'{param}'" in message and constraint.problem(bad) in message, message
        if isinstance(constraint, Number) and constraint.low is not None:
            assert constraint.problem(constraint.low) is None
            assert constraint.interval() in message


@pytest.mark.parametrize("name", NAMES)
def test_the_command_line_reads_the_declaration(name: str, capsys: pytest.CaptureFixture) -> None:
    cls = CHUNKERS[name]
    assert main(["strategies"]) == 0
    listing = capsys.readouterr().out
    for param, constraint, default in _declared(cls):
        shown = constraint.show(default)
        assert f"--param {param}={shown}    {constraint.describe()}" in listing, f"{name}.{param}"
        if isinstance(constraint, Number) and (constraint.low, constraint.high) != (None, None):
            assert constraint.interval() in constraint.describe()
        if isinstance(constraint, Choice):
            assert all(str(option) in constraint.describe() for option in constraint.options)
        if constraint.settable:
            assert parse_value(constraint, shown) == default, f"{name}.{param}: {shown!r} does not parse back"
            assert make_chunker(name, [f"{param}={shown}"]) == cls()
        else:
            assert "command line cannot" in constraint.describe()


@pytest.mark.parametrize("name", NAMES)
def test_the_explorer_reads_the_declaration(name: str) -> None:
    cls = CHUNKERS[name]
    specs = control_specs(cls)
    for param, constraint, default in _declared(cls):
        spec = specs[param]
        shown_only = constraint.optional or (isinstance(constraint, NameOrObject) and not isinstance(default, str))
        assert spec.kind == ("fixed" if shown_only else constraint.control), f"{name}.{param}"
        if spec.kind in ("int", "float"):
            assert constraint.problem(spec.low) is None and constraint.problem(spec.high) is None, (
                f"{name}.{param}: the slider [{spec.low}, {spec.high}] leaves the declared {constraint.interval()}"
            )
        if spec.kind == "choice":
            assert tuple(spec.options) == tuple(constraint.options)


class Narrow(Chunker):
    """Windows of `chunk_size` characters, declared in [10, 50] with a slider of 20 to 2,000."""

    name = "narrow_test_only"

    def __init__(self, *, chunk_size: Annotated[int, Param(low=10, high=50, slider=(20, 2000, 10))] = 20) -> None:
        self.chunk_size = chunk_size
        self.validate()

    def spans(self, text):
        yield from ((i, min(i + self.chunk_size, len(text))) for i in range(0, len(text), self.chunk_size))


class NarrowWithoutSlider(Narrow):
    """`Narrow` with the interval alone."""

    def __init__(self, *, chunk_size: Annotated[int, Param(low=10, high=50)] = 20) -> None:
        super().__init__(chunk_size=chunk_size)


def test_a_changed_declaration_changes_all_three() -> None:
    with pytest.raises(ParameterError, match=r"'chunk_size' must be in \[10, 50\], got 60"):
        Narrow(chunk_size=60)
    constraint = Narrow.constraints()["chunk_size"]
    assert constraint.describe() == "int in [10, 50]"
    spec = control_specs(Narrow, chunk_size=20)["chunk_size"]
    assert (spec.kind, spec.low, spec.high) == ("int", 20, 50), "the teaching range (20 to 2,000) kept inside [10, 50]"
    spec = control_specs(NarrowWithoutSlider, chunk_size=20)["chunk_size"]
    assert (spec.kind, spec.low, spec.high) == ("int", 10, 50), "without a teaching range: the declared interval"


def test_an_attribute_set_directly_is_checked_when_the_chunker_runs() -> None:
    chunker = FixedSizeChunker(chunk_size=100)
    chunker.chunk_overlap = 500
    with pytest.raises(ParameterError, match="chunk_overlap"):
        chunker("word " * 400)
    with pytest.raises(ParameterError, match="chunk_overlap"):
        chunker("word " * 400)  # a refused state stays refused
    chunker.chunk_overlap = 10
    assert len(chunker("word " * 400)) == 23
    chunker.unit = "lightyears"
    with pytest.raises(ParameterError, match=r"'unit' must be one of \['chars', 'words', 'tokens'\]"):
        chunker("word " * 10)
    chunker.unit = "chars"
    chunker.tokenizer = np.arange(3)  # compared with the validated value, `==` gives an array
    with pytest.raises(ParameterError, match="tokenizer"):
        chunker("word " * 10)


@pytest.mark.parametrize("name", NAMES)
def test_every_chunker_refuses_a_bad_attribute_when_it_runs(name: str) -> None:
    chunker = CHUNKERS[name]()
    chunker("A first sentence. A second one.")
    constraint = chunker.constraints()["chunk_size"]
    chunker.chunk_size = constraint.low - 1
    with pytest.raises(ParameterError, match="chunk_size"):
        chunker("A first sentence. A second one.")


def test_objects_are_checked_by_their_declaration_not_by_hand() -> None:
    from collections.abc import Sequence
    from typing import Annotated, Any

    from chunklab.constraints import HasMethods, InstanceOf, Items, Objects, constraint_for
    from chunklab.integrations.wrapped import LangChainChunker, LlamaIndexChunker
    from chunklab.strategies.granularities import Granularities
    from chunklab.strategies.steps import Pipeline

    splitter = constraint_for(Annotated[Any, HasMethods(methods=("split_text",), what="a splitter")])
    assert splitter.problem(object()) == "must be a splitter (an object with split_text)"
    assert splitter.problem(type("S", (), {"split_text": lambda self, t: [t]})()) is None
    assert splitter.problem(type("S", (), {"split_text": "not callable"})()) is not None
    assert constraint_for(FixedSizeChunker) == InstanceOf(kinds=(FixedSizeChunker,))
    assert constraint_for(FixedSizeChunker).problem(FixedSizeChunker()) is None
    assert constraint_for(FixedSizeChunker).problem("fixed") == "must be a FixedSizeChunker instance"
    items = constraint_for(Sequence[FixedSizeChunker])
    assert items == Items(each=InstanceOf(kinds=(FixedSizeChunker,)))
    assert items.problem([FixedSizeChunker(), 3]) == "item 1 must be a FixedSizeChunker instance"
    assert items.problem("text") == "must be a tuple or list" and items.problem(()) is None
    assert isinstance(constraint_for(Any), Objects) and constraint_for(Any).problem(3) is None
    # the chunkers that wrap objects check them through these constraints
    assert isinstance(LangChainChunker.constraints()["text_splitter"], HasMethods)
    assert isinstance(LlamaIndexChunker.constraints()["node_parser"], HasMethods)
    assert Pipeline.constraints()["chunker"] == InstanceOf(kinds=(Chunker,))
    assert Granularities.constraints()["chunkers"].min_items == 2
    for make, message in [
        (lambda: LangChainChunker(3), "'text_splitter' must be a LangChain TextSplitter"),
        (lambda: LlamaIndexChunker(None), "'node_parser' must be a LlamaIndex NodeParser"),
        (lambda: Granularities([FixedSizeChunker()]), "'chunkers' must be a tuple or list of at least 2"),
        (lambda: Granularities([FixedSizeChunker(), "x"]), "'chunkers' item 1 must be a Chunker instance"),
    ]:
        with pytest.raises(ParameterError, match=message):
            make()
