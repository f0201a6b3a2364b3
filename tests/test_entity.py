"""EntityChunker, the entity boundary helpers and the entity filter: mentions found with exact
offsets, boundaries never inside a mention, grouping by shared entities, filtered retrieval."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from chunklab import Chunk, load_document
from chunklab.core import ParameterError
from chunklab.strategies import EntityChunker, FixedSizeChunker
from chunklab.strategies.entity import (
    _mentions,
    entity_filter,
    entity_key,
    entity_mentions,
    join_across_entities,
    move_out_of_entities,
    persist_mentions,
)
from chunklab.text.length import count_tokens

STORY = (
    "Marie Curie moved to Paris in 1891. Marie Curie studied physics at the Sorbonne.\n\n"
    "Ada Lovelace wrote the first published program. She worked closely with Charles Babbage in London."
)


@pytest.fixture(scope="module")
def article() -> str:
    return load_document("article").text


def test_mentions_have_exact_trimmed_spans_and_are_cached(article):
    _mentions.cache_clear()
    found = entity_mentions(article)
    assert len(found) > 100
    for m in found:
        assert article[m.start : m.end] == m.text == m.text.strip()
    assert all(a.end <= b.start for a, b in zip(found, found[1:]))
    people = entity_mentions(article, labels=("PERSON",))
    assert people and {m.label for m in people} == {"PERSON"}
    assert _mentions.cache_info().misses == 1, "a second label set must not run the model again"
    assert entity_mentions("") == [] and entity_mentions("x", labels=()) == []
    with pytest.raises(TypeError):
        entity_mentions(b"bytes")


def test_questions_read_by_a_filter_do_not_evict_a_document(article):
    entity_mentions(article)
    misses = _mentions.cache_info().misses
    for i in range(400):  # a question set's worth of short texts (lower case: no model run)
        entity_mentions(f"which sensor failed in week {i}?")
    entity_mentions(article)
    assert _mentions.cache_info().misses == misses + 400, "the document's mentions are still cached"


def test_persisted_mentions_serve_a_new_run_without_the_model(tmp_path, monkeypatch):
    import chunklab.models.resources as resources
    from chunklab.strategies import entity

    path = tmp_path / "mentions.json"
    monkeypatch.setattr(entity, "_FILE", entity._MentionFile())
    persist_mentions(path)
    _mentions.cache_clear()
    found = entity_mentions(STORY)
    assert [m.text for m in found][:2] == ["Marie Curie", "Paris"]
    entity._FILE.flush()
    assert path.is_file() and "Marie" not in path.read_text(), "texts are keyed by a hash, not stored"

    # A new run: empty in-memory caches, the file opened again, and no spaCy at all.
    monkeypatch.setattr(entity, "_FILE", entity._MentionFile())
    persist_mentions(path)
    _mentions.cache_clear()
    monkeypatch.setattr(resources, "spacy_ner", lambda: pytest.fail("the model ran for a stored text"))
    assert entity_mentions(STORY) == found

    # Mentions stored by another pipeline release are ignored.
    monkeypatch.setattr(resources, "spacy_ner_release", lambda: "another pipeline 9.9")
    monkeypatch.setattr(entity, "_FILE", entity._MentionFile())
    persist_mentions(path)
    assert entity._FILE.found == {}
    _mentions.cache_clear()


def test_boundary_helpers():
    mentions = [(10, 20), (30, 45)]
    assert move_out_of_entities([5, 10, 15, 20, 40, 50], mentions) == [5, 10, 10, 20, 30, 50]
    assert move_out_of_entities([15, 40], mentions, side="end") == [20, 45]
    assert move_out_of_entities([3], []) == [3]
    units = [(0, 12), (13, 25), (26, 33), (34, 50)]
    # (10, 20) spans units 0-1; (30, 45) spans units 2-3: both cuts inside them go
    assert join_across_entities(units, mentions) == [(0, 25), (26, 50)]
    assert join_across_entities(units, [(13, 25)]) == units, "a mention that fills one unit joins nothing"
    assert join_across_entities([], mentions) == []


def test_entity_keys_match_across_forms():
    assert entity_key("the Tessel's") == entity_key("Tessel") == "tessel"
    assert entity_key("Ruth  Abernathy’s") == "ruth abernathy"


def test_sentences_sharing_an_entity_stay_together_and_new_entities_start_a_chunk():
    chunks = EntityChunker(min_chunk_size=0, chunk_size=500)(STORY)
    texts = [c.text for c in chunks]
    assert texts[0] == "Marie Curie moved to Paris in 1891. Marie Curie studied physics at the Sorbonne."
    assert any(t.startswith("Ada Lovelace") for t in texts)
    first = {e["text"]: e for e in chunks[0].metadata["entities"]}
    assert first["Marie Curie"]["count"] == 2 and first["Marie Curie"]["label"] == "PERSON"
    # The known failure: a pronoun sentence that also names someone new starts a new chunk, and
    # "She" loses Ada Lovelace; a minimum size keeps it with its subject.
    assert texts[-1].startswith("She worked")
    ada = STORY[STORY.index("Ada") :]
    assert len(EntityChunker(min_chunk_size=0)(ada)) == 2
    assert [c.text for c in EntityChunker(min_chunk_size=60)(ada)] == [ada]


def test_an_entity_free_sentence_follows_its_subject():
    text = "Walter Szymanski woke at midnight. He called the fire station at once. Nobody answered."
    assert [c.text for c in EntityChunker(min_chunk_size=0)(text)] == [text]


@pytest.mark.parametrize("max_size", [60, 150, 400])
def test_no_boundary_inside_a_mention(article, max_size):
    mentions = entity_mentions(article)
    for group_by in ("entities", "paragraphs"):
        chunks = EntityChunker(chunk_size=max_size, min_chunk_size=0, group_by=group_by)(article)
        cuts = {b for c in chunks for b in (c.start, c.end)}
        for m in mentions:
            if m.end - m.start <= max_size:
                assert not any(m.start < b < m.end for b in cuts), (group_by, m)
        assert all(len(c) <= max_size for c in chunks)


def test_paragraph_contrast_keeps_headings_with_their_block():
    text = "# Install\n\nRun the Tidewell installer on Linux.\n\n## Configure\n\nEdit the file in Oslo.\n"
    chunks = EntityChunker(group_by="paragraphs")(text)
    assert [c.text for c in chunks] == [
        "# Install\n\nRun the Tidewell installer on Linux.",
        "## Configure\n\nEdit the file in Oslo.",
    ]


def test_size_in_tokens():
    chunker = EntityChunker(chunk_size=60, min_chunk_size=0, unit="tokens", tokenizer="cl100k")
    chunks = chunker(load_document("agreement").text[:6000])
    assert chunks and all(count_tokens(c.text, "cl100k") <= 60 for c in chunks)


def test_parameters_and_pickling():
    with pytest.raises(ParameterError, match="labels"):
        EntityChunker(labels=("PERSON", "WIZARD"))
    with pytest.raises(ParameterError, match="min_chunk_size"):
        EntityChunker(chunk_size=300, min_chunk_size=300)
    chunker = EntityChunker(chunk_size=700, labels=("PERSON", "ORG"))
    assert pickle.loads(pickle.dumps(chunker)) == chunker


def test_entity_filter_keeps_chunks_that_name_the_question_entity():
    chunks = EntityChunker(min_chunk_size=0, chunk_size=500)(STORY, source="story")
    mask = entity_filter({"question": "Where did Marie Curie study?"}, chunks)
    assert mask is not None and mask.tolist() == ["Curie" in c.text for c in chunks]
    assert entity_filter("what is a program?", chunks) is None, "no entity: no restriction"
    assert entity_filter("Who founded Microsoft?", chunks) is None, "nothing matches: no restriction"
    plain = FixedSizeChunker(chunk_size=90, snap_to_words=True)(STORY)  # no entities metadata: found in the text
    # "Lovelace" (question) matches "Ada Lovelace" (chunk) by its words
    mask = entity_filter("Where did Lovelace publish?", plain)
    assert mask is not None and np.array_equal(mask, ["Lovelace" in c.text for c in plain])
    assert entity_filter("Where did Lovelace publish?", [Chunk("x", 0, 1, 0, {"entities": []})]) is None


def test_aliases_widen_the_filter():
    text = 'MARROW BAY FREIGHT INC. (the "Customer") hires the Supplier.\n\nThe Customer pays each month.'
    chunks = EntityChunker(group_by="paragraphs")(text)
    question = "When does Marrow Bay pay?"
    plain = entity_filter(question, chunks)
    widened = entity_filter(question, chunks, aliases={"Marrow Bay Freight Inc.": ["Customer"]})
    assert plain is not None and plain.tolist() == [True, False]
    assert widened.tolist() == [True, True]
