"""The hybrid chunker's own cases: routing, sections, size caps, context, pages, the pluggable steps,
the model adapters (with a stand-in model, never a real one)."""

from __future__ import annotations

import pickle
import re
import typing

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunklab import load_document
from chunklab.core import Chunk, ParameterError
from chunklab.strategies import CodeChunker, HybridChunker, TableChunker
from chunklab.strategies.hybrid import (
    ExtractiveContext,
    Section,
    balanced_pack,
    document_title,
    extractive_propositions,
    structure_sections,
)
from chunklab.strategies.llm import LLMContext, LLMPropositions, LLMSectioner, OpenAICompatible
from chunklab.text.pack import pack

MIXED = """# Cache Guide

An introduction to the cache. It explains the parts.

## Sizes

Pick a size from the table below.

| Size (MB) | Hit rate (%) |
|---|---|
| 64 | 41.0 |
| 128 | 55.7 |
| 256 | 63.2 |

## Code

```python
def warm(cache):
    return cache.fill()


def drain(cache):
    return cache.empty()
```

![Hit rate by size](figure.png)
The figure shows the hit rate rising with size.

## Notes

Short note.
"""


def chunks_of(text: str, **params) -> list[Chunk]:
    chunks = HybridChunker(**params)(text, source="doc")
    assert all(text[c.start : c.end] == c.text for c in chunks)
    return chunks


def by_modality(chunks: list[Chunk], modality: str) -> list[Chunk]:
    return [c for c in chunks if c.metadata["modality"] == modality]


def test_each_part_goes_to_its_own_rule():
    chunks = chunks_of(MIXED, min_chunk_size=0)
    rows = by_modality(chunks, "table")
    assert [c.metadata["rows"] for c in rows] == [[1], [2], [3]]
    assert rows[1].text == "| 128 | 55.7 |"
    assert all("| Size (MB) | Hit rate (%) |" in c.metadata["context"] for c in rows)
    assert rows[1].metadata["records"] == [{"Size (MB)": "128", "Hit rate (%)": "55.7"}]
    code = by_modality(chunks, "code")
    assert len(code) == 1 and code[0].text.startswith("## Code") and code[0].text.endswith("```")
    assert code[0].metadata["definitions"] == ["def warm", "def drain"]
    image = by_modality(chunks, "image")
    assert len(image) == 1 and image[0].metadata["path"] == "figure.png"
    assert image[0].metadata["context"].endswith(
        "Image: Hit rate by size. The figure shows the hit rate rising with size."
    )


def test_code_too_big_for_one_chunk_is_cut_between_definitions():
    code = by_modality(chunks_of(MIXED, chunk_size=80, min_chunk_size=0), "code")
    assert [c.metadata["definitions"] for c in code] == [["def warm"], ["def drain"]]
    assert code[1].text.startswith("def drain") and code[1].text.endswith("```")


def test_sections_give_breadcrumbs_and_context_and_never_share_a_chunk():
    chunks = chunks_of(MIXED, min_chunk_size=0)
    intro = chunks[0]
    assert intro.metadata["title"] == "Cache Guide" and intro.metadata["context"] == "Cache Guide"
    notes = chunks[-1]
    assert notes.metadata["breadcrumb"] == ["Cache Guide", "Notes"]
    assert notes.metadata["context"] == "Cache Guide > Notes"  # the title opens the breadcrumb: once
    for chunk in chunks:
        start, end = chunk.metadata["section_span"]
        assert start <= chunk.start and chunk.end <= end
    assert HybridChunker(title="Handbook")(MIXED)[0].metadata["context"] == "Handbook\nCache Guide"


def test_a_heading_alone_joins_what_follows_it():
    chunks = chunks_of(MIXED, min_chunk_size=0)
    rows = by_modality(chunks, "table")
    # "## Sizes" and its sentence fit one prose chunk; the table's first chunk spans its header
    assert any(c.text.startswith("## Sizes\n\nPick a size") for c in chunks)
    assert rows[0].text.startswith("| Size (MB)")
    text = "# Top\n\n## Sub\n\nBody text of the subsection, long enough to stand alone as a chunk."
    first = chunks_of(text, min_chunk_size=0)[0]
    assert first.text.startswith("# Top") and first.metadata["breadcrumb"] == ["Top", "Sub"]


