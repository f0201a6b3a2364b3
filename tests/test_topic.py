"""Topic chunking: TextTiling as NLTK computes it (but in linear time), LDA/NMF segmentation, topic
metadata, the topic plot, and Pk/WindowDiff against section headings."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunklab import load_document
from chunklab.core import ParameterError
from chunklab.evaluation.section_boundaries import (
    boundary_string,
    equal_starts,
    plain_text_headings,
    section_starts,
    segmentation_scores,
    segmentation_table,
)
from chunklab.models.lda import fit_lda, lda_e_step
from chunklab.strategies import FixedSizeChunker, TopicChunker, topic
from chunklab.strategies.topic import TextTiler, _depth_scores, _runs, topic_profile

GARDEN = "tomatoes basil compost seedlings watering trellis mulch harvest greenhouse soil".split()
ENGINE = "pistons crankshaft gearbox torque cylinders exhaust ignition radiator clutch spark".split()
HARBOUR = "ferries moorings tides pilots cargo cranes quays dredging tugboats berths".split()


def paragraphs(vocabulary: list[str], count: int, seed: int) -> list[str]:
    """`count` paragraphs of three sentences drawn from `vocabulary` (deterministic)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        sentences = [" ".join(rng.choice(vocabulary, 9)).capitalize() + "." for _ in range(3)]
        out.append(" ".join(sentences))
    return out


def three_topics() -> str:
    return "\n\n".join(paragraphs(GARDEN, 6, 1) + paragraphs(ENGINE, 6, 2) + paragraphs(HARBOUR, 6, 3))


# -- TextTiling ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def nltk_reference():
    from nltk.tokenize.texttiling import TextTilingTokenizer
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return TextTilingTokenizer(stopwords=sorted(ENGLISH_STOP_WORDS))


@pytest.mark.parametrize("name", ["lab_notes", "support"])
def test_texttiler_gives_nltks_segments_on_the_corpus(nltk_reference, name) -> None:
    text = load_document(name).text
    assert TextTiler().tokenize(text) == nltk_reference.tokenize(text)


DRAWN_WORDS = [*GARDEN, *ENGINE, "the", "and", "it's", "co-op", "42", "Über"]


@settings(max_examples=25)
@given(
    st.lists(
        st.lists(st.sampled_from(DRAWN_WORDS), min_size=5, max_size=60).map(" ".join),
        min_size=2,
        max_size=14,
    ),
    st.sampled_from(["\n\n", "\n \n", "\r\n\r\n", "\n\n\n"]),
)
def test_texttiler_matches_nltk_on_drawn_texts(nltk_reference, paras, separator) -> None:
    text = separator.join(paras)
    try:
        expected = nltk_reference.tokenize(text)
    except (ValueError, ZeroDivisionError):  # NLTK gives up on texts this short; we return one segment
        expected = [text]
    assert TextTiler().tokenize(text) == expected


def test_depth_scores_match_nltks_definition() -> None:
    from nltk.tokenize.texttiling import TextTilingTokenizer

    scores = np.array([0.3, 0.5, 0.2, 0.2, 0.4, 0.1, 0.6, 0.6, 0.3, 0.2, 0.5, 0.4, 0.7, 0.1])
    expected = TextTilingTokenizer(stopwords=[])._depth_scores(list(scores))
    np.testing.assert_allclose(_depth_scores(scores), expected)


def test_text_without_paragraph_breaks_is_one_segment() -> None:
    text = " ".join(paragraphs(GARDEN, 4, 1) + paragraphs(ENGINE, 4, 2))
    assert TextTiler().boundaries(text) == []
    chunks = TopicChunker(chunk_size=100_000)(text)
    assert len(chunks) == 1


