"""Code-aware chunking: source code split between its statements, top-level definitions first.

A function or class is the unit a reader of code thinks in, so a chunk boundary belongs between two
of them, never in the middle of one that fits. A parser says where every top-level statement begins
and ends (`chunklab.formats.code`: Python's own `ast`, and tree-sitter for JavaScript, TypeScript,
TSX, Go, Rust, Java, C, C++, C#, Ruby, PHP and Bash); decorators and the comments above a statement
go with it, and those line ranges are merged greedily up to the size limit. A statement that alone is
too big (a large class, a long function) is split the same way one level down (its header with the
first statements of its body, then the rest of the body), down to single lines. Code in another
language, and Python that does not parse, is cut by the line cascade of
`chunklab.strategies.recursive`.

Offsets come from the parser's line numbers, turned into character offsets, so they are exact, and
every cut falls at a line start.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Callable, Iterator, Literal, Sequence

from ..constraints import Param
from ..core import Chunker, ChunkSpan, ParameterError, register
from ..formats.blocks import Block
from ..formats.code import TREE_SITTER_LANGUAGES, Statement, code_statements, fence_language, grammar_available
from ..formats.markdown import line_starts
from ..formats.parse import document_blocks, guess_format
from ..text.length import DEFAULT_CHUNK_SIZE, TokenizerParam, UnitParam, UnitSized
from ..text.pack import pack
from ..text.spans import trim_span
from .recursive import LEVELS, recursive_spans

__all__ = ["CodeChunker", "CodeLanguage", "code_block_spans", "code_spans"]

Measure = Callable[[str], int]
Pieces = list[tuple[int, int, dict[str, Any]]]
#: The languages `CodeChunker` parses, besides ``"auto"`` (markdown fences, else Python) and ``"text"`` (lines).
CodeLanguage = Literal[
    "auto", "text", "python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp", "c_sharp",
    "ruby", "php", "bash",
]
#: The cascade for code that does not parse: blank lines, lines, then words and characters.
CODE_LEVELS = ("paragraph", "line", "word", "char")
_FENCE = re.compile(r"[ \t]*(?:```|~~~)")


def code_spans(
    text: str, start: int, end: int, limit: int, measure: Measure = len, language: str = "python"
) -> Pieces:
    """The code in ``text[start:end]`` cut into spans that measure at most `limit`, in order.

    The code is parsed as `language` (``"python"`` or one of
    `chunklab.formats.code.TREE_SITTER_LANGUAGES`) and cut between statements (see the module
    docstring); each span's metadata names the ``definitions`` it holds (``"def run"``,
    ``"class Cache"``, ``"function main"``) and, for a span inside a definition that had to be
    split, the ``context``: the first line of each enclosing definition (``"class Cache(Base):"``).
    Other languages, code that does not parse and a grammar that is not installed give cuts at
    blank lines, then lines, then words.
    """
    start, end = trim_span(text, start, end)
    if start >= end:
        return []
    statements = code_statements(text[start:end], language)
    if statements is None:
        return _by_lines(text, start, end, limit, measure)
    return _Splitter(text, limit, measure).split(_moved(statements, start), start, end, ())


def _moved(statements: Sequence[Statement], offset: int) -> tuple[Statement, ...]:
    """`statements` (and their bodies) `offset` characters further on."""
    return tuple(Statement(s.start + offset, s.end + offset, s.label, s.signature, _moved(s.body, offset))
                 for s in statements)


class _Splitter:
    """Cuts source code in `text` at statement boundaries."""

    def __init__(self, text: str, limit: int, measure: Measure) -> None:
        self.text = text
        self.limit = limit
        self.measure = measure

    def fits(self, start: int, end: int) -> bool:
        return self.measure(self.text[start:end]) <= self.limit

    def _lines(self, start: int, end: int) -> Pieces:
        return _by_lines(self.text, start, end, self.limit, self.measure)

    def split(self, body: Sequence[Statement], lead: int, end: int, context: tuple[str, ...]) -> Pieces:
        """Spans for the statements `body`, which occupy ``text[lead:end]``, inside `context`.

        Each statement's unit runs from the end of the previous statement's last line (so comments
        above a statement go with it) to the end of its own last line; the first starts at `lead`,
        the last ends at `end`. Units that fit are packed; one that does not is split one level down.
        """
        units, fitting, out = [], [], []
        for i, node in enumerate(body):
            head = lead if i == 0 else max(lead, body[i - 1].end)
            tail = end if i == len(body) - 1 else min(end, node.end)
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

    def _pack(self, units: list[tuple[int, int, Statement]], context: tuple[str, ...]) -> Pieces:
        spans = [(s, e) for s, e, _ in units]
        out = []
        for s, e, first, last in pack(self.text, spans, self.limit, self.measure):
            names = [node.label for _, _, node in units[first : last + 1] if node.label]
            out.append((s, e, _metadata(names, context)))
        return out

    def _split_statement(self, start: int, end: int, node: Statement, context: tuple[str, ...]) -> Pieces:
        """A statement too big for one chunk: its header with as much of its body as fits, then the
        rest of the body, split recursively; a statement without a body is cut by lines."""
        own = _metadata([node.label] if node.label else [], context)
        body = [child for child in node.body if start <= child.start < end]
        if not body:
            return [(s, e, own) for s, e, _ in self._lines(start, end)]
        body_start = max(start, body[0].start)
        header = trim_span(self.text, start, body_start)
        parts = self.split(body, body_start, end, (*context, node.signature) if node.label else context)
        if header[0] >= header[1]:
            return parts
        if parts and self.fits(header[0], parts[0][1]):
            merged = _metadata([*own["definitions"], *parts[0][2]["definitions"]], context)
            return [(header[0], parts[0][1], merged), *parts[1:]]
        if not self.fits(*header):  # a signature longer than a chunk
            head = [(s, e, own) for s, e, _ in self._lines(*header)]
            return head + parts
        return [(*header, own), *parts]


def _metadata(names: list[str], context: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {"definitions": tuple(names)}
    if context:
        out["context"] = "\n".join(context)
    return out


def code_block_spans(text: str, block: Block, limit: int, measure: Measure = len) -> Pieces:
    """A code block (`chunklab.formats.blocks.Block` of kind ``"code"``) cut into spans of at most `limit`.

    The code between a markdown fence's opening and closing lines is cut by `code_spans` in the
    fence's language (`chunklab.formats.code.fence_language`: ``py``, ``js``, ``rs``... understood);
    the opening line goes with the first span and the closing line with the last, room being left
    for them. Other code blocks (indented markdown code, HTML ``<pre>``) are cut whole. Metadata adds
    the ``language``.
    """
    language = fence_language(block.info)
    lines = line_starts(text[block.start : block.end])
    body = (block.start, block.end)
    if block.attrs.get("fenced") and _FENCE.match(text, block.start) and len(lines) > 2:
        closing = block.start + lines[-2]
        closed = _FENCE.match(text, closing) is not None
        body = (block.start + lines[1], closing if closed else block.end)
    spare = measure(text[block.start : body[0]]) + measure(text[body[1] : block.end])
    pieces = code_spans(text, *body, max(1, limit - spare), measure, language)
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
    """Chunk code at its statements: top-level definitions first, in Python and twelve other languages.

    * A markdown document (``language="auto"``, the default, when the text looks like markdown):
      every fenced code block is cut as code in its own language (`code_block_spans`): whole when
      it fits, else between top-level statements (Python, JavaScript, TypeScript, Go, Rust, Java,
      C, C++, C#, Ruby, PHP, Bash) or at blank lines then lines (anything else). The prose between
      code blocks is chunked by the recursive cascade (`chunklab.strategies.recursive`), so code
      and prose never share a chunk.
    * Any other text is taken as one source file in `language`: ``"auto"`` means Python (cut by
      lines if it does not parse), ``"text"`` always cuts by lines, and a named language is parsed
      by its tree-sitter grammar (``pip install -e '.[code]' in a chunklab clone``). The command line and
      `chunklab.pipeline.files.chunk_document` set the language of a code file from its extension.

    Metadata: ``modality`` (``"code"`` or ``"prose"``), ``language`` (a fence's language; the file's
    for a whole file), ``definitions`` (what a chunk defines: ``"def run"``, ``"class Cache"``,
    ``"function main"``, ``"impl Ring"``) and ``context`` (the first lines of the definitions a
    chunk sits inside, when one had to be split).

    Size contract: every chunk measures at most `chunk_size` in `unit`, except a single character that a
    tokenizer splits into more than `chunk_size` tokens.
    """

    name = "code"

    def __init__(
        self,
        *,
        chunk_size: Annotated[int, Param(low=1, slider=(50, 2000, 10), counted_in_unit=True)] = DEFAULT_CHUNK_SIZE,
        language: CodeLanguage = "auto",
        unit: UnitParam = "chars",
        tokenizer: TokenizerParam = "minilm",
    ) -> None:
        self.chunk_size = chunk_size
        self.language = language
        self.unit = unit
        self.tokenizer = tokenizer
        self.validate()

    def check(self) -> None:
        """A language parsed by tree-sitter needs its grammar installed."""
        if self.language in TREE_SITTER_LANGUAGES and not grammar_available(self.language):
            module = TREE_SITTER_LANGUAGES[self.language][0].replace("_", "-")
            raise ParameterError(
                f"CodeChunker: language {self.language!r} needs tree-sitter and {module} "
                "(pip install -e '.[code]' in a chunklab clone)"
            )

    def spans(self, text: str) -> Iterator[ChunkSpan]:
        """Yield code and prose spans in order."""
        measure = self.measure_function()
        if self.language == "auto" and guess_format(text) == "markdown":
            yield from self._markdown(text, measure)
            return
        language = "python" if self.language == "auto" else self.language
        for start, end, meta in code_spans(text, 0, len(text), self.chunk_size, measure, language):
            yield start, end, {"modality": "code", "language": language, **meta}

    def _markdown(self, text: str, measure: Measure) -> Iterator[ChunkSpan]:
        prose_start = 0
        for block in [b for b in document_blocks(text, "markdown") if b.kind == "code"]:
            yield from self._prose(text, prose_start, block.start, measure)
            yield from self.block_spans(text, block)
            prose_start = block.end
        yield from self._prose(text, prose_start, len(text), measure)

    def block_spans(self, text: str, block: Block) -> Iterator[ChunkSpan]:
        """The chunks of one code block of `text`, already parsed (a `chunklab.formats.blocks.Block`
        of kind ``"code"``), as a markdown document's code blocks are cut (`code_block_spans`). The
        hybrid cuts its code blocks with this, on the blocks it has parsed once."""
        for start, end, meta in code_block_spans(text, block, self.chunk_size, self.measure_function()):
            yield start, end, {"modality": "code", "definitions": (), **meta}

    def _prose(self, text: str, start: int, end: int, measure: Measure) -> Iterator[ChunkSpan]:
        for s, e, _ in recursive_spans(text, start, end, LEVELS, self.chunk_size, measure):
            yield s, e, {"modality": "prose"}
