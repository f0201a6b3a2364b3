"""Source code parsed into its statements, in Python (`ast`) and twelve other languages (tree-sitter).

`code_statements` turns source code into the one structure the code chunker cuts
(`chunklab.strategies.code`): the top-level `Statement` list, each statement with its lines, what it
defines (``"def run"``, ``"class Ring"``, ``"function main"``, ``"impl Ring"``) and, for a
definition, the statements of its body one level down. Offsets are those of whole lines, so a cut
between two statements is always at a line start.

* **Python** is parsed by the standard library's `ast` (the exact grammar of the running Python,
  no dependency); code that does not parse gives None.
* **The other languages** (`TREE_SITTER_LANGUAGES`) are parsed by tree-sitter with the
  per-language grammar wheels (``pip install -e '.[code]' in a chunklab clone``), which ship compiled grammars and
  work offline (the all-in-one language pack downloads its grammars at run time, so it is not
  used). tree-sitter parses any text, marking what it cannot read as errors, so a fragment still
  gives the statements around its errors. Comments are not statements: like a Python comment, one
  goes with the statement after it.

`LANGUAGE_BY_SUFFIX` maps file extensions to languages (for `chunklab.formats.readers`) and
`fence_language` a markdown fence's info string (``js``, ``rs``, ``c++``...) to one.
"""

from __future__ import annotations

import ast
import importlib
import re
import types
from dataclasses import dataclass
from typing import Any, cast

from ..caches import RESOURCE, cached
from .markdown import line_starts

__all__ = [
    "LANGUAGE_BY_SUFFIX",
    "TREE_SITTER_LANGUAGES",
    "Statement",
    "code_statements",
    "fence_language",
    "grammar_available",
]

