"""The gold set of sentence boundaries (data/sentences_gold.jsonl) and the scoring built on it."""

from __future__ import annotations

import json
import re

import pytest

from chunklab.evaluation.sentence_boundaries import (
    GoldPassage,
    boundaries,
    boundary_scores,
    load_sentence_gold,
    score_splitters,
)
from chunklab.formats.corpus import data_dir
from chunklab.viz.boundaries import boundaries_html

PASSAGES = load_sentence_gold()

#: The traps the gold set must contain (issue 8), each matched by a word of some passage's trap list.
REQUIRED_TRAPS = ["abbreviation", "initials", "decimals", "versions", "quotes", "brackets", "ellipsis", "URLs",
                  "e-mail", "bullet lists", "headings", "CRLF", "chat", "table"]


def test_file_is_one_json_object_per_line_with_unique_ids() -> None:
    lines = (data_dir() / "sentences_gold.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    assert len(records) == len(PASSAGES) >= 40
    assert len({r["id"] for r in records}) == len(records)
    for r in records:
        assert set(r) == {"id", "traps", "text", "sentences"} and r["traps"]
        for s in r["sentences"]:
            assert r["text"][s["start"] : s["end"]] == s["text"], (r["id"], s)


@pytest.mark.parametrize("passage", PASSAGES, ids=lambda p: p.id)
def test_sentences_are_exact_trimmed_ordered_and_cover_the_text(passage: GoldPassage) -> None:
    text, pos = passage.text, 0
    for start, end in passage.sentences:
        assert pos <= start < end <= len(text)
        assert text[start:end] == text[start:end].strip(), "sentences are trimmed"
        assert not text[pos:start].strip(), "only whitespace lies between sentences"
        pos = end
    assert not text[pos:].strip()


def test_enough_sentences_and_every_trap() -> None:
    assert sum(len(p.sentences) for p in PASSAGES) >= 150
    traps = " ".join(t for p in PASSAGES for t in p.traps)
    missing = [t for t in REQUIRED_TRAPS if t not in traps]
    assert not missing, missing
    assert any("\r\n" in p.text for p in PASSAGES)


def test_boundary_scores_count_exact_matches() -> None:
    passage = GoldPassage("x", ("t",), "Aa b. Cc d. Ee.", ((0, 5), (6, 11), (12, 15)))
    assert passage.boundaries() == {5, 11}
    perfect = boundary_scores([passage.sentences], [passage])
    assert perfect["f1"] == 1.0 and perfect["passages_wrong"] == 0
    off = boundary_scores([[(0, 2), (3, 11), (12, 15)]], [passage])
    assert (off["true"], off["false"], off["missed"]) == (1, 1, 1) and off["precision"] == off["recall"] == 0.5
    none = boundary_scores([[(0, 15)]], [passage])
    assert none["recall"] == 0.0 and none["f1"] == 0.0
    with pytest.raises(ValueError):
        boundary_scores([], [passage])
    assert boundaries([(0, 3)]) == set()


def test_score_splitters_ranks_a_real_splitter_above_trivial_ones() -> None:
    trivial = {
        "whole passage": lambda text: [(0, len(text))],
        "every word": lambda text: [m.span() for m in re.finditer(r"\S+", text)],
    }
    table = score_splitters(trivial, repeat=1)
    assert table.loc["whole passage", "recall"] == 0.0
    assert table.loc["every word", "recall"] > 0.9 and table.loc["every word", "precision"] < 0.3
    regex = score_splitters(["regex"], repeat=1).loc["regex"]
    assert regex["f1"] > table.loc["every word", "f1"] and regex["sentences_per_s"] > 0


def test_boundaries_html_marks_false_and_missed_boundaries() -> None:
    passage = GoldPassage("demo", ("abbreviation",), "Dr. Lee left. It rained.", ((0, 13), (14, 24)))
    markup = boundaries_html(passage, {"bad": [(0, 3), (4, 24)]})
    assert markup.count("✂") == 1 and markup.count("▲") == 1 and "demo" in markup
    assert "(2 wrong)" in markup and "gold ✓" in markup
