"""Stored measurements (`chunklab.evaluation.remembered`): read back only for the very same call,
never for an argument the key cannot describe, never when not asked for."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from chunklab import Chunker, load_document
from chunklab.evaluation import comparison, remembered
from chunklab.evaluation.comparison import compare
from chunklab.evaluation.remembered import persist_measurements
from chunklab.strategies import FixedSizeChunker, SentenceChunker


@pytest.fixture
def folder(tmp_path):
    """A measurement folder for one test, switched off afterwards."""
    persist_measurements(tmp_path / "measurements")
    yield tmp_path / "measurements"
    persist_measurements(None)


calls: list[tuple] = []


@remembered.remembered
def measure(chunker, text, progress=True):
    """A stand-in measurement that records each time it really runs."""
    calls.append((chunker, text))
    return [c.text for c in chunker(text)]


@pytest.fixture(autouse=True)
def no_calls():
    calls.clear()


class OwnChunker(Chunker):
    """A learner's chunker, defined outside chunklab: its code may change between runs."""

    name = ""

    def __init__(self, *, chunk_size: int = 50) -> None:
        self.chunk_size = chunk_size

    def spans(self, text):
        return [(i, min(i + self.chunk_size, len(text))) for i in range(0, len(text), self.chunk_size)]


TEXT = "One sentence here. Another one there. " * 20


def test_nothing_is_stored_unless_asked(tmp_path):
    persist_measurements(None)
    measure(FixedSizeChunker(chunk_size=100), TEXT)
    measure(FixedSizeChunker(chunk_size=100), TEXT)
    assert len(calls) == 2
    assert not any(tmp_path.iterdir())


def test_the_same_call_is_read_back_and_any_change_measures_again(folder):
    first = measure(FixedSizeChunker(chunk_size=100), TEXT)
    again = measure(FixedSizeChunker(chunk_size=100), TEXT, progress=False)  # shown only: the same key
    assert again == first and len(calls) == 1
    measure(FixedSizeChunker(chunk_size=101), TEXT)  # a parameter
    measure(SentenceChunker(chunk_size=100), TEXT)  # a class
    measure(FixedSizeChunker(chunk_size=100), TEXT + ".")  # the text
    assert len(calls) == 4
    assert len(list(folder.glob("measure-*.pickle.z"))) == 4


def test_a_chunker_defined_outside_chunklab_is_always_measured(folder):
    measure(OwnChunker(), TEXT)
    measure(OwnChunker(), TEXT)
    assert len(calls) == 2
    assert not folder.exists() or not any(folder.iterdir())


def test_a_function_defined_outside_chunklab_is_not_described():
    with pytest.raises(remembered._Unknown):
        remembered._key(measure, {"where": lambda q, chunks: None})
    assert remembered._key(measure, {"where": comparison.indexed_text})  # chunklab's own: described


def test_a_document_is_described_by_what_it_holds_not_where_it_lies(tmp_path):
    manual = load_document("manual")
    moved = dataclasses.replace(manual, path=tmp_path / "elsewhere.md")
    assert remembered._key(measure, {"docs": [manual]}) == remembered._key(measure, {"docs": [moved]})
    edited = dataclasses.replace(manual, text=manual.text + " ")
    assert remembered._key(measure, {"docs": [manual]}) != remembered._key(measure, {"docs": [edited]})


def test_a_damaged_file_is_measured_again_with_a_warning(folder):
    measure(FixedSizeChunker(chunk_size=100), TEXT)
    (stored,) = folder.glob("measure-*.pickle.z")
    stored.write_bytes(stored.read_bytes()[:20])
    with pytest.warns(UserWarning, match="measuring again"):
        measure(FixedSizeChunker(chunk_size=100), TEXT)
    assert len(calls) == 2
    measure(FixedSizeChunker(chunk_size=100), TEXT)  # rewritten: read back now
    assert len(calls) == 2


def test_the_folder_keeps_the_most_recently_used(folder, monkeypatch):
    monkeypatch.setattr(remembered, "KEEP", 3)
    for size in range(100, 105):
        measure(FixedSizeChunker(chunk_size=size), TEXT)
    assert len(list(folder.glob("*.pickle.z"))) == 3


def test_compare_run_again_reads_its_measurement_back(folder, monkeypatch):
    docs = [load_document("lab_notes")]
    chunkers = {"fixed": FixedSizeChunker(chunk_size=300), "sentence": SentenceChunker(chunk_size=300)}
    first = compare(chunkers, docs, retrievers=("bm25",), budget=[500, 1000], split="dev", progress=False)
    monkeypatch.setattr(comparison._Measurement, "measure", lambda *a, **k: pytest.fail("measured again"))
    again = compare(chunkers, docs, retrievers=("bm25",), budget=[500, 1000], split="dev", progress=True)
    pd.testing.assert_frame_equal(again.rows, first.rows)
    pd.testing.assert_frame_equal(again.chunkings, first.chunkings)
    assert {k: [(c.start, c.end) for c in v] for k, v in again.chunks.items()} == \
        {k: [(c.start, c.end) for c in v] for k, v in first.chunks.items()}


class FakeDistribution:
    """What `_dependencies` reads of an installed distribution."""

    def __init__(self, name, version, requires=()):
        self.metadata, self.version, self.requires = {"Name": name}, version, list(requires)


def test_the_key_records_what_chunklab_may_run_and_nothing_else(monkeypatch):
    world = [
        FakeDistribution("chunklab-course", "0.1", ["numpy>=1", 'bm25s; extra == "eval"', 'jsonschema[format]; extra == "store"']),
        FakeDistribution("NumPy", "2.4"), FakeDistribution("bm25s", "0.3", ["scipy"]), FakeDistribution("scipy", "1.1"),
        FakeDistribution("jsonschema", "4.2", ['rfc3987-syntax; extra == "format"', 'sphinx; extra == "docs"']),
        FakeDistribution("rfc3987_syntax", "1.1"), FakeDistribution("Sphinx", "8.0"), FakeDistribution("pytest", "9"),
    ]
    monkeypatch.setattr(remembered.importlib.metadata, "distributions", lambda: world)
    assert remembered._dependencies() == [
        "bm25s==0.3", "chunklab-course==0.1", "jsonschema==4.2", "numpy==2.4", "rfc3987-syntax==1.1", "scipy==1.1"]
    world.pop(0)  # chunklab not installed as a distribution: everything counts
    assert "sphinx==8.0" in remembered._dependencies() and "pytest==9" in remembered._dependencies()


def test_a_failed_atomic_write_leaves_the_file_and_no_temporary(tmp_path):
    from chunklab.models.resources import replace_atomically

    target = tmp_path / "kept.pickle.z"
    target.write_bytes(b"before")
    with pytest.raises(RuntimeError), replace_atomically(target) as out:
        out.write(b"half")
        raise RuntimeError("interrupted")
    assert target.read_bytes() == b"before" and [p.name for p in tmp_path.iterdir()] == ["kept.pickle.z"]
