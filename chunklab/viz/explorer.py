"""`explore`: interactive controls for any chunker, built from its constructor signature.

`control_specs` reads a chunker class's typed parameters (plus its `bounds` and `widget_hints`, plus
the caller's overrides) and decides which control each gets: int -> integer slider, float -> float
slider, Literal/Enum -> dropdown, bool -> checkbox, str -> text box, ``tuple[str, ...]`` -> text box of
comma-separated values. `Explorer.render` is the pure function that turns
parameter values into HTML; the widgets only call it. The HTML carries ``data-nchunks``,
``data-chunker`` and ``data-params`` so a browser test reads exactly what the learner sees.
"""

from __future__ import annotations

import enum
import json
import typing
from dataclasses import dataclass, field
from typing import Any, Literal, Sequence

from ..core import Chunker, ParameterError, named_choices, split_list
from .chunks import render_html

__all__ = ["ControlSpec", "Explorer", "control_specs", "explore"]


@dataclass(frozen=True)
class ControlSpec:
    """What control a parameter gets: its kind, start value, and range or options."""

    name: str
    kind: Literal["int", "float", "choice", "bool", "text", "fixed"]
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


def control_specs(chunker_class: type[Chunker], **overrides: Any) -> dict[str, ControlSpec]:
    """One `ControlSpec` per constructor parameter of `chunker_class`.

    An override may be a tuple ``(low, high)`` or ``(low, high, step)`` for a slider range, a list
    for dropdown options, or a plain value for the starting value (for a ``tuple[str, ...]``
    parameter: a tuple, or one comma-separated string). Ranges otherwise come from the
    class's `widget_hints`, then its `bounds`, then a guess around the default. Parameters whose
    type has no natural control (callables, objects) are passed through unchanged ("fixed").
    """
    specs = {}
    hints = getattr(chunker_class, "widget_hints", {})
    for name, param in chunker_class.param_specs().items():
        override = overrides.get(name, param.default)
        if param.annotation == tuple[str, ...]:
            # A tuple here is the value itself (not a slider range); a string is split at commas.
            override = (
                split_list(override) if isinstance(override, str) else override
            )
            value = override
        else:
            value = param.default if isinstance(override, (tuple, list)) else override
        specs[name] = _spec_for(
            name, param.annotation, value, override, hints.get(name), chunker_class.bounds.get(name)
        )
    unknown = set(overrides) - set(specs)
    if unknown:
        raise ValueError(f"{chunker_class.__name__} has no parameter(s) {sorted(unknown)}")
    return specs


def _spec_for(name: str, annotation: Any, value: Any, override: Any, hint: Any, bound: Any) -> ControlSpec:
    named = named_choices(annotation)
    if named is not None:  # a tokenizer: a dropdown of the names, or the object itself, fixed
        if not isinstance(value, str):
            return ControlSpec(name, "fixed", value)
        annotation = named
    if typing.get_origin(annotation) is Literal:
        options = list(override) if isinstance(override, list) else list(typing.get_args(annotation))
        return ControlSpec(name, "choice", value, options=tuple(options))
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return ControlSpec(name, "choice", value, options=tuple(annotation))
    if annotation is bool:
        return ControlSpec(name, "bool", value)
    if annotation is str:
        return ControlSpec(name, "text", value)
    if annotation == tuple[str, ...]:
        return ControlSpec(name, "text", tuple(value), separator=",")
    if annotation in (int, float):
        kind = "int" if annotation is int else "float"
        low, high, step = _numeric_range(kind, value, override, hint, bound)
        return ControlSpec(name, kind, min(max(value, low), high), low, high, step)
    if isinstance(override, list):
        return ControlSpec(name, "choice", override[0] if value not in override else value, options=tuple(override))
    return ControlSpec(name, "fixed", value)


