"""Course time: wall time of every notebook under ``pytest --nbmake``, and of ``make test``, cold and warm.

What a learner (or CI) waits for. Everything runs in a fresh clone of this repository's committed
``HEAD`` (uncommitted changes are not measured), with the environment already installed (``.venv``
is linked into the clone and the clone's own ``chunklab`` is imported: the clock measures the course,
not pip):

* **cold**: the clone's caches are empty (``.cache/``: matplotlib's font cache, the embedding cache,
  IPython's and Jupyter's folders), as after ``git clone``; every notebook is measured cold on its
  own, its caches emptied just before it;
* **warm**: the same run again, right after, with the caches the cold run left.

The operating system's file cache is not emptied (that needs root and would slow every other
program on the machine): the installed packages load from memory in both cases. Wall time is what
matters here, so the numbers move with the machine's load: run it when the machine is quiet, and
read the load average printed with the results.

Targets (issue 12): every notebook at most 60 s cold on 2 cores; notebook 16 at most 3 minutes.

Run: ``.venv/bin/python benchmarks/bench_course.py [--notebooks-only | --make-test-only] [NN ...]``
(``make bench-course``); ``NN`` picks notebooks by number prefix.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK_TARGET = 60.0
COMPARISON_TARGET = 180.0
TIMEOUT = 1800


@dataclass
class Timing:
    """Cold and warm wall seconds of one command, and whether both runs passed."""

    name: str
    cold: float
    warm: float
    passed: bool

    @property
    def target(self) -> float | None:
        if self.name.startswith("16_"):
            return COMPARISON_TARGET
        return NOTEBOOK_TARGET if self.name.endswith(".ipynb") else None


def fresh_clone(parent: Path) -> Path:
    """A clone of the repository's HEAD in `parent`, with the installed environment linked in."""
    clone = parent / "chunklab"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(REPO), str(clone)], check=True)
    (clone / ".venv").symlink_to(REPO / ".venv", target_is_directory=True)
    return clone


def course_env(clone: Path) -> dict[str, str]:
    """The Makefile's run-time settings for `clone` (its caches inside it), importing its chunklab."""
    cache = clone / ".cache"
    env = {key: value for key, value in os.environ.items() if key != "CHUNKLAB_CACHE"}
    env.update(
        PYTHONPATH=str(clone),
        MPLCONFIGDIR=str(cache / "matplotlib"),
        IPYTHONDIR=str(cache / "ipython"),
        JUPYTER_CONFIG_DIR=str(cache / "jupyter" / "config"),
        JUPYTER_DATA_DIR=str(cache / "jupyter" / "data"),
        JUPYTER_RUNTIME_DIR=str(cache / "jupyter" / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(cache / "jupyter" / "lab-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(cache / "jupyter" / "workspaces"),
        HF_HOME=str(cache / "huggingface"),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        TRANSFORMERS_NO_ADVISORY_WARNINGS="1",
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


def timed(command: list[str], clone: Path, env: dict[str, str]) -> tuple[float, bool]:
    """Wall seconds of `command` run in `clone`, and whether it succeeded."""
    started = time.perf_counter()
    result = subprocess.run(command, cwd=clone, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        print(f"    {' '.join(command[-2:])} failed:\n{result.stdout[-1500:]}{result.stderr[-1500:]}", flush=True)
    return seconds, result.returncode == 0


def cold_and_warm(name: str, command: list[str], clone: Path) -> Timing:
    """`command` with the clone's caches emptied, then again with what that run left in them."""
    shutil.rmtree(clone / ".cache", ignore_errors=True)
    env = course_env(clone)
    cold, cold_ok = timed(command, clone, env)
    warm, warm_ok = timed(command, clone, env)
    timing = Timing(name, cold, warm, cold_ok and warm_ok)
    status = "passed" if timing.passed else "FAILED"
    print(f"  {name:<34} cold {cold:7.1f} s   warm {warm:7.1f} s   {status}", flush=True)
    return timing


def measure(notebooks: bool = True, make_test: bool = True, only: tuple[str, ...] = ()) -> list[Timing]:
    """Timings of the chosen notebooks (each cold on its own) and of ``make test``."""
    timings = []
    python = str(REPO / ".venv" / "bin" / "python")
    with tempfile.TemporaryDirectory(prefix="chunklab-course-") as parent:
        clone = fresh_clone(Path(parent))
        if notebooks:
            for path in sorted((clone / "notebooks").glob("*.ipynb")):
                if only and not path.name.startswith(only):
                    continue
                command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbmake", f"notebooks/{path.name}"]
                timings.append(cold_and_warm(path.name, command, clone))
        if make_test:
            # The clone's files are newer than the installed environment's stamp: -o keeps make
            # from reinstalling it.
            command = ["make", "-o", ".venv/.chunklab-installed", "test"]
            timings.append(cold_and_warm("make test", command, clone))
    return timings


def print_timings(timings: list[Timing]) -> None:
    load = " ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"\nCourse time (wall clock; {os.cpu_count()} cores, load average now {load})\n")
    print(f"  {'':<34} {'cold':>8} {'warm':>8} {'target':>8}")
    for timing in timings:
        verdict = ""
        if timing.target is not None:
            verdict = f"<={timing.target:.0f} s {'ok' if timing.cold <= timing.target else 'MISS'}"
        status = "" if timing.passed else "  (FAILED)"
        print(f"  {timing.name:<34} {timing.cold:>6.1f} s {timing.warm:>6.1f} s {verdict:>12}{status}")
    notebooks = [t for t in timings if t.name.endswith(".ipynb")]
    if notebooks:
        print(f"  {'all notebooks, one after another':<34} {sum(t.cold for t in notebooks):>6.0f} s "
              f"{sum(t.warm for t in notebooks):>6.0f} s")


if __name__ == "__main__":
    arguments = sys.argv[1:]
    flags = {a for a in arguments if a.startswith("--")}
    prefixes = tuple(a for a in arguments if not a.startswith("--"))
    print_timings(measure("--make-test-only" not in flags, "--notebooks-only" not in flags, prefixes))
