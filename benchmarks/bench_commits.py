"""Before and after: every registered chunker at two commits of this repository, in the same run.

A refactoring should not make a chunker slower. This script checks out two commits side by side
(``git worktree``, removed afterwards), writes one text of each shape once (`shapes.shape_text`, so
both commits chunk the very same characters), and times every chunker registered at both commits,
with its defaults, in fresh Python processes that import the commit's own ``chunklab``. The two
commits alternate, process by process (`ROUNDS` processes each), so a change in the machine's load
falls on both; each process makes a warm-up call (models load), then times `RUNS` calls on the text
and keeps the best CPU time. Printed: the best time at each commit and their ratio (after / before),
per chunker and shape; a ratio above `SLOWER` is flagged. Chunkers timed one after another in one
process affect each other (the memory and garbage the ones before leave), by up to a quarter in a
single run: re-check a flagged chunker on its own with ``--chunkers NAME --rounds 6``.

Chunkers with an ``embedder`` parameter get `bench_scaling`'s ``HashingEmbedder`` (written out here), so
the time is the chunker's and not the neural model's.

Run: ``.venv/bin/python benchmarks/bench_commits.py BEFORE [AFTER] [--shapes course,markdown]
[--chars N] [--rounds N] [--chunkers a,b]`` (AFTER defaults to ``HEAD``; commits as git names them;
``--chunkers`` times only those, for a closer look at a flagged one with more rounds on a longer text).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from shapes import shape_text

REPO = Path(__file__).resolve().parents[1]
SIZE = 200_000
ROUNDS = 2
RUNS = 2
SLOWER = 1.05

#: What one process runs: every chunker registered at its commit, on the text, best CPU time of RUNS.
_TIMER = r"""
import json, sys, time, inspect
import chunklab
from chunklab import CHUNKERS
import numpy as np
from sklearn.feature_extraction.text import HashingVectorizer
class HashingEmbedder:  # bench_scaling's: hashed word counts, no model
    def __init__(self):
        self.vectorizer = HashingVectorizer(n_features=384, alternate_sign=False, norm="l2", dtype=np.float32)
    def __call__(self, texts):
        return self.vectorizer.transform(list(texts)).toarray()
text = open(sys.argv[1], encoding="utf-8").read()
out = {}
wanted = set(filter(None, sys.argv[3].split(",")))
for name, cls in sorted(CHUNKERS.items()):
    if wanted and name not in wanted:
        continue
    params = {"embedder": HashingEmbedder()} if "embedder" in inspect.signature(cls).parameters else {}
    chunker = cls(**params)
    chunker(text[:5000])
    best = float("inf")
    for _ in range(int(sys.argv[2])):
        chunklab.clear_caches()
        chunker(text[:5000])
        started = time.process_time()
        chunker(text)
        best = min(best, time.process_time() - started)
    out[name] = best
print(json.dumps(out))
"""


def _checkout(commit: str, folder: Path) -> Path:
    """A detached worktree of `commit` in `folder`."""
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "--force", str(folder), commit],
                   check=True, capture_output=True)
    return folder


def _times(tree: Path, text_file: Path, chunkers: str) -> dict[str, float]:
    """Best CPU seconds per chunker (all, or the comma-separated `chunkers`), in one fresh process
    that imports `tree`'s chunklab."""
    env = {"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", _TIMER, str(text_file), str(RUNS), chunkers], cwd=tree, env=env,
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    """Parse the arguments, time both commits alternately, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after", nargs="?", default="HEAD")
    parser.add_argument("--shapes", default="course,markdown", help="comma-separated shapes of `shapes`")
    parser.add_argument("--chars", type=int, default=SIZE, help="characters of each shape's text")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="processes per commit, alternating")
    parser.add_argument("--chunkers", default="", help="comma-separated registered names (default: all)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-commits-") as scratch:
        root = Path(scratch)
        trees = {label: _checkout(commit, root / label) for label, commit in (("before", args.before),
                                                                               ("after", args.after))}
        try:
            for shape in args.shapes.split(","):
                text_file = root / f"{shape}.txt"
                text_file.write_text(shape_text(shape, args.chars), encoding="utf-8")
                best: dict[str, dict[str, float]] = {"before": {}, "after": {}}
                for _ in range(args.rounds):
                    for label, tree in trees.items():
                        for name, seconds in _times(tree, text_file, args.chunkers).items():
                            best[label][name] = min(seconds, best[label].get(name, float("inf")))
                print(f"\n{shape}, {args.chars:,} characters: best CPU seconds of {args.rounds} processes x {RUNS} calls")
                print(f"{'chunker':<18}{args.before[:12]:>14}{args.after[:12]:>14}{'after/before':>14}")
                for name in sorted(set(best["before"]) & set(best["after"])):
                    a, b = best["before"][name], best["after"][name]
                    flag = "  slower" if b > a * SLOWER else ""
                    print(f"{name:<18}{a:>14.3f}{b:>14.3f}{b / a:>14.2f}{flag}")
        finally:
            for tree in trees.values():
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], capture_output=True)


if __name__ == "__main__":
    main()
