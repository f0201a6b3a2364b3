"""Does a leaderboard transfer? How far a ranking of chunkings measured on some documents predicts
the ranking on documents it has not seen.

A leaderboard is only advice if it carries over to a learner's own documents. Three views, all read
from the tidy rows of a budget `chunklab.evaluation.budget.Comparison`:

* `rank_transfer`: the Spearman rank correlation between the dev ranking of the chunkings and their
  test ranking, separately for test questions on documents the dev questions also ask about
  ("course" documents) and on documents no dev question touches ("unseen"). 1 means the same order,
  0 no relation.
* `leave_one_document_out`: for each document, the chunking that is best on every *other*
  document's questions, and how it does on this document's questions against the best chunking
  chosen with hindsight (the regret). This is what a learner who picks from a leaderboard gets.

Per-document means rest on 10-30 questions each: the regrets are noisy, and they are meant to be
read as a pattern over documents, not one by one. Choosing defaults is not done here but by the
pre-registered rule of `chunklab.evaluation.criterion` (paired tests, Holm's correction, stability).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .budget import Comparison

__all__ = ["leave_one_document_out", "rank_transfer", "unseen_documents"]


def unseen_documents(result: Comparison) -> list[str]:
    """The documents of `result` that only test questions ask about (no dev question touches them)."""
    rows = result.rows
    dev_docs = set(rows.loc[rows["split"] == "dev", "doc"].unique())
    return sorted(set(rows["doc"].unique()) - dev_docs)


def _means(rows: Any, metric: str, by: Sequence[str] = ()) -> Any:
    """Mean `metric` per chunking (and per `by` columns), over questions."""
    return rows.groupby([*by, "chunker"], sort=False)[metric].mean()


def rank_transfer(
    result: Comparison,
    metric: str = "answered",
    groups: Mapping[str, Sequence[str]] | None = None,
) -> Any:
    """Spearman correlation of the dev ranking with the test ranking, per retriever, budget and group.

    `groups` maps a name to the documents whose test questions form it; by default ``"course"`` (test
    questions on documents that dev questions also ask about) and ``"unseen"`` (the others, see
    `unseen_documents`). Returns a DataFrame with one row per retriever × budget × group: ``rho``,
    ``chunkings`` and ``questions`` (test questions in the group).
    """
    import pandas as pd
    from scipy.stats import spearmanr

    rows = result.rows
    if groups is None:
        unseen = unseen_documents(result)
        groups = {"course": sorted(set(rows["doc"].unique()) - set(unseen)), "unseen": unseen}
    dev = rows[rows["split"] == "dev"]
    if dev.empty:
        raise ValueError("rank_transfer needs dev questions in the comparison (compare with split='all')")
    out = []
    for (retriever, budget), at in rows.groupby(["retriever", "budget"], sort=False):
        dev_means = _means(at[at["split"] == "dev"], metric)
        for group, docs in groups.items():
            test = at[(at["split"] == "test") & at["doc"].isin(list(docs))]
            if test.empty:
                continue
            test_means = _means(test, metric).reindex(dev_means.index)
            rho = spearmanr(dev_means.to_numpy(), test_means.to_numpy()).statistic
            out.append({"retriever": retriever, "budget": budget, "group": group, "rho": float(rho),
                        "chunkings": len(dev_means), "questions": test["question"].nunique()})
    return pd.DataFrame(out)


def leave_one_document_out(result: Comparison, retriever: str, budget: int, split: str = "test",
                           metric: str = "answered") -> Any:
    """For each document: the chunking chosen on the other documents' questions (the highest mean
    over them, a leaderboard's pick), and how it does here.

    Returns one row per document: ``chosen``, its ``score`` here, the ``best`` chunking here with
    hindsight and its ``best_score``, and the ``regret`` (best_score - score).
    """
    import pandas as pd

    rows = result.rows
    rows = rows[(rows["retriever"] == retriever) & (rows["budget"] == budget) & (rows["split"] == split)]
    if rows.empty:
        raise ValueError(f"no rows for retriever={retriever!r}, budget={budget}, split={split!r}")
    per_doc = _means(rows, metric, by=["doc"]).unstack("doc")
    out = []
    for doc in per_doc.columns:
        others = rows[rows["doc"] != doc]
        if others.empty:
            continue
        chosen = str(_means(others, metric).idxmax())
        here = per_doc[doc]
        best = str(here.idxmax())
        out.append({"doc": doc, "chosen": chosen, "score": float(here[chosen]), "best": best,
                    "best_score": float(here[best]), "regret": float(here[best] - here[chosen])})
    return pd.DataFrame(out)
