"""Every exercise's check fails on a wrong answer (with a hint) and passes on the solution, and every
notebook shows the solution that passes, folded away, without running it."""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import json
import math
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from chunklab import exercises
from chunklab.exercises import NOTEBOOK_MODULES, ExerciseFailed, check, exercises_of, solution_source

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ALL = [e for number in sorted(NOTEBOOK_MODULES) for e in exercises_of(number)]


def notebook_cells(number: str) -> list[dict]:
    (path,) = NOTEBOOKS.glob(f"{number}_*.ipynb")
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def squashed(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.id)
def test_the_solution_passes_and_every_wrong_answer_fails_with_a_hint(exercise) -> None:
    assert exercise.check(exercise.reference_answer())
    assert exercise.wrong, "an exercise needs at least one wrong answer to prove its check can fail"
    for wrong in exercise.wrong:
        with pytest.raises(ExerciseFailed) as failure:
            exercise.check(wrong())
        assert len(str(failure.value)) > 20, "a failure explains itself"


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.id)
def test_the_notebook_checks_it_and_shows_the_passing_solution_folded(exercise) -> None:
    cells = notebook_cells(exercise.id.split(".")[0])
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    markdown = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    assert any(re.search(rf"check\(\s*[\"']{re.escape(exercise.id)}[\"']", src) for src in code), exercise.id
    folded = [md for md in markdown if "<details>" in md]
    assert any(squashed(solution_source(exercise.id)) in squashed(md) for md in folded), (
        f"notebook {exercise.id} must show the solution that passes, inside <details>"
    )
    name = exercise.solution.__name__
    assert not any(re.search(rf"\b{name}\s*\(", src) for src in code), "Run All must not run the solution"


def notebook_imports(number: str) -> str:
    """Every top-level import statement of the notebook's code cells, in order (magics left out)."""
    statements = []
    for cell in notebook_cells(number):
        if cell["cell_type"] != "code":
            continue
        source = "\n".join(line for line in "".join(cell["source"]).splitlines() if not line.lstrip().startswith(("%", "!")))
        statements += [ast.get_source_segment(source, node) for node in ast.parse(source).body
                       if isinstance(node, (ast.Import, ast.ImportFrom))]
    return "\n".join(statements)


def folded_code(number: str) -> list[str]:
    """The python code blocks of the notebook's folded (``<details>``) cells."""
    markdown = ["".join(c["source"]) for c in notebook_cells(number) if c["cell_type"] == "markdown"]
    return [block for md in markdown if "<details>" in md for block in re.findall(r"```python\n(.*?)```", md, re.DOTALL)]


@pytest.mark.parametrize("number", sorted(NOTEBOOK_MODULES))
def test_every_folded_solution_runs_as_written_with_only_the_notebooks_imports(number: str) -> None:
    namespace: dict = {"__name__": f"notebook_{number}"}
    exec(notebook_imports(number), namespace)  # noqa: S102  (the notebook's own code, run as a learner would)
    for block in folded_code(number):
        exec(block, namespace)  # noqa: S102
    for exercise in exercises_of(number):
        shown = namespace[exercise.solution.__name__]
        assert exercise.check(shown if exercise.kind == "implement" else shown()), exercise.id


@pytest.mark.parametrize("number", sorted(NOTEBOOK_MODULES))
def test_a_notebook_varies_its_exercise_kinds(number: str) -> None:
    kinds = {e.kind for e in exercises_of(number)}
    assert len(exercises_of(number)) >= 2 and len(kinds) >= 2, kinds


def choices_of(exercise) -> dict[str, str] | None:
    """The options of a multiple-choice exercise (the ``*_CHOICES`` mapping its check reads), or None."""
    module = importlib.import_module(exercise.check.__module__)
    names = re.findall(r"\b([A-Z_]+_CHOICES)\b", inspect.getsource(exercise.check))
    return getattr(module, names[0]) if names else None


CHOICE_EXERCISES = [e for e in ALL if choices_of(e)]


