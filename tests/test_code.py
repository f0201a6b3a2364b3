"""Code-aware chunking: Python cut between statements through `ast`, big classes split at their
methods with the class line as context, other code by lines, and code apart from prose."""

from __future__ import annotations

import ast

import pytest

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


# --- other languages, through tree-sitter ------------------------------------------------------------
# One small file per language: two top-level definitions (the second documented by a comment above it),
# with something before them. Each must come out as its own chunk at a small size, the comment with it.
SOURCES = {
    "javascript": ("import fs from 'fs';\n\nexport function load(path) {\n  return fs.readFileSync(path);\n}\n\n"
                   "// Counts the berths.\nclass Harbour {\n  count() {\n    return 3;\n  }\n}\n",
                   ("function load", "class Harbour")),
    "typescript": ("import { x } from './x';\n\nexport interface Berth {\n  length: number;\n}\n\n"
                   "// The harbour.\nexport class Harbour {\n  count(): number {\n    return 3;\n  }\n}\n",
                   ("interface Berth", "class Harbour")),
    "tsx": ("import React from 'react';\n\nexport function Berth(props: { n: number }) {\n  return <li>{props.n}</li>;\n}"
            "\n\n// A list of berths.\nexport const List = () => <ul><Berth n={1} /></ul>;\n", ("function Berth", "")),
    "go": ("package harbour\n\nimport \"fmt\"\n\nfunc Load(path string) string {\n\treturn path\n}\n\n"
           "// Harbour holds berths.\ntype Harbour struct {\n\tberths int\n}\n", ("function Load", "type Harbour")),
    "rust": ("use std::fs;\n\npub fn load(path: &str) -> String {\n    fs::read_to_string(path).unwrap()\n}\n\n"
             "/// The harbour.\npub struct Harbour {\n    berths: u32,\n}\n", ("function load", "struct Harbour")),
    "java": ("package harbour;\n\nimport java.util.List;\n\npublic interface Loader {\n    String load(String path);\n}\n\n"
             "// The harbour.\nclass Harbour {\n    int berths() { return 3; }\n}\n", ("interface Loader", "class Harbour")),
    "c": ("#include <stdio.h>\n\nint load(const char *path) {\n    return path != 0;\n}\n\n"
          "/* The harbour. */\nstruct harbour {\n    int berths;\n};\n", ("function load", "")),
    "cpp": ("#include <string>\n\nint load(const std::string &path) {\n    return path.size();\n}\n\n"
            "// The harbour.\nclass Harbour {\n  int berths = 3;\n};\n", ("function load", "class Harbour")),
    "c_sharp": ("using System;\n\npublic interface ILoader {\n    string Load(string path);\n}\n\n"
                "// The harbour.\npublic class Harbour {\n    public int Berths() { return 3; }\n}\n",
                ("interface ILoader", "class Harbour")),
    "ruby": ("require 'json'\n\ndef load(path)\n  File.read(path)\nend\n\n"
             "# The harbour.\nclass Harbour\n  def berths\n    3\n  end\nend\n", ("method load", "class Harbour")),
    "php": ("<?php\nnamespace Harbour;\n\nfunction load($path) {\n    return file_get_contents($path);\n}\n\n"
            "// The harbour.\nclass Harbour {\n    public function berths() { return 3; }\n}\n",
            ("function load", "class Harbour")),
    "bash": ("#!/bin/bash\nset -euo pipefail\n\nload() {\n  cat \"$1\"\n}\n\n"
             "# Counts the berths.\nberths() {\n  echo 3\n}\n", ("function load", "function berths")),
}


@pytest.mark.parametrize("language", sorted(SOURCES))
def test_every_language_is_cut_between_its_top_level_definitions(language):
    source, (first, second) = SOURCES[language]
    chunks = CodeChunker(chunk_size=70, language=language)(source)
    assert all(source[c.start : c.end] == c.text and len(c) <= 70 for c in chunks)
    assert all(c.metadata["language"] == language for c in chunks)
    line_start = [source.rfind("\n", 0, c.start) + 1 for c in chunks]
    assert all(not source[s : c.start].strip() for s, c in zip(line_start, chunks)), "cuts at line starts (indent aside)"
    labels = [c.metadata["definitions"] for c in chunks]
    if first:
        assert any(first in held for held in labels), labels
    if second:
        holder = next(c for c in chunks if second in c.metadata["definitions"])
        comment = source[source.index("\n\n", source.index(first.split()[-1])) + 2 :].splitlines()[0]
        assert holder.text.startswith(comment), "the comment above a definition goes with it"


def test_a_big_definition_is_split_inside_its_body_with_its_first_line_as_context():
    go = "package ring\n\nfunc Owner(nodes []int, key int) int {\n" + "".join(
        f"\tif key < {n} {{\n\t\treturn {n}\n\t}}\n" for n in range(0, 100, 10)) + "\treturn nodes[0]\n}\n"
    chunks = CodeChunker(chunk_size=120, language="go")(go)
    inside = [c for c in chunks if c.metadata.get("context")]
    assert inside and all(c.metadata["context"] == "func Owner(nodes []int, key int) int {" for c in inside)
    assert all(c.text.startswith(("if", "return", "package", "func")) for c in chunks)


def test_fences_name_their_language_by_any_usual_alias():
    text = "# Two snippets\n\n```rs\nfn a() {}\n\nfn b() {}\n```\n\n```js\nfunction c() {}\n```\n"
    chunks = CodeChunker(chunk_size=26)(text)
    assert [(c.metadata["modality"], c.metadata.get("language")) for c in chunks] == [
        ("prose", None), ("code", "rust"), ("code", "rust"), ("code", "javascript")]


def test_a_language_without_its_grammar_is_refused_with_the_install_hint(monkeypatch):
    from chunklab.core import ParameterError
    from chunklab.strategies import code

    monkeypatch.setattr(code, "grammar_available", lambda language: False)
    with pytest.raises(ParameterError, match=r"'go' needs tree-sitter and tree-sitter-go \(pip install -e '\.\[code\]' in a chunklab clone\)"):
        CodeChunker(language="go")
