"""The annotation helper: an excerpt located exactly, one that occurs twice or not at all flagged (a
near match offered, never taken), question records in the course's format, saved and read back by
the loader ``chunklab evaluate --questions`` uses, and measured with `compare`."""

from __future__ import annotations

import json

import pytest

from chunklab import CHUNKERS, compare, load_document, load_questions
from chunklab.evaluation.annotate import (
    AmbiguousExcerpt,
    ExcerptNotFound,
    check_excerpt,
    locate,
    make_question,
    save_questions,
)
from chunklab.formats.readers import DocumentError, read_document, read_questions
from chunklab.integrations.references import LANGCHAIN_DEFAULT, reference_chunkers
from chunklab.pipeline.cli import main

GUIDE = (
    "# Install\n\n## Linux\n\nRun the installer. It needs root.\n\n## Mac\n\nRun the installer. "
    "It asks for your password.\n\nThe cache lives in\n/var/cache/tide and holds 4 GB.\n"
)


@pytest.fixture
def guide(tmp_path):
    path = tmp_path / "guide.md"
    path.write_text(GUIDE, encoding="utf-8")
    return read_document(path)


def test_an_excerpt_that_occurs_once_is_located_exactly():
    manual = load_document("manual")
    answer = locate(manual.text, "formatted with XFS or ext4")
    assert manual.text[answer["start"] : answer["end"]] == answer["text"] == "formatted with XFS or ext4"
    assert check_excerpt(manual.text, "formatted with XFS or ext4").span == (answer["start"], answer["end"])


def test_the_corpus_answers_that_occur_once_are_located_where_the_question_set_has_them():
    located = ambiguous = 0
    for question in load_questions(split="all"):
        text = load_document(question["doc"]).text
        for answer in question["answers"]:
            check = check_excerpt(text, answer["text"])
            if check.status == "found":
                assert check.span == (answer["start"], answer["end"]), question["id"]
                located += 1
            else:
                assert check.status == "ambiguous" and (answer["start"], answer["end"]) in check.occurrences
                ambiguous += 1
    assert located > ambiguous, (located, ambiguous)


def test_an_excerpt_that_occurs_twice_is_flagged_and_chosen_by_context_or_number():
    check = check_excerpt(GUIDE, "Run the installer.")
    assert check.status == "ambiguous" and len(check.occurrences) == 2
    assert "occurrence=1" in check.describe(GUIDE) and "## Mac" in check.describe(GUIDE)
    with pytest.raises(AmbiguousExcerpt, match="occurs 2 times") as raised:
        locate(GUIDE, "Run the installer.")
    assert raised.value.occurrences == check.occurrences
    mac = GUIDE.index("## Mac")
    assert locate(GUIDE, "Run the installer.", after="## Mac")["start"] > mac
    assert locate(GUIDE, "Run the installer.", occurrence=0)["start"] < mac
    with pytest.raises(ValueError, match="occurs 2 times; it must occur exactly once"):
        locate(GUIDE, "Run the installer.", after="## ")
    with pytest.raises(ValueError, match=r"occurrence must be in \[0, 1\]"):
        locate(GUIDE, "Run the installer.", occurrence=2)
    with pytest.raises(ExcerptNotFound, match="does not occur after"):
        locate(GUIDE, "It needs root.", after="## Mac")


def test_an_excerpt_that_does_not_occur_is_flagged():
    check = check_excerpt(GUIDE, "Install the zebra firmware")
    assert check.status == "missing" and check.nearest is None
    with pytest.raises(ExcerptNotFound, match="does not occur in the document"):
        locate(GUIDE, "Install the zebra firmware")
    with pytest.raises(ValueError, match="empty"):
        check_excerpt(GUIDE, " \n")