#: Language name -> (grammar module, its function returning the grammar).
TREE_SITTER_LANGUAGES: types.MappingProxyType[str, tuple[str, str]] = types.MappingProxyType({
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "c_sharp": ("tree_sitter_c_sharp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "bash": ("tree_sitter_bash", "language"),
})

#: File extension (lower-case) -> language.
LANGUAGE_BY_SUFFIX: types.MappingProxyType[str, str] = types.MappingProxyType({
    ".py": "python", ".pyi": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
    ".cs": "c_sharp", ".rb": "ruby", ".php": "php", ".sh": "bash", ".bash": "bash",
})

_FENCE_ALIASES = {
    "py": "python", "python3": "python", "py3": "python", "js": "javascript", "jsx": "javascript",
    "node": "javascript", "ts": "typescript", "golang": "go", "rs": "rust", "c++": "cpp", "cc": "cpp",
    "cs": "c_sharp", "csharp": "c_sharp", "c#": "c_sharp", "rb": "ruby", "sh": "bash", "shell": "bash",
}
#: What a definition's node type says it defines, once a suffix below is taken off.
_DEFINES = frozenset(
    "function method class struct impl trait enum interface module namespace type mod record constructor union "
    "singleton_method".split()
)
_SUFFIXES = ("_definition", "_declaration", "_item", "_specifier")
# Containers that only group the statements of a body (Go's statement_list, Ruby's body_statement...).
_GROUPS = frozenset("statement_list body_statement declaration_list field_declaration_list".split())


@dataclass(frozen=True)
class Statement:
    """One statement of source code: ``text[start:end]`` runs from the start of its first line
    (decorators included) to the start of the line after its last; `label` names what it defines
    (``""`` for other statements), `signature` is the first line of a definition's header, and
    `body` the statements of its body, for a definition that has one."""

    start: int
    end: int
    label: str = ""
    signature: str = ""
    body: tuple[Statement, ...] = ()


def fence_language(info: str) -> str:
    """The language of a markdown fence's info string (``"js"`` -> ``"javascript"``), lower-cased."""
    word = info.strip().split(maxsplit=1)[0].lower() if info.strip() else ""
    return _FENCE_ALIASES.get(word, word)


def grammar_available(language: str) -> bool:
    """Whether the tree-sitter grammar of `language` (a key of `TREE_SITTER_LANGUAGES`) is installed."""
    return _grammar(language) is not None


def code_statements(text: str, language: str) -> tuple[Statement, ...] | None:
    """The top-level statements of the source code `text` in `language` (``"python"`` or one of
    `TREE_SITTER_LANGUAGES`), offsets into `text`; None when it cannot be parsed (Python that does
    not parse, a language without an installed grammar) or holds no statement."""
    if language == "python":
        statements = _python(text)
    elif language in TREE_SITTER_LANGUAGES:
        statements = _tree_sitter(text, language)
    else:
        statements = None
    return statements or None


# -- Python ---------------------------------------------------------------------------------------
def _python(text: str) -> tuple[Statement, ...] | None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # not Python, null bytes, too deep
        return None
    starts = line_starts(text)
    return _python_body(text, tree.body, starts)


def _python_body(text: str, body: list[ast.stmt], starts: tuple[int, ...]) -> tuple[Statement, ...]:
    def line(number: int) -> int:  # offset of line `number` (from 1); past the last line, the end
        return starts[min(number - 1, len(starts) - 1)]

    out = []
    for node in body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
        label = _python_label(node)
        inner = [child for field in ("body", "orelse", "finalbody", "handlers")
                 for child in getattr(node, field, ()) if isinstance(child, ast.stmt)]
        signature = text[line(node.lineno) : line(node.lineno + 1)].strip() if label else ""
        out.append(Statement(line(first), line(cast(int, node.end_lineno) + 1), label, signature,
                             _python_body(text, inner, starts)))
    return tuple(out)


def _python_label(node: ast.stmt) -> str:
    if isinstance(node, ast.ClassDef):
        return f"class {node.name}"
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"def {node.name}"
    return ""


# -- tree-sitter ----------------------------------------------------------------------------------
@cached(RESOURCE)
def _grammar(language: str) -> Any:
    """The tree-sitter `Language` of `language`, or None if tree-sitter or its grammar is missing."""
    module_name, function = TREE_SITTER_LANGUAGES[language]
    try:
        import tree_sitter

        module = importlib.import_module(module_name)
    except ImportError:
        return None
    return tree_sitter.Language(getattr(module, function)())


def _tree_sitter(text: str, language: str) -> tuple[Statement, ...] | None:
    grammar = _grammar(language)
    if grammar is None:
        return None
    import tree_sitter

    data = text.encode("utf-8")
    tree = tree_sitter.Parser(grammar).parse(data)
    # tree-sitter counts rows at "\n" only: the offset of each row's first character.
    rows = (0, *(m.end() for m in re.finditer("\n", text)), len(text))
    return _ts_body(text, data, _statements(tree.root_node), rows)


def _statements(container: Any) -> list[Any]:
    """The statement nodes directly inside `container` (comments left out), seen through groups."""
    nodes = [n for n in container.named_children if "comment" not in n.type]
    if len(nodes) == 1 and nodes[0].type in _GROUPS:
        return _statements(nodes[0])
    return nodes


def _ts_body(text: str, data: bytes, nodes: list[Any], rows: tuple[int, ...]) -> tuple[Statement, ...]:
    """The statements `nodes` of the source `text` (encoded: `data`), with `rows` its row offsets."""
    out = []
    for node in nodes:
        first, last = node.start_point.row, node.end_point.row
        if node.end_point.column == 0 and last > first:  # a node that ends with its line break
            last -= 1
        # export_statement and decorated definitions wrap the definition they name
        inner = node.child_by_field_name("declaration") or node.child_by_field_name("definition") or node
        label = _ts_label(data, inner)
        body = inner.child_by_field_name("body")
        signature = text[rows[inner.start_point.row] : rows[inner.start_point.row + 1]].strip() if label else ""
        children = _ts_body(text, data, _statements(body), rows) if body is not None else ()
        out.append(Statement(rows[first], rows[min(last + 1, len(rows) - 1)], label, signature, children))
    return tuple(out)


def _ts_label(data: bytes, node: Any) -> str:
    """``"<kind> <name>"`` for a definition node (``function main``, ``class Ring``), else ``""``."""
    kind = node.type
    for suffix in _SUFFIXES:
        if kind.endswith(suffix):
            kind = kind[: -len(suffix)]
            break
    if kind not in _DEFINES:
        return ""
    kind = "method" if kind == "singleton_method" else kind
    named = node.child_by_field_name("name")
    if named is None and node.type == "impl_item":  # Rust: impl Ring {...}
        named = node.child_by_field_name("type")
    if named is None and node.type == "type_declaration":  # Go: type Ring struct {...}
        spec = next((c for c in node.named_children if c.type == "type_spec"), None)
        named = spec.child_by_field_name("name") if spec is not None else None
    declarator = node.child_by_field_name("declarator")
    while named is None and declarator is not None:  # C and C++: int main(void) {...}
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            named = declarator
        declarator = inner
    name = data[named.start_byte : named.end_byte].decode("utf-8", "replace") if named is not None else ""
    return f"{kind} {name}".strip()
