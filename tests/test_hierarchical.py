"""HierarchicalChunker, the clause detector, query-time expansion and the tree view: the tricky cases."""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunklab import list_documents, load_document, load_questions
from chunklab.core import ParameterError
from chunklab.evaluation.comparison import compare
from chunklab import Chunk
from chunklab.evaluation.expand import auto_merge, new_text_only, small_to_big
from chunklab.formats.clauses import clause_headings
from chunklab.models.embed import TfidfEmbedder
from chunklab.pipeline.export import read_jsonl, write_jsonl
from chunklab.strategies import HierarchicalChunker, SlidingWindowChunker
from chunklab.strategies.sections import cached_blocks, structure_format
from chunklab.viz.tree import render_tree

MARKDOWN = """# Guide

Intro paragraph of the guide.

## Install

How to install.

```bash
# not a heading: a comment inside a code fence
apt install thing
```

### Linux

Linux steps here.

### macOS

Mac steps here.

## Use

Use it well.

#### Deep note

A heading that skips a level.
"""

CONTRACT = """MASTER AGREEMENT

BETWEEN:

(1) ALPHA LTD., a company registered in the State of Kessaway; and

(2) BETA INC.

1. DEFINITIONS

1.1 In this Agreement words have meanings.

2. SERVICES

2.1 The Supplier shall provide the Services.

2.2 The Customer shall:

(a) pay on time;

(b) report incidents; and

(c) keep records.

2.3 The readings were taken at a depth of
71.6 metres on a wrapped line, which is no clause.

SCHEDULE 1: FEES

1. Fees are due monthly.

2. Interest applies to late payment.
"""


def spans_of(chunks):
    return [(c.start, c.end) for c in chunks]


# -- clauses ------------------------------------------------------------------------------------------
def test_clause_ranks_titles_and_sequence_rules() -> None:
    found = [(h.level, h.title, h.attrs["clause"]) for h in clause_headings(CONTRACT)]
    assert found == [
        (1, "MASTER AGREEMENT", "capitals"),
        (2, "(1)", "item"),  # "BETWEEN:" ends in a colon: a lead-in, not a title
        (2, "(2)", "item"),
        (1, "1. DEFINITIONS", "decimal"),
        (2, "1.1", "decimal"),
        (1, "2. SERVICES", "decimal"),
        (2, "2.1", "decimal"),
        (2, "2.2", "decimal"),  # a long line, or one ending in a colon, is titled by its number
        (3, "(a)", "item"),
        (3, "(b)", "item"),
        (3, "(c)", "item"),
        (2, "2.3 The readings were taken at a depth of", "decimal"),  # short, no punctuation: a title
        # ... and "71.6 metres" on the wrapped line after it is not clause 71.6
        (1, "SCHEDULE 1: FEES", "capitals"),
        (2, "1.", "item"),  # numbering restarts inside the schedule: a list, not clause 1 again
        (2, "2.", "item"),
    ]
    for h in clause_headings(CONTRACT):
        assert CONTRACT[h.start : h.end] == CONTRACT[h.start : h.end].strip()
        assert CONTRACT[h.start : h.end].startswith(h.attrs["marker"] or h.title)


def test_capitalised_line_needs_a_blank_line_before_it() -> None:
    text = "Some text.\nNOT A HEADING\n\nA HEADING\nmore text"
    assert [h.title for h in clause_headings(text)] == ["A HEADING"]


def test_clauses_in_crlf_text() -> None:
    text = CONTRACT.replace("\n", "\r\n")
    assert [h.title for h in clause_headings(text)] == [h.title for h in clause_headings(CONTRACT)]
    assert all(text[h.start : h.end].strip() == text[h.start : h.end] for h in clause_headings(text))


# -- the tree -----------------------------------------------------------------------------------------
def test_markdown_tree_ignores_code_comments_and_nests_skipped_levels() -> None:
    root = HierarchicalChunker().tree(MARKDOWN)
    sections = [(n.depth, n.title) for n in root.walk() if n.kind == "section"]
    assert sections == [(1, "Guide"), (2, "Install"), (3, "Linux"), (3, "macOS"), (2, "Use"), (3, "Deep note")]
    deep = next(n for n in root.walk() if n.title == "Deep note")
    assert deep.breadcrumb == ("Guide", "Use", "Deep note") and deep.parent.title == "Use"


