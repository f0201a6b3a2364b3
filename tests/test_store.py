"""ChromaDB collections per strategy: names, ids, metadata, idempotent indexing, filters, the chroma retriever."""

from __future__ import annotations

import hashlib
import io
import json
import re
import subprocess
import sys

import numpy as np
import pytest

from chunklab import CHUNKERS, Chunk, load_document, load_questions
from chunklab.evaluation.comparison import compare, compare_at_k
from chunklab.evaluation.indexing import indexed_text
from chunklab.evaluation.retrieval import RETRIEVERS, DenseRetriever, Retriever
from chunklab.formats.readers import read_document
from chunklab.models.embed import default_embedder
from chunklab.pipeline import store
from chunklab.pipeline.cli import main
from chunklab.pipeline.export import from_dicts, json_line
from chunklab.pipeline.files import chunk_document
from chunklab.pipeline.store import ChromaRetriever
from chunklab.strategies import FixedSizeChunker, HybridChunker

VALID_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{1,510}[A-Za-z0-9]$")
# The embedding tests share one chunking of two short documents, so MiniLM (whose cache is
# process-wide) embeds each chunk and question once for the whole module.
NAMES = ("lab_notes", "support")
CHUNKER = FixedSizeChunker(chunk_size=400)


def test_collection_names_are_valid_stable_and_distinct():
    names = {
        store.collection_name(c)
        for c in [FixedSizeChunker(), FixedSizeChunker(chunk_size=200), FixedSizeChunker(chunk_size=200, chunk_overlap=40),
                  FixedSizeChunker(unit="words", chunk_size=80), FixedSizeChunker(snap_to_words=True)]
    }
    assert len(names) == 5 and all(VALID_NAME.match(n) and ".." not in n for n in names)
    assert store.collection_name(FixedSizeChunker(chunk_size=200, chunk_overlap=40)) == store.collection_name(
        FixedSizeChunker(chunk_overlap=40, chunk_size=200))
    named = store.collection_name(FixedSizeChunker(chunk_size=200, chunk_overlap=40))
    assert re.fullmatch(r"fixed-chunk_size200-chunk_overlap40-[0-9a-f]{8}", named)
    assert store.collection_name(FixedSizeChunker(snap_to_words=True)).startswith("fixed-snap_to_words-")


def test_flatten_metadata_keeps_what_chroma_can_store():
    flat = store.flatten_metadata({
        "source": "a.md", "page": np.int64(3), "score": np.float32(0.5), "keep": True, "none": None,
        "entities": ["Ada Brook", "Lisbon"], "empty": [], "mixed": [1, "two"], "pages": [(0, 10), (12, 20)],
        "parent": {"id": "p1", "level": 2, "trail": ("Intro", "Setup")},
        "ents": [{"text": "Ada", "label": "PERSON"}, {"text": "Lisbon", "label": "GPE"}],
    })
    assert flat == {
        "source": "a.md", "page": 3, "score": 0.5, "keep": True, "entities": ["Ada Brook", "Lisbon"],
        "mixed": ["1", "two"], "pages": "[[0, 10], [12, 20]]", "parent.id": "p1", "parent.level": 2,
        "parent.trail": ["Intro", "Setup"], "ents.text": ["Ada", "Lisbon"], "ents.label": ["PERSON", "GPE"],
    }
    assert type(flat["page"]) is int and type(flat["score"]) is float


@pytest.mark.parametrize("name", sorted(CHUNKERS))
def test_every_strategys_records_survive_json_and_flatten_to_chroma_metadata(name):
    from chromadb.api.types import validate_metadata

    for doc in (load_document("lab_notes"), load_document("report")):
        for record in chunk_document(CHUNKERS[name](), doc):
            assert from_dicts([json.loads(json_line(record))])[0].text == record["text"]
            validate_metadata({**store.flatten_metadata(record["metadata"]), "start": record["start"]})


