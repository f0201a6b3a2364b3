"""Measuring chunkers: retrieval of golden excerpts, structure broken, boundary scores, the goal."""

from .comparison import compare, default_chunkers, guidance, indexed_text, summarize
from .metrics import excerpts_kept_whole, structure_metrics
from .retrieval import RETRIEVERS, Retriever

__all__ = [
    "RETRIEVERS",
    "Retriever",
    "compare",
    "default_chunkers",
    "excerpts_kept_whole",
    "guidance",
    "indexed_text",
    "structure_metrics",
    "summarize",
]
