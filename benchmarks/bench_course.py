"""Course time: wall time of every notebook under ``pytest --nbmake``, and of ``make test`` and
``make e2e``, cold and warm, with where each notebook's time goes.

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

Where the time goes: each notebook's kernel reports the wall seconds it spent embedding (MiniLM),
chunking and retrieving inside `chunklab.compare` (`chunklab.phases`, through ``CHUNKLAB_PHASES``);
"rest" is the remainder of the notebook's wall time (starting the kernel, imports, plots, widgets).

The course ships the MiniLM vectors of the texts it embeds (``data/embeddings/minilm-int8.npz``,
``scripts/build_embeddings.py``); ``--without-shipped-vectors`` deletes that file in the clone, to
measure what a learner without it waits for.

Targets on 2 cores: every notebook at most 60 s cold and 20 s warm, notebook 16 at most 180 s
cold, the whole course one notebook after another at most 8 minutes cold; ``make test`` at most
12 minutes, ``make test`` and ``make e2e`` together (CI) at most 25 minutes.

Run: ``.venv/bin/python benchmarks/bench_course.py [--notebooks-only | --make-only] [--no-e2e]
[--without-shipped-vectors] [NN ...]`` (``make bench-course``); ``NN`` picks notebooks by number prefix.
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

from chunklab.phases import read_report

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK_TARGET = 60.0
COMPARISON_TARGET = 180.0
WARM_TARGET = 20.0
COURSE_TARGET = 480.0
TARGETS = {"make test": 720.0, "make test + make e2e": 1500.0}
PHASES = ("embedding", "chunking", "retrieval")
TIMEOUT = 3600


@dataclass
class Timing:
    """Cold and warm wall seconds of one command, and whether both runs passed."""

    name: str
    cold: float
    warm: float
    passed: bool
    phases: dict[str, float]

    @property
    def target(self) -> float | None:
        if self.name.startswith("16_"):
            return COMPARISON_TARGET
        return NOTEBOOK_TARGET if self.name.endswith(".ipynb") else TARGETS.get(self.name)


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
    shutil.rmtree(clone / "_site", ignore_errors=True)
    started = time.perf_counter()
    result = subprocess.run(command, cwd=clone, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        print(f"    {' '.join(command[-2:])} failed:\n{result.stdout[-1500:]}{result.stderr[-1500:]}", flush=True)
    return seconds, result.returncode == 0


def cold_and_warm(name: str, command: list[str], clone: Path) -> Timing:
    """`command` with the clone's caches emptied, then again with what that run left in them; the
    phases are those of the cold run."""
    shutil.rmtree(clone / ".cache", ignore_errors=True)
    report = clone / ".phases.jsonl"
    report.unlink(missing_ok=True)
    env = course_env(clone)
    cold, cold_ok = timed(command, clone, {**env, "CHUNKLAB_PHASES": str(report)})
    warm, warm_ok = timed(command, clone, env)
    timing = Timing(name, cold, warm, cold_ok and warm_ok, {**dict.fromkeys(PHASES, 0.0), **read_report(report)})
    status = "passed" if timing.passed else "FAILED"
    print(f"  {name:<34} cold {cold:7.1f} s   warm {warm:7.1f} s   {status}", flush=True)
    return timing


def measure(notebooks: bool = True, make: bool = True, e2e: bool = True, only: tuple[str, ...] = (),
            shipped: bool = True) -> list[Timing]:
    """Timings of the chosen notebooks (each cold on its own), of ``make test`` and of ``make e2e``."""
    timings = []
    python = str(REPO / ".venv" / "bin" / "python")
    with tempfile.TemporaryDirectory(prefix="chunklab-course-") as parent:
        clone = fresh_clone(Path(parent))
        if not shipped:
            shutil.rmtree(clone / "data" / "embeddings", ignore_errors=True)
        if notebooks:
            for path in sorted((clone / "notebooks").glob("*.ipynb")):
                if only and not path.name.startswith(only):
                    continue
                command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbmake", f"notebooks/{path.name}"]
                timings.append(cold_and_warm(path.name, command, clone))
        if make:
            # The clone's files are newer than the installed environment's stamps: -o keeps make
            # from reinstalling them.
            keep = ["-o", ".venv/.chunklab-installed", "-o", ".venv/.chunklab-site-installed"]
            test = cold_and_warm("make test", ["make", *keep, "test"], clone)
            timings.append(test)
            if e2e:
                browser = cold_and_warm("make e2e", ["make", *keep, "e2e"], clone)
                timings.append(browser)
                timings.append(Timing("make test + make e2e", test.cold + browser.cold, test.warm + browser.warm,
                                      test.passed and browser.passed, {}))
    return timings


def print_timings(timings: list[Timing]) -> None:
    load = " ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"\nCourse time (wall clock; {os.cpu_count()} cores, load average now {load})\n")
    phases = " ".join(f"{name:>9}" for name in (*PHASES, "rest"))
    print(f"  {'':<34} {'cold':>8} {'warm':>8} {'target':>12}   cold run: {phases}")
    for timing in timings:
        verdict = ""
        if timing.target is not None:
            ok = timing.cold <= timing.target and (not timing.name.endswith(".ipynb") or timing.warm <= WARM_TARGET)
            verdict = f"<={timing.target:.0f} s {'ok' if ok else 'MISS'}"
        status = "" if timing.passed else "  (FAILED)"
        spent = ""
        if timing.name.endswith(".ipynb"):
            rest = timing.cold - sum(timing.phases.values())
            spent = " ".join(f"{timing.phases.get(name, 0.0):>7.1f} s" for name in PHASES) + f" {rest:>7.1f} s"
        print(f"  {timing.name:<34} {timing.cold:>6.1f} s {timing.warm:>6.1f} s {verdict:>12}{status}   {spent}")
    notebooks = [t for t in timings if t.name.endswith(".ipynb")]
    if notebooks:
        total = sum(t.cold for t in notebooks)
        verdict = f"<={COURSE_TARGET:.0f} s {'ok' if total <= COURSE_TARGET else 'MISS'}"
        print(f"  {'all notebooks, one after another':<34} {total:>6.0f} s {sum(t.warm for t in notebooks):>6.0f} s "
              f"{verdict:>12}")


if __name__ == "__main__":
    arguments = sys.argv[1:]
    flags = {a for a in arguments if a.startswith("--")}
    prefixes = tuple(a for a in arguments if not a.startswith("--"))
    print_timings(measure(notebooks="--make-only" not in flags, make="--notebooks-only" not in flags,
                          e2e="--no-e2e" not in flags, only=prefixes, shipped="--without-shipped-vectors" not in flags))
