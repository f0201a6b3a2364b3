"""A learner reads the notebooks as the course they are, not as the history of how they were made: no
markdown cell or code comment speaks of the project's issues or of earlier versions of the course."""

from __future__ import annotations

import io
import json
import re
import tokenize
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))

#: Words that point at the project's history: an issue by number, a default or a loader as it once was.
HISTORY = re.compile(
    r"\bissues? #?\d+|\bthe old default|\bold defaults?\b|\bdid before\b|\b(?:previous|earlier|older) versions?\b"
    r"|\bthe seeds'|\bthe seed's\b|\bused to be\b|\bhas been (?:changed|renamed|fixed)\b",
    re.IGNORECASE,
)


def comments(code: str) -> str:
    """The comments of a code cell (magics and shell lines left out)."""
    source = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!")))
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return "\n".join(token.string for token in tokens if token.type == tokenize.COMMENT)


def learner_text(path: Path) -> list[tuple[int, str]]:
    """Each cell's words a learner reads: a markdown cell whole, a code cell's comments."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [(i, "".join(c["source"]) if c["cell_type"] == "markdown" else comments("".join(c["source"])))
            for i, c in enumerate(cells) if c["cell_type"] in ("markdown", "code")]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_learner_facing_text_speaks_of_the_projects_history(path: Path) -> None:
    found = [(i, m.group()) for i, text in learner_text(path) for m in HISTORY.finditer(text)]
    assert not found, f"cells speaking of issues or earlier versions: {found}"


def test_the_pattern_catches_what_it_is_for() -> None:
    for phrase in ("written for issue 22", "(the old default)", "as this course's loader did before",
                   "The seeds' settings", "the seed's settings", "in a previous version"):
        assert HISTORY.search(phrase), phrase
    for phrase in ("an issue with overlap", "a random seed of 4", "no longer fits", "LangChain's #21475"):
        assert not HISTORY.search(phrase), phrase
