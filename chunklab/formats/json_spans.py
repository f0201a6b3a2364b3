"""JSON and JSON Lines parsed into values with exact character spans and JSON paths.

The standard library's decoder says what a JSON value is, not where it is; `json_tree` walks the
text itself (decoding each key and scalar with `json.JSONDecoder.raw_decode`, which does report
where a value ends) and returns a `JsonNode` per value: its span in the text, its path
(``$.store.books[2].title``) and, for an object or array, its members. An object member's span runs
from its key to the end of its value (``"title": "Moby Dick"``), so a chunk made of whole members
never starts inside one. `json_lines_tree` does the same for JSON Lines: one value per non-blank
line, as the members of a root array (``$[0]``, ``$[1]``, ... by line).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

__all__ = ["JsonNode", "json_lines_tree", "json_path", "json_tree"]

_SPACE = re.compile(r"[ \t\n\r]*")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class JsonNode:
    """A JSON value (or an object member, key included) at ``text[start:end]``, reached by `path`;
    `members` are the nodes of its members when it is an object or an array, else empty; `key` is
    its key in its object (a str) or its index in its array (an int); None for the root."""

    path: str
    start: int
    end: int
    members: tuple[JsonNode, ...] = ()
    key: str | int | None = None


def json_path(parent: str, key: str | int) -> str:
    """The path of member `key` of the value at `parent`: ``$.name``, ``$["odd key"]`` or ``$[3]``."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    if _IDENTIFIER.fullmatch(key):
        return f"{parent}.{key}"
    return f"{parent}[{json.dumps(key, ensure_ascii=False)}]"


def json_tree(text: str) -> JsonNode:
    """The JSON document `text` (one value, whitespace around it allowed) as a tree of `JsonNode`.

    Raises `ValueError` saying where the text stops being JSON (or that it nests too deeply).
    """
    try:
        node, end = _value(text, _skip(text, 0), "$")
    except RecursionError:
        raise ValueError("JSON nested too deeply to walk") from None
    end = _skip(text, end)
    if end != len(text):
        raise ValueError(f"extra data after the JSON value at {_where(text, end)}")
    return node


def json_lines_tree(text: str) -> JsonNode:
    """The JSON Lines text `text` as a root array whose members are its non-blank lines' values.

    Raises `ValueError` naming the first line that is not one JSON value.
    """
    members: list[JsonNode] = []
    offset = 0
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        if line.strip():
            try:
                value = json_tree(line)
            except ValueError as error:
                raise ValueError(f"line {number}: {error}") from None
            members.append(_shifted(value, offset, json_path("$", len(members)), len(members)))
        offset += len(line)
    if not members:
        raise ValueError("no JSON value in the text")
    return JsonNode("$", members[0].start, members[-1].end, tuple(members))


def _shifted(node: JsonNode, offset: int, root: str, key: str | int | None) -> JsonNode:
    """`node` moved `offset` characters on, its path (and its members') rooted at `root` instead of
    ``$``, with `key`."""
    return JsonNode(root + node.path[1:], node.start + offset, node.end + offset,
                    tuple(_shifted(member, offset, root, member.key) for member in node.members), key)


def _skip(text: str, at: int) -> int:
    match = _SPACE.match(text, at)
    return match.end() if match else at


def _where(text: str, at: int) -> str:
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    return f"line {line}, column {column}"


def _value(text: str, at: int, path: str) -> tuple[JsonNode, int]:
    """The value starting at `at` (no whitespace before it) and where it ends."""
    opening = text[at : at + 1]
    if opening == "{":
        return _container(text, at, path, "}", keyed=True)
    if opening == "[":
        return _container(text, at, path, "]", keyed=False)
    try:
        _, end = _DECODER.raw_decode(text, at)
    except json.JSONDecodeError:
        raise ValueError(f"not JSON at {_where(text, at)}") from None
    return JsonNode(path, at, end), end


def _container(text: str, at: int, path: str, closing: str, keyed: bool) -> tuple[JsonNode, int]:
    members: list[JsonNode] = []
    pos = _skip(text, at + 1)
    if text[pos : pos + 1] == closing:
        return JsonNode(path, at, pos + 1), pos + 1
    while True:
        start = pos
        if keyed:
            try:
                key, pos = _DECODER.raw_decode(text, pos) if text[pos : pos + 1] == '"' else (None, pos)
            except json.JSONDecodeError:
                key = None
            if not isinstance(key, str):
                raise ValueError(f"expected a key in double quotes at {_where(text, start)}")
            pos = _skip(text, pos)
            if text[pos : pos + 1] != ":":
                raise ValueError(f"expected ':' at {_where(text, pos)}")
            pos = _skip(text, pos + 1)
        else:
            key = len(members)
        member_path = json_path(path, key)
        value, pos = _value(text, pos, member_path)
        members.append(JsonNode(member_path, start, value.end, value.members, key))
        pos = _skip(text, pos)
        separator = text[pos : pos + 1]
        if separator == closing:
            return JsonNode(path, at, pos + 1, tuple(members)), pos + 1
        if separator != ",":
            raise ValueError(f"expected ',' or '{closing}' at {_where(text, pos)}")
        pos = _skip(text, pos + 1)
