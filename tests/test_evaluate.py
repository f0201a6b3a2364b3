"""Span metrics on hand-computed cases, structure metrics, retrievers, and the k view (compare_at_k)."""

import json
import pathlib

import numpy as np
import pytest

from chunklab import CHUNKERS, Chunk, Document
from chunklab.evaluation.comparison import (
    QUESTION_METRICS,
    RETRIEVERS,
    BM25Retriever,
    CharCounter,
    DenseRetriever,
    HybridRetriever,
    RerankRetriever,
    compare_at_k,
    compare_at_k_rows,
    default_chunkers,
    indexed_text,
    merge_adjacent,
    precision_omega,
    span_metrics,
    structure_metrics,
)
from chunklab.models.embed import TfidfEmbedder
from chunklab.strategies import FixedSizeChunker
from test_budget import FixedRanking  # the same ranking for every query


# -- span metrics: every expected number below is worked out by hand ---------------------------------
def test_partial_overlap():
    m = span_metrics(retrieved=[(0, 15)], golden=[(10, 20)])
    # covered = 5 of 10 golden chars; 15 retrieved chars; union = 15 + 10 - 5 = 20
    assert m == {"recall@k": 0.0, "recall": 0.5, "precision": 5 / 15, "iou": 5 / 20, "retrieved_chars": 15.0}


def test_excerpt_covered_by_two_adjacent_chunks_counts_as_found():
    m = span_metrics(retrieved=[(12, 30), (0, 12)], golden=[(10, 20)])
    assert m["recall@k"] == 1.0 and m["recall"] == 1.0
    assert m["precision"] == pytest.approx(10 / 30) and m["iou"] == pytest.approx(10 / 30)


def test_multiple_excerpts_one_found_is_a_hit_but_half_the_characters():
    m = span_metrics(retrieved=[(0, 10)], golden=[(0, 10), (50, 60)])
    assert m["recall@k"] == 1.0
    assert m["recall"] == 0.5 and m["precision"] == 1.0
    assert m["iou"] == pytest.approx(10 / (10 + 20 - 10))


def test_duplicate_retrieved_chunks_are_paid_for_twice():
    m = span_metrics(retrieved=[(0, 10), (0, 10)], golden=[(0, 10)])
    assert m["recall"] == 1.0 and m["retrieved_chars"] == 20.0
    assert m["precision"] == 0.5 and m["iou"] == 0.5


def test_overlapping_retrieved_chunks_count_the_overlap_in_each_chunk():
    m = span_metrics(retrieved=[(0, 10), (5, 15)], golden=[(5, 10)])
    # covered = 5 (counted once); retrieved = 10 + 10 = 20 although the union is 15
    assert m["precision"] == 0.25 and m["iou"] == 0.25 and m["recall"] == 1.0


def test_overlapping_golden_excerpts_are_counted_once():
    m = span_metrics(retrieved=[(0, 5)], golden=[(0, 10), (5, 15)])
    assert m["recall"] == pytest.approx(5 / 15)
    assert m["recall@k"] == 0.0


def test_empty_retrieval_scores_zero():
    m = span_metrics(retrieved=[], golden=[(3, 8)])
    assert m == {"recall@k": 0.0, "recall": 0.0, "precision": 0.0, "iou": 0.0, "retrieved_chars": 0.0}


def test_whitespace_is_not_counted_with_a_text_counter():
    text = "aaaa bbbb cc"
    counter = CharCounter(text)
    assert counter(0, len(text)) == 10 and counter.total([(0, 6), (3, 9)]) == 8
    retrieved, golden = [(0, 4), (5, 9)], [(0, 9)]  # the space at 4 lies in no chunk
    plain = span_metrics(retrieved, golden)
    assert plain["recall@k"] == 0.0 and plain["recall"] == pytest.approx(8 / 9)
    counted = span_metrics(retrieved, golden, counter)
    assert counted["recall@k"] == 1.0 and counted["recall"] == 1.0 and counted["precision"] == 1.0


