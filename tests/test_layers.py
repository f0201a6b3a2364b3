"""The package's architecture: layers import downward only, and no package's modules import each other in
a cycle, not even from inside a function (import-linter contracts in pyproject.toml); the contract is
the one place the layers are written, and the guides that list them agree with it."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("build_site", ROOT / "docs" / "build_site.py")
build_site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_site)


def test_import_contracts_are_kept() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


def test_the_contracts_catch_an_upward_import(tmp_path: Path) -> None:
    """A copy of the package with one upward import inside a function breaks the layers contract, so
    the check above can fail."""
    import shutil

    shutil.copytree(ROOT / "chunklab", tmp_path / "chunklab", ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    spans = tmp_path / "chunklab" / "text" / "spans.py"
    spans.write_text(spans.read_text() + "\n\ndef _upward():\n    from ..evaluation import compare\n\n    return compare\n")
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                            env={"PYTHONPATH": str(tmp_path), "PATH": ""})
    assert result.returncode != 0 and "BROKEN" in result.stdout, result.stdout + result.stderr


def test_the_contracts_name_and_the_layout_in_the_guide_follow_its_layers() -> None:
    """The layers contract's name and docs/library.md's "Layout" list the layers of the contract, in
    its order, top first (the site's reference reads them from the contract: `layer_contract`)."""
    import tomllib

    layers = build_site.layer_contract()
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    name = next(contract for contract in contracts if contract["type"] == "layers")["name"]
    assert name == "Layers: " + " > ".join(" | ".join(layer) for layer in layers)
    page = (ROOT / "docs" / "library.md").read_text(encoding="utf-8")
    block = page.split("\n## Layout\n", 1)[1].split("```", 2)[1]
    listed = [n for n in re.findall(r"^  (\w+)(?:/|\.py) ", block, re.M) if n != "__init__"]
    assert listed == [module for layer in layers for module in layer], (
        "docs/library.md's Layout lists the package's layers in another order than pyproject.toml's contract")
