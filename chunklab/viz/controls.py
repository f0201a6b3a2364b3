"""The controls of an explorer: which control each parameter gets, and slider ranges in any unit.

`control_specs` reads a chunker class's parameter constraints (`chunklab.core.Chunker.constraints`,
plus the slider each `chunklab.constraints.Param` declares and the caller's overrides) and gives
each parameter the control its constraint names: int -> integer slider, float -> float slider, options -> dropdown, bool -> checkbox,
str -> text box, ``tuple[str, ...]`` -> text box of comma-separated values; callables, objects and
parameters that may be None are shown, not changed.

A size counted in words or tokens is not a size in characters: `chars_per_unit` measures how many
characters of the explored text make one word, token or sentence, and `rescaled` turns a slider
range from one unit into another on a round step, so that a slider of 20 to 2,000 characters
becomes one of about 4 to 450 tokens, not 2,000 tokens.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Sequence, cast

from ..caches import PER_TEXT, cached
from ..constraints import Choice, Constraint, NameOrObject, Number, TextList, split_list
from ..core import Chunker
from ..text.length import SizeUnit, length_function
from ..text.sentences import sentence_spans

__all__ = ["NUMERIC", "ControlSpec", "chars_per_unit", "control_specs", "rescaled", "snapped"]

#: The kinds of control that are sliders.
NUMERIC = ("int", "float")


#: The kinds of control a parameter can get.
ControlKind = Literal["int", "float", "choice", "bool", "text", "fixed"]


@dataclass(frozen=True)
class ControlSpec:
    """What control a parameter gets: its kind, start value, and range or options."""

    name: str
    kind: ControlKind
    value: Any
    low: float | None = None
    high: float | None = None
    step: float | None = None
    options: Sequence[Any] = field(default_factory=tuple)
    #: For a text box holding a ``tuple[str, ...]``: the separator between its values.
    separator: str | None = None

    def parse(self, typed: Any) -> Any:
        """The parameter value for what a control shows (text boxes of tuples are split)."""
        if self.kind == "text" and self.separator is not None:
            return split_list(str(typed), self.separator)
        return typed

    def shown(self) -> Any:
        """What the control shows for the start value (tuples joined for a text box)."""
        if self.kind == "text" and self.separator is not None:
            return f"{self.separator} ".join(self.value)
        return self.value

    def slider(self) -> tuple[float, float, float]:
        """``(low, high, step)`` of a slider; `ValueError` for a control without a range."""
        if self.low is None or self.high is None or self.step is None:
            raise ValueError(f"{self.name}: a {self.kind} control has no slider range")
        return self.low, self.high, self.step


def control_specs(chunker_class: type[Chunker], **overrides: Any) -> dict[str, ControlSpec]:
    """One `ControlSpec` per constructor parameter of `chunker_class`.

    An override may be a tuple ``(low, high)`` or ``(low, high, step)`` for a slider range, a list
    for dropdown options, or a plain value for the starting value (for a ``tuple[str, ...]``
    parameter: a tuple, or one comma-separated string). Ranges otherwise come from the slider
    the parameter's `chunklab.constraints.Param` declares, then its constraint's bounds, then a
    guess around the default.
    Parameters whose constraint has no natural control (callables, objects, None allowed) are
    passed through unchanged ("fixed").
    """
    specs = {}
    declarations = chunker_class.declarations()
    constraints = chunker_class.constraints()
    for name, param in chunker_class.param_specs().items():
        constraint = constraints[name]
        override = overrides.get(name, param.default)
        if isinstance(constraint, TextList):
            # A tuple here is the value itself (not a slider range); a string is split at commas.
            override = constraint.parse(override) if isinstance(override, str) else override
            value = override
        else:
            value = param.default if isinstance(override, (tuple, list)) else override
        specs[name] = _spec_for(name, constraint, value, override, declarations[name].slider)
    unknown = set(overrides) - set(specs)
    if unknown:
        raise ValueError(f"{chunker_class.__name__} has no parameter(s) {sorted(unknown)}")
    return specs


def _spec_for(name: str, constraint: Constraint, value: Any, override: Any, slider: Any) -> ControlSpec:
    control = "fixed" if constraint.optional else constraint.control
    if isinstance(constraint, NameOrObject) and not isinstance(value, str):
        control = "fixed"  # a tokenizer object, not one of the names: shown, not changed
    if control == "choice" and isinstance(constraint, Choice):
        options = list(override) if isinstance(override, list) else list(constraint.options)
        return ControlSpec(name, "choice", value, options=tuple(options))
    if control in ("bool", "text"):
        separator = constraint.separator if isinstance(constraint, TextList) else None
        return ControlSpec(name, cast(ControlKind, control), tuple(value) if separator else value, separator=separator)
    if control in NUMERIC and isinstance(constraint, Number):
        low, high, step = _numeric_range(control, value, override, slider, (constraint.low, constraint.high))
        return ControlSpec(name, cast(ControlKind, control), min(max(value, low), high), low, high, step)
    if isinstance(override, list):
        return ControlSpec(name, "choice", override[0] if value not in override else value, options=tuple(override))
    return ControlSpec(name, "fixed", value)


def _numeric_range(kind: str, value: Any, override: Any, slider: Any, bound: tuple) -> tuple[Any, Any, Any]:
    """A slider's ``(low, high, step)``: the caller's range or the declared slider, kept inside the
    declared interval `bound`; else the interval itself, closed around the default if open."""
    source = override if isinstance(override, tuple) else slider
    if source is not None:
        low, high, *rest = source
        step = rest[0] if rest else (1 if kind == "int" else (high - low) / 100)
        low = low if bound[0] is None else max(low, bound[0])
        high = high if bound[1] is None else min(high, bound[1])
        return low, high, step
    low = bound[0] if bound[0] is not None else 0
    if bound[1] is not None:
        high = bound[1]
    else:
        high = max(value * 4, low + (10 if kind == "int" else 1))
    step = max(1, (high - low) // 100) if kind == "int" else (high - low) / 100
    return low, high, step


def chars_per_unit(text: str, unit: str, tokenizer: Any = "minilm") -> float:
    """How many characters of `text` make one `unit` on average: 1 for ``"chars"``; for
    ``"words"``, ``"tokens"`` (of `tokenizer`) and ``"sentences"`` (the regex splitter) the text's
    length over its count (about 6, 4 and 100 to 150 for English prose). Cached per text, unit and
    tokenizer: an explorer asks again on every switch of unit."""
    if unit == "chars":
        return 1.0
    return _chars_per_unit(text, unit, tokenizer)


@cached(PER_TEXT)
def _chars_per_unit(text: str, unit: str, tokenizer: Any) -> float:
    if unit == "sentences":
        count = len(sentence_spans(text))
    else:
        count = length_function(cast(SizeUnit, unit), tokenizer)(text)
    return max(1.0, len(text) / count) if count else 1.0


def rescaled(spec: ControlSpec, ratio: float, floor: float | None = None) -> ControlSpec:
    """`spec`'s slider range multiplied by `ratio` (a range in characters shown in words: ratio
    1/6), with a step that is the old step times `ratio` rounded to 1, 2 or 5 times a power of ten
    (at least 1 for an integer slider) and ends on that step; never below `floor` (the parameter's
    lowest allowed value). The value is clamped into the new range (see `snapped` to convert it)."""
    if ratio == 1:
        return spec
    old_low, old_high, old_step = spec.slider()
    step = _round_step(old_step * ratio, spec.kind)
    low = math.floor(old_low * ratio / step) * step
    if floor is not None:
        low = max(low, floor)
    high = max(math.ceil(old_high * ratio / step) * step, low + step)
    low, high, step = (_number(x, spec.kind) for x in (low, high, step))
    return replace(spec, low=low, high=high, step=step, value=min(max(spec.value, low), high))


def snapped(value: float, spec: ControlSpec) -> Any:
    """`value` moved to the nearest position `spec`'s slider can take (its range, on its step)."""
    low, high, step = spec.slider()
    steps = round((value - low) / step)
    return _number(min(max(low + steps * step, low), high), spec.kind)


def _round_step(raw: float, kind: str) -> float:
    """`raw` rounded to the nearest of 1, 2 or 5 times a power of ten (in log scale)."""
    if raw <= 0:
        return 1 if kind == "int" else raw
    power = 10 ** math.floor(math.log10(raw))
    step = min((m * power for m in (1, 2, 5, 10)), key=lambda s: abs(math.log(s / raw)))
    return max(1, round(step)) if kind == "int" else step


def _number(value: float, kind: str) -> Any:
    """An int for an integer slider; else a float without binary noise (0.30000000000000004)."""
    return int(round(value)) if kind == "int" else float(f"{value:.10g}")
