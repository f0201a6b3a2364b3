"""What the notebooks' measurements promise a reader, checked from their code without running them:
notebook 00 names the budgets every notebook measures at (and in which unit), and every table of
paired verdicts a notebook prints shows the test beside the verdict (difference, interval, p)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import chunklab.evaluation.budget as budget_module
import chunklab.evaluation.goal as goal_module

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
WELCOME = next(path for path in NOTEBOOKS if path.name.startswith("00_"))


def code_cells(path: Path) -> list[str]:
    """Each code cell's source, magics and shell lines left out."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["\n".join(line for line in "".join(c["source"]).splitlines() if not line.lstrip().startswith(("%", "!")))
            for c in cells if c["cell_type"] == "code"]


def number(path: Path) -> str:
    return path.stem.split("_")[0]


def _budgets_in(node: ast.AST, names: dict[str, ast.AST], seen: frozenset[str] = frozenset()) -> set[int]:
    """The budgets an expression lists: literal numbers, names of literal collections (the notebook's
    own, or `chunklab.evaluation`'s such as ``GOAL_BUDGETS``), through ``sorted``/``list``/``max``...
    A computed budget (arithmetic, a call such as ``int(...)``) is left out: its text must name it."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return {node.value}
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return set().union(*(_budgets_in(e, names, seen) for e in node.elts)) if node.elts else set()
    if isinstance(node, ast.Subscript):
        return _budgets_in(node.value, names, seen)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
            "sorted", "list", "tuple", "set", "max", "min"):
        return set().union(*(_budgets_in(a, names, seen) for a in node.args)) if node.args else set()
    if isinstance(node, ast.Name) and node.id not in seen:
        if node.id in names:
            return _budgets_in(names[node.id], names, seen | {node.id})
        for module in (budget_module, goal_module):
            value = getattr(module, node.id, None)
            if isinstance(value, (tuple, list)) and all(isinstance(v, int) for v in value):
                return set(value)
    return set()


def budgets_of(path: Path) -> dict[str, set[int]]:
    """The budgets each `compare` call of a notebook measures at, by unit (``"characters"`` or
    ``"tokens"``); a call without ``budget=`` measures at `DEFAULT_BUDGETS`."""
    trees = [ast.parse(source) for source in code_cells(path)]
    names = {target.id: node.value for tree in trees for node in ast.walk(tree) if isinstance(node, ast.Assign)
             for target in node.targets if isinstance(target, ast.Name)}
    found: dict[str, set[int]] = {}
    for tree in trees:
        for call in ast.walk(tree):
            if not (isinstance(call, ast.Call) and getattr(call.func, "id", getattr(call.func, "attr", None)) == "compare"):
                continue
            keywords = {k.arg: k.value for k in call.keywords}
            unit = "characters"
            if "budget_unit" in keywords and getattr(keywords["budget_unit"], "value", None) == "tokens":
                unit = "tokens"
            budgets = (_budgets_in(keywords["budget"], names) if "budget" in keywords
                       else set(budget_module.DEFAULT_BUDGETS))
            found.setdefault(unit, set()).update(budgets)
    return found


def budget_rows() -> dict[str, str]:
    """Notebook 00's budget table: each row's text, by every notebook number its first cell names."""
    cells = json.loads(WELCOME.read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    table = re.search(r"^\| notebooks \| budgets \|.*?(?=^[^|]|\Z)", text, re.MULTILINE | re.DOTALL)
    assert table, "notebook 00 has no table with the columns 'notebooks | budgets'"
    rows = {}
    for line in table.group().splitlines():
        cells_of_row = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if re.fullmatch(r"\d\d[ab]?(, \d\d[ab]?)*", cells_of_row[0]):
            for notebook in cells_of_row[0].split(", "):
                assert notebook not in rows, f"notebook {notebook} is named in two rows of 00's budget table"
                rows[notebook] = line
    return rows


MEASURING = [path for path in NOTEBOOKS if path != WELCOME and budgets_of(path)]


def test_the_budgets_are_found_where_they_are_set() -> None:
    by_number = {number(path): budgets_of(path) for path in MEASURING}
    assert by_number["01"] == {"characters": {500, 1000, 2000}}
    assert by_number["08a"] == {"characters": set(budget_module.DEFAULT_BUDGETS)}
    assert by_number["10"] == {"tokens": {250, 500, 1000}}
    assert by_number["15"] == {"characters": set(goal_module.GOAL_BUDGETS)}
    assert {250, 4000} <= by_number["16"]["characters"]


@pytest.mark.parametrize("path", MEASURING, ids=lambda p: p.stem)
def test_notebook_00_names_the_budgets_of_every_notebook(path: Path) -> None:
    rows = budget_rows()
    assert number(path) in rows, f"notebook 00's budget table has no row naming notebook {number(path)}"
    row = rows[number(path)]
    for unit, budgets in budgets_of(path).items():
        assert unit in row, f"notebook {number(path)} measures in {unit}: 00 must say so ({row})"
        missing = sorted(b for b in budgets if not re.search(rf"(?<!\d)(?<!\d,){b:,}(?!\d|,\d)", row))
        assert not missing, f"notebook {number(path)} measures at {missing}, which 00's row does not name: {row}"


#: Code that makes paired verdicts: `versus(...)`, `.verdict` of a `paired(...)` comparison, or a
#: notebook's own `verdict(...)` helper.
VERDICTS = re.compile(r"\bversus\(|\bpaired\([^\n]*\)\.verdict\b|\bverdict\(")
#: Code that shows the test beside them: the verdict table, or the p-value itself.
SHOWS_THE_TEST = re.compile(r"\bverdict_table\(|p_value|McNemar p")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_verdict_a_notebook_prints_shows_its_test(path: Path) -> None:
    """A code cell that computes paired verdicts (outside the Checks cell, which asserts and prints
    nothing) also shows the difference, interval and McNemar's p: through `verdict_table`, or by
    showing the ``p_value`` column itself."""
    bare = [i for i, source in enumerate(code_cells(path))
            if VERDICTS.search(source) and not SHOWS_THE_TEST.search(source) and not is_checks(source)]
    assert not bare, f"code cells {bare} print verdicts without their test (use verdict_table, or show p_value)"


def is_checks(source: str) -> bool:
    """A Checks cell: mostly assertions."""
    lines = [line for line in source.splitlines() if line.strip() and not line.startswith((" ", "#"))]
    return sum(line.startswith("assert") for line in lines) > len(lines) / 3


def test_the_verdict_pattern_catches_what_it_is_for() -> None:
    assert VERDICTS.search('verdicts = versus(result, PAIRS, "bm25")')
    assert VERDICTS.search("{b: paired(s[a, b], s[c, b], names=(a, c)).verdict for b in BUDGETS}")
    assert VERDICTS.search('{budget: verdict("modality + context", fixed_label, budget) for budget in BUDGETS}')
    assert not VERDICTS.search("from chunklab.evaluation.verdicts import curve")
    assert not VERDICTS.search("goal = goal_verdict(result)")
    assert SHOWS_THE_TEST.search("display(verdict_table(verdicts))")
    assert SHOWS_THE_TEST.search('shown = verdicts[["a", "b", "p_value", "verdict"]]')
    assert not SHOWS_THE_TEST.search('verdicts.pivot(index="pair", columns="budget", values="verdict")')