def test_small_pieces_join_a_neighbour_section_or_rows_of_their_table():
    text = "# Guide\n\n## A\n\nShort a.\n\n## B\n\nShort b.\n\n## C\n\n" + "A longer sentence about C. " * 6
    loose = chunks_of(text, chunk_size=200, min_chunk_size=0)
    merged = chunks_of(text, chunk_size=200, min_chunk_size=60)
    assert [c.metadata["section"] for c in loose] == ["Guide > A", "Guide > B", "Guide > C"]
    assert [c.metadata["section"] for c in merged] == ["Guide", "Guide > C"]  # A and B under their common parent
    assert merged[0].text.startswith("# Guide") and merged[0].text.endswith("Short b.")
    assert merged[0].metadata["section_span"] == (text.index("## A"), text.index("## C") - 2)
    rows = by_modality(chunks_of(MIXED, min_chunk_size=25), "table")
    assert [c.metadata["rows"] for c in rows] == [[1], [2, 3]]  # the first row chunk spans the header lines
    assert rows[1].metadata["records"] == [
        {"Size (MB)": "128", "Hit rate (%)": "55.7"},
        {"Size (MB)": "256", "Hit rate (%)": "63.2"},
    ]
    assert rows[1].metadata["markdown"].endswith("| 128 | 55.7 |\n| 256 | 63.2 |")
    code = by_modality(chunks_of(MIXED, chunk_size=80, min_chunk_size=79), "code")
    assert len(code) == 2  # code is never merged


@given(st.lists(st.integers(1, 90), min_size=1, max_size=40), st.integers(90, 400))
def test_balanced_packing_needs_no_more_chunks_and_cuts_no_unit(lengths, limit):
    text, units, pos = "", [], 0
    for n in lengths:
        units.append((pos, pos + n))
        text += "x" * n + " "
        pos += n + 1
    greedy = pack(text, units, limit)
    balanced = balanced_pack(text, units, limit)
    assert len(balanced) == len(greedy)
    assert [u for _, _, a, b in balanced for u in range(a, b + 1)] == list(range(len(units)))
    assert all(e - s <= limit and (s, e) == (units[a][0], units[b][1]) for s, e, a, b in balanced)
    # the smallest limit that needs no more chunks: the largest chunk is never larger than greedy's; the
    # spread may grow (units of 1,1,1,65,13,5,64,1,1,1,14,58 at limit 90: 71/84/79, a spread of 13 against 12)
    assert max(e - s for s, e, _, _ in balanced) <= max(e - s for s, e, _, _ in greedy)


def test_balanced_packing_evens_out_a_tiny_last_chunk():
    text = "aaaa. " * 20
    units = [(i * 6, i * 6 + 5) for i in range(20)]
    greedy = [e - s for s, e, _, _ in pack(text, units, 100)]
    balanced = [e - s for s, e, _, _ in balanced_pack(text, units, 100)]
    assert len(greedy) == len(balanced) and min(greedy) < 30 < min(balanced)


def topic_embedder(texts):
    """A stand-in embedder: one dimension for cats, one for cars."""
    import numpy as np

    return np.array([[t.count("cat") + 0.01, t.count("car") + 0.01] for t in texts], dtype=np.float32)


def test_semantic_packing_cuts_where_the_topic_changes():
    text = "The cat sat. The cat slept. The car drove. The car stopped. The car turned. The car parked."
    balanced = chunks_of(text, chunk_size=65, min_chunk_size=0)
    semantic = chunks_of(text, chunk_size=65, min_chunk_size=0, prose="semantic", embedder=topic_embedder)
    assert [c.text for c in semantic] == [
        "The cat sat. The cat slept.",
        "The car drove. The car stopped. The car turned. The car parked.",
    ]
    assert len(balanced) == 2 and balanced[0].text.endswith("The car drove.")  # even sizes, mixed topics


