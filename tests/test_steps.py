"""Steps after chunking: they add metadata to any chunker's chunks and never move a boundary; the hybrid
runs its context through them, and compare(..., use_context=True) gives every chunking a context."""

import pathlib
import pickle

import pytest

from chunklab import CHUNKERS, Chunk, Chunker, Document
from chunklab.core import ParameterError
from chunklab.evaluation.comparison import compare, indexed_pairs
from chunklab.evaluation.indexing import contextualized
from chunklab.strategies import FixedSizeChunker, HybridChunker, RecursiveChunker, TableChunker
from chunklab.strategies.llm import LLMContext
from chunklab.strategies.steps import (
    ContextStep,
    ExtractiveContext,
    Pipeline,
    PropositionStep,
    StepError,
    apply_steps,
    extractive_propositions,
    with_metadata,
)

GUIDE = (
    "# Harbor Guide\n\n"
    "Harbor Cache keeps copies of packages close to the build machines.\n\n"
    "## Install\n\n"
    "Download the archive and unpack it. Run the installer as an ordinary user.\n\n"
    "## Zebra crossings\n\n"
    "Peers talk to each other on port 7481. The admin API is bound to localhost only.\n"
)
NOTES = "Field notes\n\nThe river rose in spring. Fishermen counted the salmon by hand. The weir was built in 1911.\n"


class LineSplitter(Chunker):
    """A toy splitter from outside chunklab (it returns strings, as most libraries do), wrapped as a
    Chunker: each string is found in the text after the previous one, so the offsets are exact."""

    name = ""

    def __init__(self, separator: str = "\n\n") -> None:
        self.separator = separator
        self.validate()

    def spans(self, text):
        position = 0
        for piece in (p for p in text.split(self.separator) if p.strip()):
            start = text.index(piece, position)
            position = start + len(piece)
            yield start, position


def docs():
    return [
        Document("guide", "Harbor Guide", "markdown", GUIDE, pathlib.Path("guide.md")),
        Document("notes", "Field notes", "text", NOTES, pathlib.Path("notes.txt")),
    ]


def questions():
    peers = GUIDE.index("Peers talk")
    weir = NOTES.index("The weir")
    return [
        {"id": "z", "doc": "guide", "question": "zebra", "kind": "fact",
         "answers": [{"start": peers, "end": peers + 39, "text": GUIDE[peers : peers + 39]}]},
        {"id": "w", "doc": "notes", "question": "When was the weir built?", "kind": "fact",
         "answers": [{"start": weir, "end": weir + 26, "text": NOTES[weir : weir + 26]}]},
    ]


# -- the steps --------------------------------------------------------------------------------------
def test_context_step_gives_any_chunker_the_title_and_breadcrumb_of_its_document():
    chunks = ContextStep()(GUIDE, LineSplitter()(GUIDE))
    by_text = {c.text.split("\n")[0]: c.metadata.get("context") for c in chunks}
    assert by_text["# Harbor Guide"] == "Harbor Guide"  # the title opens the breadcrumb: said once
    assert by_text["Download the archive and unpack it. Run the installer as an ordinary user."] == (
        "Harbor Guide > Install"
    )
    assert by_text["Peers talk to each other on port 7481. The admin API is bound to localhost only."] == (
        "Harbor Guide > Zebra crossings"
    )
    whole = ContextStep()(GUIDE, [Chunk(GUIDE, 0, len(GUIDE))])[0]
    assert whole.metadata["context"] == "Harbor Guide"  # a chunk over sibling sections: their common trail
    untitled = ContextStep(ExtractiveContext(title=False, breadcrumb=False))(GUIDE, LineSplitter()(GUIDE))
    assert all("context" not in c.metadata for c in untitled)  # an empty context adds nothing


