"""Driving one `chunklab.viz.explorer` widget as a learner would, and judging what it then shows.

An explorer is the ipywidgets VBox that `chunklab.viz.explorer` builds: a row of controls (each labelled
with its parameter name) above an HTML widget holding a ``div.chunklab-view``. That view carries
``data-nchunks``, ``data-params`` (JSON of the values it was drawn with) and, for an invalid
combination, ``data-error``; its coloured segments are the chunk spans the learner sees. It also
says which slider is the main control (``data-main``), which controls act only when another one
has certain values (``data-active-when``, as the chunker declares it) and which sliders count in
the chosen unit (``data-in-unit``).

`check_explorer` first checks the opening state: the main control comes first and, dragged a
quarter of its range with the mouse, moves the chunk boundaries on screen. Then it moves the slider
with the keyboard, and after each move checks that the view caught up with the slider's readout,
that the chunk count moved in the direction the parameter implies, and that the boundaries moved
when they had to. If the explorer has a text box (a ``str`` parameter, or a ``tuple[str, ...]`` one
as comma-separated values), `check_text_box` types into the first one and presses Enter, checks
that the view was drawn with the typed value and that the boundaries moved, and types the old value
back. Last, `check_dependencies` checks that exactly the controls that change nothing in the
current state are disabled, chooses for each deciding dropdown an option that changes that, checks
again (and, for ``unit``, that the size sliders now offer sizes in that unit), and chooses the old
option back.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .notebook_page import kernel_idle

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

__all__ = [
    "EXPLORER_SELECTOR",
    "STATIC_VIEW_SELECTOR",
    "ExplorerState",
    "check_dependencies",
    "check_explorer",
    "check_text_box",
    "read_state",
    "text_edits",
    "wait_until_followed",
]

#: The live explorer widgets on a page.
EXPLORER_SELECTOR = ".jp-OutputArea-output .widget-vbox:has(> .widget-html .chunklab-view[data-params])"
#: An explorer view drawn as plain HTML, i.e. the widget front end failed to render the live widget.
STATIC_VIEW_SELECTOR = ".jp-OutputArea-output .chunklab-view[data-params]:not(.widget-html .chunklab-view)"

#: Parameters whose larger values can only mean larger (so fewer or as many) chunks.
SIZE_LIKE = frozenset({"chunk_size", "rows", "pages_per_chunk"})

FOLLOW_TIMEOUT_S = 30
#: The first choice of a dropdown option may load a model and embed the whole text (``parents="semantic"``).
CHOICE_TIMEOUT_S = 180
STALL_S = 4.0
_STABLE_S = 0.5
_DRAG_FRACTION = 0.25

_STATE_JS = """explorer => {
    const view = explorer.querySelector(':scope > .widget-html .chunklab-view');
    const sliders = [...explorer.querySelectorAll(':scope > .widget-hbox .widget-slider')].map(slider => {
        const handle = slider.querySelector('.noUi-handle');
        return {
            name: slider.querySelector('.widget-label').textContent.trim(),
            readout: slider.querySelector('.widget-readout').textContent.trim(),
            min: Number(handle.getAttribute('aria-valuemin')),
            max: Number(handle.getAttribute('aria-valuemax')),
        };
    });
    // Every control in the row, in order: its name, whether it is disabled, and a dropdown's choice.
    const controls = [...explorer.querySelectorAll(':scope > .widget-hbox > .widget-inline-hbox')].map(control => {
        // A checkbox shows its name beside the box; its .widget-label is hidden and holds a zero-width space.
        const label = (control.querySelector('.widget-label-basic span') ?? control.querySelector('.widget-label'))
            ?.textContent.trim() ?? '';
        const select = control.querySelector('select');
        return {
            name: label,
            disabled: control.querySelector('select[disabled], input[disabled], .noUi-target[disabled]') !== null,
            choice: select ? select.value : null,
            options: select ? [...select.options].map(option => option.value) : null,
        };
    });
    const boxes = [...explorer.querySelectorAll(':scope > .widget-hbox .widget-text')].map(box => ({
        name: box.querySelector('.widget-label').textContent.trim(),
        value: box.querySelector('input').value,
    }));
    const text = view.querySelector('.cl-text');
    // the text's pieces, without the chunk labels (cl-mark) drawn at chunk starts
    const pieces = text ? [...text.children].filter(el => !el.classList.contains('cl-mark')) : [];
    const segments = pieces.map(el => [el.dataset.chunks ?? '-', el.textContent.length]);
    return {
        sliders,
        boxes,
        controls,
        shown: pieces.map(el => el.textContent).join(''),
        params: JSON.parse(view.dataset.params),
        nchunks: Number(view.dataset.nchunks),
        error: view.dataset.error ?? null,
        segments,
        main: view.dataset.main ?? null,
        activeWhen: JSON.parse(view.dataset.activeWhen ?? '{}'),
        inUnit: JSON.parse(view.dataset.inUnit ?? '[]'),
    };
}"""


@dataclass(frozen=True)
class ExplorerState:
    """What one explorer shows: slider readouts, text boxes, and the view's parameters, count, text
    and spans."""

    readouts: dict[str, str]
    ranges: dict[str, tuple[float, float]]
    params: dict[str, Any]
    nchunks: int
    error: str | None
    segments: tuple[tuple[str, int], ...]
    boxes: dict[str, str] = field(default_factory=dict)
    shown: str = field(default="", compare=False)
    #: Every control's name, in the row's order.
    order: tuple[str, ...] = ()
    disabled: frozenset[str] = frozenset()
    #: Each dropdown's current choice and its options.
    choices: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    main: str | None = None
    active_when: dict[str, dict[str, list[Any]]] = field(default_factory=dict, compare=False)
    in_unit: tuple[str, ...] = field(default=(), compare=False)

    def value(self, name: str) -> float:
        """The slider's readout as a number."""
        return float(self.readouts[name])

    def follows(self, name: str) -> bool:
        """Was the view drawn with the value the slider shows?"""
        drawn = self.params.get(name)
        if not isinstance(drawn, (int, float)):
            return False
        readout = self.readouts[name]
        decimals = len(readout.split(".")[1]) if "." in readout else 0
        return abs(drawn - float(readout)) <= 0.5 * 10**-decimals + 1e-9

    def describe(self, name: str) -> str:
        """A one-line summary for failure messages."""
        error = f", error {self.error!r}" if self.error else ""
        drawn = self.params.get(name)
        return f"slider {name}={self.readouts[name]}, view drawn with {name}={drawn!r}, {self.nchunks} chunks{error}"

    def shows_typed(self, name: str, typed: str) -> bool:
        """Was the view drawn with what was typed into the text box `name`?

        A ``tuple[str, ...]`` parameter arrives in ``data-params`` as a list: the typed text split at
        commas, each value stripped, empty ones dropped. A ``str`` parameter arrives as typed.
        """
        drawn = self.params.get(name)
        if isinstance(drawn, list):
            return drawn == [part.strip() for part in typed.split(",") if part.strip()]
        return drawn == typed

    def expected_disabled(self, choices: dict[str, str] | None = None) -> frozenset[str]:
        """The controls that change nothing when the dropdowns show `choices` (default: what they
        show now), by the rules the view declares."""
        current = {name: choice for name, (choice, _) in self.choices.items()} | (choices or {})
        return frozenset(
            name
            for name, conditions in self.active_when.items()
            if name in self.order
            and any(decider in current and current[decider] not in allowed for decider, allowed in conditions.items())
        )


