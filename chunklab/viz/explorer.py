"""`explore`: interactive controls for any chunker, built from its constructor signature.

Controls come from `chunklab.viz.controls.control_specs`. `Explorer.render` is the pure function
that turns parameter values into HTML; the widgets only call it. What the learner sees follows
what the chunker declares, each parameter in its `chunklab.constraints.Param` (read through
`chunklab.core.Chunker.declarations`) and the class in `main_control` and `view_options`:

* the main control (`main_control`) comes first in the row of controls;
* a control that changes nothing in the current state (``active_when``: ``tokenizer`` while sizes
  are in characters) is disabled, with a tooltip that says when it acts, and enabled again as
  soon as its deciding control allows. Disabled, not hidden: the row keeps its layout, so the
  control under the learner's mouse never jumps away, and the greyed control shows that it exists
  and what unlocks it;
* size sliders (``counted_in_unit``) follow the way sizes are counted (`size_measure`, from the
  parameters declared ``size_measure="unit"`` and ``"tokenizer"``): switching
  from characters to tokens turns
  a 20-2,000 character slider into a slider of about 4-450 tokens and the current size into the
  same amount of text in tokens (`chunklab.viz.controls.chars_per_unit`, measured on the text);
  switching back restores the size it had;
* ranges that depend on a choice (``slider_by``: the semantic chunker's `threshold` per `method`)
  follow that choice;
* a parameter declared ``view_option`` is passed on to `chunklab.viz.chunks.render_html` as that
  option (``sentence_splitter``: the stats line counts the sentences of the splitter chosen).

No parameter is treated by its name here: what the explorer does follows the declarations.

The HTML carries ``data-nchunks``, ``data-chunker``, ``data-params``, ``data-main``,
``data-active-when`` and ``data-in-unit`` so a browser test reads exactly what the learner sees.
"""

from __future__ import annotations

import html
from dataclasses import replace
from typing import Any

from ..constraints import Number
from ..core import Chunk, Chunker, ParameterError
from ..metadata import plain
from .chunks import data_attributes, render_html
from .controls import NUMERIC, ControlSpec, chars_per_unit, control_specs, rescaled, snapped

__all__ = ["ControlSpec", "Explorer", "control_specs", "explore"]

#: A way of counting sizes: the unit, and the tokenizer when the unit is tokens (`Chunker.size_measure`).
_Measure = tuple[str, Any]