def test_steps_change_metadata_only_and_the_runner_refuses_anything_else():
    chunks = FixedSizeChunker(chunk_size=40)(GUIDE, source="guide")
    out = apply_steps(GUIDE, chunks, [ContextStep(), PropositionStep()])
    assert [(c.text, c.start, c.end, c.index) for c in out] == [(c.text, c.start, c.end, c.index) for c in chunks]
    assert all(out[i].metadata == {**c.metadata, **{k: out[i].metadata[k] for k in ("context", "propositions")}}
               for i, c in enumerate(chunks))

    def moves(document, chunks):
        return [Chunk(document[c.start + 1 : c.end], c.start + 1, c.end, c.index, c.metadata) for c in chunks]

    def drops(document, chunks):
        return list(chunks)[1:]

    def renumbers(document, chunks):
        return [Chunk(c.text, c.start, c.end, c.index + 1, c.metadata) for c in chunks]

    for bad in (moves, drops, renumbers):
        with pytest.raises(StepError, match="step"):
            apply_steps(GUIDE, chunks, [bad])


def test_proposition_step_and_a_model_written_context_step():
    chunks = apply_steps(NOTES, LineSplitter()(NOTES), [PropositionStep()])
    assert chunks[1].metadata["propositions"] == extractive_propositions(NOTES, chunks[1])
    assert len(chunks[1].metadata["propositions"]) == 3
    prompts = []

    def generate(prompt: str) -> str:
        prompts.append(prompt)
        return "About the weir."

    written = ContextStep(LLMContext(generate, keep_header=False))(NOTES, LineSplitter()(NOTES))
    assert [c.metadata["context"] for c in written] == ["About the weir."] * 2
    assert all(c.text in prompt for c, prompt in zip(written, prompts))


# -- Pipeline ---------------------------------------------------------------------------------------
def test_pipeline_is_a_chunker_with_the_wrapped_chunkers_spans():
    inner = RecursiveChunker(chunk_size=60)
    pipeline = Pipeline(inner, steps=[ContextStep()])
    chunks = pipeline(GUIDE, source="guide")
    plain = inner(GUIDE, source="guide")
    assert [(c.start, c.end) for c in chunks] == [(c.start, c.end) for c in plain]
    assert all(c.metadata["context"].startswith("Harbor Guide") for c in chunks)
    assert all(GUIDE[c.start : c.end] == c.text for c in chunks)
    assert pipeline.split_text(GUIDE) == inner.split_text(GUIDE)
    assert pipeline.size_limit() == inner.size_limit() and pipeline.measure("abc") == inner.measure("abc")
    assert pickle.loads(pickle.dumps(pipeline)) == pipeline
    assert pipeline != Pipeline(inner, steps=[ContextStep(ExtractiveContext(title=False))])
    assert pipeline.clone(chunker__chunk_size=80).chunker.chunk_size == 80
    with pytest.raises(ParameterError, match="chunker"):
        Pipeline(RecursiveChunker)
    with pytest.raises(ParameterError, match="steps"):
        Pipeline(inner, steps=["not a step"])


def test_the_hybrid_runs_its_context_and_propositions_as_steps():
    hybrid = HybridChunker(chunk_size=120, min_chunk_size=0, propositions=extractive_propositions)
    assert hybrid.after_chunking() == (ContextStep(ExtractiveContext()), PropositionStep(extractive_propositions))
    assert HybridChunker(context=None).after_chunking() == ()
    bare = HybridChunker(chunk_size=120, min_chunk_size=0, context=None)
    composed = Pipeline(bare, steps=[ContextStep(), PropositionStep()])
    assert composed(GUIDE, source="guide") == hybrid(GUIDE, source="guide")


# -- compare(..., use_context=True) ------------------------------------------------------------------
def test_use_context_indexes_a_context_for_every_registered_chunker_and_a_wrapped_splitter():
    chunkers = {name: cls() for name, cls in CHUNKERS.items()}
    chunkers["wrapped splitter"] = LineSplitter()
    result = compare(chunkers, docs(), questions(), retrievers=("bm25",), budget=[60], use_context=True,
                     progress=False)
    assert result.chunkings["context"].all() and set(result.rows["chunker"]) == set(chunkers)
    sources = {d.name: d.text for d in docs()}
    for label, chunker in chunkers.items():
        chunks = [(c.metadata["source"], c) for c in result.chunks[label]]
        indexed = indexed_pairs(chunker, chunks, sources)
        assert [(n, c.start, c.end) for n, c in indexed] == [(n, c.start, c.end) for n, c in chunks], label
        for doc in docs():
            own = "context" in chunker.get_params() or any(c.metadata.get("context") for n, c in chunks
                                                            if n == doc.name)
            if not own:  # both documents have a title, so the step writes a context on every chunk
                assert all(c.metadata.get("context") for n, c in indexed if n == doc.name), (label, doc.name)
    # The heading's word ("zebra") is only in the context: the wrapped splitter's chunk is found by it.
    answered = result.rows.set_index(["chunker", "question"])["answered"]
    plain = compare({"wrapped splitter": LineSplitter()}, docs(), questions(), retrievers=("bm25",), budget=[60],
                    progress=False)
    assert answered["wrapped splitter", "z"] == 1.0
    assert plain.rows.set_index("question").loc["z", "answered"] == 0.0


