"""The budget view: hand-computed cases on tiny documents with a fixed ranking, the rule's pieces,
and compare(budget=...) end to end (BM25 only: nothing here embeds the corpus)."""

import pathlib
import re

import numpy as np
import pytest

from chunklab import CHUNKERS, Chunker, Document
from chunklab.evaluation.budget import (
    BUDGET_METRICS,
    ROW_COLUMNS,
    Comparison,
    combine,
    Golden,
    Meter,
    budget_scores,
    fill,
    retrieval_depth,
    spend,
)
from chunklab.evaluation.comparison import compare
from chunklab.evaluation.metrics import sent_metrics
from chunklab.evaluation.retrieval import DenseRetriever, HybridRetriever, Retriever
from chunklab.models.embed import MiniLMEmbedder
from chunklab.text.spans import CharCounter


class Blocks(Chunker):
    """Test chunker: consecutive blocks of `width` characters (the last one shorter)."""

    name = ""

    def __init__(self, width: int = 10) -> None:
        self.width = width
        self.validate()

    def spans(self, text):
        for start in range(0, len(text), self.width):
            yield start, min(len(text), start + self.width)


class Words(Chunker):
    """Test chunker: `n` words per chunk, spaces between chunks left out."""

    name = ""

    def __init__(self, n: int = 2) -> None:
        self.n = n
        self.validate()

    def spans(self, text):
        words = [m.span() for m in re.finditer(r"\S+", text)]
        for i in range(0, len(words), self.n):
            yield words[i][0], words[min(i + self.n, len(words)) - 1][1]


class FixedRanking(Retriever):
    """Test retriever: the same ranking of the indexed chunks for every query (allowed ones only)."""

    name = "fixed ranking"

    def __init__(self, order) -> None:
        self.order = list(order)

    def index(self, texts):
        self.size = len(texts)

    def search(self, queries, k, allowed=None):
        masks = allowed if allowed is not None else [None] * len(queries)
        return [[i for i in self.order if i < self.size and (m is None or m[i])][:k] for m in masks]


TEXT = "a" * 10 + "b" * 10 + "c" * 10 + "d" * 10  # four chunks of 10 with Blocks(10), no whitespace


def doc(name="d", text=TEXT, kind="text"):
    return Document(name, name.upper(), kind, text, pathlib.Path(f"{name}.txt"))


def question(qid, start, end, name="d", text=TEXT, kind="fact", split="test"):
    return {"id": qid, "doc": name, "question": qid, "kind": kind, "split": split,
            "answers": [{"start": start, "end": end, "text": text[start:end]}]}


def run(budgets, questions, order=(2, 0, 3, 1), chunker=None, docs=None, **options):
    return compare({"blocks": chunker or Blocks(10)}, docs or [doc()], questions,
                   retrievers=(FixedRanking(order),), budget=budgets, progress=False, **options)


def by_budget(result, qid):
    rows = result.rows[result.rows["question"] == qid].set_index("budget")
    return {b: rows.loc[b, list(BUDGET_METRICS)].to_dict() for b in rows.index}


# -- hand-computed: ranking [2, 0, 3, 1] of the blocks [0,10) [10,20) [20,30) [30,40) -------------------
def test_an_answer_inside_the_first_chunk():
    rows = by_budget(run([5, 10, 15, 100], [question("q", 22, 28)]), "q")
    # 5: [20,25) holds 3 of the 6 golden characters; precision 3/5; IoU 3 / (5 + 6 - 3)
    assert rows[5] == {"answered": 0.0, "recall": 0.5, "precision": 0.6, "iou": 3 / 8, "sent": 5.0, "chunks_sent": 1.0}
    # 10: the whole first chunk: answered
    assert rows[10] == {"answered": 1.0, "recall": 1.0, "precision": 0.6, "iou": 0.6, "sent": 10.0, "chunks_sent": 1.0}
    # 15: plus [0,5) of the second-ranked chunk, which holds nothing golden
    assert rows[15] == {"answered": 1.0, "recall": 1.0, "precision": 0.4, "iou": 0.4, "sent": 15.0, "chunks_sent": 2.0}
    # 100: the ranking runs out after all 40 characters
    assert rows[100] == {"answered": 1.0, "recall": 1.0, "precision": 6 / 40, "iou": 6 / 40, "sent": 40.0,
                         "chunks_sent": 4.0}


