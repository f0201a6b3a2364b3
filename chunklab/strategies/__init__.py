"""Every chunking strategy, one module per family. Importing this package fills `CHUNKERS`."""

from .fixed import FixedSizeChunker
from .hierarchical import HierarchicalChunker
from .keyword import KeywordChunker

__all__ = ["FixedSizeChunker", "HierarchicalChunker", "KeywordChunker"]