def test_texttiling_cuts_at_paragraph_breaks_near_topic_changes() -> None:
    text = three_topics()
    chunks = TopicChunker(method="texttiling", block=4, chunk_size=100_000)(text)
    assert all(text[c.start - 2 : c.start] == "\n\n" for c in chunks[1:])
    changes = [text.index(paragraphs(ENGINE, 1, 2)[0]), text.index(paragraphs(HARBOUR, 1, 3)[0])]
    starts = [c.start for c in chunks]
    paragraph_length = len(paragraphs(GARDEN, 1, 1)[0]) + 2
    assert all(min(abs(s - change) for s in starts) <= paragraph_length for change in changes)


# -- topic models ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["lda", "nmf"])
def test_topic_models_cut_where_the_vocabulary_changes(method) -> None:
    text = three_topics()
    chunker = TopicChunker(method=method, n_topics=3, buffer=1, min_sentences=3, chunk_size=100_000)
    chunks = chunker(text)
    assert len(chunks) == 3
    changes = [text.index(paragraphs(ENGINE, 1, 2)[0]), text.index(paragraphs(HARBOUR, 1, 3)[0])]
    sentence = len(text) // 54 + 2
    assert all(abs(c.start - change) <= 2 * sentence for c, change in zip(chunks[1:], changes))
    for chunk, vocabulary in zip(chunks, (GARDEN, ENGINE, HARBOUR)):
        words = chunk.metadata["topic"].split(", ")
        assert len(set(words) & set(vocabulary)) >= 3, (words, vocabulary)


def test_topic_profile_rows_are_distributions() -> None:
    profile = topic_profile(three_topics(), "nmf", n_topics=3)
    np.testing.assert_allclose(profile.mixtures.sum(axis=1), 1.0)
    assert len(profile.words) == 3 and all(len(w) == 6 for w in profile.words)
    assert profile.dominant.shape == (len(profile.units),)


@pytest.mark.parametrize("method", ["lda", "nmf"])
def test_more_topics_than_sentences_or_words(method) -> None:
    text = "A short warm-up text. It makes a chunker load what it needs.\n\nA second paragraph follows here."
    profile = topic_profile(text, method, n_topics=8)
    assert 1 <= len(profile.words) <= 3 and profile.mixtures.shape == (3, len(profile.words))
    assert TopicChunker(method=method, n_topics=8)(text)


def test_topic_models_without_words_give_one_segment() -> None:
    text = "12 34. 56 78. 90 12.\n\n34 56. 78 90."
    for method in ("lda", "nmf", "texttiling"):
        chunks = TopicChunker(method=method)(text)
        assert len(chunks) == 1 and chunks[0].text == text.strip()


def sentence_windows(text: str, context: int, stride: int = 1):
    """The word counts of the windows the topic models see, as `topic_profile` builds them."""
    counts = topic._sentence_counts(text, "regex").counts
    return (topic._windows(counts.shape[0], context, stride) @ counts).tocsr()


def test_vectorised_lda_is_scikit_learns() -> None:
    from sklearn.decomposition import LatentDirichletAllocation

    windows = sentence_windows(three_topics(), context=2, stride=3)
    windows = windows[np.r_[0 : windows.shape[0], 0]]  # and a document without words
    windows.data[windows.indptr[-2] :] = 0
    windows.eliminate_zeros()
    for steps in (topic._LDA_DOCUMENT_STEPS, 100):
        reference = LatentDirichletAllocation(
            n_components=4, learning_method="batch", max_iter=10, max_doc_update_iter=steps, random_state=0
        ).fit(windows)
        components, exp_topic_word = fit_lda(windows, 4, max_doc_update_iter=steps)
        np.testing.assert_allclose(components, reference.components_, rtol=1e-6)
        gamma = lda_e_step(windows, exp_topic_word, 0.25, np.ones((windows.shape[0], 4)), max_iter=steps)
        np.testing.assert_allclose(gamma / gamma.sum(axis=1, keepdims=True), reference.transform(windows), atol=1e-6)


