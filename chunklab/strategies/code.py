"""Code-aware chunking: Python split at its statements (top-level ``def``/``class`` first) via `ast`.

A function or class is the unit a reader of code thinks in, so a chunk boundary belongs between two
of them, never in the middle of one that fits. Python's own parser (`ast`) says where every top-level
statement begins and ends (decorators and the comments above a statement go with it); those line
ranges are merged greedily up to the size limit. A statement that alone is too big (a large class, a
long function) is split the same way one level down (its header with the first statements of its
body, then the rest of the body), down to single lines. Code that does not parse as Python (bash,
YAML, a Python fragment) is cut by the line cascade of `chunklab.strategies.recursive`.

Offsets come from the parser's line numbers, turned into character offsets with the same line
breaks markdown-it-py uses (`chunklab.formats.markdown.line_starts`), so they are exact.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Callable, Iterator, Literal, Sequence

from ..core import Chunker, ChunkSpan, register
from ..formats.blocks import Block
from ..formats.markdown import line_starts
from ..formats.parse import document_blocks, guess_format
from ..text.length import SizeUnit, TokenizerLike, UnitSized
from ..text.pack import pack
from ..text.spans import trim_span
from .recursive import LEVELS, recursive_spans

__all__ = ["CodeChunker", "code_block_spans", "code_spans"]

Measure = Callable[[str], int]
Pieces = list[tuple[int, int, dict[str, Any]]]
#: The cascade for code that does not parse: blank lines, lines, then words and characters.
CODE_LEVELS = ("paragraph", "line", "word", "char")
_BODIES = ("body", "orelse", "finalbody", "handlers")
_PYTHON = frozenset({"python", "py", "python3", "py3"})
_FENCE = re.compile(r"[ \t]*(?:```|~~~)")


def code_spans(
    text: str, start: int, end: int, limit: int, measure: Measure = len, language: str = "python"
) -> Pieces:
    """The code in ``text[start:end]`` cut into spans that measure at most `limit`, in order.

    With ``language="python"`` the code is parsed with `ast` and cut between statements (see the
    module docstring); each span's metadata names the ``definitions`` it holds (``"def run"``,
    ``"class Cache"``) and, for a span inside a class or function that had to be split, the
    ``context``: the first line of each enclosing definition (``"class Cache(Base):"``). Other
    languages, and Python that does not parse, are cut at blank lines, then lines, then words.
    """
    start, end = trim_span(text, start, end)
    if start >= end:
        return []
    tree = _parse(text[start:end]) if language == "python" else None
    if tree is None or not tree.body:
        return _by_lines(text, start, end, limit, measure)
    return _Splitter(text, start, end, limit, measure).split(tree.body, start, end, ())


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # not Python, null bytes, too deep
        return None


class _Splitter:
    """Cuts the parsed Python source ``text[start:end]`` at statement boundaries."""

    def __init__(self, text: str, start: int, end: int, limit: int, measure: Measure) -> None:
        self.text = text
        self.limit = limit
        self.measure = measure
        self.base = start
        self.starts = line_starts(text[start:end])

    def line(self, number: int) -> int:
        """Offset in `text` of the start of line `number` (1-based) of the source; past the last line,
        the end of the source."""
        return self.base + self.starts[min(number - 1, len(self.starts) - 1)]

    def first_line(self, node: ast.stmt) -> int:
        """A statement's first line, decorators included."""
        return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])

    def fits(self, start: int, end: int) -> bool:
        return self.measure(self.text[start:end]) <= self.limit

    def _lines(self, start: int, end: int) -> Pieces:
        return _by_lines(self.text, start, end, self.limit, self.measure)

    def split(self, body: Sequence[ast.stmt], lead: int, end: int, context: tuple[str, ...]) -> Pieces:
        """Spans for the statements `body`, which occupy ``text[lead:end]``, inside `context`.

        Each statement's unit runs from the end of the previous statement's last line (so comments
        above a statement go with it) to the end of its own last line; the first starts at `lead`,
        the last ends at `end`. Units that fit are packed; one that does not is split one level down.
        """
        units, fitting, out = [], [], []
        for i, node in enumerate(body):
            head = lead if i == 0 else self.line(body[i - 1].end_lineno + 1)
            tail = end if i == len(body) - 1 else self.line(node.end_lineno + 1)
            s, e = trim_span(self.text, head, tail)
            if s < e:
                units.append((s, e, node))
        for unit in units:
            if self.fits(unit[0], unit[1]):
                fitting.append(unit)
                continue
            out.extend(self._pack(fitting, context))
            fitting = []
            out.extend(self._split_statement(*unit, context))
        out.extend(self._pack(fitting, context))
        return out

    def _pack(self, units: list[tuple[int, int, ast.stmt]], context: tuple[str, ...]) -> Pieces:
        spans = [(s, e) for s, e, _ in units]
        out = []
        for s, e, first, last in pack(self.text, spans, self.limit, self.measure):
            names = [name for _, _, node in units[first : last + 1] if (name := _definition(node))]
            out.append((s, e, _metadata(names, context)))
        return out

    def _split_statement(self, start: int, end: int, node: ast.stmt, context: tuple[str, ...]) -> Pieces:
        """A statement too big for one chunk: its header with as much of its body as fits, then the
        rest of the body, split recursively; a statement without a body is cut by lines."""
        body = [child for field in _BODIES for child in getattr(node, field, ()) if isinstance(child, ast.stmt)]
        own = _metadata([name] if (name := _definition(node)) else [], context)
        if not body:
            return [(s, e, own) for s, e, _ in self._lines(start, end)]
        body_start = self.line(self.first_line(body[0]))
        header = trim_span(self.text, start, body_start)
        signature = self.text[self.line(node.lineno) : self.line(node.lineno + 1)].strip()
        parts = self.split(body, body_start, end, (*context, signature) if name else context)
        if header[0] >= header[1]:
            return parts
        if parts and self.fits(header[0], parts[0][1]):
            merged = _metadata([*own["definitions"], *parts[0][2]["definitions"]], context)
            return [(header[0], parts[0][1], merged), *parts[1:]]
        if not self.fits(*header):  # a signature longer than a chunk
            head = [(s, e, own) for s, e, _ in self._lines(*header)]
            return head + parts
        return [(*header, own), *parts]


