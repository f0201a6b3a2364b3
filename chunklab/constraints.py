"""What a chunker parameter may hold, and how the explorer shows it: one `Constraint` per
parameter, read by everything that handles parameters, and the parameter's one declaration, `Param`.

A chunker declares each parameter once, in the type hint of its ``__init__`` argument. The type
says what kind of value it is (a number, one of some options, a flag, text, a list of words, a
callable, a name or an object, an instance of a class, a sequence of such values; ``| None`` when
None is allowed too); a hint that cannot say it (an object of another library, known by its
methods) carries its constraint: ``Annotated[Any, HasMethods(methods=("split_text",))]``. A `Param`
in the same ``Annotated`` adds the rest: a number's interval, its slider, when it acts, whether it
is a size counted in the chunker's unit::

    chunk_size: Annotated[int, Param(low=1, slider=(20, 2000, 10), counted_in_unit=True)] = 600

`constraint_for` turns a hint into a `Constraint` (the interval from its `Param`), and from that one
object

* `chunklab.core.Chunker.validate` checks a value (`Constraint.problem`),
* the command line parses a ``--param`` value and describes the parameter
  (`Constraint.parse`, `Constraint.describe`, `Constraint.show`), and
* the explorer picks the control (`Constraint.control`, `Number.low` / `Number.high`, `Choice.options`).

`chunklab.core.Chunker.declarations` gives every parameter's `Param`, which the explorer and the
command line read for the rest. This module is the only place that looks inside a type hint.
"""

from __future__ import annotations

import collections.abc
import enum
import inspect
import math
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, Literal

__all__ = [
    "Callables",
    "Choice",
    "Constraint",
    "Flag",
    "HasMethods",
    "InstanceOf",
    "Items",
    "NameOrObject",
    "Number",
    "Objects",
    "Param",
    "Text",
    "TextList",
    "constraint_for",
    "param_in",
    "split_list",
]

#: Command-line spellings of None, true and false.
_NONE = ("none", "null")
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
#: A control's wording for what only Python can set.
_FROM_PYTHON = "set it from Python; the command line cannot"


def split_list(text: str, separator: str = ",") -> tuple[str, ...]:
    """A ``tuple[str, ...]`` value typed as one string (in an explorer's text box or on the
    command line): the parts between separators, stripped, empty ones dropped."""
    return tuple(part.strip() for part in text.split(separator) if part.strip())


@dataclass(frozen=True, kw_only=True)
class Constraint:
    """What values one parameter accepts; subclasses say which kind.

    `optional`: None is accepted as well. `control` is the explorer's control for the parameter
    (``"int"``, ``"float"``, ``"choice"``, ``"bool"``, ``"text"`` or ``"fixed"``: shown, not
    changed) and `settable` whether the command line can give it a value.
    """

    optional: bool = False
    control: ClassVar[str] = "fixed"
    settable: ClassVar[bool] = True

    def problem(self, value: Any) -> str | None:
        """None when `value` is allowed; else what it must be (``"must be in [1, inf]"``)."""
        if value is None and self.optional:
            return None
        problem = self._problem(value)
        return f"{problem} or None" if problem and self.optional else problem

    def parse(self, raw: str) -> Any:
        """The value the command-line text `raw` stands for (``none`` for None when allowed);
        `ValueError` saying what was expected otherwise."""
        if self.optional and raw.strip().lower() in _NONE:
            return None
        return self._parse(raw)

    def describe(self) -> str:
        """The allowed values in words, as ``chunklab strategies`` prints them."""
        return self._describe() + (" (or none)" if self.optional and self.settable else "")

    def show(self, value: Any) -> str:
        """`value` written as the command line takes it (None as ``none``, a callable or a class by
        its name)."""
        if value is None:
            return _NONE[0]
        if inspect.isfunction(value) or inspect.isclass(value) or inspect.ismethod(value) or inspect.isbuiltin(value):
            return value.__qualname__
        return str(value)

    def _problem(self, value: Any) -> str | None:
        raise NotImplementedError

    def _parse(self, raw: str) -> Any:
        raise ValueError(f"cannot be given on the command line ({_FROM_PYTHON}); got {raw!r}")

    def _describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True, kw_only=True)
