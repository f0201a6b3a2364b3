"""Does an explorer open in a state where its main control visibly does something?

An explorer that opens where moving its main slider changes nothing on screen (every boundary
beyond the part drawn, a level of a tree with nothing below it, a threshold that no gap reaches)
teaches that the parameter does not matter. `check_start` renders the opening state and the main
control a quarter of its range away on either side, and compares the chunk boundaries the learner
would see (those inside the drawn part of the text). The move that decides is the one toward the
side of the range with more room: the one a learner can always make, and the one the browser test
(tests/e2e) makes with the mouse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core import ParameterError
from .controls import snapped
from .explorer import Explorer

__all__ = ["StartCheck", "check_start", "visible_boundaries"]

#: How far the main control is moved, as a share of its range.
SHARE = 0.25

#: Chunk spans as drawn: clipped to the drawn part of the text; None for a parameter error.
Boundaries = tuple[tuple[int, int], ...] | None


@dataclass(frozen=True)
class StartCheck:
    """The main control's opening value, the values tried and whether the boundaries moved there.

    `shown` counts the chunks on screen at the start (None: the opening state is a parameter
    error); `tried` holds ``(value, moved)`` pairs, `moved` None where the chunker refused the value
    (a parameter error, drawn as a message instead of chunks); `decisive` is the value a quarter of
    the range toward the side with more room.
    """

    chunker: str
    main: str
    start: Any
    shown: int | None
    tried: tuple[tuple[Any, bool | None], ...]
    decisive: Any

    @property
    def ok(self) -> bool:
        """Did moving the main control to the decisive value move the boundaries on screen?"""
        return self.shown is not None and dict(self.tried).get(self.decisive) is True

    def describe(self) -> str:
        """One line: the chunker, the control, its start and what each move did."""
        moves = ", ".join(
            f"{value}: {'error' if moved is None else 'moved' if moved else 'no change'}" for value, moved in self.tried
        )
        verdict = "ok" if self.ok else "DEAD START"
        opening = "an error" if self.shown is None else f"{self.shown} chunks on screen"
        return f"{self.chunker}: {self.main} from {self.start} ({opening}) -> {moves}; {verdict}"


def visible_boundaries(explorer: Explorer, **params: Any) -> Boundaries:
    """The spans of the chunks drawn for these parameters, clipped to the part of the text the
    explorer draws (`max_chars`); None when the chunker refuses the parameters."""
    try:
        chunks = explorer.chunks(**params)
    except ParameterError:
        return None
    limit = len(explorer.text) if explorer.max_chars is None else explorer.max_chars
    return tuple(sorted({(c.start, min(c.end, limit)) for c in chunks if c.start < limit}))


def check_start(explorer: Explorer, share: float = SHARE) -> StartCheck:
    """Render `explorer`'s opening state and its main control `share` of its range lower and
    higher (on the slider's step, inside its range), and report whether the boundaries moved."""
    if explorer.main is None:
        raise ValueError(f"{explorer.chunker_class.__name__}: the explorer has no slider to check")
    spec = explorer.specs[explorer.main]
    start = explorer.params[explorer.main]
    low, high, _ = spec.slider()
    span = high - low
    position = (start - low) / span if span else 0.0
    lower, higher = (snapped(start + sign * share * span, spec) for sign in (-1, 1))
    decisive = higher if position < 0.5 else lower
    before = visible_boundaries(explorer)
    tried = tuple(
        (value, None if (after := visible_boundaries(explorer, **{explorer.main: value})) is None else after != before)
        for value in dict.fromkeys((lower, higher))
        if value != start
    )
    return StartCheck(
        explorer.chunker_class.name or explorer.chunker_class.__name__,
        explorer.main,
        start,
        None if before is None else len(before),
        tried,
        decisive,
    )