def _definition(node: ast.stmt) -> str:
    """``"def name"`` / ``"class name"`` for a definition, else ``""``."""
    if isinstance(node, ast.ClassDef):
        return f"class {node.name}"
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"def {node.name}"
    return ""


def _metadata(names: list[str], context: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {"definitions": tuple(names)}
    if context:
        out["context"] = "\n".join(context)
    return out


def code_block_spans(text: str, block: Block, limit: int, measure: Measure = len) -> Pieces:
    """A code block (`chunklab.formats.blocks.Block` of kind ``"code"``) cut into spans of at most `limit`.

    The code between a markdown fence's opening and closing lines is cut by `code_spans` in the
    fence's language (Python for ``python``/``py``); the opening line goes with the first span and
    the closing line with the last, room being left for them. Other code blocks (indented markdown
    code, HTML ``<pre>``) are cut whole. Metadata adds the ``language``.
    """
    language = block.info.lower()
    lines = line_starts(text[block.start : block.end])
    body = (block.start, block.end)
    if block.attrs.get("fenced") and _FENCE.match(text, block.start) and len(lines) > 2:
        closing = block.start + lines[-2]
        closed = _FENCE.match(text, closing) is not None
        body = (block.start + lines[1], closing if closed else block.end)
    spare = measure(text[block.start : body[0]]) + measure(text[body[1] : block.end])
    pieces = code_spans(text, *body, max(1, limit - spare), measure, "python" if language in _PYTHON else language)
    if not pieces:
        pieces = _by_lines(text, block.start, block.end, limit, measure)
    else:
        (first_start, first_end, first_meta), last_end = pieces[0], pieces[-1][1]
        widened = [(block.start, first_end, first_meta), *pieces[1:]]
        widened[-1] = (widened[-1][0], block.end, widened[-1][2])
        if all(measure(text[a:b]) <= limit for a, b, _ in (widened[0], widened[-1])):
            pieces = widened
        else:  # a tokenizer whose counts do not add up: the fence lines get pieces of their own
            pieces = [*_by_lines(text, block.start, first_start, limit, measure), *pieces,
                      *_by_lines(text, last_end, block.end, limit, measure)]
    return [(a, b, {**m, "language": language}) for a, b, m in pieces]


def _by_lines(text: str, start: int, end: int, limit: int, measure: Measure) -> Pieces:
    """Code cut by the line cascade (blank lines, lines, words), with no definitions."""
    return [(s, e, _metadata([], ())) for s, e, _ in recursive_spans(text, start, end, CODE_LEVELS, limit, measure)]


@register
class CodeChunker(UnitSized, Chunker):
    """Chunk code at its statements: Python at ``def``/``class`` boundaries through `ast`.

    * A markdown document (``language="auto"``, the default, when the text looks like markdown):
      every fenced code block is cut as code in its own language (`code_block_spans`): whole when
      it fits, else between top-level statements for Python and at blank lines then lines for
      anything else. The prose between code blocks is chunked by the recursive cascade
      (`chunklab.strategies.recursive`), so code and prose never share a chunk.
    * Any other text is taken as one source file: Python when it parses (``"auto"`` or
      ``"python"``), else lines (``"text"`` forces that).

    Metadata: ``kind`` (``"code"`` or ``"prose"``), ``language`` (a fence's info string;
    ``"python"`` or ``"text"`` for a whole file), ``definitions`` (the ``def``/``class`` names a
    Python chunk holds) and ``context`` (the signature lines of the classes and functions a chunk
    sits inside, when one had to be split).

    Size contract: every chunk measures at most `chunk_size` in `unit`, except a single character that a
    tokenizer splits into more than `chunk_size` tokens.
    """

    name = "code"
    bounds = {"chunk_size": (1, None)}
    widget_hints = {"chunk_size": (50, 2000, 10)}

    def __init__(
        self,
        chunk_size: int = 400,
        language: Literal["auto", "python", "text"] = "auto",
        unit: SizeUnit = "chars",
        tokenizer: TokenizerLike = "minilm",
    ) -> None:
        self.chunk_size = chunk_size
        self.language = language
        self.unit = unit
        self.tokenizer = tokenizer
        self.validate()

    def spans(self, text: str) -> Iterator[ChunkSpan]:
        """Yield code and prose spans in order."""
        measure = self.measure_function()
        if self.language == "auto" and guess_format(text) == "markdown":
            yield from self._markdown(text, measure)
            return
        language = "text" if self.language == "text" else "python"
        for start, end, meta in code_spans(text, 0, len(text), self.chunk_size, measure, language):
            yield start, end, {"modality": "code", "language": language, **meta}

    def _markdown(self, text: str, measure: Measure) -> Iterator[ChunkSpan]:
        prose_start = 0
        for block in [b for b in document_blocks(text, "markdown") if b.kind == "code"]:
            yield from self._prose(text, prose_start, block.start, measure)
            for start, end, meta in code_block_spans(text, block, self.chunk_size, measure):
                yield start, end, {"modality": "code", "definitions": (), **meta}
            prose_start = block.end
        yield from self._prose(text, prose_start, len(text), measure)

    def _prose(self, text: str, start: int, end: int, measure: Measure) -> Iterator[ChunkSpan]:
        for s, e, _ in recursive_spans(text, start, end, LEVELS, self.chunk_size, measure):
            yield s, e, {"modality": "prose"}
