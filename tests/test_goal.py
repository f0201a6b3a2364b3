"""`chunklab.evaluation.goal`: the verdict on constructed comparisons whose answer is known, the
size-matched baselines, and the chunkings the goal compares."""

from __future__ import annotations

import pandas as pd
import pytest

from chunklab.core import CHUNKERS
from chunklab.evaluation.budget import Comparison
from chunklab.evaluation.goal import (
    HYBRID_LABEL,
    HYBRID_SETTING,
    goal_chunkers,
    goal_verdict,
    mean_chunk_size,
    size_matched,
    size_matched_baselines,
)
from chunklab.formats.corpus import load_document
from chunklab.strategies import FixedSizeChunker, HybridChunker


def comparison(answers: dict[str, list[int]], budgets=(500, 1000), retriever="bm25") -> Comparison:
    """Rows of a budget comparison: every chunking answers its questions the same at every budget."""
    rows = []
    for budget in budgets:
        for label, answered in answers.items():
            for i, yes in enumerate(answered):
                rows.append({"question": f"q{i:03d}", "doc": "doc", "doc_kind": "markdown", "kind": "fact",
                             "split": "test", "chunker": label, "context": label.endswith("context"),
                             "retriever": retriever, "budget": budget, "answered": float(yes), "recall": float(yes),
                             "precision": 0.1, "iou": 0.1, "sent": budget, "chunks_sent": 2})
    return Comparison(pd.DataFrame(rows), None, None)


def test_a_hybrid_that_trails_by_two_questions_in_sixty_is_tied_and_the_goal_met():
    hybrid = [1] * 30 + [0] * 30
    other = [1] * 32 + [0] * 28
    verdict = goal_verdict(comparison({HYBRID_SETTING: hybrid, "paragraph": other}))
    assert list(verdict["budget"]) == [500, 1000]
    assert (verdict["mark"] == "tied").all() and verdict["met"].all()
    assert (verdict["best"] == "paragraph").all() and (verdict["beaten_by"] == "").all()
    assert verdict["rank"].tolist() == [2, 2] and verdict["hybrid"].iloc[0] == 0.5


def test_a_strategy_that_answers_twenty_more_questions_beats_it_and_is_named():
    hybrid = [1] * 20 + [0] * 40
    verdict = goal_verdict(comparison({HYBRID_SETTING: hybrid, "paragraph": [1] * 40 + [0] * 20,
                                       "fixed": [1] * 21 + [0] * 39}))
    assert not verdict["met"].any() and (verdict["mark"] == "").all()
    assert (verdict["beaten_by"] == "paragraph (66.7%)").all()  # fixed is ahead by one: no measurable difference


def test_the_best_hybrid_is_marked_best_and_a_missing_label_is_an_error():
    verdict = goal_verdict(comparison({HYBRID_SETTING: [1] * 10, "paragraph": [0] * 10}))
    assert (verdict["mark"] == "best").all() and verdict["met"].all()
    with pytest.raises(ValueError, match="no chunking labelled"):
        goal_verdict(comparison({"hybrid": [1] * 10, "paragraph": [0] * 10}))


def test_size_matched_finds_a_size_whose_mean_is_within_a_few_characters():
    docs = [load_document("article")]
    for target in (180.0, 300.0, 750.0):
        chosen = size_matched(lambda size: FixedSizeChunker(chunk_size=size, snap_to_words=True), target, docs)
        assert abs(mean_chunk_size(chosen, docs) - target) < 0.01 * target, (target, chosen)


def test_goal_chunkers_hold_every_registered_strategy_and_four_baselines_of_the_hybrids_mean():
    docs = [load_document("article")]
    chunkers = goal_chunkers(docs=docs)
    assert isinstance(chunkers[HYBRID_LABEL], HybridChunker)
    assert set(CHUNKERS) <= set(chunkers)
    baselines = size_matched_baselines(mean_chunk_size(HybridChunker(), docs), docs)
    assert len(baselines) == 4 and set(baselines) <= set(chunkers)
    assert all(label.endswith("same mean size") for label in baselines)
    assert set(goal_chunkers(strategies=["fixed"])) == {HYBRID_LABEL, "fixed"}