def test_golden_without_countable_characters_is_an_error():
    with pytest.raises(ValueError, match="golden"):
        span_metrics([(0, 3)], [(1, 3)], CharCounter("a   "))
    with pytest.raises(ValueError):
        span_metrics([(0, 3)], [])


def test_precision_omega_uses_exactly_the_chunks_holding_golden_text():
    chunks = [(0, 10), (10, 20), (20, 30)]
    assert precision_omega(chunks, [(5, 12)]) == pytest.approx(7 / 20)
    assert precision_omega(np.array(chunks), [(0, 10), (20, 25)]) == pytest.approx(15 / 20)
    assert precision_omega([(0, 10), (5, 15)], [(0, 3)]) == pytest.approx(3 / 10)
    assert precision_omega([(0, 10)], [(40, 50)]) == 0.0


def test_precision_omega_ignores_chunks_touching_only_whitespace_of_the_excerpt():
    text = "aaaa bbbb"
    # chunk (3, 5) overlaps the golden span (4, 9) only at the space
    assert precision_omega([(0, 4), (4, 9)], [(4, 9)], CharCounter(text)) == 1.0
    assert precision_omega([(0, 5), (5, 9)], [(4, 9)], CharCounter(text)) == 1.0
    assert precision_omega([(0, 5), (5, 9)], [(4, 9)]) == pytest.approx(5 / 9)


# -- structure metrics --------------------------------------------------------------------------------
def chunks_at(text, cuts):
    bounds = [0, *cuts, len(text)]
    return [Chunk(text[s:e], s, e, i) for i, (s, e) in enumerate(zip(bounds, bounds[1:]))]


def test_structure_metrics_fractions_of_chunks_that_cut():
    text = "One two. Three four.\n\n| a | b |\n|---|---|\n| 10 | 20 |\n\n```\ncode\n```\n"
    row = text.index("| 10")
    fence = text.index("code")
    chunks = chunks_at(text, [5, 9, row + 3, fence])
    m = structure_metrics(chunks, text)
    assert m["chunks"] == 5
    # Boundaries: 5 inside "two." (a word and the first sentence); 9 between two sentences; row + 3
    # inside "10" (a word and a table row); fence at the start of "code" (inside the code block).
    # The regex splitter sees the table and the code block as one long third "sentence".
    assert m["chunks_cutting_words"] == pytest.approx(4 / 5)  # chunks 0, 1 (at 5) and 2, 3 (at row + 3)
    assert m["chunks_cutting_sentences"] == 1.0  # 0, 1 (at 5); 2, 3, 4 (at row + 3 and fence)
    assert m["chunks_cutting_table_rows"] == pytest.approx(2 / 5)
    assert m["chunks_cutting_code_blocks"] == pytest.approx(2 / 5)
    sizes = [len(c) for c in chunks]
    assert m["size_mean"] == pytest.approx(np.mean(sizes)) and m["size_max"] == max(sizes)


def test_structure_metrics_clean_cuts_and_csv_rows():
    text = "a,b\n1,2\n3,4\n"
    clean = chunks_at(text, [4, 8])
    assert structure_metrics(clean, text, csv=True)["chunks_cutting_table_rows"] == 0.0
    assert structure_metrics(chunks_at(text, [6]), text, csv=True)["chunks_cutting_table_rows"] == 1.0
    assert structure_metrics(chunks_at(text, [6]), text)["chunks_cutting_table_rows"] == 0.0


# -- retrievers ---------------------------------------------------------------------------------------
TEXTS = [
    "The harbor master logs every ship that enters the bay.",
    "Quantum chromodynamics describes quarks bound by gluons on a lattice.",
    "Our bakery sells sourdough bread and cinnamon rolls every morning.",
    "Caching servers store responses so repeated requests are served quickly.",
]


