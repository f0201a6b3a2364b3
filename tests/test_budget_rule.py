"""The budget rules (chunklab.strategies.budget_rule) and the hybrid's `budget` parameter: sizes by
the rule, exact offsets and every chunk within the derived size, for every rule of the family."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunklab import load_document
from chunklab.core import ParameterError
from chunklab.strategies import HybridChunker
from chunklab.strategies.budget_rule import (
    FAMILY,
    FIXED_DEFAULT,
    MAX_CHUNK_SIZE,
    MIN_CHUNK_SIZE,
    BudgetRule,
    recommended_sizes,
    sized_for_budget,
)

RULES = [FIXED_DEFAULT, *FAMILY]
TEXTS = {name: load_document(name).text for name in ("manual", "support", "agreement")}


def test_sizes_by_hand():
    assert sized_for_budget(1000, 2, 0.0) == {"chunk_size": 500, "chunk_overlap": 0}
    assert sized_for_budget(1000, 2, 0.15) == {"chunk_size": 500, "chunk_overlap": 75}
    assert sized_for_budget(500, 4, 0.15) == {"chunk_size": 125, "chunk_overlap": 18}
    assert sized_for_budget(50, 4, 0.0)["chunk_size"] == MIN_CHUNK_SIZE
    assert sized_for_budget(100_000, 1, 0.0)["chunk_size"] == MAX_CHUNK_SIZE
    assert FIXED_DEFAULT(2000) == {"chunk_size": 600, "chunk_overlap": 0}
    assert BudgetRule(2, 0.15).label == "budget/2, overlap 15%" and FIXED_DEFAULT.label == "fixed 600 (default)"


def test_the_family_is_small_and_fixed():
    assert len(RULES) <= 9 and len(set(RULES)) == len(RULES)
    assert {r.divisor for r in FAMILY} == {1, 2, 4} and {r.overlap_share for r in FAMILY} == {0.0, 0.15}


@pytest.mark.parametrize("bad", [0, -5, 1.5, True, "1000"])
def test_bad_budgets_are_refused(bad):
    with pytest.raises(ValueError, match="budget"):
        sized_for_budget(bad, 2, 0.0)
    with pytest.raises(ValueError, match="budget"):
        FIXED_DEFAULT(bad)


def test_bad_rules_are_refused():
    with pytest.raises(ValueError, match="divisor"):
        sized_for_budget(1000, 0, 0.0)
    with pytest.raises(ValueError, match="overlap_share"):
        sized_for_budget(1000, 2, 1.0)


@settings(max_examples=30, deadline=None)
@given(rule=st.sampled_from(RULES), budget=st.integers(1, 6000), name=st.sampled_from(sorted(TEXTS)),
       start=st.integers(0, 5000), length=st.integers(0, 4000))
def test_every_rule_keeps_offsets_exact_and_chunks_within_the_derived_size(rule, budget, name, start, length):
    sizes = rule(budget)
    assert MIN_CHUNK_SIZE <= sizes["chunk_size"] <= MAX_CHUNK_SIZE and 0 <= sizes["chunk_overlap"] < sizes["chunk_size"]
    text = TEXTS[name][start:start + length]
    chunker = HybridChunker(**sizes)
    for chunk in chunker(text):
        assert text[chunk.start:chunk.end] == chunk.text
        assert len(chunk.text) <= sizes["chunk_size"]


@settings(max_examples=15, deadline=None)
@given(budget=st.integers(1, 6000))
def test_the_budget_parameter_uses_the_chosen_rule(budget):
    text = TEXTS["manual"][:6000]
    sized = HybridChunker(budget=budget)
    direct = HybridChunker(**recommended_sizes(budget))
    assert [(c.start, c.end) for c in sized(text)] == [(c.start, c.end) for c in direct(text)]
    assert sized.size_limit() == recommended_sizes(budget)["chunk_size"]


def test_no_budget_keeps_todays_behaviour():
    text = TEXTS["support"]
    assert HybridChunker(budget=None) == HybridChunker()
    assert [(c.start, c.end) for c in HybridChunker(budget=None)(text)] == [(c.start, c.end) for c in HybridChunker()(text)]
    assert HybridChunker().size_limit() == 600


def test_the_budget_parameter_is_validated():
    with pytest.raises(ParameterError, match="budget"):
        HybridChunker(budget=0)
    with pytest.raises(ParameterError, match="budget"):
        HybridChunker(budget=12.5)