def test_an_answer_across_two_chunks_ranked_second_and_last():
    rows = by_budget(run([10, 15, 25, 40], [question("q", 5, 15)]), "q")
    assert rows[10]["recall"] == 0.0 and rows[15]["recall"] == 0.0  # [20,30) then [0,5)
    # 25: [20,30) [0,10) [30,35): the golden [5,10) half is in; 5 / (25 + 10 - 5)
    assert rows[25] == {"answered": 0.0, "recall": 0.5, "precision": 0.2, "iou": 5 / 30, "sent": 25.0,
                        "chunks_sent": 3.0}
    # 40: every chunk, [10,20) last: the excerpt is answered across two chunks
    assert rows[40] == {"answered": 1.0, "recall": 1.0, "precision": 0.25, "iou": 0.25, "sent": 40.0,
                        "chunks_sent": 4.0}


def test_every_excerpt_must_be_sent_for_answered():
    q = question("q", 22, 28)
    q["answers"].append({"start": 12, "end": 14, "text": TEXT[12:14]})
    rows = by_budget(run([10, 40], [q]), "q")
    assert rows[10]["answered"] == 0.0 and rows[10]["recall"] == 0.75  # 6 of 8 golden characters
    assert rows[40]["answered"] == 1.0


def test_overlapping_chunks_pay_again_but_cover_once():
    class Overlapping(Chunker):
        name = ""

        def spans(self, text):
            yield from ((0, 10), (5, 15), (15, 40))

    rows = by_budget(run([15, 20], [question("q", 5, 15)], order=(0, 1, 2), chunker=Overlapping()), "q")
    # 15: [0,10) and [5,10): 15 sent, only [5,10) of the excerpt covered (once)
    assert rows[15]["recall"] == 0.5 and rows[15]["precision"] == pytest.approx(5 / 15)
    # 20: [0,10) and [5,15) whole: 20 sent for 10 golden characters
    assert rows[20] == {"answered": 1.0, "recall": 1.0, "precision": 0.5, "iou": 0.5, "sent": 20.0, "chunks_sent": 2.0}


def test_whitespace_is_not_counted_and_a_cut_ends_on_a_character():
    text = "aa bb cc dd ee ff"  # Words(2): "aa bb" [0,5), "cc dd" [6,11), "ee ff" [12,17); 4 counted each
    rows = by_budget(run([4, 6, 100], [question("q", 6, 11, text=text)], order=(2, 1, 0), chunker=Words(2),
                         docs=[doc(text=text)]), "q")
    assert rows[4]["recall"] == 0.0 and rows[4]["chunks_sent"] == 1.0
    # 6: "ee ff" and "cc" ([6,8)): 2 of the 4 counted golden characters; 6 sent
    assert rows[6]["recall"] == 0.5 and rows[6]["precision"] == pytest.approx(2 / 6)
    assert rows[100]["sent"] == 12.0  # twelve non-space characters in all


def test_a_budget_in_tokens_of_a_tokenizer_function():
    text = "one two three four five six"
    words = lambda t: [m.span() for m in re.finditer(r"\S+", t)]  # noqa: E731  (a token per word)
    result = run([3, 5], [question("q", 14, 23, text=text)], order=(1, 0, 2), chunker=Words(2),
                 docs=[doc(text=text)], budget_unit="tokens", tokenizer=words)
    rows = by_budget(result, "q")
    # ranking: "three four" [8,18), "one two" [0,7), "five six" [19,27); golden "four five" [14,23)
    # 3 tokens: "three four" + "one": "four" of "four five" (4 of 8 counted characters)
    assert rows[3]["recall"] == 0.5 and rows[3]["sent"] == 3.0
    assert rows[3]["precision"] == pytest.approx(4 / (9 + 3))  # characters: "threefour" + "one"
    # 5 tokens: then "one two" whole and "five" of "five six": the whole answer
    assert rows[5]["sent"] == 5.0 and rows[5]["answered"] == 1.0 and rows[5]["chunks_sent"] == 3.0
    assert result.unit_label() == "function tokens"


def test_rows_are_tidy_and_the_chunkings_table_has_one_row_per_label():
    result = run([10, 20], [question("q1", 22, 28), question("q2", 5, 15, kind="cross_boundary", split="dev")])
    assert isinstance(result, Comparison)
    assert tuple(result.rows.columns) == ROW_COLUMNS
    assert len(result.rows) == 4  # two questions × one chunking × one retriever × two budgets
    first = result.rows.iloc[0]
    assert (first["question"], first["doc"], first["doc_kind"], first["kind"], first["split"]) == (
        "q1", "d", "text", "fact", "test")
    assert (first["chunker"], bool(first["context"]), first["retriever"]) == ("blocks", False, "fixed ranking")
    assert list(result.chunkings.index) == ["blocks"] and result.chunkings.loc["blocks", "chunks"] == 4
    assert list(result.timings.columns) == ["chunker", "retriever", "index_seconds", "search_seconds",
                                            "score_seconds"]