class Number(Constraint):
    """An int or a float (never a bool, never NaN) in ``[low, high]``; None leaves a side open."""

    kind: type = int
    low: float | None = None
    high: float | None = None

    @property
    def control(self) -> str:  # type: ignore[override]
        """``"int"`` or ``"float"``: a slider."""
        return "int" if self.kind is int else "float"

    def interval(self) -> str:
        """``"[1, inf]"``."""
        return f"[{'-inf' if self.low is None else self.low}, {'inf' if self.high is None else self.high}]"

    def _problem(self, value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int if self.kind is int else (int, float)):
            return "must be an int" if self.kind is int else "must be a number"
        if math.isnan(value):
            return "must be a number"
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            return f"must be in {self.interval()}"
        return None

    def _parse(self, raw: str) -> Any:
        try:
            return self.kind(raw)
        except ValueError:
            raise ValueError(f"must be {'an integer' if self.kind is int else 'a number'}; got {raw!r}") from None

    def _describe(self) -> str:
        name = self.kind.__name__
        return name if self.low is None and self.high is None else f"{name} in {self.interval()}"


@dataclass(frozen=True, kw_only=True)
class Choice(Constraint):
    """One of `options` (a ``Literal``'s values, or an ``Enum``'s members)."""

    options: tuple[Any, ...]
    control: ClassVar[str] = "choice"

    def labels(self) -> list[str]:
        """The options as the command line writes them (an Enum member by its value)."""
        return [self.show(option) for option in self.options]

    def show(self, value: Any) -> str:
        """An Enum member by its value, anything else as `Constraint.show` does."""
        return str(value.value) if isinstance(value, enum.Enum) else super().show(value)

    def _problem(self, value: Any) -> str | None:
        if value in self.options:
            return None
        return f"must be one of {[o.value if isinstance(o, enum.Enum) else o for o in self.options]}"

    def _parse(self, raw: str) -> Any:
        for option in self.options:
            if raw == self.show(option) or (isinstance(option, enum.Enum) and raw == option.name):
                return option
        raise ValueError(f"must be one of {', '.join(self.labels())}; got {raw!r}")

    def _describe(self) -> str:
        return "one of: " + ", ".join(self.labels())


@dataclass(frozen=True, kw_only=True)
class NameOrObject(Choice):
    """One of the `options` by name, or any object (a tokenizer): the command line and the
    explorer's dropdown offer the names; an object is checked by the chunker's own `check`."""

    def _problem(self, value: Any) -> str | None:
        if not isinstance(value, str) or value in self.options:
            return None
        return f"must be one of {list(self.options)} or an object"

    def _describe(self) -> str:
        return super()._describe() + " (or an object, from Python)"


@dataclass(frozen=True, kw_only=True)
class Flag(Constraint):
    """True or False."""

    control: ClassVar[str] = "bool"

    def _problem(self, value: Any) -> str | None:
        return None if isinstance(value, bool) else "must be a bool"

    def _parse(self, raw: str) -> Any:
        word = raw.strip().lower()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
        raise ValueError(f"must be true or false; got {raw!r}")

    def _describe(self) -> str:
        return "bool"


@dataclass(frozen=True, kw_only=True)
class Text(Constraint):
    """Any str."""

    control: ClassVar[str] = "text"

    def _problem(self, value: Any) -> str | None:
        return None if isinstance(value, str) else "must be a str"

    def _parse(self, raw: str) -> Any:
        return raw

    def _describe(self) -> str:
        return "str"


@dataclass(frozen=True, kw_only=True)
class TextList(Constraint):
    """A tuple of str, written as comma-separated text on the command line and in the explorer."""

    control: ClassVar[str] = "text"
    separator: ClassVar[str] = ","

    def _problem(self, value: Any) -> str | None:
        ok = isinstance(value, tuple) and all(isinstance(v, str) for v in value)
        return None if ok else "must be a tuple of str"

    def _parse(self, raw: str) -> Any:
        return split_list(raw, self.separator)

    def show(self, value: Any) -> str:
        """The parts joined by the separator."""
        return self.separator.join(map(str, value)) if isinstance(value, tuple) else super().show(value)

    def _describe(self) -> str:
        return "comma-separated text"


@dataclass(frozen=True, kw_only=True)
class Callables(Constraint):
    """Anything callable (a function, a class, an object with ``__call__``): set from Python only."""

    settable: ClassVar[bool] = False

    def _problem(self, value: Any) -> str | None:
        return None if callable(value) else "must be a callable"

    def _describe(self) -> str:
        return f"a callable{' or None' if self.optional else ''} ({_FROM_PYTHON})"


