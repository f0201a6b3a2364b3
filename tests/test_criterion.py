"""The pre-registered criterion (chunklab.evaluation.criterion) on synthetic outcomes whose right
answer is known: keep the default, choose a candidate, refuse for one kind of document, and the
stability of a dominant candidate against a coin flip."""

import numpy as np
import pandas as pd
import pytest

from chunklab.evaluation.criterion import (
    apply_criterion,
    candidate_rows,
    holm_rows,
    mcnemar_p,
)
from chunklab.evaluation.paired import holm, mcnemar_exact

SETTINGS = [("bm25", 500), ("dense", 500)]


def rows_for(outcomes, docs, kinds=None, settings=SETTINGS):
    """Tidy rows from ``outcomes[member]`` = list (per setting) of 0/1 lists (per question);
    question i belongs to ``docs[i]`` (of kind ``kinds[i]``, default: its document's name)."""
    kinds = kinds or docs
    out = []
    for member, per_setting in outcomes.items():
        for (retriever, budget), values in zip(settings, per_setting):
            for i, value in enumerate(values):
                out.append({"candidate": member, "retriever": retriever, "budget": budget, "question": f"q{i:04d}",
                            "doc": docs[i], "doc_kind": kinds[i], "answered": float(value)})
    return pd.DataFrame(out)


def docs_of(n, per_doc=25):
    return [f"d{i // per_doc}" for i in range(n)]


def test_mcnemar_p_and_holm_rows_agree_with_the_one_at_a_time_versions():
    a, b = np.meshgrid(np.arange(30), np.arange(30), indexing="ij")
    expected = np.vectorize(mcnemar_exact)(a, b)
    assert np.allclose(mcnemar_p(a, b), expected, rtol=1e-9, atol=1e-12)
    p = np.random.default_rng(1).uniform(0, 0.06, size=(200, 7))
    assert (holm_rows(p) == np.array([holm(list(row)) for row in p])).all()


def test_keeps_the_default_when_no_candidate_is_measurably_better():
    rng = np.random.default_rng(0)
    n = 100
    base = (rng.random(n) < 0.6).astype(int)
    same = base.copy()
    same[:4] = 1 - same[:4]  # a few questions differ, both ways
    outcomes = {"default": [base, base], "almost the same": [same, same]}
    result = apply_criterion(rows_for(outcomes, docs_of(n)), "default", ["almost the same"], resamples=300)
    assert result.chosen == "default" and result.qualifying == []
    assert (result.verdicts["verdict"] == "no measurable difference").all()
    assert result.stability > 0.9 and result.word == "a choice"


def test_chooses_a_candidate_that_is_measurably_better_and_worse_nowhere():
    n = 120
    base = np.array([1] * 50 + [0] * 70)
    strong = np.array([1] * 90 + [0] * 30)  # answers everything the default does and 40 more
    weak = np.array([1] * 55 + [0] * 65)
    outcomes = {"default": [base, base], "strong": [strong, strong], "weak": [weak, weak]}
    result = apply_criterion(rows_for(outcomes, docs_of(n)), "default", ["strong", "weak"], resamples=500)
    assert result.chosen == "strong" and result.qualifying == ["strong"]
    verdicts = result.verdicts.set_index("candidate")
    assert (verdicts.loc["strong", "verdict"] == "better").all()
    assert (verdicts.loc["weak", "verdict"] == "no measurable difference").all()
    assert verdicts.loc["strong", "difference"].iloc[0] == pytest.approx(40 / 120)
    # a dominant candidate is chosen in (nearly) every resample; the weak one is ruled out
    assert result.stability >= 0.99 and result.word == "a choice"
    assert "weak" in result.ruled_out and "default" in result.ruled_out and "strong" not in result.ruled_out


def test_refuses_a_candidate_that_is_measurably_worse_on_one_kind():
    # 200 questions on two kinds where the candidate gains 60 each; 30 on a third kind it loses all
    kinds = ["manual"] * 100 + ["faq"] * 100 + ["transcript"] * 30
    docs = kinds
    base = np.array(([1] * 20 + [0] * 80) * 2 + [1] * 30)
    candidate = np.array(([1] * 80 + [0] * 20) * 2 + [0] * 30)
    outcomes = {"default": [base, base], "candidate": [candidate, candidate]}
    result = apply_criterion(rows_for(outcomes, docs, kinds), "default", ["candidate"], resamples=300)
    assert (result.verdicts["verdict"] == "better").all()  # pooled, it is measurably better everywhere
    assert result.kind_worse["candidate"] == ["transcript: bm25 500", "transcript: dense 500"]
    assert result.qualifying == [] and result.chosen == "default"


