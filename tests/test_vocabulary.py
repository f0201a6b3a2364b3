"""One vocabulary over every registered chunker: the same name for the same concept, in parameters
and in metadata (docs/library.md, "One vocabulary")."""

from __future__ import annotations

import typing

import pytest

from chunklab import CHUNKERS, ParameterError
from chunklab.constraints import Choice
from chunklab.formats.blocks import DocumentFormat, breadcrumb_text
from chunklab.text.length import TokenizerLike
from chunklab.text.sentences import SENTENCE_METHODS

NAMES = sorted(CHUNKERS)
#: Names the vocabulary replaced; no chunker may bring one back.
RETIRED_PARAMS = {"size", "max_size", "min_size", "window", "overlap", "splitter", "sentence_method", "fmt",
                  "level", "contextualize", "custom_tokenizer", "max_chars", "min_chars"}
RETIRED_KEYS = {"kind", "kinds", "sentence_cut", "paragraph_cut", "partial_row", "in_table", "heading", "level"}
MODALITIES = {"prose", "table", "code", "list", "image", "mixed"}

DOC = """# Guide

Intro paragraph with a few sentences. It says what follows. Dr. Lee wrote it in 2024.

## Install

1. Download the file.
2. Run it.

| option | default |
|---|---|
| cache | 512 MB |
| port | 7480 |

```python
def start(port=7480):
    return port
```

## Use

Call the service. It answers in JSON. Keep the key secret.
"""


def literal_options(constraint: typing.Any) -> tuple | None:
    """The options of a parameter's constraint (or the names of a tokenizer's), else None."""
    return constraint.options if isinstance(constraint, Choice) else None


@pytest.mark.parametrize("name", NAMES)
def test_parameters_use_the_shared_names(name: str) -> None:
    cls = CHUNKERS[name]
    specs = cls.param_specs()
    assert not RETIRED_PARAMS & set(specs), f"{name} uses retired names {RETIRED_PARAMS & set(specs)}"
    if cls().size_limit() is not None:
        assert "chunk_size" in specs, f"{name} promises a size but does not call it chunk_size"
    for param, constraint in cls.constraints().items():
        options = literal_options(constraint)
        if options is not None and set(options) == set(SENTENCE_METHODS):
            assert param == "sentence_splitter", f"{name}.{param} picks a sentence splitter"
        if options is not None and set(options) >= {"chars", "words", "tokens"}:
            assert param == "unit"
        if options is not None and set(options) >= {"markdown", "html"}:
            assert param == "format" and options == typing.get_args(DocumentFormat), f"{name}.{param}"
    if "unit" in specs or name == "token":
        hint = specs["tokenizer"].annotation  # the type, less its declaration (`TokenizerParam`)
        hint = hint.__origin__ if typing.get_origin(hint) is typing.Annotated else hint
        assert hint == TokenizerLike, f"{name} must take any tokenizer"


@pytest.mark.parametrize("name", [n for n in NAMES if "min_chunk_size" in CHUNKERS[n].param_specs()])
def test_min_chunk_size_is_always_below_chunk_size(name: str) -> None:
    with pytest.raises(ParameterError, match="min_chunk_size"):
        CHUNKERS[name](chunk_size=300, min_chunk_size=300)
    CHUNKERS[name](chunk_size=300, min_chunk_size=299)


@pytest.mark.parametrize("name", NAMES)
def test_metadata_uses_the_shared_keys(name: str) -> None:
    cls = CHUNKERS[name]
    params = {"unit": "tokens"} if "unit" in cls.param_specs() else {}
    chunks = cls(**params)(DOC, source="guide.md")
    assert chunks
    for chunk in chunks:
        meta = chunk.metadata
        assert not RETIRED_KEYS & set(meta), f"{name} uses retired keys {RETIRED_KEYS & set(meta)}"
        assert {"source", "chunk_index", "total_chunks", "char_count", "content_hash"} <= set(chunk.exported_metadata())
        if "section" in meta or "breadcrumb" in meta:
            assert isinstance(meta["breadcrumb"], list) and meta["section"] == breadcrumb_text(meta["breadcrumb"])
        if "modality" in meta:
            assert meta["modality"] in MODALITIES, (name, meta["modality"])
        if "cut" in meta:
            assert isinstance(meta["cut"], bool)
        if "context" in meta:
            assert isinstance(meta["context"], str) and meta["context"] not in ("", chunk.text)
        if params or name == "token":
            assert meta["token_count"] == chunk.metadata.get("token_count") >= 1


def test_structure_aware_chunkers_give_the_breadcrumb() -> None:
    for name, params in [("markdown", {}), ("hierarchical", {}), ("keyword", {"keywords": ("Install", "Use")}),
                         ("modality", {}), ("table", {}), ("hybrid", {})]:
        chunks = CHUNKERS[name](**params)(DOC)
        assert any(c.metadata.get("breadcrumb") for c in chunks), name


#: Sized chunkers whose nature needs another default cap (docs/library.md, "One vocabulary").
OWN_DEFAULT = {"page": 4000, "token": 150}


@pytest.mark.parametrize("name", [n for n in NAMES if "chunk_size" in CHUNKERS[n].param_specs()])
def test_one_default_cap(name: str) -> None:
    from chunklab.text.length import DEFAULT_CHUNK_SIZE

    assert CHUNKERS[name]().chunk_size == OWN_DEFAULT.get(name, DEFAULT_CHUNK_SIZE)