@pytest.mark.parametrize(
    "retriever",
    [BM25Retriever(), BM25Retriever(stem=False), DenseRetriever(), RerankRetriever(candidates=3), HybridRetriever()],
    ids=repr,
)
def test_exact_match_query_ranks_its_chunk_first(retriever):
    retriever.index(TEXTS)
    ranked = retriever.search(["quarks bound by gluons", "sourdough bread bakery"], k=2)
    assert [r[0] for r in ranked] == [1, 2]
    assert all(len(r) == 2 and len(set(r)) == 2 for r in ranked)


def test_bm25_stemming_matches_word_forms():
    stemmed, plain = BM25Retriever(), BM25Retriever(stem=False)
    for r in (stemmed, plain):
        r.index(TEXTS)
    assert stemmed.scores(["cached"])[0, 3] > 0
    assert plain.scores(["cached"])[0, 3] == 0


def test_search_with_k_beyond_the_index_and_unknown_words():
    r = BM25Retriever()
    r.index(TEXTS[:2])
    assert sorted(r.search(["harbor"], k=10)[0]) == [0, 1]
    assert r.search(["zzzz qqqq"], k=2) == [[0, 1]]  # all scores 0: index order
    r.index([])
    assert r.search(["harbor"], k=3) == [[]]


def test_rerank_keeps_only_dense_candidates():
    r = RerankRetriever(candidates=1, embedder=TfidfEmbedder())
    r.index(TEXTS)
    assert r.search(["harbor ship bay"], k=1) == [[0]]
    assert len(r.search(["harbor ship bay"], k=3)[0]) == 3  # never fewer than k candidates


def test_registry_names():
    assert {"bm25", "dense", "bm25_rerank", "hybrid"} <= set(RETRIEVERS)
    assert all(cls.name == name for name, cls in RETRIEVERS.items())


# -- compare -------------------------------------------------------------------------------------------
SOURCE_A = (
    "Harbor Cache listens on port 7480 by default. Peers talk on port 7481. "
    "The admin API is bound to localhost. Metrics are exported for Prometheus on port 9478. " * 2
)
SOURCE_B = "The river rose in spring. Fishermen counted the salmon by hand. The weir was built in 1911. " * 3


def tiny_docs():
    return [
        Document("a", "A", "markdown", SOURCE_A, pathlib.Path("a.md")),
        Document("b", "B", "text", SOURCE_B, pathlib.Path("b.txt")),
    ]


def tiny_questions():
    qa = SOURCE_A.index("Metrics are exported")
    qb = SOURCE_B.index("The weir")
    return [
        {"id": "a-1", "doc": "a", "question": "Which port exports Prometheus metrics?", "kind": "fact",
         "answers": [{"start": qa, "end": qa + 59, "text": SOURCE_A[qa : qa + 59]}]},
        {"id": "b-1", "doc": "b", "question": "When was the weir built?", "kind": "fact",
         "answers": [{"start": qb, "end": qb + 26, "text": SOURCE_B[qb : qb + 26]}]},
    ]


def test_compare_returns_one_row_per_chunker_and_retriever():
    chunkers = {"small": FixedSizeChunker(chunk_size=60), "large": FixedSizeChunker(chunk_size=200, chunk_overlap=50)}
    retrievers = ("bm25", DenseRetriever(TfidfEmbedder()))
    table = compare_at_k(chunkers, tiny_docs(), tiny_questions(), retrievers=retrievers, k=2, progress=False)
    assert list(zip(table["chunker"], table["retriever"])) == [
        ("small", "bm25"), ("small", "dense"), ("large", "bm25"), ("large", "dense"),
    ]
    for metric in QUESTION_METRICS:
        assert metric in table and f"{metric}_sd" in table
        assert (table[metric] >= 0).all()
    for column in ("strategy", "params", "k", "questions", "chunks", "size_mean", "chunks_cutting_words", "chunks_cutting_sentences",
                   "chunks_cutting_table_rows", "chunks_cutting_code_blocks", "chunk_seconds", "index_ratio"):
        assert column in table
    assert (table["questions"] == 2).all() and (table["k"] == 2).all()
    small = table[table["chunker"] == "small"].iloc[0]
    large = table[table["chunker"] == "large"].iloc[0]
    assert large["index_ratio"] > 1.0 > small["index_ratio"] > 0.95  # overlap stores text twice
    assert small["size_max"] <= 60 and large["size_max"] <= 200


