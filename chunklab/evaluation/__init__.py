"""Measuring chunkers: retrieval of golden excerpts (at a budget of text, or k chunks), paired
comparisons, structure broken, boundary scores, the goal."""

from .budget import Comparison
from .comparison import compare, compare_at_k, compare_at_k_rows, default_chunkers, guidance, summarize
from .indexing import contextualized, indexed_text
from .metrics import excerpts_kept_whole, structure_metrics
from .paired import paired
from .retrieval import RETRIEVERS, Retriever
from .verdicts import curve, leaderboard

__all__ = [
    "RETRIEVERS",
    "Comparison",
    "Retriever",
    "compare",
    "compare_at_k",
    "compare_at_k_rows",
    "contextualized",
    "curve",
    "default_chunkers",
    "excerpts_kept_whole",
    "guidance",
    "indexed_text",
    "leaderboard",
    "paired",
    "structure_metrics",
    "summarize",
]
