"""Every chunking strategy, one module per family. Importing this package fills `CHUNKERS`."""

from .fixed import FixedSizeChunker
from .paragraph import ParagraphChunker
from .sentence import SentenceChunker
from .sliding import SlidingWindowChunker

__all__ = ["FixedSizeChunker", "ParagraphChunker", "SentenceChunker", "SlidingWindowChunker"]
