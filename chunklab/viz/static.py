"""What a widget leaves in a saved notebook: a static picture of its current state beside the live view.

A live ipywidgets box is drawn by JupyterLab's widget manager; a saved notebook rendered anywhere
else (the course site, a repository browser) would show only its text form, ``VBox(children=...)``.
`with_static_view` adds the box's current state as plain HTML or PNG to what it displays, so every
renderer that cannot run widgets shows the table or the figure instead.
"""

from __future__ import annotations

import base64
import io
from typing import Any, Callable

__all__ = ["figure_png", "with_static_view"]


def figure_png(figure: Any) -> str:
    """A matplotlib figure as base64-encoded PNG, the form a notebook stores ``image/png`` in."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def with_static_view(box: Any, static: Callable[[], dict[str, str]], label: str) -> Any:
    """`box`, displaying also ``static()`` (mime type -> data, e.g. ``{"text/html": ...}``) and `label`
    as its text form (in place of ``VBox(...)``). ``static`` is called each time the box is displayed,
    so it shows the state of that moment. Returns `box`."""
    live = type(box)._repr_mimebundle_

    def bundle(**kwargs: Any) -> dict[str, Any]:
        data = dict(live(box, **kwargs) or {})
        data.update(static())
        data["text/plain"] = label
        return data

    box._repr_mimebundle_ = bundle
    return box
