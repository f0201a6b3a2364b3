"""Every chunking strategy, one module per family. Importing this package fills `CHUNKERS`."""

from .fixed import FixedSizeChunker
from .hierarchical import HierarchicalChunker
from .keyword import KeywordChunker
from .modality import ModalityChunker
from .page import PageChunker
from .table import TableChunker

__all__ = [
    "FixedSizeChunker",
    "HierarchicalChunker",
    "KeywordChunker",
    "ModalityChunker",
    "PageChunker",
    "TableChunker",
]
