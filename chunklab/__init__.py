"""chunklab: text chunking for retrieval-augmented generation, with exact offsets.

The public API; see README.md and the notebooks in ``notebooks/``.
"""

from . import strategies as _strategies  # noqa: F401  (fills CHUNKERS)
from .core import CHUNKERS, Chunk, Chunker
from .corpus import Document, list_documents, load_document, load_questions
from .explore import explore
from .viz import show

__all__ = [
    "CHUNKERS",
    "Chunk",
    "Chunker",
    "Document",
    "explore",
    "list_documents",
    "load_document",
    "load_questions",
    "show",
]
__version__ = "0.1.0"