@pytest.mark.parametrize("exercise", CHOICE_EXERCISES, ids=lambda e: e.id)
def test_the_right_option_does_not_stand_out_by_its_length(exercise) -> None:
    options, right = choices_of(exercise), exercise.reference_answer()
    longest_wrong = max(len(text) for letter, text in options.items() if letter != right)
    assert len(options[right]) <= 1.2 * longest_wrong, (
        f"the right option ({len(options[right])} characters) is over 20 % longer than the longest wrong one "
        f"({longest_wrong})"
    )


def length_rank(options: dict[str, str], right: str) -> tuple[bool, bool]:
    """Whether the right option is strictly the longest, and whether strictly the shortest, of the
    options (a tie says nothing about the answer)."""
    wrong = [len(text) for letter, text in options.items() if letter != right]
    return len(options[right]) > max(wrong), len(options[right]) < min(wrong)


def test_the_length_of_the_options_says_nothing_about_the_answer() -> None:
    """As chance would have it, the right option is the longest of four in about a quarter of the
    multiple-choice exercises, and the shortest in about a quarter: more, and a learner who picks
    by length alone scores above chance."""
    ranks = {e.id: length_rank(choices_of(e), e.reference_answer()) for e in CHOICE_EXERCISES}
    longest = sorted(i for i, (is_longest, _) in ranks.items() if is_longest)
    shortest = sorted(i for i, (_, is_shortest) in ranks.items() if is_shortest)
    allowed = math.ceil(len(CHOICE_EXERCISES) / 4)
    assert len(longest) <= allowed, f"the right option is the longest in {len(longest)} exercises: {longest}"
    assert len(shortest) <= allowed, f"the right option is the shortest in {len(shortest)} exercises: {shortest}"


def test_the_length_rank_is_what_it_says() -> None:
    options = {"A": "a much longer option than the others", "B": "short", "C": "shortish", "D": "medium one"}
    assert length_rank(options, "A") == (True, False)
    assert length_rank(options, "B") == (False, True)
    assert length_rank(options, "D") == (False, False)
    assert length_rank({"A": "same", "B": "same", "C": "tiny"}, "A") == (False, False)


def test_the_right_letters_are_spread() -> None:
    explain = [e for e in ALL if e.kind == "explain"]
    assert len(explain) >= 8 and all(e in CHOICE_EXERCISES for e in explain)
    letters = Counter(e.reference_answer() for e in CHOICE_EXERCISES)
    assert len(letters) == 4 and max(letters.values()) <= len(CHOICE_EXERCISES) / 2, letters


