"""Paired comparisons on constructed cases with known answers, and the views built on them
(leaderboard, curve, guidance of a budget Comparison)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunklab.evaluation.budget import ROW_COLUMNS, Comparison
from chunklab.evaluation.comparison import guidance
from chunklab.evaluation.paired import (
    bootstrap_weights,
    holm,
    interval_text,
    mcnemar_exact,
    p_text,
    paired,
    paired_against,
    signed,
)
from chunklab.evaluation.verdicts import curve, leaderboard


# -- McNemar's exact test: binomial tails worked out by hand -------------------------------------------
def test_mcnemar_exact_p_values():
    assert mcnemar_exact(5, 0) == 2 / 32  # 2 × (1/2)^5
    assert mcnemar_exact(0, 6) == 2 / 64
    assert mcnemar_exact(10, 2) == pytest.approx(2 * (1 + 12 + 66) / 4096)
    assert mcnemar_exact(3, 3) == 1.0 and mcnemar_exact(0, 0) == 1.0
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


# -- the bootstrap -----------------------------------------------------------------------------------
def test_bootstrap_weights_are_seeded_resamples_of_every_question():
    weights = bootstrap_weights(50, 2000, 3)
    assert weights.shape == (2000, 50) and (weights.sum(axis=1) == 50).all()
    assert weights is bootstrap_weights(50, 2000, 3)  # the same resamples, computed once
    assert not np.array_equal(weights, bootstrap_weights(50, 2000, 4))
    # each question is drawn once per resample on average
    assert weights.mean() == pytest.approx(1.0) and abs(weights.mean(axis=0) - 1).max() < 0.1


def test_interval_of_a_known_normal_difference():
    rng = np.random.default_rng(1)
    n = 400
    b = rng.normal(0.5, 0.1, n)
    a = b + rng.normal(0.02, 0.1, n)  # difference: mean ~0.02, standard error 0.1 / 20 = 0.005
    result = paired(a, b)
    d = a - b
    half_width = 1.96 * d.std(ddof=1) / np.sqrt(n)
    assert result.difference == pytest.approx(d.mean())
    assert result.low == pytest.approx(d.mean() - half_width, abs=0.0015)
    assert result.high == pytest.approx(d.mean() + half_width, abs=0.0015)
    assert result.verdict == "A beats B" and result.p_value is None and result.winner == "A"


def test_identical_scores_make_no_difference():
    scores = [1, 0, 1, 1, 0] * 10
    result = paired(scores, scores, names=("hybrid", "fixed"))
    assert (result.low, result.high, result.difference) == (0.0, 0.0, 0.0)
    assert result.verdict == "no measurable difference" and result.winner is None
    assert result.p_value == 1.0 and result.a_only == result.b_only == 0


def test_six_discordant_questions_decide_five_do_not():
    base = np.zeros(100)
    six, five = base.copy(), base.copy()
    six[:6] = 1
    five[:5] = 1
    assert paired(six, base, names=("hybrid", "fixed")).verdict == "hybrid beats fixed"
    assert paired(base, six, names=("hybrid", "fixed")).verdict == "fixed beats hybrid"
    close = paired(five, base)
    # the percentile interval alone would call it (a resample without any of the five is rare) ...
    assert close.low > 0
    # ... but McNemar's exact test does not (p = 0.0625), so neither does the verdict
    assert close.p_value == 0.0625 and (close.a_only, close.b_only) == (5, 0)
    assert close.verdict == "no measurable difference"


def test_balanced_disagreements_make_no_difference():
    a = np.array([1, 0] * 30)
    b = np.array([0, 1] * 30)  # 30 questions each way
    result = paired(a, b)
    assert result.difference == 0.0 and result.low < 0 < result.high
    assert result.p_value == 1.0 and result.verdict == "no measurable difference"


def test_a_constant_gain_is_measured_exactly():
    b = np.linspace(0, 0.5, 30)
    result = paired(b + 0.1, b)
    assert result.low == pytest.approx(0.1) and result.high == pytest.approx(0.1)
    assert result.verdict == "A beats B"
    assert "A beats B" in str(result) and "30 questions" in str(result)


def test_series_are_paired_by_question():
    a = pd.Series([1.0, 0.0, 1.0, 1.0], index=["q1", "q2", "q3", "q4"])
    b = pd.Series([0.0, 1.0, 0.0, 0.0], index=["q2", "q1", "q3", "q4"])
    result = paired(a, b)
    # by question: q1 1 vs 1, q2 0 vs 0, q3 and q4 1 vs 0 (in positional order it would be 3 vs 1)
    assert (result.a_only, result.b_only) == (2, 0)
    with pytest.raises(ValueError, match="same questions"):
        paired(a, b.rename(index={"q4": "q9"}))
    with pytest.raises(ValueError, match="one score per question"):
        paired([1, 0], [1, 0, 1])
    with pytest.raises(ValueError, match="confidence"):
        paired([1, 0], [0, 1], confidence=95)


# -- views of a budget Comparison built by hand ---------------------------------------------------------
def comparison(outcomes, budgets=(500,), retriever="bm25"):
    """A Comparison whose rows say `outcomes[chunker][question kind]` = list of answered (0/1)."""
    rows = []
    for chunker, by_kind in outcomes.items():
        for kind, answered in by_kind.items():
            for i, value in enumerate(answered):
                for budget in budgets:
                    got = value if budget == budgets[-1] else 0.0
                    rows.append({"question": f"{kind}-{i}", "doc": kind, "doc_kind": f"{kind} doc", "kind": kind,
                                 "split": "test" if i % 2 else "dev", "chunker": chunker, "context": False,
                                 "retriever": retriever, "budget": budget, "answered": got, "recall": got,
                                 "precision": got / 10, "iou": got / 10, "sent": float(budget), "chunks_sent": 2.0})
    return Comparison(rows=pd.DataFrame(rows, columns=list(ROW_COLUMNS)), chunkings=None, timings=None)


def answered(n, yes):
    return [1.0] * yes + [0.0] * (n - yes)


def test_leaderboard_marks_the_best_and_the_ties():
    result = comparison({
        "close": {"fact": answered(40, 29)},
        "good": {"fact": answered(40, 30)},
        "bad": {"fact": answered(40, 10)},
    })
    board = leaderboard(result, "bm25", 500)
    assert list(board["chunker"]) == ["good", "close", "bad"] and list(board.index) == [1, 2, 3]
    assert list(board["mark"]) == ["best", "no measurable difference", ""]
    assert board.loc[2, "difference"] == pytest.approx(-1 / 40)
    assert board.loc[3, "difference"] == pytest.approx(-20 / 40) and board.loc[3, "high"] < 0
    assert board.loc[3, "p_value"] == mcnemar_exact(20, 0)
    assert (board["sent"] == 500).all() and (board["questions"] == 40).all()
    # the marks are exactly the verdicts of paired()
    table = result.rows.pivot(index="question", columns="chunker", values="answered")
    assert paired(table["good"], table["bad"]).verdict == "A beats B"
    assert paired(table["good"], table["close"]).verdict == "no measurable difference"


def test_leaderboard_on_one_split_and_its_errors():
    result = comparison({"a": {"fact": answered(40, 30)}, "b": {"fact": answered(40, 10)}})
    assert (leaderboard(result, "bm25", 500, split="test")["questions"] == 20).all()
    with pytest.raises(ValueError, match="budget"):
        leaderboard(result, "bm25", 1000)
    with pytest.raises(ValueError, match="retriever"):
        leaderboard(result, "dense", 500)
    with pytest.raises(ValueError, match="metric"):
        leaderboard(result, "bm25", 500, metric="recall@k")


def test_curve_has_one_column_per_chunking_and_one_row_per_budget():
    result = comparison({"a": {"fact": answered(10, 7)}, "b": {"fact": answered(10, 4)}}, budgets=(250, 1000))
    table = curve(result, "bm25")
    assert list(table.index) == [250, 1000] and list(table.columns) == ["a", "b"]
    assert table.loc[1000, "a"] == 0.7 and table.loc[250, "b"] == 0.0


def test_guidance_says_which_strategy_when_and_no_difference_when_there_is_none():
    result = comparison({
        "table": {"table": answered(30, 27), "fact": answered(30, 20)},
        "page": {"table": answered(30, 8), "fact": answered(30, 20)},
        "paragraph": {"table": answered(30, 26), "fact": answered(30, 21)},
    })
    text = guidance(result, budget=500)
    lines = text.splitlines()
    table_line = next(line for line in lines if line.strip().startswith("- table (30 questions)"))
    fact_line = next(line for line in lines if line.strip().startswith("- fact (30 questions)"))
    assert "**table** (90%)" in table_line and "paragraph (87%)" in table_line
    assert "measurably worse: page (27%)" in table_line
    assert "no measurable difference between the 3 chunkings (67% to 70%)" in fact_line
    assert "With bm25" in text and "500 characters" in text
    assert "- table doc (30 questions)" in text  # per document kind too


def test_guidance_counts_the_ties_when_there_are_many():
    answers = {"best": {"fact": answered(30, 20)}, "worst": {"fact": answered(30, 2)}}
    answers.update({f"near{i}": {"fact": answered(30, 19 - i // 2)} for i in range(6)})
    text = guidance(comparison(answers), budget=500)
    line = next(line for line in text.splitlines() if line.startswith("- **With bm25**"))
    assert "**best** (67%); no measurable difference from the best: 6 others, from near0 (63%) down to near5 (57%)" in line
    assert "near3" not in line and "measurably worse: worst (7%)" in line


def test_guidance_of_a_comparison_needs_a_budget_when_there_are_several():
    result = comparison({"a": {"fact": answered(10, 7)}}, budgets=(250, 1000))
    with pytest.raises(ValueError, match="choose a budget"):
        guidance(result)
    with pytest.raises(TypeError, match="k view has no guidance"):
        guidance(result.rows, budget=250)


# -- numbers shown so that they never say more than the test ------------------------------------------
def test_signed_never_rounds_a_difference_to_zero_nor_a_zero_to_a_negative():
    assert signed(0.0) == "0.0" and signed(-0.0) == "0.0" and signed(-0.0, 3) == "0.000"
    assert signed(-0.124, scale=100) == "−12.4" and signed(0.5, scale=100) == "+50.0"
    assert signed(-0.0004, scale=100) == "−0.04"  # not "−0.0": it is not zero
    assert signed(0.000004, scale=100) == "+0.0004"
    assert signed(1e-12, scale=100) == "+1.0e−10"
    assert interval_text(-0.124, -0.0004, scale=100) == "−12.4 to −0.04"
    assert interval_text(-0.124, -0.0, scale=100) == "−12.4 to 0.0"  # touches zero, and reads so


def test_p_text_never_rounds_across_the_line():
    assert p_text(0.066) == "p = 0.066" and p_text(0.0625) == "p = 0.062"
    assert p_text(0.0496) == "p = 0.0496"  # not "0.050": it is below 0.05
    assert p_text(0.0504) == "p = 0.0504"  # not "0.050": it is above
    assert p_text(0.05) == "p = 0.050" and p_text(0.0004) == "p < 0.001" and p_text(1.0) == "p = 1.000"
    assert str(paired([1.0] * 5 + [0.0], [0.0] * 6)).count("McNemar p = 0.062 (5 vs 0)") == 1


def test_an_interval_that_excludes_zero_shows_no_measurable_difference_when_mcnemar_disagrees_and_says_why():
    # five questions only the best answers: the percentile interval excludes zero, McNemar's p = 0.0625
    result = comparison({"best": {"fact": answered(40, 30)}, "five": {"fact": answered(40, 25)},
                         "six": {"fact": answered(40, 24)}})
    board = leaderboard(result, "bm25", 500).set_index("chunker")
    assert board.loc["five", "high"] < 0 and board.loc["five", "mark"] == "no measurable difference"
    assert board.loc["five", "versus best"].endswith("; McNemar p = 0.062)")
    assert board.loc["five", "versus best"].startswith("−12.5 points (95% interval −")
    assert board.loc["six", "mark"] == "" and "McNemar p = 0.031" in board.loc["six", "versus best"]
    assert board.loc["best", "versus best"] == "" and "−0.0" not in " ".join(board["versus best"])
    # a metric that is not yes/no (precision here is 0 or 0.1): no McNemar, differences in points
    precision = leaderboard(result, "bm25", 500, metric="precision").set_index("chunker")
    assert precision.loc["five", "versus best"].startswith("−1.2 points (95% interval −2.")
    assert "McNemar" not in precision.loc["five", "versus best"]


def test_every_chunking_with_the_best_mean_is_a_best_whatever_the_order():
    # "second" and "first" answer as many questions, different ones; "low" is behind both
    first = answered(40, 30)
    second = [1.0] * 2 + [0.0] * 2 + [1.0] * 28 + [0.0] * 8
    result = comparison({"first": {"fact": first}, "second": {"fact": second}, "low": {"fact": answered(40, 10)},
                         "near": {"fact": answered(40, 28)}})
    board = leaderboard(result, "bm25", 500)
    assert list(board["mark"]) == ["best", "best", "no measurable difference", ""]
    assert set(board["chunker"][:2]) == {"first", "second"} and board.loc[2, "versus best"] == ""
    text = guidance(result, budget=500)
    line = next(line for line in text.splitlines() if line.startswith("- **With bm25**"))
    assert "2 share the best mean (75%): **first**, **second**" in line
    # "near" has no measurable difference from "first" (2 questions) but measurably worse than "second" (8 vs 0): worse
    near = comparison({"first": {"fact": first}, "second": {"fact": second},
                       "near": {"fact": [1.0] * 2 + [0.0] * 2 + [1.0] * 20 + [0.0] * 16}})
    assert leaderboard(near, "bm25", 500).set_index("chunker").loc["near", "mark"] == ""


def test_holm_judges_p_values_together():
    # m = 4: 0.01 < 0.05/4, 0.015 < 0.05/3, 0.03 is not < 0.05/2, so it and 0.04 fail although each is below 0.05
    assert holm([0.04, 0.01, 0.03, 0.015]) == [False, True, False, True]
    assert holm([0.2, 0.001]) == [False, True] and holm([]) == []
    assert holm([0.02] * 3) == [False] * 3  # each alone is significant, three at once are not
    assert holm([0.01, 0.02], alpha=0.1) == [True, True]


@settings(max_examples=40, deadline=None)
@given(st.integers(5, 60), st.integers(1, 6), st.booleans(), st.integers(0, 2**16))
def test_paired_against_many_is_paired_one_by_one(n, m, binary, seed):
    """The leaderboard's batched comparisons give exactly what `paired` gives pair by pair, for
    yes/no scores (whole-number resampled sums) and for scores between 0 and 1."""
    rng = np.random.default_rng(seed)
    draw = (lambda size: rng.integers(0, 2, size).astype(float)) if binary else (lambda size: rng.random(size))
    a, others = draw(n), draw((n, m))
    names = [("a", f"b{j}") for j in range(m)]
    together = paired_against(a, others, names, resamples=2_000)
    alone = [paired(a, others[:, j], names[j], resamples=2_000) for j in range(m)]
    if binary:
        assert together == alone
    else:
        for t, s in zip(together, alone):
            assert (t.verdict, t.p_value, t.a_only) == (s.verdict, s.p_value, s.a_only)
            assert t.low == pytest.approx(s.low, abs=1e-6) and t.high == pytest.approx(s.high, abs=1e-6)


def test_paired_against_refuses_shapes_that_do_not_pair():
    with pytest.raises(ValueError, match="n × m"):
        paired_against([1, 0, 1], np.zeros((2, 1)), [("a", "b")])
    with pytest.raises(ValueError, match="n × m"):
        paired_against([1, 0, 1], np.zeros((3, 2)), [("a", "b")])