def test_leaves_carry_breadcrumb_parent_and_context() -> None:
    chunks = HierarchicalChunker()(MARKDOWN, source="guide")
    assert all(MARKDOWN[c.start : c.end] == c.text for c in chunks)
    linux = next(c for c in chunks if "Linux steps" in c.text)
    assert linux.metadata["section"] == "Guide > Install > Linux" == linux.metadata["context"]
    assert linux.metadata["breadcrumb"] == ["Guide", "Install", "Linux"]
    parent = linux.metadata["parent"]
    assert MARKDOWN[parent["start"] : parent["end"]].startswith("## Install")
    assert parent["start"] <= linux.start and linux.end <= parent["end"]
    install_text = next(c for c in chunks if "How to install" in c.text)
    assert "apt install thing" in install_text.text, "the code block stays with its section's text"


def test_chunks_survive_jsonl_and_chunkers_pickle(tmp_path) -> None:
    chunker = HierarchicalChunker(chunk_size=200)
    chunks = chunker(CONTRACT, source="c")
    assert read_jsonl(write_jsonl(chunks, tmp_path / "c.jsonl")) == chunks
    assert pickle.loads(pickle.dumps(chunker)) == chunker


def test_every_level_is_a_partition_of_the_leaves() -> None:
    chunker = HierarchicalChunker(chunk_size=200)
    leaves = spans_of(chunker(CONTRACT))
    for level in range(1, 5):
        chunks = chunker.clone(depth=level)(CONTRACT)
        for a, b in zip(chunks, chunks[1:]):
            assert a.end <= b.start
        for s, e in leaves:
            assert sum(c.start <= s and e <= c.end for c in chunks) == 1, (level, s, e)
        assert all(c.metadata["depth"] <= level for c in chunks)


def test_levels_of_a_contract() -> None:
    chunker = HierarchicalChunker()
    top = chunker.clone(depth=1)(CONTRACT)
    assert [c.metadata["section"] for c in top] == [
        "MASTER AGREEMENT", "1. DEFINITIONS", "2. SERVICES", "SCHEDULE 1: FEES"
    ]
    items = [c for c in chunker(CONTRACT) if c.metadata["section"].endswith("(b)")]
    assert len(items) == 1 and items[0].text == "(b) report incidents; and"
    assert items[0].metadata["section"] == "2. SERVICES > 2.2 > (b)"
    clause = next(c for c in chunker.clone(depth=2)(CONTRACT) if c.metadata["section"] == "2. SERVICES > 2.2")
    assert clause.text.startswith("2.2 The Customer shall:") and clause.text.endswith("(c) keep records.")
    assert len(clause.metadata["children"]) == 4  # its own line, then (a), (b), (c)


def test_a_section_that_fits_one_piece_is_itself_a_leaf_and_a_bare_heading_is_a_piece() -> None:
    root = HierarchicalChunker().tree(MARKDOWN)
    linux = next(n for n in root.walk() if n.title == "Linux")
    assert linux.is_leaf and linux.kind == "section"
    guide = next(n for n in root.walk() if n.title == "Guide")
    assert (
        guide.children[0].kind == "piece"
        and "Intro paragraph" in MARKDOWN[guide.children[0].start : guide.children[0].end]
    )
    bare = HierarchicalChunker().tree("# Top\n\n## Child\n\nText.")
    top = bare.children[0]
    assert [c.kind for c in top.children] == ["piece", "section"], "a heading followed by its subsection is a piece"
    assert [c.text for c in HierarchicalChunker()("# Top\n\n## Child\n\nText.")] == ["# Top", "## Child\n\nText."]


def test_repeated_sections_get_their_own_offsets() -> None:
    text = "## Same\n\nIdentical body text.\n\n" * 3
    chunks = HierarchicalChunker()(text)
    assert [c.start for c in chunks] == [0, 31, 62]
    assert len({c.metadata["node"] for c in chunks}) == 3


def test_size_contract_in_tokens_and_long_sections_split_at_blocks() -> None:
    manual = load_document("manual").text
    chunker = HierarchicalChunker(chunk_size=120, unit="tokens")
    chunks = chunker(manual)
    assert all(chunker.measure(c.text) <= 120 for c in chunks)
    assert all(manual[c.start : c.end] == c.text for c in chunks)


def test_html_headings() -> None:
    page = (
        "<html><body><h1>Pools</h1><p>About pools.</p>"
        "<section><h2>Crabs</h2><p>Crabs hide.</p></section></body></html>"
    )
    chunks = HierarchicalChunker()(page)
    assert [c.metadata["section"] for c in chunks] == ["Pools", "Pools > Crabs"]
    assert chunks[1].text == "<h2>Crabs</h2><p>Crabs hide.</p>"


