"""What every registered chunker's parameter declarations give the explorer and the command line,
held to a record: ``tests/fixtures/explorer_controls.json``, written before the declarations moved
from class attributes to one record per parameter, so a change to how they are declared cannot
change a control, a range, a condition or a description unnoticed.

Rewrite the record (``python tests/test_declarations.py``) only for a change meant to change what
the learner sees, and say so in the commit."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from chunklab import CHUNKERS
from chunklab.core import Chunker
from chunklab.metadata import plain
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


@pytest.mark.parametrize("name", sorted(CHUNKERS))
def test_the_explorer_and_the_command_line_show_what_they_showed(name: str) -> None:
    # Through JSON, as recorded: a tuple and a list compare alike, as do 0.5 and 0.5.
    now = json.loads(json.dumps(snapshot(CHUNKERS[name])))
    assert now == _recorded()[name]


if __name__ == "__main__":
    lines = [f"{json.dumps(name)}: {json.dumps(record, sort_keys=True)}" for name, record in snapshots().items()]
    RECORD.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")  # a chunker a line
    print(f"wrote {RECORD} ({len(CHUNKERS)} chunkers)", file=sys.stderr)