def test_compare_per_question_matches_span_metrics_by_hand():
    # One chunk per document: both questions retrieve their whole document among k=2 chunks.
    whole = {"whole": FixedSizeChunker(chunk_size=10_000)}
    rows = compare_at_k_rows(whole, tiny_docs(), tiny_questions(), retrievers=("bm25",), k=2, progress=False)
    assert len(rows) == 2 and set(rows["question"]) == {"a-1", "b-1"}
    nonspace = sum(not c.isspace() for c in SOURCE_A) + sum(not c.isspace() for c in SOURCE_B)
    for _, row in rows.iterrows():
        q = next(q for q in tiny_questions() if q["id"] == row["question"])
        gold = sum(not c.isspace() for c in q["answers"][0]["text"])
        assert row["recall@k"] == 1.0 and row["recall"] == 1.0
        assert row["retrieved_chars"] == nonspace
        assert row["precision"] == pytest.approx(gold / nonspace)
        doc_text = SOURCE_A if q["doc"] == "a" else SOURCE_B
        assert row["precision_omega"] == pytest.approx(gold / sum(not c.isspace() for c in doc_text))
    summary = compare_at_k(whole, tiny_docs(), tiny_questions(), retrievers=("bm25",), k=2, progress=False)
    assert len(summary) == 1 and summary["recall@k_sd"].iloc[0] == 0.0


def test_compare_accepts_a_list_of_chunkers_and_checks_its_inputs():
    docs, questions = tiny_docs(), tiny_questions()
    table = compare_at_k([FixedSizeChunker(chunk_size=80), FixedSizeChunker(chunk_size=90)], docs, questions,
                    retrievers=("bm25",), progress=False)
    assert list(table["chunker"]) == ["FixedSizeChunker(chunk_size=80)", "FixedSizeChunker(chunk_size=90)"]
    with pytest.raises(ValueError, match="unknown retriever"):
        compare_at_k([FixedSizeChunker()], docs, questions, retrievers=("nope",), progress=False)
    with pytest.raises(ValueError, match="distinct"):
        compare_at_k([FixedSizeChunker()], docs, questions, retrievers=("bm25", BM25Retriever()), progress=False)
    with pytest.raises(ValueError, match="not among the documents"):
        compare_at_k([FixedSizeChunker()], docs[:1], questions, retrievers=("bm25",), progress=False)
    with pytest.raises(TypeError, match="Chunker instance"):
        compare_at_k({"cls": FixedSizeChunker}, docs, questions, retrievers=("bm25",), progress=False)


def test_default_chunkers_cover_the_registry():
    assert set(default_chunkers()) == set(CHUNKERS)


def test_compare_on_the_real_corpus():
    chunklab = pytest.importorskip("chunklab")
    try:
        questions = chunklab.load_questions()
    except FileNotFoundError:
        questions = []
    if not questions:
        pytest.skip("the corpus questions are not present")
    table = compare_at_k(default_chunkers(), retrievers=("bm25",), k=5, progress=False)
    assert len(table) == len(CHUNKERS)
    assert (table["questions"] == len(questions)).all()
    fixed = table[table["strategy"] == "fixed"].iloc[0]
    assert 0.2 < fixed["recall@k"] <= 1.0
    assert 0.0 < fixed["precision"] < fixed["precision_omega"] <= 1.0