def test_oversized_tables_and_lists_are_split_between_rows_and_items() -> None:
    rows = "".join(f"<tr>\n  <td>station {i}</td>\n  <td>{i * 7} mm</td>\n</tr>\n" for i in range(40))
    page = (
        "<html><body><h2>Rain</h2>\n<table>\n<thead><tr><th>where</th><th>rain</th></tr></thead>\n"
        f"{rows}</table></body></html>"
    )
    chunks = HierarchicalChunker(chunk_size=300)(page)
    assert len(chunks) > 3 and all(len(c) <= 300 for c in chunks)
    row_spans = [(m.start(), m.end()) for m in re.finditer(r"<tr>.*?</tr>", page, re.S)]
    for c in chunks:
        for s, e in row_spans:
            assert not (s < c.start < e or s < c.end < e), "a chunk boundary falls inside a table row"
    items = "\n".join(f"- item {i}\n  continues on a second line of item {i}" for i in range(30))
    md = f"# List\n\n{items}\n"
    for c in HierarchicalChunker(chunk_size=200)(md):
        assert c.text.startswith(("# List", "- item")) and c.text.endswith(tuple(f"item {i}" for i in range(30)))


def test_bad_parameters() -> None:
    with pytest.raises(ParameterError, match="embedder"):
        HierarchicalChunker(parents="semantic", embedder="minilm")
    with pytest.raises(ParameterError, match="parents"):
        HierarchicalChunker(parents="topics")
    with pytest.raises(TypeError):
        HierarchicalChunker().tree(b"bytes")
    assert HierarchicalChunker()("   \n\n ") == []


MARKDOWN_SECTIONS = st.lists(
    st.tuples(st.integers(1, 4), st.sampled_from(["Alpha", "Beta", "Gamma"]), st.integers(0, 3)), max_size=12
).map(
    lambda parts: "\n\n".join(
        f"{'#' * level} {title}\n\n" + "Some words here. " * (5 * n) for level, title, n in parts
    )
)


@given(MARKDOWN_SECTIONS, st.integers(0, 5), st.sampled_from([60, 200, 1000]))
def test_tree_invariants(text: str, level: int, max_size: int) -> None:
    chunker = HierarchicalChunker(chunk_size=max_size, depth=level)
    root = chunker.tree(text)
    for node in root.walk():
        for child in node.children:
            assert node.start <= child.start and child.end <= node.end and child.parent is node
            assert child.depth == node.depth + 1
        for a, b in zip(node.children, node.children[1:]):
            assert a.end <= b.start
    for leaf in root.leaves():
        assert len(text[leaf.start : leaf.end]) <= max_size
    chunks = chunker(text)
    assert all(text[c.start : c.end] == c.text for c in chunks)
    assert sorted(spans_of(chunks)) == spans_of(chunks)


def uncovered(text: str, chunks, html: bool = False) -> list[int]:
    """The offsets of the non-space characters no chunk holds (in HTML, outside tags and outside the
    page's furniture, i.e. in its content blocks)."""
    held = np.zeros(len(text), bool)
    for c in chunks:
        held[c.start : c.end] = True
    wanted = np.array([not ch.isspace() for ch in text], bool)
    if html:
        content = np.zeros(len(text), bool)
        for block in cached_blocks(text, "html"):
            content[block.start : block.end] = block.kind != "markup"
        for tag in re.finditer(r"<[^>]*>", text):
            content[tag.start() : tag.end()] = False
        wanted &= content
    return np.flatnonzero(wanted & ~held).tolist()


def levels_of(chunker: HierarchicalChunker, text: str) -> range:
    """Every depth worth asking for: 0 (the leaves) to one below the deepest node."""
    return range(max(node.depth for node in chunker.tree(text).walk()) + 2)


@pytest.mark.parametrize("name", list_documents())
def test_every_level_covers_every_character_of_a_corpus_document(name: str) -> None:
    text, chunker = load_document(name).text, HierarchicalChunker()
    html = structure_format(text, "auto") == "html"
    for depth in levels_of(chunker, text):
        missed = uncovered(text, chunker.clone(depth=depth)(text), html)
        assert not missed, (name, depth, text[missed[0] : missed[0] + 40])


SKIPPING_SECTIONS = st.lists(
    st.tuples(st.integers(1, 6), st.integers(0, 2)), max_size=10
).map(lambda parts: "\n\n".join(f"{'#' * level} Part {i}" + "\n\nA line of text." * n
                                   for i, (level, n) in enumerate(parts)))


@given(st.one_of(MARKDOWN_SECTIONS, SKIPPING_SECTIONS), st.sampled_from([40, 200, 1000]))
def test_every_level_covers_every_character_of_markdown(text: str, max_size: int) -> None:
    chunker = HierarchicalChunker(chunk_size=max_size)
    for depth in levels_of(chunker, text):
        assert not uncovered(text, chunker.clone(depth=depth)(text)), depth


