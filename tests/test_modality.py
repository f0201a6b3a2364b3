"""ModalityChunker: each modality cut by its own rule, modality metadata, the view coloured by it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from chunklab import load_document
from chunklab.formats.parse import document_blocks
from chunklab.strategies import CodeChunker, ModalityChunker
from chunklab.strategies.modality import MODALITIES, MODALITY_COLOURS
from chunklab.viz.explorer import Explorer

MIXED = """# Notes

First sentence here. Second sentence follows.

## Data

| size | rate |
|---|---|
| 64 | 41.2 |
| 128 | 55.7 |

![A line chart of hit rate](chart.png)
*Figure 1: hit rate by size.*

### Steps

- install it
- run it

```python
import random


# The seed is fixed.
def pick(n):
    return random.Random(7).randrange(n)


@staticmethod
def other():
    return 1
```
"""


def by_modality(chunks, modality):
    return [c for c in chunks if c.metadata["modality"] == modality]


def test_every_modality_of_a_mixed_document():
    chunks = ModalityChunker()(MIXED)
    assert [c.metadata["modality"] for c in chunks] == ["prose", "table", "image", "list", "code"]
    prose, table, image, listing, code = chunks
    assert prose.text == "# Notes\n\nFirst sentence here. Second sentence follows."
    assert table.text.startswith("## Data\n\n| size")  # a lone heading stays with the block it introduces
    assert table.metadata["context"] == "| size | rate |" and table.metadata["rows"] == [1, 2]
    assert image.metadata["alt"] == "A line chart of hit rate" and image.metadata["path"] == "chart.png"
    assert image.metadata["caption"] == "Figure 1: hit rate by size."
    assert image.metadata["context"] == "Image: A line chart of hit rate. Figure 1: hit rate by size."
    assert listing.text.startswith("### Steps") and listing.metadata["section"] == "Notes > Data > Steps"
    assert code.text.startswith("```python") and code.text.endswith("```")
    assert code.metadata["language"] == "python"


def test_code_by_definitions_is_cut_as_the_code_chunker_cuts_it():
    code = by_modality(ModalityChunker(code="definitions", chunk_size=80)(MIXED), "code")
    assert [c.metadata["definitions"] for c in code] == [(), ("def pick",), (), ("def other",)]
    assert code[0].text == "```python\nimport random"
    assert code[1].text.startswith("# The seed is fixed.\ndef pick(n):")  # the comment goes with it
    assert code[2].metadata["context"] == "def pick(n):"  # the rest of a definition too big for one chunk
    assert code[3].text.startswith("@staticmethod") and code[3].text.endswith("```")


def test_code_by_definitions_keeps_a_main_block_apart_from_the_function_above_it():
    """The lab notebook's script ends with ``if __name__ == "__main__":`` after ``def run``: that block
    is a chunk of its own, not the tail of `run`, and the pieces are those of `CodeChunker`."""
    text = load_document("lab_notes").text
    python = [c for c in ModalityChunker(code="definitions")(text) if c.metadata.get("language") == "python"]
    by_code_chunker = [c for c in CodeChunker()(text) if c.metadata.get("language") == "python"]
    assert [(c.start, c.end, c.metadata["definitions"]) for c in python] == [
        (c.start, c.end, c.metadata["definitions"]) for c in by_code_chunker]
    main = next(c for c in python if c.text.startswith('if __name__ == "__main__":'))
    assert main.metadata["definitions"] == () and main.text.endswith("```")
    assert [c.metadata["definitions"] for c in python].count(("def run",)) == 1


def test_code_that_does_not_parse_is_cut_by_lines_only_when_too_big():
    text = "```python\ndef broken(:\n    pass\n\nx = 1\n```\n"
    assert [c.text for c in ModalityChunker(code="definitions")(text)] == [text.strip()]
    code = ModalityChunker(code="definitions", chunk_size=35)(text)
    assert [c.text for c in code] == ["```python\ndef broken(:\n    pass", "x = 1\n```"]


def test_big_blocks_are_cut_by_their_own_units():
    code = by_modality(ModalityChunker(chunk_size=60)(MIXED), "code")
    assert len(code) > 1 and all(len(c) <= 60 for c in code)
    assert all(MIXED[c.end] == "\n" for c in code[:-1])  # between lines, not inside one
    prose = by_modality(ModalityChunker(chunk_size=25)(MIXED), "prose")
    assert [c.text for c in prose] == ["# Notes", "First sentence here.", "Second sentence follows."]


def test_prose_chunks_never_span_two_sections():
    """Inside a prose chunk, headings come only before its first body text (a heading followed
    directly by a sub-heading has no body of its own and stays with it)."""
    text = load_document("manual").text
    blocks = document_blocks(text)
    for chunk in by_modality(ModalityChunker(chunk_size=3000)(text), "prose"):
        kinds = [b.kind == "heading" for b in blocks if chunk.start <= b.start < chunk.end]
        assert kinds == sorted(kinds, reverse=True), chunk.text[:80]


def test_html_and_csv_documents():
    html = "<html><body><h2>Find</h2><p>One. Two.</p><figure><img src='a.png' alt='Crab'>" \
           "<figcaption>A hermit crab.</figcaption></figure>" \
           "<table><tr><th>k</th></tr><tr><td>v</td></tr></table></body></html>"
    chunks = ModalityChunker()(html)
    assert [c.metadata["modality"] for c in chunks] == ["prose", "image", "table"]
    assert chunks[1].metadata["caption"] == "A hermit crab." and chunks[1].metadata["path"] == "a.png"
    stations = load_document("stations").text
    csv_chunks = ModalityChunker()(stations)
    assert {c.metadata["modality"] for c in csv_chunks} == {"table"}
    assert all(c.metadata["context"].startswith("| date | station_id |") for c in csv_chunks)


def test_every_chunk_of_the_mixed_corpus_document_has_a_modality():
    chunks = ModalityChunker()(load_document("lab_notes").text)
    assert {c.metadata["modality"] for c in chunks} == set(MODALITIES)


def test_explore_colours_chunks_by_modality():
    markup = Explorer(ModalityChunker, MIXED).render()
    assert 'data-colour-by="modality"' in markup
    assert f'background:{MODALITY_COLOURS["table"]}' in markup and f'background:{MODALITY_COLOURS["code"]}' in markup


def test_sentences_are_split_once_per_text():
    from chunklab.strategies import modality

    text = load_document("field_guide").text
    ModalityChunker(chunk_size=500)(text)
    hits = modality._groups.cache_info().hits
    ModalityChunker(chunk_size=900)(text)
    assert modality._groups.cache_info().hits == hits + 1


@given(st.integers(40, 3000), st.integers(40, 3000))
def test_larger_max_size_never_gives_more_chunks(a, b):
    text = load_document("lab_notes").text
    small, large = sorted((a, b))
    assert len(ModalityChunker(chunk_size=large)(text)) <= len(ModalityChunker(chunk_size=small)(text))
