"""No chunk changes on the corpus: every registered chunker, with its defaults, gives the spans and
metadata recorded in ``tests/fixtures/corpus_spans.json`` on every corpus document.

A refactoring must keep this test green. A change meant to move chunks regenerates the fixture
(``python scripts/record_corpus_spans.py``, about 30 s with the models cached) and says so in its
commit message. Model-based chunkers (semantic, topic, entity, hybrid ...) are included: their
models load offline.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from chunklab import CHUNKERS, list_documents

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("record_corpus_spans", ROOT / "scripts" / "record_corpus_spans.py")
record_corpus_spans = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record_corpus_spans)
RECORDED = json.loads(record_corpus_spans.FIXTURE.read_text(encoding="utf-8"))


def test_the_fixture_covers_every_chunker_and_document() -> None:
    assert sorted(RECORDED) == sorted(CHUNKERS), "a chunker was added or removed: regenerate the fixture"
    for name, documents in RECORDED.items():
        assert sorted(documents) == sorted(list_documents()), name


@pytest.mark.parametrize("name", sorted(CHUNKERS))
def test_chunks_on_the_corpus_are_unchanged(name: str) -> None:
    for document in list_documents():
        assert record_corpus_spans.fingerprints(name, document) == RECORDED[name][document], (
            f"{name} on {document}: chunks changed (spans or metadata); if that is intended, run "
            "`python scripts/record_corpus_spans.py` and say so in the commit"
        )
