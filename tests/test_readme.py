"""What a newcomer copies must work: every Python code block of the README, CONTRIBUTING and the
site's pages (docs/*.md) runs, and the static checks hold (ruff; mypy on the package and the public API).

Each file's blocks run in order, in one fresh interpreter (a block may use what an earlier block of
the same page made), in a temporary folder. A block whose first line is ``# not run: <reason>`` is
skipped, and says why on the page.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_vocabulary import RETIRED_PARAMS

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python[^\n]*\n(.*?)^```", re.M | re.S)

#: Run after a page's blocks: the parameters of every chunker the page registered, for the vocabulary.
_REPORT = """
import json as _json
from chunklab import CHUNKERS as _CHUNKERS
print("REGISTERED " + _json.dumps({n: list(c.param_specs()) for n, c in _CHUNKERS.items() if n not in _BEFORE}))
"""


def python_blocks(path: Path) -> list[str]:
    return [block for block in BLOCK.findall(path.read_text()) if not block.lstrip().startswith("# not run:")]


@pytest.mark.parametrize("page", [p for p in PAGES if python_blocks(p)], ids=lambda p: p.relative_to(REPO).as_posix())
def test_code_blocks_run(page: Path, tmp_path: Path) -> None:
    script = "from chunklab import CHUNKERS as _C\n_BEFORE = set(_C)\n"
    for number, block in enumerate(python_blocks(page), 1):
        script += f"\n# --- block {number}\n{block}"
    script += _REPORT
    (tmp_path / "blocks.py").write_text(script)
    done = subprocess.run([sys.executable, "blocks.py"], cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"a code block of {page.name} failed:\n{done.stderr[-3000:]}"
    registered = json.loads(done.stdout.rsplit("REGISTERED ", 1)[1])
    for name, params in registered.items():
        assert not RETIRED_PARAMS & set(params), f"{page.name}: chunker {name!r} uses retired names"


def test_ruff_finds_nothing() -> None:
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_mypy_accepts_the_package_and_the_public_api() -> None:
    """mypy over the files `[tool.mypy]` in pyproject.toml names: the package and the public API as
    it is used."""
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_mypy_checks_the_package_bodies(tmp_path: Path) -> None:
    """A copy of the package with a type error planted in a function body fails the same check, so
    the check above can fail."""
    import shutil

    shutil.copytree(REPO / "chunklab", tmp_path / "chunklab", ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copytree(REPO / "tests" / "typing", tmp_path / "tests" / "typing")
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    spans = tmp_path / "chunklab" / "text" / "spans.py"
    spans.write_text(spans.read_text() + '\n\ndef _planted() -> int:\n    return "not an int"\n')
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert done.returncode == 1 and "chunklab/text/spans.py" in done.stdout, done.stdout[-2000:] + done.stderr[-1000:]
    assert "Found 1 error in 1 file" in done.stdout, done.stdout[-2000:]
