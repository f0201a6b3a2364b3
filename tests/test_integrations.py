"""The LangChain and LlamaIndex adapters, against the real packages: exact offsets (repeated text
included), chunk metadata carried, ``context`` where LlamaIndex puts text in front of a node."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document as LangchainDocument
from langchain_text_splitters import TextSplitter
from llama_index.core import Document as LlamaDocument
from llama_index.core.node_parser import NodeParser
from llama_index.core.schema import MetadataMode, NodeRelationship

from chunklab import load_document
from chunklab.integrations.langchain import ChunklabTextSplitter, to_documents
from chunklab.integrations.llama_index import ChunklabNodeParser
from chunklab.strategies import CodeChunker, FixedSizeChunker, MarkdownChunker

REPEATED = "The tide turns. " * 40  # every chunk's text occurs many times
GUIDE = "# Install\n\n## Linux\n\nRun the installer.\n\n## Mac\n\nRun the installer.\n\n| OS | Size |\n|---|---|\n| Linux | 9 |\n"


def test_the_text_splitter_is_a_langchain_splitter_cutting_with_the_chunker():
    splitter = ChunklabTextSplitter("markdown")
    assert isinstance(splitter, TextSplitter) and splitter.chunker == MarkdownChunker()
    assert splitter.split_text(GUIDE) == [c.text for c in MarkdownChunker()(GUIDE)]
    assert ChunklabTextSplitter("fixed", chunk_size=50).chunker == FixedSizeChunker(chunk_size=50)
    with pytest.raises(ValueError, match="unknown chunker 'nope'"):
        ChunklabTextSplitter("nope")
    with pytest.raises(TypeError):
        ChunklabTextSplitter(FixedSizeChunker(), chunk_size=3)


def test_start_index_is_exact_on_repeated_text():
    documents = ChunklabTextSplitter(FixedSizeChunker(chunk_size=50)).create_documents([REPEATED], [{"source": "tide.txt"}])
    chunks = FixedSizeChunker(chunk_size=50)(REPEATED)
    assert [(d.metadata["start_index"], d.metadata["end_index"]) for d in documents] == [(c.start, c.end) for c in chunks]
    assert all(REPEATED[d.metadata["start_index"] : d.metadata["end_index"]] == d.page_content for d in documents)
    assert all(d.metadata["source"] == "tide.txt" and "content_hash" in d.metadata for d in documents)
    plain = ChunklabTextSplitter(FixedSizeChunker(chunk_size=50), add_start_index=False).create_documents([REPEATED])
    assert "start_index" not in plain[0].metadata and "chunk_index" in plain[0].metadata


def test_split_documents_and_to_documents_carry_metadata():
    source = LangchainDocument(page_content=GUIDE, metadata={"source": "guide.md"})
    documents = ChunklabTextSplitter("markdown").split_documents([source])
    assert [d.metadata["section"] for d in documents] == ["Install > Linux", "Install > Mac"]
    assert documents[1].metadata["context"] == "Install > Mac" and documents[1].metadata["source"] == "guide.md"
    manual = load_document("manual")
    made = to_documents(MarkdownChunker()(manual.text, source="manual"), {"lang": "en"})
    assert all(manual.text[d.metadata["start_index"] : d.metadata["end_index"]] == d.page_content for d in made)
    assert isinstance(made[0].metadata["breadcrumb"], list)
    code = to_documents(CodeChunker()("def a():\n    return 1\n\n\ndef b():\n    return 2\n"))
    assert code[0].metadata["definitions"] == ["def a", "def b"], "tuples become lists"


def test_the_node_parser_keeps_exact_offsets_where_llama_index_alone_would_not():
    parser = ChunklabNodeParser(chunker=FixedSizeChunker(chunk_size=50))
    assert isinstance(parser, NodeParser)
    document = LlamaDocument(text=REPEATED, metadata={"file_name": "tide.txt"})
    nodes = parser.get_nodes_from_documents([document])
    chunks = FixedSizeChunker(chunk_size=50)(REPEATED)
    assert [(n.start_char_idx, n.end_char_idx) for n in nodes] == [(c.start, c.end) for c in chunks]
    assert all(REPEATED[n.start_char_idx : n.end_char_idx] == n.text for n in nodes)
    # LlamaIndex's own placement searches the text, from just after the previous node's start:
    searched, position = [], 0
    for chunk in chunks:
        found = REPEATED.find(chunk.text, position)
        searched.append(found)
        position = found + 1
    assert searched != [c.start for c in chunks], "the search misplaces repeated passages"
    assert nodes[1].relationships[NodeRelationship.SOURCE].node_id == document.doc_id
    assert nodes[0].metadata["file_name"] == "tide.txt" and nodes[0].metadata["chunk_index"] == 0


def test_context_heads_the_node_where_llama_index_puts_text_in_front():
    parser = ChunklabNodeParser.from_strategy("markdown")
    nodes = parser([LlamaDocument(text=GUIDE)])
    mac = next(n for n in nodes if n.metadata["section"] == "Install > Mac")
    assert mac.get_content(MetadataMode.NONE) == mac.text
    embedded = mac.get_content(MetadataMode.EMBED)
    assert embedded.startswith("context: Install > Mac\n") and embedded.endswith(mac.text)
    assert "content_hash" not in embedded and "chunk_index" not in mac.get_content(MetadataMode.LLM)
    with pytest.raises(ValueError, match="unknown chunker"):
        ChunklabNodeParser.from_strategy("nope")
