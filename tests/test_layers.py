"""The package's architecture: layers import downward only, and no package's modules import each other in
a cycle, not even from inside a function (import-linter contracts in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
