"""`chunklab.evaluation.failures`: each cause of a miss on a hand-built case, with a scripted retriever
whose ranking is known in advance."""

from __future__ import annotations

import pathlib

import pandas as pd
import pytest

from chunklab.evaluation.failures import CAUSES, miss_causes, rank
from chunklab.evaluation.retrieval import Retriever
from chunklab.formats.document import Document
from chunklab.strategies import HybridChunker
from chunklab.strategies.hybrid import ExtractiveContext


class Scripted(Retriever):
    """Ranks the indexed texts that contain the query (as a substring) first, the rest after, each
    group in index order."""

    name = "scripted"

    def index(self, texts):
        self.texts = list(texts)

    def search(self, queries, k, allowed=None):
        out = []
        for query in queries:
            hits = [i for i, t in enumerate(self.texts) if query in t]
            out.append((hits + [i for i in range(len(self.texts)) if i not in hits])[:k])
        return out


class Reversed(Scripted):
    """The scripted ranking, the texts that do not contain the query first."""

    def search(self, queries, k, allowed=None):
        return [list(reversed(ranking)) for ranking in super().search(queries, len(self.texts), allowed)]


def document(text: str) -> Document:
    return Document("doc", "Doc", "text", text, pathlib.Path("doc.txt"))


def question(text: str, query: str, excerpts: list[str]) -> dict:
    answers = [{"start": text.index(e), "end": text.index(e) + len(e), "text": e} for e in excerpts]
    return {"id": "doc-001", "doc": "doc", "question": query, "kind": "fact", "answers": answers}


def causes(a, b, text, query, excerpts, budget, chunk_size=None, plain=None, use_context=False,
           b_retriever=None):
    doc, questions = [document(text)], [question(text, query, excerpts)]
    ranked_a = rank(a, doc, questions, Scripted(), use_context=use_context, budget=budget)
    ranked_b = rank(b, doc, questions, b_retriever or Scripted(), budget=budget)
    ranked_plain = rank(plain, doc, questions, Scripted(), budget=budget) if plain is not None else None
    return miss_causes(ranked_a, ranked_b, [budget], chunk_size=chunk_size, plain=ranked_plain)


FILLER = "Zeta filler words here. More filler text now."
ALPHA = "Alpha one. Beta two. Gamma three. Delta four."
SMALL = HybridChunker(chunk_size=25, min_chunk_size=0, context=None)
LARGE = HybridChunker(chunk_size=60, min_chunk_size=0, context=None)  # one chunk per paragraph here


def test_an_answer_cut_between_two_sentences_of_one_paragraph():
    # SMALL: "Alpha one. Beta two." | "Gamma three. Delta four."; the first ranks first and the
    # budget then reaches into the filler, never the second half. LARGE holds the paragraph whole.
    table = causes(SMALL, LARGE, f"{FILLER}\n\n{ALPHA}", "Beta", ["Beta two. Gamma three."], budget=30)
    (row,) = table.itertuples()
    assert row.cause == "split inside a paragraph"
    assert row.pieces == 2 and row.piece_sent_chars == 17  # "Alpha one. Beta two." without spaces
    assert row.winner_chars == 38


def test_an_answer_cut_at_a_blank_line_or_at_a_section():
    text = f"{FILLER}\n\nAlpha one.\n\nBeta two."
    table = causes(HybridChunker(chunk_size=12, min_chunk_size=0, context=None), LARGE, text, "Alpha",
                   ["Alpha one.\n\nBeta two."], budget=40)
    assert table["cause"].tolist() == ["split between paragraphs"]
    markdown = f"# Intro\n\n{FILLER}\n\n## One\n\nAlpha one.\n\n## Two\n\nBeta two."
    merging = HybridChunker(chunk_size=60, min_chunk_size=50, context=None)  # joins the two short sections
    table = causes(HybridChunker(chunk_size=20, min_chunk_size=0, context=None), merging, markdown, "Alpha",
                   ["Alpha one.\n\n## Two\n\nBeta two."], budget=30)
    assert table["cause"].tolist() == ["split at a section boundary"]


def test_an_answer_longer_than_the_largest_chunk():
    table = causes(SMALL, LARGE, f"{FILLER}\n\n{ALPHA}", "Beta", [ALPHA], budget=40, chunk_size=25)
    assert table["cause"].tolist() == ["longer than chunk_size"]


def test_a_holder_cut_by_the_budget_and_one_ranked_too_low():
    text = f"{FILLER}\n\n{ALPHA}"
    # B ranks the other way round: ALPHA first, which answers every question below.
    table = causes(LARGE, LARGE, text, "filler", ["Beta two."], budget=45, b_retriever=Reversed())
    (row,) = table.itertuples()  # A sends FILLER (36 characters without spaces), then 9 of ALPHA
    assert row.cause == "cut by the budget" and row.holder_rank == 1 and row.holder_chars == 38
    assert row.winner_chars == 38
    table = causes(SMALL, LARGE, text, "filler", ["Delta four."], budget=40, b_retriever=Reversed())
    (row,) = table.itertuples()  # A sends both halves of FILLER (38) and 2 characters of "Alpha"
    assert row.cause == "ranked too low" and row.holder_chars == 21
    assert pd.isna(row.holder_rank)  # fourth: below the depth that any ranking needs to fill 40
    assert causes(LARGE, LARGE, text, "filler", ["Beta two."], budget=80, b_retriever=Reversed()).empty


def test_a_context_that_pushes_the_holder_down():
    # Every chunk's context is the title "Beta notes", so with the context indexed every chunk
    # matches "Beta" and the ranking falls back to index order; without it only the holder does.
    text = f"{FILLER}\n\nAlpha one. Beta two."
    titled = HybridChunker(chunk_size=25, min_chunk_size=0, title="Beta notes", context=ExtractiveContext())
    table = causes(titled, SMALL, text, "Beta", ["Alpha one. Beta two."], budget=20, plain=titled, use_context=True)
    (row,) = table.itertuples()
    assert row.cause == "ranked too low, the context pushed it down" and pd.isna(row.holder_rank)
    assert causes(titled, SMALL, text, "Beta", ["Alpha one. Beta two."], budget=20, use_context=True)[
        "cause"].tolist() == ["ranked too low"]  # without the plain ranking there is no telling


def test_the_causes_are_listed_once_and_questions_must_match():
    assert len(set(CAUSES)) == len(CAUSES) == 7
    doc = [document(ALPHA)]
    one = rank(LARGE, doc, [question(ALPHA, "Beta", ["Beta two."])], Scripted())
    other = rank(LARGE, doc, [dict(question(ALPHA, "Beta", ["Beta two."]), id="doc-002")], Scripted())
    with pytest.raises(ValueError, match="same questions"):
        miss_causes(one, other, [100])
    with pytest.raises(ValueError, match="deep enough"):
        one.sent(0, 5000)
