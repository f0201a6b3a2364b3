"""Documents and their formats: reading files, the course corpus, and parsing markdown, HTML, PDF,
CSV and tables into blocks with exact spans (one parser per format)."""

from .blocks import Block, heading_trails
from .corpus import list_documents, load_document, load_questions
from .document import Document
from .folders import find_documents
from .parse import document_blocks, guess_format
from .readers import DocumentError, read_document
from .tables import Table, document_parts
from .unbreakable import fenced_code_spans, table_row_spans

__all__ = [
    "Block",
    "Document",
    "DocumentError",
    "Table",
    "fenced_code_spans",
    "document_blocks",
    "document_parts",
    "find_documents",
    "guess_format",
    "heading_trails",
    "list_documents",
    "load_document",
    "load_questions",
    "read_document",
    "table_row_spans",
]