def test_nmf_mixtures_at_the_fitted_context_are_the_fitted_ones() -> None:
    from sklearn.decomposition import NMF
    from sklearn.feature_extraction.text import TfidfTransformer

    text = three_topics()
    weights = TfidfTransformer(sublinear_tf=True).fit_transform(sentence_windows(text, topic._FIT_CONTEXT))
    expected = NMF(n_components=3, init="nndsvda", max_iter=topic._NMF_MAX_ITER, random_state=0).fit_transform(weights)
    expected /= expected.sum(axis=1, keepdims=True)
    profile = topic_profile(text, "nmf", n_topics=3, buffer=topic._FIT_CONTEXT)
    np.testing.assert_allclose(profile.mixtures, expected, rtol=1e-9)


@pytest.mark.parametrize("name", ["stations", "faq_page"])
def test_nmf_converges_on_the_corpus_documents_slowest_to_fit(name) -> None:
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        topic._fitted.__wrapped__(load_document(name).text, "nmf", 5, "regex")


@pytest.mark.parametrize("method", ["lda", "nmf"])
def test_context_reads_the_model_fitted_once_per_topic_count(method) -> None:
    text = "\n\n".join(paragraphs(GARDEN, 5, 7) + paragraphs(ENGINE, 5, 8))
    first = topic_profile(text, method, n_topics=2, buffer=0)
    fits = topic._fitted.cache_info().misses
    wider = [topic_profile(text, method, n_topics=2, buffer=c) for c in (1, 3, 6)]
    assert topic._fitted.cache_info().misses == fits  # context moves refit nothing
    assert all(p.words == first.words for p in wider)
    topic_profile(text, method, n_topics=3, buffer=1)
    assert topic._fitted.cache_info().misses == fits + 1
    if method == "lda":  # a window's mixture is its sentences' topic counts, summed
        evidence = first.mixtures * topic._fitted(text, "lda", 2, "regex").sentence_topics.sum(axis=1, keepdims=True)
        summed = np.array([evidence[max(i - 3, 0) : i + 4].sum(axis=0) for i in range(len(evidence))])
        np.testing.assert_allclose(wider[1].mixtures, summed / summed.sum(axis=1, keepdims=True))


@settings(max_examples=60)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=40), st.integers(1, 6))
def test_runs_partition_and_respect_the_minimum(labels, minimum) -> None:
    runs = _runs(np.array(labels), minimum)
    assert runs[0][0] == 0 and runs[-1][1] == len(labels)
    assert all(a == b for (_, a), (b, _) in zip(runs, runs[1:]))
    if len(runs) > 1:
        assert all(b - a >= minimum for a, b in runs)


def test_metadata_and_size_contract() -> None:
    text = three_topics()
    for method in ("texttiling", "lda", "nmf"):
        chunker = TopicChunker(method=method, chunk_size=60, unit="words")
        chunks = chunker(text, source="t")
        assert all(chunker.measure(c.text) <= 60 for c in chunks)
        assert all(isinstance(c.metadata["topic"], str) and c.metadata["topic"] for c in chunks)
        segments = [c.metadata["segment"] for c in chunks]
        assert segments == sorted(segments)


def test_parameter_errors_and_pickling() -> None:
    with pytest.raises(ParameterError, match="n_topics"):
        TopicChunker(n_topics=1)
    with pytest.raises(ParameterError, match="method"):
        TopicChunker(method="bertopic")
    chunker = TopicChunker(method="nmf", n_topics=4)
    assert pickle.loads(pickle.dumps(chunker)) == chunker
    with pytest.raises(ValueError, match="lda"):
        TopicChunker().profile("Some text.")