class Explorer:
    """A chunker class, a text and a set of controls; re-chunks and redraws on every change.

    Display it in Jupyter (it is what `explore` returns). Without a live widget front end (for
    example a notebook executed headless, or viewed on a site) it still shows the chunks for the
    starting parameters as static HTML. `change` is what a control does, without widgets.
    """

    def __init__(
        self,
        chunker_class: type[Chunker],
        text: str,
        *,
        max_chars: int | None = 6_000,
        main: str | None = None,
        **overrides: Any,
    ) -> None:
        self.chunker_class = chunker_class
        self.text = text
        self.max_chars = max_chars
        self.specs = control_specs(chunker_class, **overrides)
        self.params = {name: spec.value for name, spec in self.specs.items()}
        self.main = _main_control(chunker_class, self.specs, main)
        #: Every parameter's `chunklab.constraints.Param` (`chunklab.core.Chunker.declarations`).
        self.declarations = chunker_class.declarations()
        start = chunker_class.size_measure(self.params)
        sized = [name for name, declared in self.declarations.items() if declared.counted_in_unit]
        # A range the caller gives is in the starting unit; a declared slider or the bounds are in characters.
        self._reference: dict[str, tuple[ControlSpec, _Measure]] = {
            name: (self.specs[name], start if isinstance(overrides.get(name), tuple) else ("chars", None))
            for name in sized
            if name in self.specs and self.specs[name].kind in NUMERIC
        }
        #: Per size: its value in the reference unit and the value shown for it after the last switch
        #: of unit (while the learner leaves it there, switching back restores the exact value).
        self._anchors: dict[str, tuple[float, Any]] = {}
        for name in self._reference:
            self.specs[name] = self._sized_spec(name, start)
            self.params[name] = self.specs[name].value
        self.start_specs = dict(self.specs)
        self._widget: Any = None
        self._syncing = False

    # -- state ------------------------------------------------------------------------------------
    def change(self, name: str, value: Any) -> list[str]:
        """Set parameter `name` to `value`, as its control does, and let the controls that follow it
        follow: sizes after a change of unit (or of tokenizer, in tokens), ranges that depend on a
        choice. Returns the names of the controls whose range or value changed with it."""
        before = dict(self.params)
        self.params[name] = value
        followed: dict[str, ControlSpec] = {}
        measure = self.chunker_class.size_measure
        followed.update(self._follow_unit(measure(before), measure(self.params)))
        for target, declared in self.declarations.items():
            if declared.slider_by is not None and declared.slider_by[0] == name and target in self.specs:
                table = dict(declared.slider_by[1])
                followed[target] = self._follow_choice(target, name, table, before[name], value)
        changed = [n for n, spec in followed.items() if spec != self.specs[n]]
        for n in changed:
            self.specs[n] = followed[n]
            self.params[n] = followed[n].value
        return changed

    def inactive(self, params: dict[str, Any] | None = None) -> dict[str, str]:
        """The controls that change nothing with `params` (the current ones by default), each with
        the condition under which it acts (`chunklab.core.Chunker.active_condition`)."""
        values = self.params if params is None else params
        cls = self.chunker_class
        return {name: cls.active_condition(name) for name in self.specs if not cls.is_active(name, values)}

    def _ratio(self, source: _Measure, target: _Measure) -> float:
        """What a size counted in `source` units is in `target` units."""
        return chars_per_unit(self.text, *source) / chars_per_unit(self.text, *target)

    def _sized_spec(self, name: str, measure: _Measure) -> ControlSpec:
        spec, reference = self._reference[name]
        constraint = self.chunker_class.constraints()[name]
        floor = constraint.low if isinstance(constraint, Number) else None  # a slider only comes from a `Number`
        return rescaled(spec, self._ratio(reference, measure), floor)

    def _follow_unit(self, old: _Measure, new: _Measure) -> dict[str, ControlSpec]:
        if old == new:
            return {}
        followed = {}
        for name, (_, reference) in self._reference.items():
            spec = self._sized_spec(name, new)
            anchor = self._anchors.get(name)
            if anchor is not None and anchor[1] == self.params[name]:
                amount = anchor[0]
            else:
                amount = self.params[name] * self._ratio(old, reference)
            value = snapped(amount * self._ratio(reference, new), spec)
            self._anchors[name] = (amount, value)
            followed[name] = replace(spec, value=value)
        return followed

    def _follow_choice(self, target: str, decider: str, table: dict, old: Any, new: Any) -> ControlSpec:
        """The spec of `target` after `decider` went from `old` to `new`: between choices of the
        same range, the same spec, its value moved to the new choice's customary value if it still
        held the old choice's (``std_dev`` 3 -> ``interquartile`` 1.5), a value the learner set
        kept; the starting spec (the caller's range and value) for a choice of the starting
        choice's range; else the declared range and customary value of the new choice."""
        spec = self.specs[target]
        hint, old_hint = table.get(new), table.get(old)
        if hint is None:
            return spec
        if old_hint is not None and old_hint[:3] == hint[:3]:
            return replace(spec, value=hint[3]) if self.params[target] == old_hint[3] else spec
        start_hint = table.get(self.start_specs[decider].value)
        if start_hint is not None and start_hint[:3] == hint[:3]:
            return self.start_specs[target]
        low, high, step, value = hint
        return replace(spec, low=low, high=high, step=step, value=value)

    # -- drawing ----------------------------------------------------------------------------------
    def chunks(self, **params: Any) -> list[Chunk]:
        """The chunks for these parameter values (the current ones by default); raises
        `chunklab.core.ParameterError` for an invalid combination."""
        return self.chunker_class(**{**self.params, **params})(self.text)

    def render(self, **params: Any) -> str:
        """Chunk the text with these parameter values (the current ones by default) and return HTML.

        Invalid combinations (e.g. overlap >= size) render the chunker's error message instead of
        chunks, with ``data-nchunks="0"`` and ``data-error`` set. Parameters declared
        ``view_option`` are passed on to `render_html` as that option (``sentence_splitter``: the
        stats line counts the sentences of the splitter chosen).
        """
        values = {**self.params, **params}
        attrs = self._attrs(values)
        try:
            chunks = self.chunks(**params)
        except ParameterError as error:
            return _error_html(str(error), attrs)
        passed = {d.view_option: values[n] for n, d in self.declarations.items() if d.view_option and n in values}
        options = {**self.chunker_class.view_options, **passed}
        return render_html(chunks, self.text, max_chars=self.max_chars, attrs=attrs, **options)

    def _attrs(self, values: dict[str, Any]) -> dict[str, Any]:
        controls = [name for name, spec in self.specs.items() if spec.kind != "fixed"]
        rules = {name: declared.active_when for name, declared in self.declarations.items() if declared.active_when}
        attrs: dict[str, Any] = {
            "chunker": self.chunker_class.name or self.chunker_class.__name__,
            "params": _jsonable(values),
            "active-when": {
                name: {decider: [plain(v) for v in allowed] for decider, allowed in rules[name].items()}
                for name in controls
                if name in rules
            },
            "in-unit": list(self._reference),
        }
        if self.main is not None:
            attrs["main"] = self.main
        return attrs

    # -- widgets ----------------------------------------------------------------------------------
    @property
    def widget(self) -> Any:
        """The ipywidgets box: controls above, the rendered chunks below (built on first use)."""
        if self._widget is None:
            self._widget = self._build()
        return self._widget

    def _build(self) -> Any:
        import ipywidgets as w

        output = w.HTML(self.render())
        order = sorted(self.specs, key=lambda name: name != self.main)  # the main control first
        self.controls = {name: _make_control(w, self.specs[name]) for name in order if self.specs[name].kind != "fixed"}
        self.output = output
        self._show_activity()

        def updater(name: str) -> Any:
            def update(change: dict[str, Any]) -> None:
                if self._syncing:  # a control moved by `_sync`, not by the learner
                    return
                self._sync(self.change(name, self.specs[name].parse(change["new"])))
                output.value = self.render()

            return update

        for name, control in self.controls.items():
            control.observe(updater(name), names="value")
        return w.VBox([w.HBox(list(self.controls.values()), layout=w.Layout(flex_flow="row wrap")), output])

    def _sync(self, followed: list[str]) -> None:
        """Move the controls in `followed` to their new ranges and values, then enable or disable
        every control for the new state (their own callbacks stay quiet meanwhile)."""
        self._syncing = True
        try:
            for name in followed:
                if name in self.controls:
                    _set_control(self.controls[name], self.specs[name])
            self._show_activity()
        finally:
            self._syncing = False

    def _show_activity(self) -> None:
        inactive = self.inactive()
        for name, control in self.controls.items():
            control.disabled = name in inactive
            control.tooltip = f"changes nothing here: {name} acts {inactive[name]}" if name in inactive else None

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["text/html"] = self.output.value
        return bundle