def test_a_metadata_filter_can_leave_the_budget_unspent():
    only_first = lambda q, chunks: np.array([c.start == 0 for c in chunks])  # noqa: E731
    rows = by_budget(run([25], [question("q", 5, 15)], where=only_first), "q")
    assert rows[25]["sent"] == 10.0 and rows[25]["recall"] == 0.5


def test_nothing_retrievable_sends_nothing():
    nothing = lambda q, chunks: np.zeros(len(chunks), dtype=bool)  # noqa: E731
    rows = by_budget(run([25], [question("q", 5, 15)], where=nothing), "q")
    assert rows[25] == {"answered": 0.0, "recall": 0.0, "precision": 0.0, "iou": 0.0, "sent": 0.0, "chunks_sent": 0.0}


def test_expanded_hits_are_what_the_budget_buys():
    expand = lambda hits: [(h.metadata["source"], 0, 20) for h in hits]  # noqa: E731  (every hit: [0,20))
    rows = by_budget(run([15, 30], [question("q", 5, 15)], expand_hits=expand), "q")
    assert rows[15]["recall"] == 1.0 and rows[15]["sent"] == 15.0  # [0,15)
    assert rows[30]["precision"] == pytest.approx(10 / 30)  # [0,20) then [0,10) again: paid twice


# -- the rule's pieces --------------------------------------------------------------------------------
def test_fill_whole_chunks_then_a_cut_one():
    whole, rest = fill([4, 0, 6], [3, 4, 9, 10, 11])
    # 3: cut the first; 4: the first and the empty second fit exactly; 9: 4 + 0 + 5 of 6;
    # 10: all three exactly; 11: the ranking runs out
    assert whole.tolist() == [0, 2, 2, 3, 3] and rest.tolist() == [3, 0, 5, 0, 0]


def test_retrieval_depth_fills_the_budget_whatever_the_order():
    assert retrieval_depth([5, 1, 3, 10], 4) == 2  # the two smallest: 1 + 3
    assert retrieval_depth([5, 1, 3, 10], 5) == 3
    assert retrieval_depth([5, 1, 3, 10], 100) == 4
    assert retrieval_depth([], 10) == 0


def test_char_counter_advance():
    counter = CharCounter("aa bb  cc")
    assert counter.advance(0, 3) == 4  # "aa b"
    assert counter.advance(2, 2) == 5  # " bb"
    assert counter.advance(3, 3) == 8  # "bb  c"
    assert counter.advance(4, 0) == 4
    assert CharCounter().advance(5, 3) == 8
    with pytest.raises(ValueError, match="counted characters"):
        counter.advance(3, 5)


def test_meter_refuses_unknown_units():
    with pytest.raises(ValueError, match="budget_unit"):
        Meter("text", CharCounter("text"), unit="words")


def test_budget_scores_match_the_reference_metrics_on_random_rankings():
    rng = np.random.default_rng(7)
    text = "".join(rng.choice(list("ab  c\n"), size=600))
    counter = CharCounter(text)
    for unit in ("chars", "tokens"):
        meter = Meter(text, counter, unit, tokenizer=lambda t: [m.span() for m in re.finditer(r"\S+", t)])
        for _ in range(60):
            starts = rng.integers(0, 550, size=8)
            spans = np.stack([starts, starts + rng.integers(1, 50, size=8)], axis=1)
            gold_start = int(rng.integers(0, 580))
            golden = [(gold_start, gold_start + 15)]
            if counter(*golden[0]) == 0:
                continue
            costs = meter.costs(spans)
            budgets = sorted(set(rng.integers(1, 150, size=4).tolist()))
            fast = budget_scores(spans, costs, Golden(golden, counter), budgets, meter)
            for b, scores in zip(budgets, fast):
                sent, used = spend(spans, costs, b, meter)
                reference = sent_metrics(sent, golden, counter)
                assert {m: scores[m] for m in reference} == pytest.approx(reference)
                assert scores["sent"] == used and scores["chunks_sent"] == len(sent)


# -- compare(budget=...) -------------------------------------------------------------------------------
def test_compare_checks_the_budget_arguments():
    q = [question("q", 22, 28)]
    for bad in (0, -5, [], [10, 0], True, 2.5):
        with pytest.raises(ValueError, match="budget"):
            run(bad, q)
    for k_view_only in ("k", "per_question", "merge_hits"):  # they belong to compare_at_k
        with pytest.raises(TypeError, match=k_view_only):
            run([10], q, **{k_view_only: True})
    with pytest.raises(ValueError, match="budget_unit"):
        run([10], q, budget_unit="words")


