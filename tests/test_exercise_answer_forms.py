"""Right answers in the forms a learner writes them pass the checks of notebooks 07-13: numbers of any
real type and at the precision asked, letters and words in any case and spacing, spans that cost
nothing left out; and in those notebooks the right option of a choice is never the longest."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from chunklab.exercises import EXERCISES, ExerciseFailed, exercises_of

NOTEBOOKS = ("07", "08a", "08b", "09", "10", "11", "12", "13")


def passes(exercise_id: str, answer) -> bool:
    try:
        EXERCISES[exercise_id].check(answer)
    except ExerciseFailed:
        return False
    return True


def test_small_to_big_answers_may_leave_out_what_costs_nothing() -> None:
    exercises_of("07")
    sent = [(72, 108), (17, 72), (108, 147), (149, 186), (0, 17), (147, 149)]
    assert passes("07.2", sent[:-1])  # (147, 149) is a blank line: it costs nothing of the budget
    assert passes("07.2", [(np.int64(s), np.int64(e)) for s, e in sent])
    assert not passes("07.2", sent[:-2] + sent[-1:])  # the title and intro cost something


@pytest.mark.parametrize("answer", [254, np.int64(254), 254.0, np.float32(254)])
def test_a_size_is_any_whole_real_number(answer) -> None:
    exercises_of("10")
    assert passes("10.1", answer)


@pytest.mark.parametrize("answer", [254.5, "254", True])
def test_a_size_that_is_not_a_whole_number_is_refused(answer) -> None:
    exercises_of("10")
    assert not passes("10.1", answer)


@pytest.mark.parametrize("answer", [2 / 9, Fraction(2, 9), 0.22, np.float64(0.222)])
def test_pk_at_the_precision_asked(answer) -> None:
    exercises_of("12")
    assert passes("12.2", answer)


def test_the_four_rows_answer_is_read_in_any_case_and_spacing() -> None:
    exercises_of("09")
    assert passes("09.3", "  No measurable\tdifference ")
    assert not passes("09.3", "fewer")  # fewer on the raw counts, not measurably fewer


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_the_right_option_is_not_the_longest(notebook: str) -> None:
    for exercise in exercises_of(notebook):
        if exercise.kind != "explain":
            continue
        options = next(value for name, value in vars(__import__(exercise.check.__module__, fromlist=["x"])).items()
                       if name.endswith("_CHOICES"))
        right = exercise.reference_answer()
        assert len(options[right]) < max(len(text) for text in options.values()), exercise.id
