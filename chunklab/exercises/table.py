"""Notebook 09 (table-aware chunking): a table back from its chunks' records, the rows of tables no
parser sees, and what four rows per chunk do at a fixed budget."""

from __future__ import annotations

import re

from ..evaluation.comparison import compare
from ..evaluation.paired import Paired, paired
from ..formats.corpus import list_documents, load_document, load_questions
from ..strategies import TableChunker
from ..text.paragraphs import line_spans
from . import ExerciseFailed, exercise


def _table_chunks(name: str, rows: int) -> list:
    """`TableChunker(rows=rows)` chunks of a corpus document (one table each: lab_notes, field_guide)."""
    return TableChunker(rows=rows)(load_document(name).text, source=name)


def solution_table_frame(chunks):
    import pandas as pd

    return pd.DataFrame([record for c in chunks if c.metadata["modality"] == "table" for record in c.metadata["records"]])


@exercise("09.1", "a table back from its records", "implement", solution=solution_table_frame,
          wrong=(lambda: lambda chunks: __import__("pandas").DataFrame(chunks[0].metadata.get("records", [])),
                 lambda: lambda chunks: __import__("pandas").DataFrame([r for c in chunks for r in c.metadata["records"]]),
                 lambda: lambda chunks: __import__("pandas").DataFrame(
                     [c.metadata["records"][0] for c in chunks if c.metadata["modality"] == "table"])))
def check_table_frame(candidate) -> str:
    """`candidate(chunks)` must return every table row of the chunks' records, in order, as one DataFrame."""
    import pandas as pd

    for name, rows in (("lab_notes", 2), ("field_guide", 3)):
        chunks = _table_chunks(name, rows)
        expected = solution_table_frame(chunks)
        try:
            got = candidate(chunks)
        except KeyError as error:
            raise ExerciseFailed(f"on {name} your function raised KeyError: {error}. Hint: only table chunks have "
                                 "records; metadata['modality'] says which chunks are tables.") from None
        if not isinstance(got, pd.DataFrame):
            raise ExerciseFailed(f"return a pandas DataFrame, got {type(got).__name__}")
        if got.shape != expected.shape or list(got.columns) != list(expected.columns):
            raise ExerciseFailed(
                f"on {name} ({rows} rows per chunk) your frame has {got.shape[0]} rows and columns "
                f"{list(got.columns)[:3]}..., the table has {expected.shape[0]} rows. Hint: every table chunk holds "
                "several records (metadata['records'], one dict per row); gather them all, in chunk order.")
        if not got.reset_index(drop=True).astype(str).equals(expected.astype(str)):
            raise ExerciseFailed(f"on {name} your rows are not the table's rows in order. Hint: keep the chunks' "
                                 "order and each chunk's records in their order.")
    lab = solution_table_frame(_table_chunks("lab_notes", 2)).set_index("Cache size (MB)").astype(float)
    return (f"the lab table has {len(lab)} rows; at 256 MB the best hit rate is {lab.loc['256'].max():.1f}, "
            f"in the column '{lab.loc['256'].idxmax()}'.")


#: A made-up text for exercise 2: columns kept apart by exactly two spaces, by a tab, by a run of
#: spaces, and a line where single spaces separate words.
ALIGNED_TEXT = "Station  Depth\nNorth  12\nSouth\t9\nWest      31\nA line of prose with single spaces.\n"


def solution_aligned_rows(text):
    # a character, then a tab or two spaces (and any more whitespace), then a character
    return [(s, e) for s, e in line_spans(text) if re.search(r"\S(\t| {2})\s*\S", text[s:e])]


@exercise("09.2", "see a table no parser sees", "implement", solution=solution_aligned_rows,
          wrong=(lambda: lambda text: [(s, e) for s, e in line_spans(text) if re.search(r"\S {2,}\S", text[s:e])],
                 lambda: lambda text: [(s, e) for s, e in line_spans(text) if re.search(r"\S(\t| {3,})\s*\S", text[s:e])],
                 lambda: lambda text: [(s, e) for s, e in line_spans(text) if re.search(r"\S\s\S", text[s:e])],
                 lambda: lambda text: [m.span() for m in re.finditer(r".+", text) if re.search(r"\S(\t| {2})\s*\S", m.group())]))