def numpy_typed(value):
    """`value` with every int a numpy int64 and every float a numpy float64, inside lists, tuples and
    dicts too (what a learner's numpy computation gives)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return np.int64(value)
    if isinstance(value, float):
        return np.float64(value)
    if isinstance(value, (list, tuple)):
        return type(value)(numpy_typed(v) for v in value)
    if isinstance(value, dict):
        return {k: numpy_typed(v) for k, v in value.items()}
    return value


def float_typed(value):
    """A whole number, or a flat tuple or list of them, as floats (``254.0``); anything else as it is."""
    def whole(v):
        return isinstance(v, (int, np.integer)) and not isinstance(v, bool)

    if whole(value):
        return float(value)
    if isinstance(value, (list, tuple)) and value and all(whole(v) for v in value):
        return type(value)(float(v) for v in value)
    return value


def rounded(value, digits: int):
    """Every float in `value` rounded to `digits` places, inside lists, tuples and dicts too."""
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, (list, tuple)):
        return type(value)(rounded(v, digits) for v in value)
    if isinstance(value, dict):
        return {k: rounded(v, digits) for k, v in value.items()}
    return value


def answer_variants(exercise) -> list:
    """The right answer as a learner may well write it: numbers in numpy types or as floats (rounded
    to the places the question asks for, if it asks), a letter or a word in another case with spaces
    and a full stop around it. For an "implement" exercise, the solution with its results so typed."""
    if exercise.kind == "implement":
        solution = exercise.solution

        def typed(convert):
            @functools.wraps(solution)
            def candidate(*args, **kwargs):
                return convert(solution(*args, **kwargs))
            return candidate

        return [typed(numpy_typed), typed(float_typed)]
    answer = exercise.reference_answer()
    if isinstance(answer, str):
        return [f" {answer.lower()} ", f"{answer.upper()}."] if len(answer) == 1 else [f" {answer.upper()} "]
    variants = [numpy_typed(answer), float_typed(answer)]
    if exercise.digits is not None:
        variants.append(rounded(answer, exercise.digits))
    return variants


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.id)
def test_a_right_answer_passes_in_any_number_type_case_and_spacing(exercise) -> None:
    for variant in answer_variants(exercise):
        try:
            assert exercise.check(variant)
        except ExerciseFailed as failure:
            pytest.fail(f"{exercise.id} refuses a right answer written as {variant!r}: {failure}")


def test_the_variants_are_what_a_learner_writes() -> None:
    assert type(numpy_typed([(1, 2.5)])[0][0]) is np.int64 and type(numpy_typed((1, 2.5))[1]) is np.float64
    assert numpy_typed([True, None, "a"]) == [True, None, "a"] and type(numpy_typed([True])[0]) is bool
    assert float_typed(254) == 254.0 and type(float_typed(254)) is float and float_typed((4, 1)) == (4.0, 1.0)
    assert float_typed([(0, 2)]) == [(0, 2)] and float_typed(True) is True
    assert rounded({"iou": 0.2142857, "n": 3}, 2) == {"iou": 0.21, "n": 3}


@pytest.mark.parametrize("helper", ["whole_number", "real_number"])
def test_the_shared_number_helpers_take_any_real_type_and_refuse_the_rest(helper) -> None:
    convert = getattr(exercises, helper)
    for value in (254, np.int64(254), 254.0, np.float32(254), Fraction(254)):
        assert convert(value, "the answer") == 254
    for value in ("254", True, np.bool_(True), None, float("nan"), float("inf"), [254]):
        with pytest.raises(ExerciseFailed, match="the answer"):
            convert(value, "the answer")
    with pytest.raises(ExerciseFailed, match="whole number"):
        exercises.whole_number(254.5, "the answer")
    assert exercises.real_number(254.5, "the answer") == 254.5


def test_same_number_accepts_the_asked_precision_and_nothing_coarser() -> None:
    iou = 3 / 14
    for answer in (iou, np.float64(iou), round(iou, 2), round(iou, 3), 0.214):
        assert exercises.same_number(answer, iou, 2, "the IoU")
    for answer in (0.2, 0.22, 0.25):
        assert not exercises.same_number(answer, iou, 2, "the IoU")
    assert exercises.same_number(np.int64(3), 3.0, 0, "a count") and not exercises.same_number(4, 3.0, 0, "a count")


def test_numbers_of_and_letter_of_read_what_a_learner_types() -> None:
    assert exercises.numbers_of((np.int64(5), 3.0), 2, "a pair") == (5, 3)
    assert exercises.numbers_of([5, 3], 2, "a pair") == (5, 3)
    for wrong in ("5, 3", 5, (5, 3, 0), (5.5, 3), (5, "3")):
        with pytest.raises(ExerciseFailed, match="a pair"):
            exercises.numbers_of(wrong, 2, "a pair")
    choices = {"A": "", "B": "", "C": "", "D": ""}
    for typed in ("b", " B ", "B.", "(b)", "'B'", "\tb\n"):
        assert exercises.letter_of(typed, choices) == "B"
    for wrong in ("E", "BC", "", None, 2):
        with pytest.raises(ExerciseFailed, match="letters A, B, C, D"):
            exercises.letter_of(wrong, choices)


def test_an_unanswered_exercise_prints_a_note_and_a_wrong_one_raises(capsys) -> None:
    first = ALL[0]
    check(first.id, None)
    assert "not answered yet" in capsys.readouterr().out
    with pytest.raises(ExerciseFailed):
        check(first.id, first.wrong[0]())
    check(first.id, first.reference_answer())
    assert "correct" in capsys.readouterr().out
    with pytest.raises(KeyError):
        check("01.99", 1)