# -- semantic parents ---------------------------------------------------------------------------------
class TopicEmbedder:
    """A transparent embedder for tests: one dimension per topic word."""

    topics = ("tide", "crab", "storm")

    def __call__(self, texts):
        return np.array([[t.count(w) + 1e-3 for w in self.topics] for t in texts], dtype=float)


def test_semantic_parents_group_similar_neighbours() -> None:
    text = "\n\n".join(["tide tide rises."] * 3 + ["crab crab hides."] * 2 + ["storm storm comes."] * 2)
    chunker = HierarchicalChunker(parents="semantic", similarity=0.5, chunk_size=40, embedder=TopicEmbedder())
    root = chunker.tree(text)
    groups = [text[g.start : g.end].split("\n\n") for g in root.children]
    assert [len(g) for g in groups] == [3, 2, 2] and all(len(set(g)) == 1 for g in groups)
    groups_ids = {g.id for g in root.children}
    leaves = chunker(text)
    assert all(c.metadata["node"] in groups_ids or c.metadata["parent"]["id"] in groups_ids for c in leaves)
    assert [c.metadata["node_kind"] for c in leaves] == ["piece", "piece", "group", "group"]  # a group that fits is a leaf
    assert len(chunker.clone(depth=1)(text)) == 3


def test_semantic_parents_with_tfidf_on_the_article() -> None:
    article = load_document("article").text
    chunker = HierarchicalChunker(parents="semantic", similarity=0.1, embedder=TfidfEmbedder())
    root = chunker.tree(article)
    assert 1 < len(root.children) < len(chunker(article))
    assert all(g.kind == "group" for g in root.children)


# -- expansion at query time --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def contract_tree():
    chunker = HierarchicalChunker()
    return chunker, {"c": chunker.tree(CONTRACT)}, chunker(CONTRACT, source="c")


def leaf(chunks, section):
    return next(c for c in chunks if c.metadata["section"] == section)


def test_small_to_big_sends_the_leaf_then_the_rest_of_its_section(contract_tree) -> None:
    _, trees, chunks = contract_tree
    hit = leaf(chunks, "2. SERVICES > 2.2 > (b)")
    parent = hit.metadata["parent"]
    sent = small_to_big(trees)([hit])
    assert sent[0] == ("c", hit.start, hit.end)  # the matched text first: a cut at the budget keeps it
    assert sorted((s, e) for _, s, e in sent) == [(parent["start"], hit.start), (hit.start, hit.end),
                                                  (hit.end, parent["end"])]
    single = leaf(chunks, "2. SERVICES > 2.1")  # a section that is one leaf expands to its clause
    assert min(s for _, s, _ in small_to_big(trees)([single])) == CONTRACT.index("2. SERVICES")


def test_small_to_big_never_sends_a_character_twice(contract_tree) -> None:
    _, trees, chunks = contract_tree
    sent = small_to_big(trees)(chunks)
    covered = [i for _, s, e in sent for i in range(s, e)]
    assert len(covered) == len(set(covered)) and set(covered) >= {i for c in chunks for i in range(c.start, c.end)}
    a, b = leaf(chunks, "2. SERVICES > 2.2 > (a)"), leaf(chunks, "2. SERVICES > 2.2 > (b)")
    parent = a.metadata["parent"]
    assert small_to_big(trees)([a, b]) == small_to_big(trees)([a])  # b came with a's parent: nothing more
    assert sum(e - s for _, s, e in small_to_big(trees)([a, b])) == parent["end"] - parent["start"]


def test_auto_merge_sends_the_rest_of_a_parent_most_of_whose_children_were_sent(contract_tree) -> None:
    _, trees, chunks = contract_tree
    a, b = leaf(chunks, "2. SERVICES > 2.2 > (a)"), leaf(chunks, "2. SERVICES > 2.2 > (b)")
    parent = a.metadata["parent"]
    assert auto_merge(trees, ratio=0.5)([a]) == [("c", a.start, a.end)]  # 1 of 4 children
    merged = auto_merge(trees, ratio=0.4)([a, b])  # 2 of 4 > 0.4
    assert merged[:2] == [("c", a.start, a.end), ("c", b.start, b.end)]
    covered = {i for _, s, e in merged for i in range(s, e)}
    assert covered >= set(range(parent["start"], parent["end"]))
    with pytest.raises(ValueError, match="ratio"):
        auto_merge(trees, ratio=1.0)


