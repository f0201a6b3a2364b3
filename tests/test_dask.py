"""Chunking on Dask: a two-process LocalCluster gives exactly the single-process (and command-line) records."""

from __future__ import annotations

import io
import pickle
import shutil

import distributed
import pandas as pd
import pytest

from chunklab import load_document
from chunklab.formats.readers import DocumentError
from chunklab.pipeline.cli import main
from chunklab.pipeline.dask import FRAME_COLUMNS, chunk_bag, chunk_dataframe, chunk_files, frame_records
from chunklab.pipeline.export import json_line
from chunklab.pipeline.files import chunk_document
from chunklab.strategies import FixedSizeChunker

NAMES = ["manual", "report", "stations", "support", "lab_notes"]
CHUNKER = FixedSizeChunker(chunk_size=500, chunk_overlap=50, snap_to_words=True)


@pytest.fixture(scope="module")
def client():
    """A local cluster of two worker processes (one thread each), as on a real cluster."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            yield client


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("dask-docs")
    for name in NAMES:
        shutil.copy(load_document(name).path, root)
    return root


def test_files_on_a_cluster_match_the_command_line(client, folder, tmp_path):
    bag = chunk_files([folder], CHUNKER, npartitions=3)
    assert bag.npartitions == 3
    on_cluster = bag.compute()
    assert len(client.scheduler_info()["workers"]) == 2
    single = bag.compute(scheduler="sync")
    assert on_cluster == single
    out = io.StringIO()
    status = main(["chunk", str(folder), "--strategy", "fixed", "--param", "chunk_size=500", "--param", "chunk_overlap=50",
                   "--param", "snap_to_words=true", "--jobs", "1", "--no-progress"], out=out)
    assert status == 0
    assert [json_line(r) for r in on_cluster] == out.getvalue().splitlines()


def test_bag_of_documents_and_dataframe_of_texts(client):
    import dask.bag as db
    import dask.dataframe as dd

    documents = [load_document(name) for name in NAMES]
    assert all(pickle.loads(pickle.dumps(doc)) == doc for doc in documents)
    expected = [r for doc in documents for r in chunk_document(CHUNKER, doc)]
    assert chunk_bag(db.from_sequence(documents, npartitions=2), CHUNKER).compute() == expected

    # A row holds only a text: no page spans, so the PDF is left out of the comparison.
    texts = [d for d in documents if d.kind != "pdf"]
    frame = dd.from_pandas(pd.DataFrame({"name": [d.name for d in texts], "text": [d.text for d in texts]}),
                           npartitions=2)
    chunked = chunk_dataframe(frame, CHUNKER)
    assert list(chunked.columns) == list(FRAME_COLUMNS)
    assert frame_records(chunked.compute()) == [r for r in expected if r["metadata"]["source"] != "report"]


def test_problems_are_raised_with_the_path(client, tmp_path):
    with pytest.raises(DocumentError, match="no such file or folder"):
        chunk_files([tmp_path / "missing"], CHUNKER)
    (tmp_path / "bad.txt").write_bytes(b"\xff\xfe broken")
    with pytest.raises(DocumentError, match=r"bad\.txt: not UTF-8"):
        chunk_files([tmp_path], CHUNKER).compute()