def test_a_near_miss_is_offered_and_never_taken():
    pasted = "The cache lives in /var/cache/tide and holds 4 GB."  # the line break rewrapped
    with pytest.raises(ExcerptNotFound) as raised:
        locate(GUIDE, pasted)
    near = raised.value.nearest
    assert near.why == "whitespace" and near.text == "The cache lives in\n/var/cache/tide and holds 4 GB."
    assert GUIDE[near.start : near.end] == near.text and repr(near.text) in str(raised.value)
    assert locate(GUIDE, near.text)["start"] == near.start, "the offered text, passed back, is exact"
    assert check_excerpt(GUIDE, "it ASKS for your password.").nearest.why == "letter case"
    manual = load_document("manual").text
    typed = "a dedicated NVMe devise for the disk tier, formated with XFS or ext4"
    near = check_excerpt(manual, typed).nearest
    assert near.why.startswith("similar words") and "formatted with XFS or ext4" in near.text


def test_question_records_have_the_course_format(guide):
    record = make_question(guide, " How much does the cache hold? ", "holds 4 GB")
    assert list(record) == ["doc", "question", "kind", "answers"] and record["kind"] == "fact"
    assert record["question"] == "How much does the cache hold?" and record["doc"] == "guide.md"
    mac = locate(guide.text, "Run the installer.", after="## Mac")
    both = make_question(guide, "What do Mac users run, and what does it ask?", [mac, "It asks for your password."],
                         id="mac")
    assert list(both) == ["id", "doc", "question", "kind", "answers"] and both["kind"] == "multi_excerpt"
    assert list(both["answers"][1]) == ["start", "end", "text"]
    sample = json.loads((load_document("manual").path.parents[1] / "questions_dev.jsonl").read_text().splitlines()[0])
    assert set(sample) == set(both) and set(sample["answers"][0]) == set(both["answers"][0])
    with pytest.raises(AmbiguousExcerpt):
        make_question(guide, "What do I run?", "Run the installer.")
    with pytest.raises(ValueError, match="kind must be one of"):
        make_question(guide, "How much?", "holds 4 GB", kind="trivia")
    with pytest.raises(ValueError, match="not an exact span"):
        make_question(guide, "How much?", {"start": 0, "end": 4, "text": "holds"})


def test_saved_questions_read_back_through_the_evaluate_loader_and_measure(guide, tmp_path, capsys):
    path = tmp_path / "mine" / "questions.jsonl"
    first = [make_question(guide, "How much does the cache hold?", "holds 4 GB"),
             make_question(guide, "Where is the cache?", "/var/cache/tide")]
    saved = save_questions(path, first, guide)
    assert [q["id"] for q in saved] == ["guide-001", "guide-002"]
    more = make_question(guide, "What does the Mac installer ask for?", "It asks for your password.")
    saved = save_questions(path, [more], [guide])
    assert [q["id"] for q in saved] == ["guide-001", "guide-002", "guide-003"]
    assert saved == read_questions(path, [guide]) and saved[2]["answers"] == more["answers"]
    before = path.read_text(encoding="utf-8")
    with pytest.raises(DocumentError, match=r"questions\.jsonl:4: id 'guide-001' is already used"):
        save_questions(path, [{**more, "id": "guide-001"}], guide)
    with pytest.raises(DocumentError, match="not one of the documents"):
        save_questions(path, [{**more, "doc": "other.md"}], guide)
    assert path.read_text(encoding="utf-8") == before, "a file that would not read back is left as it was"
    assert not [p.name for p in path.parent.iterdir() if p.name != path.name], "no draft left behind"

    status = main(["evaluate", str(guide.path), "--questions", str(path), "--strategy", "recursive",
                   "--retriever", "bm25", "--budget", "100", "--no-progress"])
    assert status == 0 and "1 document, 3 questions; every chunking sends the same characters per question: 100" in \
        capsys.readouterr().out
    chunkers = {"recursive 60": CHUNKERS["recursive"](chunk_size=60),
                LANGCHAIN_DEFAULT: reference_chunkers()[LANGCHAIN_DEFAULT]}
    result = compare(chunkers, [guide], saved, retrievers=("bm25",), budget=[50, 200], progress=False)
    assert len(result.rows) == 3 * 2 * 2 and set(result.rows["question"]) == {q["id"] for q in saved}
