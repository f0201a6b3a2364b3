"""Notebook 17 (from notebook to pipeline): a `chunklab chunk` command, the metadata filter that finds
the chunks touching a page, and why a Dask cluster is slower than one process on four small files.

The checks run the command line in a separate process, as a terminal would: the exercises do not
import `chunklab.pipeline` (the two packages are independent layers).
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..formats.corpus import load_document
from ..strategies import FixedSizeChunker
from . import ExerciseFailed, exercise, pick

#: The windows exercise 1 asks for: 120 words, 20 of them repeated.
_WORDS = {"unit": "words", "chunk_size": 120, "chunk_overlap": 20}


def _run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "chunklab", *args], capture_output=True, text=True)


def solution_command(folder, out):
    return ["chunk", str(folder), "--strategy", "fixed", "--param", "unit=words", "--param", "chunk_size=120",
            "--param", "chunk_overlap=20", "--out", str(out)]


@exercise("17.1", "a command", "implement", solution=solution_command, wrong=(
    lambda: lambda folder, out: ["chunk", str(folder), "--strategy", "fixed", "--param", "chunk_size=120",
                                 "--param", "chunk_overlap=20", "--out", str(out)],
    lambda: lambda folder, out: ["chunk", str(folder), "--strategy", "fixed", "--param", "unit=words",
                                 "--param", "chunk_size=120", "--out", str(out)],
    lambda: lambda folder, out: ["chunk", str(folder), "--strategy", "fixed", "--param", "unit=words",
                                 "--param", "chunk_size=120", "--param", "chunk_overlap=20"],
))
def check_command(command) -> str:
    """`command(folder, out)` must be the arguments of ``chunklab chunk`` (without ``chunklab``) that write
    windows of 120 words overlapping by 20 words for every file in `folder` to `out`: a list of
    strings, or one string that a shell would split into them."""
    with tempfile.TemporaryDirectory(prefix="chunklab-exercise-") as tmp:
        folder, out = Path(tmp) / "docs", Path(tmp) / "words.jsonl"
        folder.mkdir()
        doc = load_document("lab_notes")
        shutil.copy(doc.path, folder / "lab_notes.md")
        given = command(folder, out)
        # A command written as one line, as in a terminal, is split as a shell would split it.
        args = shlex.split(given) if isinstance(given, str) else [str(a) for a in given]
        if args[:1] == ["chunklab"]:
            raise ExerciseFailed("leave out the leading 'chunklab': the list starts with the subcommand, 'chunk'")
        done = _run([*args, "--no-progress"])
        if done.returncode != 0:
            raise ExerciseFailed(f"the command exits with status {done.returncode}: {done.stderr.strip()[-300:]}")
        if not out.exists():
            raise ExerciseFailed("the command ran but wrote no file at `out`: the records went to standard output. "
                                 "Hint: which option names the output file?")
        records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        expected = FixedSizeChunker(**_WORDS)(doc.text)
        got = [(r["start"], r["end"]) for r in records]
        if got != [(c.start, c.end) for c in expected]:
            words = [len(r["text"].split()) for r in records[:3]]
            raise ExerciseFailed(
                f"the command writes {len(records)} chunks, the first of {words} words; windows of 120 words "
                f"overlapping by 20 give {len(expected)}. Hint: `chunklab strategies` lists the fixed strategy's "
                "parameters: which one switches the count from characters to words, and is the overlap set?")
    return f"{len(records)} windows of 120 words on the lab notes, each starting 100 words after the previous one."


#: Exercise 2's filters for "the chunks that touch page 4" of the report.
FILTER_CHOICES = {
    "A": "page=4",
    "B": "pages=4",
    "C": "page>=4",
    "D": "page<=4",
}
_FILTER_HINTS = {
    "A": "`page` is the page a chunk starts on: a chunk that starts at the bottom of page 3 and runs onto page 4 "
         "touches page 4, and this filter drops it.",
    "C": "this keeps every chunk starting on page 4 or later, most of which never touch page 4.",
    "D": "this keeps every chunk starting on pages 1 to 4, most of which never touch page 4.",
}


def solution_filter_choice() -> str:
    return "B"


@exercise("17.2", "a filter", "predict", solution=solution_filter_choice,
          wrong=(lambda: "A", lambda: "C", lambda: "D"))
def check_filter_choice(choice) -> str:
    """One letter of `FILTER_CHOICES`."""
    pick(choice, FILTER_CHOICES, _FILTER_HINTS, solution_filter_choice())
    return ("`pages` is a list, and KEY=VALUE on a list field means 'the list contains the value': every chunk "
            "with a character on page 4 is kept.")


#: Exercise 3's explanations of why a run on the cluster took longer than the same chunking in this process.
DASK_CHOICES = {
    "A": "The work is small, and every task on a cluster pays a cost one process never does: it is scheduled, "
         "pickled and reported back.",
    "B": "The two workers are threads, and Python runs Python code in one thread at a time, so the cluster "
         "chunks at half speed.",
    "C": "Dask chunks every document twice, once on each worker, and keeps only the first result it receives, "
         "which doubles the work.",
    "D": "The cluster chunks with a different, slower chunker than the one in this process, rebuilt on each "
         "worker from its defaults.",
}
_DASK_HINTS = {
    "B": "one thread at a time takes away the second worker's help, not the first worker's speed: the cluster "
         "would then chunk in about the time this process takes, not longer. And the same tasks doing no work "
         "at all are slower on the cluster too.",
    "C": "each partition goes to one worker; the cluster's records are the in-process ones, each exactly once.",
    "D": "the chunker is pickled and sent to the workers: the same object with the same parameters, and the "
         "records are identical.",
}


def solution_dask_choice() -> str:
    return "A"


@exercise("17.3", "why is the cluster slower?", "explain", solution=solution_dask_choice,
          wrong=(lambda: "B", lambda: "C", lambda: "D"))
def check_dask_choice(choice) -> str:
    """One letter of `DASK_CHOICES`."""
    pick(choice, DASK_CHOICES, _DASK_HINTS, solution_dask_choice())
    return ("start-up is paid once per cluster and the rest once per task, whatever the task holds: Dask pays off "
            "when each task holds seconds of work or more, not on four small files.")