def test_expansion_rejects_chunks_of_another_chunker(contract_tree) -> None:
    _, trees, _ = contract_tree
    other = HierarchicalChunker(chunk_size=30)(CONTRACT, source="c")
    with pytest.raises(ValueError, match="same HierarchicalChunker"):
        small_to_big(trees)([c for c in other if c.metadata["node"] not in {n.id for n in trees["c"].walk()}][:1])


def test_expansion_through_compare_spends_the_same_budget() -> None:
    doc = load_document("agreement")
    questions = load_questions("agreement")
    chunker = HierarchicalChunker(chunk_size=200)
    trees = {doc.name: chunker.tree(doc.text)}
    runs = {
        name: compare({name: chunker}, [doc], questions, retrievers=("bm25",), budget=[1000, 2000], progress=False,
                      expand_hits=fn).rows
        for name, fn in [("leaves", None), ("small_to_big", small_to_big(trees)), ("auto_merge", auto_merge(trees))]
    }
    for rows in runs.values():  # the budget rule of compare: at most the budget, filled unless the ranking ran out
        assert (rows["sent"] <= rows["budget"]).all() and rows["sent"].mean() > 0.95 * rows["budget"].mean()
    assert (runs["small_to_big"]["recall"].to_numpy() != runs["leaves"]["recall"].to_numpy()).any()


def test_new_text_only_sends_each_hits_unsent_text_in_rank_order() -> None:
    def hit(start, end, source="a"):
        return Chunk(text="x" * (end - start), start=start, end=end, index=0, metadata={"source": source})

    hits = [hit(10, 20), hit(15, 25), hit(0, 12), hit(5, 30), hit(12, 18), hit(15, 25, "b")]
    assert new_text_only(hits) == [
        ("a", 10, 20), ("a", 20, 25),  # the second hit sends only what the first did not
        ("a", 0, 10),  # the third hit's start
        ("a", 25, 30),  # the fourth covers [0, 25) already sent: its tail alone
        ("b", 15, 25),  # another document shares nothing; the fifth hit sent nothing
    ]
    assert new_text_only([hit(0, 10), hit(20, 30), hit(5, 25)]) == [("a", 0, 10), ("a", 20, 30), ("a", 10, 20)]


@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 20)), max_size=12))
def test_new_text_only_sends_every_character_once_in_rank_order(raw) -> None:
    hits = [Chunk(text="x" * length, start=start, end=start + length, index=0, metadata={"source": "a"})
            for start, length in raw]
    sent = new_text_only(hits)
    characters = [i for _, s, e in sent for i in range(s, e)]
    assert len(characters) == len(set(characters))  # nothing twice
    assert set(characters) == {i for h in hits for i in range(h.start, h.end)}  # everything once
    seen: set[int] = set()
    pieces = iter(sent)
    for hit in hits:  # each hit's new characters, in order, before the next hit's
        new = sorted(set(range(hit.start, hit.end)) - seen)
        got = []
        while len(got) < len(new):
            _, s, e = next(pieces)
            got.extend(range(s, e))
        assert got == new
        seen |= set(new)


def test_new_text_only_lets_a_budget_buy_new_text() -> None:
    doc = load_document("article")
    chunker = SlidingWindowChunker(chunk_size=400, stride=100)
    questions = load_questions("article", split="all")
    runs = {dedupe: compare({"w": chunker}, [doc], questions, retrievers=("bm25",), budget=[1000, 4000],
                            progress=False, expand_hits=new_text_only if dedupe else None).rows
            for dedupe in (False, True)}
    plain, once = (runs[d][runs[d]["budget"] == 1000].set_index("question") for d in (False, True))
    assert (once["recall"] >= plain["recall"] - 1e-12).all() and once["recall"].mean() > plain["recall"].mean()
    assert (once["sent"] <= 1000).all() and once["sent"].mean() > 990


# -- the tree drawn -----------------------------------------------------------------------------------
def test_tree_view_draws_every_row_with_its_span() -> None:
    root = HierarchicalChunker().tree(CONTRACT)
    markup = render_tree(root, CONTRACT)
    assert f'data-nodes="{len(list(root.walk()))}"' in markup
    for node in root.walk():
        assert (
            f'data-node="{node.id}" data-level="{node.depth}" data-start="{node.start}" data-end="{node.end}"' in markup
        )
    shallow = render_tree(root, CONTRACT, max_depth=1, pieces=False)
    assert shallow.count('class="ct-row"') == 1 + len([n for n in root.children if n.kind != "piece"])
    assert "more rows not shown" in render_tree(root, CONTRACT, max_rows=3)
    with pytest.raises(ValueError, match="characters"):
        render_tree(root, CONTRACT[:10])
