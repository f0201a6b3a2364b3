"""The annotation helper: an excerpt located exactly, one that occurs twice or not at all flagged (a
near match offered, never taken), question records in the course's format, saved and read back by
the loader ``chunklab evaluate --questions`` uses, and measured with `compare`."""

from __future__ import annotations

import json

import pytest

from chunklab import CHUNKERS, compare, load_document, load_questions
from chunklab.evaluation.annotate import (
    AmbiguousExcerpt,
    AnnotationNote,
    ExcerptNotFound,
    check_excerpt,
    differences,
    either,
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


def read_guide(folder=None):
    import pathlib
    import tempfile

    path = pathlib.Path(folder or tempfile.mkdtemp()) / "guide.md"
    path.write_text(GUIDE, encoding="utf-8")
    return read_document(path)


@pytest.fixture
def guide(tmp_path):
    return read_guide(tmp_path)


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


def test_an_excerpt_with_other_whitespace_is_found_as_the_document_has_it():
    exact = "The cache lives in\n/var/cache/tide and holds 4 GB."
    for pasted in ("The cache lives in /var/cache/tide and holds 4 GB.",  # the line break rewrapped
                   "The cache lives in /var/cache/tide and holds 4 GB.\n\n",  # and trailing newlines
                   " The  cache lives in\n\n/var/cache/tide and\tholds 4 GB. "):
        check = check_excerpt(GUIDE, pasted)
        assert check.status == "found" and check.whitespace and GUIDE[slice(*check.span)] == exact
        assert "with other whitespace than yours" in check.describe(GUIDE) and repr(exact) in check.describe(GUIDE)
        with pytest.warns(AnnotationNote, match="found with other whitespace than yours"):
            answer = locate(GUIDE, pasted)
        assert answer == {"start": GUIDE.index(exact), "end": GUIDE.index(exact) + len(exact), "text": exact}
        with pytest.warns(AnnotationNote):
            assert make_question(read_guide(), "Where is the cache?", pasted)["answers"] == [answer]
    exact_check = check_excerpt(GUIDE, exact)
    assert exact_check.status == "found" and not exact_check.whitespace
    assert "other whitespace" not in exact_check.describe(GUIDE)
    # other whitespace that still occurs twice is ambiguous, and settled like any other
    spaced = check_excerpt(GUIDE, "Run  the\ninstaller.")
    assert spaced.status == "ambiguous" and spaced.whitespace and len(spaced.occurrences) == 2
    with pytest.warns(AnnotationNote):
        assert locate(GUIDE, "Run  the\ninstaller.", occurrence=1)["text"] == "Run the installer."
    assert check_excerpt(GUIDE, "Thecache lives").status == "missing", "whitespace is not invented between words"


def test_a_near_miss_is_offered_never_taken_and_says_where_it_differs():
    text = "Backups.\n\nKeep seven copies. Rotate them weekly.\n"
    check = check_excerpt(text, "Keep eight copies.")
    near = check.nearest
    assert check.status == "missing" and near.text == "Keep seven copies." and near.why.startswith("similar words")
    assert near.differences == (f"yours has 'eight' where the document has 'seven' (at {text.index('seven')})",)
    described = check.describe(text)
    assert "is different text: yours has 'eight' where the document has 'seven'" in described
    assert "'Keep seven copies.'" in described and "never taken" in described
    with pytest.raises(ExcerptNotFound, match="where the document has 'seven'") as raised:
        locate(text, "Keep eight copies.")
    assert raised.value.nearest == near
    assert locate(text, near.text)["start"] == near.start, "the offered text, passed back, is exact"
    case = check_excerpt(GUIDE, "it ASKS for your password.").nearest
    assert case.why == "letter case" and case.differences[0].startswith("yours has 'it ASKS' where the document has "
                                                                       "'It asks'")
    assert differences("Keep copies.", "Keep all copies.", 100) == (
        "the document has 'all' where yours has nothing (at 105)",)
    assert differences("Keep all copies.", "Keep copies.") == ("yours has 'all' where the document has nothing (at 5)",)
    manual = load_document("manual").text
    typed = "a dedicated NVMe devise for the disk tier, formated with XFS or ext4"
    near = check_excerpt(manual, typed).nearest
    assert near.why.startswith("similar words") and "formatted with XFS or ext4" in near.text
    assert "yours has 'devise' where the document has 'device'" in near.differences[0]


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
    with pytest.raises(AmbiguousExcerpt, match="occurrence=N or with after="):
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
    other = make_question(guide, "What does Linux need?", "It needs root.")
    with pytest.raises(DocumentError, match=r"questions\.jsonl:4: id 'guide-001' is already used"):
        save_questions(path, [{**other, "id": "guide-001"}], guide)
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


def test_make_question_takes_occurrence_and_after_as_the_ambiguity_message_says(guide):
    with pytest.raises(AmbiguousExcerpt) as raised:
        make_question(guide, "What do Mac users run?", "Run the installer.")
    assert "occurrence=N" in str(raised.value) and "after=" in str(raised.value)
    mac = GUIDE.index("## Mac")
    by_context = make_question(guide, "What do Mac users run?", "Run the installer.", after="## Mac")
    by_number = make_question(guide, "What do Mac users run?", "Run the installer.", occurrence=1)
    assert by_context == by_number and by_context["answers"][0]["start"] > mac
    assert make_question(guide, "What do Linux users run?", "Run the installer.", occurrence=0)["answers"][0][
        "start"] < mac
    with pytest.raises(ValueError, match=r"occurrence must be in \[0, 1\]"):
        make_question(guide, "What?", "Run the installer.", occurrence=2)
    # with several answers, the ambiguous one is located on its own, and the message says how
    with pytest.raises(ValueError, match="choose among the occurrences of one excerpt"):
        make_question(guide, "What?", ["Run the installer.", "holds 4 GB"], occurrence=1)
    with pytest.raises(AmbiguousExcerpt, match=r"pass locate\(document.text, excerpt, occurrence=N\)"):
        make_question(guide, "What?", ["Run the installer.", "holds 4 GB"])
    both = make_question(guide, "What?", [locate(guide.text, "Run the installer.", occurrence=1), "holds 4 GB"])
    assert both["answers"][0] == by_context["answers"][0]


def test_saving_again_never_duplicates_a_question(guide, tmp_path):
    path = tmp_path / "questions.jsonl"
    drafts = [make_question(guide, "How much does the cache hold?", "holds 4 GB"),
              make_question(guide, "Where is the cache?", "/var/cache/tide")]
    first = save_questions(path, drafts, guide)
    text = path.read_text(encoding="utf-8")
    with pytest.warns(AnnotationNote) as notes:
        again = save_questions(path, drafts, guide)  # the same cell run twice
    assert [str(note.message) for note in notes] == [
        "'How much does the cache hold?' is already saved as 'guide-001': left as it is",
        "'Where is the cache?' is already saved as 'guide-002': left as it is"]
    assert again == first and path.read_text(encoding="utf-8") == text
    # the same span under another wording, and the same wording with another span: refused, and said why
    reworded = make_question(guide, "What size is the cache?", "holds 4 GB")
    with pytest.raises(DocumentError, match="has the same answer spans as 'guide-001'.*saved on line 1"):
        save_questions(path, [reworded], guide)
    respanned = make_question(guide, "  where is the CACHE? ", "The cache lives in\n/var/cache/tide")
    with pytest.raises(DocumentError, match="has the same wording as 'guide-002'.*duplicates='replace'"):
        save_questions(path, [respanned], guide)
    assert path.read_text(encoding="utf-8") == text, "a refusal writes nothing"
    # within one call too
    with pytest.raises(DocumentError, match="has the same answer spans as 'guide-003'"):
        save_questions(path, [make_question(guide, "Who needs root?", "It needs root."),
                              make_question(guide, "What does Linux need?", "It needs root.")], guide)
    assert path.read_text(encoding="utf-8") == text
    # replacing keeps the saved id and the line
    with pytest.warns(AnnotationNote, match="replaces 'guide-002'.*which had the same wording"):
        replaced = save_questions(path, [respanned], guide, duplicates="replace")
    assert [q["id"] for q in replaced] == ["guide-001", "guide-002"]
    assert replaced[1]["answers"] == respanned["answers"] and replaced[1]["question"] == respanned["question"]
    with pytest.raises(ValueError, match="duplicates must be 'refuse' or 'replace'"):
        save_questions(path, drafts, guide, duplicates="skip")
    # the same wording about another document is another question
    second = tmp_path / "second.md"
    second.write_text("The cache lives in /srv/cache.\n", encoding="utf-8")
    second = read_document(second)
    both = save_questions(path, [make_question(second, "Where is the cache?", "/srv/cache")], [guide, second])
    assert [q["id"] for q in both] == ["guide-001", "guide-002", "second-001"]


def test_an_answer_the_document_gives_twice_is_either_excerpt(guide, tmp_path):
    record = make_question(guide, "What does each installer do?",
                           either("Run the installer. It needs root.", "Run the installer. It asks"))
    (answer,) = record["answers"]
    assert record["kind"] == "fact" and answer["text"] == "Run the installer. It needs root."
    assert answer["alternatives"] == [locate(GUIDE, "Run the installer. It asks")]
    mac = locate(guide.text, "Run the installer.", after="## Mac")
    two = make_question(guide, "Where is the cache, and how big?", [either("/var/cache/tide", mac), "holds 4 GB"])
    assert two["kind"] == "multi_excerpt" and two["answers"][0]["alternatives"] == [mac]
    saved = save_questions(tmp_path / "q.jsonl", [record, two], guide)
    assert [q["answers"] for q in saved] == [record["answers"], two["answers"]]
    with pytest.raises(ValueError, match="at least two excerpts"):
        either("holds 4 GB")
    with pytest.raises(ValueError, match="must be different places"):
        make_question(guide, "How big?", either("holds 4 GB", locate(GUIDE, "holds 4 GB")))
    with pytest.raises(AmbiguousExcerpt, match="With several excerpts, pass locate"):
        make_question(guide, "What do I run?", either("Run the installer.", "holds 4 GB"))