@dataclass(frozen=True, kw_only=True)
class InstanceOf(Constraint):
    """An instance of one of `kinds` (a parameter hinted with a class, e.g. ``chunker: Chunker``):
    set from Python only."""

    kinds: tuple[type, ...]
    settable: ClassVar[bool] = False

    def _names(self) -> str:
        return " or ".join(kind.__name__ for kind in self.kinds)

    def _problem(self, value: Any) -> str | None:
        return None if isinstance(value, self.kinds) else f"must be a {self._names()} instance"

    def _describe(self) -> str:
        return f"a {self._names()} ({_FROM_PYTHON})"


@dataclass(frozen=True, kw_only=True)
class HasMethods(Constraint):
    """An object with these `methods` (callable attributes), e.g. another library's splitter known
    by its ``split_text``: declared as ``Annotated[Any, HasMethods(methods=("split_text",),
    what="a LangChain TextSplitter")]``. Set from Python only."""

    methods: tuple[str, ...]
    what: str = "an object"
    settable: ClassVar[bool] = False

    def _problem(self, value: Any) -> str | None:
        if all(callable(getattr(value, name, None)) for name in self.methods):
            return None
        return f"must be {self.what} (an object with {', '.join(self.methods)})"

    def _describe(self) -> str:
        return f"{self.what}, with {', '.join(self.methods)} ({_FROM_PYTHON})"


@dataclass(frozen=True, kw_only=True)
class Items(Constraint):
    """A tuple or list of at least `min_items` values, each allowed by `each` (a parameter hinted
    ``Sequence[X]``); set from Python only."""

    each: Constraint
    min_items: int = 0
    settable: ClassVar[bool] = False

    def _problem(self, value: Any) -> str | None:
        if not isinstance(value, (tuple, list)) or len(value) < self.min_items:
            return "must be a tuple or list" + (f" of at least {self.min_items} values" if self.min_items else "")
        for i, item in enumerate(value):
            problem = self.each.problem(item)
            if problem is not None:
                return f"item {i} {problem}"
        return None

    def _describe(self) -> str:
        least = f" (at least {self.min_items})" if self.min_items else ""
        return f"a tuple or list{least}, each: {self.each.describe()}"


@dataclass(frozen=True, kw_only=True)
class Objects(Constraint):
    """Any value (a parameter hinted ``Any``, or with a hint no other constraint covers): the
    chunker's `check` judges it. Prefer a hint that says what the value must be, or an
    ``Annotated[..., HasMethods(...)]``."""

    hint: Any = Any
    settable: ClassVar[bool] = False

    def _problem(self, value: Any) -> str | None:
        return None

    def _describe(self) -> str:
        return f"{getattr(self.hint, '__name__', self.hint)} ({_FROM_PYTHON})"


@dataclass(frozen=True, kw_only=True)
class Param:
    """One parameter's declaration beyond its type, put in its hint: ``chunk_size: Annotated[int,
    Param(low=1, slider=(20, 2000, 10), counted_in_unit=True)] = 600``. A parameter without one
    declares nothing beyond its type (``Param()``). Everything about a parameter is said here, once:

    * `low`, `high`: the inclusive interval of a number (None leaves a side open); part of its
      `Constraint`, so validation, the command line and the explorer's slider keep to it;
    * `slider`: the explorer's ``(low, high, step)`` for the number, in characters for a size; a
      teaching range, not a limit (the explorer keeps it inside the interval);
    * `slider_by`: ranges that follow a choice, ``("method", {"percentile": (0, 100, 0.5, 95),
      ...})``: per value of the parameter ``method``, the ``(low, high, step, start)`` of this one
      (the start is where the slider goes when that choice is made);
    * `active_when`: the parameter changes nothing unless other parameters have certain values,
      ``{"unit": ("tokens",)}`` ("acts only when ``unit`` is ``"tokens"``"; several: all must hold);
    * `counted_in_unit`: a size counted in the chunker's unit (characters, words, tokens): the
      explorer rescales its slider when the way sizes are counted changes;
    * `size_measure`: ``"unit"`` for the parameter that says how sizes are counted, ``"tokenizer"``
      for the one that counts tokens when that unit is ``"tokens"``
      (`chunklab.core.Chunker.size_measure`);
    * `view_option`: the option of `chunklab.viz.chunks.render_html` the explorer passes this
      parameter's value to (``"sentence_splitter"``: the stats line counts the sentences of the
      splitter chosen).

    `chunklab.core.Chunker` refuses, when a subclass is made, a declaration that names a parameter
    the chunker does not have.
    """

    low: float | None = None
    high: float | None = None
    slider: tuple[float, float, float] | None = None
    slider_by: tuple[str, Mapping[Any, tuple[float, float, float, float]]] | None = None
    active_when: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    counted_in_unit: bool = False
    size_measure: Literal["unit", "tokenizer"] | None = None
    view_option: str | None = None

    def __hash__(self) -> int:
        """A hash that agrees with ``==`` although two fields are mappings (a hint holding a `Param`
        is hashed when it is joined with ``| None``)."""
        by = None if self.slider_by is None else (self.slider_by[0], frozenset(self.slider_by[1].items()))
        return hash((self.low, self.high, self.slider, by, frozenset(self.active_when.items()),
                     self.counted_in_unit, self.size_measure, self.view_option))

    def __repr__(self) -> str:
        """Only what is declared, as it would be written: ``Param(low=1, slider=(20, 2000, 10))``
        (a signature in the API reference shows it)."""
        given = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if getattr(self, f.name) != f.default
                 and not (f.name == "active_when" and not self.active_when)]
        return f"Param({', '.join(given)})"

    @property
    def bounded(self) -> bool:
        """Does it give a number's interval (`low` or `high`)?"""
        return self.low is not None or self.high is not None

    def deciders(self) -> set[str]:
        """The other parameters this declaration names (in `active_when` and `slider_by`)."""
        return set(self.active_when) | ({self.slider_by[0]} if self.slider_by is not None else set())


