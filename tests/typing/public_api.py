"""The public API as its users call it, for the type checker (`tests/test_readme.py` runs mypy on
it; never executed). Each line uses a public name of ``chunklab`` or of a layer the way the README,
the site's pages and the notebooks do, with the types a caller relies on written out: mypy fails
when a signature or a return type stops matching that use."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Callable, Iterator, Mapping

from chunklab import CHUNKERS, Chunk, Chunker, Document, ParameterError, compare, explore, list_documents, load_document
from chunklab import load_questions, show
from chunklab.constraints import Param
from chunklab.evaluation import curve, leaderboard, paired, summarize
from chunklab.formats import document_blocks, read_document
from chunklab.models import default_embedder
from chunklab.pipeline import chunk_document, read_jsonl, to_dicts, to_langchain, write_jsonl
from chunklab.strategies import FixedSizeChunker, HybridChunker, RecursiveChunker, SemanticChunker
from chunklab.text import length_function, pack, sentence_spans, word_spans
from chunklab.text.length import TokenizerParam, UnitParam
from chunklab.viz import chunk_stats, render_html


class LineChunker(Chunker):
    """A chunker of one's own, its parameters declared as docs/library.md and CONTRIBUTING say."""

    def __init__(
        self,
        *,
        lines: Annotated[int, Param(low=1, slider=(1, 20, 1), counted_in_unit=True)] = 1,
        unit: UnitParam = "chars",
        tokenizer: TokenizerParam = "minilm",
    ) -> None:
        self.lines: int = lines
        self.unit = unit
        self.tokenizer = tokenizer
        self.validate()

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        yield 0, len(text)


def course(path: Path) -> None:
    doc: Document = load_document("manual")
    names: list[str] = list_documents()
    questions: list[dict] = load_questions(split="test")
    chunker: Chunker = FixedSizeChunker(chunk_size=800, chunk_overlap=100, snap_to_words=True)
    chunks: list[Chunk] = chunker(doc.text, source=doc.name)
    start: int = chunks[0].start
    end: int = chunks[0].end
    text: str = chunks[0].text
    metadata: Mapping[str, Any] = chunks[0].metadata
    params: dict[str, Any] = chunker.get_params()
    same: Chunker = chunker.clone(chunk_size=400)
    chunker.set_params(chunk_overlap=50)
    registered: type[Chunker] = CHUNKERS["recursive"]
    default: Chunker = registered()
    try:
        FixedSizeChunker(chunk_overlap=500, chunk_size=400)
    except ParameterError as error:
        message: str = str(error)
    result = compare([RecursiveChunker(), HybridChunker()], retrievers=("bm25",), budget=[500, 1000], split="test")
    board = leaderboard(result, "bm25", 1000, split="test")
    table = curve(result, "bm25", split="test")
    rows = summarize(result, split="test")
    verdict = paired([1.0, 0.0], [0.0, 0.0], names=("a", "b"))
    html: str = render_html(chunks, doc.text, max_chars=2_000)
    stats: dict[str, Any] = chunk_stats(chunks, doc.text)
    show(chunks, doc.text)
    explore(SemanticChunker, doc.text)
    declared: dict[str, Param] = LineChunker.declarations()
    sizes: int = LineChunker(lines=2, unit="words").lines
    sentences: list[tuple[int, int]] = sentence_spans(doc.text)
    words: list[tuple[int, int]] = word_spans(doc.text)
    measure: Callable[[str], int] = length_function("tokens", "minilm")
    packed = pack(doc.text, sentences, 800, measure)
    blocks = document_blocks(doc.text)
    mine: Document = read_document(path)
    records: list[dict[str, Any]] = chunk_document(chunker, mine) + to_dicts(chunks) + to_langchain(chunks)
    written: Path = write_jsonl(chunks, path)
    again: list[Chunk] = read_jsonl(written)
    embed = default_embedder()
    print(names, questions, start, end, text, metadata, params, same, default, message, board, table, rows, verdict,
          html, stats, words, packed, blocks, records, again, embed, declared, sizes)
