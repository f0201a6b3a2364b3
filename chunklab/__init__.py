"""chunklab: text chunking for retrieval-augmented generation, with exact offsets.

The public API; see README.md and the notebooks in ``notebooks/``. The package is layered, each
layer importing only the ones below it: ``pipeline`` (files, export, the command line, the store,
Dask) > ``viz`` > ``evaluation`` > ``strategies`` > ``formats`` > ``text`` > ``models`` > ``core``
> ``constraints`` and ``caches``.
"""

from . import strategies as _strategies  # noqa: F401  (fills CHUNKERS)
from .caches import clear_caches
from .core import CHUNKERS, Chunk, Chunker, ParameterError
from .evaluation import compare
from .formats import Document, list_documents, load_document, load_questions
from .viz import explore, show

__all__ = [
    "CHUNKERS",
    "Chunk",
    "Chunker",
    "Document",
    "ParameterError",
    "clear_caches",
    "compare",
    "explore",
    "list_documents",
    "load_document",
    "load_questions",
    "show",
]
__version__ = "0.1.0"
