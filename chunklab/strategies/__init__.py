"""Every chunking strategy, one module per family. Importing this package fills `CHUNKERS`."""

from .fixed import FixedSizeChunker
from .semantic import SemanticChunker, SemanticClusterChunker
from .topic import TopicChunker

__all__ = ["FixedSizeChunker", "SemanticChunker", "SemanticClusterChunker", "TopicChunker"]
