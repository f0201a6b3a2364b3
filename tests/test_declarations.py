"""A parameter's one declaration, `chunklab.constraints.Param` in its ``__init__`` hint: a class that
declares one elsewhere, or names a parameter it does not have, is refused when it is made; and what
every registered chunker's declarations give the explorer and the command line is held to a record,
``tests/fixtures/explorer_controls.json``, written before the declarations moved from class
attributes to one record per parameter, so a change to how they are declared cannot change a
control, a range, a condition or a description unnoticed.

Rewrite the record (``python tests/test_declarations.py``) only for a change meant to change what
the learner sees, and say so in the commit."""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest

from chunklab import CHUNKERS
from chunklab.constraints import Param
from chunklab.core import Chunker
from chunklab.metadata import plain
from chunklab.viz.chunks import render_html
from chunklab.viz.explorer import Explorer

RECORD = Path(__file__).parent / "fixtures" / "explorer_controls.json"

#: The text the explorers open on: sizes in words and tokens are rescaled by its own ratios.
TEXT = (
    "The harbour cache keeps a copy of every page it serves. When a page changes upstream, the cache "
    "notices within a minute and fetches it again. Administrators can pin a page, which keeps the old "
    "copy until the pin is lifted.\n\n"
    "Each node reports its hit rate, its disk use and the age of its oldest entry. A node that falls "
    "behind is taken out of the rotation; it rejoins once it has caught up. The dashboard shows the "
    "rotation as a ring.\n\n"
) * 6


def _plain(value: Any) -> Any:
    """A JSON value for `value` (a tokenizer object or a callable by its type's name)."""
    value = plain(value)
    if isinstance(value, (str, int, float, bool, type(None))):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return f"<{type(value).__name__}>"


def _controls(explorer: Explorer) -> list[list[Any]]:
    """Every control as ``[name, kind, low, high, step, value, options]``."""
    return [
        [s.name, s.kind, s.low, s.high, s.step, _plain(s.value), _plain(list(s.options))]
        for s in explorer.specs.values()
    ]


# -- one place to declare a parameter -----------------------------------------------------------------
class Windows(Chunker):
    """Windows of `size` characters, or of `size` words, with a `note` that changes nothing unless
    `unit` is words: the declarations the refusals below get wrong one at a time."""

    def __init__(
        self,
        *,
        size: Annotated[int, Param(low=1, slider=(1, 100, 1), counted_in_unit=True)] = 10,
        unit: Annotated[Literal["chars", "words"], Param(size_measure="unit")] = "chars",
        note: Annotated[str, Param(active_when={"unit": ("words",)})] = "",
    ) -> None:
        self.size, self.unit, self.note = size, unit, note
        self.validate()

    def spans(self, text: str) -> Any:
        yield from ((i, min(i + self.size, len(text))) for i in range(0, len(text), self.size))


def test_a_chunker_reads_its_declarations_in_one_place() -> None:
    declared = Windows.declarations()
    assert declared["size"] == Param(low=1, slider=(1, 100, 1), counted_in_unit=True)
    assert declared["note"].active_when == {"unit": ("words",)} and declared["unit"].size_measure == "unit"
    assert Windows.constraints()["size"].describe() == "int in [1, inf]"
    assert not Windows.is_active("note", {"unit": "chars"}) and Windows.is_active("note", {"unit": "words"})
    assert Windows.active_condition("note") == "only with unit=words" and Windows.active_condition("size") == ""
    assert Windows.size_measure({"unit": "words"}) == ("words", None)
    assert Explorer(Windows, TEXT).change("unit", "words") == ["size"], "the size follows the unit"
    with pytest.raises(ValueError, match=r"'size' must be in \[1, inf\], got 0"):
        Windows(size=0)