def test_excerpts_kept_whole_counts_excerpts_inside_one_chunk():
    from chunklab.evaluation.comparison import excerpts_kept_whole
    from chunklab.formats.document import Document
    from chunklab.strategies import FixedSizeChunker

    text = "abcdefghij" * 3
    doc = Document(name="d", title="d", kind="text", text=text, path=None, metadata={})
    questions = [
        {"id": "1", "doc": "d", "answers": [{"start": 1, "end": 4, "text": text[1:4]}]},    # inside [0, 10)
        {"id": "2", "doc": "d", "answers": [{"start": 8, "end": 12, "text": text[8:12]}]},  # crosses 10
        {"id": "3", "doc": "other", "answers": [{"start": 0, "end": 1, "text": "x"}]},      # skipped
    ]
    assert excerpts_kept_whole(FixedSizeChunker(chunk_size=10), [doc], questions) == 0.5
    assert excerpts_kept_whole(FixedSizeChunker(chunk_size=10, chunk_overlap=5), [doc], questions) == 1.0
    assert excerpts_kept_whole(FixedSizeChunker(chunk_size=10), [doc], questions[2:]) == 0.0


# -- hooks: metadata filters, context, expanded and merged hits ----------------------------------------
def test_search_restricted_by_a_mask_returns_only_allowed_texts():
    for retriever in (BM25Retriever(), DenseRetriever(TfidfEmbedder()), RerankRetriever(embedder=TfidfEmbedder()),
                      HybridRetriever(embedder=TfidfEmbedder())):
        retriever.index(TEXTS)
        only_bakery = np.array([False, False, True, False])
        ranked = retriever.search(["quarks bound by gluons", "quarks"], k=3, allowed=[only_bakery, None])
        assert ranked[0] == [2], repr(retriever)
        assert ranked[1][0] == 1 and len(ranked[1]) == 3, repr(retriever)
        with pytest.raises(ValueError, match="masks"):
            retriever.search(["a", "b"], k=1, allowed=[None])


def test_merge_adjacent_joins_overlapping_and_touching_spans_only():
    text = "aaaa bbbb cccc dddd"
    assert merge_adjacent([(10, 14), (0, 4), (2, 9)]) == [(0, 9), (10, 14)]
    assert merge_adjacent([(0, 4), (5, 9), (15, 19)], CharCounter(text)) == [(0, 9), (15, 19)]
    assert merge_adjacent([]) == []


def test_indexed_text_puts_the_context_first_only_when_asked():
    chunk = Chunk("row 1 | 2", 0, 9, 0, {"context": "a | b"})
    assert indexed_text(chunk, use_context=True) == "a | b\nrow 1 | 2"
    assert indexed_text(chunk) == indexed_text(chunk, use_context=False) == "row 1 | 2"  # off by default
    assert indexed_text(Chunk("x", 0, 1)) == "x"


class _Headed(FixedSizeChunker):
    """Fixed windows; the chunks of document "b" get a context naming a word no text contains."""

    name = ""

    def after_chunking(self):
        def zebra_on_b(document, chunks):
            return [Chunk(c.text, c.start, c.end, c.index, {**c.metadata, "context": "zebra"})
                    if c.metadata.get("source") == "b" else c for c in chunks]

        return (zebra_on_b,)


def test_compare_uses_context_for_retrieval_but_offsets_for_metrics():
    docs = tiny_docs()
    weir = SOURCE_B.index("The weir")
    question = {"id": "z", "doc": "b", "question": "zebra", "kind": "fact",
                "answers": [{"start": weir, "end": weir + 26, "text": SOURCE_B[weir : weir + 26]}]}
    chunker = {"headed": _Headed(chunk_size=10_000)}
    plain = compare_at_k_rows(chunker, docs, [question], retrievers=("bm25",), k=1, progress=False)
    headed = compare_at_k_rows(chunker, docs, [question], retrievers=("bm25",), k=1, progress=False,
                     use_context=True)
    assert plain.iloc[0]["recall"] == 0.0  # no text says "zebra": BM25 falls back to index order (doc a)
    assert headed.iloc[0]["recall"] == 1.0
    # The metrics count the chunk's own span: the context is not "sent" text.
    assert headed.iloc[0]["retrieved_chars"] == sum(not c.isspace() for c in SOURCE_B)


