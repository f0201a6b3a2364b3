"""The resampling gate on constructed question tables with known answers: it refuses where two
chunkings answer nearly the same questions, names a winner that dominates, rules out what is
almost never best, estimates more questions the smaller the gap, and is seeded."""

import math
import textwrap

import numpy as np
import pandas as pd
import pytest

from chunklab.evaluation.budget import ROW_COLUMNS, Comparison
from chunklab.evaluation.gate import (
    Gate,
    choice_stability,
    questions_to_separate,
    resampling_gate,
    stratified_weights,
)
from chunklab.evaluation.verdicts import gate, leaderboard


def answered(n, yes, first=0):
    """n yes/no scores with `yes` ones starting at position `first`."""
    out = np.zeros(n)
    out[first:first + yes] = 1
    return out


def table(**columns):
    return pd.DataFrame(columns, index=[f"q{i}" for i in range(len(next(iter(columns.values()))))])


DOCS = [f"doc{i % 4}" for i in range(80)]


def test_near_identical_chunkings_are_refused():
    # 80 questions; a and b agree on all but two, one each way: nothing to choose between them
    a, b = answered(80, 40), answered(80, 40)
    a[50], b[60] = 1, 1
    result = resampling_gate(table(a=a, b=b, weak=answered(80, 10)), DOCS)
    assert result.recommended is None and result.stability < 0.9
    assert set(result.leaders) == {"a", "b"} and result.ruled_out == ["weak"]
    assert "no recommendation" in result.text() and "recommended:" not in result.text()
    assert not result.separated and result.more_questions is None, "disagreeing evenly, no number separates them"


def test_a_dominant_chunking_is_named():
    strong, middle = answered(80, 60), answered(80, 30)
    result = resampling_gate(table(middle=middle, strong=strong, weak=answered(80, 10)), DOCS)
    assert result.recommended == "strong" and result.stability >= 0.9
    assert result.leaders == ("strong", "middle") and result.separated and result.more_questions == 0
    assert result.ruled_out == ["middle", "weak"] and result.contenders == []
    assert result.text().startswith("recommended: strong (best in 100% of 2,000 resamples of the 80 questions within "
                                    "each of the 4 documents)")


def test_a_stable_leader_the_paired_test_cannot_separate_is_not_recommended():
    # a answers two questions b misses and nothing else differs: a is best in most resamples, yet
    # McNemar's exact p is 0.5, so the gate names no winner and says why
    a, b = answered(80, 40), answered(80, 40)
    a[50], a[60] = 1, 1
    result = resampling_gate(table(a=a, b=b), DOCS)
    assert result.stability >= 0.9 and not result.separated
    assert result.recommended is None
    assert "but the paired test does not separate it from b" in result.text()


def test_ruled_out_and_contenders_follow_the_shares():
    # a and b disagree on eight questions, five to three; c is never best; shares decide every list
    a, b = answered(60, 30), answered(60, 28, first=5)
    result = resampling_gate(table(a=a, b=b, c=answered(60, 5)), [f"d{i % 3}" for i in range(60)])
    assert math.isclose(sum(result.shares.values()), 1.0)
    assert list(result.shares) == ["a", "b", "c"] and result.shares["c"] == 0.0
    assert result.ruled_out == [label for label, share in result.shares.items() if share < 0.025]
    assert "c" in result.ruled_out and "ruled out (best in under 2.5%): " in result.text()
    assert result.recommended is None and result.contenders == ["a", "b"]


def test_ties_in_a_resample_are_shared_fractionally():
    same = answered(30, 12)
    result = resampling_gate(table(x=same, y=same.copy()))
    assert result.shares == {"x": 0.5, "y": 0.5} and result.recommended is None


def test_the_question_estimate_shrinks_as_the_gap_grows():
    # the same 20 disagreements, split ever more unevenly between the two
    needed = []
    for only_a in range(11, 21):
        a, b = np.zeros(200), np.zeros(200)
        a[:only_a], b[only_a:20] = 1, 1
        needed.append(questions_to_separate(a, b))
    assert all(later < earlier for earlier, later in zip(needed, needed[1:])), needed
    assert questions_to_separate(answered(50, 10), answered(50, 10, first=10)) == math.inf  # 10 each way
    # Connor's formula by hand: p10 = 0.15, p01 = 0.05 (psi 0.2, delta 0.1): (1.96·√.2 + 0.8416·√.19)² / .01
    a, b = answered(100, 15), answered(100, 5, first=15)
    assert questions_to_separate(a, b) == pytest.approx((1.959964 * 0.2**0.5 + 0.841621 * 0.19**0.5) ** 2 / 0.01,
                                                        rel=1e-5)


def test_more_questions_counts_beyond_those_there_are():
    a, b = answered(100, 15), answered(100, 5, first=15)  # 15 vs 5: McNemar p = 0.041, not yet separated by both
    result = resampling_gate(table(a=a, b=b))
    expected = math.ceil(questions_to_separate(a, b)) - 100
    if result.separated:
        assert result.more_questions == 0
    else:
        assert result.more_questions == max(1, expected) and f"about {result.more_questions:,} more" in result.text()


def test_the_gate_is_seeded():
    a, b = answered(60, 30), answered(60, 28, first=5)
    first, again = resampling_gate(table(a=a, b=b), seed=3), resampling_gate(table(a=a, b=b), seed=3)
    assert first == again
    assert resampling_gate(table(a=a, b=b), seed=4).shares != first.shares
    assert np.array_equal(stratified_weights(DOCS, 50, 1), stratified_weights(DOCS, 50, 1))