@pytest.mark.parametrize("old", ["bounds", "widget_hints", "widget_hints_by", "active_when", "measured_in_unit"])
def test_a_parameter_declared_in_a_class_attribute_is_refused(old: str) -> None:
    with pytest.raises(TypeError, match=rf"\['{old}'\] of Leftover declare parameters the old way"):
        class Leftover(Windows):
            """`Windows` with a declaration left over from before `Param`."""

            locals()[old] = {"size": (1, None)}


def test_a_declaration_the_class_inherits_from_a_mixin_is_refused() -> None:
    class Mixin:
        """Slider ranges as class attributes, as a mixin once supplied them."""

        widget_hints = {"size": (1, 100, 1)}

    with pytest.raises(TypeError, match=r"\['widget_hints'\] of Mixin declare parameters the old way"):
        class Mixed(Mixin, Windows):
            """`Windows` with a mixin's old declarations."""


def test_a_param_on_a_class_attribute_is_refused() -> None:
    with pytest.raises(TypeError, match="class attribute 'size' of Misplaced holds a Param"):
        class Misplaced(Windows):
            """A `Param` where nothing reads it: on a class attribute, not an ``__init__`` argument."""

            size: Annotated[int, Param(low=5)]


@pytest.mark.parametrize(("declaration", "message"), [
    ("Param(active_when={'mode': ('a',)})", r"the Param of 'extra' names \['mode'\], which are not parameters"),
    ("Param(slider_by=('method', {'a': (0, 1, 0.1, 0.5)}))", r"names \['method'\], which are not parameters"),
    ("Param(slider=(0, 10, 1))", "gives slider, but 'extra' is not a number"),
    ("Param(size_measure='unit')", r"\['unit', 'extra'\] are all declared size_measure='unit'"),
    ("Param(low=1)", r"bounds \(1, None\) given for a parameter of type .*str.*, which is not a number"),
])
def test_a_param_that_does_not_fit_its_class_is_refused(declaration: str, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        _windows_with("extra", f"Annotated[str, {declaration}]")


def test_a_param_on_keyword_arguments_or_a_main_control_that_is_no_parameter_is_refused() -> None:
    with pytest.raises(TypeError, match=r"the Param on \*rest declares nothing"):
        class Rest(Windows):
            """Parameters by ``**rest``, which the declarations cannot see."""

            def __init__(self, **rest: Annotated[int, Param(low=1)]) -> None:
                super().__init__(**rest)
    with pytest.raises(TypeError, match="main_control 'count' is not a parameter"):
        class Elsewhere(Windows):
            """A main control that names no parameter."""

            main_control = "count"
    with pytest.raises(TypeError, match=r"\['size'\] are declared counted_in_unit, but no parameter is declared"):
        _windows_with("unit", "Literal['chars', 'words']")


def test_a_hint_that_cannot_be_read_yet_is_checked_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hint may name what its module defines after the class: the class is made, and the checks
    run when its declarations are first read."""
    early = _windows_with("extra", "Annotated[_Later, Param(active_when={'mode': ('a',)})]")
    monkeypatch.setitem(globals(), "_Later", int)
    with pytest.raises(TypeError, match=r"names \['mode'\], which are not parameters"):
        early.declarations()


@pytest.mark.parametrize("name", sorted(CHUNKERS))
def test_the_parameters_passed_to_the_view_are_those_it_was_given_by_name(name: str) -> None:
    """The explorer once passed on every parameter named as a keyword-only option of `render_html`
    (but the two it sets itself); now each declares it (``Param(view_option=...)``), and the same
    ones do, to the option of their own name."""
    options = {n for n, p in inspect.signature(render_html).parameters.items() if p.kind is p.KEYWORD_ONLY}
    by_name = {p: p for p in CHUNKERS[name].param_specs() if p in options - {"max_chars", "attrs"}}
    declared = {p: d.view_option for p, d in CHUNKERS[name].declarations().items() if d.view_option}
    assert declared == by_name


def _windows_with(name: str, hint: str) -> type[Chunker]:
    """A subclass of `Windows` whose parameter `name` (a new one, or one of its own) has type hint
    `hint` (as written in this module, with ``from __future__ import annotations``)."""
    params = {"size": "Annotated[int, Param(low=1, slider=(1, 100, 1), counted_in_unit=True)]",
              "unit": "Annotated[Literal['chars', 'words'], Param(size_measure='unit')]", name: hint}
    source = (f"def __init__(self, *, {', '.join(f'{n}: {h} = None' for n, h in params.items())}) -> None:\n"
              f"    self.__dict__.update({{{', '.join(f'{n!r}: {n}' for n in params)}}})\n")
    namespace: dict[str, Any] = {}
    exec(compile("from __future__ import annotations\n" + source, __file__, "exec"), globals(), namespace)
    return type("Changed", (Windows,), {"__init__": namespace["__init__"], "__doc__": "`Windows`, one hint changed."})


def snapshot(cls: type[Chunker]) -> dict[str, Any]:
    """What the explorer and the command line show of `cls`: its controls at the start, the main one,
    the inactive ones and the conditions, the data hooks, each parameter's description, and the
    controls that follow when every option of every choice is picked in turn (the unit, a method)."""
    explorer = Explorer(cls, TEXT)
    attrs = explorer._attrs(explorer.params)
    record: dict[str, Any] = {
        "controls": _controls(explorer),
        "main": explorer.main,
        "inactive": explorer.inactive(),
        "active_when": _plain(attrs["active-when"]),
        "in_unit": attrs["in-unit"],
        "size_measure": _plain(list(cls.size_measure(explorer.params))),
        "described": {name: c.describe() for name, c in cls.constraints().items()},
        "conditions": {name: cls.active_condition(name) for name in cls.param_specs()},
        "follows": [],
    }
    choices = {name: spec.options for name, spec in explorer.specs.items() if spec.kind == "choice"}
    for name, options in choices.items():
        for option in [*options[1:], options[0]]:
            record["follows"].append(_step(explorer, name, option))
            if option == options[0]:
                continue
            # with this choice made, every other choice in turn (the tokenizer while sizes are tokens)
            for other, others in choices.items():
                if other != name:
                    record["follows"] += [_step(explorer, other, o) for o in [*others[1:], others[0]]]
    return record


def _step(explorer: Explorer, name: str, option: Any) -> list[Any]:
    """Set the control `name` to `option`: ``[name, option, the controls that followed (as
    `_controls` gives them), the inactive controls, the size measure]``."""
    changed = explorer.change(name, option)
    return [
        name,
        _plain(option),
        [c for c in _controls(explorer) if c[0] in changed],
        sorted(explorer.inactive()),
        _plain(list(explorer.chunker_class.size_measure(explorer.params))),
    ]


def snapshots() -> dict[str, Any]:
    """`snapshot` of every registered chunker, by name."""
    return {name: snapshot(CHUNKERS[name]) for name in sorted(CHUNKERS)}


def _recorded() -> dict[str, Any]:
    return json.loads(RECORD.read_text(encoding="utf-8"))


def test_the_record_covers_every_registered_chunker() -> None:
    assert sorted(_recorded()) == sorted(CHUNKERS)


def _comparable(record: dict[str, Any]) -> dict[str, Any]:
    """`record` through JSON, as recorded (a tuple and a list compare alike), with the sizes in the
    unit as a set: the explorer rescales each on its own, and the browser test reads them as a set."""
    record = json.loads(json.dumps(record))
    return {**record, "in_unit": sorted(record["in_unit"])}


@pytest.mark.parametrize("name", sorted(CHUNKERS))
def test_the_explorer_and_the_command_line_show_what_they_showed(name: str) -> None:
    assert _comparable(snapshot(CHUNKERS[name])) == _comparable(_recorded()[name])


if __name__ == "__main__":
    lines = [f"{json.dumps(name)}: {json.dumps(record, sort_keys=True)}" for name, record in snapshots().items()]
    RECORD.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")  # a chunker a line
    print(f"wrote {RECORD} ({len(CHUNKERS)} chunkers)", file=sys.stderr)