def test_compare_where_expand_and_merge_hooks():
    docs, questions = tiny_docs(), tiny_questions()
    chunker = {"small": FixedSizeChunker(chunk_size=60, chunk_overlap=30)}
    only_a = lambda q, chunks: np.array([c.metadata["source"] == "a" for c in chunks])  # noqa: E731
    rows = compare_at_k_rows(chunker, docs, questions, retrievers=("bm25",), k=2, progress=False,
                   where=only_a)
    assert rows.set_index("question").loc["b-1", "recall"] == 0.0  # its document was filtered out

    whole_doc = lambda hits: [(h.metadata["source"], 0, len(SOURCE_A if h.metadata["source"] == "a" else SOURCE_B))  # noqa: E731
                              for h in hits]
    expanded = compare_at_k_rows(chunker, docs, questions, retrievers=("bm25",), k=2, progress=False,
                       expand_hits=whole_doc)
    assert (expanded["recall"] == 1.0).all()
    merged = compare_at_k_rows(chunker, docs, questions, retrievers=("bm25",), k=2, progress=False,
                     expand_hits=whole_doc, merge_hits=True)
    plain = compare_at_k_rows(chunker, docs, questions, retrievers=("bm25",), k=2, progress=False)
    assert (merged["retrieved_chars"] < expanded["retrieved_chars"]).all()  # the same document sent once
    assert (merged["recall"] >= plain["recall"]).all()


def test_compare_both_context_settings_from_one_chunking():
    docs = tiny_docs()
    weir = SOURCE_B.index("The weir")
    question = {"id": "z", "doc": "b", "question": "zebra", "kind": "fact",
                "answers": [{"start": weir, "end": weir + 26, "text": SOURCE_B[weir : weir + 26]}]}
    chunkers = {"headed": _Headed(chunk_size=10_000), "plain": FixedSizeChunker(chunk_size=10_000)}
    table = compare_at_k(chunkers, docs, [question], retrievers=("bm25",), k=1, progress=False, use_context="both")
    assert list(zip(table["chunker"], table["context"])) == [
        ("headed", False), ("headed + context", True), ("plain", False),  # plain has no context to add
    ]
    by_label = table.set_index("chunker")
    assert by_label.loc["headed", "recall"] == 0.0 and by_label.loc["headed + context", "recall"] == 1.0
    with pytest.raises(ValueError, match="use_context"):
        compare_at_k(chunkers, docs, [question], retrievers=("bm25",), progress=False, use_context="yes")


def test_top_k_is_the_head_of_a_stable_full_sort_ties_to_the_lower_index():
    from chunklab.evaluation.retrieval import _top_k

    def full_sort(scores, k, mask):
        order = [i for i in np.argsort(-scores, kind="stable") if mask is None or mask[i]]
        return [int(i) for i in order[:k]]

    assert _top_k(np.array([1.0, 3.0, 3.0, 2.0, 3.0]), 2) == [1, 2]  # three-way tie at the top
    assert _top_k(np.array([1.0, 3.0, 3.0]), 2, np.array([True, False, True])) == [2, 0]
    rng = np.random.default_rng(7)
    for trial in range(2000):
        n = int(rng.integers(0, 30))
        scores = rng.integers(0, 4, n).astype(np.float32) if trial % 2 else rng.random(n).astype(np.float32)
        mask = rng.random(n) < 0.5 if trial % 3 == 0 else None
        k = int(rng.integers(0, 35))
        assert _top_k(scores, k, mask) == full_sort(scores, k, mask)


def test_bm25_tokens_are_bm25s_own_tokens_on_the_corpus():
    import bm25s

    from chunklab import list_documents, load_document
    from chunklab.evaluation.retrieval import _stem, bm25_tokens

    texts = [c.text for name in list_documents("all") for c in FixedSizeChunker(chunk_size=300)(load_document(name).text)]
    texts += ["", "a I", "Ça coûte 12 €; naïve CAFÉ’s résumé", "x_y __init__ CamelCase DATA2026", "\u00a0\t\r\n"]
    for stem in (True, False):
        ours = bm25_tokens(texts, stem)
        theirs = bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False,
                                stemmer=(lambda words: [_stem(w) for w in words]) if stem else None)
        assert ours == theirs