def test_a_measurable_loss_in_one_setting_disqualifies():
    n = 120
    base = np.array([1] * 50 + [0] * 70)
    better = np.array([1] * 90 + [0] * 30)
    worse = np.array([1] * 10 + [0] * 110)
    outcomes = {"default": [base, base], "mixed": [better, worse]}
    result = apply_criterion(rows_for(outcomes, docs_of(n)), "default", ["mixed"], resamples=200)
    assert list(result.verdicts["verdict"]) == ["better", "worse"]
    assert result.chosen == "default"


def test_more_measurably_better_settings_win_over_a_higher_pooled_share():
    n = 120
    base = np.array([1] * 50 + [0] * 70)
    big = np.array([1] * 110 + [0] * 10)
    outcomes = {"default": [base, base], "one setting, much better": [big, base],
                "two settings, better": [np.array([1] * 90 + [0] * 30)] * 2}
    result = apply_criterion(rows_for(outcomes, docs_of(n)), "default", list(outcomes)[1:], resamples=200)
    assert set(result.qualifying) == set(outcomes) - {"default"}
    assert result.chosen == "two settings, better"


def test_a_coin_flip_is_a_guess():
    # one setting; the candidate answers 18 questions the default misses and misses 7 it answers:
    # McNemar p = 0.043, just under 0.05, so resampled questions often lose the difference
    n = 100
    base = np.array([0] * 18 + [1] * 7 + [1] * 40 + [0] * 35)
    candidate = np.array([1] * 18 + [0] * 7 + [1] * 40 + [0] * 35)
    order = np.random.default_rng(3).permutation(n)  # spread the discordant questions over documents
    outcomes = {"default": [base[order]], "candidate": [candidate[order]]}
    result = apply_criterion(rows_for(outcomes, docs_of(n), settings=SETTINGS[:1]), "default", ["candidate"],
                             resamples=2000)
    assert result.chosen == "candidate"
    assert result.verdicts["p"].iloc[0] == pytest.approx(mcnemar_exact(18, 7))
    assert 0.2 < result.stability < 0.8 and result.word == "a guess"
    assert result.ruled_out == []


def test_the_resamples_are_seeded():
    n = 100
    base = np.array([0] * 18 + [1] * 7 + [1] * 40 + [0] * 35)
    candidate = np.array([1] * 18 + [0] * 7 + [1] * 40 + [0] * 35)
    rows = rows_for({"default": [base], "candidate": [candidate]}, docs_of(n), settings=SETTINGS[:1])
    first = apply_criterion(rows, "default", ["candidate"], resamples=500)
    assert apply_criterion(rows, "default", ["candidate"], resamples=500).chosen_share == first.chosen_share
    assert apply_criterion(rows, "default", ["candidate"], resamples=500, seed=1).chosen_share != first.chosen_share


def test_candidate_rows_pick_each_budget_from_its_own_chunking():
    rows = pd.DataFrame([
        {"chunker": label, "retriever": "bm25", "budget": budget, "question": "q1", "doc": "d", "doc_kind": "k",
         "answered": float(label == "small" and budget == 500)}
        for label in ("small", "large") for budget in (500, 2000)
    ])
    picked = candidate_rows(rows, {"rule": {500: "small", 2000: "large"}})
    assert list(zip(picked["chunker"], picked["budget"])) == [("small", 500), ("large", 2000)]
    assert set(picked["candidate"]) == {"rule"}
    with pytest.raises(ValueError, match="no rows"):
        candidate_rows(rows, {"rule": {1000: "small"}})


def test_bad_input_is_refused():
    rows = rows_for({"default": [[1, 0]], "c": [[1, 1]]}, ["d", "d"], settings=SETTINGS[:1])
    with pytest.raises(ValueError, match="candidates"):
        apply_criterion(rows, "default", [])
    with pytest.raises(ValueError, match="no outcomes"):
        apply_criterion(rows, "default", ["missing"])
