"""The JSON chunker: cuts only between whole values, every chunk with its JSON path as context."""

from __future__ import annotations

import json

from chunklab.formats.json_spans import json_lines_tree, json_tree
from chunklab.strategies import JsonChunker

DATA = {
    "harbour": "Millbrook",
    "berths": [{"name": f"Berth {i}", "length_m": 60 + 5 * i, "notes": "deep water " * (2 + i)} for i in range(6)],
    "log": "calm " * 120,
    "open": True,
}
TEXT = json.dumps(DATA, indent=2, ensure_ascii=False)


def member_spans(node, out):
    for member in node.members:
        out.add((member.start, member.end))
        member_spans(member, out)
    return out


def test_chunks_are_runs_of_whole_members_with_their_path():
    chunks = JsonChunker(chunk_size=160)(TEXT)
    members = member_spans(json_tree(TEXT), set())
    starts, ends = {s for s, _ in members}, {e for _, e in members}
    for chunk in chunks:
        assert len(chunk.text) <= 160 and TEXT[chunk.start : chunk.end] == chunk.text
        assert chunk.metadata["context"] == chunk.metadata["json_path"]
        if not chunk.metadata.get("cut"):
            assert chunk.start in starts and chunk.end in ends, chunk.text
    paths = [c.metadata["json_path"] for c in chunks]
    assert paths[0] == "$.harbour" and "$.berths[0]" in paths and paths[-1] == "$.open"
    log = [c for c in chunks if c.metadata["json_path"] == "$.log"]
    assert len(log) > 1 and all(c.metadata["cut"] for c in log), "a string longer than a chunk is cut at words"
    assert "".join(c.text.replace(" ", "") for c in log) == TEXT[TEXT.index('"log"') : TEXT.index('",\n  "open"') + 1].replace(" ", "")


def test_several_array_elements_are_a_slice_and_a_small_document_is_one_chunk():
    lines = "\n".join(json.dumps({"id": i, "stop": f"Quay {i}"}) for i in range(10)) + "\n"
    chunks = JsonChunker(chunk_size=100)(lines)
    assert [c.metadata["json_path"] for c in chunks] == ["$[0:3]", "$[3:6]", "$[6:9]", "$[9]"]
    assert [len(json_lines_tree(lines).members)] == [10]
    small = '{"a": [1, 2, 3], "b": "x"}'
    (only,) = JsonChunker()(small)
    assert (only.text, only.metadata["json_path"]) == (small, "$")


def test_text_that_is_not_json_is_cut_without_a_path():
    chunks = JsonChunker(chunk_size=40)("Not JSON at all: the tide turns at four, and the ferry waits for it.")
    assert len(chunks) == 2 and all("json_path" not in c.metadata for c in chunks)
