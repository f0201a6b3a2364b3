"""The install files agree with each other, and the pinned versions are the ones installed."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]


def requirement_lines(path: Path) -> list[str]:
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return [line for line in lines if line]


def name_of(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_environment_yml_lists_the_same_pins_as_requirements() -> None:
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    pip_section = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert sorted(pip_section) == sorted(requirement_lines(REPO / "requirements.txt"))
    assert any(str(d).startswith("python=") for d in env["dependencies"])


def test_every_library_extra_is_part_of_the_course_environment() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    pinned = {name_of(r) for r in requirement_lines(REPO / "requirements.txt")}
    pinned |= {name_of(r) for r in requirement_lines(REPO / "requirements-nodeps.txt")}
    for extra, requirements in pyproject["project"]["optional-dependencies"].items():
        missing = {name_of(r) for r in requirements} - pinned - {"ipython"}
        assert not missing, f"extra {extra!r} needs {missing}, which requirements.txt does not pin"


@pytest.mark.parametrize(
    "requirement",
    requirement_lines(REPO / "requirements.txt") + requirement_lines(REPO / "requirements-nodeps.txt"),
)
def test_installed_versions_match_the_pins(requirement: str) -> None:
    name, _, pinned = requirement.partition("==")
    try:
        installed = version(name)
    except PackageNotFoundError:
        pytest.fail(f"{name} is pinned but not installed; run `make install`")
    assert installed == pinned, f"{name}: pinned {pinned}, installed {installed}"
