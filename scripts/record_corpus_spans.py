"""Record every registered chunker's chunks on every corpus document, as the "no chunk changes" guard.

Writes ``tests/fixtures/corpus_spans.json``: for each ``(chunker, document)`` pair, with the
chunker's defaults, a SHA-256 of the chunk spans and one of the chunk metadata as exported (with ``content_hash``).
`tests/test_corpus_spans.py` recomputes both and fails on any difference, so a refactoring
that should not change a chunk proves it. When a change is meant to move chunks, regenerate
the file and say so in the commit message::

    python scripts/record_corpus_spans.py

Model-based chunkers (semantic, topic, entity ...) are included: their models load offline.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "corpus_spans.json"


def _digest(value: Any) -> str:
    """The first 16 hex digits of the SHA-256 of `value` as sorted JSON (other objects by ``repr``)."""
    data = json.dumps(value, sort_keys=True, default=repr, ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:16]


def fingerprints(chunker_name: str, document: str) -> dict[str, Any]:
    """The number of chunks and the digests of spans and metadata of one chunker on one document."""
    from chunklab import CHUNKERS, load_document

    text = load_document(document).text
    chunks = CHUNKERS[chunker_name]()(text, source=document)
    return {
        "chunks": len(chunks),
        "spans": _digest([[chunk.start, chunk.end] for chunk in chunks]),
        "metadata": _digest([chunk.exported_metadata() for chunk in chunks]),
    }


def record() -> dict[str, dict[str, dict[str, Any]]]:
    """Fingerprints of every registered chunker on every corpus document."""
    from chunklab import CHUNKERS, list_documents

    return {
        name: {document: fingerprints(name, document) for document in list_documents()}
        for name in sorted(CHUNKERS)
    }


def main() -> None:
    """Write the fixture."""
    FIXTURE.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE}", file=sys.stderr)


if __name__ == "__main__":
    main()