def test_a_chunkers_own_context_stands():
    table = TableChunker()
    chunks = table(GUIDE, source="guide")
    assert contextualized(table, GUIDE, chunks) == chunks  # it has a context parameter
    hybrid = HybridChunker(context=None)
    chunks = hybrid(GUIDE, source="guide")
    assert contextualized(hybrid, GUIDE, chunks) == chunks  # context=None means none
    fixed = FixedSizeChunker(chunk_size=50)
    chunks = [with_metadata(c, context="own") if c.index == 1 else c for c in fixed(GUIDE, source="guide")]
    assert contextualized(fixed, GUIDE, chunks) == chunks  # one chunk with its own: the document's stand


def test_the_rule_is_decided_document_by_document():
    """A chunker that writes a context on one document and none on another: the first document's
    chunks stand, the second's get the context step's (what a store indexing one file at a time does)."""
    fixed = FixedSizeChunker(chunk_size=50)
    guide = [with_metadata(c, context="own") for c in fixed(GUIDE, source="guide")]
    notes = fixed(NOTES, source="notes")
    pairs = [("guide", c) for c in guide] + [("notes", c) for c in notes]
    indexed = indexed_pairs(fixed, pairs, {"guide": GUIDE, "notes": NOTES})
    assert [c for n, c in indexed if n == "guide"] == guide
    assert [c for n, c in indexed if n == "notes"] == contextualized(fixed, NOTES, notes) == ContextStep()(NOTES, notes)
    assert all(c.metadata["context"] == "Field notes" for c in contextualized(fixed, NOTES, notes))


def test_use_context_gives_wrapped_langchain_and_llama_index_splitters_a_context():
    from langchain_text_splitters import RecursiveCharacterTextSplitter
    from llama_index.core.node_parser import SentenceSplitter

    from chunklab.integrations.wrapped import LangChainChunker, LlamaIndexChunker

    chunkers = {
        "langchain": LangChainChunker(text_splitter=RecursiveCharacterTextSplitter(chunk_size=90, chunk_overlap=0)),
        "llama_index": LlamaIndexChunker(node_parser=SentenceSplitter(chunk_size=30, chunk_overlap=0)),
    }
    with_context = compare(chunkers, docs(), questions(), retrievers=("bm25",), budget=[60], use_context=True,
                           progress=False)
    assert with_context.chunkings["context"].all()
    sources = {d.name: d.text for d in docs()}
    for label, chunker in chunkers.items():
        chunks = [(c.metadata["source"], c) for c in with_context.chunks[label]]
        indexed = indexed_pairs(chunker, chunks, sources)
        assert all(c.metadata.get("context") for _, c in indexed), label
        assert all(sources[n][c.start : c.end] == c.text for n, c in indexed), label
    # "zebra" is only in the heading: with the context step's breadcrumb the LangChain chunk is found.
    plain = compare(chunkers, docs(), questions(), retrievers=("bm25",), budget=[60], progress=False)
    answered = with_context.rows.set_index(["chunker", "question"])["answered"]
    assert answered["langchain", "z"] == 1.0
    assert plain.rows.set_index(["chunker", "question"]).loc[("langchain", "z"), "answered"] == 0.0


def test_a_pipeline_validates_again_when_called_after_a_direct_change():
    pipeline = Pipeline(RecursiveChunker(chunk_size=80), steps=[ContextStep()])
    pipeline.steps = ("not a step",)
    with pytest.raises(ParameterError, match="steps"):
        pipeline(GUIDE)
    pipeline.steps = ()
    pipeline.chunker.chunk_size = 0
    with pytest.raises(ParameterError, match="chunk_size"):
        pipeline(GUIDE)
