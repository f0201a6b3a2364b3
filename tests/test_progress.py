"""A learner always knows what is happening: `compare` draws a progress bar with the work left and
an estimate, one step per chunking, context setting and retriever, and removes it when done; the
notebooks let it show (the site build drops it from saved pages: tests/test_site_build.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from chunklab import compare
from chunklab.formats.document import Document
from chunklab.strategies import FixedSizeChunker

REPO = Path(__file__).resolve().parents[1]
DOC = Document("tiny", "Tiny", "text", "Alpha beta gamma. Delta epsilon zeta. Eta theta iota. Kappa lambda mu.", Path("tiny.txt"))
QUESTIONS = [{"id": "q1", "doc": "tiny", "question": "What follows delta?", "kind": "fact", "split": "dev",
              "answers": [{"start": 18, "end": 37, "text": DOC.text[18:37]}]}]


def test_compare_draws_one_step_per_chunking_and_retriever_then_clears_it(capsys):
    chunkers = {"a": FixedSizeChunker(chunk_size=20), "b": FixedSizeChunker(chunk_size=30)}
    compare(chunkers, [DOC], QUESTIONS, retrievers=("bm25",), budget=[40], progress=True)
    frames = capsys.readouterr().err.split("\r")
    drawn = [f for f in frames if f.startswith("compare")]
    assert drawn, "no progress bar was drawn"
    assert all(re.search(r"\b\d/2 \[", f) for f in drawn), "one step per chunking and retriever: 2 in all"
    assert any(re.search(r"<\d\d:\d\d", f) for f in drawn), "the bar shows an estimate of the time left"
    assert any("b: bm25" in f for f in drawn), "the bar names the chunking and retriever at work"
    assert frames[-1].strip() == "", "the bar is removed when the comparison is done"


def test_compare_draws_nothing_when_asked_not_to(capsys):
    compare({"a": FixedSizeChunker(chunk_size=20)}, [DOC], QUESTIONS, retrievers=("bm25",), budget=[40], progress=False)
    assert "compare" not in capsys.readouterr().err
def test_no_notebook_hides_the_progress_bar_of_a_measurement():
    """Every measurement cell of the course may run long on a cold cache: none turns the bar off."""
    hidden = []
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "code" and "progress=False" in source:
                hidden.append(f"{path.name}: {source.splitlines()[0][:60]}")
    assert not hidden, hidden


def test_every_notebook_says_how_long_it_takes_cold_and_warm():
    """The first markdown cell says how long the notebook takes on two cores from a fresh clone and
    when run again (measured by `make bench-course`, benchmarks/bench_course.py)."""
    said = re.compile(r"\*Running time on two cores: about \d+ s from a fresh clone .*, about \d+ s when run again\.\*")
    missing = []
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        first = next(c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown")
        if not said.search("".join(first["source"])):
            missing.append(path.name)
    assert not missing, missing