def test_plain_text_clauses_and_a_contents_list():
    contract = "AGREEMENT\n\n1. FEES\n\n1.1 The fee is 10 dollars.\n\n2. TERM\n\n2.1 It lasts a year.\n"
    chunks = chunks_of(contract, chunk_size=40, min_chunk_size=0)
    assert any(c.metadata["section"] == "2. TERM > 2.1" and c.text.startswith("2.1") for c in chunks)
    report = ("Contents\n1. Fleet\n2. Fuel\n3. Safety\n\n1. Fleet\nWe run trucks.\n\n2. Fuel\nWe burn diesel.\n\n"
              "3. Safety\nNobody was hurt.\n")
    trails = [s.trail for s in structure_sections(report, "text")]
    assert trails == [("1. Fleet",), ("2. Fuel",), ("3. Safety",)]  # not under "3. Safety" of the contents


def test_titles():
    assert (
        document_title("The River That Learned to Count\n\nBy a writer.", "text") == "The River That Learned to Count"
    )
    assert document_title("It was raining.\nMore.", "text") == ""
    assert document_title("a,b\n1,2\n", "csv") == ""
    assert (
        document_title("<!doctype html><html><body><h1>Field Guide</h1><p>x</p></body></html>", "html") == "Field Guide"
    )


def test_pages_keep_running_headers_and_footers_off_chunk_edges():
    bodies = ["Trucks ran on diesel.", "Vans became electric.", "Warehouses got solar roofs.", "Nobody was hurt."]
    ends = ["Fuel use fell.", "Range grew.", "Bills shrank.", "Training helped."]
    pages = [f"Acme Report\n{body}\n{end}\nPage {i} of 4" for i, (body, end) in enumerate(zip(bodies, ends), 1)]
    text = "\n\n\f".join(pages)
    chunks = chunks_of(text, chunk_size=60, min_chunk_size=0)
    assert [c.metadata["page"] for c in chunks] == [1, 2, 3, 4]
    assert [c.text.split("\n")[0] for c in chunks] == bodies
    assert [c.text.split("\n")[-1] for c in chunks] == ends


def test_the_pdf_report_has_pages_and_clean_breadcrumbs():
    report = load_document("report")
    chunks = HybridChunker()(report.text)
    assert {c.metadata["page"] for c in chunks} == set(range(1, 11))
    assert not any(c.metadata["section"].startswith("10. Data notes") and c.metadata["page"] < 10 for c in chunks)
    assert not any(c.text.startswith("Marrow Bay Freight · 2025") for c in chunks[1:])


def ticket_sections(text: str, fmt: str) -> list[Section]:
    return [Section(m.start(), (m[1],)) for m in re.finditer(r"^=== (Ticket \S+)", text, re.MULTILINE)]


def test_a_sectioner_of_ones_own_and_bad_sections():
    text = "Intro line here.\n\n=== Ticket A-1\nThe disk is full.\n\n=== Ticket A-2\nThe port is closed.\n"
    chunks = chunks_of(text, sectioner=ticket_sections, min_chunk_size=0)
    assert [c.metadata["section"] for c in chunks] == ["", "Ticket A-1", "Ticket A-2"]

    with pytest.raises(ValueError, match="Section"):
        HybridChunker(sectioner=bad_sectioner)("some text")


def bad_sectioner(text: str, fmt: str) -> list:
    return [(0, ("x",))]


def test_context_and_propositions_are_pluggable():
    assert not any("context" in c.metadata for c in chunks_of(MIXED, context=None))
    lead = chunks_of(MIXED, context=ExtractiveContext(lead=True), chunk_size=60, min_chunk_size=0)
    assert any("An introduction to the cache." in c.metadata.get("context", "") for c in lead[1:])
    chunks = chunks_of(MIXED, propositions=extractive_propositions)
    notes = chunks[-1]
    assert notes.metadata["propositions"] == ["Notes: Short note."]