def test_topic_plot_draws_cuts_and_sections() -> None:
    import matplotlib

    matplotlib.use("Agg")
    from chunklab.viz.curves import topic_plot

    text = three_topics()
    sections = [text.index(paragraphs(ENGINE, 1, 2)[0])]
    for method in ("texttiling", "nmf"):
        chunker = TopicChunker(method=method, n_topics=3, block=4, chunk_size=100_000)
        figure = topic_plot(chunker, text, sections=sections)
        top, bottom = figure.axes
        vertical = [line for line in top.lines if len(set(line.get_xdata())) == 1]
        assert len(vertical) == len(chunker(text)) - 1 + len(sections)
        assert len(bottom.patches) == len(chunker(text))


# -- segmentation quality ----------------------------------------------------------------------------------
def test_boundary_string_marks_the_word_where_a_segment_starts() -> None:
    words = [(0, 3), (4, 7), (8, 11), (12, 15)]
    assert boundary_string([0, 4, 9, 11], words) == "0111"  # 9 is inside word 2, 11 just after it
    assert boundary_string([14, 16], words) == "0001"
    assert boundary_string([], words) == "0000"


def test_plain_text_headings_and_section_starts() -> None:
    text = "TITLE OF THE PIECE\n\nSome text here.\n\n2. SECOND PART\n\nMore text.\n\nA lowercase line"
    assert plain_text_headings(text) == [0, text.index("2. SECOND")]
    assert section_starts(text) == [text.index("2. SECOND")]
    markdown = "# Title\n\nIntro.\n\n## One\n\nText.\n\n### Deeper\n\nText.\n\n## Two\n\nEnd."
    assert section_starts(markdown) == [markdown.index("## One"), markdown.index("## Two")]
    deeper = [markdown.index("## One"), markdown.index("### Deeper"), markdown.index("## Two")]
    assert section_starts(markdown, max_level=3) == deeper


def test_pk_and_windowdiff_reward_the_real_sections() -> None:
    doc = load_document("article")
    reference = section_starts(doc.text)
    assert len(reference) == 8
    perfect = segmentation_scores(reference, reference, doc.text)
    assert perfect["pk"] == 0 and perfect["windowdiff"] == 0 and perfect["reference"] == 8
    blind = segmentation_scores(FixedSizeChunker(chunk_size=4000)(doc.text), reference, doc.text)
    assert blind["pk"] > 0.2 and blind["windowdiff"] >= blind["pk"]
    with pytest.raises(ValueError, match="k must be"):
        segmentation_scores([], reference, doc.text, k=10**6)


def test_segmentation_table_rows() -> None:
    docs = [load_document("lab_notes"), load_document("stations")]
    table = segmentation_table({"tiling": TopicChunker(chunk_size=10**6), "fixed": FixedSizeChunker(chunk_size=1000)}, docs)
    assert set(table["doc"]) == {"lab_notes"}  # the CSV has no headings
    assert list(table["chunker"]) == ["tiling", "fixed", "equal parts"]
    assert {"pk", "windowdiff", "k", "reference", "hypothesis"} <= set(table.columns)
    assert table["pk"].between(0, 1).all()
    equal = table.set_index("chunker").loc["equal parts"]
    assert equal["hypothesis"] == equal["reference"], "as many equal parts as sections: one cut fewer than parts"


def test_equal_starts_cuts_at_equal_steps_at_word_starts() -> None:
    text = "word " * 200
    starts = equal_starts(text, 4)
    assert starts == [250, 500, 750]
    assert equal_starts("one two", 5) == [4] and equal_starts(text, 1) == []
    with pytest.raises(ValueError, match="pieces"):
        equal_starts(text, 0)


def test_boundary_past_the_last_paragraph_break_moves_to_that_break() -> None:
    # A marked gap whose word count lands after the last paragraph break moves back to that break
    # (NLTK's nearest-break rule); it used to read one break past the end of the list.
    text = "aa bb cc\n\ndd ee ff gg hh ii jj kk ll mm nn oo pp"
    assert TextTiler(w=2)._normalise(text, np.array([1, 1, 1, 1, 1, 1]), [10]) == [10]
    assert TextTiler(w=2)._normalise(text, np.array([1, 1, 1]), []) == []
