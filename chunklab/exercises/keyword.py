"""Notebook 14 (keyword chunking): which lines open the agreement's top-level clauses, the matching rules
predicted on a small text, and what a paired test that finds no difference allows you to say."""

from __future__ import annotations

import re

from ..formats.corpus import load_document
from ..strategies import KeywordChunker
from . import ExerciseFailed, exercise, pick

#: How many top-level clauses the agreement has (numbered 1 to 14, titles in capitals).
CLAUSES = 14


def _clause_lines(text: str) -> list[int]:
    """Where the agreement's clauses start: the cuts of the loose clause pattern before the schedules
    (after them, the same pattern finds the numbered notes of Schedule 1)."""
    schedules = text.index("SCHEDULE 1")
    loose = KeywordChunker(pattern=r"\d+\. [A-Z]", case_sensitive=True).cuts(text)
    return [pos for pos, _ in loose if pos < schedules]


def solution_is_clause(line: str) -> bool:
    return re.match(r"\d+\. [A-Z]{2}", line) is not None


def _loose_clause(line: str) -> bool:
    return re.match(r"\d+\. [A-Z]", line) is not None


def _numbered(line: str) -> bool:
    return re.match(r"\d+\.", line) is not None


def _one_digit(line: str) -> bool:
    return re.match(r"\d\. [A-Z]{2}", line) is not None


@exercise("14.1", "which lines open a clause?", "implement", solution=solution_is_clause,
          wrong=(lambda: _loose_clause, lambda: _numbered, lambda: _one_digit))
def check_is_clause(candidate) -> str:
    """`candidate(line)` must be true for the agreement's 14 clause lines and for no other line."""
    text = load_document("agreement").text
    starts = [0, *(i + 1 for i, c in enumerate(text) if c == "\n")]
    chosen = [pos for pos in starts if candidate(text[pos:].split("\n", 1)[0])]
    expected = _clause_lines(text)
    if chosen == expected:
        return (f"exactly the {CLAUSES} clause lines. Put the same test in a regex, and "
                "KeywordChunker(pattern=..., case_sensitive=True) cuts the agreement into its clauses.")
    missed = [text[pos : pos + 20].split("\n")[0] for pos in expected if pos not in chosen]
    extra = [text[pos : pos + 20].split("\n")[0] for pos in chosen if pos not in expected]
    if extra:
        hint = (f"it also accepts {extra[:3]}{' ...' if len(extra) > 3 else ''}; what do clause titles look like that "
                "numbered notes and sub-clauses do not?")
    else:
        hint = f"it misses {missed[:3]}: a clause line is a number, a dot, a space and a title in capitals"
    raise ExerciseFailed(f"{len(chosen)} lines accepted instead of {CLAUSES}. Hint: {hint}.")


#: Exercise 2's text: a marker after decoration, one in capitals, one in the middle of a line, one at
#: the start of a wrapped line, and a longer word that begins with the keyword.
STEP_TEXT = (
    "Upgrade notes for the cache team\n"
    "## Step 1: back up the cache\n"
    "Copy the data folder first. Step 2 depends on it.\n"
    "STEP 2: install the package\n"
    "Install the new version; the restart in\n"
    "step 3 below then loads it.\n"
    "Steps to undo a failed upgrade are in the manual.\n"
)
#: The three chunkers of exercise 2, in the order of the answer.
STEP_CHUNKERS = (
    KeywordChunker(keywords=("Step",)),
    KeywordChunker(keywords=("Step",), where="anywhere"),
    KeywordChunker(keywords=("Step",), case_sensitive=True),
)


def solution_step_chunks() -> tuple[int, int, int]:
    return tuple(len(chunker(STEP_TEXT)) for chunker in STEP_CHUNKERS)


_STEP_HINTS = (
    "line_start, any case: decoration such as '## ' may come first, a wrapped line that starts with the word "
    "counts, a longer word (Steps) does not, and the text before the first cut is a chunk of its own",
    "anywhere: every whole-word occurrence cuts, in the middle of a line too, but never inside a longer word",
    "case_sensitive=True: 'STEP' and 'step' are other words now",
)


@exercise("14.2", "how many chunks?", "predict", solution=solution_step_chunks,
          wrong=(lambda: (3, 4, 1), lambda: (4, 6, 2), lambda: (3, 5, 2)))
def check_step_chunks(answer) -> str:
    """`answer` is the number of chunks of `STEP_TEXT` for each of `STEP_CHUNKERS`."""
    try:
        got = tuple(int(v) for v in answer)
    except (TypeError, ValueError):
        raise ExerciseFailed("answer with three numbers: (line_start, anywhere, case-sensitive line_start)") from None
    expected = solution_step_chunks()
    if len(got) != len(expected):
        raise ExerciseFailed("answer with three numbers: (line_start, anywhere, case-sensitive line_start)")
    wrong = [i for i, (a, b) in enumerate(zip(got, expected)) if a != b]
    if wrong:
        raise ExerciseFailed(f"number {wrong[0] + 1} is not {got[wrong[0]]}. Hint: {_STEP_HINTS[wrong[0]]}.")
    return "run the cuts() of each chunker on STEP_TEXT to see where each cut falls."


#: Exercise 3's explanations of why keyword chunks and paragraph chunks measure alike.
PARAGRAPH_CHOICES = {
    "A": "Keyword chunks are better at 500 characters: 46 % against 37 % of the test questions is a gap of "
         "ten points, large for any benchmark.",
    "B": "The two chunkers are equally good on these documents, so the markers add nothing that the blank "
         "lines do not already give.",
    "C": "Keyword chunks are worse at the larger budgets, since at 1,000 and 2,000 characters paragraph "
         "chunks answered one question more.",
    "D": "Nothing either way: the two disagree on too few questions (8 against 3 at 500) for the exact test "
         "to tell a difference from chance.",
}
_PARAGRAPH_HINTS = {
    "A": "a paired test looks at the questions on which the two disagree: how many are there at 500, and what "
         "p does McNemar's exact test give for them?",
    "B": "'no measurable difference' is not 'equal': the test could not tell them apart, which leaves room for "
         "a real difference too small for 52 questions to show.",
    "C": "one question either way (4 against 5, 2 against 3) is what chance gives all the time; the exact "
         "test gives p = 1.",
}


def solution_paragraph_choice() -> str:
    return "D"


@exercise("14.3", "what does 'no measurable difference' allow you to say?", "explain",
          solution=solution_paragraph_choice, wrong=(lambda: "A", lambda: "B", lambda: "C"))
def check_paragraph_choice(choice) -> str:
    """One letter of `PARAGRAPH_CHOICES`."""
    pick(choice, PARAGRAPH_CHOICES, _PARAGRAPH_HINTS, solution_paragraph_choice())
    return ("a paired test that finds no difference says only that these questions cannot show one; to learn "
            "more, write more questions (notebook 17) or measure on your own documents.")