def read_state(explorer: Locator) -> ExplorerState:
    """Read an explorer's controls and view from the page."""
    raw = explorer.evaluate(_STATE_JS)
    return ExplorerState(
        readouts={s["name"]: s["readout"] for s in raw["sliders"]},
        ranges={s["name"]: (s["min"], s["max"]) for s in raw["sliders"]},
        params=raw["params"],
        nchunks=raw["nchunks"],
        error=raw["error"],
        segments=tuple((chunks, length) for chunks, length in raw["segments"]),
        boxes={b["name"]: b["value"] for b in raw["boxes"]},
        shown=raw["shown"],
        order=tuple(c["name"] for c in raw["controls"]),
        disabled=frozenset(c["name"] for c in raw["controls"] if c["disabled"]),
        choices={c["name"]: (c["choice"], tuple(c["options"])) for c in raw["controls"] if c["choice"] is not None},
        main=raw["main"],
        active_when=raw["activeWhen"],
        in_unit=tuple(raw["inUnit"]),
    )


def wait_until_followed(
    page: Page,
    explorer: Locator,
    name: str,
    follows: Callable[[ExplorerState], bool] | None = None,
    timeout_s: float = FOLLOW_TIMEOUT_S,
) -> tuple[ExplorerState, bool]:
    """Wait until the view shows the control's value, the kernel is idle and nothing changes any more.

    `follows` says whether a state shows the value (default: the slider `name`'s readout). Returns
    the last state and whether the view caught up. Gives up early when the kernel is idle and the
    page has stopped changing without the view catching up (a failed callback).
    """
    follows = follows or (lambda state: state.follows(name))
    deadline = time.monotonic() + timeout_s
    last, changed_at = None, time.monotonic()
    while True:
        state = read_state(explorer)
        now = time.monotonic()
        if state != last:
            last, changed_at = state, now
        quiet = now - changed_at
        if kernel_idle(page):
            if follows(state) and quiet >= _STABLE_S:
                return state, True
            if not follows(state) and quiet >= STALL_S:
                return state, False
        if now > deadline:
            return state, follows(state)
        time.sleep(0.1)


