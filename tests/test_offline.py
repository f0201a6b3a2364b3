"""Every model the course uses, and the ChromaDB store, work with the network blocked and an empty home.

The check runs in a fresh interpreter: sockets refuse to connect or resolve names, HOME points at an
empty temporary folder, and at the end that folder must still be empty.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent(
    """
    import socket

    attempts = []

    def refuse(*args, **kwargs):
        # Recorded as well as refused: a library that swallows the error (telemetry) still fails the test.
        attempts.append(args[1:] or kwargs)
        raise OSError("network access attempted during an offline test")

    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse

    import matplotlib
    matplotlib.use("Agg")
    import numpy as np
    from chunklab import CHUNKERS, load_document, list_documents
    from chunklab.models import resources
    from chunklab.text.sentences import sentence_spans
    from chunklab.viz.chunks import render_html, size_histogram

    text = "Dr. Ada Brook met the U.S. team in Paris on 3 May 2024. It rained."
    assert len(sentence_spans(text, "punkt")) == 2
    assert len(sentence_spans(text, "spacy")) == 2
    labels = {e.label_ for e in resources.spacy_ner()(text).ents}
    assert {"PERSON", "GPE"} <= labels, labels
    encoded = resources.hf_tokenizer()(text, return_offsets_mapping=True)
    assert encoded["offset_mapping"][1] == (0, 2)
    backend = resources.hf_tokenizer().backend_tokenizer
    assert backend.truncation is None and backend.padding is None
    assert len(backend.encode("word " * 600).ids) == 602
    assert len(resources.tiktoken_encoding().encode(text)) > 5
    ids = np.array([encoded["input_ids"]], dtype=np.int64)
    out = resources.minilm_onnx_session().run(
        None, {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
    )[0]
    assert out.shape == (1, ids.shape[1], 384)
    doc = load_document(list_documents()[0])
    for cls in CHUNKERS.values():
        chunks = cls()(doc.text)
        render_html(chunks, doc.text)
    size_histogram(chunks).figure.savefig("/dev/null", format="png")

    import tempfile
    from chunklab.pipeline import store
    from chunklab.strategies import FixedSizeChunker

    with tempfile.TemporaryDirectory() as folder:
        chunker = FixedSizeChunker(chunk_size=300)
        collection = store.index_chunks(folder, chunker, chunker(doc.text[:4000], source=doc.name))
        hits = store.query(folder, collection.name, "How do I install it?", k=3, where=[f"source={doc.name}"])
        assert len(hits) == 3 and all(doc.text[h.chunk.start : h.chunk.end] == h.chunk.text for h in hits)

    # The readers of real documents and the framework adapters (llama-index has been known to fetch
    # NLTK data): a web page, a Word file, Go through tree-sitter, LangChain and LlamaIndex.
    import io
    import docx
    from chunklab.formats.docx import read_docx
    from chunklab.formats.web import extract_web_page
    from chunklab.strategies import CodeChunker

    page = "<html><body><nav>Menu</nav><main><h1>Tides</h1><p>" + "The tide turns at four. " * 20 + "</p></main>"
    assert extract_web_page(page + "</body></html>")[0].startswith("# Tides\\n\\nThe tide turns")
    buffer = io.BytesIO()
    word = docx.Document()
    word.add_heading("Harbour", 0)
    word.save(buffer)
    assert read_docx(io.BytesIO(buffer.getvalue()))[0] == "# Harbour"
    assert CodeChunker(language="go")("package a\\n\\nfunc B() {}\\n")[0].metadata["definitions"] == ("function B",)
    from llama_index.core import Document as LlamaDocument
    from chunklab.integrations.langchain import ChunklabTextSplitter
    from chunklab.integrations.llama_index import ChunklabNodeParser

    assert ChunklabTextSplitter("markdown").create_documents([doc.text])
    nodes = ChunklabNodeParser.from_strategy("sentence").get_nodes_from_documents([LlamaDocument(text=doc.text)])
    assert all(doc.text[n.start_char_idx : n.end_char_idx] == n.text for n in nodes)
    # The reference rows: LangChain's splitters and LlamaIndex's SentenceSplitter (NLTK's Punkt, and
    # cl100k, which LlamaIndex alone would have tiktoken fetch) on a document long enough to split.
    from chunklab.integrations.references import reference_chunkers

    for label, chunker in reference_chunkers().items():
        chunks = chunker(doc.text)
        assert len(chunks) > 3 and all(doc.text[c.start : c.end] == c.text for c in chunks), label
    assert not attempts, f"network access attempted: {attempts}"
    print("offline ok")
    """
)


def test_all_resources_work_offline_and_write_nothing_to_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "USERPROFILE": str(home)}
    env.pop("XDG_CACHE_HOME", None)
    env.pop("XDG_CONFIG_HOME", None)
    result = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "offline ok" in result.stdout
    written = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
    assert written == [], f"files written to the home directory: {written}"
