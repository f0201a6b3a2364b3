"""Every exercise's check fails on a wrong answer (with a hint) and passes on the solution, and every
notebook shows the solution that passes, folded away, without running it."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
from collections import Counter
from pathlib import Path

import pytest

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


def test_the_right_letters_are_spread() -> None:
    explain = [e for e in ALL if e.kind == "explain"]
    assert len(explain) >= 8 and all(e in CHOICE_EXERCISES for e in explain)
    letters = Counter(e.reference_answer() for e in CHOICE_EXERCISES)
    assert len(letters) == 4 and max(letters.values()) <= len(CHOICE_EXERCISES) / 2, letters


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