def _pick_slider(state: ExplorerState) -> str | None:
    """The slider to move: the main control the view names, else a size-like one, else the first."""
    names = list(state.readouts)
    if state.main in names:
        return state.main
    sized = [n for n in names if n in SIZE_LIKE]
    return (sized or names or [None])[0]


def _slider(explorer: Locator, name: str) -> Locator:
    return explorer.locator(":scope > .widget-hbox .widget-slider").filter(
        has=explorer.page.locator(".widget-label", has_text=re.compile(f"^{re.escape(name)}$"))
    )


def _drag(page: Page, slider: Locator, fraction: float) -> None:
    """Press the slider's handle with the mouse and drag it to `fraction` of the track."""
    handle = slider.locator(".noUi-handle")
    handle.scroll_into_view_if_needed()
    grip = handle.bounding_box()
    track = slider.locator(".noUi-base").bounding_box()
    if grip is None or track is None:
        raise AssertionError("slider is not visible")
    y = grip["y"] + grip["height"] / 2
    page.mouse.move(grip["x"] + grip["width"] / 2, y)
    page.mouse.down()
    page.mouse.move(track["x"] + fraction * track["width"], y, steps=12)
    page.mouse.up()


def _count_moved_wrongly(name: str, before: ExplorerState, after: ExplorerState) -> str | None:
    """For a size-like parameter: a bigger value must not give more chunks (nor a smaller one fewer)."""
    if name not in SIZE_LIKE or before.error or after.error:
        return None
    grew = after.value(name) > before.value(name)
    shrank = after.value(name) < before.value(name)
    if (grew and after.nchunks > before.nchunks) or (shrank and after.nchunks < before.nchunks):
        return (
            f"{name} went {before.readouts[name]} -> {after.readouts[name]} "
            f"but the chunk count went {before.nchunks} -> {after.nchunks}"
        )
    return None