def check_aligned_rows(candidate) -> str:
    """`candidate(text)` must return the spans of the lines where a tab or two spaces separate text."""
    found = {}
    for name, text in (("made-up text", ALIGNED_TEXT), *((name, load_document(name).text) for name in
                                                          ("article", "minutes"))):
        got, expected = [tuple(span) for span in candidate(text)], solution_aligned_rows(text)
        if got != expected:
            extra = [text[s:e][:60] for s, e in got if (s, e) not in set(expected)]
            missing = [text[s:e][:60] for s, e in expected if (s, e) not in set(got)]
            example = f" e.g. you include {extra[0]!r}" if extra else f" e.g. you miss {missing[0]!r}" if missing else ""
            raise ExerciseFailed(
                f"on the {name} you return {len(got)} lines, {len(expected)} qualify;{example}. Hint: the article "
                "aligns its columns with runs of spaces, the minutes separate them with tabs; a single space "
                "separates words everywhere, and two spaces are already a gap. Use the trimmed spans of line_spans.")
        found[name] = expected
    article = load_document("article").text
    first, last = found["article"][0], found["article"][-1]
    return (f"{len(found['article'])} lines of the article (from {article[first[0]:first[1]][:25]!r} to "
            f"{article[last[0]:last[1]][:30]!r}), {len(found['minutes'])} of the minutes.")


#: The budget of exercise 3, in characters.
BUDGET = 500


def four_rows_against_one() -> tuple[dict[int, int], Paired, int]:
    """Table questions of the test split answered at `BUDGET` with 1 and with 4 rows per chunk (header
    as context, BM25), and their paired comparison."""
    questions = [q for q in load_questions(split="test") if q["kind"] == "table"]
    result = compare({"1": TableChunker(rows=1), "4": TableChunker(rows=4)}, list_documents("test"), questions, retrievers=("bm25",),
                     budget=BUDGET, use_context=True, progress=False)
    table = result.rows.pivot(index="question", columns="chunker", values="answered")
    comparison = paired(table["4"], table["1"], names=("4 rows", "1 row"))
    return {n: int(table[str(n)].sum()) for n in (1, 4)}, comparison, len(table)


#: The answers exercise 3 offers: what the paired test says of four rows per chunk against one.
FOUR_ROWS_ANSWERS = ("more", "fewer", "no measurable difference")


def solution_four_rows() -> str:
    return "no measurable difference"


@exercise("09.3", "four rows per chunk at a fixed budget", "predict", solution=solution_four_rows,
          wrong=(lambda: "more", lambda: "fewer", lambda: "same"))
def check_four_rows(prediction) -> str:
    """One of `FOUR_ROWS_ANSWERS`: what the paired test says of the table questions answered with 4 rows
    per chunk against 1 (measurably more, measurably fewer, or no measurable difference)."""
    word = " ".join(str(prediction).lower().split())
    if word not in FOUR_ROWS_ANSWERS:
        raise ExerciseFailed(f"answer with one of {', '.join(map(repr, FOUR_ROWS_ANSWERS))}: the paired test decides, "
                             "not the raw counts")
    answered, verdict, n = four_rows_against_one()
    measured = {"4 rows": "more", "1 row": "fewer", None: "no measurable difference"}[verdict.winner]
    if word != measured:
        raise ExerciseFailed(
            f"not {word!r}. Hint: each of these questions asks about one row, and every chunk sent costs its "
            f"whole text: with {BUDGET} characters to spend, what else does a four-row chunk send? Then ask whether "
            f"a few dozen questions are enough for McNemar's test to tell the difference from chance.")
    return (f"{answered[4]} of {n} with four rows per chunk, {answered[1]} with one; the paired test finds "
            f"{verdict.verdict} ({verdict.a_only} questions only four rows answer, {verdict.b_only} only one row does, "
            f"McNemar p = {verdict.p_value:.3f}).")
