"""Every chunking strategy, one module per family. Importing this package fills `CHUNKERS`."""

from .code import CodeChunker
from .entity import EntityChunker
from .fixed import FixedSizeChunker
from .hierarchical import HierarchicalChunker
from .hybrid import HybridChunker
from .jsondata import JsonChunker
from .keyword import KeywordChunker
from .markup import HtmlChunker, MarkdownChunker
from .modality import ModalityChunker
from .page import PageChunker
from .paragraph import ParagraphChunker
from .recursive import RecursiveChunker
from .semantic import SemanticChunker, SemanticClusterChunker
from .sentence import SentenceChunker
from .sliding import SlidingWindowChunker
from .table import TableChunker
from .token import TokenChunker
from .topic import TopicChunker

__all__ = [
    "CodeChunker",
    "EntityChunker",
    "FixedSizeChunker",
    "HierarchicalChunker",
    "HybridChunker",
    "HtmlChunker",
    "JsonChunker",
    "KeywordChunker",
    "MarkdownChunker",
    "ModalityChunker",
    "PageChunker",
    "ParagraphChunker",
    "RecursiveChunker",
    "SemanticChunker",
    "SemanticClusterChunker",
    "SentenceChunker",
    "SlidingWindowChunker",
    "TableChunker",
    "TokenChunker",
    "TopicChunker",
]