def _boundaries_stuck(name: str, before: ExplorerState, after: ExplorerState) -> str | None:
    """The main control moved a quarter of its range from the opening state: the spans on screen must
    move (an explorer that opens where its main control shows nothing teaches that it does nothing).
    Another size-like parameter: unless everything fits one chunk, the spans must move."""
    if before.error or after.error or before.value(name) == after.value(name):
        return None
    main = name == before.main
    if name not in SIZE_LIKE and not main:
        return None
    if before.segments == after.segments and (main or max(before.nchunks, after.nchunks) > 1):
        which = "the main control " if main else ""
        return (
            f"{which}{name} went {before.readouts[name]} -> {after.readouts[name]} but the chunk boundaries did not "
            f"change ({after.nchunks} chunks, same spans)"
        )
    return None


def check_explorer(page: Page, explorer: Locator, label: str, screenshot: Callable[[Locator, str], Path]) -> list[str]:
    """Drag and key-press one slider of `explorer`; return the problems seen (empty: all good)."""
    start = read_state(explorer)
    name = _pick_slider(start)
    if name is None:
        return [f"{label}: has no slider to drag"]
    if not start.follows(name):
        return [f"{label}: before any interaction the view disagrees with its slider ({start.describe(name)})"]
    if start.main is not None and (start.main not in start.readouts or start.order[:1] != (start.main,)):
        return [f"{label}: the main control {start.main!r} is not the first control of the row {list(start.order)}"]
    if name in start.disabled:
        return [f"{label}: the main control {name} is disabled when the explorer opens"]
    screenshot(explorer, f"{label}-before")
    problems: list[str] = []
    slider = _slider(explorer, name)

    # 1. The mouse: drag a quarter of the track towards the side with more room.
    low, high = start.ranges[name]
    position = (start.value(name) - low) / (high - low) if high > low else 0.0
    target = position + _DRAG_FRACTION if position < 0.5 else position - _DRAG_FRACTION
    _drag(page, slider, target)
    dragged, followed = wait_until_followed(page, explorer, name)
    if dragged.value(name) == start.value(name):
        problems.append(f"{label}: dragging the {name} slider with the mouse did not move it")
    elif not followed:
        problems.append(f"{label}: after dragging, the view did not follow the slider ({dragged.describe(name)})")
    else:
        for problem in (_count_moved_wrongly(name, start, dragged), _boundaries_stuck(name, start, dragged)):
            if problem:
                problems.append(f"{label}: mouse drag: {problem}")
    if problems:
        screenshot(explorer, f"{label}-after")
        return problems

    # 2. The keyboard: one step away from the end it is nearest, then back again.
    handle = slider.locator(".noUi-handle")
    away, back = ("ArrowRight", "ArrowLeft") if dragged.value(name) < high else ("ArrowLeft", "ArrowRight")
    handle.focus()
    page.keyboard.press(away)
    stepped, followed = wait_until_followed(page, explorer, name)
    if stepped.value(name) == dragged.value(name):
        problems.append(f"{label}: pressing {away} on the {name} slider did not move it")
    elif not followed:
        problems.append(f"{label}: after {away}, the view did not follow the slider ({stepped.describe(name)})")
    elif problem := _count_moved_wrongly(name, dragged, stepped):
        problems.append(f"{label}: {away}: {problem}")
    if not problems:
        handle.focus()
        page.keyboard.press(back)
        returned, followed = wait_until_followed(page, explorer, name)
        if not followed:
            problems.append(f"{label}: after {back}, the view did not follow the slider ({returned.describe(name)})")
        elif returned.value(name) != dragged.value(name):
            problems.append(
                f"{label}: {away} then {back} should return {name} to {dragged.readouts[name]}, "
                f"got {returned.readouts[name]}"
            )
        elif returned.segments != dragged.segments or returned.nchunks != dragged.nchunks:
            problems.append(
                f"{label}: {name} is back at {returned.readouts[name]} but the chunks differ from the first "
                f"time it had that value ({dragged.nchunks} -> {returned.nchunks} chunks)"
            )
    if not problems:
        problems += check_text_box(page, explorer, label)
    if not problems:
        problems += check_dependencies(page, explorer, label)
    screenshot(explorer, f"{label}-after")
    return problems


