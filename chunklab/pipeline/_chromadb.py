"""chromadb, imported without compiling rfc3987-syntax's grammars until an IRI is checked.

chromadb imports jsonschema, and jsonschema, when rfc3987-syntax is installed (Jupyter's packages
install it), imports that package to check the ``iri`` and ``iri-reference`` formats. Importing
rfc3987-syntax compiles 38 Lark grammars: over a second on two cores, more than the rest of
chromadb's import, and more time again to free them when the interpreter exits. Here jsonschema is
imported first, with a stand-in for rfc3987-syntax whose ``is_valid_syntax`` imports the real
package on its first call (any other name it is asked for imports it at once). jsonschema registers
the same two format checks and they give the same answers; a process that never checks an IRI never
compiles the grammars. The stand-in is removed as soon as jsonschema is imported, so an ``import
rfc3987_syntax`` anywhere else gets the real package.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import Any

_NAME = "rfc3987_syntax"


class _StandIn(types.ModuleType):
    """rfc3987_syntax while jsonschema is imported: `is_valid_syntax` waits for its first call."""

    def __init__(self) -> None:
        super().__init__(_NAME)
        self.is_valid_syntax = _is_valid_syntax

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # the import system's questions (``__path__``...) are not for the package
            raise AttributeError(name)
        return getattr(_real(), name)


def _real() -> types.ModuleType:
    """The installed rfc3987_syntax, imported now if it is not yet (its grammars are compiled then)."""
    if isinstance(sys.modules.get(_NAME), _StandIn):
        del sys.modules[_NAME]
    return importlib.import_module(_NAME)


def _is_valid_syntax(term: str, value: str) -> Any:
    """rfc3987_syntax's ``is_valid_syntax(term, value)``: whether `value` is a valid `term` (``"iri"``...)."""
    return _real().is_valid_syntax(term, value)


def _import_jsonschema() -> None:
    """Import jsonschema with `_StandIn` in place of rfc3987_syntax, when both are installed and
    neither is imported yet (otherwise there is nothing to defer)."""
    if "jsonschema" in sys.modules or _NAME in sys.modules:
        return
    if importlib.util.find_spec("jsonschema") is None or importlib.util.find_spec(_NAME) is None:
        return
    stand_in = _StandIn()
    sys.modules[_NAME] = stand_in
    try:
        importlib.import_module("jsonschema")
    finally:
        if sys.modules.get(_NAME) is stand_in:
            del sys.modules[_NAME]


_import_jsonschema()

import chromadb as chromadb  # noqa: E402  (after jsonschema, which it imports)