def test_chunk_ids_come_from_source_offsets_and_indexed_text():
    a = Chunk("text", 0, 4, 0, {"source": "a"})
    assert store.chunk_id(a) == store.chunk_id(Chunk("text", 0, 4, 7, {"source": "a", "other": 1}))
    with_context = Chunk("text", 0, 4, 0, {"source": "a", "context": "Title"})
    assert len({store.chunk_id(a), store.chunk_id(Chunk("text", 5, 9, 0, {"source": "a"})),
                store.chunk_id(Chunk("text", 0, 4, 0, {"source": "b"})),
                store.chunk_id(with_context, use_context=True)}) == 4
    # the context is part of the id only when it is embedded, which is off by default
    assert store.chunk_id(with_context) == store.chunk_id(with_context, use_context=False) == store.chunk_id(a)


@pytest.fixture(scope="module")
def docs():
    return [load_document(name) for name in NAMES]


class RefusingEmbedder:
    """Stands in for MiniLM where nothing should need embedding."""

    dim = 384

    def __call__(self, texts):
        raise AssertionError(f"{len(texts)} texts embedded again")


def test_index_is_idempotent_persistent_and_replaces_edited_documents(tmp_path, docs, monkeypatch):
    collection = store.index_documents(tmp_path / "db", CHUNKER, docs)
    first = sorted(collection.get(include=[])["ids"])
    assert len(first) == sum(len(CHUNKER(d.text)) for d in docs) == collection.count()
    before = collection.get(include=["embeddings", "metadatas", "documents"])
    monkeypatch.setattr(store, "default_embedder", RefusingEmbedder)  # the stored vectors are reused
    again = store.index_documents(tmp_path / "db", CHUNKER, docs)
    monkeypatch.undo()
    after = again.get(include=["embeddings", "metadatas", "documents"])
    assert after["ids"] == before["ids"] and after["documents"] == before["documents"]
    assert after["metadatas"] == before["metadatas"]
    assert np.allclose(after["embeddings"], before["embeddings"], atol=1e-6)  # float32 round trips
    # a fresh client sees the same store; the collection carries the strategy and its parameters
    listed = store.collections(store.open_store(tmp_path / "db"))
    params = dict(sorted(CHUNKER.get_params().items()))
    assert listed == [{"name": store.collection_name(CHUNKER), "strategy": "fixed", "params": params,
                       "count": len(first)}]
    # an edited document: its old chunks go, the new ones come, the other document is untouched
    edited = docs[0].text[:3000]
    store.index_chunks(tmp_path / "db", CHUNKER, CHUNKER(edited, source=docs[0].name))
    assert store.collections(tmp_path / "db")[0]["count"] == len(CHUNKER(edited)) + len(CHUNKER(docs[1].text))
    kept = again.get(where={"source": docs[0].name}, include=["metadatas"])["metadatas"]
    assert {m["total_chunks"] for m in kept} == {len(CHUNKER(edited))}


def test_query_returns_chunks_with_exact_offsets_and_filters(tmp_path, docs):
    collection = store.index_documents(tmp_path / "db", CHUNKER, docs)
    question = load_questions("support")[0]
    hits = store.query(tmp_path / "db", collection.name, question["question"], k=4)
    assert len(hits) == 4 and hits[0].score >= hits[-1].score
    texts = {d.name: d.text for d in docs}
    for hit in hits:
        assert texts[hit.chunk.metadata["source"]][hit.chunk.start : hit.chunk.end] == hit.chunk.text
    only = store.query(tmp_path / "db", collection.name, question["question"], k=3, where=["source=lab_notes"])
    assert len(only) == 3 and {h.chunk.metadata["source"] for h in only} == {"lab_notes"}
    late = store.query(tmp_path / "db", collection.name, question["question"], k=50,
                       where=["source=support", "start>=10000"])
    assert late and all(h.chunk.start >= 10000 and h.chunk.metadata["source"] == "support" for h in late)
    with pytest.raises(ValueError, match="no collection 'nope'.*it has: fixed-chunk_size400-[0-9a-f]{8}"):
        store.query(tmp_path / "db", "nope", "x")
    with pytest.raises(ValueError, match="no chunk has the metadata key 'colour'"):
        store.query(tmp_path / "db", collection.name, "x", where=["colour=red"])
    with pytest.raises(ValueError, match="the value must be a number"):
        store.query(tmp_path / "db", collection.name, "x", where=["start>=soon"])