def test_parameters_are_checked():
    with pytest.raises(ParameterError, match="min_chunk_size"):
        HybridChunker(chunk_size=100, min_chunk_size=100)
    with pytest.raises(ParameterError, match="sectioner"):
        HybridChunker(sectioner=None)
    with pytest.raises(ParameterError, match="context"):
        HybridChunker(context="title")
    with pytest.raises(ParameterError, match="title"):
        HybridChunker(title=3)


# -- the model adapters, with a stand-in model --------------------------------------------------
def echo_model(prompt: str) -> str:
    """A deterministic stand-in for a language model."""
    if "numbered blocks" in prompt:
        return "0: Opening\n2: Second part\n99: out of range\nnot a line"
    if "statements" in prompt:
        return "Here you go:\n- The cache holds data.\n- The cache is fast.\n"
    return "  This passage explains the cache.  "


def test_llm_steps_map_answers_to_exact_offsets_and_metadata():
    text = "First paragraph.\n\nSecond paragraph.\n\nThird paragraph, a new topic.\n"
    sections = LLMSectioner(echo_model)(text, "text")
    assert sections == (Section(0, ("Opening",)), Section(text.index("Third"), ("Second part",)))
    chunker = HybridChunker(sectioner=LLMSectioner(echo_model), context=LLMContext(echo_model),
                            propositions=LLMPropositions(echo_model), min_chunk_size=0)
    chunks = chunker(text)
    assert [c.metadata["section"] for c in chunks] == ["Opening", "Second part"]
    assert chunks[0].metadata["context"].endswith("\nThis passage explains the cache.")
    assert chunks[0].metadata["propositions"] == ["The cache holds data.", "The cache is fast."]
    prompt = LLMContext(echo_model).prompt(text, chunks[1])
    assert "Third paragraph, a new topic." in prompt and "Second part" in prompt
    assert pickle.loads(pickle.dumps(chunker)) == chunker


def test_openai_compatible_builds_a_chat_request_without_sending_it(monkeypatch):
    monkeypatch.delenv("CHUNKLAB_TEST_KEY", raising=False)
    request = OpenAICompatible("http://localhost:9/v1/", "tiny", api_key_env="CHUNKLAB_TEST_KEY").request("Hi")
    assert request.full_url == "http://localhost:9/v1/chat/completions" and request.get_method() == "POST"
    assert b'"content": "Hi"' in request.data and b'"temperature": 0' in request.data
    assert "Authorization" not in request.headers


def test_chunker_pickles_to_an_equal_chunker_with_its_callables():
    chunker = HybridChunker(context=ExtractiveContext(lead=True), propositions=extractive_propositions)
    assert pickle.loads(pickle.dumps(chunker)) == chunker
    assert chunker != HybridChunker()


# -- sentence-aligned overlap ---------------------------------------------------------------------
def test_no_overlap_by_default_and_an_overlap_as_large_as_the_chunk_is_refused():
    text = load_document("manual").text
    assert HybridChunker(chunk_overlap=0)(text) == HybridChunker()(text)
    with pytest.raises(ParameterError, match="chunk_overlap"):
        HybridChunker(chunk_size=300, chunk_overlap=300)


@pytest.mark.parametrize("name", ["manual", "history", "minutes"])
def test_an_overlap_repeats_whole_sentences_of_the_prose_chunk_before_within_the_limits(name):
    text = load_document(name).text
    plain = HybridChunker(chunk_size=600, chunk_overlap=200)
    chunks = plain(text)
    repeats = 0
    for before, chunk in zip(chunks, chunks[1:]):
        assert text[chunk.start : chunk.end] == chunk.text and len(chunk) <= 600
        assert before.start < chunk.start  # source order, and never the whole chunk before
        if chunk.start < before.end:
            repeats += 1
            repeated = text[chunk.start : before.end]
            assert len(repeated) <= 200
            assert {before.metadata["modality"], chunk.metadata["modality"]} <= {"prose", "list"}
            assert chunk.metadata["section"].startswith(before.metadata["section"])  # same section
            # it starts where a sentence or a line starts
            assert re.search(r"(?:[.!?:;\"')\]]\s|\n)\s*$", text[: chunk.start]) and not text[chunk.start].isspace()
    assert repeats >= 3, "long prose documents must get some overlap"