def param_in(hint: Any) -> Param | None:
    """The `Param` in type hint `hint`: in its ``Annotated``, or in the ``Annotated`` member of a
    union (``Annotated[int, Param(low=1)] | None``); None when it has none. Two raise `TypeError`."""
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    parts = (hint, *typing.get_args(hint)) if union else (hint,)
    found = [m for part in parts if typing.get_origin(part) is typing.Annotated
             for m in part.__metadata__ if isinstance(m, Param)]
    if len(found) > 1:
        raise TypeError(f"the type hint {hint} holds {len(found)} Param declarations; a parameter has one")
    return found[0] if found else None


def constraint_for(hint: Any) -> Constraint:
    """The `Constraint` of a parameter with type hint `hint`; for a number, with the inclusive
    interval of the hint's `Param` (``Annotated[int, Param(low=1)]``). An interval on anything but
    a number raises `TypeError`: it would say nothing."""
    constraint = _from_hint(hint)
    param = param_in(hint)
    if param is None or not param.bounded:
        return constraint
    if not isinstance(constraint, Number):
        raise TypeError(f"bounds ({param.low}, {param.high}) given for a parameter of type {hint}, which is not a number")
    return replace(constraint, low=param.low, high=param.high)


def _from_hint(hint: Any) -> Constraint:
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        given = [m for m in hint.__metadata__ if isinstance(m, Constraint)]
        return given[0] if given else _from_hint(typing.get_args(hint)[0])
    if origin in (typing.Union, types.UnionType):
        members = [m for m in typing.get_args(hint) if m is not type(None)]
        optional = len(members) < len(typing.get_args(hint))
        literals = [m for m in members if typing.get_origin(m) is Literal]
        if len(members) == 2 and Any in members and len(literals) == 1:
            return NameOrObject(options=typing.get_args(literals[0]), optional=optional)
        inner = _from_hint(members[0]) if len(members) == 1 else Objects(hint=hint)
        return replace(inner, optional=optional)
    if origin is Literal:
        return Choice(options=typing.get_args(hint))
    if inspect.isclass(hint) and issubclass(hint, enum.Enum):
        return Choice(options=tuple(hint))
    if hint is bool:
        return Flag()
    if hint in (int, float):
        return Number(kind=hint)
    if hint is str:
        return Text()
    if hint == tuple[str, ...]:
        return TextList()
    if hint is collections.abc.Callable or origin is collections.abc.Callable:
        return Callables()
    if origin in (collections.abc.Sequence, tuple) and hint != tuple[str, ...]:
        args = typing.get_args(hint)
        if origin is collections.abc.Sequence or (len(args) == 2 and args[1] is Ellipsis):
            return Items(each=_from_hint(args[0]))
    if hint is not Any and inspect.isclass(hint) and not getattr(hint, "_is_protocol", False):
        return InstanceOf(kinds=(hint,))
    return Objects(hint=hint)
