"""Code-aware chunking: Python cut between statements through `ast`, big classes split at their
methods with the class line as context, other code by lines, and code apart from prose."""

from __future__ import annotations

import ast

from chunklab import load_document
from chunklab.formats.parse import document_blocks
from chunklab.strategies import CodeChunker
from chunklab.strategies.code import code_spans

CLASS = '''import math


class Ring:
    """A consistent-hash ring."""

    def __init__(self, nodes):
        self.nodes = sorted(nodes)
        self.size = len(self.nodes)

    # Where a key lands: the first node at or after its hash.
    @staticmethod
    def owner(ring, key):
        point = hash(key) % 360
        return min(ring.nodes, key=lambda n: (n - point) % 360)

    def spread(self):
        gaps = [b - a for a, b in zip(self.nodes, self.nodes[1:])]
        return max(gaps) - min(gaps) if gaps else 0


def angle(x):
    return math.degrees(x) + 0.5  # é, a non-ASCII comment
'''


def between_statements(source: str, body) -> set[int]:
    """Where a cut between the statements of `body` may put a chunk start: the first character after
    each statement's last line (so comments above the next statement go with it)."""
    offsets = [0]
    for line in source.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    starts = {offsets[body[0].lineno - 1]} | {offsets[node.end_lineno] for node in body[:-1]}
    return {start + len(source[start:]) - len(source[start:].lstrip()) for start in starts}


def test_python_is_cut_only_between_top_level_statements():
    chunks = CodeChunker(chunk_size=1000, language="python")(CLASS)
    assert len(chunks) == 1
    chunks = CodeChunker(chunk_size=200, language="python")(CLASS)
    tree = ast.parse(CLASS)
    methods = next(n for n in tree.body if isinstance(n, ast.ClassDef)).body
    allowed = between_statements(CLASS, tree.body) | between_statements(CLASS, methods)
    assert all(c.start in allowed for c in chunks), [c.text[:30] for c in chunks]
    assert all(len(c) <= 200 for c in chunks)


def test_a_big_class_is_split_at_its_methods_with_the_class_line_as_context():
    chunks = CodeChunker(chunk_size=200, language="python")(CLASS)
    owner = next(c for c in chunks if "def owner" in c.text)
    assert owner.text.startswith("# Where a key lands"), "comments and decorators go with their def"
    assert owner.metadata["context"] == "class Ring:"
    assert owner.metadata["definitions"] == ("def owner",)
    last = chunks[-1]
    assert last.text.startswith("def angle") and "context" not in last.metadata
    assert last.text.endswith("comment"), "offsets hold past a non-ASCII character"


def test_code_that_does_not_parse_is_cut_by_lines():
    bash = "\n".join(f"./restart_cache.sh --policy lru --memory-mb {n}" for n in range(30))
    chunks = CodeChunker(chunk_size=120, language="auto")(bash)
    assert chunks[0].metadata["language"] == "python", "auto tries Python first"
    assert all(c.text == "\n".join(c.text.splitlines()) and not c.text.startswith(" ") for c in chunks)
    lines = set(bash.splitlines())
    assert all(set(c.text.splitlines()) <= lines for c in chunks), "no line is cut"


def test_in_a_markdown_document_code_and_prose_never_share_a_chunk():
    text = load_document("lab_notes").text
    chunks = CodeChunker(chunk_size=400)(text)
    fences = [b for b in document_blocks(text, "markdown") if b.kind == "code"]
    for chunk in chunks:
        inside = any(b.start <= chunk.start and chunk.end <= b.end for b in fences)
        assert inside == (chunk.metadata["modality"] == "code")
    python = [c for c in chunks if c.metadata.get("language") == "python"]
    assert python[0].text.startswith("```python") and python[-1].text.endswith("```")
    assert any(c.metadata["definitions"] == ("def zipf_keys",) for c in python)


def test_code_spans_reports_definitions_and_is_empty_on_blank_input():
    assert code_spans("   \n ", 0, 5, 100) == []
    source = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    spans = code_spans(source, 0, len(source), 100)
    assert [m["definitions"] for _, _, m in spans] == [("def a", "def b")]
