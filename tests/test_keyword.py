"""KeywordChunker and suggest_keywords: the tricky cases."""

from __future__ import annotations

import pickle
import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunklab import explore, load_document
from chunklab.core import ParameterError
from chunklab.pipeline.export import read_jsonl, write_jsonl
from chunklab.strategies import KeywordChunker
from chunklab.strategies.keyword import keyword_counts, suggest_keywords

TICKETS = """SUPPORT LOG

=== Ticket 1 · Printer ===
[09:00] Agent: Hello.
[09:01] Customer: The printer jams. See Ticket 7 for the last time.

=== Ticket 2 · Network ===
[10:00] Agent: Hi again.
Ticket numbers are kept.

=== TICKET 3 · Lights ===
[11:00] Agent: Lights are fine.
"""


def sections(chunks):
    """The keyword that opened each chunk's section."""
    return [c.metadata["keyword"] for c in chunks]


def test_keyword_at_line_start_after_decoration_opens_a_section() -> None:
    chunks = KeywordChunker(keywords=("Ticket",))(TICKETS)
    firsts = [c.text.split("\n")[0] for c in chunks]
    assert firsts == ["SUPPORT LOG", "=== Ticket 1 · Printer ===", "=== Ticket 2 · Network ===",
                      "Ticket numbers are kept.", "=== TICKET 3 · Lights ==="]
    assert sections(chunks) == ["", "Ticket", "Ticket", "Ticket", "Ticket"]  # "TICKET": case-insensitive by default
    assert chunks[1].metadata["section"] == "=== Ticket 1 · Printer ==="
    assert chunks[1].metadata["breadcrumb"] == ["=== Ticket 1 · Printer ==="]
    assert all(TICKETS[c.start : c.end] == c.text for c in chunks)


def test_running_text_does_not_cut_but_a_sentence_starting_a_line_does() -> None:
    chunks = KeywordChunker(keywords=("Ticket",), case_sensitive=True)(TICKETS)
    firsts = [c.text.split("\n")[0] for c in chunks]
    assert not any("Ticket 7" in first for first in firsts), "'See Ticket 7' sits inside a sentence"
    # The failure mode of a line-start rule: "Ticket numbers are kept." starts a line, so it opens a
    # section; and case-sensitive matching misses "TICKET 3".
    assert "Ticket numbers are kept." in firsts and not any(f.startswith("=== TICKET 3") for f in firsts)


def test_anywhere_cuts_inside_sentences() -> None:
    chunks = KeywordChunker(keywords=("Ticket",), where="anywhere", case_sensitive=True)(TICKETS)
    assert any(c.text.startswith("Ticket 7 for the last time") for c in chunks)
    assert all(TICKETS[c.start : c.end] == c.text for c in chunks)


def test_keywords_match_whole_words_only() -> None:
    text = "Parties agree.\n\nPart A: scope.\n\nPartition is not a part."
    chunks = KeywordChunker(keywords=("Part",))(text)
    assert [c.text for c in chunks] == ["Parties agree.", "Part A: scope.\n\nPartition is not a part."]


def test_regex_pattern_and_labels() -> None:
    agreement = load_document("agreement").text
    chunker = KeywordChunker(pattern=r"\d+\. [A-Z]", case_sensitive=True, chunk_size=100_000)
    cuts = chunker.cuts(agreement)
    assert len(cuts) == 14 + 3  # clauses 1-14, and the numbered notes 1-3 of Schedule 1 (a regex cannot tell)
    assert [label for _, label in cuts[:3]] == ["1. D", "2. S", "3. S"]
    assert all(agreement[pos : pos + len(label)] == label for pos, label in cuts)


def test_keywords_and_pattern_together_and_preamble() -> None:
    text = "Intro line.\n\nQ: first?\nA: yes.\n\nNOTE 1: careful.\n\nQ: second?\nA: no."
    chunks = KeywordChunker(keywords=("Q:",), pattern=r"NOTE \d")(text)
    assert sections(chunks) == ["", "Q:", "NOTE 1", "Q:"]
    assert chunks[0].metadata["section"] == "" and chunks[0].metadata["breadcrumb"] == []
    assert "context" not in chunks[0].metadata


def test_heading_mode_looks_only_in_headings() -> None:
    text = "# Install\n\nRun the Install script.\n\n## Install on Linux\n\nSteps.\n\n## Upgrade\n\nMore."
    chunks = KeywordChunker(keywords=("Install",), where="heading")(text)
    assert [c.text.split("\n")[0] for c in chunks] == ["# Install", "## Install on Linux"]
    assert sections(chunks) == ["Install", "Install"]


