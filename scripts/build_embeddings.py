"""Build ``data/embeddings/minilm-int8.npz``: the MiniLM vectors of every text the course embeds.

Every notebook is executed (``pytest --nbmake``) with an empty embedding cache and without the
shipped file, so each vector is computed here, by the same code a learner's kernel runs; the cache
those runs leave (chunk texts with and without context, questions, sentences) becomes the shipped
file. ``chunklab.models.embed.MiniLMEmbedder`` reads it before embedding anything; it is never
required (``tests/test_embed.py`` checks that vectors are the same without it, and
``tests/test_shipped_embeddings.py`` re-embeds a random sample of it).

Run it after a change to the corpus, a chunker's defaults or a notebook's chunkings (a stale file
only costs time: texts it lacks are embedded at run time):
``.venv/bin/python scripts/build_embeddings.py [NN ...]`` (``NN``: notebooks by number prefix; default all).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from chunklab.phases import read_report

REPO = Path(__file__).resolve().parents[1]
TARGET = REPO / "data" / "embeddings" / "minilm-int8.npz"


def main(prefixes: tuple[str, ...]) -> None:
    notebooks = sorted(p for p in (REPO / "notebooks").glob("*.ipynb") if not prefixes or p.name.startswith(prefixes))
    # the scratch folder (cache and phase reports) is removed only when every notebook passed
    scratch = Path(tempfile.mkdtemp(prefix="chunklab-embeddings-"))
    cache = scratch / "cache"
    env = {**os.environ, "CHUNKLAB_CACHE": str(cache), "CHUNKLAB_SHIPPED_EMBEDDINGS": str(scratch / "none.npz"),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    for notebook in notebooks:
        phases = scratch / f"{notebook.stem}.phases"
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbmake", str(notebook)],
                       cwd=REPO, env={**env, "CHUNKLAB_PHASES": str(phases)}, check=True, stdout=subprocess.DEVNULL)
        spent = "  ".join(f"{name} {seconds:.1f} s" for name, seconds in sorted(read_report(phases).items()))
        print(f"{notebook.name:<28} {time.perf_counter() - started:6.1f} s  {spent}", flush=True)
    built = cache / "minilm-embeddings.npz"
    with np.load(built, allow_pickle=False) as stored:
        count = len(stored["keys"])
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(built, TARGET)
    shutil.rmtree(scratch)
    print(f"{TARGET.relative_to(REPO)}: {count} vectors, {TARGET.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main(tuple(sys.argv[1:]))
