"""The course's exercises: what each one asks, how an answer is checked, and its solution.

A notebook's exercise is three cells: the learner's answer (``my_rule = None``), a check
(``check("01.2", my_rule)``) and, folded away in a ``<details>`` block, the solution with its
explanation. The logic of all three lives here, one module per notebook (``fixed_size`` for 01,
...), so that the tests can feed every check a wrong answer (it must fail, with a hint) and the
solution (it must pass), and can verify that the solution a notebook shows is the one that passes.

`check` prints a line and returns for an unanswered exercise (``None``), so that running a whole
notebook never fails on exercises and never prints a solution: it raises `ExerciseFailed` with a hint
for a wrong answer, and confirms a right one.

Checks read an answer the way a learner may write it, through the helpers here, never by hand: a
number of any real type (`real_number`, `whole_number`, `numbers_of`; ``np.int64(254)`` and
``254.0`` are 254), to the places the question asks for (`same_number`), and a letter in any case
with spaces around it (`letter_of`, `pick`).
"""

from __future__ import annotations

import importlib
import inspect
import math
import numbers
import re
import sys
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Mapping

__all__ = [
    "EXERCISES", "Exercise", "ExerciseFailed", "check", "exercise", "exercises_of", "letter_of", "numbers_of", "pick",
    "real_number", "refuse_library", "same_number", "solution_source", "whole_number",
]

#: Which module holds each notebook's exercises, by notebook number.
NOTEBOOK_MODULES = {
    "01": "fixed_size",
    "02": "sentence",
    "03": "paragraph",
    "04": "semantic",
    "05": "modality",
    "06": "sliding_window",
    "07": "hierarchical",
    "08a": "recursive",
    "08b": "markup",
    "09": "table",
    "10": "token",
    "11": "entity",
    "12": "topic",
    "13": "page",
    "14": "keyword",
    "15": "hybrid",
    "16": "comparison",
    "17": "pipeline",
}

ExerciseKind = Literal["predict", "implement", "explain"]


class ExerciseFailed(AssertionError):
    """A wrong answer. The message is a hint towards the answer, never the answer itself."""


@dataclass(frozen=True)
class Exercise:
    """One exercise: its id (``"01.2"``: notebook 01, exercise 2), a short title, its kind, the check,
    the solution, and wrong answers that the check must reject.

    * ``kind``: ``"predict"`` (a number or a choice, stated before it is measured), ``"implement"``
      (a function the check runs on cases of its own) or ``"explain"`` (a choice among explanations
      of a measured surprise).
    * ``check(answer)`` returns a line confirming a right answer (it may show what was measured:
      the learner has answered) and raises `ExerciseFailed` with a hint otherwise.
    * ``solution``: for ``"implement"`` the reference function itself, otherwise a function of no
      arguments that computes the reference answer; its source is what the notebook shows
      (`solution_source`), and `reference_answer` is what the tests feed the check.
    * ``wrong``: functions returning wrong answers a learner might give (an off-by-one rule, the
      naive guess), each of which the check must reject.
    * ``digits``: for an answer with decimals, the decimal places the question asks for; the check
      must accept the answer rounded to them (`same_number`). None: whole numbers or no numbers.
    """

    id: str
    title: str
    kind: ExerciseKind
    check: Callable[[Any], str]
    solution: Callable[..., Any]
    wrong: tuple[Callable[[], Any], ...] = field(default=())
    digits: int | None = None

    def reference_answer(self) -> Any:
        """The answer the solution gives (the function itself for an ``"implement"`` exercise)."""
        return self.solution if self.kind == "implement" else self.solution()


#: Every exercise whose notebook module has been imported, by id (`exercises_of` imports them).
EXERCISES: dict[str, Exercise] = {}


def exercise(
    id: str, title: str, kind: ExerciseKind, solution: Callable[..., Any], wrong: tuple[Callable[[], Any], ...] = (),
    digits: int | None = None,
) -> Callable[[Callable[[Any], str]], Callable[[Any], str]]:
    """Decorator for a check function: registers `Exercise(id, title, kind, check, solution, wrong, digits)`."""

    def register(check_fn: Callable[[Any], str]) -> Callable[[Any], str]:
        if id in EXERCISES:
            raise ValueError(f"exercise {id} is defined twice")
        EXERCISES[id] = Exercise(id, title, kind, check_fn, solution, tuple(wrong), digits)
        return check_fn

    return register