# -- answers with several acceptable excerpts ("alternatives") -----------------------------------------
BLOCKS = "a" * 10 + "b" * 10 + "c" * 10 + "d" * 10  # no whitespace: every character counts


def _slot(start, end, *others):
    answer = {"start": start, "end": end, "text": BLOCKS[start:end]}
    if others:
        answer["alternatives"] = [{"start": s, "end": e, "text": BLOCKS[s:e]} for s, e in others]
    return answer


def _rows(questions, budgets=(10, 20, 40), order=(2, 0, 3, 1)):
    from chunklab.evaluation.comparison import compare

    docs = [Document("d", "D", "text", BLOCKS, pathlib.Path("d.txt"))]
    result = compare({"blocks": FixedSizeChunker(chunk_size=10)}, docs, questions, retrievers=(FixedRanking(order),),
                     budget=list(budgets), progress=False)
    return {(row.question, row.budget): row for row in result.rows.itertuples()}


def test_a_slot_is_answered_when_any_of_its_excerpts_is_sent():
    # ranking [20,30) [0,10) [30,40) [10,20); the answer is at [12,18), and again at [22,28)
    plain = {"id": "plain", "doc": "d", "question": "?", "answers": [_slot(12, 18)]}
    either = {"id": "either", "doc": "d", "question": "?", "answers": [_slot(12, 18, (22, 28))]}
    rows = _rows([plain, either])
    assert rows["plain", 10].answered == 0.0 and rows["plain", 10].recall == 0.0
    # at 10 only [20,30) is sent: the alternative is whole, so it is the excerpt that counts
    assert rows["either", 10].answered == 1.0 and rows["either", 10].recall == 1.0
    assert rows["either", 10].precision == 0.6 and rows["either", 10].iou == 0.6
    # at 40 both are sent; the first wholly sent counts (the slot's own): the same numbers as plain
    for metric in ("answered", "recall", "precision", "iou"):
        assert getattr(rows["either", 40], metric) == getattr(rows["plain", 40], metric)


def test_with_nothing_whole_the_best_covered_excerpt_counts():
    # at 20 the reader gets [20,30) and [0,10): 2 of [8,14) (the slot's own) and 5 of [25,31)
    q = {"id": "q", "doc": "d", "question": "?", "answers": [_slot(8, 14, (25, 31))]}
    row = _rows([q], budgets=(20,))["q", 20]
    assert row.answered == 0.0 and row.recall == 5 / 6 and row.iou == 5 / (20 + 6 - 5)
    # every slot needs one of its excerpts: a second slot never sent keeps the question unanswered
    two = {"id": "two", "doc": "d", "question": "?", "answers": [_slot(12, 18, (22, 28)), _slot(32, 38)]}
    rows = _rows([two], budgets=(10, 30))
    assert rows["two", 10].answered == 0.0 and rows["two", 10].recall == 0.5
    assert rows["two", 30].answered == 1.0


def test_questions_without_alternatives_score_as_before():
    # an empty list of alternatives is no alternative: every number is the same as without the key
    questions = [{"id": f"q{s}", "doc": "d", "question": "?", "answers": [_slot(s, s + 7)]} for s in range(0, 33, 4)]
    bare = _rows(questions)
    keyed = _rows([{**q, "answers": [{**q["answers"][0], "alternatives": []}]} for q in questions])
    assert bare.keys() == keyed.keys() and all(bare[key] == keyed[key] for key in bare)