def _main_control(chunker_class: type[Chunker], specs: dict[str, ControlSpec], main: str | None) -> str | None:
    """The slider to put first and to check (`chunklab.viz.start_check`): `main` when given, else
    the class's `main_control`, else the first slider (None: no slider at all)."""
    sliders = [name for name, spec in specs.items() if spec.kind in NUMERIC]
    if main is not None:
        if main not in sliders:
            raise ValueError(f"main={main!r} is not a slider of {chunker_class.__name__}; sliders: {sliders}")
        return main
    return chunker_class.main_control if chunker_class.main_control in sliders else next(iter(sliders), None)


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


def _set_control(control: Any, spec: ControlSpec) -> None:
    """Give a control a new range and value in one message; the range and the value are checked
    against each other only once all are set (a new minimum may lie above the old maximum).

    A slider stops reporting its own moves meanwhile: its front end may apply the new value before
    the new range (the order of a message's keys is not fixed), snap it to the old steps and send
    that back as if the learner had moved it (it reports every move while ``continuous_update`` is
    on). The new range then puts the handle on the value that was sent.
    """
    slider = spec.kind in NUMERIC
    if slider:
        control.continuous_update = False
    with control.hold_sync(), control.hold_trait_notifications():
        if slider:
            control.min, control.max, control.step = spec.low, spec.high, spec.step
        control.value = spec.shown()
    if slider:
        control.continuous_update = True


def _jsonable(values: dict[str, Any]) -> dict[str, Any]:
    plain_values = {key: plain(value) for key, value in values.items()}
    return {key: value for key, value in plain_values.items()
            if _is_json(value) or isinstance(value, list) and all(_is_json(v) for v in value)}


def _is_json(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool, type(None)))


def _error_html(message: str, attrs: dict[str, Any]) -> str:
    return (
        f'<div class="chunklab-view" {data_attributes({"nchunks": 0, **attrs})} '
        f'data-error="{html.escape(message, quote=True)}">'
        f'<div style="color:#b00020;font-family:monospace;padding:6px 0">{html.escape(message)}</div></div>'
    )


def explore(chunker_class: type[Chunker], text: str, **overrides: Any) -> Explorer:
    """Interactive explorer for `chunker_class` on `text`; see `control_specs` for `overrides`.

    ``max_chars`` (default 6,000) limits how much of the text is drawn; ``main`` names the slider
    to put first instead of the class's `main_control` (the one the lesson is about).
    """
    return Explorer(chunker_class, text, **overrides)
