"""JSON-aware chunking: cuts between whole values, each chunk labelled with its JSON path.

A JSON document (or a JSON Lines file) is a tree of values (`chunklab.formats.json_spans`). A chunk
is a run of consecutive members of one object or array, packed while it fits: whole ``"key": value``
members, whole array elements, whole lines of JSON Lines. A member too big for a chunk is opened
and its own members are packed the same way, one level down; a string too long for a chunk (the
only value without members) is cut by the recursive cascade, at words then characters, and marked
``cut``. The text between members (commas, whitespace) stays in the chunk it falls inside; brackets
and the keys of opened members are in no chunk but in every chunk's path.

Each chunk's ``json_path`` (and ``context``, to index in front of it, since a chunk of bare values
says nothing about where it sits) is the path of what it holds: one member's own path
(``$.orders[3].items``), several array elements as a slice (``$.orders[3:7]``, end exclusive),
several object members as their object's path (``$.settings``). Text that is neither JSON nor JSON
Lines is cut by the recursive cascade, without a path.
"""

from __future__ import annotations

from typing import Annotated, Any, Callable, Iterator, Sequence

from ..constraints import Param
from ..core import Chunker, ChunkSpan, register
from ..formats.json_spans import JsonNode, json_lines_tree, json_tree
from ..text.length import DEFAULT_CHUNK_SIZE, TokenizerParam, UnitParam, UnitSized
from ..text.pack import pack
from .recursive import LEVELS, recursive_spans

__all__ = ["JsonChunker", "json_spans"]

Measure = Callable[[str], int]


def json_spans(text: str, limit: int, measure: Measure = len) -> list[tuple[int, int, dict[str, Any]]]:
    """The chunk spans of the JSON or JSON Lines `text` (module docstring), each with its metadata."""
    try:
        root = json_tree(text)
    except ValueError:
        try:
            root = json_lines_tree(text)
        except ValueError:
            return [(s, e, {}) for s, e, _ in recursive_spans(text, 0, len(text), LEVELS, limit, measure)]
        return _members(text, root, limit, measure)
    if measure(text[root.start : root.end]) <= limit or not root.members:
        return _whole(text, root, limit, measure)
    return _members(text, root, limit, measure)


def _labelled(path: str, cut: bool = False) -> dict[str, Any]:
    metadata: dict[str, Any] = {"json_path": path, "context": path}
    if cut:
        metadata["cut"] = True
    return metadata


def _whole(text: str, node: JsonNode, limit: int, measure: Measure) -> list[tuple[int, int, dict[str, Any]]]:
    """`node` in one chunk if it fits, else (a value without members) cut by the cascade."""
    if measure(text[node.start : node.end]) <= limit:
        return [(node.start, node.end, _labelled(node.path))]
    pieces = recursive_spans(text, node.start, node.end, LEVELS, limit, measure)
    return [(s, e, _labelled(node.path, cut=True)) for s, e, _ in pieces]


def _members(text: str, node: JsonNode, limit: int, measure: Measure) -> list[tuple[int, int, dict[str, Any]]]:
    """The members of `node` packed into chunks; a member that does not fit is opened (module docstring)."""
    out: list[tuple[int, int, dict[str, Any]]] = []
    run: list[JsonNode] = []
    for member in node.members:
        if measure(text[member.start : member.end]) <= limit:
            run.append(member)
            continue
        out.extend(_packed(text, node, run, limit, measure))
        run = []
        if member.members:
            out.extend(_members(text, member, limit, measure))
        else:
            out.extend(_whole(text, member, limit, measure))
    out.extend(_packed(text, node, run, limit, measure))
    return out


def _packed(
    text: str, parent: JsonNode, run: Sequence[JsonNode], limit: int, measure: Measure
) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """Consecutive fitting members of `parent` packed into chunks, each labelled with its path."""
    spans = [(m.start, m.end) for m in run]
    for start, end, first, last in pack(text, spans, limit, measure):
        yield start, end, _labelled(_run_path(parent, run[first], run[last]))


def _run_path(parent: JsonNode, first: JsonNode, last: JsonNode) -> str:
    """One member's own path; a slice of an array's elements; an object's members by its own path."""
    if first is last:
        return first.path
    if isinstance(first.key, int) and isinstance(last.key, int):
        return f"{parent.path}[{first.key}:{last.key + 1}]"
    return parent.path


@register
class JsonChunker(UnitSized, Chunker):
    """Chunk JSON and JSON Lines between whole values, each chunk with its JSON path as context.

    Members of an object or array are packed while they fit in `chunk_size` (in `unit`); a member
    too big is opened and its members packed one level down; a string longer than a chunk is cut at
    words and marked ``cut``. Metadata: ``json_path`` (``$.orders[3]``; ``$.orders[3:7]`` for several
    elements; the object's path for several of its members), ``context`` (the same path) and
    ``cut``. Text that is neither JSON nor JSON Lines is cut by the recursive cascade, without a path.

    Size contract: every chunk measures at most `chunk_size`, except a single character that a
    tokenizer splits into more than `chunk_size` tokens.
    """

    name = "json"
    size_param = "chunk_size"

    def __init__(
        self,
        *,
        chunk_size: Annotated[int, Param(low=1, slider=(50, 2000, 10), counted_in_unit=True)] = DEFAULT_CHUNK_SIZE,
        unit: UnitParam = "chars",
        tokenizer: TokenizerParam = "minilm",
    ) -> None:
        self.chunk_size = chunk_size
        self.unit = unit
        self.tokenizer = tokenizer
        self.validate()

    def spans(self, text: str) -> Iterator[ChunkSpan]:
        """Yield the chunks of members in source order (see the module docstring)."""
        yield from json_spans(text, self.chunk_size, self.measure_function())