def _numeric_range(kind: str, value: Any, override: Any, hint: Any, bound: Any) -> tuple[Any, Any, Any]:
    source = override if isinstance(override, tuple) else hint
    if source is not None:
        low, high, *rest = source
        step = rest[0] if rest else (1 if kind == "int" else (high - low) / 100)
        return low, high, step
    low = bound[0] if bound and bound[0] is not None else 0
    if bound and bound[1] is not None:
        high = bound[1]
    else:
        high = max(value * 4, low + (10 if kind == "int" else 1))
    step = max(1, (high - low) // 100) if kind == "int" else (high - low) / 100
    return low, high, step


class Explorer:
    """A chunker class, a text and a set of controls; re-chunks and redraws on every change.

    Display it in Jupyter (it is what `explore` returns). Without a live widget front end (for
    example a notebook executed headless, or viewed on a site) it still shows the chunks for the
    starting parameters as static HTML.
    """

    def __init__(
        self, chunker_class: type[Chunker], text: str, *, max_chars: int | None = 6_000, **overrides: Any
    ) -> None:
        self.chunker_class = chunker_class
        self.text = text
        self.max_chars = max_chars
        self.specs = control_specs(chunker_class, **overrides)
        self.params = {name: spec.value for name, spec in self.specs.items()}
        self._widget: Any = None

    def render(self, **params: Any) -> str:
        """Chunk the text with these parameter values (the current ones by default) and return HTML.

        Invalid combinations (e.g. overlap >= size) render the chunker's error message instead of
        chunks, with ``data-nchunks="0"`` and ``data-error`` set.
        """
        values = {**self.params, **params}
        attrs = {"chunker": self.chunker_class.name or self.chunker_class.__name__, "params": _jsonable(values)}
        try:
            chunks = self.chunker_class(**values)(self.text)
        except ParameterError as error:
            return _error_html(str(error), attrs)
        options = self.chunker_class.view_options
        return render_html(chunks, self.text, max_chars=self.max_chars, attrs=attrs, **options)

    @property
    def widget(self) -> Any:
        """The ipywidgets box: controls above, the rendered chunks below (built on first use)."""
        if self._widget is None:
            self._widget = self._build()
        return self._widget

    def _build(self) -> Any:
        import ipywidgets as w

        output = w.HTML(self.render())
        controls = {name: _make_control(w, spec) for name, spec in self.specs.items() if spec.kind != "fixed"}

        def updater(name: str) -> Any:
            def update(change: dict[str, Any]) -> None:
                self.params[name] = self.specs[name].parse(change["new"])
                output.value = self.render()

            return update

        for name, control in controls.items():
            control.observe(updater(name), names="value")
        self.controls = controls
        self.output = output
        return w.VBox([w.HBox(list(controls.values()), layout=w.Layout(flex_flow="row wrap")), output])

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["text/html"] = self.output.value
        return bundle


def _make_control(w: Any, spec: ControlSpec) -> Any:
    style = {"description_width": "initial"}
    common = dict(description=spec.name, style=style, continuous_update=True)
    if spec.kind == "int":
        return w.IntSlider(value=spec.value, min=spec.low, max=spec.high, step=spec.step, **common)
    if spec.kind == "float":
        return w.FloatSlider(value=spec.value, min=spec.low, max=spec.high, step=spec.step, **common)
    if spec.kind == "choice":
        return w.Dropdown(value=spec.value, options=list(spec.options), description=spec.name, style=style)
    if spec.kind == "text":
        # Re-chunk on Enter or when the box loses focus, not on every keystroke (half-typed regexes).
        return w.Text(value=spec.shown(), description=spec.name, style=style, continuous_update=False)
    return w.Checkbox(value=spec.value, description=spec.name, style=style, indent=False)


def _jsonable(values: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, enum.Enum):
            out[key] = value.value
        elif isinstance(value, tuple) and all(_is_json(v) for v in value):
            out[key] = list(value)
        elif _is_json(value):
            out[key] = value
    return out


def _is_json(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool, type(None)))


def _error_html(message: str, attrs: dict[str, Any]) -> str:
    import html

    params = html.escape(json.dumps(attrs["params"]), quote=True)
    return (
        f'<div class="chunklab-view" data-nchunks="0" data-chunker="{html.escape(attrs["chunker"])}" '
        f'data-params="{params}" data-error="{html.escape(message, quote=True)}">'
        f'<div style="color:#b00020;font-family:monospace;padding:6px 0">{html.escape(message)}</div></div>'
    )


def explore(chunker_class: type[Chunker], text: str, **overrides: Any) -> Explorer:
    """Interactive explorer for `chunker_class` on `text`; see `control_specs` for `overrides`.

    ``max_chars`` (default 6,000) limits how much of the text is drawn.
    """
    return Explorer(chunker_class, text, **overrides)
