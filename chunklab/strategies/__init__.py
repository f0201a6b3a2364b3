"""Every chunking strategy, one module per family. Importing this package fills `CHUNKERS`."""

from .fixed import FixedSizeChunker

__all__ = ["FixedSizeChunker"]