def test_pdf_chunks_are_filtered_by_page(tmp_path):
    report = load_document("report")
    chunker = FixedSizeChunker(chunk_size=1500)
    collection = store.index_documents(tmp_path / "db", chunker, [report])
    hits = store.query(tmp_path / "db", collection.name, "emissions by transport mode", k=20, where=["pages=3"])
    page = report.metadata["pages"][2]
    assert hits and all(3 in h.chunk.metadata["pages"] for h in hits)
    assert len(hits) == sum(1 for c in chunker(report.text) if c.start < page[1] and page[0] < c.end)
    assert all(h.chunk.metadata["page"] >= 3 for h in store.query(tmp_path / "db", collection.name, "x", k=20,
                                                                  where=["page>=3"]))


def test_list_metadata_filters_by_membership_and_context_is_embedded(tmp_path):
    source = "Ada Brook sailed to Lisbon.\n\nOn page two, Tomas met Ada in Porto."
    chunks = [
        Chunk(source[0:27], 0, 27, 0, {"source": "log", "page": 1, "entities": ["Ada Brook", "Lisbon"]}),
        Chunk(source[29:], 29, len(source), 1, {"source": "log", "page": 2, "entities": ["Tomas", "Ada", "Porto"],
                                               "context": "Ship's log, second page"}),
    ]
    collection = store.index_chunks(tmp_path / "db", FixedSizeChunker(), chunks, use_context=True)
    fields = json.loads(collection.metadata[store.FIELDS_KEY])
    assert fields["entities"] == "list:str" and fields["page"] == "int" and fields["context"] == "str"
    assert store.parse_where(["entities=Ada"], fields) == {"entities": {"$contains": "Ada"}}
    assert store.parse_where(["page>=2", "entities!=Lisbon"], fields) == {
        "$and": [{"page": {"$gte": 2}}, {"entities": {"$not_contains": "Lisbon"}}]}
    hits = store.query(tmp_path / "db", collection.name, "who went to Porto?", where=["entities=Ada"])
    assert [h.chunk.start for h in hits] == [29]
    assert store.query(tmp_path / "db", collection.name, "x", where=["page=1"])[0].chunk.metadata["entities"] == [
        "Ada Brook", "Lisbon"]
    with pytest.raises(ValueError, match="is a list"):
        store.parse_where(["entities>=Ada"], fields)
    # the vector of the second chunk was made from context + text, as indexing.indexed_text says
    stored = np.array(collection.get(ids=[store.chunk_id(chunks[1], use_context=True)],
                                     include=["embeddings"])["embeddings"][0])
    expected = default_embedder()(["Ship's log, second page\n" + chunks[1].text])[0]
    assert np.allclose(stored, expected, atol=1e-6)


def test_chroma_retriever_returns_the_dense_top_k():
    assert "chroma" not in RETRIEVERS and ChromaRetriever.name == "chroma"
    docs = [load_document(name) for name in NAMES]
    chunks = [c for d in docs for c in CHUNKER(d.text, source=d.name)]
    texts = [c.text for c in chunks]
    queries = [q["question"] for d in docs for q in load_questions(d.name)]
    dense, chroma = DenseRetriever(), ChromaRetriever()
    dense.index(texts)
    chroma.index(texts)
    assert chroma.search(queries, 10) == dense.search(queries, 10)
    rng = np.random.default_rng(0)
    masks = [rng.random(len(texts)) < 0.3 for _ in queries[:5]] + [None] + [np.zeros(len(texts), bool)]
    picked = queries[:5] + queries[5:7]
    assert chroma.search(picked, 5, masks) == dense.search(picked, 5, masks)
    assert chroma.search(picked, 5, masks)[-1] == []


