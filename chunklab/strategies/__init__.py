"""Every chunking strategy, one module per family. Importing this package fills `CHUNKERS`."""

from .code import CodeChunker
from .fixed import FixedSizeChunker
from .markup import HtmlChunker, MarkdownChunker
from .recursive import RecursiveChunker

__all__ = ["CodeChunker", "FixedSizeChunker", "HtmlChunker", "MarkdownChunker", "RecursiveChunker"]
