"""Scoring sentence splitters against a gold set of sentence boundaries.

The gold set, ``data/sentences_gold.jsonl``, holds short English passages written for this course,
each with the exact span of every sentence, full of the cases splitters get wrong (abbreviations,
also at the end of a sentence, initials, times, decimals and versions, quotes and brackets after
the full stop, ellipses, URLs, inline list items, headings without final punctuation, CRLF text,
chat lines and table rows; see ``data/README.md``). ``data/sentences_gold_multilingual.jsonl``
holds passages of the same kind in ten languages, each passage with its ``language``.

A *boundary* is the end offset of every sentence but a passage's last. A splitter's boundaries are
compared with the gold ones exactly: a boundary one character off (a closing quote left to the
next sentence) is both a false boundary and a missed one. Precision is the share of the splitter's
boundaries that are real, recall the share of real boundaries it found, F1 their harmonic mean.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..text.sentences import METHOD_LANGUAGES, SENTENCE_METHODS, sentence_spans
from ..text.spans import Span

__all__ = [
    "GoldPassage",
    "Splitter",
    "boundaries",
    "boundary_scores",
    "language_scores",
    "load_sentence_gold",
    "score_splitters",
    "splitter_for",
]

#: A sentence splitter: text in, sentence spans (sorted, non-overlapping) out.
Splitter = Callable[[str], Sequence[Span]]


@dataclass(frozen=True)
class GoldPassage:
    """One passage of the gold set: its text, the exact span of each sentence, its traps and language."""

    id: str
    traps: tuple[str, ...]
    text: str
    sentences: tuple[Span, ...]
    language: str = "en"

    def boundaries(self) -> set[int]:
        """The gold boundaries: the end of every sentence but the last."""
        return boundaries(self.sentences)


def load_sentence_gold(multilingual: bool = False) -> list[GoldPassage]:
    """The passages of ``sentences_gold.jsonl`` (English) or, with `multilingual`, of
    ``sentences_gold_multilingual.jsonl`` (ten languages) in the corpus folder, in file order."""
    from ..formats.corpus import data_dir

    name = "sentences_gold_multilingual.jsonl" if multilingual else "sentences_gold.jsonl"
    passages = []
    with open(data_dir() / name, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                record = json.loads(line)
                passages.append(
                    GoldPassage(
                        record["id"],
                        tuple(record["traps"]),
                        record["text"],
                        tuple((s["start"], s["end"]) for s in record["sentences"]),
                        record.get("language", "en"),
                    )
                )
    return passages


def boundaries(spans: Iterable[Span]) -> set[int]:
    """The end offset of every span but the last (the spans are sorted sentences of one text)."""
    ends = sorted(end for _, end in spans)
    return set(ends[:-1])


def splitter_for(method: str, language: str = "auto") -> Splitter:
    """The splitter of `chunklab.text.sentences.sentence_spans` for `method` and `language`, uncached
    (for timing)."""
    if method not in SENTENCE_METHODS:
        raise ValueError(f"method must be one of {list(SENTENCE_METHODS)}, got {method!r}")
    return lambda text: sentence_spans(text, method, language, cache=False)  # type: ignore[arg-type]


def boundary_scores(predicted: Sequence[Sequence[Span]], passages: Sequence[GoldPassage]) -> dict[str, float]:
    """Boundary precision, recall and F1 of predicted sentence spans, one list per passage.

    Also returns the counts: ``true`` (boundaries found), ``false`` (boundaries that are not real),
    ``missed`` (real boundaries not found) and ``passages_wrong`` (passages with any error).
    """
    if len(predicted) != len(passages):
        raise ValueError(f"got {len(predicted)} predictions for {len(passages)} passages")
    true = false = missed = wrong = 0
    for spans, passage in zip(predicted, passages):
        found, gold = boundaries(spans), passage.boundaries()
        true += len(found & gold)
        false += len(found - gold)
        missed += len(gold - found)
        wrong += found != gold
    precision = true / (true + false) if true + false else 0.0
    recall = true / (true + missed) if true + missed else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "true": true, "false": false,
            "missed": missed, "passages_wrong": wrong}


def score_splitters(
    splitters: Sequence[str] | Mapping[str, Splitter] = SENTENCE_METHODS,
    passages: Sequence[GoldPassage] | None = None,
    repeat: int = 3,
) -> Any:
    """One row per splitter: boundary precision, recall, F1, the error counts, and speed.

    `splitters` are `sentence_spans` methods, or ``{name: splitter}``. Speed is gold sentences per
    second over the whole gold set, the best of `repeat` timed runs after one warm-up run (which
    loads any model); ``sentence_spans`` is called with its cache off. Returns a pandas DataFrame
    indexed by splitter name.
    """
    import pandas as pd

    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, got {repeat}")
    named = dict(splitters) if isinstance(splitters, Mapping) else {m: splitter_for(m) for m in splitters}
    passages = load_sentence_gold() if passages is None else list(passages)
    gold_sentences = sum(len(p.sentences) for p in passages)
    rows = {}
    for name, split in named.items():
        predicted = [list(split(p.text)) for p in passages]  # warm-up, and the predictions scored
        best = float("inf")
        for _ in range(repeat):
            started = time.perf_counter()
            for p in passages:
                split(p.text)
            best = min(best, time.perf_counter() - started)
        rows[name] = {**boundary_scores(predicted, passages), "sentences_per_s": gold_sentences / best}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("splitter")


def language_scores(
    methods: Sequence[str] = SENTENCE_METHODS, passages: Sequence[GoldPassage] | None = None
) -> Any:
    """Boundary F1 of each method on each language's passages, each passage split with its own
    language given (not detected). A method without rules for a language (`METHOD_LANGUAGES`) gets
    NaN there. Returns a pandas DataFrame: one row per language (in order of first appearance), one
    column per method, and a column ``sentences`` with the language's gold sentences."""
    import pandas as pd

    passages = load_sentence_gold(multilingual=True) if passages is None else list(passages)
    by_language: dict[str, list[GoldPassage]] = {}
    for passage in passages:
        by_language.setdefault(passage.language, []).append(passage)
    rows = {}
    for language, group in by_language.items():
        row: dict[str, float] = {"sentences": sum(len(p.sentences) for p in group)}
        for method in methods:
            if language not in METHOD_LANGUAGES[method]:
                row[method] = float("nan")
                continue
            split = splitter_for(method, language)
            row[method] = boundary_scores([list(split(p.text)) for p in group], group)["f1"]
        rows[language] = row
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("language")