def test_without_the_overlap_the_chunks_are_those_packed_under_the_smaller_size():
    text = "One sentence here is short. " * 60
    overlapped = HybridChunker(chunk_size=300, chunk_overlap=100, min_chunk_size=0)(text)
    packed = HybridChunker(chunk_size=200, min_chunk_size=0)(text)
    assert [c.end for c in overlapped] == [c.end for c in packed]
    assert [c.start for c in overlapped][0] == packed[0].start
    assert all(o.start < p.start for o, p in zip(overlapped[1:], packed[1:]))
    assert all(p.start - o.start <= 100 for o, p in zip(overlapped, packed))


def test_one_route_per_modality_a_named_default_and_no_route_depends_on_the_table_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from chunklab.formats.blocks import MODALITIES, Block, BlockKind
    from chunklab.formats.tables import Table
    from chunklab.strategies import hybrid
    from chunklab.strategies.modality import MODALITY_COLOURS, modality_of

    assert set(hybrid._ROUTES) == set(MODALITIES)
    assert MODALITY_COLOURS == {modality: route.colour for modality, route in hybrid._ROUTES.items()}
    # every part goes to the route of its modality, by the one rule the modality chunker sorts by too
    assert {modality_of(Block(kind, 0, 1)) for kind in typing.get_args(BlockKind)} == set(MODALITIES)
    assert modality_of(Table("csv", 0, 1, (), (), ())) == "table"
    assert modality_of(Block("footnote", 0, 1)) == hybrid._DEFAULT_ROUTE == "prose"  # type: ignore[arg-type]
    # a run of packed blocks is of the modality they agree on, else of the default route
    for kinds, route in [({"list"}, "list"), ({"list", "heading"}, "prose"), ({"paragraph"}, "prose"),
                         ({"heading"}, "prose"), ({"quote", "list"}, "prose")]:
        assert hybrid._agreed(modality_of(Block(kind, 0, 1)) for kind in kinds) == route  # type: ignore[arg-type]
    text = MIXED + "\n\n## Steps\n\n- Warm the cache before the peak hour.\n- Watch the hit rate every day.\n"
    chunker = HybridChunker(chunk_size=200, min_chunk_size=50, chunk_overlap=40, context=None)
    expected = [(c.start, c.end, c.metadata["modality"]) for c in chunker(text)]
    assert {m for *_, m in expected} >= {"prose", "table", "code"}
    monkeypatch.setattr(hybrid, "_ROUTES", dict(reversed(hybrid._ROUTES.items())))
    again = text + "\n"  # a new text: its analysis is not the cached one
    assert [(c.start, c.end, c.metadata["modality"]) for c in chunker(again)] == expected


@pytest.mark.parametrize("size", [40, 80, 300])
def test_tables_and_code_are_cut_by_the_table_and_code_chunkers_whatever_the_overlap(size: int) -> None:
    text = MIXED.replace("## Code\n\n", "## Code\n\nTwo functions follow.\n\n")
    chunks = chunks_of(text, chunk_size=size, min_chunk_size=0, chunk_overlap=size // 4)
    for modality, chunker in [("table", TableChunker(rows=1, chunk_size=size)), ("code", CodeChunker(chunk_size=size))]:
        own = [(c.start, c.end) for c in chunker(text) if c.metadata["modality"] == modality]
        assert [(c.start, c.end) for c in by_modality(chunks, modality)] == own, modality
        assert len(own) >= (2 if size < 300 else 1)
