"""Every chunking strategy, one module per family. Importing this package fills `CHUNKERS`."""

from .entity import EntityChunker
from .fixed import FixedSizeChunker
from .modality import ModalityChunker
from .page import PageChunker
from .table import TableChunker
from .token import TokenChunker

__all__ = ["EntityChunker", "FixedSizeChunker", "ModalityChunker", "PageChunker", "TableChunker", "TokenChunker"]