_LINE_LEAD = re.compile(r"^[\s#=*>_~-]*([^\W\d_][\w'-]*:?)", re.MULTILINE)


def text_edits(value: str, shown: str) -> list[str]:
    """Values to type into a text box holding `value`, most likely to move the boundaries first.

    1. Drop the last of two or more comma-separated values (a keyword less: its sections merge).
    2. Add the word that starts the most lines of the text on show (after decoration such as
       ``=== ``) and is not in the box yet: a keyword, or a regex, that certainly matches.
    3. Put that word first: in an ordered list (a separator cascade, strongest first) a value added
       at the end may never be reached.
    """
    parts = [part.strip() for part in value.split(",") if part.strip()]
    edits = [", ".join(parts[:-1])] if len(parts) >= 2 else []
    taken = {part.casefold() for part in parts}
    starts: dict[str, int] = {}
    for word in _LINE_LEAD.findall(shown):
        if word.casefold() not in taken:
            starts[word] = starts.get(word, 0) + 1
    if starts:
        word = max(starts, key=lambda w: (starts[w], -list(starts).index(w)))
        edits.append(", ".join([*parts, word]) if parts else word)
        if parts:
            edits.append(", ".join([word, *parts]))
    return edits


def _text_box(explorer: Locator, name: str) -> Locator:
    return explorer.locator(":scope > .widget-hbox .widget-text").filter(
        has=explorer.page.locator(".widget-label", has_text=re.compile(f"^{re.escape(name)}$"))
    ).locator("input")


def _type(box: Locator, value: str) -> None:
    """Replace the box's text and press Enter (the box updates on Enter or blur, not per keystroke)."""
    box.scroll_into_view_if_needed()
    box.fill(value)
    box.press("Enter")


def check_text_box(page: Page, explorer: Locator, label: str) -> list[str]:
    """Type into the explorer's first text box: the view must follow and the boundaries must move.

    Tries the edits of `text_edits` in turn until one moves the spans (none may fail to reach the
    view), then types the old value back and expects the first spans again. No text box: nothing
    to check.
    """
    start = read_state(explorer)
    if not start.boxes:
        return []
    name, original = next(iter(start.boxes.items()))
    box = _text_box(explorer, name)
    edits = text_edits(original, start.shown)
    if not edits:
        return [f"{label}: found nothing to type into the {name} text box"]
    for typed in edits:
        _type(box, typed)
        state, followed = wait_until_followed(page, explorer, name, lambda s, typed=typed: s.shows_typed(name, typed))
        if not followed:
            return [f"{label}: after typing {typed!r} into the {name} box and pressing Enter, the view was drawn "
                    f"with {name}={state.params.get(name)!r}"]
        if state.segments != start.segments:
            break
    else:
        return [f"{label}: typing into the {name} box ({' then '.join(map(repr, edits))}) did not change the "
                f"chunk boundaries ({start.nchunks} chunks, same spans)"]
    _type(box, original)
    back, followed = wait_until_followed(page, explorer, name, lambda s: s.shows_typed(name, original))
    if not followed:
        return [f"{label}: after typing the old value {original!r} back, the view was drawn with "
                f"{name}={back.params.get(name)!r}"]
    if back.segments != start.segments:
        return [f"{label}: the {name} box is back at {original!r} but the chunks differ from before "
                f"({start.nchunks} -> {back.nchunks} chunks)"]
    return []


def _dropdown(explorer: Locator, name: str) -> Locator:
    return explorer.locator(":scope > .widget-hbox .widget-dropdown").filter(
        has=explorer.page.locator(".widget-label", has_text=re.compile(f"^{re.escape(name)}$"))
    ).locator("select")


