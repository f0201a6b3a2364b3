"""The course's goal, measured: does the hybrid chunker beat fixed-size chunking?

The claim (issue 11), checked per retriever, with and without indexing the chunks' context:

1. the hybrid chunker's default beats a fixed-size chunker **of the same mean chunk size** on both
   recall@k and IoU, and
2. no fixed-size chunker of notebook 16's sweep (sizes 200, 400 and the ~200-token size, each
   without overlap and with a quarter of the size as overlap) beats it on both.

`check_goal` runs every chunking through `chunklab.evaluation.comparison.compare` on the same documents,
questions and retrievers and returns a `GoalCheck`: every measured row, and a verdict per
retriever and context setting. Fixed-size chunks have no context, so they are measured once and
their rows serve both settings.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..core import Chunker
from ..formats.corpus import list_documents, load_document, load_questions
from ..formats.document import Document
from ..strategies import FixedSizeChunker, HybridChunker
from .comparison import compare
from .retrieval import Retriever

__all__ = ["GoalCheck", "check_goal", "chroma_size", "fixed_sweep", "goal_verdict", "same_mean_fixed"]

#: The retrievers notebook 16 compares.
GOAL_RETRIEVERS = ("bm25", "dense", "bm25_rerank", "hybrid")


def chroma_size(docs: Sequence[Document]) -> int:
    """200 tokens of OpenAI's ``cl100k_base`` in characters of `docs`, rounded to a hundred: the
    size of Chroma's reference configuration, as notebook 16 converts it."""
    from ..models.resources import tiktoken_encoding

    encoding = tiktoken_encoding()
    per_token = sum(len(d.text) for d in docs) / max(1, sum(len(encoding.encode(d.text)) for d in docs))
    return int(round(200 * per_token, -2))


