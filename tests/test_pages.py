"""The pages beside the course say what the code does: the README, CONTRIBUTING and docs/*.md name
modules and names that exist, state the defaults the code has, cite nothing a reader cannot open,
never send a reader to PyPI for this library, and the Makefile creates the folders it points tools at."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]
NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9]*.ipynb"))
NUMBERS = {"fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
           "twenty-one": 21, "twenty-two": 22}


def _text(path: Path) -> str:
    if path.suffix == ".ipynb":
        return "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells)
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_names_listed_under_a_module_are_in_it(page: Path) -> None:
    """`chunklab.x` (`a`, `b` ...): every name in the parentheses is an attribute of that module."""
    wrong = []
    for module, listed in re.findall(r"`(chunklab(?:\.\w+)*)` \(([^)]*)\)", page.read_text(encoding="utf-8")):
        try:
            found = importlib.import_module(module)
        except ImportError:
            continue
        for name in re.findall(r"`([A-Za-z_]\w*)`", listed):
            if not hasattr(found, name):
                wrong.append(f"{module}.{name}")
    assert not wrong, f"{page.name} lists names that are not in the module it names: {wrong}"


@pytest.mark.parametrize("page", [*PAGES, *NOTEBOOKS], ids=lambda p: p.relative_to(REPO).as_posix())
def test_no_reader_is_sent_to_pypi_or_to_an_issue(page: Path) -> None:
    text = _text(page)
    # "chunklab" on PyPI is another project: this one installs from a clone (pip install -e ".[extra]").
    assert not re.search(r"pip install [\"']?chunklab\b", text), f"{page.name} points at the PyPI package"
    assert not re.search(r"\bissues? \d+", text), f"{page.name} cites an issue a reader cannot open"


def test_the_readme_says_the_pypi_name_is_another_project() -> None:
    import tomllib

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    name = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["name"]
    assert name != "chunklab" and f"`{name}`" in readme
    assert "on PyPI is another project" in readme


def test_contributing_counts_the_strategies() -> None:
    from chunklab import CHUNKERS

    counted = re.search(r"keep (\S+) strategies one library", (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    assert counted and NUMBERS[counted.group(1)] == len(CHUNKERS)


def test_the_vocabulary_table_matches_the_chunkers() -> None:
    from chunklab import CHUNKERS

    table = (REPO / "docs" / "library.md").read_text(encoding="utf-8").split("## One vocabulary")[1].split("| metadata key")[0]
    rows = re.findall(r"^\| `(\w+)` \| (.*?) \| (.*?) \|$", table, re.M)
    checked = 0
    for param, meaning, chunkers in rows:
        names = [n.strip() for n in chunkers.split(",")]
        if all(n in CHUNKERS for n in names):  # a plain list of strategies (not "every sized chunker")
            having = sorted(n for n, cls in CHUNKERS.items() if param in cls.param_specs())
            assert sorted(names) == having, f"{param}: the table says {sorted(names)}, the code {having}"
            checked += 1
        values = re.findall(r'`"(\w+)"`', meaning)
        owner = next((cls for n, cls in CHUNKERS.items() if n in names and param in cls.param_specs()), None)
        if values and owner is not None and param != "unit":
            described = owner.constraints()[param].describe()
            allowed = re.findall(r"\w+", described.split(":", 1)[1].split("(")[0])
            assert values == allowed, f"{param}: the table says {values}, the code {allowed}"
    assert checked >= 8


def test_pipeline_page_states_evaluates_defaults() -> None:
    from chunklab.evaluation.budget import DEFAULT_BUDGETS
    from chunklab.pipeline.cli import build_parser

    page = " ".join((REPO / "docs" / "pipeline.md").read_text(encoding="utf-8").split())
    budgets = ", ".join(f"{b:,}" for b in DEFAULT_BUDGETS[:-1]) + f" and {DEFAULT_BUDGETS[-1]:,} characters"
    assert budgets in page
    evaluate = next(a for a in build_parser()._subparsers._group_actions[0].choices.values() if a.prog.endswith("evaluate"))
    retriever = next(a for a in evaluate._actions if a.dest == "retrievers")
    assert "default: bm25 and dense" in retriever.help and "**BM25 and dense**" in page


def test_every_environment_variable_chunklab_reads_is_documented() -> None:
    read = set()
    for path in (REPO / "chunklab").rglob("*.py"):
        read |= set(re.findall(r"\b(CHUNKLAB_[A-Z_]+)\b", path.read_text(encoding="utf-8")))
    pages = "\n".join(p.read_text(encoding="utf-8") for p in PAGES)
    assert read and all(f"`{name}`" in pages for name in read), read
    assert "CHUNKLAB_CACHE" in (REPO / "docs" / "offline.md").read_text(encoding="utf-8")


def test_the_makefile_creates_every_folder_it_points_tools_at() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    exported = re.findall(r"^export (\w+) := \$\(CURDIR\)/\.cache/", makefile, re.M)
    created = re.search(r"^CACHE_DIRS := (.*?)\n\n", makefile, re.M | re.S).group(1)
    assert exported and all(f"$({name})" in created for name in exported)
    assert re.search(r"^install: .*cache-dirs", makefile, re.M) and "\t@mkdir -p $(CACHE_DIRS)" in makefile


def test_choosing_says_what_to_start_with_and_it_is_the_commands_default() -> None:
    from chunklab import CHUNKERS
    from chunklab.pipeline.cli import DEFAULT_STRATEGY

    page = (REPO / "docs" / "choosing.md").read_text(encoding="utf-8")
    start = page.split("## What to start with", 1)[1].split("\n## ", 1)[0]
    assert f"`{CHUNKERS[DEFAULT_STRATEGY].__name__}()`" in start and "use_context=True" in start
    assert "change the dropdowns" not in page
    assert 'split="test"' in page, "the example claims on test questions only"