def _disabled_wrongly(state: ExplorerState, label: str, when: str) -> list[str]:
    """The controls disabled although they act, or enabled although they change nothing."""
    expected, shown = state.expected_disabled(), state.disabled
    problems = []
    if shown - expected:
        problems.append(f"{label}: {when}, {sorted(shown - expected)} disabled although they change the chunks")
    if expected - shown:
        problems.append(f"{label}: {when}, {sorted(expected - shown)} enabled although they change nothing "
                        f"(declared: {({n: state.active_when[n] for n in expected - shown})})")
    return problems


def _best_option(state: ExplorerState, decider: str) -> str | None:
    """The option of dropdown `decider` that enables the most disabled controls (then: that changes
    the most), or None if no option changes which controls are disabled."""
    current, options = state.choices[decider]
    now = state.expected_disabled()

    def gain(option: str) -> tuple[int, int]:
        then = state.expected_disabled({decider: option})
        return len(now - then), len(now ^ then)

    ranked = sorted((o for o in options if o != current and gain(o) != (0, 0)), key=gain, reverse=True)
    return ranked[0] if ranked else None


def _choose(page: Page, explorer: Locator, decider: str, option: str) -> tuple[ExplorerState, bool]:
    """Choose `option` in dropdown `decider` and wait until the view is drawn with it."""
    select = _dropdown(explorer, decider)
    select.scroll_into_view_if_needed()
    select.select_option(option)
    return wait_until_followed(page, explorer, decider, lambda s: s.params.get(decider) == option, CHOICE_TIMEOUT_S)


def _sizes_not_in_unit(before: ExplorerState, after: ExplorerState, unit: str) -> list[str]:
    """From characters to a bigger unit, every size slider must offer at most half as much (a
    token is about four characters of English, a word about six), and the view must be drawn with
    the sizes the sliders show."""
    problems = []
    for name in after.in_unit:
        if name not in after.ranges:
            continue
        high_before, high_after = before.ranges[name][1], after.ranges[name][1]
        if high_after > high_before / 2:
            problems.append(f"the {name} slider still offers up to {high_after:g} {unit} (it offered up to "
                            f"{high_before:g} characters)")
        elif not after.follows(name):
            problems.append(f"the view was not drawn with the size the slider shows ({after.describe(name)})")
    return problems


def check_dependencies(page: Page, explorer: Locator, label: str) -> list[str]:
    """Disabled controls follow the controls that decide whether they act.

    As the explorer stands, exactly the controls that change nothing (by the rules the view
    declares) must be disabled. Then, for each dropdown that decides about another control: choose
    the option that enables the most controls, check again (from ``unit="chars"`` to another unit,
    also that the size sliders count in that unit), then choose the old option back and expect the
    old sliders, the old disabled controls and the old chunks.
    """
    start = read_state(explorer)
    problems = _disabled_wrongly(start, label, "as it stands")
    deciders = dict.fromkeys(d for conditions in start.active_when.values() for d in conditions if d in start.choices)
    for decider in deciders:
        if problems:
            break
        before = read_state(explorer)
        option = _best_option(before, decider)
        if option is None:
            continue
        current = before.choices[decider][0]
        after, followed = _choose(page, explorer, decider, option)
        when = f"after choosing {decider}={option}"
        if not followed:
            problems.append(f"{label}: {when}, the view was drawn with {decider}={after.params.get(decider)!r}")
            break
        problems += _disabled_wrongly(after, label, when)
        if decider == "unit" and current == "chars":
            problems += [f"{label}: {when}, {p}" for p in _sizes_not_in_unit(before, after, option)]
        back, followed = _choose(page, explorer, decider, current)
        if not followed:
            problems.append(f"{label}: choosing {decider}={current} again, the view was drawn with "
                            f"{decider}={back.params.get(decider)!r}")
        elif (back.ranges, back.readouts, back.disabled, back.segments) != (
            before.ranges, before.readouts, before.disabled, before.segments
        ):
            problems.append(f"{label}: back at {decider}={current}, the sliders, disabled controls or chunks differ "
                            f"from before ({before.readouts} -> {back.readouts}, {before.nchunks} -> {back.nchunks} chunks)")
    return problems
