"""Transfer of a leaderboard (chunklab.evaluation.transfer), on comparisons built by hand whose
rankings, regrets and choices are known."""

import pandas as pd
import pytest

from chunklab.evaluation.budget import ROW_COLUMNS, Comparison
from chunklab.evaluation.transfer import (
    leave_one_document_out,
    rank_transfer,
    unseen_documents,
)


def build(scores):
    """``scores[(doc, split)][chunker]`` = list of answered values (one per question), for one
    retriever ("bm25") at one budget (1000)."""
    rows = []
    for (doc, split), by_chunker in scores.items():
        for chunker, values in by_chunker.items():
            for i, value in enumerate(values):
                rows.append({"question": f"{doc}-{split}-{i}", "doc": doc, "doc_kind": "text", "kind": "fact",
                             "split": split, "chunker": chunker, "context": False, "retriever": "bm25",
                             "budget": 1000, "answered": float(value), "recall": float(value),
                             "precision": 0.0, "iou": 0.0, "sent": 1000.0})
    chunkers = sorted({c for by_chunker in scores.values() for c in by_chunker})
    return Comparison(rows=pd.DataFrame(rows, columns=list(ROW_COLUMNS)),
                      chunkings=pd.DataFrame({"chunker": chunkers}).set_index("chunker"),
                      timings=pd.DataFrame({"chunker": chunkers}))


# dev and course-test rank a > b > c; the unseen document ranks them the other way round.
RESULT = build({
    ("course", "dev"): {"a": [1, 1, 1, 1], "b": [1, 1, 0, 0], "c": [0, 0, 0, 0]},
    ("course", "test"): {"a": [1, 1, 1, 0], "b": [1, 0, 0, 0], "c": [0, 0, 0, 0]},
    ("new", "test"): {"a": [0, 0, 0, 0], "b": [1, 0, 0, 0], "c": [1, 1, 1, 0]},
})


def test_unseen_documents_are_those_without_dev_questions():
    assert unseen_documents(RESULT) == ["new"]


def test_rank_transfer_separates_course_and_unseen_documents():
    table = rank_transfer(RESULT).set_index("group")
    assert table.loc["course", "rho"] == pytest.approx(1.0)
    assert table.loc["unseen", "rho"] == pytest.approx(-1.0)
    assert table.loc["unseen", "questions"] == 4
    assert set(table["chunkings"]) == {3}


def test_rank_transfer_needs_dev_rows():
    test_only = build({("new", "test"): {"a": [1], "b": [0]}})
    with pytest.raises(ValueError, match="dev questions"):
        rank_transfer(test_only)


def test_leave_one_document_out_reports_what_a_leaderboard_pick_gets():
    table = leave_one_document_out(RESULT, "bm25", 1000).set_index("doc")
    # chosen on "new" alone, c is picked for "course", where a was best.
    assert table.loc["course", "chosen"] == "c" and table.loc["course", "best"] == "a"
    assert table.loc["course", "regret"] == pytest.approx(0.75)
    assert table.loc["new", "chosen"] == "a" and table.loc["new", "regret"] == pytest.approx(0.75)


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="no rows"):
        leave_one_document_out(RESULT, "dense", 1000)