def fixed_sweep(docs: Sequence[Document]) -> dict[str, FixedSizeChunker]:
    """Notebook 16's fixed-size sweep: sizes 200, 400 and `chroma_size`, each with overlap 0 and a
    quarter of the size, labelled ``"fixed <size>/<overlap>"``."""
    return {
        f"fixed {size}/{overlap}": FixedSizeChunker(chunk_size=size, chunk_overlap=overlap)
        for size in dict.fromkeys((200, 400, chroma_size(docs)))
        for overlap in (0, size // 4)
    }


def _mean_size(chunker: Chunker, docs: Sequence[Document]) -> float:
    sizes = [len(c) for d in docs for c in chunker(d.text)]
    return statistics.fmean(sizes) if sizes else 0.0


def same_mean_fixed(mean: float, docs: Sequence[Document]) -> FixedSizeChunker:
    """The fixed-size chunker (no overlap) whose mean chunk size over `docs` is closest to `mean`.

    A fixed window's mean chunk size grows with its size (the last window of each document and
    trimmed whitespace make it a little smaller), so the size is found by bisection."""
    low, high = 1, max(2, int(mean * 2) + 50)
    while low < high:
        middle = (low + high) // 2
        if _mean_size(FixedSizeChunker(chunk_size=middle), docs) < mean:
            low = middle + 1
        else:
            high = middle
    candidates = [size for size in (low - 1, low) if size >= 1]
    return FixedSizeChunker(chunk_size=min(candidates, key=lambda s: abs(_mean_size(FixedSizeChunker(chunk_size=s), docs) - mean)))


@dataclass(frozen=True)
class GoalCheck:
    """What `check_goal` measured.

    `rows`: one row per chunking × retriever × context setting (``chunker``, ``retriever``,
    ``context``, ``chunks``, ``size_mean``, ``recall@k``, ``iou`` and the other columns of
    `chunklab.evaluation.comparison.compare`). `verdict`: one row per retriever × context setting with the
    hybrid's and the same-mean fixed chunker's recall@k and IoU, whether the hybrid beats it on
    both (``beats_same_mean``), the sweep rows that beat the hybrid on both (``beaten_by``, empty
    when none) and ``met``.
    """

    rows: Any
    verdict: Any
    hybrid_label: str
    same_mean_label: str

    @property
    def met(self) -> bool:
        """Is the goal met for every retriever and context setting?"""
        return bool(self.verdict["met"].all())


def check_goal(
    chunker: Chunker | None = None,
    docs: Sequence[Document | str] | None = None,
    questions: Sequence[Mapping[str, Any]] | None = None,
    retrievers: Sequence[str | Retriever] = GOAL_RETRIEVERS,
    k: int = 5,
    contexts: Sequence[bool] = (False, True),
    sweep: Mapping[str, Chunker] | None = None,
    progress: bool = False,
) -> GoalCheck:
    """Measure the goal of the course for `chunker` (default: ``HybridChunker()``).

    `docs` and `questions` default to the whole corpus; `sweep` to `fixed_sweep` of `docs`.
    The same-mean fixed chunker is `same_mean_fixed` of the chunker's mean chunk size. Each
    retriever is built fresh for every chunking by `compare`, and `contexts` lists the
    ``use_context`` settings to measure the hybrid with (fixed chunks carry no context).
    """
    import pandas as pd

    hybrid = chunker if chunker is not None else HybridChunker()
    documents = [
        load_document(d) if isinstance(d, str) else d for d in (docs if docs is not None else list_documents("dev"))
    ]
    if questions is None:
        names = {d.name for d in documents}
        questions = [q for q in load_questions() if q["doc"] in names]
    same = same_mean_fixed(_mean_size(hybrid, documents), documents)
    hybrid_label, same_label = f"hybrid ({hybrid.name})", f"fixed {same.chunk_size}/0 (same mean size)"
    baselines = {same_label: same, **(sweep if sweep is not None else fixed_sweep(documents))}
    run = dict(docs=documents, questions=questions, retrievers=retrievers, k=k, progress=progress)
    fixed_rows = compare(baselines, **run)
    settings = set(contexts)
    use_context = "both" if settings == {False, True} else settings.pop()
    hybrid_rows = compare({hybrid_label: hybrid}, use_context=use_context, **run)
    if use_context is True:
        hybrid_rows = hybrid_rows.assign(chunker=f"{hybrid_label} + context")
    summary = pd.concat([hybrid_rows, fixed_rows], ignore_index=True)
    rows, verdict = goal_verdict(summary, hybrid_label, same_label, list(baselines))
    return GoalCheck(rows, verdict, hybrid_label, same_label)


def goal_verdict(summary: Any, hybrid_label: str, same_label: str, sweep_labels: Sequence[str]) -> tuple[Any, Any]:
    """The goal judged from rows `compare` already measured (notebook 16 reuses its own runs).

    `summary` holds `compare` rows for `hybrid_label` (and ``"<hybrid_label> + context"`` if
    measured with context), for the same-mean fixed chunker `same_label`, and for `sweep_labels`
    (fixed chunkers carry no context: their rows serve both settings). Returns ``(rows, verdict)``
    as `GoalCheck` holds them.
    """
    import pandas as pd

    hybrid = summary[summary["chunker"].isin([hybrid_label, f"{hybrid_label} + context"])]
    fixed = summary[summary["chunker"].isin([same_label, *sweep_labels])]
    parts = []
    for label, context in ((hybrid_label, False), (f"{hybrid_label} + context", True)):
        measured = hybrid[hybrid["chunker"] == label]
        if len(measured):
            parts.append(measured.assign(chunker=hybrid_label, context=context))
            parts.append(fixed.assign(context=context))
    rows = pd.concat(parts, ignore_index=True)
    return rows, _verdict(rows, hybrid_label, same_label)


def _verdict(rows: Any, hybrid_label: str, same_label: str) -> Any:
    """One row per retriever × context: the hybrid against the same-mean fixed chunker and the sweep."""
    import pandas as pd

    out = []
    for (retriever, context), table in rows.groupby(["retriever", "context"], sort=False):
        by_label = table.set_index("chunker")
        hybrid, same = by_label.loc[hybrid_label], by_label.loc[same_label]
        sweep = by_label.drop(index=[hybrid_label, same_label])
        beaten_by = [
            label
            for label, row in sweep.iterrows()
            if row["recall@k"] > hybrid["recall@k"] and row["iou"] > hybrid["iou"]
        ]
        beats = bool(hybrid["recall@k"] > same["recall@k"] and hybrid["iou"] > same["iou"])
        out.append({
            "retriever": retriever, "context": context,
            "hybrid recall@k": hybrid["recall@k"], "hybrid iou": hybrid["iou"],
            "same-mean recall@k": same["recall@k"], "same-mean iou": same["iou"],
            "beats_same_mean": beats, "beaten_by": ", ".join(beaten_by), "met": beats and not beaten_by,
        })
    return pd.DataFrame(out)