def test_compare_with_the_chroma_retriever_matches_dense():
    table = compare_at_k({"fixed": CHUNKER}, list(NAMES), retrievers=("dense", ChromaRetriever()), k=5, progress=False)
    metrics = ["recall@k", "recall", "precision", "iou"]
    dense, chroma = (table[table.retriever == r][metrics].to_numpy() for r in ("dense", "chroma"))
    assert np.array_equal(dense, chroma)


def test_cli_index_then_query(tmp_path, capsys):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in NAMES:
        path = load_document(name).path
        (docs / path.name).write_bytes(path.read_bytes())
    out = io.StringIO()
    status = main(["index", str(docs), "--store", str(tmp_path / "db"), "--strategy", "fixed", "--param", "chunk_size=400",
                   "--strategy", "fixed", "--param", "chunk_size=1500", "--jobs", "1"], out=out)
    assert status == 0, capsys.readouterr().err
    names = [line.split("\t")[0] for line in out.getvalue().splitlines()]
    assert names == [store.collection_name(FixedSizeChunker(chunk_size=s)) for s in (400, 1500)]
    out = io.StringIO()
    status = main(["query", "--store", str(tmp_path / "db"), "--collection", names[0], "--where",
                   "source=support_chat.txt", "-k", "2", "--json", load_questions("support")[1]["question"]], out=out)
    assert status == 0
    hits = [json.loads(line) for line in out.getvalue().splitlines()]
    support = load_document("support").text
    assert len(hits) == 2 and all(support[h["start"] : h["end"]] == h["text"] for h in hits)
    status = main(["query", "--store", str(tmp_path / "db"), "--collection", "missing", "q"], out=io.StringIO())
    err = capsys.readouterr().err
    assert status == 2 and "it has: " in err and all(name in err for name in names)
    status = main(["query", "--store", str(tmp_path / "nowhere"), "--collection", names[0], "q"], out=io.StringIO())
    assert status == 2 and "no ChromaDB store at" in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()
    (tmp_path / "empty").mkdir()
    status = main(["index", str(tmp_path / "empty"), "--store", str(tmp_path / "nowhere"), "--strategy", "fixed"],
                  out=io.StringIO())
    assert status == 1 and "no chunks to index" in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()


