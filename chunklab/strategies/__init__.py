"""Every chunking strategy, one module per family. Importing this package fills `CHUNKERS`."""

from .fixed import FixedSizeChunker
from .modality import ModalityChunker
from .page import PageChunker
from .table import TableChunker

__all__ = ["FixedSizeChunker", "ModalityChunker", "PageChunker", "TableChunker"]
