"""Every chunking strategy, one module per family. Importing this package fills `CHUNKERS`."""

from .entity import EntityChunker
from .fixed import FixedSizeChunker
from .token import TokenChunker

__all__ = ["EntityChunker", "FixedSizeChunker", "TokenChunker"]