def test_span_and_sent_metrics_take_alternatives_by_hand():
    from chunklab.evaluation.metrics import answer_spans, chosen_alternatives, sent_metrics

    counter = CharCounter()
    q = {"doc": "d", "answers": [_slot(12, 18, (22, 28)), _slot(32, 38)]}
    golden, slots = answer_spans(q, base=100)
    assert golden == [(112, 118), (132, 138)] and slots == [((112, 118), (122, 128)), ((132, 138),)]
    assert answer_spans({"answers": [_slot(1, 3)]}) == ([(1, 3)], None)
    assert chosen_alternatives(slots, [(120, 140)], counter) == [(122, 128), (132, 138)]
    assert chosen_alternatives(slots, [(100, 101)], counter) == [(112, 118), (132, 138)]  # none reached: own
    sent = [(20, 40)]
    _, local = answer_spans(q)
    assert sent_metrics(sent, [(12, 18), (32, 38)], counter, local)["answered"] == 1.0
    assert sent_metrics(sent, [(12, 18), (32, 38)], counter)["answered"] == 0.0
    hit = span_metrics([(22, 28)], [(12, 18), (32, 38)], counter, local)
    assert hit["recall@k"] == 1.0 and hit["recall"] == 0.5
    assert span_metrics([(22, 28)], [(12, 18), (32, 38)], counter)["recall@k"] == 0.0


def test_budget_scores_with_alternatives_match_the_reference_metrics():
    from chunklab.evaluation.budget import Golden, Meter, budget_scores, spend
    from chunklab.evaluation.metrics import sent_metrics

    rng = np.random.default_rng(11)
    text = "".join(rng.choice(list("ab  c\n"), size=600))
    counter = CharCounter(text)
    meter = Meter(text, counter)
    for _ in range(60):
        starts = rng.integers(0, 550, size=8)
        spans = np.stack([starts, starts + rng.integers(1, 50, size=8)], axis=1)
        slots = [tuple((int(s), int(s) + 12) for s in rng.integers(0, 580, size=int(n))) for n in rng.integers(1, 4, 2)]
        golden = [slot[0] for slot in slots]
        if any(counter(*span) == 0 for slot in slots for span in slot):
            continue
        costs = meter.costs(spans)
        budgets = sorted(set(rng.integers(1, 150, size=4).tolist()))
        fast = budget_scores(spans, costs, Golden(golden, counter, slots), budgets, meter)
        for budget, scores in zip(budgets, fast):
            sent, _ = spend(spans, costs, budget, meter)
            reference = sent_metrics(sent, golden, counter, slots)
            assert {m: scores[m] for m in reference} == pytest.approx(reference)


def test_alternatives_are_read_and_checked_like_answers(tmp_path):
    from chunklab.evaluation.metrics import excerpts_kept_whole
    from chunklab.formats.readers import DocumentError, read_questions

    doc = Document("d.txt", "D", "text", BLOCKS, pathlib.Path("d.txt"))
    good = {"doc": "d.txt", "question": "?", "answers": [_slot(12, 18, (22, 28))]}
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(good) + "\n", encoding="utf-8")
    assert read_questions(path, [doc])[0]["answers"] == good["answers"]
    bad = {**good, "answers": [{**_slot(12, 18), "alternatives": [{"start": 22, "end": 28, "text": "cccccd"}]}]}
    path.write_text(json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(DocumentError, match="q.jsonl:1: answer 1, alternative 1: 'text' does not match"):
        read_questions(path, [doc])
    path.write_text(json.dumps({**good, "answers": [{**_slot(12, 18), "alternatives": "x"}]}) + "\n", encoding="utf-8")
    with pytest.raises(DocumentError, match="'alternatives' must be a list"):
        read_questions(path, [doc])
    # a slot is kept whole when any of its excerpts lies inside one chunk
    whole = [{**good, "doc": "d.txt"}]
    assert excerpts_kept_whole(FixedSizeChunker(chunk_size=10), [doc], whole) == 1.0
    assert excerpts_kept_whole(FixedSizeChunker(chunk_size=10), [doc], [{**good, "answers": [_slot(12, 18)]}]) == 1.0
    assert excerpts_kept_whole(FixedSizeChunker(chunk_size=10), [doc],
                               [{**good, "answers": [_slot(8, 12, (18, 22))]}]) == 0.0


def test_the_course_questions_alternatives_are_exact_spans():
    from chunklab import load_document, load_questions

    for q in load_questions(split="all"):
        text = load_document(q["doc"]).text
        for answer in q["answers"]:
            for alternative in answer.get("alternatives", ()):
                assert text[alternative["start"] : alternative["end"]] == alternative["text"], q["id"]