def test_long_sections_are_split_with_their_heading_as_context() -> None:
    support = load_document("support").text
    chunker = KeywordChunker(keywords=("Ticket",), chunk_size=400)
    chunks = chunker(support)
    assert all(len(c) <= 400 for c in chunks)
    later = [c for c in chunks if "context" in c.metadata]
    assert later and all(c.metadata["context"].startswith("=== Ticket HC-") for c in later)
    assert all(c.metadata["context"] == c.metadata["section"] for c in later)


def test_suggested_keywords() -> None:
    support = load_document("support").text
    assert suggest_keywords(support) == ("Q:", "Ticket", "PART")
    assert keyword_counts(support)["Q:"] == 16 and "A:" not in keyword_counts(support), "'A:' never opens a paragraph"
    assert suggest_keywords("In 2019, it rained.\n\nIn 2021, it flooded.\n\nStep 1: go.\n\nStep 2: stop.") == ("Step",)
    assert suggest_keywords("Part A: x\n\nPART B: y\n\npart c: z") == ("Part",)
    assert suggest_keywords("Part A: x\n\nPART B: y", case_sensitive=True) == ()
    with pytest.raises(ValueError):
        suggest_keywords("text", min_count=0)


def test_defaults_use_the_suggestions() -> None:
    support = load_document("support").text
    default = KeywordChunker()
    assert default.active_keywords(support) == suggest_keywords(support)
    assert sections(default(support)).count("Q:") == 16
    assert KeywordChunker(pattern="x").active_keywords(support) == ()
    plain = "No labels in this text.\n\nJust two paragraphs."
    assert [c.metadata["keyword"] for c in KeywordChunker()(plain)] == [""]


def test_chunks_survive_jsonl_and_chunkers_pickle(tmp_path) -> None:
    chunker = KeywordChunker(keywords=("Ticket",), chunk_size=300)
    chunks = chunker(TICKETS, source="t")
    assert read_jsonl(write_jsonl(chunks, tmp_path / "t.jsonl")) == chunks
    assert pickle.loads(pickle.dumps(chunker)) == chunker


def test_bad_parameters_name_themselves() -> None:
    with pytest.raises(ParameterError, match="pattern"):
        KeywordChunker(pattern="(unclosed")
    with pytest.raises(ParameterError, match="keywords"):
        KeywordChunker(keywords=("Q:", " "))
    with pytest.raises(ParameterError, match="keywords"):
        KeywordChunker(keywords="Q:")
    with pytest.raises(ParameterError, match="where"):
        KeywordChunker(where="middle")


def test_explore_text_box_moves_the_boundaries() -> None:
    support = load_document("support").text
    explorer = explore(KeywordChunker, support, keywords="Q:, Ticket")
    explorer.widget
    before = explorer.output.value
    explorer.controls["keywords"].value = "Ticket"
    after = explorer.output.value
    n = lambda markup: int(re.search(r'data-nchunks="(\d+)"', markup).group(1))  # noqa: E731
    assert explorer.params["keywords"] == ("Ticket",) and n(after) < n(before)


def test_many_matches_stay_linear() -> None:
    line = "Item 1: a short line of text with a keyword at its start.\n"
    small, large = line * 2_000, line * 20_000
    chunker = KeywordChunker(keywords=("Item",), chunk_size=400)
    # A complexity guard, not a speed target: ten times the text may not cost thirty times the time.
    # The best of three runs each, so that a pause of a loaded machine does not decide it.
    timings = []
    for text in (small, large):
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            chunks = chunker(text)
            best = min(best, time.perf_counter() - started)
        timings.append(best)
        assert len(chunks) == text.count("Item 1:")
    assert timings[1] < 30 * max(timings[0], 1e-3), timings


@given(st.lists(st.sampled_from(["Q: why?", "A: because.", "Note: x", "plain words here", "", "=== Q: odd ==="]),
                max_size=40),
       st.sampled_from(["line_start", "heading", "anywhere"]), st.integers(20, 300))
def test_offsets_and_labels_on_generated_transcripts(lines, where, max_size) -> None:
    text = "\n".join(lines)
    chunks = KeywordChunker(keywords=("Q:", "Note"), where=where, chunk_size=max_size)(text)
    assert all(text[c.start : c.end] == c.text and len(c) <= max_size for c in chunks)
    assert all(c.metadata["keyword"] in ("", "Q:", "Note") for c in chunks)
