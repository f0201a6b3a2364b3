"""The install files agree with each other, and the pinned versions are the ones installed."""

from __future__ import annotations

import re
import subprocess
import tomllib
from importlib.metadata import PackageNotFoundError, metadata, version
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


def python_floor() -> tuple[int, int]:
    """The lowest Python version pyproject.toml claims."""
    claim = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["requires-python"]
    match = re.fullmatch(r">=\s*3\.(\d+)", claim.strip())
    assert match, f"requires-python should read '>=3.N', got {claim!r}"
    return 3, int(match.group(1))


def test_python_floor_is_one_every_pinned_package_supports() -> None:
    from packaging.specifiers import SpecifierSet

    floor = "%d.%d" % python_floor()
    pins = requirement_lines(REPO / "requirements.txt") + requirement_lines(REPO / "requirements-nodeps.txt")
    too_new = {}
    for requirement in pins:
        name = requirement.partition("==")[0]
        required = metadata(name).get("Requires-Python")
        if required and f"{floor}.0" not in SpecifierSet(required):
            too_new[name] = required
    assert not too_new, f"pyproject claims Python >= {floor}, but these pins need more: {too_new}"


def test_floor_is_stated_the_same_everywhere() -> None:
    floor = "%d.%d" % python_floor()
    assert re.search(rf"^PYTHON_FLOOR := {re.escape(floor)}$", (REPO / "Makefile").read_text(), re.M)
    assert f"Python {floor} or newer" in (REPO / "README.md").read_text()
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    conda_python = next(str(d) for d in env["dependencies"] if str(d).startswith("python="))
    assert tuple(map(int, conda_python.split("=")[1].split(".")[:2])) >= python_floor()


def test_make_stops_at_once_with_one_line_for_an_unsupported_python(tmp_path: Path) -> None:
    fake = tmp_path / "python3.9"
    fake.write_text('#!/bin/sh\nif [ "$1" = "--version" ]; then echo "Python 3.9.18"; exit 0; fi\nexit 1\n')
    fake.chmod(0o755)
    done = subprocess.run(["make", "-s", "-C", str(REPO), "test", f"PYTHON={fake}"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode != 0
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1 and "needs Python 3.11 or newer" in lines[0] and "Python 3.9.18" in lines[0], done.stdout
    assert "PYTHON=python3.11" in lines[0]