def test_context_is_indexed_but_not_sent():
    class Headed(Blocks):
        name = ""

        def after_chunking(self):
            def zebras(document, chunks):
                return [type(c)(c.text, c.start, c.end, c.index, {**c.metadata, "context": "zebra " * 20}) for c in chunks]

            return (zebras,)

    text = "alpha beta gamma delta " * 4 + "the zebra mark is here " + "omega psi chi " * 6
    at = text.index("zebra mark")
    q = [{"id": "z", "doc": "d", "question": "zebra", "kind": "fact", "split": "dev",
          "answers": [{"start": at, "end": at + 10, "text": text[at:at + 10]}]}]
    result = compare({"headed": Headed(30)}, [doc(text=text)], q, retrievers=("bm25",), budget=[40],
                     use_context="both", progress=False)
    rows = result.rows.set_index("chunker")
    assert rows.loc["headed + context", "sent"] == rows.loc["headed", "sent"] == 40.0  # the context costs nothing
    assert rows.loc["headed", "answered"] == 1.0  # BM25 finds "zebra" in the text itself too
    assert bool(result.chunkings.loc["headed + context", "context"])


def test_the_comparison_keeps_each_chunking_s_chunks_once_and_combine_joins_them():
    text = "alpha beta gamma delta " * 3
    q = [question("q", 0, 5, text=text)]
    first = compare({"ten": Blocks(10)}, [doc(text=text)], q, retrievers=("bm25",), budget=[20], progress=False)
    assert [c.text for c in first.chunks["ten"]] == [c.text for c in Blocks(10)(text, source="d")]
    assert all(text[c.start:c.end] == c.text for c in first.chunks["ten"])
    second = compare({"words": Words(2)}, [doc(text=text)], q, retrievers=("bm25",), budget=[20], progress=False)
    assert list(combine(first, second).chunks) == ["ten", "words"]


def test_every_chunking_sends_the_same_amount_of_text():
    text = ("The harbor master logs every ship. " * 20 + "\n\n" + "Salmon were counted by hand at the weir. " * 20)
    at = text.index("Salmon")
    q = [{"id": "s", "doc": "d", "question": "Who counted the salmon?", "kind": "fact", "split": "test",
          "answers": [{"start": at, "end": at + 40, "text": text[at:at + 40]}]}]
    chunkers = {"small": Blocks(50), "large": Blocks(700)}
    result = compare(chunkers, [doc(text=text)], q, retrievers=("bm25",), budget=(100, 300), progress=False)
    assert set(result.rows["sent"]) == {100.0, 300.0}
    assert result.chunkings.loc["large", "size_mean"] > 10 * result.chunkings.loc["small", "size_mean"]


def test_the_dense_embedding_cache_embeds_each_distinct_text_once():
    embedder = MiniLMEmbedder()
    text = "Harbor Cache listens on port 7480. Peers talk on port 7481. Metrics go to Prometheus on 9478. " * 3
    q = [question("p", 0, 34, text=text)]
    chunkers = {"a": Blocks(100), "b": Blocks(100), "c": Blocks(50)}
    compare(chunkers, [doc(text=text)], q, retrievers=(DenseRetriever(embedder), HybridRetriever(embedder=embedder)),
            budget=[100], progress=False)
    distinct = {c.text for w in (100, 50) for c in Blocks(w)(text)}
    assert embedder.misses == len(distinct) + 1  # every distinct chunk text once, and the question once


def test_on_the_real_corpus_more_text_never_answers_less():
    from chunklab import load_questions

    cheap = {name: CHUNKERS[name]() for name in ("fixed", "paragraph", "page")}
    result = compare(cheap, questions=load_questions(split="test"), retrievers=("bm25",), budget=(500, 2000),
                     progress=False)
    rows = result.rows
    assert set(rows["split"]) == {"test"} and rows["question"].nunique() == len(load_questions(split="test"))
    assert (rows["sent"] == rows["budget"]).mean() > 0.99  # every chunking sends the budget
    wide = rows.pivot_table(index=["chunker", "question"], columns="budget", values=["answered", "recall"])
    for metric in ("answered", "recall"):
        assert (wide[(metric, 2000)] >= wide[(metric, 500)]).all()  # what 500 sends, 2000 sends too
    assert 0.2 < rows.loc[rows["budget"] == 2000, "answered"].mean() < 1.0


def test_summarize_a_comparison_one_row_per_chunking_retriever_and_budget():
    from chunklab.evaluation.comparison import summarize

    result = run([10, 40], [question("q1", 22, 28), question("q2", 5, 15, split="dev")])
    table = summarize(result)
    assert list(table[["chunker", "retriever", "budget"]].itertuples(index=False, name=None)) == [
        ("blocks", "fixed ranking", 10), ("blocks", "fixed ranking", 40)]
    assert list(table["answered"]) == [0.5, 1.0] and list(table["questions"]) == [2, 2]
    assert table.loc[0, "strategy"] == "" and table.loc[0, "chunks"] == 4  # the chunking's columns
    assert list(summarize(result, split="dev")["answered"]) == [0.0, 1.0]