def test_resampling_stays_within_each_document():
    weights = stratified_weights(DOCS, 300, 0)
    for doc in set(DOCS):
        members = [i for i, d in enumerate(DOCS) if d == doc]
        assert (weights[:, members].sum(axis=1) == len(members)).all()


def test_stability_is_a_fraction_of_the_resamples():
    a, b = answered(60, 30), answered(60, 28, first=5)
    result = resampling_gate(table(a=a, b=b), resamples=500)
    assert 0.5 < result.stability < 0.9 and result.stability == result.shares["a"]
    assert f"best in only {result.stability:.0%} of 500 resamples" in result.text()

    def best_mean(frame):
        means = frame.mean()
        return "a" if means["a"] > means["b"] else "b" if means["b"] > means["a"] else "tie"

    stability = choice_stability(table(a=a, b=b), best_mean, resamples=500)
    assert stability.chosen == "a" and 0 < stability.share < 1 and not stability.decided
    assert math.isclose(sum(stability.shares.values()), 1.0) and set(stability.shares) == {"a", "b", "tie"}
    # the very resamples of the gate: its share of a is a's wins and half the ties
    assert result.shares["a"] == pytest.approx(stability.shares["a"] + stability.shares["tie"] / 2)
    assert "a guess" in stability.text() and f"{stability.share:.0%} of 500 resamples" in stability.text()


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="rule_out < choose"):
        resampling_gate(table(a=answered(5, 2)), choose=0.02)
    with pytest.raises(ValueError, match="one entry per question"):
        resampling_gate(table(a=answered(5, 2)), ["d"] * 4)


def comparison(outcomes):
    rows = [{"question": f"q{i}", "doc": f"d{i % 2}", "doc_kind": "text", "kind": "fact", "split": "dev",
             "chunker": name, "context": False, "retriever": "bm25", "budget": 500, "answered": value,
             "recall": value, "precision": value, "iou": value, "sent": 500.0, "chunks_sent": 1.0}
            for name, values in outcomes.items() for i, value in enumerate(values)]
    return Comparison(rows=pd.DataFrame(rows, columns=list(ROW_COLUMNS)), chunkings=None, timings=None)


def test_the_leaderboard_carries_the_gate():
    result = comparison({"close": answered(40, 29), "good": answered(40, 30), "bad": answered(40, 10)})
    board = leaderboard(result, "bm25", 500)
    assert isinstance(board.attrs["gate"], Gate) and board.attrs["gate"] == gate(result, "bm25", 500)
    assert board.attrs["gate"].recommended is None and board.attrs["gate"].ruled_out == ["bad"]
    assert list(board["mark"]) == ["best", "no measurable difference", ""], "the marks are unchanged"
    clear = comparison({"good": answered(40, 35), "bad": answered(40, 10)})
    assert gate(clear, "bm25", 500).recommended == "good"


def test_evaluate_prints_the_gate_under_each_leaderboard(tmp_path, capsys):
    from chunklab import compare
    from chunklab.evaluation.annotate import make_question, save_questions
    from chunklab.formats.readers import read_document
    from chunklab.pipeline.cli import main
    from chunklab.strategies import FixedSizeChunker

    path = tmp_path / "notes.md"
    facts = [f"Valve {name} opens at {n} bar and closes at {n + 2} bar." for n, name in
             enumerate(("amber", "birch", "cedar", "delta", "ember", "fjord"), 3)]
    path.write_text("# Valves\n\n" + "\n\n".join(facts) + "\n", encoding="utf-8")
    notes = read_document(path)
    questions = save_questions(tmp_path / "q.jsonl", [make_question(notes, f"When does {fact.split()[1]} open?",
                                                                    fact.split(" and")[0]) for fact in facts], notes)
    status = main(["evaluate", str(path), "--questions", str(tmp_path / "q.jsonl"), "--strategy", "fixed",
                   "--param", "chunk_size=40", "--strategy", "fixed", "--param", "chunk_size=300",
                   "--retriever", "bm25", "--budget", "60", "--no-progress"])
    out = capsys.readouterr().out
    chunkers = {repr(c): c for c in (FixedSizeChunker(chunk_size=40), FixedSizeChunker(chunk_size=300))}
    result = compare(chunkers, [notes], questions, retrievers=("bm25",), budget=[60], progress=False)
    said = textwrap.fill(str(gate(result, "bm25", 60)), width=100)  # wrapped to fit a terminal
    assert status == 0 and f"\n{said}\n" in out
    assert said.startswith(("recommended: ", "no recommendation: "))


def test_the_rendered_leaderboard_says_recommended_only_under_the_gate():
    from chunklab.viz.leaderboard import render_leaderboard

    close = comparison({"close": answered(40, 29), "good": answered(40, 30), "bad": answered(40, 10)})
    html = render_leaderboard(close, "bm25", 500, split="dev", beside=None)
    assert 'data-recommended=""' in html and "No recommendation: the most often best, good" in html
    assert "Recommended" not in html and "ruled out (best in under 2.5%): bad" in html
    clear = render_leaderboard(comparison({"good": answered(40, 35), "bad": answered(40, 10)}), "bm25", 500,
                               split="dev", beside=None)
    assert 'data-recommended="good"' in clear and "Recommended: good (best in 100% of 2,000 resamples" in clear