def test_importing_chunklab_does_not_import_chromadb():
    code = ("import sys, chunklab, chunklab.evaluation.comparison, chunklab.pipeline.cli; "
            "from chunklab.evaluation.retrieval import RETRIEVERS; "
            "assert 'bm25' in RETRIEVERS; "
            "print(sorted(m for m in sys.modules if m.startswith(('chromadb', 'dask'))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_a_budgeted_query_sends_each_character_once_and_spends_the_budget(tmp_path, docs):
    """Overlapping windows: each hit sends only what better hits have not sent, until the budget is spent."""
    overlapping = FixedSizeChunker(chunk_size=400, chunk_overlap=200)
    collection = store.index_documents(tmp_path / "db", overlapping, docs)
    question = load_questions("support")[0]["question"]
    texts = {d.name: d.text for d in docs}
    hits = store.query(tmp_path / "db", collection.name, question, budget=1000)
    sent = [(h.chunk.metadata["source"], start, end) for h in hits for start, end in h.sent]
    assert sum(end - start for _, start, end in sent) == 1000, "the budget is spent exactly"
    for hit in hits:
        assert all(hit.chunk.start <= s < e <= hit.chunk.end for s, e in hit.sent), "a hit sends its own text"
        assert hit.sent_text == "\n\n".join(texts[hit.chunk.metadata["source"]][s:e] for s, e in hit.sent)
    covered = {}
    for source, start, end in sent:
        chars = covered.setdefault(source, set())
        assert not chars & set(range(start, end)), "no character is sent twice"
        chars.update(range(start, end))
    plain = store.query(tmp_path / "db", collection.name, question, k=len(hits))
    assert [h.id for h in plain][:2] == [h.id for h in hits][:2], "the ranking is the plain query's"
    assert all(h.sent == ((h.chunk.start, h.chunk.end),) for h in plain), "without a budget a hit sends itself"
    with pytest.raises(ValueError, match="'budget' must be a positive"):
        store.query(tmp_path / "db", collection.name, question, budget=0)


def test_cli_budget_sizes_the_hybrid_and_is_refused_by_a_strategy_without_one(tmp_path, capsys):
    doc = load_document("manual").path
    out = io.StringIO()
    assert main(["chunk", str(doc), "--budget", "2000", "--jobs", "1"], out=out) == 0
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    sized = HybridChunker(budget=2000)(load_document("manual").text)
    assert [(r["start"], r["end"]) for r in records] == [(c.start, c.end) for c in sized]
    assert main(["chunk", str(doc), "--strategy", "fixed", "--budget", "2000"], out=io.StringIO()) == 2
    assert "has none" in capsys.readouterr().err
    assert main(["chunk", str(doc), "--budget", "0"], out=io.StringIO()) == 2


# -- use_context: one rule for compare, the store and the command line -----------------------------
GUIDE = ("# Harbor Guide\n\nHarbor Cache keeps copies of packages close to the build machines.\n\n"
         "## Install\n\nDownload the archive and unpack it. Run the installer as an ordinary user.\n\n"
         "## Zebra crossings\n\nPeers talk to each other on port 7481. The admin API is bound to localhost.\n")
NOTES = "Field notes\n\nThe river rose in spring. Fishermen counted the salmon by hand. The weir was built in 1911.\n"


class Recorder(Retriever):
    """Keeps every list of texts `compare` indexes (one per chunking and context setting); ranks in
    index order."""

    name = "recorder"

    def __init__(self):
        self.indexed = []

    def index(self, texts):
        self.indexed.append(list(texts))

    def search(self, queries, k, allowed=None):
        return [list(range(min(k, len(self.indexed[-1])))) for _ in queries]


class RecordingEmbedder:
    """Stands in for MiniLM in the store: keeps every text it embeds, in order; a unit vector per text."""

    dim = 384

    def __init__(self):
        self.texts = []

    def __call__(self, texts):
        self.texts.extend(texts)
        seeds = [int(hashlib.sha256(t.encode()).hexdigest()[:8], 16) for t in texts]
        vectors = np.array([np.random.default_rng(s).normal(size=self.dim) for s in seeds], dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.fixture
def own_files(tmp_path):
    """A markdown guide with sections and a plain text file with a title line, and a question about each."""
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "guide.md").write_text(GUIDE, encoding="utf-8")
    (folder / "notes.txt").write_text(NOTES, encoding="utf-8")
    documents = [read_document(folder / name, name) for name in ("guide.md", "notes.txt")]
    questions = []
    for doc, answer in zip(documents, ("Peers talk to each other on port 7481", "The weir was built in 1911")):
        start = doc.text.index(answer)
        questions.append({"id": doc.name, "doc": doc.name, "question": "zebra weir", "kind": "fact",
                          "answers": [{"start": start, "end": start + len(answer), "text": answer}]})
    (tmp_path / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    return folder, documents, questions


#: A chunker without a context of its own, one that writes one on the markdown guide only, and one
#: that decides about context itself (its `context` parameter).
CONTEXT_CASES = {"fixed": FixedSizeChunker(chunk_size=60), "markdown": CHUNKERS["markdown"](chunk_size=80),
                 "hybrid": HybridChunker(chunk_size=80, min_chunk_size=20)}


@pytest.mark.parametrize("use_context", [False, True])
@pytest.mark.parametrize("name", sorted(CONTEXT_CASES))
def test_the_store_embeds_what_compare_indexes(tmp_path, monkeypatch, own_files, name, use_context):
    _, documents, questions = own_files
    chunker = CONTEXT_CASES[name]
    recorder = Recorder()
    compare({name: chunker}, documents, questions, retrievers=(recorder,), budget=[100], use_context=use_context,
            progress=False)
    embedder = RecordingEmbedder()
    monkeypatch.setattr(store, "default_embedder", lambda: embedder)
    collection = store.index_documents(tmp_path / "db", chunker, documents, use_context=use_context)
    assert embedder.texts == recorder.indexed[0]
    plain = [c.text for d in documents for c in chunker(d.text, source=d.name)]
    assert (embedder.texts != plain) is use_context, "with a context every document's chunks have one here"
    # each id is the hash of what was embedded, and the context embedded is the one stored
    stored = collection.get(include=["documents", "metadatas"])
    for key, text, metadata in zip(stored["ids"], stored["documents"], stored["metadatas"]):
        chunk = Chunk(text, metadata["start"], metadata["end"], metadata["chunk_index"], metadata)
        assert key == store.chunk_id(chunk, use_context) and indexed_text(chunk, use_context) in embedder.texts


@pytest.mark.parametrize("flag", [[], ["--use-context"]])
def test_index_use_context_embeds_what_evaluate_use_context_indexes(tmp_path, monkeypatch, capsys, own_files, flag):
    """The flag's help: evaluate indexes, and index embeds, each chunk with a context (its chunker's
    own, else the document's title and section breadcrumb) only with --use-context; index keeps the
    context in the chunk's metadata."""
    from chunklab.pipeline import cli

    folder, _, _ = own_files
    files = [str(folder / "guide.md"), str(folder / "notes.txt")]
    for strategy in ("fixed", "markdown"):
        recorder, embedder = Recorder(), RecordingEmbedder()
        monkeypatch.setattr(cli, "_retriever", lambda name: recorder)
        monkeypatch.setattr(store, "default_embedder", lambda: embedder)
        assert main(["evaluate", *files, "--questions", str(tmp_path / "questions.jsonl"), "--strategy", strategy,
                     "--param", "chunk_size=60", "--retriever", "bm25", "--budget", "100", "--no-progress", *flag],
                    out=io.StringIO()) == 0
        out = io.StringIO()
        assert main(["index", *files, "--store", str(tmp_path / strategy), "--strategy", strategy,
                     "--param", "chunk_size=60", "--jobs", "1", "--no-progress", *flag], out=out) == 0, (
            capsys.readouterr().err)
        assert embedder.texts == recorder.indexed[0], strategy
        name = out.getvalue().split("\t")[0]
        stored = store.open_store(tmp_path / strategy).get_collection(name).get(include=["documents", "metadatas"])
        contexts = {(m["source"], text): m.get("context") for text, m in zip(stored["documents"], stored["metadatas"])}
        embedded = {f"{c}\n{t}" if c and flag else t for (_, t), c in contexts.items()}
        assert set(embedder.texts) == embedded
        if strategy == "fixed":  # no context of its own: the step's title and breadcrumb, kept in the metadata
            peers = next(key for key in contexts if "Peers talk" in key[1])
            notes = [key for key in contexts if key[0] == "notes.txt"]
            assert contexts[peers] == ("Harbor Guide > Zebra crossings" if flag else None)
            assert all(contexts[key] == ("Field notes" if flag else None) for key in notes)
        else:  # the markdown chunker's own context on the guide; the notes, without one, get the step's
            assert all(contexts[key] for key in contexts if key[0] == "guide.md")
            assert all((contexts[key] == "Field notes") is bool(flag) for key in contexts if key[0] == "notes.txt")