def real_number(value: Any, what: str) -> float:
    """`value` as a float if it is a real number of any type (an int, a float, a numpy integer or
    float, a `fractions.Fraction`), else `ExerciseFailed` saying that `what` is a number. A bool, a
    string, NaN and infinity are refused: a learner who types ``"254"`` or ``True`` is told so."""
    if isinstance(value, bool) or type(value).__name__ == "bool_" or not isinstance(value, numbers.Real):
        raise ExerciseFailed(f"{what} is a number, got {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise ExerciseFailed(f"{what} is a finite number, got {value!r}")
    return number


def whole_number(value: Any, what: str) -> int:
    """`value` as an int if it is a real number with no fractional part (``254``, ``np.int64(254)``,
    ``254.0``), else `ExerciseFailed` saying that `what` is a whole number."""
    number = real_number(value, what)
    if not number.is_integer():
        raise ExerciseFailed(f"{what} is a whole number, got {value!r}")
    return int(number)


def numbers_of(answer: Any, count: int, what: str) -> tuple[int, ...]:
    """`answer` as a tuple of `count` whole numbers (`whole_number` each: any integer type, or a float
    with no fractional part), else `ExerciseFailed` asking for `what`."""
    if isinstance(answer, (str, bytes)) or not hasattr(answer, "__iter__"):
        raise ExerciseFailed(f"answer with {what}, got {answer!r}")
    values = tuple(answer)
    if len(values) != count:
        raise ExerciseFailed(f"answer with {what}: {count} numbers, got {len(values)}")
    try:
        return tuple(whole_number(value, "each") for value in values)
    except ExerciseFailed:
        raise ExerciseFailed(f"answer with {what}, whole numbers each, got {answer!r}") from None


def same_number(answer: Any, expected: float, digits: int, what: str) -> bool:
    """Whether `answer`, a real number of any type (`real_number`), is `expected` to the `digits`
    decimal places the question asks for: the exact value and any rounding of it to `digits` or more
    places pass, a value off by more than half a unit in the last asked place does not."""
    return abs(real_number(answer, what) - expected) <= 0.5 * 10.0**-digits + 1e-12


def letter_of(choice: Any, choices: Mapping[str, str]) -> str:
    """The letter a multiple-choice answer names, in any case, with spaces, quotes, a full stop or
    brackets around it (``" b"``, ``"B."``, ``"(b)"``); `ExerciseFailed` naming the letters allowed
    when it names none of `choices`."""
    letter = re.sub(r"[\s.()\"']", "", str(choice)).upper()
    if letter not in choices:
        raise ExerciseFailed(f"answer with one of the letters {', '.join(choices)}, got {choice!r}")
    return letter


def pick(choice: Any, choices: Mapping[str, str], hints: Mapping[str, str], right: str) -> None:
    """The check of a multiple-choice answer: pass if `choice` is the letter `right` of `choices`
    (`letter_of`: any case, spaces ignored), else raise `ExerciseFailed` naming the letters allowed or
    giving the chosen letter's hint from `hints` (never the right letter)."""
    letter = letter_of(choice, choices)
    if letter != right:
        raise ExerciseFailed(f"not {letter}: {hints[letter]}")


def refuse_library(candidate: Callable[..., Any], *library: Any, what: str) -> Callable[..., Any]:
    """`candidate`, wrapped so that an answer which calls the library's own solution is refused: if a
    call to it reaches any function defined in the modules of `library` (modules, or their dotted
    names) or any function of `library` itself, it raises `ExerciseFailed` saying that the exercise asks for `what` written by
    hand. Functions defined elsewhere (the learner's, the standard library's) run as usual."""
    library = tuple(importlib.import_module(item) if isinstance(item, str) else item for item in library)
    files = {inspect.getsourcefile(item) for item in library if inspect.ismodule(item)}
    codes = {item.__code__ for item in library if inspect.isfunction(item)}

    def guarded(*args: Any, **kwargs: Any) -> Any:
        reached: list[str] = []

        def watch(frame: Any, event: str, arg: Any) -> None:
            if event == "call" and not reached and (frame.f_code in codes or frame.f_code.co_filename in files):
                reached.append(frame.f_code.co_name)

        previous = sys.getprofile()
        sys.setprofile(watch)
        try:
            result = candidate(*args, **kwargs)
        finally:
            sys.setprofile(previous)
        if reached:
            raise ExerciseFailed(f"your answer calls the library's own {what} (it reached `{reached[0]}`): the "
                                 "exercise asks you to write that part yourself, in a few lines.")
        return result

    return guarded


def exercises_of(notebook: str) -> list[Exercise]:
    """The exercises of one notebook (``"01"``), in order; imports its module."""
    importlib.import_module(f"{__name__}.{NOTEBOOK_MODULES[notebook]}")
    return sorted((e for e in EXERCISES.values() if e.id.split(".")[0] == notebook), key=lambda e: e.id)


def _exercise(exercise_id: str) -> Exercise:
    notebook = exercise_id.split(".")[0]
    if notebook not in NOTEBOOK_MODULES:
        raise KeyError(f"no exercises for notebook {notebook!r}")
    exercises_of(notebook)
    if exercise_id not in EXERCISES:
        raise KeyError(f"no exercise {exercise_id!r}; notebook {notebook} has {[e.id for e in exercises_of(notebook)]}")
    return EXERCISES[exercise_id]


def check(exercise_id: str, answer: Any) -> None:
    """The check cell of an exercise: nothing to check yet for ``None``; a confirmation for a right
    answer; `ExerciseFailed` with a hint for a wrong one."""
    found = _exercise(exercise_id)
    if answer is None:
        print(f"Exercise {exercise_id} ({found.title}): not answered yet. Write your answer in the cell above and "
              "run this one again; the solution is in the folded block below.")
        return
    print(f"Exercise {exercise_id}: correct. {found.check(answer)}")


def solution_source(exercise_id: str) -> str:
    """The source of an exercise's solution function, dedented: what its notebook shows."""
    return textwrap.dedent(inspect.getsource(_exercise(exercise_id).solution)).strip()
